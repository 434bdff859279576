"""What the planner's fields hold: each field's entry (a number, unreadable text or
nothing), its last valid number, and how it reads and shows text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal

from PySide6.QtCore import QLocale

from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner.extras import OptionalValue
from gradacc_desktop.viewmodels.planner.fields import (
    FIELD_LIMITS,
    FIELD_STEPS,
    GB_FIELDS,
    OPTIONAL_FIELDS,
    PlanField,
)
from gradacc_desktop.viewmodels.problems import describe, problem_of


class PlanEntries:
    def __init__(
        self,
        first: Mapping[PlanField, Entry],
        last_valid: Mapping[PlanField, Decimal],
        label: Callable[[PlanField], str],
        locale: QLocale,
        unit_gb: str,
    ) -> None:
        """``first``: every field's entry; ``last_valid``: where ``first`` holds no
        number; ``label``: a field's name in messages."""
        self._raw = dict(first)
        self._last_valid = {f: v for f, v in first.items() if isinstance(v, Decimal)}
        self._last_valid.update((f, v) for f, v in last_valid.items() if f not in self._last_valid)
        self._label = label
        self._numbers = {
            f: NumberInput(
                FIELD_LIMITS[f],
                step=FIELD_STEPS.get(f, Decimal(1)),
                unit=unit_gb if f in GB_FIELDS else "",
                optional=f in OPTIONAL_FIELDS,
                locale=locale,
            )
            for f in PlanField
        }

    def number_input(self, field: PlanField) -> NumberInput:
        return self._numbers[field]

    def entry(self, field: PlanField) -> Entry:
        return self._raw[field]

    def value(self, field: PlanField) -> Decimal | None:
        """The field's current number, or ``None`` when it is empty or not a number."""
        raw = self._raw[field]
        return raw if isinstance(raw, Decimal) else None

    def number(self, field: PlanField) -> Decimal:
        """The number of a field known to hold one."""
        value = self.value(field)
        assert value is not None
        return value

    def last_valid(self, field: PlanField) -> Decimal | None:
        return self._last_valid.get(field)

    def problem(self, field: PlanField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self._label(field), self._raw[field], self._numbers[field])

    def optional_value(self, field: PlanField) -> OptionalValue:
        """(value, problem) of an optional field: (None, None) when it is empty."""
        if self._raw[field] is None:
            return None, None
        problem = self.problem(field)
        return (None, problem) if problem else (self.value(field), None)

    def current_or_last(self, field: PlanField) -> Decimal | None:
        """The field's accepted number, else its last valid one (``None`` for an
        optional field: it has no remembered value)."""
        current = self.value(field)
        if current is not None and self.problem(field) is None:
            return current
        if field in OPTIONAL_FIELDS:
            return None
        return self._last_valid.get(field)

    def hold(self, field: PlanField, raw: Entry) -> None:
        """Keep ``raw`` as ``field``'s entry; an accepted number is also its last valid one."""
        self._raw[field] = raw
        if isinstance(raw, Decimal) and problem_of(raw, self._numbers[field]) is None:
            self._last_valid[field] = raw

    def set_language(self, locale: QLocale, unit_gb: str) -> None:
        """Read and show numbers in ``locale``, gigabytes with ``unit_gb``."""
        for field, number in self._numbers.items():
            number.locale = locale
            if field in GB_FIELDS:
                number.unit = unit_gb
