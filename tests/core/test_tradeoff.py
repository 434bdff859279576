from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.batch.tradeoff import axis_scales, tradeoff


def test_seed_configuration() -> None:
    t = tradeoff(4, 8, 1, Decimal("0.5"), available_gb=Decimal(10))
    assert t.current.effective_batch == 32
    assert t.current.activation_gb == Decimal(2)
    # growing the micro-batch: memory rises linearly with the batch
    assert t.no_accumulation[0].effective_batch == 1
    assert t.no_accumulation[0].activation_gb == Decimal("0.5")
    assert {p.activation_gb for p in t.accumulation} == {Decimal(2)}
    # accumulating: batch steps by b·g = 4
    assert [p.effective_batch for p in t.accumulation[:3]] == [4, 8, 12]
    assert t.available_gb == Decimal(10)
    assert t.max_effective_batch >= 64
    assert t.without_accumulation_gb == Decimal(16)


@given(
    st.integers(1, 10_000),
    st.integers(1, 10_000),
    st.integers(1, 1_000),
    st.decimals(Decimal("0.001"), Decimal(1000), places=3),
    st.integers(2, 200),
)
def test_curves_are_light_exact_and_consistent(
    b: int, a: int, g: int, act: Decimal, points: int
) -> None:
    t = tradeoff(b, a, g, act, points=points)
    assert 1 <= len(t.no_accumulation) <= points + 1
    assert 1 <= len(t.accumulation) <= points + 1
    for p in t.no_accumulation:
        assert p.activation_gb * g == act * p.effective_batch  # M = b'·A with E = b'·g
    assert all(p.activation_gb == b * act for p in t.accumulation)
    assert t.current.effective_batch == b * a * g
    xs = [p.effective_batch for p in t.no_accumulation]
    assert xs == sorted(set(xs))
    assert max(xs) <= t.max_effective_batch


def test_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        tradeoff(0, 1, 1, Decimal(1))
    with pytest.raises(ValueError):
        tradeoff(1, 1, 1, Decimal(0))


def test_comparison_puts_both_ways_side_by_side() -> None:
    t = tradeoff(4, 8, 2, Decimal("0.5"))
    first = t.comparison[0]
    assert (first.effective_batch, first.no_accumulation_gb, first.accumulation_gb) == (
        8,
        Decimal(2),
        Decimal(2),
    )
    row = next(c for c in t.comparison if c.effective_batch == 64)
    assert row.no_accumulation_gb == Decimal(16)  # b' = 64 / 2 = 32 samples of 0.5 GB
    assert row.accumulation_gb == Decimal(2)
    assert [c.effective_batch for c in t.comparison] == [p.effective_batch for p in t.accumulation]


def test_axis_scales_densest_first_with_round_steps() -> None:
    scales = list(axis_scales(Decimal(64), 10, integer=True))
    assert [(s.step, s.intervals, s.top) for s in scales] == [
        (Decimal(10), 7, Decimal(70)),
        (Decimal(20), 4, Decimal(80)),
        (Decimal(50), 2, Decimal(100)),
        (Decimal(100), 1, Decimal(100)),
    ]
    small = next(axis_scales(Decimal("0.0023"), 8))
    assert (small.step, small.intervals, small.decimals) == (Decimal("0.0005"), 5, 4)
    assert small.ticks()[:3] == (Decimal(0), Decimal("0.0005"), Decimal("0.001"))
    # an integer axis never steps by less than 1
    assert next(axis_scales(Decimal(2), 10, integer=True)).step == 1


@given(
    st.decimals(Decimal("0.001"), Decimal(10**19), places=3),
    st.integers(1, 12),
    st.booleans(),
)
def test_axis_scales_cover_the_range(maximum: Decimal, max_intervals: int, integer: bool) -> None:
    scales = list(axis_scales(maximum, max_intervals, integer))
    assert scales[-1].intervals == 1
    for scale in scales:
        assert scale.top >= maximum
        assert scale.top - scale.step < maximum  # no empty interval at the top
        assert scale.intervals <= max_intervals
        assert scale.step.normalize().as_tuple().digits[0] in (1, 2, 5)
        assert not integer or scale.step == scale.step.to_integral_value()
    steps = [s.step for s in scales]
    assert steps == sorted(steps)


def test_axis_scales_reject_nonsense() -> None:
    with pytest.raises(ValueError):
        next(axis_scales(Decimal(0), 5))
