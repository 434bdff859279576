"""``--recompute selective-op`` (torchtitan's per-op selective checkpointing) on the
command line: between none and full in memory and in time, a problem outside FSDP, not
modelled (said, not guessed) for layers whose products are not described, and the
exports say they train without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradacc_desktop.cli import main
from tests.cli.helpers import run_json

PLAN = ("plan", "--model", "llama-3.1-8b", "--seq-len", "8192", "--target-batch", "16",
        "--micro-batch", "2", "--gpus", "8", "--gpu-card", "h100-80gb",
        "--zero-stage", "3", "--framework", "fsdp")  # fmt: skip


def _plan(capsys: pytest.CaptureFixture[str], recompute: str) -> dict[str, object]:
    return run_json(capsys, *PLAN, "--recompute", recompute)


def test_it_keeps_less_than_none_and_more_than_full(capsys: pytest.CaptureFixture[str]) -> None:
    none, op, full = (_plan(capsys, r) for r in ("none", "selective-op", "full"))
    assert op["problems"] == []
    per_sample = [d["activation_bytes_per_sample"] for d in (none, op, full)]
    assert per_sample[0] > per_sample[1] > per_sample[2]  # type: ignore[operator]
    # k, o and up again: 36.5 % of Llama 3 8B's layer products, not the attention
    assert none["step_seconds"] < op["step_seconds"] < full["step_seconds"]  # type: ignore[operator]


def test_deepspeed_and_megatron_train_without_it(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*PLAN[:-2], "--recompute", "selective-op"]
    data = run_json(capsys, *args)
    assert [p["rule"] for p in data["problems"]] == ["recompute_per_op"]
    code = main(["time", *args[1:], "--tokens", "1000000000"])
    err = capsys.readouterr().err
    assert code == 2 and "--recompute: Per-op selective recomputation is torchtitan's" in err


def test_a_model_whose_products_are_not_described_has_no_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["plan", "--model", "gpt2", "--seq-len", "1024", "--target-batch", "64",
            "--micro-batch", "1", "--gpus", "8", "--gpu-card", "h100-80gb",
            "--framework", "fsdp", "--recompute", "selective-op"]  # fmt: skip
    data = run_json(capsys, *args)
    assert [p["rule"] for p in data["problems"]] == ["recompute_per_op_model"]
    assert data["missing"] == {"activation": "recompute"}
    assert data["per_gpu_bytes"] is None and data["fits"] is None
    assert data["time_unavailable"] == "recompute"
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Per-op selective recomputation is modelled for Llama-like layers" in out
    code = main(["time", *args[1:], "--tokens", "1000000000"])
    assert code == 2 and "--recompute: Per-op selective" in capsys.readouterr().err


def test_the_exports_say_what_one_gpu_needs_without_it(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["export", "--format", "hf", "--model", "llama-3.1-8b", "--seq-len", "8192",
            "--gpu-card", "h100-80gb", "--micro-batch", "2", "--accumulation-steps", "1",
            "--gpus", "8", "--framework", "fsdp", "--zero-stage", "3"]  # fmt: skip
    assert main([*args, "--recompute", "selective-op"]) == 0
    err = capsys.readouterr().err
    # 28.6 GB a sample with per-op; without it the 2 samples take 160.5 GB of the 80
    assert "Without it one GPU needs 160.521 GB at micro-batch 2, more than the 80 GB" in err
    assert main([*args, "--recompute", "full"]) == 0
    assert "Without it" not in capsys.readouterr().err  # the files run full recomputation


def test_the_exports_say_they_train_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", "--format", "hf", "--micro-batch", "2", "--accumulation-steps", "1",
            "--gpus", "8", "--recompute", "selective-op", "--out", str(tmp_path)]  # fmt: skip
    assert main(args) == 2  # DeepSpeed, the default framework: the problem refuses it
    assert "--recompute: Per-op selective" in capsys.readouterr().err
    assert main([*args, "--framework", "fsdp", "--zero-stage", "3"]) == 0
    out = capsys.readouterr()
    assert "Per-op selective recomputation is torchtitan's" in out.out + out.err
    header = " ".join((tmp_path / "train.py").read_text().replace("#", " ").split())
    assert "per-op selective recomputation (torchtitan's, not in these files)" in header
