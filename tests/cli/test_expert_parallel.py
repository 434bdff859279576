"""``--expert-parallel`` on the command line: ``plan``, ``export`` and ``time`` read it,
the JSON says it, and what no framework runs is refused in one line."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.cli.helpers import fails, run_json

QWEN = ("--model", "qwen3-30b-a3b", "--seq-len", "4096", "--gpu-card", "h100-80gb")
PLAN = (
    "plan", *QWEN, "--gpus", "16", "--nodes", "2", "--target-batch", "256",
    "--micro-batch", "2", "--zero-stage", "1", "--recompute", "full",
)  # fmt: skip
TIME = (
    "time", *QWEN, "--gpus", "16", "--tokens", "1000000000", "--micro-batch", "2",
    "--target-batch", "256", "--zero-stage", "1", "--recompute", "full",
)  # fmt: skip
EXPORT = (
    "export", "--model", "qwen3-30b-a3b", "--micro-batch", "2", "--accumulation-steps", "4",
    "--gpus", "16", "--nodes", "2",
)  # fmt: skip


def test_plan_spreads_the_experts_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    one = run_json(capsys, *PLAN)
    eight = run_json(capsys, *PLAN, "--expert-parallel", "8")
    assert one["layout"]["expert_parallel"] == 1
    assert eight["layout"] == {
        "data_parallel": 16, "tensor_parallel": 1, "pipeline_stages": 1, "virtual_stages": 1,
        "expert_parallel": 8, "expert_tensor_parallel": 1, "context_parallel": 1,
        "world_size": 16,
    }  # fmt: skip
    # each GPU holds an eighth of the routed experts: fits where EP = 1 does not
    assert eight["model_states_bytes"] < one["model_states_bytes"]
    assert one["fits"] is False and eight["fits"] is True
    assert D(eight["parts"]["expert_parallel"]) > 0


def test_time_and_plan_give_the_same_step_for_the_same_layout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for ep in ("8", "16"):  # inside a node, then across the two
        time = run_json(capsys, *TIME, "--expert-parallel", ep)
        plan = run_json(capsys, *PLAN, "--expert-parallel", ep)
        assert time["speed_source"] == "modelled"
        assert D(time["step_seconds"]) == D(plan["step_seconds"])
        assert time["parts"] == plan["parts"]
        assert D(time["parts"]["expert_parallel"]) > 0
    plain = run_json(capsys, *TIME)
    assert D(plain["parts"]["expert_parallel"]) == 0


def test_auto_keeps_the_expert_parallel_size(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "plan", *QWEN, "--auto", "--world-size", "16", "--nodes", "2",
        "--target-batch", "256", "--expert-parallel", "8",
    )  # fmt: skip
    assert data["setup"]["expert_parallel"] == 8
    assert all(c["expert_parallel"] == 8 for c in data["ranking"])
    assert data["layout"]["expert_parallel"] == 8


def test_export_writes_megatrons_flag(capsys: pytest.CaptureFixture[str]) -> None:
    megatron = run_json(capsys, *EXPORT, "--format", "megatron", "--expert-parallel", "8")
    assert "--expert-model-parallel-size 8" in megatron["files"]["megatron_args.sh"]
    assert megatron["layout"] == {
        "data_parallel": 16, "tensor_parallel": 1, "pipeline_stages": 1,
        "expert_parallel": 8, "expert_tensor_parallel": 1, "context_parallel": 1,
        "world_size": 16,
    }  # fmt: skip
    assert any("--expert-model-parallel-size" in note for note in megatron["notes"])
    hf = run_json(capsys, *EXPORT, "--format", "hf", "--expert-parallel", "8")
    assert any("leave expert parallelism out" in note for note in hf["notes"])
    assert hf["layout"]["expert_parallel"] == 8
    plain = run_json(capsys, *EXPORT, "--format", "megatron")
    assert plain["notes"] == [] and plain["layout"]["expert_parallel"] == 1


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("plan", "--gpus", "8", "--target-batch", "64", "--gpu-memory-gb", "80",
          "--activation-gb", "1", "--other-memory-gb", "1", "--expert-parallel", "2"),
         "needs the model"),
        # 6 data-parallel GPUs, groups of 4
        (("plan", *QWEN, "--gpus", "6", "--target-batch", "60", "--expert-parallel", "4"),
         "--expert-parallel 4 must divide the 6 data-parallel GPUs (--gpus)"),
        ((*EXPORT, "--format", "megatron", "--expert-parallel", "32"),
         "must divide the 16 data-parallel GPUs"),
        (("export", "--model", "mistral-7b", "--micro-batch", "2", "--accumulation-steps",
          "4", "--gpus", "16", "--format", "megatron", "--expert-parallel", "2"),
         "this model has none"),
        # 16 GPUs in all (time --gpus counted them so before; --world-size now)
        (("time", *QWEN, "--world-size", "16", *TIME[9:], "--tensor-parallel", "4",
          "--expert-parallel", "8"),
         "must divide the 4 data-parallel GPUs (--world-size / (--tensor-parallel x "
         "--pipeline-stages))"),
        (("time", "--model", "llama-3.1-8b", "--seq-len", "4096", "--gpus", "8", "--tokens",
          "1000", "--gpu-card", "h100-80gb", "--expert-parallel", "2"), "this model has none"),
        (("time", *QWEN, "--gpus", "8", "--tokens", "1000", "--mfu", "0.4",
          "--expert-parallel", "2"), "--expert-parallel describes the layout"),
    ],
)  # fmt: skip
def test_refusals_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], says: str
) -> None:
    assert says in fails(capsys, *argv)


@pytest.mark.parametrize(
    ("argv", "rule", "says"),
    [
        # a dense model has no experts to spread
        (("--model", "llama-3.1-8b", "--seq-len", "4096", "--gpus", "8"),
         "experts_not_moe", "this model has none"),
        # 128 experts
        ((*QWEN, "--gpus", "6"), "experts_split", "must divide the model's 128 routed experts"),
    ],
)  # fmt: skip
def test_plan_says_the_descriptions_problem(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], rule: str, says: str
) -> None:
    """plan reports what the description asks for that the model cannot give (the
    window does too); the commands that write or time one setup refuse it."""
    flags = (
        *argv,
        "--target-batch",
        "60",
        "--expert-parallel",
        "3" if rule == "experts_split" else "2",
    )
    (problem,) = run_json(capsys, "plan", *flags)["problems"]
    assert problem["rule"] == rule and says in problem["message"]


def test_megatron_folds_expert_groups_into_tensor_parallel_gpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 4 data x 4 tensor GPUs: EP 16 x expert TP 1 tiles them (MoE parallel folding)
    args = ("plan", *QWEN, "--gpus", "4", "--tensor-parallel", "4", "--nodes", "2",
            "--target-batch", "256", "--micro-batch", "1", "--zero-stage", "1",
            "--framework", "megatron", "--expert-parallel", "16")  # fmt: skip
    folded = run_json(capsys, *args, "--expert-tensor-parallel", "1")
    assert folded["problems"] == [] and folded["refusals"] == []
    assert folded["layout"]["expert_parallel"] == 16
    assert folded["layout"]["expert_tensor_parallel"] == 1
    # without it, EP 16 x tp 4 = 64 GPUs do not tile the 16: refused in one line
    said = fails(capsys, *args)
    assert "must divide the 4 data-parallel GPUs (--gpus)" in said
    said = fails(capsys, *args, "--expert-tensor-parallel", "2")
    assert "--expert-parallel 16 x --expert-tensor-parallel 2 = 32 must divide the 16" in said
    export = ("export", "--model", "qwen3-30b-a3b", "--micro-batch", "1",
              "--accumulation-steps", "64", "--gpus", "4", "--tensor-parallel", "4",
              "--nodes", "2", "--format", "megatron", "--framework", "megatron",
              "--expert-parallel", "16", "--expert-tensor-parallel", "1")  # fmt: skip
    files = run_json(capsys, *export)["files"]["megatron_args.sh"]
    assert "--expert-tensor-parallel-size 1" in files


def test_memory_reads_it_with_a_model_and_refuses_it_with_a_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = fails(capsys, "memory", "--params", "1000000000", "--gpus", "8",
                 "--expert-tensor-parallel", "2")  # fmt: skip
    assert "--expert-tensor-parallel needs the model" in said
    args = ("--model", "qwen3-30b-a3b", "--gpus", "4", "--tensor-parallel", "4",
            "--framework", "megatron", "--zero-stage", "1", "--expert-parallel", "16",
            "--expert-tensor-parallel", "1")  # fmt: skip
    memory = run_json(capsys, "memory", *args)
    planned = run_json(capsys, "plan", *args, "--seq-len", "4096", "--target-batch", "64")
    assert memory["model_states_bytes"] == planned["model_states_bytes"]
