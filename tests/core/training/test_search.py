"""The search for the best setup: properties, and a brute force on small spaces."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch.planning import divisors
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.rules import Rule
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import custom_card, load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import plan
from gradacc_desktop.core.training.search import (
    ZERO_OFFLOAD,
    ExclusionReason,
    Unsearchable,
    search,
)

TABLE = load_gpu_table()
CARDS = [c for c in TABLE.cards if c.performance is not None and c.performance.bf16_tflops]
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"), seq_len=4096, card=TABLE.by_id("a100-80gb"),
    target_batch=512,
)  # fmt: skip


def test_the_best_setup_fits_and_plans_as_found() -> None:
    result = search(LLAMA, 8)
    best = result.best
    assert best is not None and best.fits and best.effective_batch == 512
    applied = result.applied()
    assert applied is not None
    p = plan(applied)
    assert p.fits is True and p.current is not None
    assert p.current.micro_batch == best.micro_batch
    assert p.current.effective_batch == 512
    assert p.current.time is not None and best.step is not None
    assert p.current.time.step_seconds == best.step.step_seconds
    assert p.fit is not None and p.fit.per_gpu_bytes == best.per_gpu_bytes
    # the verdicts: DeepSpeed and Megatron accept the target with this pair
    assert p.current.verdicts.both_accept


def test_the_ranking_is_fastest_first_and_every_excluded_value_says_why() -> None:
    result = search(LLAMA, 8)
    seconds = [c.step_seconds for c in result.ranking]
    assert seconds == sorted(seconds)  # type: ignore[type-var]
    best = result.best
    assert best is not None
    for exclusion in result.exclusions:
        assert getattr(best, exclusion.dimension) != exclusion.value
        if exclusion.reason is ExclusionReason.SLOWER:
            assert exclusion.candidate is not None
            assert exclusion.candidate.step_seconds >= best.step_seconds  # type: ignore[operator]
        elif exclusion.reason is ExclusionReason.NOT_FIT:
            assert exclusion.shortfall_bytes is not None and exclusion.shortfall_bytes > 0
        else:
            assert exclusion.refusals
    # one GPU: nothing fits without ZeRO-Offload, and the exclusions say so
    single = search(LLAMA, 1)
    zero = {(e.dimension, e.value): e for e in single.exclusions}
    assert zero[("offload", Offload.NONE)].reason is ExclusionReason.NOT_FIT


def test_each_framework_tries_the_recomputations_it_offers() -> None:
    """FSDP's per-op selective recomputation (where modelled) and Megatron's selective
    one (with the eager attention, whose scores it drops) are searched too."""
    d = replace(LLAMA, model=ModelSpec.bundled("llama-3-70b"), target_batch=65536, nodes=128,
                card=TABLE.by_id("h100-80gb"), framework=Framework.FSDP)  # fmt: skip
    result = search(d, 1024)
    assert result.best is not None and result.best.recompute is Recompute.SELECTIVE_OP
    out = {e.value: e.reason for e in result.exclusions if e.dimension == "recompute"}
    assert out == {Recompute.NONE: ExclusionReason.SLOWER, Recompute.FULL: ExclusionReason.SLOWER}
    # a refused value says why the best with that one value changed is refused only
    zero1 = next(e for e in result.exclusions if e.value == ZeroStage.OPTIMIZER)
    assert [r.rule.value for r in zero1.refusals] == ["fsdp_zero1"]
    # GPT-2's products are not described: per-op is not tried for it
    gpt2 = replace(LLAMA, model=ModelSpec.bundled("gpt2"), seq_len=1024, framework=Framework.FSDP)
    tried = {c.recompute for c in search(gpt2, 8).ranking}
    assert Recompute.SELECTIVE_OP not in tried
    megatron = replace(LLAMA, framework=Framework.MEGATRON)
    fused, eager = (
        search(megatron, 8),
        search(replace(megatron, attention=AttentionKernel.EAGER), 8),
    )
    assert eager.considered == fused.considered * 3 // 2


def test_frameworks_refusals_are_applied() -> None:
    result = search(LLAMA, 64, 8)
    for c in result.ranking:
        assert not (c.pipeline_stages > 1 and c.zero_stage >= ZeroStage.GRADIENTS)
        # DeepSpeed 0.19.8 runs AutoTP with ZeRO-3 (deepspeed/runtime/engine.py:952)
        assert 32 % c.pipeline_stages == 0 and 32 % c.tensor_parallel == 0
        assert c.tensor_parallel <= 8  # inside a node of 8
    refused = {e.value for e in result.exclusions if e.reason is ExclusionReason.REFUSED}
    assert 64 in refused  # 64 pipeline stages for 32 layers
    pipeline = next(
        e for e in result.exclusions if e.dimension == "pipeline_stages" and e.value == 64
    )
    layers = next(r for r in pipeline.refusals if r.rule is Rule.LAYERS)
    assert layers.message.startswith("The 32 layers do not split over 64 pipeline stages")


def test_what_cannot_be_searched_says_why() -> None:
    assert search(TrainingDescription(), 8).unsearchable is Unsearchable.NO_MODEL
    no_length = replace(LLAMA, seq_len=None)
    assert search(no_length, 8).unsearchable is Unsearchable.NO_ACTIVATION
    assert search(replace(LLAMA, card=None), 8).unsearchable is Unsearchable.NO_CAPACITY
    assert search(LLAMA, 12, 5).unsearchable is Unsearchable.UNEVEN_NODES


def test_without_the_cards_speed_the_ranking_is_by_simplicity() -> None:
    result = search(replace(LLAMA, card=custom_card(TABLE.by_id("a100-80gb").usable_gb)), 8)
    assert result.untimed is not None
    best = result.best
    assert best is not None and best.step is None
    assert (best.tensor_parallel, best.pipeline_stages, best.offload) == (1, 1, Offload.NONE)


# --------------------------------------------------------------------------- brute force


def _brute_force(d: TrainingDescription, world: int) -> Fraction | None:
    """The fastest fitting, accepted setup, by planning every layout and pair one by one."""
    best: Fraction | None = None
    per_node = world // d.nodes
    for tp in (t for t in (1, 2, 4, 8) if t <= per_node and per_node % t == 0):
        for pp in divisors(world // tp):
            dp = world // (tp * pp)
            if d.target_batch % dp:
                continue
            for recompute in (Recompute.NONE, Recompute.FULL):
                for zero, offload in ZERO_OFFLOAD:
                    if (pp > 1 and zero >= ZeroStage.GRADIENTS) or (
                        tp > 1 and zero is ZeroStage.WEIGHTS
                    ):
                        continue
                    for b in divisors(d.target_batch // dp):
                        changed = replace(
                            d,
                            gpus=dp,
                            tensor_parallel=tp,
                            pipeline_stages=pp,
                            zero_stage=zero,
                            offload=offload,
                            recompute=recompute,
                            micro_batch=b,
                        )
                        p = plan(changed)
                        model = p.figures.facts
                        assert model is not None and model.size is not None
                        if model.size.layers % pp or model.size.shape.heads % tp:
                            continue
                        if (model.kv_heads or 1) % tp:
                            continue
                        if p.fits and p.current is not None and p.current.time is not None:
                            seconds = p.current.time.step_seconds
                            best = seconds if best is None else min(best, seconds)
    return best


@pytest.mark.parametrize(
    ("model", "seq", "card", "world", "target"),
    [
        ("gpt2", 1024, "rtx-4090-24gb", 4, 64),
        ("qwen2.5-0.5b", 2048, "a100-40gb", 2, 48),
        ("llama-3.2-1b", 4096, "l4-24gb", 4, 32),
        ("opt-125m", 2048, "t4-16gb", 2, 12),
    ],
)
def test_the_search_finds_what_a_brute_force_finds(
    model: str, seq: int, card: str, world: int, target: int
) -> None:
    d = TrainingDescription(
        model=ModelSpec.bundled(model), seq_len=seq, card=TABLE.by_id(card), target_batch=target
    )
    if card == "t4-16gb":
        from gradacc_desktop.core.memory.setup import Precision

        d = replace(d, precision=Precision.FP16)
    result = search(d, world)
    expected = _brute_force(d, world)
    best = result.best
    if expected is None:
        assert best is None
    else:
        assert best is not None and best.step_seconds == expected


# --------------------------------------------------------------------------- properties

DESCRIPTIONS = st.builds(
    TrainingDescription,
    model=st.sampled_from(["gpt2", "qwen2.5-0.5b", "llama-3.2-1b", "gemma-3-1b-it"]).map(
        ModelSpec.bundled
    ),
    seq_len=st.sampled_from([256, 1024]),
    card=st.sampled_from(CARDS),
    target_batch=st.sampled_from([8, 16, 48, 64, 96, 256]),
)


@settings(max_examples=25, deadline=None)
@given(DESCRIPTIONS, st.sampled_from([1, 2, 4, 8]))
def test_the_best_fits_and_nothing_listed_is_faster(d: TrainingDescription, world: int) -> None:
    result = search(d, world)
    if result.best is None:
        return
    best = result.best
    applied = result.applied()
    assert applied is not None
    p = plan(applied)
    assert p.fits is True and p.current is not None
    assert p.current.effective_batch == d.target_batch
    for c in result.ranking:
        assert c.fits and c.step_seconds >= best.step_seconds  # type: ignore[operator]
    for e in result.exclusions:
        if e.candidate is not None:
            assert e.candidate.step_seconds >= best.step_seconds  # type: ignore[operator]


CHOSEN = st.builds(
    TrainingDescription,
    model=st.sampled_from(["qwen2.5-0.5b", "llama-3.1-8b", "mixtral-8x7b", "gpt2"]).map(
        ModelSpec.bundled
    ),
    seq_len=st.sampled_from([1024, 2048]),
    card=st.sampled_from(CARDS),
    target_batch=st.sampled_from([16, 64, 256]),
    framework=st.sampled_from(list(Framework)),
    cpu_memory_gb=st.one_of(st.none(), st.integers(1, 4096).map(Decimal)),
)


@settings(max_examples=30, deadline=None)
@given(CHOSEN, st.sampled_from([(1, 1), (8, 1), (16, 2), (32, 4)]))
def test_the_choice_is_refused_by_no_rule_and_fits_a_node(
    d: TrainingDescription, world_nodes: tuple[int, int]
) -> None:
    """The search's best setup, planned as a description of its own, is refused by no
    entry of the rule book under the description's framework, and a node holds what it
    keeps in CPU memory whenever the node's memory is given."""
    world, nodes = world_nodes
    result = search(d, world, nodes)
    best = result.best
    if best is None:
        return
    assert best.refusals == () and best.blocked is None
    applied = result.applied()
    assert applied is not None
    p = plan(applied)
    assert p.refusals == () and p.problems == ()
    assert p.fits is True
    if d.cpu_memory_gb is not None:
        assert p.cpu_fits is True, (p.cpu_bytes_per_node, d.cpu_memory_gb)
        assert best.cpu_bytes_per_node == p.cpu_bytes_per_node


NVLINK = [c for c in CARDS if c.performance is not None and c.performance.link.value == "nvlink"]
COMPUTE_BOUND = st.builds(
    TrainingDescription,
    model=st.sampled_from(["qwen2.5-0.5b", "llama-3.2-1b", "gemma-3-1b-it"]).map(ModelSpec.bundled),
    seq_len=st.sampled_from([1024, 2048]),
    card=st.sampled_from(NVLINK),
    target_batch=st.sampled_from([16, 48, 64, 96, 256]),
)


@settings(max_examples=25, deadline=None)
@given(COMPUTE_BOUND, st.sampled_from([1, 2, 4]))
def test_more_gpus_never_make_the_best_slower_under_data_parallelism(
    d: TrainingDescription, world: int
) -> None:
    """Plain data parallelism inside one NVLink node, where a micro-step's compute hides
    the gradients' all-reduce: twice the GPUs is never slower. (A tiny model over PCIe
    is communication-bound: there more GPUs can be slower, as they are on real cards.)"""
    if d.target_batch % (2 * world):
        return
    fewer = search(d, world, tensor_parallel=(1,), pipeline_stages=(1,)).best
    more = search(d, 2 * world, tensor_parallel=(1,), pipeline_stages=(1,)).best
    if fewer is None:
        return
    assert more is not None
    assert more.step_seconds <= fewer.step_seconds  # type: ignore[operator]
