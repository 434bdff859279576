"""What every typed input accepts, and why a value is refused — one rule for the app.

Each input has ``Limits``: a range, whole numbers or not, and how many decimal
places a non-integer may have. ``check`` names the first ``EntryProblem`` of a value;
the view-models only translate it into words. Nothing here knows about Qt.
"""

from __future__ import annotations

import enum
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

# Decimal places a non-integer input accepts unless its limits say otherwise (GB to the MB).
DEFAULT_DECIMALS = 3


class Limits(NamedTuple):
    minimum: Decimal
    maximum: Decimal
    integer: bool
    # places after the decimal point a non-integer value may have
    decimals: int = DEFAULT_DECIMALS

    @property
    def places(self) -> int:
        """Decimal places accepted: 0 for whole numbers."""
        return 0 if self.integer else self.decimals

    @property
    def quantum(self) -> Decimal:
        """The smallest step a value may take (1, 0.001, 1e-8)."""
        return Decimal(1).scaleb(-self.places)


def whole(minimum: int, maximum: int) -> Limits:
    """Limits of a whole-number input."""
    return Limits(Decimal(minimum), Decimal(maximum), integer=True)


class EntryProblem(enum.Enum):
    MISSING = "missing"
    NOT_A_NUMBER = "not_a_number"
    NOT_AN_INTEGER = "not_an_integer"
    TOO_SMALL = "too_small"
    TOO_LARGE = "too_large"
    TOO_PRECISE = "too_precise"


def check(limits: Limits, value: int | Decimal | str | None) -> EntryProblem | None:
    """The first problem of ``value`` under ``limits``, or ``None`` when it is accepted.

    Strings are read in the C locale ("0.5"); the view-models parse localized text
    (``core.numbers``) and pass a ``Decimal``.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return EntryProblem.MISSING
    if isinstance(value, bool):
        return EntryProblem.NOT_A_NUMBER
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except InvalidOperation:
        return EntryProblem.NOT_A_NUMBER
    if not number.is_finite():
        return EntryProblem.NOT_A_NUMBER
    if limits.integer and number != number.to_integral_value():
        return EntryProblem.NOT_AN_INTEGER
    if number < limits.minimum:
        return EntryProblem.TOO_SMALL
    if number > limits.maximum:
        return EntryProblem.TOO_LARGE
    if not limits.integer and number.quantize(limits.quantum) != number:
        return EntryProblem.TOO_PRECISE
    return None


def require_positive_int(name: str, value: int) -> None:
    """Raise ``ValueError`` unless ``value`` is an integer >= 1 (a bool is not)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
