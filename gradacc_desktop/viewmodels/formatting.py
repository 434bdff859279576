"""Locale-aware display and parsing of exact numbers.

``QLocale.toString`` works on 64-bit integers and doubles; the calculator's
results are unbounded integers and exact decimals, so they are grouped here
with the locale's own separators instead. Parsing goes the other way:
locale text -> ``Decimal`` without passing through a float (``core.numbers``, through
``NumberInput``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import NamedTuple

from PySide6.QtCore import QCoreApplication, QLocale

from gradacc_desktop.core.calculator import normalize

# What html.escape(text, quote=True) replaces, without loading the html package (and its
# table of entities) before the first window is painted.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text: str) -> str:
    """``text`` safe inside Qt rich text (as ``html.escape`` makes it)."""
    return text.translate(_ESCAPES)


class Translating:
    """``self.tr`` for a plain (non-``QObject``) text builder: the context is the name
    of the class the string is written in, as lupdate files it, so a builder that
    writes strings is never subclassed."""

    def tr(self, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        return QCoreApplication.translate(type(self).__name__, source, disambiguation, n)


def _separators(locale: QLocale) -> tuple[str, str]:
    return locale.groupSeparator(), locale.decimalPoint()


def format_number(locale: QLocale, value: int | Decimal) -> str:
    """Group digits and use the locale's decimal point: 1234567.5 -> "1.234.567,5" (pt-BR)."""
    group, point = _separators(locale)
    if isinstance(value, Decimal):
        value = normalize(value)
        text = f"{value:,f}"
    else:
        text = f"{value:,d}"
    text = text.replace(",", "\0").replace(".", point).replace("\0", group)
    return text.replace("-", locale.negativeSign())


# Qt's ``%n`` is a 32-bit int.
_QT_MAX_COUNT = 2**31 - 1


def format_counted(locale: QLocale, translate: Callable[[int], str], count: int) -> str:
    """Translate a ``%n`` plural message for any ``count`` and locale-format the number.

    Qt's ``n`` is a 32-bit int and writes ``%n`` as plain digits; larger
    counts select the plural form with the largest int (same form in every
    language the app ships) and the number is then written in full, grouped
    for the locale. Source strings put ``%n`` before any other digit.
    """
    selector = min(count, _QT_MAX_COUNT)
    return translate(selector).replace(str(selector), format_number(locale, count), 1)


def round_significant(value: Decimal, digits: int) -> Decimal:
    """``value`` with at most ``digits`` significant digits after the point (display only).

    Whole parts are never rounded: 123456.789 with 3 digits stays 123457.
    """
    if value == 0 or not value.is_finite():
        return value
    exponent = min(value.adjusted() - digits + 1, 0)
    with localcontext() as ctx:
        ctx.prec = max(value.adjusted() + 1, 0) + digits + 2
        return normalize(value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_EVEN))


def format_approx(locale: QLocale, value: Decimal, digits: int = 6) -> str:
    """Like ``format_number`` but rounded to ``digits`` significant digits, with "≈" if rounded."""
    rounded = round_significant(value, digits)
    text = format_number(locale, rounded)
    return text if rounded == value else f"≈ {text}"


def column_widths(rows: Sequence[Sequence[str]]) -> list[int]:
    """The width of each column of a plain-text table (the longest cell)."""
    return [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]


def align_row(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool], gap: str) -> str:
    """One row of a plain-text table: each cell padded to its column, left or right."""
    return gap.join(
        cell.rjust(width) if to_right else cell.ljust(width)
        for cell, width, to_right in zip(cells, widths, right, strict=True)
    )


class Unparsed(NamedTuple):
    """Text that is not a number in the active locale, kept to name it in a message."""

    text: str


# What an input field holds: a number, text that is not one, or nothing.
Entry = Decimal | Unparsed | None


def same_entry(old: Entry, new: Entry) -> bool:
    """Whether a field's entry is unchanged: 2 and 2.0 are the same value (the core
    normalises), text is compared as text, empty is empty."""
    if isinstance(old, Decimal) and isinstance(new, Decimal):
        return old == new
    return old == new and type(old) is type(new)
