"""``gradacc plan``'s other memory adds up: the model states, the caching allocator's
reserve (Megatron, FSDP2) and the overhead make the total it prints."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from gradacc_desktop.cli import main


@pytest.mark.parametrize("framework", ["deepspeed", "megatron", "fsdp"])
def test_the_other_memory_line_adds_up(framework: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--model", "llama-3.1-8b", "--seq-len", "8192", "--target-batch", "64",
            "--gpus", "8", "--gpu-card", "h100-80gb", "--zero-stage", "2",
            "--framework", framework]  # fmt: skip
    assert main(argv) == 0
    line = next(
        row for row in capsys.readouterr().out.splitlines() if row.startswith("Other memory")
    )
    total, *parts = (Decimal(n) for n in re.findall(r"([\d.]+) GB", line))
    assert sum(parts) == total, line
    assert ("allocator's reserve" in line) is (framework != "deepspeed"), line
