"""``--context-parallel`` on the command line: ``plan``, ``export`` and ``time`` read it,
the JSON says it, and what no framework runs is refused in one line."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.cli.helpers import fails, run_json

LLAMA = ("--model", "llama-3.1-8b", "--seq-len", "32768", "--gpu-card", "h100-80gb")
PLAN = (
    "plan", *LLAMA, "--gpus", "2", "--nodes", "2", "--tensor-parallel", "2",
    "--target-batch", "16", "--micro-batch", "1", "--zero-stage", "1", "--recompute", "full",
)  # fmt: skip
TIME = (
    "time", *LLAMA, "--world-size", "16", "--gpus-per-node", "8", "--tensor-parallel", "2",
    "--tokens", "1000000000", "--micro-batch", "1", "--target-batch", "16",
    "--zero-stage", "1", "--recompute", "full",
)  # fmt: skip
EXPORT = (
    "export", "--format", "megatron", "--micro-batch", "1", "--accumulation-steps", "8",
    "--gpus", "2", "--tensor-parallel", "2", "--seq-len", "32768",
)  # fmt: skip


def test_plan_splits_the_sequence_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    one = run_json(capsys, *PLAN)
    four = run_json(capsys, *PLAN, "--context-parallel", "4")
    assert one["layout"]["context_parallel"] == 1 and one["layout"]["world_size"] == 4
    assert four["layout"] == {
        "data_parallel": 2, "tensor_parallel": 2, "pipeline_stages": 1, "virtual_stages": 1,
        "expert_parallel": 1, "expert_tensor_parallel": 2, "context_parallel": 4,
        "world_size": 16,
    }  # fmt: skip
    # each GPU keeps a quarter of the tokens, and ZeRO-1 shards over dp · cp = 8 ranks
    assert four["activation_bytes_per_sample"] == one["activation_bytes_per_sample"]
    assert four["model_states_bytes"] < one["model_states_bytes"]
    assert four["per_gpu_bytes"] < one["per_gpu_bytes"]
    assert "context_parallel" in four["parts"]


def test_time_and_plan_give_the_same_step_for_the_same_layout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    time = run_json(capsys, *TIME, "--context-parallel", "4")
    plan = run_json(capsys, *PLAN, "--context-parallel", "4")
    assert time["speed_source"] == "modelled"
    assert D(time["step_seconds"]) == D(plan["step_seconds"])
    assert time["parts"] == plan["parts"]


def test_export_writes_megatrons_flag(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *EXPORT, "--context-parallel", "4", "--json")
    assert "--context-parallel-size 4" in data["snippet"]
    assert data["layout"]["context_parallel"] == 4 and data["layout"]["world_size"] == 16
    plain = run_json(capsys, *EXPORT, "--json")
    assert "--context-parallel-size" not in plain["snippet"]
    assert plain["layout"]["context_parallel"] == 1


def test_auto_keeps_the_context_parallel_size(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "plan", *LLAMA, "--auto", "--world-size", "16", "--nodes", "2",
        "--target-batch", "16", "--context-parallel", "2",
    )  # fmt: skip
    assert data["setup"]["context_parallel"] == 2


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ((*EXPORT, "--context-parallel", "3"), "must be divisible by 2 x"),
        ((*TIME, "--context-parallel", "3"), "not a multiple of --tensor-parallel"),
        ((*PLAN, "--context-parallel", "0"), "--context-parallel"),
        (
            (
                "plan",
                *LLAMA,
                "--auto",
                "--world-size",
                "15",
                "--target-batch",
                "16",
                "--context-parallel",
                "2",
            ),
            "--context-parallel must divide --world-size",
        ),
    ],
)
def test_refusals_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], says: str
) -> None:
    assert says in fails(capsys, *argv)


def test_plan_says_the_sequence_does_not_split(capsys: pytest.CaptureFixture[str]) -> None:
    (problem,) = run_json(capsys, *PLAN, "--context-parallel", "3")["problems"]
    assert problem["rule"] == "context_split"
    assert problem["message"].startswith("The sequence length 32768 must be divisible by 2 x")
