"""Megatron's ``--tp-comm-overlap`` and ``--grad-reduce-in-bf16`` on the command line:
what each does to the plan's JSON, the problem each is beside another framework, and
the time command reading them too."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.cli.helpers import run_json

PLAN = ("plan", "--model", "llama-3.1-8b", "--seq-len", "8192", "--target-batch", "64",
        "--gpus", "8", "--nodes", "2", "--gpu-card", "h100-80gb", "--zero-stage", "1",
        "--framework", "megatron", "--tensor-parallel", "2", "--sequence-parallel",
        "--micro-batch", "4")  # fmt: skip


def test_the_overlap_takes_the_tensor_parallel_part_out_of_the_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = run_json(capsys, *PLAN)
    hidden = run_json(capsys, *PLAN, "--tp-comm-overlap")
    assert Decimal(plain["parts"]["tensor_parallel"]) > 0
    assert Decimal(hidden["parts"]["tensor_parallel"]) == 0
    assert Decimal(hidden["step_seconds"]) < Decimal(plain["step_seconds"])
    assert hidden["problems"] == [] and hidden["per_gpu_bytes"] == plain["per_gpu_bytes"]
    # without sequence parallelism Megatron refuses the flag: a problem, the time stays
    refused = [a for a in PLAN if a != "--sequence-parallel"]
    asked = run_json(capsys, *refused, "--tp-comm-overlap")
    assert [p["rule"] for p in asked["problems"]] == ["tp_comm_overlap"]
    assert asked["step_seconds"] == run_json(capsys, *refused)["step_seconds"]


def test_bf16_gradients_halve_the_buffer_and_the_data_parallel_traffic(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = run_json(capsys, *PLAN)
    bf16 = run_json(capsys, *PLAN, "--grad-reduce-in-bf16")
    assert bf16["problems"] == []
    # the gradient buffer of one GPU's half of the model (tensor parallelism 2): 2 bytes
    # a parameter less
    saved = plain["per_gpu_allocated_bytes"] - bf16["per_gpu_allocated_bytes"]
    assert saved == plain["params"]
    assert Decimal(bf16["parts"]["data_parallel"]) < Decimal(plain["parts"]["data_parallel"])
    deepspeed = run_json(capsys, *PLAN, "--grad-reduce-in-bf16", "--framework", "deepspeed")
    assert [p["rule"] for p in deepspeed["problems"]] == ["grad_reduce_bf16"]


def test_the_time_command_reads_both(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("time", "--model", "llama-3.1-8b", "--seq-len", "8192", "--world-size", "16",
            "--nodes", "2", "--gpu-card", "h100-80gb", "--zero-stage", "1", "--framework",
            "megatron", "--tensor-parallel", "2", "--sequence-parallel", "--micro-batch",
            "4", "--target-batch", "64", "--tokens", "1000000000")  # fmt: skip
    plain = run_json(capsys, *args)
    both = run_json(capsys, *args, "--tp-comm-overlap", "--grad-reduce-in-bf16")
    assert Decimal(both["step_seconds"]) < Decimal(plain["step_seconds"])
