"""What no step may ever do, whatever the layout: more micro-steps never cost less
fixed time, a slower link never speeds a step, overlap never shows more than the
collective, the host's floor never makes a step faster, and the parts add up."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.communication import exposed
from gradacc_desktop.core.time.compute import Shape, token_cost
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.time.hardware import hardware
from gradacc_desktop.core.time.layout import ParallelLayout
from gradacc_desktop.core.time.steptime import StepModel
from gradacc_desktop.core.time.workload import Experts, Workload

TABLE = load_gpu_table()
CARDS = ("a100-80gb", "a100-pcie-80gb", "h100-80gb", "b200-180gb")

layouts = st.builds(
    ParallelLayout,
    data=st.sampled_from((1, 2, 4, 16)),
    tensor=st.sampled_from((1, 2, 8)),
    pipeline=st.sampled_from((1, 2, 4)),
)


def _workload(layout: ParallelLayout, zero: ZeroStage, framework: Framework) -> Workload:
    cost = token_cost(6_738_415_616, Shape(32, 32, 128), 2048, Recompute.NONE)
    return Workload(
        cost=cost,
        seq_len=2048,
        layout=layout,
        zero_stage=zero,
        hidden=4096,
        layers=32,
        vocab=32000,
        heads=32,
        framework=framework,
    )


def _model(
    layout: ParallelLayout, zero: ZeroStage, framework: Framework, card: str, nodes: int
) -> StepModel:
    per_node = max(1, layout.world // nodes)
    hw = hardware(TABLE.by_id(card), Precision.BF16, per_node, framework=framework)
    return StepModel(_workload(layout, zero, framework), hw)


setups = st.tuples(
    layouts,
    st.sampled_from(tuple(ZeroStage)),
    st.sampled_from(tuple(Framework)),
    st.sampled_from(CARDS),
    st.sampled_from((1, 2)),
)


@settings(max_examples=60, deadline=None)
@given(setups, st.integers(1, 8), st.integers(1, 16))
def test_one_more_micro_step_never_costs_less(setup, b, a) -> None:  # type: ignore[no-untyped-def]
    model = _model(*setup)
    now, more = model.time(b, a), model.time(b, a + 1)
    assert more.step_seconds > now.step_seconds
    # each micro-step pays at least the slowest stage's fixed costs again
    assert more.step_seconds - now.step_seconds == more.micro_step_seconds
    # the same samples in more, smaller micro-steps: the fixed costs are paid more often
    if b % 2 == 0:
        split = model.time(b // 2, 2 * a)
        assert split.micro_step_seconds * 2 >= now.micro_step_seconds


@settings(max_examples=60, deadline=None)
@given(setups, st.integers(1, 8), st.integers(1, 16))
def test_a_slower_link_or_network_never_speeds_a_step(setup, b, a) -> None:  # type: ignore[no-untyped-def]
    model = _model(*setup)
    for field in ("link_bandwidth", "network_bandwidth"):
        hw = model.hardware
        slower = dataclasses.replace(hw, **{field: getattr(hw, field) / 2})
        slow = StepModel(model.workload, slower)
        assert slow.time(b, a).step_seconds >= model.time(b, a).step_seconds


@settings(max_examples=60, deadline=None)
@given(
    st.fractions(min_value=0, max_value=100),
    st.fractions(min_value=0, max_value=100),
    st.one_of(st.none(), st.integers(1, 128)),
)
def test_overlap_never_shows_more_than_the_collective(
    communication: Fraction, compute: Fraction, pieces: int | None
) -> None:
    shown = exposed(communication, compute, pieces)
    assert 0 <= shown <= communication
    # more compute to hide behind never shows more
    assert exposed(communication, compute + 1, pieces) <= shown


@settings(max_examples=60, deadline=None)
@given(setups, st.integers(1, 8), st.integers(1, 16))
def test_the_host_floor_never_speeds_a_step_and_the_parts_add_up(setup, b, a) -> None:  # type: ignore[no-untyped-def]
    model = _model(*setup)
    step = model.time(b, a)
    assert step.parts.total == step.step_seconds
    kernels = model.hardware.kernels
    assert kernels is not None
    free = dataclasses.replace(kernels, layer_seconds=Fraction(0))
    unhosted = StepModel(model.workload, dataclasses.replace(model.hardware, kernels=free))
    assert unhosted.time(b, a).step_seconds <= step.step_seconds
    assert unhosted.time(b, a).parts.overhead == 0


@settings(max_examples=80, deadline=None)
@given(
    layouts,
    st.sampled_from((1, 2, 4)),
    st.sampled_from(tuple(Offload)),
    st.booleans(),
    st.sampled_from((None, 2)),
    st.sampled_from(CARDS),
    st.integers(1, 8),
    st.integers(1, 16),
    st.booleans(),
)
def test_every_stage_is_the_sum_of_its_parts(  # type: ignore[no-untyped-def]
    layout, context, offload, flash, experts, card, b, a, tp_overlap
) -> None:
    """Each stage's micro-step is timed from its summed lines; its parts, listed one by
    one, add up to the same exact seconds (with ring attention, experts' all-to-alls,
    eager attention's scores, ZeRO-Infinity's fetch from the host and the tensor-parallel
    traffic hidden in the products)."""
    layout = dataclasses.replace(layout, context=context)
    workload = dataclasses.replace(
        _workload(layout, ZeroStage.WEIGHTS, Framework.MEGATRON),
        kv_width=1024,
        offload=offload,
        flash_attention=flash,
        tp_overlap=tp_overlap,
        experts=None
        if experts is None
        else Experts(8, 2, 32, parallel=math.gcd(experts, layout.data), params=10**9),
    )
    hw = hardware(TABLE.by_id(card), Precision.BF16, 8, framework=Framework.MEGATRON)
    step = StepModel(workload, hw).time(b, a)
    assert step.parts.total == step.step_seconds
    assert step.micro_step_seconds == max(step.stage_seconds)
    assert step.slot is not None and step.slot.total == step.micro_step_seconds


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CARDS), st.sampled_from((20, 100, 400)), st.integers(1, 8))
def test_zero_offload_s_update_runs_at_the_node_s_memory_bandwidth(card, gbps, gpus) -> None:  # type: ignore[no-untyped-def]
    """ZeRO-Offload: the CPU optimizer's update reads and writes the shard's states at
    the node's CPU memory bandwidth, shared by its GPUs; the shard's gradients and
    weights cross the host link either way. A faster host never slows the step."""
    layout = ParallelLayout(data=gpus)
    workload = dataclasses.replace(
        _workload(layout, ZeroStage.OPTIMIZER, Framework.DEEPSPEED), offload=Offload.OPTIMIZER
    )
    hw = hardware(TABLE.by_id(card), Precision.BF16, gpus, framework=Framework.DEEPSPEED)
    assert hw.kernels is not None

    def update(host: int) -> Fraction:
        kernels = dataclasses.replace(hw.kernels, host_memory_gbps=host)  # type: ignore[arg-type]
        return (
            StepModel(workload, dataclasses.replace(hw, kernels=kernels))
            .time(1, 1)
            .optimizer_seconds
        )

    # the update's part is inversely proportional to the bandwidth, the link's fixed
    once, twice, four = update(gbps), update(2 * gbps), update(4 * gbps)
    assert once - twice == 2 * (twice - four) and once > twice > four > 0
