"""``python -m gradacc_desktop.measure --time-micro-batches``: a measured speed profile.

A real tiny GPT-2 (2 layers, hidden 64, seq 32) on the CPU, timed at micro-batches
1, 2 and 4 with one repeat; the profile it writes is read back with
``gradacc_desktop.core.time.profile.load_profile``. Bad timing arguments are refused in one
line (exit 2) and no profile is written when the run fails. Skipped when torch or
transformers are missing.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gradacc_desktop.measure as measure  # noqa: E402
import gradacc_desktop.measure.timing as measure_timing  # noqa: E402
from gradacc_desktop.core.precision import Precision  # noqa: E402
from gradacc_desktop.core.recompute import Recompute  # noqa: E402
from gradacc_desktop.core.time.profile import load_profile  # noqa: E402
from gradacc_desktop.measure import MeasureError, build_model, main, time_micro_step  # noqa: E402

GPT2 = {
    "model_type": "gpt2",
    "n_embd": 64,
    "n_layer": 2,
    "n_head": 4,
    "vocab_size": 128,
    "n_positions": 64,
    "bos_token_id": 1,
    "eos_token_id": 2,
}


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "tiny-gpt2" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(GPT2), encoding="utf-8")
    return str(path)


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    lines: list[str] = []
    rc = main(list(argv), out=lines.append)
    return rc, lines, capsys.readouterr().err


def _args(config: str, *more: str) -> tuple[str, ...]:
    return ("--model-config", config, "--seq", "32", "--dtype", "fp32", *more)


def _refused_in_one_line(rc: int, err: str) -> None:
    assert rc == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")


def test_times_three_sizes_and_writes_the_profile(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "profile.json"
    target.parent.mkdir()
    rc, lines, err = _main(
        capsys,
        *_args(config, "--time-micro-batches", "4,1,2", "--repeats", "1"),
        "--profile-out", str(target), "--json",
    )  # fmt: skip
    assert rc == 0, err
    result = json.loads(lines[0])
    profile = load_profile(target)
    assert [b for b, _ in profile.points] == [1, 2, 4]
    assert all(isinstance(s, Fraction) and s > 0 for _, s in profile.points)
    assert profile.repeats == (1, 1, 1)
    assert profile.device == "cpu" and profile.dtype is Precision.FP32
    assert profile.params == result["parameters"] and profile.seq_len == 32
    assert profile.target_seq_len is None
    assert profile.recompute is Recompute.NONE and profile.attention == "sdpa"
    assert profile.model == "GPT2LMHeadModel (tiny-gpt2/config.json)"
    timing = result["timing"]
    assert timing["device"] == "cpu" and timing["dtype"] == "float32"
    assert timing["repeats"] == 1 and timing["out_of_memory_at"] is None
    assert timing["profile"] == str(target)
    assert [(p["micro_batch"], Fraction(p["seconds"]), p["repeats"]) for p in timing["points"]] == [
        (b, s, 1) for b, s in profile.points
    ]
    # the activation measurement is unchanged
    assert result["micro_batch"] == 1 and result["saved_bytes"] > 0
    # written through a temporary file that does not stay behind
    assert os.listdir(target.parent) == ["profile.json"]


def test_text_output_and_checkpointing(config: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines, err = _main(
        capsys, *_args(config, "--time-micro-batches", "2", "--repeats", "2", "--checkpointing")
    )
    assert rc == 0, err
    assert lines[-2] == "micro-step time (forward + backward, median of 2, cpu):"
    assert lines[-1].startswith("  micro-batch 2: ") and lines[-1].endswith(" s")
    assert float(lines[-1].split()[-2]) > 0


def test_json_without_timing_has_no_timing_key(
    config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, lines, err = _main(capsys, *_args(config, "--json"))
    assert rc == 0, err
    assert "timing" not in json.loads(lines[0])


@pytest.mark.parametrize(
    "value", ["0", "a", "", "-1", "-1,2", "1,,2", "1,a", "2,2", "1.5", " ", "1,0", "2000000"]
)
def test_bad_micro_batch_lists_are_refused_in_one_line(
    value: str, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "profile.json"
    rc, lines, err = _main(
        capsys, *_args(config, "--time-micro-batches", value, "--profile-out", str(target))
    )
    _refused_in_one_line(rc, err)
    assert "--time-micro-batches" in err
    assert lines == [] and not target.exists()


@pytest.mark.parametrize(
    ("more", "message"),
    [
        (("--time-micro-batches", "1", "--repeats", "0"), "--repeats must be from 1"),
        (("--time-micro-batches", "1", "--repeats", "-2"), "--repeats must be from 1"),
        (("--time-micro-batches", "1", "--repeats", "x"), "--repeats must be an integer"),
        (("--repeats", "2"), "--repeats needs --time-micro-batches"),
        (("--profile-out", "p.json"), "--profile-out needs --time-micro-batches"),
        (("--time-micro-batches", "1", "--profile-out", "missing/p.json"), "does not exist"),
        (("--time-micro-batches", "1", "--profile-out", "."), "is a folder"),
        (("--device", "gpu"), "--device must be cpu, cuda or cuda:N"),
    ],
)
def test_bad_timing_arguments_are_refused_in_one_line(
    more: tuple[str, ...],
    message: str,
    config: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    rc, _, err = _main(capsys, *_args(config, *more))
    _refused_in_one_line(rc, err)
    assert message in err
    assert not (tmp_path / "p.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_device_without_cuda_is_refused(
    config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _, err = _main(capsys, *_args(config, "--device", "cuda", "--time-micro-batches", "1"))
    _refused_in_one_line(rc, err)
    assert "CUDA is not available" in err


def test_a_failed_run_writes_no_profile(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "profile.json"
    target.write_text("the previous profile", encoding="utf-8")
    argv = ["--model-config", config, "--seq", "100", "--time-micro-batches", "1"]
    rc, _, err = _main(capsys, *argv, "--profile-out", str(target))
    assert rc == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: --seq 100 is longer")
    assert target.read_text(encoding="utf-8") == "the previous profile"
    assert sorted(os.listdir(tmp_path)) == ["profile.json", "tiny-gpt2"]


def _out_of_memory_from(size: int) -> Any:
    def fake(model: Any, batch: Any, repeats: int = 3) -> float:
        if batch["input_ids"].shape[0] >= size:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return 0.25 * batch["input_ids"].shape[0]

    return fake


def test_out_of_memory_keeps_the_sizes_already_timed(
    config: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(measure_timing, "time_micro_step", _out_of_memory_from(4))
    target = tmp_path / "profile.json"
    rc, lines, err = _main(
        capsys,
        *_args(config, "--time-micro-batches", "1,2,4,8", "--profile-out", str(target), "--json"),
    )
    assert rc == 0, err
    assert "out of memory at micro-batch 4" in err and "kept micro-batch 1, 2" in err
    assert load_profile(target).points == ((1, Fraction(1, 4)), (2, Fraction(1, 2)))
    timing = json.loads(lines[0])["timing"]
    assert timing["out_of_memory_at"] == 4
    assert [p["seconds"] for p in timing["points"]] == ["0.25", "0.5"]


def test_out_of_memory_at_the_first_size_is_an_error(
    config: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(measure_timing, "time_micro_step", _out_of_memory_from(1))
    target = tmp_path / "profile.json"
    rc, _, err = _main(
        capsys, *_args(config, "--time-micro-batches", "1,2", "--profile-out", str(target))
    )
    assert rc == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: out of memory timing micro-batch 1")
    assert not target.exists()


def test_a_failed_write_leaves_nothing_behind(
    config: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(measure_timing, "time_micro_step", _out_of_memory_from(100))

    def refuse(_src: Any, _dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    folder = tmp_path / "out"
    folder.mkdir()
    rc, _, err = _main(
        capsys,
        *_args(config, "--time-micro-batches", "1", "--profile-out", str(folder / "p.json")),
    )
    assert rc == 2
    assert (
        err.strip().splitlines()[-1]
        == f"error: cannot write {folder / 'p.json'}: Permission denied"
    )
    assert os.listdir(folder) == []


def test_time_micro_step_from_a_script(config: str) -> None:
    model = build_model(config, dtype="fp32")
    batch = measure.random_batch(model, 16, 2)
    seconds = time_micro_step(model, batch, repeats=1)
    assert isinstance(seconds, float) and seconds > 0
    assert all(p.grad is None for p in model.parameters())
    assert model.training
    with pytest.raises(ValueError, match="repeats must be an integer >= 1"):
        time_micro_step(model, batch, repeats=0)
    with pytest.raises(MeasureError, match="no loss"):
        time_micro_step(model, {"input_ids": batch["input_ids"]}, repeats=1)
