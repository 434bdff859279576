"""How one input field reads, shows and steps its number in the active locale.

The widget (``ui.spinboxes.NumberField``) keeps the text the user typed as the
field's truth and asks this object what it means; all parsing, formatting and
arithmetic for the field happen here and in ``core.numbers``, never in widgets.
"""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QLocale

from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.numbers import NotANumber, format_for_field, parse_number
from gradacc_desktop.viewmodels.formatting import Entry, Unparsed

# The unit symbol every memory field accepts after the number, in every language.
GB = "GB"


class NumberInput:
    """Reading, display and stepping rules of one field (no state but the locale and unit)."""

    def __init__(
        self,
        limits: Limits,
        *,
        step: Decimal = Decimal(1),
        unit: str = "",
        optional: bool = False,
        locale: QLocale | None = None,
    ) -> None:
        self.limits = limits
        self.whole = limits.integer
        self.step = step
        self.unit = unit
        self.optional = optional
        self.locale = locale if locale is not None else QLocale()

    # -- reading ------------------------------------------------------------------
    def units(self) -> tuple[str, ...]:
        return (self.unit, GB) if self.unit else ()

    def read(self, text: str) -> Entry:
        """Empty (``None``), a number, or text that is not one (``Unparsed``)."""
        if not text.strip():
            return None
        try:
            return parse_number(
                text,
                self.locale.decimalPoint(),
                self.locale.groupSeparator(),
                whole=self.whole,
                units=self.units(),
            )
        except NotANumber:
            return Unparsed(text)

    # -- showing --------------------------------------------------------------------
    def show(self, value: Decimal | int | None) -> str:
        """The canonical text of ``value`` (with its unit); "" for no value."""
        if value is None:
            return ""
        text = format_for_field(
            value,
            self.locale.decimalPoint(),
            self.locale.groupSeparator(),
            whole=self.whole,
        )
        text = text.replace("-", self.locale.negativeSign())
        return f"{text} {self.unit}" if self.unit else text

    def show_entry(self, entry: Entry) -> str:
        """What a field shows for what it holds: unreadable text stays as typed."""
        if isinstance(entry, Unparsed):
            return entry.text
        return self.show(entry)

    def canonical(self, text: str) -> str | None:
        """``text`` rewritten in the locale's own form with the same value, or ``None``
        when it is empty or unreadable (then it stays as typed)."""
        entry = self.read(text)
        return self.show(entry) if isinstance(entry, Decimal) else None

    def widest(self) -> str:
        """The longest text a valid value shows (for the field's width)."""
        return self.show(self.limits.maximum)

    # -- stepping (arrow keys, Page Up/Down, the spin buttons) ----------------------
    def stepped(self, text: str, steps: int) -> str | None:
        """The text after ``steps`` steps, or ``None`` when the text cannot be stepped."""
        entry = self.read(text)
        low, high = self.limits.minimum, self.limits.maximum
        if entry is None:
            if steps > 0 and self.optional:
                return self.show(low)
            return None
        if not isinstance(entry, Decimal):
            return None
        if entry < low:  # out of range: the first step lands on the nearest end
            value = low if steps > 0 else entry
        elif entry > high:
            value = high if steps < 0 else entry
        else:
            value = min(max(entry + self.step * steps, low), high)
        if value == entry:
            return None
        return self.show(value)

    def step_enabled(self, text: str) -> tuple[bool, bool]:
        """(up, down) allowed from ``text``."""
        entry = self.read(text)
        if entry is None:
            return self.optional, False
        if not isinstance(entry, Decimal):
            return False, False
        return entry < self.limits.maximum, entry > self.limits.minimum
