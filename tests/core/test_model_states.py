"""Model-state memory: DeepSpeed's published figure, the layout of each stage, and the
bounds a sharded share must respect (the exact grid against DeepSpeed's own
functions runs in the trainer tier)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.memory.model_states import StatePart, model_states
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage

LLAMA2_7B = 6_738_415_616


def test_llama2_7b_zero2_on_8_gpus_is_deepspeeds_28_64_gb() -> None:
    # DeepSpeed's estimate_zero2_model_states_mem_needs: 2P + 18P/N, 1.5 * 4P * m on CPU
    result = model_states(LLAMA2_7B, 8, ZeroStage(2))
    assert result.gpu_bytes == 2 * LLAMA2_7B + 18 * LLAMA2_7B // 8 == 28_638_266_368
    assert result.cpu_bytes == 6 * LLAMA2_7B * 8
    assert result.from_deepspeed


def test_zero0_and_zero1_count_fp32_gradients() -> None:
    p = 1_000_000
    assert model_states(p, 8, ZeroStage(0)).gpu_bytes == 20 * p
    assert model_states(p, 8, ZeroStage(1)).gpu_bytes == 4 * p + 16 * p // 8


def test_zero3_needs_the_largest_layer() -> None:
    p, layer = 7_000_000_000, 131_072_000
    result = model_states(p, 8, ZeroStage(3), nodes=1, largest_layer=layer)
    assert result.gpu_bytes == 4 * layer + 18 * p // 8
    offloaded = model_states(p, 16, ZeroStage(3), Offload.ALL, nodes=2, largest_layer=layer)
    assert offloaded.gpu_bytes == 4 * layer
    assert offloaded.cpu_bytes == 18 * p * 3 // 2 // 2


def test_fp32_layout() -> None:
    p = 1000
    assert model_states(p, 1, ZeroStage(0), precision=Precision.FP32).gpu_bytes == 16 * p
    assert model_states(p, 4, ZeroStage(2), precision=Precision.FP32).gpu_bytes == 4 * p + 3 * p


@pytest.mark.parametrize(
    ("stage", "offload"),
    [(0, Offload.OPTIMIZER), (1, Offload.ALL), (2, Offload.ALL)],
)
def test_refuses_impossible_offload(stage: int, offload: Offload) -> None:
    with pytest.raises(ValueError):
        model_states(10, 2, ZeroStage(stage), offload)


def test_refuses_uneven_nodes() -> None:
    with pytest.raises(ValueError):
        model_states(10, 6, ZeroStage(2), nodes=4)


@given(
    st.integers(1, 10**13),
    st.integers(1, 4096),
    st.sampled_from(list(ZeroStage)),
    st.sampled_from(list(Precision)),
)
def test_breakdown_adds_up(p: int, gpus: int, stage: ZeroStage, precision: Precision) -> None:
    result = model_states(p, gpus, stage, precision=precision, largest_layer=p // 10)
    gpu = sum((c.bytes for c in result.components if c.where == "gpu"), Fraction(0))
    cpu = sum((c.bytes for c in result.components if c.where == "cpu"), Fraction(0))
    # DeepSpeed rounds down once, so the parts add up to within one byte
    assert 0 <= gpu - result.gpu_bytes < 1
    assert 0 <= cpu - result.cpu_bytes < 1
    # more GPUs never need more memory per GPU
    if gpus > 1:
        fewer = model_states(p, gpus - 1, stage, precision=precision, largest_layer=p // 10)
        assert result.gpu_bytes <= fewer.gpu_bytes
    parts = {c.part for c in result.components}
    expected = StatePart.LARGEST_LAYER if stage is ZeroStage.WEIGHTS else StatePart.WEIGHTS
    assert expected in parts


# --------------------------------------------------------------------------- expert parallelism

#: bytes per parameter a GPU holds whole at each stage (16-bit weights and gradients,
#: the fp32 optimizer side at stage 0)
_WHOLE = {ZeroStage(0): 20, ZeroStage(1): 4, ZeroStage(2): 2, ZeroStage(3): 0}


@given(
    dense=st.integers(1, 10**9),
    per_rank=st.integers(1, 10**8),
    ep=st.sampled_from([1, 2, 4, 8]),
    replicas=st.sampled_from([1, 2, 3]),
    stage=st.sampled_from(list(ZeroStage)),
)
def test_expert_parallelism_divides_only_the_experts_a_gpu_holds_whole(
    dense: int, per_rank: int, ep: int, replicas: int, stage: ZeroStage
) -> None:
    experts = per_rank * ep
    p, gpus = dense + experts, ep * replicas
    plain = model_states(p, gpus, stage, largest_layer=1000)
    spread = model_states(p, gpus, stage, largest_layer=1000, experts=experts, expert_parallel=ep)
    # ZeRO's partitions stay P/N (dense over N, experts over N/EP): only what a GPU
    # holds whole loses the experts other GPUs hold
    assert plain.gpu_bytes - spread.gpu_bytes == _WHOLE[stage] * (experts - per_rank)
    assert spread.from_deepspeed is (plain.from_deepspeed and ep == 1)


def test_expert_parallel_one_is_deepspeeds_figure() -> None:
    p = LLAMA2_7B
    assert model_states(p, 8, ZeroStage(2), experts=p // 2) == model_states(
        p, 8, ZeroStage(2), experts=p // 2, expert_parallel=1
    )
    assert model_states(p, 8, ZeroStage(2), experts=p // 2).gpu_bytes == 2 * p + 18 * p // 8


def test_frozen_experts_keep_the_frozen_rate() -> None:
    # adapters on a 4-bit base: a GPU holds half a byte per frozen expert it holds
    p, t, experts = 1_000_000, 10_000, 800_000
    frozen = Fraction(p - t, 2)
    one = model_states(p, 8, ZeroStage(1), trainable=t, frozen_weight_bytes=frozen)
    four = model_states(
        p, 8, ZeroStage(1), trainable=t, frozen_weight_bytes=frozen, experts=experts,
        expert_parallel=4,
    )  # fmt: skip
    assert one.gpu_bytes - four.gpu_bytes == experts * 3 // 4 // 2


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"expert_parallel": 0}, "expert_parallel"),
        ({"expert_parallel": Fraction(-1, 2)}, "expert_parallel"),
        ({"experts": -1}, "experts"),
        ({"experts": 10**7}, "experts"),  # more than the parameters
    ],
)
def test_expert_arguments_are_checked(kwargs: dict[str, int], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        model_states(1_000_000, 8, ZeroStage(2), **kwargs)  # type: ignore[arg-type]
