"""``gradacc check`` on malformed variants of real published configs: truncated, tabs,
wrong types, negatives, impossible triples, misspelled keys, empty, binary, huge, a
missing path and a folder. Each gives one clear line and the right exit status (2: the
file cannot be read; 1: the framework refuses it, the reason first), never a traceback,
in the text and the JSON output alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import MAX_CONFIG_BYTES

CORPUS = Path(__file__).resolve().parents[1] / "data" / "trainer_configs"
DEEPSPEED = CORPUS / "DeepSpeedExamples__BingBertSquad-deepspeed_bsz24_config.json"
ACCELERATE = CORPUS / "accelerate__examples-config_yaml_templates-deepspeed.yaml"
AXOLOTL = CORPUS / "axolotl__examples-code-llama-7b-lora.yml"


def _json(path: Path, change: Callable[[dict[str, Any]], None]) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    return json.dumps(data, indent=2)


def _yaml(path: Path, change: Callable[[dict[str, Any]], None]) -> str:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    return yaml.safe_dump(data, sort_keys=False)


def _set(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.update(values)


def _rename(old: str, new: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[new] = data.pop(old)

    return change


def _zero(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.setdefault("zero_optimization", {}).update(values)


# (name, file name, bytes, exit status, text the one line or the first refusal holds)
CASES: list[tuple[str, str, bytes, int, str]] = [
    (
        "truncated JSON",
        "ds.json",
        DEEPSPEED.read_bytes()[: len(DEEPSPEED.read_bytes()) // 2],
        2,
        "not valid JSON",
    ),
    (
        "truncated YAML",
        "acc.yaml",
        b"compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  zero_stage: 2\n"
        b"  offload_optimizer_device: [cpu\n",
        2,
        "not valid YAML",
    ),
    (
        "tab-indented YAML",
        "acc.yaml",
        ACCELERATE.read_text(encoding="utf-8").replace("  ", "\t").encode(),
        2,
        "not valid YAML",
    ),
    (
        "a batch value as a word",
        "ds.json",
        _json(DEEPSPEED, _set(train_micro_batch_size_per_gpu="four")).encode(),
        1,
        "train_micro_batch_size_per_gpu",
    ),
    (
        "a batch value as a list",
        "lora.yml",
        _yaml(AXOLOTL, _set(micro_batch_size=[4])).encode(),
        1,
        "micro_batch_size",
    ),
    (
        "a negative batch value",
        "ds.json",
        _json(DEEPSPEED, _set(train_batch_size=-24)).encode(),
        1,
        "train_batch_size",
    ),
    (
        "zero processes",
        "acc.yaml",
        _yaml(ACCELERATE, _set(num_processes=0)).encode(),
        1,
        "num_processes",
    ),
    (
        "an impossible triple",
        "ds.json",
        _json(
            DEEPSPEED,
            _set(
                train_batch_size=100,
                train_micro_batch_size_per_gpu=3,
                gradient_accumulation_steps=4,
            ),
        ).encode(),
        1,
        "DeepSpeed refuses",
    ),
    (
        "a misspelled ZeRO key",
        "ds.json",
        _json(DEEPSPEED, _zero(stgae=2)).encode(),
        1,
        "did you mean stage?",
    ),
    (
        "a misspelled accelerate key",
        "acc.yaml",
        _yaml(ACCELERATE, _rename("num_processes", "num_proceses")).encode(),
        1,
        "did you mean num_processes?",
    ),
    ("an empty file", "ds.json", b"", 2, "the file is empty"),
    ("only a comment", "acc.yaml", b"# nothing here\n", 2, "the file is empty"),
    ("binary bytes", "ds.json", bytes(range(256)) * 4, 2, "not a text file"),
    ("a huge file", "ds.json", b" " * (MAX_CONFIG_BYTES + 1), 2, "too large"),
]


@pytest.mark.parametrize(
    ("name", "file", "content", "code", "needle"), CASES, ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_each_variant_gives_one_clear_line_and_its_status(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    file: str,
    content: bytes,
    code: int,
    needle: str,
    as_json: bool,
) -> None:
    del name
    path = tmp_path / file
    path.write_bytes(content)
    argv = ["check", str(path), "--world-size", "4"] + (["--json"] if as_json else [])
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if code == 2:
        # one line on stderr, naming the file, and nothing on stdout
        assert out == ""
        assert err.startswith(f"gradacc: error: {path}: ") and err.count("\n") == 1
        assert needle in err
        return
    assert err == ""
    if as_json:
        data = json.loads(out)
        assert data["framework_accepts"] is False
        assert needle in data["problems"][0]
    else:
        lines = out.splitlines()
        # the refusal comes right after the kind, before the values
        assert lines[1].startswith("Refused: ") and needle in lines[1]


def test_a_missing_path_and_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for target, needle in (
        (tmp_path / "ds_config.json", "no such file"),
        (tmp_path, "is a folder"),
    ):
        assert main(["check", str(target), "--json"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"gradacc: error: {target}: {needle}\n".replace(
            "is a folder", "is a folder, not a file"
        )


def test_every_variant_is_really_malformed() -> None:
    """The variants differ from the published files they come from (a test that cannot
    fail proves nothing): each real file is read as accepted."""
    for path in (DEEPSPEED, ACCELERATE, AXOLOTL):
        assert main(["check", str(path), "--world-size", "4", "--json"]) == 0
