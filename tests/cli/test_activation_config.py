"""``gradacc activation --model-config``: the contract scripts rely on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.cli import main
from tests.configs import config_path

QWEN3 = str(config_path("Qwen__Qwen3-0.6B.json"))


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["activation", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data: dict[str, Any] = json.loads(out)
    return data


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    try:
        code = main(["activation", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1
    return err


def test_json_names_the_family_and_the_exact_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = run_json(capsys, "--model-config", QWEN3, "--seq-len", "2048")
    assert data["family"] == "llama"
    assert data["model_type"] == "qwen3"
    assert data["params"] == {"total": 596_049_920, "trainable": 596_049_920}
    assert isinstance(data["saved_bytes_per_sample"], int)
    assert data["inputs"]["seq"] == 2048 and data["inputs"]["target_seq"] is None
    keys = {row["key"] for row in data["breakdown"]}
    assert "attn_qk_norm" in keys
    assert any(row["key"] == "family" for row in data["assumptions"])


def test_seq_defaults_to_the_context_up_to_4096(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, "--model-config", QWEN3)["inputs"]["seq"] == 4096
    gpt2 = str(config_path("openai-community__gpt2.json"))
    assert run_json(capsys, "--model-config", gpt2)["inputs"]["seq"] == 1024


def test_padded_batches_cost_more_under_sdpa_only(capsys: pytest.CaptureFixture[str]) -> None:
    def saved(*more: str) -> int:
        return int(
            run_json(capsys, "--model-config", QWEN3, "--seq-len", "512", *more)[
                "saved_bytes_per_sample"
            ]
        )

    assert saved("--padded") > saved()
    assert saved("--padded", "--attention", "eager") == saved("--attention", "eager")


def test_the_flags_of_the_other_paths_agree(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "--model-config", QWEN3, "--seq-len", "128", "--precision", "fp32",
        "--attention", "eager", "--recompute", "full", "--profile", "hf", "--device", "cpu",
    )  # fmt: skip
    assert (data["inputs"]["dtype"], data["inputs"]["recompute"]) == ("fp32", "full")
    assert data["inputs"]["device"] == "cpu"


def test_human_output_says_which_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["activation", "--model-config", QWEN3, "--seq-len", "64"]) == 0
    out = capsys.readouterr().out
    assert "model: qwen3 (Qwen3ForCausalLM)" in out
    assert "parameters: 596049920" in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{ nope", "not valid JSON"),
        ('{"model_type": "rwkv"}', "supported types are"),
        ('{"hidden_size": 4}', "no model_type"),
        ('{"model_type": "llama", "hidden_size": -4}', "hidden_size"),
    ],
)
def test_bad_files_fail_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, words: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text(content, encoding="utf-8")
    assert words in fails(capsys, "--model-config", str(path))


def test_bad_combinations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "cannot read" in fails(capsys, "--model-config", str(tmp_path / "none.json"))
    assert "--model" in fails(capsys, "--model-config", QWEN3, "--model", "gpt2")
    # the sizes are the model too: the same refusal as gradacc plan's
    err = fails(capsys, "--model-config", QWEN3, "--hidden", "64")
    assert "--model-config and the model's sizes are alternatives" in err
    assert "encoder-decoder" in fails(capsys, "--model-config", QWEN3, "--target-seq", "8")
    assert "encoder-decoder" in fails(capsys, "--model", "gpt2", "--target-seq", "8")
    assert (
        "paper" in fails(capsys, "--model-config", QWEN3, "--profile", "paper")
        or "Llama" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("preset", "seq", "limit"),
    [("bert-base-uncased", "2048", 512), ("gpt2", "4096", 1024), ("opt-125m", "4096", 2048)],
)
def test_a_sequence_past_the_learned_positions_is_refused(
    capsys: pytest.CaptureFixture[str], preset: str, seq: str, limit: int
) -> None:
    from gradacc_desktop.cli import main

    assert main(["activation", "--model", preset, "--seq-len", seq]) == 2
    err = capsys.readouterr().err
    assert f"learns positions up to {limit} tokens" in err and f"--seq-len {seq}" in err
    # at the limit it runs, as the window and the plan do
    assert main(["activation", "--model", preset, "--seq-len", str(limit), "--json"]) == 0


def test_xlm_roberta_past_its_learned_positions_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = fails(capsys, "--model", "xlm-roberta-base", "--seq-len", "1024")
    assert "learns positions up to 512 tokens" in err


def test_a_rotary_model_past_its_trained_length_is_estimated_with_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["activation", "--model-config", QWEN3, "--seq-len", "65536", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["inputs"]["seq"] == 65536
    assert err.startswith("gradacc: warning: --seq-len 65536 is past the 40960 tokens")
    # within the trained length: silent
    run_json(capsys, "--model-config", QWEN3, "--seq-len", "40960")


def test_a_refused_model_type_names_the_closest_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    phi = tmp_path / "config.json"
    phi.write_text(json.dumps({"model_type": "phi", "hidden_size": 64}), encoding="utf-8")
    assert "closest supported name is phi3" in fails(capsys, "--model-config", str(phi))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"architectures": ["CamembertForMaskedLM"]}), encoding="utf-8")
    err = fails(capsys, "--model-config", str(bare))
    assert "no model_type key" in err and '"model_type": "camembert"' in err
