"""One name per idea across commands: each old spelling still works, gives what the new
name gives and says the new name in one line on stderr; ``--gpus`` is the data-parallel
GPUs everywhere and ``--world-size`` every GPU; ``--lora-rank`` means LoRA everywhere;
``time`` and ``plan --tokens`` agree to the digit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gradacc_desktop.cli import main
from tests.cli.helpers import fails, run_json

SIZES = ("--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "1000")
TIME = (
    "time", "--model", "llama-3.1-8b", "--seq-len", "4096", "--tokens", "1000000000",
    "--gpu-card", "a100-80gb", "--micro-batch", "2", "--zero-stage", "1",
)  # fmt: skip

#: (command before the flag, old spelling, new spelling, the flag's value, more flags)
RENAMED = [
    (("activation",), "--preset", "--model", "gpt2", ("--seq-len", "512")),
    (("activation", "--model", "gpt2"), "--seq", "--seq-len", "512", ()),
    (("activation", "--model", "gpt2", "--seq-len", "512"), "--dtype", "--precision", "fp32", ()),
    (("activation", "--model", "gpt2", "--seq-len", "512"), "--tp", "--tensor-parallel", "2", ()),
    (
        ("activation", *SIZES, "--family", "llama", "--seq-len", "128"),
        "--intermediate", "--ffn-hidden", "256", (),
    ),
    (("activation", "--model", "gpt2", "--seq-len", "512", "--tensor-parallel", "2"), "--sp",
     "--sequence-parallel", None, ()),
    ((*TIME, "--gpus", "8"), "--global-batch", "--target-batch", "64", ()),
]  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[str, str]:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    return out, err


@pytest.mark.parametrize(
    ("before", "old", "new", "value", "after"), RENAMED, ids=[r[1] for r in RENAMED]
)
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_an_old_spelling_works_and_says_the_new_name_once(
    capsys: pytest.CaptureFixture[str],
    before: tuple[str, ...],
    old: str,
    new: str,
    value: str | None,
    after: tuple[str, ...],
    as_json: bool,
) -> None:
    given = [] if value is None else [value]
    tail = [*after, "--json"] if as_json else list(after)
    new_out, new_err = _run(capsys, [*before, new, *given, *tail])
    old_out, old_err = _run(capsys, [*before, old, *given, *tail])
    assert old_out == new_out
    assert new_err == ""
    assert old_err == f"gradacc: {old} is now {new}\n"
    # given twice, said once
    twice_out, twice_err = _run(capsys, [*before, old, *given, old, *given, *tail])
    assert twice_out == new_out and twice_err == old_err


def test_old_spellings_are_left_out_of_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command, olds in (
        ("activation", ("--preset", "--seq ", "--dtype", "--tp ", "--sp ", "--intermediate")),
        ("time", ("--global-batch",)),
    ):
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        for old in olds:
            assert old not in text, (command, old)


def test_two_old_spellings_say_two_lines(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _run(capsys, ["activation", "--preset", "gpt2", "--seq", "512", "--json"])
    assert err == "gradacc: --preset is now --model\ngradacc: --seq is now --seq-len\n"
    assert json.loads(out) == run_json(capsys, "activation", "--model", "gpt2", "--seq-len", "512")


def test_an_old_spelling_keeps_its_mutual_exclusions(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, "activation", "--model-config", "c.json", "--preset", "gpt2")
    assert "--preset: not allowed with argument --model-config" in err


def test_activation_says_what_it_assumes_for_images(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["activation", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "images per sample (default 1)" in text and "default 0" not in text


def test_precision_fp8_is_bf16_with_fp8_products(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["time", "--model", "llama-3.1-8b", "--tokens", "1000", "--gpus", "8",
            "--achieved-tflops", "100"]  # fmt: skip
    card = ["time", "--params", "1000000000", "--tokens", "1000", "--gpus", "1", "--gpu-card",
            "h100-80gb", "--mfu", "0.4"]  # fmt: skip
    new_out, _ = _run(capsys, [*card, "--fp8", "--json"])
    old_out, old_err = _run(capsys, [*card, "--precision", "fp8", "--json"])
    assert old_out == new_out and json.loads(old_out)["precision"] == "fp8"
    assert old_err == "gradacc: --precision fp8 is now --precision bf16 --fp8\n"
    assert run_json(capsys, *argv)["precision"] is None  # no card: no peak named


# --------------------------------------------------------------------------- --gpus


def _json_err(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict[str, Any], str]:
    out, err = _run(capsys, [*argv, "--json"])
    return json.loads(out), err


def test_time_gpus_is_data_parallel_and_says_so_with_model_parallel_sizes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    split = ("--tensor-parallel", "2", "--target-batch", "64")
    new, err = _json_err(capsys, *TIME, "--gpus", "16", *split)
    assert (new["gpus"], new["world_size"]) == (16, 32)
    assert new["layout"]["data_parallel"] == 16
    assert err.count("\n") == 1 and err.startswith("gradacc: time --gpus 16 is the data-parallel")
    assert "--world-size 16 gives that" in err
    # the old reading, every GPU, is --world-size: what time --gpus 16 gave before
    old, err = _json_err(capsys, *TIME, "--world-size", "16", *split)
    assert err == "" and (old["gpus"], old["world_size"]) == (8, 16)
    plan = run_json(
        capsys, "plan", *TIME[1:5], "--gpu-card", "a100-80gb", "--gpus", "8", "--nodes", "2",
        "--micro-batch", "2", "--zero-stage", "1", *split,
    )  # fmt: skip
    assert old["step_seconds"] == plan["step_seconds"] and old["parts"] == plan["parts"]


def test_time_gpus_without_model_parallel_sizes_is_every_gpu_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    by_gpus, err = _json_err(capsys, *TIME, "--gpus", "8")
    by_world, err2 = _json_err(capsys, *TIME, "--world-size", "8")
    assert err == err2 == "" and by_gpus == by_world
    rate = ("time", "--params", "1000000000", "--tokens", "1000000", "--achieved-tflops", "100")
    assert run_json(capsys, *rate, "--gpus", "64") == run_json(capsys, *rate, "--world-size", "64")


@pytest.mark.parametrize("command", ["time", "memory", "export"])
def test_gpus_and_world_size_are_alternatives(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    argv = {
        "time": [*TIME],
        "memory": ["memory", "--model", "gpt2"],
        "export": ["export", "--format", "deepspeed", "--micro-batch", "1",
                   "--accumulation-steps", "1"],
    }[command]  # fmt: skip
    assert "are alternatives" in fails(capsys, *argv, "--gpus", "8", "--world-size", "8")
    assert "--world-size 6 is not a multiple" in fails(
        capsys, *argv, "--world-size", "6", "--tensor-parallel", "4"
    )


def test_export_and_memory_take_the_world_size(capsys: pytest.CaptureFixture[str]) -> None:
    export = ["export", "--format", "megatron", "--micro-batch", "1", "--accumulation-steps", "4"]
    by_gpus = run_json(capsys, *export, "--gpus", "4", "--tensor-parallel", "2")
    by_world = run_json(capsys, *export, "--world-size", "8", "--tensor-parallel", "2")
    assert by_gpus == by_world and by_world["layout"]["world_size"] == 8
    memory = ["memory", "--model", "llama-3.1-8b", "--zero-stage", "3"]
    by_gpus = run_json(capsys, *memory, "--gpus", "4", "--pipeline-stages", "2")
    by_world = run_json(capsys, *memory, "--world-size", "8", "--pipeline-stages", "2")
    assert by_gpus == by_world and by_world["gpus"] == 4 and by_world["world_size"] == 8


# --------------------------------------------------------------------------- LoRA


def test_lora_rank_means_lora_in_memory_as_in_plan(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the rank was ignored without --recipe lora (160.6 GB)."""
    model = ("--model", "llama-3.1-8b", "--gpus", "1")
    rank = run_json(capsys, "memory", *model, "--lora-rank", "16")
    recipe = run_json(capsys, "memory", *model, "--recipe", "lora")
    full = run_json(capsys, "memory", *model)
    plan = run_json(
        capsys, "plan", *model, "--lora-rank", "16", "--seq-len", "2048", "--target-batch", "8",
        "--gpu-card", "h100-80gb",
    )  # fmt: skip
    assert rank["gpu_bytes"] == recipe["gpu_bytes"] == plan["model_states_bytes"]
    assert rank["gpu_bytes"] < full["gpu_bytes"] // 9 and rank["recipe"] == "lora"
    assert full["gpu_bytes"] == 20 * 8_030_261_248  # full fine-tuning, as before
    qlora = run_json(capsys, "memory", *model, "--lora-rank", "16", "--base-bits", "4")
    assert qlora["base_bits"] == 4 and qlora["gpu_bytes"] < rank["gpu_bytes"]
    # the method's flags go with the rank, as in plan
    assert "goes with --lora-rank" in fails(capsys, "memory", *model, "--base-bits", "4")


def test_lora_rank_means_lora_in_time(capsys: pytest.CaptureFixture[str]) -> None:
    rate = ("time", "--model", "llama-3.1-8b", "--tokens", "1000", "--gpus", "1",
            "--achieved-tflops", "100")  # fmt: skip
    full = run_json(capsys, *rate)
    lora = run_json(capsys, *rate, "--lora-rank", "16")
    # the frozen base computes no weight gradients: 4N + 6T, as the plan's step counts
    assert lora["flops_per_token"] < full["flops_per_token"]
    predicted = run_json(capsys, *TIME, "--gpus", "8", "--lora-rank", "16")
    plan = run_json(
        capsys, "plan", *TIME[1:5], "--gpu-card", "a100-80gb", "--gpus", "8",
        "--micro-batch", "2", "--zero-stage", "1", "--target-batch", "16", "--lora-rank", "16",
    )  # fmt: skip
    assert predicted["step_seconds"] == plan["step_seconds"]
    assert predicted["per_gpu_bytes"] == plan["per_gpu_bytes"]


# --------------------------------------------------------------------------- run time


@pytest.mark.parametrize("tokens", ["3000000", "1", "999999937", "123456789012"])
def test_time_and_plan_tokens_agree_to_the_digit(
    capsys: pytest.CaptureFixture[str], tokens: str
) -> None:
    """The issue's case: 95.8 s against 133.9 s (continuous tokens against whole steps,
    and two batches). One run time now: whole optimizer steps."""
    common = (
        "--model", "llama-3.1-8b", "--seq-len", "4096", "--gpu-card", "h100-80gb",
        "--gpus", "8", "--micro-batch", "1", "--target-batch", "32", "--tokens", tokens,
        "--goodput", "0.9", "--price-per-gpu-hour", "3.1", "--nodes", "1",
    )  # fmt: skip
    time = run_json(capsys, "time", *common)
    plan = run_json(capsys, "plan", *common)
    run = plan["run"]["tokens"]
    tokens_per_step = plan["tokens_per_step"]
    assert time["steps"] == run["steps"] == -(-int(tokens) // tokens_per_step)
    for key in ("seconds", "hours", "days", "cost"):
        assert time[key] == run[key], key
    assert time["step_seconds"] == plan["step_seconds"]
    assert time["goodput"] == "0.9"


def test_a_bare_count_keeps_deepspeeds_arithmetic_and_refuses_a_layout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    count = ("memory", "--params", "6738415616", "--gpus", "8", "--zero-stage", "2")
    data = run_json(capsys, *count)
    assert data["gpu_bytes"] == data["model_states_bytes"] == 28_638_266_368
    assert data["framework"] == "deepspeed" and data["per_gpu_bytes"] is None
    err = fails(capsys, *count, "--tensor-parallel", "2")
    assert "--tensor-parallel needs the model" in err
    rate = ("time", "--params", "1000", "--tokens", "10", "--gpus", "1", "--achieved-tflops", "1")
    assert "--offload describes the layout" in fails(capsys, *rate, "--offload", "optimizer")
    assert "--epochs is read by the speed --gpu-card predicts" in fails(
        capsys, *rate, "--epochs", "2"
    )
