"""One rule for every typed input: ``core.limits.check``."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.batch.planning import LR_LIMITS, OTHER_MEMORY_LIMITS
from gradacc_desktop.core.calculator import LIMITS, Field
from gradacc_desktop.core.limits import EntryProblem, Limits, check, whole


def test_each_problem_is_named() -> None:
    gb = LIMITS[Field.ACTIVATION_GB]
    assert check(gb, None) is EntryProblem.MISSING
    assert check(gb, "  ") is EntryProblem.MISSING
    assert check(gb, "abc") is EntryProblem.NOT_A_NUMBER
    assert check(gb, "NaN") is EntryProblem.NOT_A_NUMBER
    assert check(gb, True) is EntryProblem.NOT_A_NUMBER
    assert check(whole(1, 10), "2.5") is EntryProblem.NOT_AN_INTEGER
    assert check(gb, "0") is EntryProblem.TOO_SMALL
    assert check(gb, "100000.001") is EntryProblem.TOO_LARGE
    assert check(gb, "1.0005") is EntryProblem.TOO_PRECISE
    assert check(gb, "0.5") is None


def test_decimal_places_come_from_the_limits() -> None:
    # the learning rate takes 8 places, gigabytes 3: one check, two rules
    assert check(LR_LIMITS, Decimal("0.00000003")) is None
    assert check(OTHER_MEMORY_LIMITS, Decimal("0.00000003")) is EntryProblem.TOO_PRECISE
    assert LR_LIMITS.places == 8
    assert OTHER_MEMORY_LIMITS.places == 3
    assert whole(1, 5).places == 0


@given(
    places=st.integers(min_value=0, max_value=10),
    value=st.decimals(min_value=0, max_value=1000, allow_nan=False, places=12),
)
def test_a_value_passes_exactly_when_it_fits_its_places(places: int, value: Decimal) -> None:
    limits = Limits(Decimal(0), Decimal(1000), integer=False, decimals=places)
    fits = value == value.quantize(Decimal(1).scaleb(-places))
    assert (check(limits, value) is None) == fits
