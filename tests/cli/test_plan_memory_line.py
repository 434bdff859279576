"""``gradacc plan``'s memory line: its parts add up as the window's memory card adds them
(the activations on the GPU that holds the most, the allocator's reserve included), and
the headroom is never shown larger than it is."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gradacc_desktop.cli import main
from tests.cli.helpers import run_json

PLAN = ("plan", "--model", "llama-3.1-8b", "--seq-len", "4096", "--target-batch", "64",
        "--gpus", "8", "--gpu-card", "h100-80gb", "--zero-stage", "3",
        "--framework", "fsdp")  # fmt: skip


def _memory_line(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main([*PLAN, *extra]) == 0
    return next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Memory per GPU"))


def test_the_parts_add_up_with_the_reserve(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *PLAN)
    line = _memory_line(capsys)
    other_bytes = int(Decimal(data["other_memory_gb"]) * 10**9)
    mb = -(-other_bytes // 10**6), -(-data["per_gpu_bytes"] // 10**6)
    other, total = (f"{n / 1000:g}" for n in mb)
    # FSDP2's caching allocator keeps 10 % over the activations' 31.715 GB
    assert line.startswith(f"Memory per GPU: {other} GB other + 1 x 34.886 GB of activations = ")
    assert f"= {total} GB of 80 GB (fits" in line


def test_the_headroom_is_rounded_down(capsys: pytest.CaptureFixture[str]) -> None:
    total = run_json(capsys, *PLAN)["per_gpu_bytes"]
    line = _memory_line(capsys)
    shown = -(-total // 10**6)  # MB, rounded up
    # the memory shown rounded up and the headroom rounded down add up to the card's
    assert f"headroom {(80_000 - shown) / 1000:g} GB)" in line, line


def test_a_shortfall_is_said_as_one(capsys: pytest.CaptureFixture[str]) -> None:
    line = _memory_line(capsys, "--micro-batch", "4")
    assert "(does NOT fit, short by " in line and "headroom" not in line


def test_a_refusal_is_said_when_nothing_fits(capsys: pytest.CaptureFixture[str]) -> None:
    # ZeRO-0 with DeepSpeed's bf16 master copy: refused, and 8B whole on each GPU is too big
    args = ["plan", "--model", "llama-3.1-8b", "--seq-len", "4096", "--target-batch", "64",
            "--gpus", "8", "--gpu-card", "h100-80gb", "--master-weights", "bf16"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Nothing fits:" in out
    assert "Refused (deepspeed): DeepSpeed keeps a bf16 master copy only" in out
