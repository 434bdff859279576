"""Time per optimizer step: roofline, communication, pipeline bubble, run totals."""

from __future__ import annotations

import dataclasses
from decimal import Decimal as D
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.compute import Shape, token_cost
from gradacc_desktop.core.time.gpus import custom_card, load_gpu_table
from gradacc_desktop.core.time.hardware import Hardware, NoSpeedError, hardware
from gradacc_desktop.core.time.layout import ParallelLayout
from gradacc_desktop.core.time.step_results import run_totals
from gradacc_desktop.core.time.steptime import StepModel, StepTime
from gradacc_desktop.core.time.workload import Workload

TABLE = load_gpu_table()
#: the roofline of a typed efficiency (60 % of the peak)
A100 = hardware(TABLE.by_id("a100-80gb"), Precision.BF16, 8, D("0.6"))
LLAMA_7B = token_cost(6_738_415_616, Shape(32, 32, 128), 4096)


def step_time(
    workload: Workload, hw: Hardware, micro_batch: int, accumulation_steps: int
) -> StepTime:
    """One optimizer step of ``workload`` on ``hw``."""
    return StepModel(workload, hw).time(micro_batch, accumulation_steps)


def workload(**kwargs: object) -> Workload:
    base: dict[str, object] = {"cost": LLAMA_7B, "seq_len": 4096, "hidden": 4096, "layers": 32}
    base.update(kwargs)
    return Workload(**base)  # type: ignore[arg-type]


def test_card_speeds_come_from_the_catalogue() -> None:
    assert A100.peak_flops == 312 * 10**12
    assert A100.memory_bandwidth == 2039 * 10**9
    assert A100.link_bandwidth == 300 * 10**9
    with pytest.raises(NoSpeedError):
        hardware(TABLE.by_id("v100-32gb"), Precision.BF16, 8)  # no bf16 on Volta
    assert hardware(TABLE.by_id("v100-32gb"), Precision.FP16, 8).peak_flops == 125 * 10**12
    with pytest.raises(NoSpeedError):
        hardware(custom_card(D(24)), Precision.BF16, 1)
    edited = hardware(TABLE.by_id("a100-80gb"), Precision.BF16, 8, efficiency=D("0.4"))
    assert edited.efficiency == Fraction(4, 10) and edited.typed
    modelled = hardware(TABLE.by_id("a100-80gb"), Precision.BF16, 8)
    assert not modelled.typed and modelled.kernels is not None
    links = hardware(
        TABLE.by_id("a100-80gb"),
        Precision.BF16,
        8,
        link_gbps=D("150"),
        network_gbps=D("6.25"),
    )
    assert (
        links.link_bandwidth == 150 * 10**9
        and links.network_bandwidth == Fraction(625, 100) * 10**9
    )


def test_one_gpu_compute_bound_step() -> None:
    step = step_time(workload(), replace_nodes(A100, 1), micro_batch=2, accumulation_steps=4)
    tokens = 2 * 4096
    assert step.compute_seconds == LLAMA_7B.hardware * tokens / (312 * 10**12 * Fraction(6, 10))
    assert not step.memory_bound
    assert step.communication_seconds == 0 and step.bubble_seconds == 0
    assert step.step_seconds == 4 * step.compute_seconds + step.optimizer_seconds
    assert step.tokens_per_step == 4 * tokens
    # without communication or bubble, MFU is the efficiency diluted by the optimizer
    assert step.mfu < Fraction(6, 10) and step.mfu > Fraction(59, 100)


def replace_nodes(hw: Hardware, gpus_per_node: int) -> Hardware:
    return dataclasses.replace(hw, gpus_per_node=gpus_per_node)


def test_a_tiny_micro_batch_is_memory_bound() -> None:
    tiny = workload(seq_len=8, cost=token_cost(6_738_415_616))
    step = step_time(tiny, A100, micro_batch=1, accumulation_steps=1)
    assert step.memory_bound
    weight_bytes = 6_738_415_616 * 2
    assert step.memory_seconds == Fraction(4 * weight_bytes, 2039 * 10**9)
    assert step.micro_step_seconds == step.memory_seconds


@settings(max_examples=200)
@given(
    micro_batch=st.integers(1, 64),
    accumulation=st.integers(1, 256),
    data=st.sampled_from([1, 2, 8, 64, 1024]),
    stage=st.sampled_from(list(ZeroStage)),
    per_node=st.sampled_from([1, 8]),
    seq=st.integers(1, 8192),
)
def test_more_accumulation_never_lowers_throughput_and_lengthens_the_step(
    micro_batch: int, accumulation: int, data: int, stage: ZeroStage, per_node: int, seq: int
) -> None:
    job = workload(
        layout=ParallelLayout(data=data), zero_stage=stage, seq_len=seq, cost=token_cost(10**9)
    )
    hw = replace_nodes(A100, per_node)
    now = step_time(job, hw, micro_batch, accumulation)
    more = step_time(job, hw, micro_batch, accumulation + 1)
    assert more.step_seconds > now.step_seconds
    assert more.tokens_per_second >= now.tokens_per_second
    if stage is ZeroStage.NONE and data > 1 and per_node == 1:
        # DDP's all-reduce is paid once per step: accumulation spreads it thinner
        assert more.communication_fraction <= now.communication_fraction


def test_accumulation_amortises_ddp_but_not_zero3_across_nodes() -> None:
    hw = replace_nodes(A100, 8)
    layout = ParallelLayout(data=32)  # 4 nodes of 8
    ddp = workload(layout=layout, seq_len=1024, cost=token_cost(6_738_415_616))
    zero3 = workload(
        layout=layout, seq_len=1024, cost=token_cost(6_738_415_616), zero_stage=ZeroStage.WEIGHTS
    )
    gain_ddp = (
        step_time(ddp, hw, 1, 64).tokens_per_second / step_time(ddp, hw, 1, 1).tokens_per_second
    )
    gain_z3 = (
        step_time(zero3, hw, 1, 64).tokens_per_second / step_time(zero3, hw, 1, 1).tokens_per_second
    )
    assert gain_ddp > Fraction(3, 2)
    assert gain_z3 < Fraction(11, 10)  # it gathers the weights again on every micro-step
    # ZeRO-3's micro-step is the network's time, not the GPU's: the gathers and the
    # reduce-scatter, a layer's worth of compute showing through at each end
    z3 = step_time(zero3, hw, 1, 1)
    gathers = sum(c.seconds for c in StepModel(zero3, hw).collectives(1))
    assert gathers < z3.micro_step_seconds < gathers * Fraction(11, 10)


@pytest.mark.parametrize("stages", [1, 2, 4, 8])
@pytest.mark.parametrize("micro_batches", [1, 4, 16, 64])
def test_pipeline_bubble_is_the_published_share(stages: int, micro_batches: int) -> None:
    """Narayanan et al. 2021 (Megatron-LM, section 2.2.1): with p stages and m
    micro-batches a 1F1B step idles (p - 1) micro-steps, so the bubble over the ideal
    time is (p - 1) / m; GPipe (Huang et al. 2019) gives its share of the whole step as
    (K - 1) / (M + K - 1). The step can only hold more than the schedule (gradient
    reduction after the last micro-step), never less."""
    job = workload(layout=ParallelLayout(data=1, pipeline=stages))
    step = step_time(job, replace_nodes(A100, 64), 1, micro_batches)
    ideal = micro_batches * step.micro_step_seconds
    assert step.bubble_seconds / ideal == Fraction(stages - 1, micro_batches)
    assert step.parts.bubble == step.bubble_seconds
    assert step.bubble_fraction <= Fraction(stages - 1, micro_batches + stages - 1)
    assert step.step_seconds >= ideal + step.bubble_seconds


def test_the_bubble_shrinks_with_micro_batches_and_grows_with_stages() -> None:
    hw = replace_nodes(A100, 64)

    def share(stages: int, micro_batches: int) -> Fraction:
        job = workload(layout=ParallelLayout(data=1, pipeline=stages))
        return step_time(job, hw, 1, micro_batches).bubble_fraction

    for stages in (2, 4, 8):
        shares = [share(stages, m) for m in (1, 2, 4, 8, 16, 32)]
        assert shares == sorted(shares, reverse=True) and len(set(shares)) == len(shares)
    for m in (1, 4, 16):
        shares = [share(p, m) for p in (1, 2, 4, 8)]
        assert shares[0] == 0 and shares == sorted(shares) and len(set(shares)) == len(shares)
    # GPipe's rule of thumb: with M >= 4K micro-batches the bubble is under a fifth
    assert share(8, 32) < Fraction(1, 5)


def test_fastest_pipeline_micro_batch_minimises_equation_one() -> None:
    # Narayanan et al. 2021, eq. (1): with a fixed batch B' = b * m per replica, the best
    # micro-batch minimises (m + p - 1) * (t_f(b) + t_b(b)). Tiny micro-batches are
    # memory-bound here, so the answer is neither the smallest nor the largest b.
    p, per_replica = 8, 512
    job = workload(layout=ParallelLayout(pipeline=p), seq_len=32, cost=token_cost(6_738_415_616))
    hw = replace_nodes(A100, 8)
    times = [
        step_time(job, hw, b, per_replica // b) for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
    ]
    best = max(times, key=lambda t: t.tokens_per_second)
    by_equation = min(times, key=lambda t: (t.accumulation_steps + p - 1) * t.micro_step_seconds)
    assert best.micro_batch == by_equation.micro_batch
    assert best.micro_batch not in (1, per_replica)


def test_tensor_parallel_divides_compute_and_adds_all_reduces() -> None:
    one = step_time(workload(), replace_nodes(A100, 8), 1, 8)
    tp8 = step_time(workload(layout=ParallelLayout(tensor=8)), replace_nodes(A100, 8), 1, 8)
    assert tp8.compute_seconds * 8 == one.compute_seconds
    assert tp8.communication_seconds > 0
    assert tp8.parts.tensor_parallel == tp8.communication_seconds
    assert tp8.world == 8 and tp8.effective_batch == one.effective_batch == 8


def test_run_totals() -> None:
    step = step_time(workload(), replace_nodes(A100, 1), 1, 1)
    run = run_totals(step, tokens=10 * 4096 + 1, price_per_gpu_hour=D("3"))
    assert run.steps == 11  # the partial last step counts
    assert run.seconds == 11 * step.step_seconds
    assert run.gpu_hours == run.seconds / 3600
    assert run.cost == run.gpu_hours * 3
    assert run_totals(step, steps=5).cost is None
    with pytest.raises(ValueError):
        run_totals(step)
    with pytest.raises(ValueError):
        run_totals(step, steps=1, price_per_gpu_hour=D(-1))


def test_full_recomputation_costs_a_third_more_compute() -> None:
    plain = step_time(workload(), replace_nodes(A100, 1), 1, 1)
    again = step_time(
        workload(cost=token_cost(6_738_415_616, Shape(32, 32, 128), 4096, Recompute.FULL)),
        replace_nodes(A100, 1),
        1,
        1,
    )
    assert again.compute_seconds == plain.compute_seconds * Fraction(4, 3)
    assert again.hfu == again.mfu * Fraction(4, 3)


def test_a_measured_profile_replaces_the_roofline() -> None:
    from gradacc_desktop.core.time.profile import SpeedProfile

    profile = SpeedProfile(
        device="cuda:0 (NVIDIA A100-SXM4-80GB)",
        dtype=Precision.BF16,
        model="llama-7b",
        params=6_738_415_616,
        seq_len=4096,
        recompute=Recompute.NONE,
        attention="sdpa",
        points=((1, Fraction(1, 2)), (4, Fraction(3, 2))),
        repeats=(3, 3),
    )
    hw = replace_nodes(A100, 8)
    measured = StepModel(workload(), hw, profile)
    step = measured.time(2, 8)
    # between the points: linear; the step is 8 such micro-steps and the optimizer
    assert step.measured and not step.memory_bound
    assert step.micro_step_seconds == Fraction(1, 2) + Fraction(1, 3)
    assert step.step_seconds == 8 * step.micro_step_seconds + step.optimizer_seconds
    # each GPU of a tensor-parallel group does its share of the measured work
    split = StepModel(workload(layout=ParallelLayout(tensor=2)), hw, profile).time(4, 1)
    assert split.parts.measured == Fraction(3, 4)
    assert split.micro_step_seconds - split.communication_seconds == Fraction(3, 4)
    assert split.parts.matmul == split.parts.memory == 0
