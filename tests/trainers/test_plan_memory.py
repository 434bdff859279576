"""``gradacc plan``'s model states per GPU equal DeepSpeed's own estimators for the model
transformers builds from the same config.json.

For full fine-tuning with mixed precision and Adam, and no memory typed in, the plan's
``model_states_bytes`` is the GPU figure of
``estimate_zero2_model_states_mem_needs`` / ``estimate_zero3_model_states_mem_needs``
(bytes on each GPU) and its ``cpu_bytes_per_node`` their CPU figure (each node's; where
DeepSpeed's float arithmetic loses the last byte of the exact figure, as in
``test_memory``, the plan keeps the exact one). The parameter count and ZeRO-3's
largest layer come from the model itself: DeepSpeed's ``model_to_params`` on the
transformers model built from the bundled config.json (on the meta device), so the
app's count of the config is checked along the way.

ZeRO-3's largest layer is the module DeepSpeed gathers: a mixture of experts' fused
experts of one layer, a masked LM's tied decoder with its bias. Left out, as a finding
(transformers 5.24): flan-t5-base, whose LM head transformers 5 always ties while the
app counts it untied, as its config.json and the published checkpoint have it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs as zero3
from deepspeed.runtime.zero.stage3 import model_to_params
from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs as zero2

from tests.cli.helpers import run_json
from tests.trainers.hf_models import build, meta_model, parameter_counts, tiny_config, write_config

#: every bundled model transformers builds as the app counts it
MODELS = [
    "qwen2.5-0.5b", "qwen3-0.6b", "llama-3.1-8b", "mistral-7b", "gemma-2-2b",
    "gemma-3-1b-it", "phi-3-mini-4k", "pythia-1b", "falcon-7b-instruct", "opt-125m",
    "t5-base", "mixtral-8x7b", "qwen3-30b-a3b", "bert-base-uncased", "roberta-base",
]  # fmt: skip
LAYOUTS = [(1, 1), (1, 8), (2, 8), (3, 7)]  # (nodes, GPUs per node)
ZERO2 = [(2, "none"), (2, "optimizer")]  # (stage, --offload)
ZERO3 = [(3, "none"), (3, "optimizer"), (3, "all")]


def _plan(capsys: pytest.CaptureFixture[str], model: list[str], stage: int, offload: str,
          nodes: int, per_node: int, *extra: str) -> tuple[int, int]:  # fmt: skip
    """The plan's (model states per GPU, CPU bytes per node)."""
    data = run_json(
        capsys, "plan", *model, "--seq-len", "64", "--gpu-card", "a100-80gb",
        "--gpus", str(nodes * per_node), "--nodes", str(nodes), "--zero-stage", str(stage),
        "--offload", offload, "--target-batch", "1024", *extra,
    )  # fmt: skip
    assert data["other_memory_source"] == "estimated"
    states: int = data["model_states_bytes"]
    cpu: int = data["cpu_bytes_per_node"]
    return states, cpu


def _deepspeed(
    params: int, largest: int, stage: int, offload: str, nodes: int, per_node: int
) -> tuple[int, int, Fraction]:
    """DeepSpeed's (GPU bytes, CPU bytes per node) and the CPU figure in exact arithmetic
    (its expression with the float factors 1.5 and 1 / nodes as fractions)."""
    buffer = Fraction(3, 2)
    if stage == 2:
        cpu, gpu = zero2(params, per_node, nodes, cpu_offload=offload != "none")
        if offload == "none":
            exact = params * 4 * per_node * buffer
        else:
            exact = params * max(4 * nodes * per_node, 16) * buffer
        return int(gpu), int(cpu), exact
    cpu, gpu, _largest = zero3(
        params,
        largest,
        per_node,
        nodes,
        cpu_offload=offload != "none",
        cpu_offload_params=offload == "all",
    )
    per_param = {"none": None, "optimizer": 16, "all": 18}[offload]
    if per_param is None:
        exact = largest * 4 * per_node * buffer
    else:
        exact = params * Fraction(per_param, nodes) * buffer
    return int(gpu), int(cpu), exact


def _deepspeed_gpu_bytes(
    params: int, largest: int, stage: int, offload: str, nodes: int, per_node: int
) -> int:
    return _deepspeed(params, largest, stage, offload, nodes, per_node)[0]


def _agrees(ours: int, theirs: int, exact: Fraction) -> bool:
    """Equal, or DeepSpeed's float lost the last byte of the exactly computed figure."""
    return ours == theirs or (ours == int(exact) and theirs == ours - 1)


@pytest.mark.parametrize("name", MODELS)
def test_plan_model_states_equal_deepspeed(capsys: pytest.CaptureFixture[str], name: str) -> None:
    params, largest = parameter_counts(meta_model(name))
    for nodes, per_node in LAYOUTS:
        for stage, offload in ZERO2 + ZERO3:
            ours, cpu = _plan(capsys, ["--model", name], stage, offload, nodes, per_node)
            gpu, their_cpu, exact = _deepspeed(params, largest, stage, offload, nodes, per_node)
            assert ours == gpu, (name, stage, offload, nodes, per_node)
            assert _agrees(cpu, their_cpu, exact), (name, stage, offload, nodes, per_node)


def test_fp16_and_bf16_states_are_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """DeepSpeed's estimators do not ask which 16-bit format: neither does the plan."""
    params, largest = parameter_counts(meta_model("llama-3.1-8b"))
    for stage, offload in [(2, "none"), (3, "optimizer")]:
        fp16, _cpu = _plan(capsys, ["--model", "llama-3.1-8b"], stage, offload, 2, 8,
                           "--precision", "fp16")  # fmt: skip
        assert fp16 == _deepspeed_gpu_bytes(params, largest, stage, offload, 2, 8)


@pytest.mark.parametrize("kind", ["qwen2", "gpt2"])
def test_deepspeed_counts_a_real_model_as_on_the_meta_device(
    capsys: pytest.CaptureFixture[str], kind: str, tmp_path: Path
) -> None:
    """A materialised tiny model (tied embeddings), DeepSpeed's ``model_to_params``, data
    pointers and all, gives the counts the meta-device models are compared with, and the
    plan of its config.json equals DeepSpeed's estimators on them."""
    data = tiny_config(kind)
    counted = model_to_params(build(data, meta=False))
    assert counted == parameter_counts(build(data, meta=True))
    assert counted[1] == data.get("vocab_size", 0) * data.get("hidden_size", data.get("n_embd"))
    config = str(write_config(data, tmp_path / kind))
    for nodes, per_node in [(1, 2), (2, 4)]:
        for stage, offload in [(2, "none"), (3, "none"), (3, "all")]:
            ours, cpu = _plan(capsys, ["--model-config", config], stage, offload, nodes, per_node)
            gpu, their_cpu, exact = _deepspeed(*counted, stage, offload, nodes, per_node)
            assert (ours, _agrees(cpu, their_cpu, exact)) == (gpu, True)
