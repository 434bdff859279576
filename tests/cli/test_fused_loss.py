"""``--fused-loss`` on the command line: the plan's activation without the whole
logits, refused beside Megatron, and read from a config."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradacc_desktop.cli import main
from tests.cli.helpers import run_json

PLAN = ("plan", "--model", "llama-3.1-8b", "--seq-len", "65536", "--target-batch", "8",
        "--gpus", "8", "--gpu-card", "h200-141gb", "--zero-stage", "3", "--offload",
        "optimizer", "--recompute", "full")  # fmt: skip


def test_the_fused_loss_lowers_the_plans_activation(capsys: pytest.CaptureFixture[str]) -> None:
    plain = run_json(capsys, *PLAN)
    fused = run_json(capsys, *PLAN, "--fused-loss")
    # the fp32 log-softmax (4·s·V) and the logits around the loss (6·s·V) are gone
    s, v = 65536, 128256
    dropped = plain["activation_bytes_per_sample"] - fused["activation_bytes_per_sample"]
    assert dropped > 10 * s * v - 8 * s * 4096
    assert fused["per_gpu_bytes"] < plain["per_gpu_bytes"]


def test_megatron_and_the_fused_loss_is_a_problem(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *PLAN, "--fused-loss", "--framework", "megatron")
    assert [p["rule"] for p in data["problems"]] == ["fused_loss_megatron"]


def test_check_says_the_fused_loss_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "axolotl.yml"
    path.write_text(
        "base_model: meta-llama/Llama-3.1-8B\nplugins:\n"
        "  - axolotl.integrations.liger.LigerPlugin\n"
        "liger_fused_linear_cross_entropy: true\nmicro_batch_size: 1\n"
        "gradient_accumulation_steps: 4\n",
        "utf-8",
    )
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  fused loss (Liger): true  (liger_fused_linear_cross_entropy)\n" in out
