"""``plan(description)``: the one planning entry."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.batch.recommend import Suggestion
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import Method, RunBudget, TrainingDescription
from gradacc_desktop.core.training.plan import TimeMissing, fastest, plan

TABLE = load_gpu_table()
A100 = TABLE.by_id("a100-80gb")
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"), seq_len=4096, card=A100, target_batch=512, gpus=8
)


def test_the_issues_llama_fine_tune_does_not_fit_one_a100_and_says_why() -> None:
    p = plan(replace(LLAMA, gpus=1))
    assert p.fits is False
    assert p.current is None and p.no_fit is not None
    assert p.no_fit.other_exceeds
    assert p.no_fit.other_bytes == 20 * 8_030_261_248 + 10**9
    assert p.no_fit.usable_bytes == 80 * 10**9
    assert Suggestion.ZERO_SHARDING in p.no_fit.suggestions
    assert p.why is not None
    assert p.why.startswith("161.606 GB of model states and overhead + 1 x ")
    assert p.why.endswith("more than the 80 GB usable")
    # the pairs are still listed, each known not to fit
    assert p.pairs and all(pair.fits is False for pair in p.pairs)


def test_a_fitting_plan_recommends_within_the_memory() -> None:
    d = replace(LLAMA, zero_stage=ZeroStage.WEIGHTS, recompute=Recompute.FULL)
    p = plan(d)
    assert p.fits is True and p.fit is not None and p.current is not None
    assert p.current.effective_batch == 512
    assert p.current.micro_batch <= p.fit.max_micro_batch
    assert p.fit.per_gpu_bytes <= p.fit.usable_bytes
    assert p.fit.per_gpu_bytes == p.figures.per_gpu_bytes(p.current.micro_batch)
    # every listed pair says whether it fits, consistently with the largest micro-batch
    for pair in p.pairs:
        assert pair.fits is (pair.micro_batch <= p.fit.max_micro_batch)
    assert p.setup is not None and p.setup.effective_batch == 512


def test_a_fixed_micro_batch_that_does_not_fit_says_why() -> None:
    d = replace(LLAMA, zero_stage=ZeroStage.WEIGHTS, recompute=Recompute.FULL, micro_batch=64)
    p = plan(d)
    assert p.fits is False and p.current is not None and p.current.micro_batch == 64
    assert p.why is not None and "+ 64 x " in p.why


def test_the_fastest_pair_is_the_one_rule_over_the_listed_pairs() -> None:
    p = plan(replace(LLAMA, zero_stage=ZeroStage.WEIGHTS, recompute=Recompute.FULL))
    assert p.fastest is not None and p.current is not None
    same = [x for x in p.pairs if x.fits and x.effective_batch == p.current.effective_batch]
    assert p.fastest in same
    assert p.fastest.time is not None
    assert all(
        x.time is not None and x.time.tokens_per_second <= p.fastest.time.tokens_per_second
        for x in same
    )
    assert fastest(p.pairs, p.current.effective_batch) == p.fastest


def test_without_a_model_the_batch_is_planned_and_nothing_else() -> None:
    """The pairs that reach the target are listed; none is recommended (which fits is
    not known), and a micro-batch of the user's own is planned."""
    d = TrainingDescription(card=A100, target_batch=100, gpus=3, rounding=Rounding.FLOOR)
    p = plan(d)
    assert p.unrecommended and p.current is None and p.accumulation is None
    assert p.pairs and all(pair.effective_batch <= 100 for pair in p.pairs)
    assert p.fits is None and p.fit is None and p.why is None
    assert all(pair.fits is None and pair.time is None for pair in p.pairs)
    assert p.time_missing is TimeMissing.NO_MODEL
    own = plan(replace(d, micro_batch=11))
    assert not own.unrecommended and own.current is not None
    assert own.current.effective_batch == 99 and own.fits is None


def test_time_needs_the_length_and_the_cards_speed() -> None:
    assert plan(replace(LLAMA, seq_len=None)).time_missing is TimeMissing.NO_SEQ_LEN
    from gradacc_desktop.core.time.gpus import custom_card

    custom = plan(replace(LLAMA, card=custom_card(Decimal(80))))
    assert custom.time_missing is TimeMissing.NO_SPEED
    v100 = next(c for c in TABLE.cards if c.id.startswith("v100"))
    assert plan(replace(LLAMA, card=v100)).time_missing is TimeMissing.PRECISION


def test_the_run_follows_the_budget() -> None:
    d = replace(
        LLAMA,
        zero_stage=ZeroStage.WEIGHTS,
        recompute=Recompute.FULL,
        run=RunBudget(
            dataset_samples=10_000, epochs=3, tokens=10**9, price_per_gpu_hour=Decimal(2)
        ),
    )
    p = plan(d)
    assert [line.kind for line in p.run] == ["epochs", "tokens"]
    epochs = p.run[0]
    assert epochs.totals.steps == 3 * -(-10_000 // 512)
    assert epochs.totals.cost == epochs.totals.gpu_hours * 2


DESCRIPTIONS = st.builds(
    TrainingDescription,
    model=st.sampled_from(["gpt2", "qwen2.5-0.5b", "llama-3.2-1b", "opt-125m"]).map(
        ModelSpec.bundled
    ),
    seq_len=st.sampled_from([128, 512, 1024]),
    card=st.sampled_from([c for c in TABLE.cards if c.performance is not None]),
    gpus=st.integers(1, 16),
    target_batch=st.integers(1, 4096),
    rounding=st.sampled_from(list(Rounding)),
    zero_stage=st.sampled_from(list(ZeroStage)),
    recompute=st.sampled_from(list(Recompute)),
).filter(  # per-op selective recomputation is modelled for the Llama-like models only
    lambda d: (
        d.recompute is not Recompute.SELECTIVE_OP
        or d.model.name in ("qwen2.5-0.5b", "llama-3.2-1b")
    )
)


@settings(max_examples=60, deadline=None)
@given(DESCRIPTIONS)
def test_typing_the_derived_figures_plans_the_same(d: TrainingDescription) -> None:
    """A plan without memory figures equals the plan with those two figures typed."""
    derived = plan(d)
    a, o = derived.figures.activation.bytes, derived.figures.other.bytes
    assert a is not None and o is not None
    typed = plan(replace(d, activation_gb=Decimal(a) / 10**9, other_memory_gb=Decimal(o) / 10**9))
    assert typed.figures.activation.bytes == a and typed.figures.other.bytes == o
    assert typed.pairs == derived.pairs
    assert typed.fit == derived.fit and typed.no_fit == derived.no_fit
    assert typed.fastest == derived.fastest


@settings(max_examples=60, deadline=None)
@given(DESCRIPTIONS)
def test_a_plan_never_contradicts_its_figures(d: TrainingDescription) -> None:
    p = plan(d)
    largest = p.figures.max_micro_batch()
    assert largest is not None
    for pair in p.pairs:
        per_gpu = p.figures.per_gpu_bytes(pair.micro_batch)
        assert pair.per_gpu_bytes == per_gpu
        assert pair.fits is (per_gpu is not None and per_gpu <= p.figures.usable_bytes)  # type: ignore[operator]
        assert pair.fits is (pair.micro_batch <= largest)
    if p.current is not None and p.recommending and largest > 0:
        assert p.fits is True


def test_lora_trains_faster_than_every_parameter_and_moves_only_the_adapters() -> None:
    # Hu et al. 2021 (LoRA, §4.2): "a 25% speedup during training on GPT-3 175B compared
    # to full fine-tuning" — the frozen weights need no gradient of their own. Same model,
    # same pair, 8 GPUs on one node: the step is shorter, by at most the third of the
    # FLOPs saved, and the optimizer and gradient traffic shrink to the adapters'.
    card = load_gpu_table().by_id("h100-80gb")
    full = TrainingDescription(
        model=ModelSpec.bundled("llama-3.1-8b"), seq_len=4096, card=card, gpus=8,
        zero_stage=ZeroStage.GRADIENTS, target_batch=256, micro_batch=4,
    )  # fmt: skip
    lora = replace(full, method=Method.LORA, lora_rank=16)
    t_full = plan(full).current.time  # type: ignore[union-attr]
    t_lora = plan(lora).current.time  # type: ignore[union-attr]
    assert t_full is not None and t_lora is not None
    speedup = t_full.step_seconds / t_lora.step_seconds
    assert Decimal("1.2") < float_free(speedup) <= Decimal("1.5")
    assert t_lora.optimizer_seconds * 100 < t_full.optimizer_seconds
    assert t_lora.communication_seconds < t_full.communication_seconds
    assert t_lora.model_flops_per_token < t_full.model_flops_per_token


def float_free(value: object) -> Decimal:
    from fractions import Fraction

    assert isinstance(value, Fraction)
    return Decimal(value.numerator) / Decimal(value.denominator)
