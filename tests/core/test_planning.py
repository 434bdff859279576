from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.batch import recommend as recommending
from gradacc_desktop.core.batch.planning import (
    UNIT_NOTE,
    DeepSpeedReason,
    Rounding,
    deepspeed_check,
    divisors,
    fit,
    lr_linear,
    lr_sqrt,
    solve_accumulation,
    steps_per_epoch,
    tokens_per_step,
)
from gradacc_desktop.core.batch.recommend import (
    NothingFits,
    PlanPair,
    Recommendation,
    Suggestion,
    recommend,
    recommend_with_pairs,
)
from gradacc_desktop.core.memory.zero import Recipe, ZeroStage, estimate_other_memory
from gradacc_desktop.core.time.gpus import (
    CUSTOM_ID,
    GpuTableError,
    custom_card,
    load_gpu_table,
    parse_gpu_table,
)

D = Decimal
small = st.integers(min_value=1, max_value=2_000)
roundings = st.sampled_from(list(Rounding))


# --------------------------------------------------------------------------- solve


def test_solve_ceil_floor_nearest() -> None:
    ceil = solve_accumulation(100, 3, 2)
    assert (ceil.accumulation_steps, ceil.effective_batch, ceil.difference) == (17, 102, 2)
    assert not ceil.exact
    assert (ceil.reachable_below, ceil.reachable_above) == (96, 102)
    assert [(p.micro_batch, p.accumulation_steps) for p in ceil.exact_micro_batches] == [
        (1, 50),
        (2, 25),
        (5, 10),
        (10, 5),
        (25, 2),
        (50, 1),
    ]
    floor = solve_accumulation(100, 3, 2, Rounding.FLOOR)
    assert (floor.accumulation_steps, floor.effective_batch, floor.difference) == (16, 96, -4)
    nearest = solve_accumulation(100, 3, 2, Rounding.NEAREST)
    assert nearest.effective_batch == 102


def test_nearest_ties_go_up() -> None:
    # 10 / 4 = 2.5 steps: the tie goes up to 3 steps (E = 12 >= T)
    assert solve_accumulation(10, 4, 1, Rounding.NEAREST).accumulation_steps == 3
    assert solve_accumulation(9, 4, 1, Rounding.NEAREST).accumulation_steps == 2


def test_steps_never_below_one() -> None:
    plan = solve_accumulation(5, 8, 2, Rounding.FLOOR)
    assert plan.accumulation_steps == 1
    assert plan.effective_batch == 16
    assert plan.reachable_below is None
    assert plan.reachable_above == 16


def test_exact_pairs_empty_when_gpus_do_not_divide() -> None:
    plan = solve_accumulation(10, 1, 3)
    assert plan.exact_micro_batches == ()
    assert not plan.exact


def test_exact() -> None:
    plan = solve_accumulation(512, 4, 8)
    assert plan.exact and plan.difference == 0 and plan.accumulation_steps == 16
    assert plan.reachable_below == plan.reachable_above == 512


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_solve_rejects_bad_values(bad: object) -> None:
    with pytest.raises(ValueError):
        solve_accumulation(bad, 1, 1)  # type: ignore[arg-type]


def test_divisors() -> None:
    assert divisors(1) == [1]
    assert divisors(36) == [1, 2, 3, 4, 6, 9, 12, 18, 36]
    assert divisors(97) == [1, 97]
    assert len(divisors(735_134_400)) == 1344  # highly composite, < 10^9


@given(small, small, small, roundings)
def test_properties_of_solve(t: int, b: int, g: int, rounding: Rounding) -> None:
    plan = solve_accumulation(t, b, g, rounding)
    assert plan.effective_batch == b * plan.accumulation_steps * g
    assert plan.difference == plan.effective_batch - t
    assert plan.exact == (t % (b * g) == 0) == (plan.difference == 0)
    assert plan.accumulation_steps >= 1
    for pair in plan.exact_micro_batches:
        assert pair.micro_batch * pair.accumulation_steps * g == t
    assert [p.micro_batch for p in plan.exact_micro_batches] == sorted(
        {d for d in range(1, t + 1) if t % g == 0 and (t // g) % d == 0}
    )
    if plan.reachable_below is not None:
        assert plan.reachable_below <= t and plan.reachable_below % (b * g) == 0
    assert plan.reachable_above >= t and plan.reachable_above % (b * g) == 0


@given(small, small, small)
def test_rounding_modes_bracket_the_target(t: int, b: int, g: int) -> None:
    ceil = solve_accumulation(t, b, g, Rounding.CEIL).effective_batch
    floor = solve_accumulation(t, b, g, Rounding.FLOOR).effective_batch
    nearest = solve_accumulation(t, b, g, Rounding.NEAREST).effective_batch
    assert ceil >= t
    if t >= b * g:  # otherwise a would be 0 and is lifted to 1
        assert floor <= t
        assert abs(nearest - t) <= abs(ceil - t) and abs(nearest - t) <= abs(floor - t)
    assert floor <= nearest <= ceil


# --------------------------------------------------------------------------- DeepSpeed


# Cases replay deepspeed/runtime/config.py (deepspeedai/DeepSpeed @ 029f12b):
#   _set_batch_related_parameters: "grad_acc = train_batch // micro_batch;
#   grad_acc //= self.world_size" when only train_batch and micro_batch are set, etc.;
#   _batch_assertion: asserts train_batch > 0, micro_batch > 0, grad_acc > 0 and
#   "train_batch == micro_batch * grad_acc * self.world_size".
@pytest.mark.parametrize(
    ("args", "reason", "derived"),
    [
        ((32, 4, 8, 1), DeepSpeedReason.OK, (32, 4, 8)),
        ((64, 4, None, 2), DeepSpeedReason.OK, (64, 4, 8)),  # 64 // 4 // 2 = 8
        ((10, 4, None, 1), DeepSpeedReason.NOT_DIVISIBLE, (10, 4, 2)),  # 2·4 != 10
        ((100, 3, None, 2), DeepSpeedReason.NOT_DIVISIBLE, (100, 3, 16)),
        ((2, 4, None, 1), DeepSpeedReason.DERIVED_ZERO_STEPS, (2, 4, 0)),
        ((8, 4, None, 4), DeepSpeedReason.DERIVED_ZERO_STEPS, (8, 4, 0)),
        ((32, 4, 4, 1), DeepSpeedReason.PRODUCT_MISMATCH, (32, 4, 4)),
        ((64, None, 4, 4), DeepSpeedReason.OK, (64, 4, 4)),  # micro = 64 // 4 // 4
        ((30, None, 4, 4), DeepSpeedReason.NOT_DIVISIBLE, (30, 1, 4)),
        ((3, None, 4, 4), DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH, (3, 0, 4)),
        ((None, 4, 8, 2), DeepSpeedReason.OK, (64, 4, 8)),
        ((16, None, None, 4), DeepSpeedReason.OK, (16, 4, 1)),
        ((18, None, None, 4), DeepSpeedReason.NOT_DIVISIBLE, (18, 4, 1)),
        ((2, None, None, 4), DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH, (2, 0, 1)),
        ((None, 4, None, 3), DeepSpeedReason.OK, (12, 4, 1)),
        ((None, None, 8, 1), DeepSpeedReason.MISSING_BATCH_SIZE, (None, None, 8)),
        ((None, None, None, 1), DeepSpeedReason.MISSING_BATCH_SIZE, (None, None, None)),
        ((0, 4, 8, 1), DeepSpeedReason.NON_POSITIVE, (0, 4, 8)),
        ((32, 0, None, 1), DeepSpeedReason.NON_POSITIVE, (32, 0, None)),  # ZeroDivisionError
        ((-8, 2, None, 1), DeepSpeedReason.NON_POSITIVE, (-8, 2, -4)),
    ],
)
def test_deepspeed_cases(
    args: tuple[int | None, int | None, int | None, int],
    reason: DeepSpeedReason,
    derived: tuple[int | None, int | None, int | None],
) -> None:
    check = deepspeed_check(*args)
    assert check.reason is reason
    assert check.ok == (reason is DeepSpeedReason.OK)
    assert (check.train_batch_size, check.micro_batch, check.grad_acc) == derived


@given(small, small, small)
def test_deepspeed_agrees_with_divisibility(t: int, b: int, g: int) -> None:
    check = deepspeed_check(t, b, None, g)
    assert check.ok == (t % (b * g) == 0)
    assert check.grad_acc == t // (b * g)


# --------------------------------------------------------------------------- fit


def test_fit_basic() -> None:
    result = fit(D("24"), D("20"), D("0.5"), 3)
    assert result.activation_gb == D("1.5")
    assert result.total_gb == D("21.5")
    assert result.fits and result.headroom_gb == D("2.5")
    assert result.max_micro_batch == 8
    over = fit(D("24"), D("20"), D("0.5"), 9)
    assert not over.fits and over.headroom_gb == D("-0.5")


def test_fit_exact_boundary_and_nothing() -> None:
    assert fit(D("10"), D("7"), D("0.3"), 10).fits  # 3.0 + 7 == 10 exactly
    assert fit(D("10"), D("7"), D("0.3"), 10).max_micro_batch == 10
    assert fit(D("10"), D("11"), D("1"), 1).max_micro_batch == 0


@given(
    st.decimals(min_value=D("0.001"), max_value=D(200), places=3),
    st.decimals(min_value=D(0), max_value=D(200), places=3),
    st.decimals(min_value=D("0.001"), max_value=D(50), places=3),
)
def test_max_micro_batch_is_the_boundary(c: Decimal, o: Decimal, a: Decimal) -> None:
    m = fit(c, o, a, 1).max_micro_batch
    if m:
        assert fit(c, o, a, m).fits
    assert not fit(c, o, a, m + 1).fits


# --------------------------------------------------------------------------- recommend


def test_recommend_exact_with_memory() -> None:
    rec = recommend(512, 8, D(80), D(30), D("1.5"))
    assert isinstance(rec, Recommendation)
    assert rec.max_micro_batch == 33
    assert (rec.recommended.micro_batch, rec.recommended.accumulation_steps) == (32, 2)
    assert rec.recommended.exact
    assert rec.fit is not None and rec.fit.fits


def test_recommend_inexact_prefers_closest() -> None:
    rec = recommend(100, 3, D(80), D(60), D(1))  # b <= 20
    assert isinstance(rec, Recommendation)
    assert rec.recommended.effective_batch == 102
    assert rec.recommended.micro_batch == 17
    floor = recommend(100, 3, D(80), D(60), D(1), Rounding.FLOOR)
    assert isinstance(floor, Recommendation)
    assert floor.recommended.effective_batch == 99  # 11 x 3 x 3


def test_recommend_without_memory() -> None:
    rec = recommend(1024, 4)
    assert isinstance(rec, Recommendation)
    assert rec.max_micro_batch is None and rec.fit is None
    assert rec.recommended.micro_batch == 256 and rec.recommended.accumulation_steps == 1


def test_recommend_nothing_fits() -> None:
    result = recommend(64, 1, D(24), D(23), D(2))
    assert isinstance(result, NothingFits)
    assert result.shortfall_gb == D(1)
    assert Suggestion.ACTIVATION_RECOMPUTATION in result.suggestions
    assert not result.other_exceeds_capacity
    model_too_big = recommend(64, 1, D(24), D(30), D(1))
    assert isinstance(model_too_big, NothingFits)
    assert model_too_big.other_exceeds_capacity
    assert Suggestion.ZERO_SHARDING in model_too_big.suggestions


def test_recommend_memory_args_go_together() -> None:
    with pytest.raises(ValueError):
        recommend(64, 1, D(24), None, D(1))


def test_recommend_for_a_billion_builds_few_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """No walk over every micro-batch up to T/g: the work is counted in pairs built."""
    built: list[int] = []
    make_pair = recommending._pair

    def counted(target: int, micro_batch: int, gpus: int, rounding: Rounding) -> PlanPair:
        built.append(micro_batch)
        return make_pair(target, micro_batch, gpus, rounding)

    monkeypatch.setattr(recommending, "_pair", counted)

    # A prime target that g does not divide: no exact pair, the closest one is searched
    # at the ends of the blocks of b that share one accumulation count, fewer than
    # 2·√(T/g) of them per side of T (NEAREST looks at both sides).
    t, g = 999_999_937, 7
    q, r = divmod(t, g)  # g·q < T < g·(q + 1): the closest effective batches
    best = {
        Rounding.CEIL: PlanPair(q + 1, 1, g * (q + 1), g - r, False),
        Rounding.FLOOR: PlanPair(q, 1, g * q, -r, False),
        Rounding.NEAREST: PlanPair(q + 1, 1, g * (q + 1), g - r, False),  # 1 above, 6 below
    }
    for rounding in Rounding:
        built.clear()
        rec = recommend(t, g, rounding=rounding)
        assert isinstance(rec, Recommendation)
        assert rec.recommended == best[rounding]
        assert 0 < len(built) <= 4 * math.isqrt(t // g)  # q is 142 857 133

    # A highly composite target with a memory limit: the largest fitting divisor is
    # exact, and only the listed pairs are built (every fitting divisor, the powers
    # of two, the limit itself).
    t = 735_134_400
    largest_fit = 182_000  # (192 - 10) / 0.001
    exact = max(b for b in range(1, largest_fit + 1) if t % b == 0)
    for rounding in Rounding:
        built.clear()
        rec = recommend(t, 1, D(192), D(10), D("0.001"), rounding)
        assert isinstance(rec, Recommendation)
        assert rec.max_micro_batch == largest_fit
        assert rec.recommended == PlanPair(exact, t // exact, t, 0, True)
        assert sorted(built) == [p.micro_batch for p in rec.pairs]
        assert len(rec.pairs) < 2_000


@settings(max_examples=150)
@given(
    st.integers(min_value=1, max_value=600),
    st.integers(min_value=1, max_value=8),
    st.decimals(min_value=D(1), max_value=D(80), places=1),
    st.decimals(min_value=D(0), max_value=D(40), places=1),
    st.decimals(min_value=D("0.1"), max_value=D(10), places=1),
    roundings,
)
def test_recommendation_properties(
    t: int, g: int, c: Decimal, o: Decimal, a: Decimal, rounding: Rounding
) -> None:
    result = recommend(t, g, c, o, a, rounding)
    largest_fit = fit(c, o, a, 1).max_micro_batch
    if largest_fit == 0:
        assert isinstance(result, NothingFits)
        return
    assert isinstance(result, Recommendation)
    pick = result.recommended
    assert fit(c, o, a, pick.micro_batch).fits
    assert pick.effective_batch == pick.micro_batch * pick.accumulation_steps * g
    assert [p.micro_batch for p in result.pairs] == sorted({p.micro_batch for p in result.pairs})
    # brute force over every fitting, useful micro-batch
    useful = range(1, result.largest_useful_micro_batch + 1)
    exact = [b for b in useful if t % (b * g) == 0]
    if exact:
        assert pick.exact and pick.micro_batch == max(exact)
    else:
        plans = [solve_accumulation(t, b, g, rounding) for b in useful]
        best = min(abs(p.difference) for p in plans)
        if rounding is Rounding.CEIL:
            assert pick.difference >= 0
        if rounding is Rounding.FLOOR and t >= g:
            assert pick.difference <= 0
        assert abs(pick.difference) == best


def _separate_calls(
    t: int, g: int, c: Decimal, o: Decimal, a: Decimal, rounding: Rounding
) -> tuple[Recommendation | NothingFits, tuple[PlanPair, ...]]:
    """What the planner computed with three ``recommend`` calls before
    ``recommend_with_pairs``: the constrained outcome, and the unconstrained pairs
    merged with the constrained ones."""
    constrained = recommend(t, g, c, o, a, rounding)
    everything = recommend(t, g, rounding=rounding)
    assert isinstance(everything, Recommendation)
    by_micro = {p.micro_batch: p for p in everything.pairs}
    again = recommend(t, g, c, o, a, rounding)
    if isinstance(again, Recommendation):
        by_micro.update({p.micro_batch: p for p in again.pairs})
    return constrained, tuple(by_micro[b] for b in sorted(by_micro))


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=1, max_value=600),
        st.integers(min_value=1, max_value=10**7),
        st.sampled_from([720_720, 2**20, 3**12, 1_000_003, 99_999_989]),
    ),
    st.integers(min_value=1, max_value=64),
    st.decimals(min_value=D("0.001"), max_value=D(200), places=3),
    st.decimals(min_value=D(0), max_value=D(200), places=3),
    st.decimals(min_value=D("0.001"), max_value=D(20), places=3),
    roundings,
)
def test_recommend_with_pairs_equals_the_separate_calls(
    t: int, g: int, c: Decimal, o: Decimal, a: Decimal, rounding: Rounding
) -> None:
    both = recommend_with_pairs(t, g, c, o, a, rounding)
    outcome, pairs = _separate_calls(t, g, c, o, a, rounding)
    assert both.outcome == outcome
    assert both.pairs == pairs


@pytest.mark.parametrize(
    ("t", "g", "c", "o", "a"),
    [
        (512, 8, D(80), D(17), D("0.5")),  # everything fits: the same pairs
        (100, 3, D(80), D(60), D(1)),  # b <= 20 adds 17 and 20
        (64, 1, D(24), D(23), D(2)),  # nothing fits: the unconstrained pairs only
        (1, 1, D(1), D(0), D(1)),
        (10**9, 1, D(100_000), D(0), D("0.001")),
    ],
)
def test_recommend_with_pairs_examples(t: int, g: int, c: Decimal, o: Decimal, a: Decimal) -> None:
    for rounding in Rounding:
        both = recommend_with_pairs(t, g, c, o, a, rounding)
        assert (both.outcome, both.pairs) == _separate_calls(t, g, c, o, a, rounding)
        micro = [p.micro_batch for p in both.pairs]
        assert micro == sorted(set(micro))


def test_recommend_with_pairs_needs_the_memory_figures() -> None:
    with pytest.raises(ValueError):
        recommend_with_pairs(64, 1, D(24), None, D(1))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        recommend_with_pairs(64, 1, None, None, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        recommend_with_pairs(0, 1, D(24), D(1), D(1))


# --------------------------------------------------------------------------- GPUs


def test_gpu_table_loads_and_is_sane() -> None:
    table = load_gpu_table()
    assert "decimal GB" in table.assumption
    ids = {card.id for card in table.cards}
    for expected in ("a100-80gb", "h100-80gb", "h200-141gb", "t4-16gb", "mi300x-192gb"):
        assert expected in ids
    for card in table.cards:
        assert D(0) < card.usable_gb <= card.vendor_gb
        assert card.source
    assert table.by_id("l4-24gb").usable_gb == D(24)
    for card in table.cards:
        perf = card.performance
        assert perf is not None and perf.source
        assert perf.fp32_tflops < perf.fp16_tflops  # tensor cores beat CUDA cores
        assert perf.inter_node_gbps <= perf.link_gbps
        assert D(0) < perf.efficiency <= D(1)
    # no bf16 before Ampere; dense, not "with sparsity", figures
    assert table.by_id("v100-32gb").performance.bf16_tflops is None  # type: ignore[union-attr]
    assert table.by_id("t4-16gb").performance.bf16_tflops is None  # type: ignore[union-attr]
    assert table.by_id("h100-80gb").performance.bf16_tflops == D("989.5")  # type: ignore[union-attr]
    assert table.by_id("a100-80gb").performance.bf16_tflops == D(312)  # type: ignore[union-attr]
    assert custom_card(D("12.5")).is_custom and CUSTOM_ID not in ids


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(version=1),
        lambda d: d.update(version=2),
        lambda d: d.update(version=4),
        lambda d: d["cards"][0].pop("performance"),
        lambda d: d["cards"][0]["performance"].update(link="wifi"),
        lambda d: d["cards"][0]["performance"].update(efficiency="1.5"),
        lambda d: d["cards"][0]["performance"].update(fp16_tflops=None),
        lambda d: d["cards"][0]["performance"].update(bf16_tflops="0"),
        lambda d: d["cards"][0]["performance"].update(memory_bandwidth_gbps="999999"),
        lambda d: d["cards"][0]["performance"].update(extra="1"),
        lambda d: d.update(format="x"),
        lambda d: d["cards"][0].update(usable_gb=1),
        lambda d: d["cards"][0].update(usable_gb="999"),
        lambda d: d["cards"][0].update(id="custom"),
        lambda d: d["cards"][0].pop("source"),
        lambda d: d["cards"].append(dict(d["cards"][0])),
        lambda d: d.update(cards=[]),
    ],
)
def test_gpu_table_rejects_bad_data(mutate) -> None:  # type: ignore[no-untyped-def]
    path = Path(__file__).resolve().parents[2] / "resources" / "data" / "gpus.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    mutate(data)
    with pytest.raises(GpuTableError):
        parse_gpu_table(json.dumps(data).encode())


def test_gpu_table_rejects_garbage() -> None:
    with pytest.raises(GpuTableError):
        parse_gpu_table(b"\xff")
    with pytest.raises(GpuTableError):
        load_gpu_table(Path("/nonexistent/gpus.json"))


# --------------------------------------------------------------------------- other memory


def test_adam_mixed_is_16_bytes_per_param() -> None:
    est = estimate_other_memory(7_000_000_000, Recipe.ADAM_MIXED, overhead_gb=D(0))
    assert est.bytes_per_param == 16
    assert est.states_gb == D(112)
    assert est.total_gb == D(112)


def test_zero_stages_shard_progressively() -> None:
    per = {
        stage: estimate_other_memory(10**9, Recipe.ADAM_MIXED, 8, stage).bytes_per_param
        for stage in ZeroStage
    }
    assert per[ZeroStage.NONE] == 16
    assert per[ZeroStage.OPTIMIZER] == D("5.5")  # 2 + 2 + 12/8
    assert per[ZeroStage.GRADIENTS] == D("3.75")  # 2 + 14/8
    assert per[ZeroStage.WEIGHTS] == 2  # 16/8


def test_recipes() -> None:
    p = 10**9
    assert estimate_other_memory(p, Recipe.ADAM_8BIT).bytes_per_param == 10
    assert estimate_other_memory(p, Recipe.SGD_MOMENTUM).bytes_per_param == 12
    assert estimate_other_memory(p, Recipe.ADAM_FP32).bytes_per_param == 16
    lora = estimate_other_memory(p, Recipe.LORA, trainable_fraction=D("0.01"))
    assert lora.bytes_per_param == D("2.16")  # 2 base + 16 x 1%
    assert lora.total_gb == D("3.16")  # + 1 GB default overhead
    full = estimate_other_memory(p, Recipe.ADAM_MIXED, trainable_fraction=D("0.01"))
    assert full.trainable_fraction == 1  # only LoRA uses the fraction


def test_other_memory_rounds_up_to_a_megabyte() -> None:
    est = estimate_other_memory(1_000_000_001, Recipe.ADAM_MIXED, 3, ZeroStage.WEIGHTS, D(1), D(0))
    assert est.total_gb == D("5.334")  # 5.333333349... rounded up


@pytest.mark.parametrize(
    "kwargs",
    [
        {"parameters": 0},
        {"gpus": 0},
        {"trainable_fraction": D(0)},
        {"trainable_fraction": D("1.5")},
        {"overhead_gb": D(-1)},
    ],
)
def test_other_memory_rejects(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"parameters": 10, "recipe": Recipe.ADAM_MIXED, **kwargs}
    with pytest.raises(ValueError):
        estimate_other_memory(**args)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- tokens, lr


def test_tokens_and_steps() -> None:
    assert tokens_per_step(512, 2048) == 1_048_576
    steps = steps_per_epoch(10_000, 96)
    assert (steps.keep_last, steps.drop_last, steps.remainder) == (105, 104, 16)
    even = steps_per_epoch(960, 96)
    assert (even.keep_last, even.drop_last, even.remainder) == (10, 10, 0)
    assert steps_per_epoch(5, 96).drop_last == 0


def test_lr_scaling() -> None:
    assert lr_linear(D("3e-4"), 512, 256) == D("0.0006")
    assert lr_sqrt(D("1e-4"), 1024, 256) == D("0.0002")
    root2 = lr_sqrt(D("1"), 512, 256)
    assert str(root2).startswith("1.414213562373095048801688724")
    assert len(root2.as_tuple().digits) == 28
    with pytest.raises(ValueError):
        lr_linear(D(0), 1, 1)


def test_unit_note() -> None:
    assert "10⁹" in UNIT_NOTE
