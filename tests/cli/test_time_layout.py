"""The time from the card and the layout on the command line: shapes, interleaving,
links, FP8, attention, goodput — and the same figure from ``gradacc time`` and
``gradacc plan``."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.cli.helpers import fails, run_json

PLAN = (
    "plan", "--target-batch", "512", "--gpu-card", "a100-80gb", "--seq-len", "4096",
    "--model", "llama-3.1-8b",
)  # fmt: skip


def test_time_and_plan_give_the_same_speed_for_the_same_layout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    time = run_json(
        capsys, "time", "--model", "llama-3.1-8b", "--seq-len", "4096", "--tokens",
        "1000000000", "--world-size", "16", "--gpu-card", "a100-80gb", "--micro-batch", "2",
        "--target-batch", "64", "--tensor-parallel", "2", "--zero-stage", "1",
    )  # fmt: skip
    plan = run_json(
        capsys, "plan", "--model", "llama-3.1-8b", "--seq-len", "4096", "--gpus", "8",
        "--nodes", "2", "--tensor-parallel", "2", "--target-batch", "64", "--micro-batch",
        "2", "--zero-stage", "1", "--gpu-card", "a100-80gb",
    )  # fmt: skip
    assert time["micro_batch"] == plan["micro_batch"] == 2
    assert time["accumulation_steps"] == plan["accumulation_steps"] == 4
    assert D(time["tokens_per_second"]) == D(plan["tokens_per_second"])
    assert D(time["step_seconds"]) == D(plan["step_seconds"])
    assert time["parts"] == plan["parts"]


def test_a_model_given_by_its_sizes_is_the_bundled_one(capsys: pytest.CaptureFixture[str]) -> None:
    sizes = (
        "--layers", "32", "--hidden", "4096", "--heads", "32", "--kv-heads", "8",
        "--ffn-hidden", "14336", "--vocab", "128256",
    )  # fmt: skip
    typed = run_json(capsys, *PLAN[:-2], *sizes, "--gpus", "8", "--micro-batch", "1")
    bundled = run_json(capsys, *PLAN, "--gpus", "8", "--micro-batch", "1")
    assert typed["params"] == bundled["params"] == 8_030_261_248
    assert typed["activation_bytes_per_sample"] == bundled["activation_bytes_per_sample"]
    assert typed["step_seconds"] == bundled["step_seconds"]
    assert typed["parts"] == bundled["parts"]


def test_sizes_defaults_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    # Llama's FFN rule: 8h/3 rounded up to 256; vocabulary 32 000; plain GPT-2 blocks
    small = ("plan", "--gpus", "1", "--target-batch", "1", "--gpu-memory-gb", "80",
             "--seq-len", "128")  # fmt: skip
    llama = run_json(capsys, *small, "--layers", "2", "--hidden", "1000", "--heads", "10")
    h, f, v = 1000, 2816, 32000
    per_layer = 4 * h * h + 3 * h * f + 2 * h
    assert llama["params"] == 2 * per_layer + 2 * v * h + h
    gpt2 = run_json(capsys, "plan", "--layers", "2", "--hidden", "64", "--heads", "4",
                    "--family", "gpt2", "--seq-len", "128", "--gpus", "1", "--target-batch", "4",
                    "--gpu-card", "a100-80gb")  # fmt: skip
    assert gpt2["params"] > 0 and gpt2["uncounted"] == []
    for argv, says in [
        (["--layers", "2", "--hidden", "64"], "needs --heads"),
        (["--layers", "2", "--hidden", "64", "--heads", "5"], "multiple of heads"),
        (["--params", "10", "--layers", "2"], "are alternatives"),
    ]:
        assert says in fails(capsys, *small, *argv)


def test_a_bare_parameter_count_names_what_it_cannot_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = run_json(
        capsys, "plan", "--params", "7000000000", "--seq-len", "2048", "--gpus", "4",
        "--tensor-parallel", "2", "--target-batch", "64", "--gpu-card", "a100-80gb",
        "--activation-gb", "1", "--other-memory-gb", "30",
    )  # fmt: skip
    assert plan["uncounted"] == [
        "attention", "kernel_shapes", "tensor_parallel_traffic", "layer_overlap",
    ]  # fmt: skip
    assert D(plan["parts"]["tensor_parallel"]) == 0
    time = run_json(
        capsys, "time", "--params", "7000000000", "--seq-len", "2048", "--tokens", "1000000",
        "--gpus", "8", "--gpu-card", "a100-80gb",
    )  # fmt: skip
    assert time["speed_source"] == "modelled" and "attention" in time["uncounted"]


def test_virtual_stages_shrink_the_bubble(capsys: pytest.CaptureFixture[str]) -> None:
    common = (
        "plan", "--gpu-card", "a100-80gb", "--seq-len", "4096", "--model", "llama-3-70b",
        "--gpus", "1", "--pipeline-stages", "4", "--tensor-parallel", "8", "--nodes", "4",
        "--target-batch", "16", "--activation-gb", "1", "--other-memory-gb", "30",
    )  # fmt: skip
    plain = run_json(capsys, *common)
    interleaved = run_json(capsys, *common, "--virtual-stages", "4")
    assert interleaved["layout"]["virtual_stages"] == 4
    # bubble (p - 1)/(v·m + p - 1) of the step: 3/19 plain, 3/67 with v = 4
    assert D(interleaved["bubble_fraction"]) < D(plain["bubble_fraction"]) / 3
    assert D(interleaved["step_seconds"]) < D(plain["step_seconds"])
    sends = D(interleaved["parts"]["pipeline"]) / D(plain["parts"]["pipeline"])
    assert abs(sends - 4) < D("0.0001")
    # 16 micro-batches are 4 groups of 4: every pair the schedule runs is marked
    for c in interleaved["candidates"]:
        assert c["schedule_ok"] is (c["accumulation_steps"] % 4 == 0)
    # virtual stages without pipeline stages: plan says the description's problem
    (problem,) = run_json(capsys, *PLAN, "--gpus", "8", "--virtual-stages", "2")["problems"]
    assert problem["rule"] == "virtual_stages"
    assert "give two or more pipeline stages" in problem["message"]
    export = ("export", "--format", "megatron", "--micro-batch", "1", "--accumulation-steps", "8")
    assert "--virtual-stages: Virtual stages interleave pipeline stages" in fails(
        capsys, *export, "--gpus", "8", "--virtual-stages", "2"
    )


def test_links_fp8_attention_and_goodput_follow_the_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    across = (*PLAN, "--gpus", "32", "--nodes", "4", "--zero-stage", "3", "--tokens",
              "1000000000")  # fmt: skip
    base = run_json(capsys, *across)
    slow = run_json(capsys, *across, "--network-gbps", "3.125")
    assert D(slow["step_seconds"]) > D(base["step_seconds"])
    assert D(slow["parts"]["data_parallel"]) > D(base["parts"]["data_parallel"])
    half = run_json(capsys, *across, "--goodput", "0.5")
    assert half["step_seconds"] == base["step_seconds"]
    doubled = D(half["run"]["tokens"]["hours"]) / D(base["run"]["tokens"]["hours"])
    assert abs(doubled - 2) < D("0.00001")
    eager = run_json(capsys, *PLAN, "--gpus", "8", "--attention", "eager", "--micro-batch", "1")
    fused = run_json(capsys, *PLAN, "--gpus", "8", "--micro-batch", "1")
    assert eager["activation_bytes_per_sample"] > fused["activation_bytes_per_sample"]
    assert D(eager["parts"]["attention"]) > D(fused["parts"]["attention"])
    h100 = (*PLAN[:4], "h100-80gb", *PLAN[5:], "--gpus", "8", "--micro-batch", "1")
    fp8 = run_json(capsys, *h100, "--fp8")
    bf16 = run_json(capsys, *h100)
    # FlashAttention 3 on Hopper: the fused kernels' memory, its own (faster) attention
    flash = run_json(capsys, *h100, "--attention", "flash")
    assert flash["activation_bytes_per_sample"] == bf16["activation_bytes_per_sample"]
    assert D(flash["parts"]["attention"]) < D(bf16["parts"]["attention"])
    assert D(fp8["step_seconds"]) < D(bf16["step_seconds"])
    assert fp8["model_states_bytes"] == bf16["model_states_bytes"]
    # the A100 has no FP8 peak: no time, and the problem says why
    a100 = run_json(capsys, *PLAN, "--gpus", "8", "--fp8", "--micro-batch", "1")
    assert a100["time_unavailable"] == "precision"
    assert [p["rule"] for p in a100["problems"]] == ["fp8_card"]
    fp32 = run_json(capsys, *PLAN, "--gpus", "8", "--fp8", "--precision", "fp32")
    assert "16-bit training" in fp32["problems"][0]["message"]


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--mfu", "0.4625"), ("--achieved-tflops", "147.25"), ("--mfu", "0.123456")],
)
def test_rates_take_the_decimals_papers_print(
    capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    argv = ["time", "--params", "1000000000", "--tokens", "1000", "--gpus", "1", flag, value]
    if flag == "--mfu":
        argv += ["--gpu-card", "a100-80gb"]
    data = run_json(capsys, *argv)
    key = "mfu" if flag == "--mfu" else "achieved_tflops"
    assert D(data[key]) == D(value)


def test_goodput_stretches_the_whole_run_of_gradacc_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    common = ("time", "--params", "1000000000", "--tokens", "1000000000", "--gpus", "8",
              "--achieved-tflops", "100", "--price-per-gpu-hour", "2")  # fmt: skip
    full = run_json(capsys, *common)
    ninety = run_json(capsys, *common, "--goodput", "0.9")
    assert ninety["tokens_per_second"] == full["tokens_per_second"]
    assert abs(D(ninety["hours"]) * D("0.9") - D(full["hours"])) < D("0.00001")
    assert ninety["goodput"] == "0.9"
    assert "--goodput" in fails(capsys, *common, "--goodput", "0")


def test_the_text_says_where_the_time_goes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "time", "--params", "7000000000", "--seq-len", "2048", "--tokens", "10000000",
        "--gpus", "8", "--gpu-card", "a100-80gb", "--goodput", "0.9",
    ]  # fmt: skip
    from gradacc_desktop.cli import main

    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Predicted from the card and the layout: micro-batch 1 x 1" in out
    assert "Where the step's time goes: matmul" in out
    assert "Not counted without the model's shape: attention, kernel_shapes" in out
    assert "90 % of it training" in out
