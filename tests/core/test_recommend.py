"""The pair chooser the plan calls: which pairs it lists and which one it recommends."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.batch import recommend as recommending
from gradacc_desktop.core.batch.planning import Rounding, solve_accumulation
from gradacc_desktop.core.batch.recommend import (
    PlanPair,
    Suggestion,
    choose_pairs,
    nothing_fits_suggestions,
)

roundings = st.sampled_from(list(Rounding))


def test_exact_pair_with_a_limit() -> None:
    choice = choose_pairs(512, 8, largest_fit=33)
    assert choice.recommended == PlanPair(32, 2, 512, 0, True)
    assert choice.largest_useful == 33
    # the pairs without the limit are listed too: 64 samples reach 512 in one step
    assert choice.pairs[-1] == PlanPair(64, 1, 512, 0, True)


def test_inexact_prefers_the_closest_not_the_largest() -> None:
    ceil = choose_pairs(100, 3, largest_fit=20)
    assert ceil.recommended == PlanPair(17, 2, 102, 2, False)  # not 20 x 2 x 3 = 120
    floor = choose_pairs(100, 3, Rounding.FLOOR, largest_fit=20)
    assert floor.recommended == PlanPair(11, 3, 99, -1, False)


def test_without_memory_every_micro_batch_fits() -> None:
    choice = choose_pairs(1024, 4)
    assert choice.largest_fit is None
    assert choice.recommended == PlanPair(256, 1, 1024, 0, True)


def test_nothing_fits_lists_the_pairs_and_recommends_none() -> None:
    choice = choose_pairs(64, 1, largest_fit=0)
    assert choice.recommended is None and choice.largest_useful == 0
    assert [p.micro_batch for p in choice.pairs] == [1, 2, 4, 8, 16, 32, 64]


def test_floor_below_the_gpu_count_is_unreachable() -> None:
    choice = choose_pairs(3, 4, Rounding.FLOOR)
    assert choice.floor_unreachable
    assert choice.recommended == PlanPair(1, 1, 4, 1, False)
    assert not choose_pairs(3, 4).floor_unreachable


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": 0, "gpus": 1}, "target"),
        ({"target": 8, "gpus": 0}, "gpus"),
        ({"target": 8, "gpus": 1, "largest_fit": -1}, "largest_fit"),
        ({"target": 8, "gpus": 1, "largest_fit": True}, "largest_fit"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        choose_pairs(**kwargs)  # type: ignore[arg-type]


def test_the_suggestions_follow_what_is_too_big() -> None:
    assert nothing_fits_suggestions(True)[0] is Suggestion.ZERO_SHARDING
    assert nothing_fits_suggestions(False)[0] is Suggestion.ACTIVATION_RECOMPUTATION


def test_a_billion_builds_few_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """No walk over every micro-batch up to T/g: the work is counted in pairs built."""
    built: list[int] = []
    make_pair = recommending._pair

    def counted(target: int, micro_batch: int, gpus: int, rounding: Rounding) -> PlanPair:
        built.append(micro_batch)
        return make_pair(target, micro_batch, gpus, rounding)

    monkeypatch.setattr(recommending, "_pair", counted)

    # A prime target that g does not divide: no exact pair, the closest one is searched
    # at the ends of the blocks of b that share one accumulation count.
    t, g = 999_999_937, 7
    q, r = divmod(t, g)
    best = {
        Rounding.CEIL: PlanPair(q + 1, 1, g * (q + 1), g - r, False),
        Rounding.FLOOR: PlanPair(q, 1, g * q, -r, False),
        Rounding.NEAREST: PlanPair(q + 1, 1, g * (q + 1), g - r, False),  # 1 above, 6 below
    }
    for rounding in Rounding:
        built.clear()
        assert choose_pairs(t, g, rounding).recommended == best[rounding]
        assert 0 < len(built) <= 4 * math.isqrt(t // g)

    # A highly composite target under a limit: the largest fitting divisor is exact and
    # only listed pairs are built.
    t, largest_fit = 735_134_400, 182_000
    exact = max(b for b in range(1, largest_fit + 1) if t % b == 0)
    for rounding in Rounding:
        built.clear()
        choice = choose_pairs(t, 1, rounding, largest_fit)
        assert choice.recommended == PlanPair(exact, t // exact, t, 0, True)
        assert sorted(set(built)) == [p.micro_batch for p in choice.pairs]
        assert len(choice.pairs) < 2_000


@settings(max_examples=300)
@given(
    st.integers(min_value=1, max_value=600),
    st.integers(min_value=1, max_value=8),
    st.one_of(st.none(), st.integers(min_value=0, max_value=700)),
    roundings,
)
def test_the_choice_is_the_best_fitting_pair(
    t: int, g: int, largest_fit: int | None, rounding: Rounding
) -> None:
    """Brute force over every micro-batch that fits and is useful."""
    choice = choose_pairs(t, g, rounding, largest_fit)
    micro = [p.micro_batch for p in choice.pairs]
    assert micro == sorted(set(micro))
    for pair in choice.pairs:
        plan = solve_accumulation(t, pair.micro_batch, g, rounding)
        assert (pair.accumulation_steps, pair.effective_batch) == (
            plan.accumulation_steps,
            plan.effective_batch,
        )
    if largest_fit == 0:
        assert choice.recommended is None
        return
    pick = choice.recommended
    assert pick is not None and pick in choice.pairs
    assert largest_fit is None or pick.micro_batch <= largest_fit
    useful = range(1, choice.largest_useful + 1)
    exact = [b for b in useful if t % (b * g) == 0]
    if exact:
        assert pick.exact and pick.micro_batch == max(exact)
        return
    best = min(abs(solve_accumulation(t, b, g, rounding).difference) for b in useful)
    assert abs(pick.difference) == best
    if rounding is Rounding.CEIL:
        assert pick.difference >= 0
    if rounding is Rounding.FLOOR and t >= g:
        assert pick.difference <= 0
