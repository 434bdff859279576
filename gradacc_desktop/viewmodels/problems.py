"""Why a field's entry is refused, in the interface language.

The core decides (``core.limits.check``); this module only puts the decision
into words, the same words for every field of every tab and dialog.
"""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.limits import EntryProblem, check
from gradacc_desktop.viewmodels.formatting import Entry, Unparsed, format_number
from gradacc_desktop.viewmodels.number_input import NumberInput


def problem_of(entry: Entry, number: NumberInput) -> EntryProblem | None:
    """The core's objection to ``entry`` under the field's limits (``None``: accepted)."""
    if isinstance(entry, Unparsed):
        return EntryProblem.NOT_A_NUMBER
    return check(number.limits, entry)


def describe(label: str, entry: Entry, number: NumberInput) -> str | None:
    """One line naming the field and what to do, or ``None`` when ``entry`` is accepted."""
    problem = problem_of(entry, number)
    if problem is None:
        return None
    if problem is EntryProblem.NOT_A_NUMBER:
        text = entry.text if isinstance(entry, Unparsed) else str(entry)
        return QCoreApplication.translate("Problems", "{field}: “{text}” is not a number.").format(
            field=label, text=text
        )
    if problem is EntryProblem.MISSING:
        return QCoreApplication.translate("Problems", "{field}: enter a value.").format(field=label)
    if problem is EntryProblem.NOT_AN_INTEGER:
        return QCoreApplication.translate("Problems", "{field}: enter a whole number.").format(
            field=label
        )
    if problem is EntryProblem.TOO_PRECISE:
        return QCoreApplication.translate(
            "Problems", "{field}: use at most {decimals} decimal places."
        ).format(field=label, decimals=number.limits.places)
    return out_of_range(label, number)


def out_of_range(label: str, number: NumberInput) -> str:
    """The field's accepted range, as a request."""
    limits = number.limits

    def shown(value: Decimal) -> str:
        return format_number(number.locale, value)

    return QCoreApplication.translate(
        "Problems", "{field}: enter a value from {minimum} to {maximum}."
    ).format(field=label, minimum=shown(limits.minimum), maximum=shown(limits.maximum))
