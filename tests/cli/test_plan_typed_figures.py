"""``gradacc plan``'s derived memory figures, typed back in, give the same plan, and its
activation per sample is ``gradacc activation``'s for the same model, length and options.

``test_plan_description`` covers Llama 3.1 8B with the default options; here the other
kinds of model and the options that change the figures: encoder-decoders and their
target length, fp32 and fp16, recomputation, tensor and pipeline parallelism over
several nodes, a config.json with LoRA, 8-bit Adam with offload, a plan that does not
fit (its alternatives) and a given micro-batch.
"""

from __future__ import annotations

import math
from decimal import Decimal as D
from pathlib import Path

import pytest

from tests.cli.helpers import run_json

ROOT = Path(__file__).resolve().parents[2]
GEMMA = str(ROOT / "tests" / "data" / "configs" / "google__gemma-2b.json")
T5 = str(ROOT / "resources" / "data" / "models" / "google-t5__t5-base.json")

PLANS = {
    "t5-target-seq": (
        "--model", "t5-base", "--seq-len", "512", "--target-seq", "128", "--gpu-card",
        "a100-40gb", "--gpus", "4", "--zero-stage", "2", "--target-batch", "128",
    ),
    "gpt2-fp32-zero1": (
        "--model", "gpt2", "--seq-len", "1024", "--precision", "fp32", "--gpu-card",
        "rtx-4090-24gb", "--gpus", "2", "--zero-stage", "1", "--target-batch", "100",
        "--rounding", "nearest",
    ),
    "qwen-tp-pp-nodes": (
        "--model", "qwen2.5-0.5b", "--seq-len", "2048", "--gpu-card", "a100-80gb", "--gpus",
        "4", "--tensor-parallel", "2", "--pipeline-stages", "2", "--nodes", "2",
        "--target-batch", "64",
    ),
    "mistral-fp16-recompute-offload-all": (
        "--model", "mistral-7b", "--seq-len", "4096", "--recompute", "full", "--precision",
        "fp16", "--gpu-card", "a100-80gb", "--gpus", "16", "--nodes", "2", "--zero-stage",
        "3", "--offload", "all", "--micro-batch", "3", "--target-batch", "96",
    ),
    "config-lora": (
        "--model-config", GEMMA, "--seq-len", "2048", "--lora-rank", "8", "--lora-targets",
        "attention", "--gpu-card", "a100-40gb", "--gpus", "2", "--zero-stage", "2",
        "--target-batch", "32",
    ),
    "no-fit": (
        "--model", "mistral-7b", "--seq-len", "4096", "--gpu-card", "a100-80gb", "--gpus",
        "1", "--target-batch", "8",
    ),
    "adam8bit-offload": (
        "--model", "opt-125m", "--seq-len", "2048", "--optimizer", "adam_8bit", "--gpu-card",
        "h100-80gb", "--gpus", "3", "--zero-stage", "1", "--offload", "optimizer",
        "--target-batch", "90", "--dataset-samples", "1000",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(PLANS))
def test_typing_the_derived_figures_gives_the_same_plan(
    capsys: pytest.CaptureFixture[str], case: str
) -> None:
    argv = ("plan", *PLANS[case])
    derived = run_json(capsys, *argv)
    assert derived["activation_source"] == derived["other_memory_source"] == "estimated"
    activation = D(derived["activation_bytes_per_sample"]).scaleb(-9)
    other = (D(derived["model_states_bytes"]) + 10**9).scaleb(-9)
    typed = run_json(
        capsys, *argv, "--activation-gb", str(activation), "--other-memory-gb", str(other)
    )
    assert typed["activation_source"] == typed["other_memory_source"] == "given"
    for key in ("activation_source", "other_memory_source"):
        del derived[key], typed[key]
    # when nothing fits, the changes that would re-derive a typed figure (ZeRO, offload,
    # LoRA, more GPUs, recomputation) are not offered: the rest are the same
    offered = derived.pop("alternatives", [])
    assert all(a in offered for a in typed.pop("alternatives", []))
    assert typed == derived
    # the verdict is the figures' own: other memory + b x A / tp, or nothing fits
    if derived["micro_batch"] is None:
        assert derived["fits"] is False and derived["max_micro_batch"] == 0
        assert (
            derived["model_states_bytes"] + 10**9 + derived["activation_bytes_per_sample"]
            > (derived["usable_bytes"])
        )
        return
    # one sample on the GPU that holds the most: A / tp without pipeline stages (the first
    # and the last stages differ: docs/MEMORY.md)
    share = derived["activation_bytes_per_gpu_per_sample"]
    tp = derived.get("layout", {}).get("tensor_parallel", 1)
    if derived.get("layout", {}).get("pipeline_stages", 1) == 1:
        assert share == math.ceil(D(derived["activation_bytes_per_sample"]) / tp)
    else:
        assert share < D(derived["activation_bytes_per_sample"]) / tp
    expected = derived["model_states_bytes"] + 10**9 + derived["micro_batch"] * share
    assert abs(derived["per_gpu_bytes"] - expected) <= derived["micro_batch"]
    # DeepSpeed's figure: the tensors (model states + activations) and the overhead
    assert derived["per_gpu_allocated_bytes"] == derived["per_gpu_bytes"] - 10**9
    assert derived["fits"] is (expected <= derived["usable_bytes"])


ACTIVATIONS = {
    # gradacc activation takes --target-seq with --model-config (the bundled file)
    "t5-target-seq": (
        ("--model", "t5-base", "--seq-len", "512", "--target-seq", "128"),
        ("--model-config", T5, "--seq-len", "512", "--target-seq", "128"),
    ),
    "gpt2-fp32": (
        ("--model", "gpt2", "--seq-len", "1024", "--precision", "fp32"),
        ("--model", "gpt2", "--seq-len", "1024", "--precision", "fp32"),
    ),
    "mistral-fp16-recompute": (
        ("--model", "mistral-7b", "--seq-len", "4096", "--recompute", "full", "--precision",
         "fp16"),
        ("--model", "mistral-7b", "--seq-len", "4096", "--recompute", "full", "--precision",
         "fp16"),
    ),
    "config-lora": (
        ("--model-config", GEMMA, "--seq-len", "2048", "--lora-rank", "8"),
        ("--model-config", GEMMA, "--seq-len", "2048"),
    ),
    # the whole model's sample: the plan divides by the tensor-parallel size itself
    "moe-tensor-parallel": (
        ("--model", "qwen3-30b-a3b", "--seq-len", "8192", "--tensor-parallel", "2"),
        ("--model", "qwen3-30b-a3b", "--seq-len", "8192"),
    ),
    "bert-recompute": (
        ("--model", "bert-base-uncased", "--seq-len", "512", "--recompute", "full"),
        ("--model", "bert-base-uncased", "--seq-len", "512", "--recompute", "full"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(ACTIVATIONS))
def test_the_activation_per_sample_is_gradacc_activations(
    capsys: pytest.CaptureFixture[str], case: str
) -> None:
    plan_flags, activation_flags = ACTIVATIONS[case]
    plan = run_json(
        capsys, "plan", *plan_flags, "--gpu-card", "a100-80gb", "--gpus", "2",
        "--target-batch", "8",
    )  # fmt: skip
    activation = run_json(capsys, "activation", *activation_flags)
    assert plan["activation_source"] == "estimated"
    assert plan["activation_bytes_per_sample"] == activation["peak_bytes_per_sample"]
