from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.tradeoff import tradeoff


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
