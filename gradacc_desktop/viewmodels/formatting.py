"""Locale-aware display and parsing of exact numbers.

``QLocale.toString`` works on 64-bit integers and doubles; the calculator's
results are unbounded integers and exact decimals, so they are grouped here
with the locale's own separators instead. Parsing goes the other way:
locale text -> ``Decimal`` without passing through a float.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from PySide6.QtCore import QLocale

from gradacc_desktop.core.calculator import normalize


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


class ParseError(ValueError):
    pass


def parse_number(locale: QLocale, text: str) -> Decimal:
    """Read a number typed in ``locale`` (group separators allowed) exactly.

    Raises ``ParseError`` for empty or malformed text.
    """
    cleaned = text.strip().replace("\u00a0", "").replace("\u202f", "")
    if not cleaned:
        raise ParseError("empty")
    group, point = _separators(locale)
    _, ok = locale.toDouble(cleaned)
    if not ok:
        raise ParseError(cleaned)
    canonical = cleaned.replace(group, "").replace(point, ".")
    canonical = canonical.replace(locale.negativeSign(), "-").replace(locale.positiveSign(), "")
    try:
        number = Decimal(canonical)
    except InvalidOperation as exc:
        raise ParseError(cleaned) from exc
    if not number.is_finite():
        raise ParseError(cleaned)
    return number
