"""The time model behind a card alone: kernel efficiencies, overlap limits, interleaved
1F1B (simulated step by step), MoE all-to-alls, and what no step may ever do."""

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
from gradacc_desktop.core.time.communication import (
    CollectiveKind,
    What,
    all_to_all,
    exposed,
    pipeline,
    spread_bandwidth,
    volume_factor,
)
from gradacc_desktop.core.time.compute import Shape, token_cost
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.time.hardware import Hardware, hardware
from gradacc_desktop.core.time.kernels import FITTED, kernel_model
from gradacc_desktop.core.time.layout import ParallelLayout, bubble_fraction
from gradacc_desktop.core.time.step_results import PART_NAMES, run_totals
from gradacc_desktop.core.time.steptime import StepModel
from gradacc_desktop.core.time.workload import Experts, Uncounted, Workload

TABLE = load_gpu_table()
A100 = hardware(TABLE.by_id("a100-80gb"), Precision.BF16, 8)
H100 = hardware(TABLE.by_id("h100-80gb"), Precision.BF16, 8)
H100_FP8 = hardware(TABLE.by_id("h100-80gb"), Precision.BF16, 8, fp8=True)
LLAMA_7B = token_cost(6_738_415_616, Shape(32, 32, 128), 4096)


def llama(**kwargs: object) -> Workload:
    base: dict[str, object] = {
        "cost": LLAMA_7B,
        "seq_len": 4096,
        "hidden": 4096,
        "layers": 32,
        "vocab": 32000,
        "heads": 32,
    }
    base.update(kwargs)
    return Workload(**base)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- overlap


def test_exposed_communication_cut_per_layer() -> None:
    # finer than the compute: only the first piece shows
    assert exposed(Fraction(8), Fraction(16), 8) == 1
    # longer than the compute: the excess shows, plus one layer's compute at the end
    assert exposed(Fraction(16), Fraction(8), 8) == 8 + 1
    # continuous where piece = work
    assert exposed(Fraction(8), Fraction(8), 8) == 1
    # as finely cut as needed: only the excess
    assert exposed(Fraction(16), Fraction(8), None) == 8
    assert exposed(Fraction(4), Fraction(8), None) == 0
    assert exposed(Fraction(0), Fraction(8), 8) == 0


@given(
    comm=st.fractions(0, 100),
    compute=st.fractions(0, 100),
    pieces=st.one_of(st.none(), st.integers(1, 200)),
    more=st.fractions(0, 50),
)
def test_more_communication_is_never_less_exposed(
    comm: Fraction, compute: Fraction, pieces: int | None, more: Fraction
) -> None:
    now = exposed(comm, compute, pieces)
    assert 0 <= now <= comm
    assert exposed(comm + more, compute, pieces) >= now


# --------------------------------------------------------------------------- the kernels


def test_every_card_has_a_kernel_model_and_fitted_generations_are_named() -> None:
    for card in TABLE.cards:
        assert card.performance is not None
        kernels = kernel_model(card.performance.generation)
        assert 0 < kernels.matmul <= 1 and 0 < kernels.attention <= 1
    assert {g.value for g in FITTED} == {"ampere", "hopper", "blackwell"}


def test_wider_products_and_larger_micro_batches_run_closer_to_the_peak() -> None:
    kernels = kernel_model(TABLE.by_id("a100-80gb").performance.generation)  # type: ignore[union-attr]
    shares = [kernels.matmul_share(w) for w in (256, 1024, 4096, 16384)]
    assert shares == sorted(shares) and shares[-1] < kernels.matmul
    # one GPU, one batch of 64: larger micro-batches pay the fixed costs less often
    model = StepModel(
        llama(seq_len=512, cost=token_cost(6_738_415_616, Shape(32, 32, 128), 512)), A100
    )
    times = [model.time(b, 64 // b).step_seconds for b in (1, 2, 4, 8, 16)]
    assert times == sorted(times, reverse=True)
    assert times[0] > times[-1] * Fraction(21, 20)  # by more than 5 %


def test_fp8_runs_the_products_faster_and_not_the_attention() -> None:
    bf16 = StepModel(llama(), H100).time(1, 1)
    fp8 = StepModel(llama(precision=Precision.BF16), H100_FP8).time(1, 1)
    kernels = H100.kernels
    assert kernels is not None
    assert fp8.parts.matmul * kernels.fp8_gain == bf16.parts.matmul
    assert fp8.parts.attention == bf16.parts.attention
    assert fp8.step_seconds < bf16.step_seconds
    assert fp8.peak_flops == 2 * bf16.peak_flops  # MFU against the FP8 peak


def test_eager_attention_writes_its_scores_and_is_slower() -> None:
    fused = StepModel(llama(), A100).time(1, 1)
    eager = StepModel(llama(flash_attention=False), A100).time(1, 1)
    assert eager.parts.attention > fused.parts.attention
    assert eager.parts.matmul == fused.parts.matmul


def test_a_typed_efficiency_replaces_the_model() -> None:
    typed = hardware(TABLE.by_id("a100-80gb"), Precision.BF16, 8, D("0.5"))
    step = StepModel(llama(), typed).time(2, 1)
    flops = LLAMA_7B.hardware * 2 * 4096
    assert step.compute_seconds == flops / (312 * 10**12 * Fraction(1, 2))
    assert step.parts.overhead == 0


# --------------------------------------------------------------------------- never faster


def _roofline(step_flops: Fraction, weight_bytes: Fraction, hw: Hardware) -> Fraction:
    return max(step_flops / hw.peak_flops, weight_bytes / hw.memory_bandwidth)


@settings(max_examples=150, deadline=None)
@given(
    b=st.integers(1, 32),
    a=st.integers(1, 64),
    data=st.sampled_from([1, 2, 8, 64]),
    tensor=st.sampled_from([1, 2, 8]),
    stages=st.sampled_from([1, 2, 4]),
    virtual=st.sampled_from([1, 2]),
    zero=st.sampled_from(list(ZeroStage)),
    seq=st.sampled_from([128, 2048, 8192]),
    recompute=st.sampled_from(list(Recompute)),
    card=st.sampled_from(["a100-80gb", "h100-80gb", "rtx-4090-24gb", "mi300x-192gb"]),
    flash=st.booleans(),
    context=st.sampled_from([1, 2, 4]),
)
def test_a_step_is_never_faster_than_the_roofline_and_its_parts_add_up(
    b: int,
    a: int,
    data: int,
    tensor: int,
    stages: int,
    virtual: int,
    zero: ZeroStage,
    seq: int,
    recompute: Recompute,
    card: str,
    flash: bool,
    context: int,
) -> None:
    if stages == 1:
        virtual = 1
    hw = hardware(TABLE.by_id(card), Precision.BF16, 8)
    # per-op selective recomputation repeats k, o and up of a Llama 2 7B layer
    share = Fraction(75, 193) if recompute is Recompute.SELECTIVE_OP else None
    cost = token_cost(6_738_415_616, Shape(32, 32, 128), seq, recompute, repeated=share)
    job = llama(
        cost=cost,
        seq_len=seq,
        layout=ParallelLayout(data, tensor, stages, virtual, context),
        zero_stage=zero,
        flash_attention=flash,
    )
    step = StepModel(job, hw).time(b, a)
    assert step.parts.total == step.step_seconds
    # the micro-steps' FLOPs at the peak, or reading the weights, whichever is slower
    flops = cost.hardware * b * seq / (tensor * stages * context)
    floor = a * _roofline(flops, job.weight_bytes_per_gpu * 2, hw)
    assert step.step_seconds >= floor
    assert step.mfu < 1 and step.hfu < 1
    for name in PART_NAMES:
        assert getattr(step.parts, name) >= 0


@settings(max_examples=150, deadline=None)
@given(
    b=st.integers(1, 16),
    a=st.integers(1, 32),
    data=st.sampled_from([2, 16, 128]),
    tensor=st.sampled_from([1, 4, 8]),
    stages=st.sampled_from([1, 4]),
    zero=st.sampled_from(list(ZeroStage)),
    slower=st.fractions(Fraction(1, 100), 1),
    which=st.sampled_from(["network_bandwidth", "link_bandwidth"]),
)
def test_slower_links_never_speed_up_a_step(
    b: int,
    a: int,
    data: int,
    tensor: int,
    stages: int,
    zero: ZeroStage,
    slower: Fraction,
    which: str,
) -> None:
    job = llama(layout=ParallelLayout(data, tensor, stages), zero_stage=zero)
    fast = StepModel(job, A100).time(b, a)
    hw = dataclasses.replace(A100, **{which: getattr(A100, which) * slower})
    slow = StepModel(job, hw).time(b, a)
    assert slow.step_seconds >= fast.step_seconds
    assert slow.parts.communication >= fast.parts.communication


def test_zero3_is_slower_than_zero1_across_nodes() -> None:
    # OPT-175B's layout in spirit: tensor-parallel inside the node, data-parallel
    # replicas over the network; ZeRO-3 gathers the weights on every micro-step
    job = {"layout": ParallelLayout(data=124, tensor=8), "seq_len": 2048}
    cost = token_cost(175 * 10**9, Shape(96, 96, 128), 2048, Recompute.FULL)
    zero1 = StepModel(llama(cost=cost, hidden=12288, layers=96, heads=96, **job), A100)
    zero3 = StepModel(
        llama(cost=cost, hidden=12288, layers=96, heads=96, zero_stage=ZeroStage.WEIGHTS, **job),
        A100,
    )
    assert zero3.time(1, 8).step_seconds > zero1.time(1, 8).step_seconds


# --------------------------------------------------------------------------- pipelines


def _simulate(
    p: int,
    v: int,
    m: int,
    forward: Fraction,
    backward: Fraction,
    head: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0)),
) -> Fraction:
    """Megatron's interleaved 1F1B, operation by operation
    (``schedules.forward_backward_pipelining_with_interleaving``): each GPU runs its
    fixed sequence of forward and backward passes over its ``v`` chunks; a pass starts
    when its GPU is free and the pass it depends on is done. ``forward``/``backward``:
    one GPU's passes over all its chunks; ``head``: what the last virtual stage's
    forward and backward take on top (the output layer and the loss)."""
    total = m * v

    def chunk(k: int, is_forward: bool) -> int:
        c = (k % (p * v)) // p
        return c if is_forward else v - 1 - c

    def micro_batch(k: int) -> int:
        return (k // (p * v)) * p + k % p

    sequences: list[list[tuple[str, int, int]]] = []
    for gpu in range(p):
        warm = min(p - gpu - 1, m) if v == 1 else min((p - gpu - 1) * 2 + (v - 1) * p, total)
        sequence: list[tuple[str, int, int]] = []
        f = b = 0
        for _ in range(warm):
            sequence.append(("F", chunk(f, True), micro_batch(f)))
            f += 1
        while f < total:
            sequence.append(("F", chunk(f, True), micro_batch(f)))
            f += 1
            sequence.append(("B", chunk(b, False), micro_batch(b)))
            b += 1
        while b < total:
            sequence.append(("B", chunk(b, False), micro_batch(b)))
            b += 1
        sequences.append(sequence)
    done: dict[tuple[str, int, int], Fraction] = {}
    free = [Fraction(0)] * p
    position = [0] * p
    stages = p * v
    progress = True
    while progress:
        progress = False
        for gpu in range(p):
            while position[gpu] < len(sequences[gpu]):
                kind, c, j = sequences[gpu][position[gpu]]
                stage = c * p + gpu
                needs = []
                if kind == "F" and stage > 0:
                    needs.append(("F", stage - 1, j))
                if kind == "B":
                    needs.append(("F", stage, j))
                    if stage < stages - 1:
                        needs.append(("B", stage + 1, j))
                if any(n not in done for n in needs):
                    break
                start = max([free[gpu], *(done[n] for n in needs)])
                end = start + (forward if kind == "F" else backward) / v
                if stage == stages - 1:
                    end += head[0] if kind == "F" else head[1]
                done[(kind, stage, j)] = end
                free[gpu] = end
                position[gpu] += 1
                progress = True
    if any(position[g] < len(sequences[g]) for g in range(p)):
        raise RuntimeError("the schedule waits on itself")
    return max(free)


@pytest.mark.parametrize(
    ("p", "v", "m"), [(2, 1, 4), (4, 1, 8), (4, 2, 4), (4, 2, 8), (4, 3, 8), (8, 2, 16), (8, 4, 32)]
)
def test_interleaved_1f1b_simulated_step_by_step(p: int, v: int, m: int) -> None:
    forward, backward = Fraction(1), Fraction(2)
    simulated = _simulate(p, v, m, forward, backward)
    # the model: m micro-steps and (p - 1)/v idle ones
    assert simulated == (m + Fraction(p - 1, v)) * (forward + backward)
    idle = simulated - m * (forward + backward)
    assert idle / simulated == bubble_fraction(p, m, v)
    # a last stage slower by the output layer: the schedule takes m of its slots and
    # the other stages' fill and drain once, over v
    head = (Fraction(1, 3), Fraction(2, 3))
    slower = _simulate(p, v, m, forward, backward, head)
    body, last = forward + backward, forward + backward + sum(head)
    assert slower == m * last + (p - 1) * body / v
    # and the step model composes its stages the same way
    job = llama(layout=ParallelLayout(data=1, pipeline=p, virtual=v))
    step = StepModel(job, dataclasses.replace(A100, gpus_per_node=64)).time(1, m)
    stages = step.stage_seconds
    assert len(stages) == p and stages[-1] > stages[0] == stages[-2]
    assert step.micro_step_seconds == stages[-1]
    assert step.parts.bubble == (sum(stages) - stages[-1]) / v


def test_interleaving_needs_whole_groups_of_micro_batches() -> None:
    # Megatron refuses m not a multiple of p with virtual stages; simulated, the
    # schedule deadlocks
    with pytest.raises(RuntimeError):
        _simulate(4, 2, 6, Fraction(1), Fraction(2))


def test_virtual_stages_send_v_times_as_often_and_hold_more_activations() -> None:
    link = Fraction(300 * 10**9)
    plain = pipeline(4, 1000, link, True)
    interleaved = pipeline(4, 1000, link, True, virtual=3)
    assert interleaved[0].volume == 3 * plain[0].volume
    assert ParallelLayout(pipeline=4, virtual=2).interleaving == 1 + Fraction(3, 8)
    assert ParallelLayout(pipeline=4).interleaving == 1
    with pytest.raises(ValueError):
        ParallelLayout(pipeline=1, virtual=2)


# --------------------------------------------------------------------------- experts


def test_moe_all_to_all_volume() -> None:
    # 4 per sparse layer (dispatch and combine, forward and backward), 6 recomputed;
    # each rank keeps its own share of the routed tokens
    link = Fraction(300 * 10**9)
    found = all_to_all(24, 8000, 8, link, True, recompute=False)
    assert found[0].kind is CollectiveKind.ALL_TO_ALL
    assert found[0].volume == 4 * 24 * 8000 * Fraction(7, 8)
    assert all_to_all(24, 8000, 8, link, True, recompute=True)[0].count == 6 * 24
    assert all_to_all(24, 8000, 1, link, True, recompute=False) == ()
    assert volume_factor(CollectiveKind.ALL_TO_ALL, 8) == Fraction(7, 8)


def test_an_all_to_all_over_nodes_sends_only_the_other_nodes_share_over_the_network() -> None:
    # 16 ranks on 2 nodes: half of each rank's tokens stay on its node (7 of its 15
    # peers there, over NVLink at the same time); the network carries the other half
    link, network = Fraction(360 * 10**9), Fraction(40 * 10**9)
    assert spread_bandwidth(16, 1, link, network) == link
    both = spread_bandwidth(16, 2, link, network)
    assert both == Fraction(15, 16) / (Fraction(1, 2) / network)
    assert network < both < link
    # the more nodes, the more of the tokens cross the network, never slower than it
    spreads = [spread_bandwidth(64, k, link, network) for k in (2, 4, 8, 64)]
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[-1] == network
    # a slow link inside the node sets the time when the network is the faster
    assert spread_bandwidth(16, 2, network, link) == Fraction(15, 16) / (Fraction(7, 16) / network)


def test_expert_parallel_adds_its_exchange_to_every_micro_step() -> None:
    # the experts spread over the 8 data-parallel GPUs (without their parameters the
    # weights and the gradient reduction are the dense model's)
    eight = ParallelLayout(data=8)
    moe = llama(layout=eight, experts=Experts(experts=8, top_k=2, layers=32, parallel=8))
    dense = StepModel(llama(layout=eight), A100).time(2, 4)
    routed = StepModel(moe, A100).time(2, 4)
    assert dense.parts.expert_parallel == 0
    assert routed.parts.expert_parallel > 0
    assert routed.parts.permutation > 0  # the tokens sorted to their experts and back
    extra = routed.parts.expert_parallel + routed.parts.permutation
    assert routed.step_seconds == dense.step_seconds + extra
    # the tokens routed in a step do not depend on how the batch is split; each
    # micro-step also pays the all-to-alls' fixed latency
    model = StepModel(moe, A100)
    latency = sum(
        c.count * c.latency
        for c in model.model_collectives(1)
        if c.kind is CollectiveKind.ALL_TO_ALL
    )
    assert latency > 0
    halved = model.time(4, 2).parts.expert_parallel
    assert routed.parts.expert_parallel - halved == 2 * latency
    one = model.time(2, 1).parts.expert_parallel
    assert one * 4 == routed.parts.expert_parallel


# --------------------------------------------------------------------------- without the shape


def test_a_bare_parameter_count_says_what_it_cannot_count() -> None:
    bare = Workload(cost=token_cost(10**9), seq_len=2048, layout=ParallelLayout(4, 2, 2))
    assert bare.uncounted == (
        Uncounted.ATTENTION,
        Uncounted.KERNEL_SHAPES,
        Uncounted.TENSOR_PARALLEL,
        Uncounted.PIPELINE,
        Uncounted.LAYER_OVERLAP,
    )
    assert llama().uncounted == ()
    step = StepModel(bare, A100).time(1, 4)
    assert step.parts.tensor_parallel == step.parts.pipeline == 0


def test_goodput_stretches_the_run() -> None:
    step = StepModel(llama(), A100).time(1, 1)
    full = run_totals(step, steps=100, price_per_gpu_hour=D("2"))
    ninety = run_totals(step, steps=100, price_per_gpu_hour=D("2"), goodput=D("0.9"))
    assert ninety.seconds * Fraction(9, 10) == full.seconds
    assert ninety.cost is not None and full.cost is not None
    assert ninety.cost * Fraction(9, 10) == full.cost
    for bad in (D(0), D("1.5"), D("NaN")):
        with pytest.raises(ValueError):
            run_totals(step, steps=1, goodput=bad)


def test_expert_parallelism_is_checked_against_the_experts_and_the_replicas() -> None:
    with pytest.raises(ValueError, match="divide the 8 experts"):
        Experts(experts=8, top_k=2, layers=32, parallel=3)
    with pytest.raises(ValueError, match="top_k"):
        Experts(experts=8, top_k=9, layers=32)
    with pytest.raises(ValueError, match="params"):
        Experts(experts=8, top_k=2, layers=32, params=-1)
    with pytest.raises(ValueError, match="4 data-parallel GPUs"):
        llama(layout=ParallelLayout(data=4), experts=Experts(8, 2, 32, parallel=8))


def test_a_gpu_reads_and_reduces_only_the_experts_it_holds() -> None:
    # 6N's N holds top_k = 2 of the 8 experts; a GPU holds its dense weights and 1/EP
    # of every expert, and reduces their gradients over dp / EP replicas
    routed = 8 * 10**9
    dense = LLAMA_7B.params - routed * 2 // 8
    layout = ParallelLayout(data=16, tensor=2)
    plain = llama(layout=layout, experts=Experts(8, 2, 32, parallel=1, params=routed))
    spread = llama(layout=layout, experts=Experts(8, 2, 32, parallel=4, params=routed))
    assert plain.params_per_gpu == Fraction(dense + routed, 2)
    assert spread.params_per_gpu == Fraction(dense + routed // 4, 2)
    assert spread.expert_params_per_gpu == Fraction(routed, 8)
    assert spread.data_shard(Fraction(16), Fraction(4)) == Fraction(16 + 16, 16)
    one, four = StepModel(plain, A100), StepModel(spread, A100)
    assert [(c.ranks, c.size) for c in one.collectives(1) if c.kind is CollectiveKind.ALL_REDUCE][
        :1
    ] == [(16, 2 * plain.params_per_gpu)]
    reduced = [(c.ranks, c.size) for c in four.collectives(1) if c.when.value == "optimizer_step"]
    assert reduced == [(16, dense), (4, routed // 4)]  # 16-bit: 2 bytes over tp = 2
    # fewer weights to read and to reduce, plus the exchange of the routed tokens
    assert four.time(1, 1).parts.data_parallel < one.time(1, 1).parts.data_parallel
    assert four.time(1, 1).parts.expert_parallel > 0 == one.time(1, 1).parts.expert_parallel


# ------------------------------------------------------------------- recomputation


def _counts(model: StepModel, kind: CollectiveKind) -> int:
    return sum(c.count for c in model.model_collectives(1) if c.kind is kind)


@pytest.mark.parametrize("flash", [True, False])
def test_selective_recomputation_costs_between_none_and_full(flash: bool) -> None:
    """Selective recomputation repeats the attention core's forward and nothing else: a
    step takes longer than without recomputation and less than with full; the
    tensor-parallel all-reduces are not repeated (the core sits between them), ring
    attention's sends are (the core's forward runs the ring again)."""
    layout = ParallelLayout(2, 4, 1, 1, 2)
    models = {
        r: StepModel(
            llama(
                cost=token_cost(6_738_415_616, Shape(32, 32, 128), 4096, r),
                layout=layout,
                flash_attention=flash,
                kv_width=32 * 128,
            ),
            H100,
        )
        for r in (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    }
    times = {r: m.time(2, 4).step_seconds for r, m in models.items()}
    assert times[Recompute.NONE] < times[Recompute.SELECTIVE] < times[Recompute.FULL]
    none, selective, full = models.values()
    assert _counts(selective, CollectiveKind.ALL_REDUCE) == _counts(none, CollectiveKind.ALL_REDUCE)
    assert _counts(full, CollectiveKind.ALL_REDUCE) > _counts(none, CollectiveKind.ALL_REDUCE)
    ring = [
        sum(c.count for c in m.model_collectives(1) if c.what is What.KEYS_VALUES)
        for m in (none, selective, full)
    ]
    assert ring[0] < ring[1] == ring[2]
