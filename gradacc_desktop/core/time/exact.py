"""Sums of exact fractions that skip the zero terms: every ``Fraction`` operation costs a
gcd, and a planner refresh adds up hundreds of micro-steps whose parts are mostly zero
(no experts, no pipeline, no ring attention)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

ZERO = Fraction(0)


def linear_in(pair: tuple[Fraction, Fraction], b: int) -> Fraction:
    """``c + b · k`` of ``pair = (c, k)``, without arithmetic on zero terms."""
    c, k = pair
    if not k:
        return c
    return c + b * k if c else b * k


def nonzero_sum(values: Iterable[Fraction]) -> Fraction:
    """The sum of ``values``, adding only those that are not zero."""
    total = ZERO
    for value in values:
        if value:
            total = total + value if total else value
    return total
