"""Model states as Megatron and FSDP2 keep them, by example: where each byte sits, and
DeepSpeed's figures kept exactly for DeepSpeed and for every offload."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.framework_states import framework_states
from gradacc_desktop.core.memory.model_states import StatePart, model_states
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage

P = 7_000_000_000  # one GPU's shard of the parameters
L = 200_000_000  # the largest layer's


def _parts(states: object) -> dict[StatePart, Fraction]:
    found: dict[StatePart, Fraction] = {}
    for c in states.components:  # type: ignore[attr-defined]
        if c.where == "gpu":
            found[c.part] = found.get(c.part, Fraction(0)) + c.bytes
    return found


def test_megatron_keeps_an_fp32_gradient_buffer_and_shards_only_the_optimizer() -> None:
    states = framework_states(Framework.MEGATRON, P, 8, ZeroStage.OPTIMIZER)
    parts = _parts(states)
    assert parts[StatePart.WEIGHTS] == 2 * P  # bf16
    assert parts[StatePart.FP32_GRADIENTS] == 4 * P  # whole, not sharded
    assert parts[StatePart.MASTER_WEIGHTS] == Fraction(4 * P, 8)
    assert parts[StatePart.OPTIMIZER_STATES] == Fraction(8 * P, 8)
    assert states.gpu_bytes == 2 * P + 4 * P + 12 * P // 8
    # more than DeepSpeed's ZeRO-1 over 8 GPUs (16-bit gradients + fp32 ones sharded)
    assert states.gpu_bytes > model_states(P, 8, ZeroStage.OPTIMIZER).gpu_bytes
    # without the distributed optimizer every state stays whole: 18 bytes a parameter
    assert framework_states(Framework.MEGATRON, P, 8, ZeroStage.NONE).gpu_bytes == 18 * P


def test_megatron_in_fp16_keeps_16_bit_gradients() -> None:
    parts = _parts(framework_states(Framework.MEGATRON, P, 4, 1, precision=Precision.FP16))
    assert parts[StatePart.GRADIENTS] == 2 * P and StatePart.FP32_GRADIENTS not in parts


def test_fsdp2_shards_every_state_in_fp32_and_gathers_one_layer() -> None:
    full = framework_states(Framework.FSDP, P, 8, ZeroStage.WEIGHTS, largest_layer=L)
    assert full.gpu_bytes == 16 * P // 8 + 4 * L
    # no resharding after the forward: the 16-bit weights stay gathered, the 16-bit
    # gradients accumulate whole until the step
    kept = framework_states(Framework.FSDP, P, 8, ZeroStage.GRADIENTS, largest_layer=L)
    assert kept.gpu_bytes == full.gpu_bytes + 2 * P + 2 * P


@pytest.mark.parametrize("framework", list(Framework))
def test_offload_keeps_deepspeeds_figures(framework: Framework) -> None:
    ours = framework_states(framework, P, 8, ZeroStage.WEIGHTS, Offload.OPTIMIZER, largest_layer=L)
    theirs = model_states(P, 8, ZeroStage.WEIGHTS, Offload.OPTIMIZER, largest_layer=L)
    assert ours == theirs


@given(
    st.integers(1, 10**11),
    st.sampled_from((1, 2, 8, 64)),
    st.sampled_from(tuple(ZeroStage)),
    st.sampled_from(tuple(Precision)),
)
def test_deepspeed_is_deepspeeds_estimator_to_the_byte(
    parameters: int, gpus: int, stage: ZeroStage, precision: Precision
) -> None:
    ours = framework_states(Framework.DEEPSPEED, parameters, gpus, stage, precision=precision)
    assert ours == model_states(parameters, gpus, stage, precision=precision)


@given(st.integers(10**6, 10**11), st.sampled_from((2, 4, 8, 64)))
def test_more_ranks_never_hold_more(parameters: int, gpus: int) -> None:
    for framework in (Framework.MEGATRON, Framework.FSDP):
        for stage in (ZeroStage.OPTIMIZER, ZeroStage.GRADIENTS, ZeroStage.WEIGHTS):
            fewer = framework_states(framework, parameters, gpus // 2 or 1, stage)
            more = framework_states(framework, parameters, gpus, stage)
            assert more.gpu_bytes <= fewer.gpu_bytes
