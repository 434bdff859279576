"""What a form's number fields hold: each field's entry (a number, unreadable text or
nothing), its last valid number, and how it reads and shows text in the locale."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from PySide6.QtCore import QLocale

from gradacc_desktop.core.limits import Limits
from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe, problem_of

F = TypeVar("F", bound=enum.Enum)

#: an optional field's (value, problem): (None, None) when it is empty
OptionalValue = tuple[Decimal | None, str | None]


@dataclass(frozen=True)
class FieldRules(Generic[F]):
    """How every field of a form reads: its limits, arrow step, unit and whether it may
    stay empty."""

    limits: Mapping[F, Limits]
    steps: Mapping[F, Decimal]
    gb_fields: frozenset[F]
    optional: frozenset[F]


class Entries(Generic[F]):
    def __init__(
        self,
        fields: Iterable[F],
        rules: FieldRules[F],
        first: Mapping[F, Entry],
        label: Callable[[F], str],
        locale: QLocale,
        unit_gb: str,
    ) -> None:
        """``first``: each field's first entry (absent: empty); ``label``: a field's name
        in messages."""
        self._fields = tuple(fields)
        self._rules = rules
        self._raw: dict[F, Entry] = {f: first.get(f) for f in self._fields}
        self._last_valid = {f: v for f, v in self._raw.items() if isinstance(v, Decimal)}
        self._label = label
        self._numbers = {
            f: NumberInput(
                rules.limits[f],
                step=rules.steps.get(f, Decimal(1)),
                unit=unit_gb if f in rules.gb_fields else "",
                optional=f in rules.optional,
                locale=locale,
            )
            for f in self._fields
        }

    def number_input(self, field: F) -> NumberInput:
        return self._numbers[field]

    def entry(self, field: F) -> Entry:
        return self._raw[field]

    def value(self, field: F) -> Decimal | None:
        """The field's current number, or ``None`` when it is empty or not a number."""
        raw = self._raw[field]
        return raw if isinstance(raw, Decimal) else None

    def accepted(self, field: F) -> Decimal | None:
        """The field's number when the field accepts it, else ``None``."""
        refused = problem_of(self._raw[field], self._numbers[field]) is not None
        return None if refused else self.value(field)

    def problem(self, field: F) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted). The label is
        translated only for a refused entry: every keystroke asks about every field."""
        if problem_of(self._raw[field], self._numbers[field]) is None:
            return None
        return describe(self._label(field), self._raw[field], self._numbers[field])

    def optional_value(self, field: F) -> OptionalValue:
        """(value, problem) of an optional field: (None, None) when it is empty."""
        if self._raw[field] is None:
            return None, None
        problem = self.problem(field)
        return (None, problem) if problem else (self.value(field), None)

    def current_or_last(self, field: F) -> Decimal | None:
        """The field's accepted number, else its last valid one (``None`` for an
        optional field: it has no remembered value)."""
        current = self.accepted(field)
        if current is not None:
            return current
        if field in self._rules.optional:
            return None
        return self._last_valid.get(field)

    def hold(self, field: F, raw: Entry) -> None:
        """Keep ``raw`` as ``field``'s entry; an accepted number is also its last valid one."""
        self._raw[field] = raw
        if isinstance(raw, Decimal) and problem_of(raw, self._numbers[field]) is None:
            self._last_valid[field] = raw

    def set_language(self, locale: QLocale, unit_gb: str) -> None:
        """Read and show numbers in ``locale``, gigabytes with ``unit_gb``."""
        for field, number in self._numbers.items():
            number.locale = locale
            if field in self._rules.gb_fields:
                number.unit = unit_gb
