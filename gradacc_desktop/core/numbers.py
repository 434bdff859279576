"""Reading a number that a person typed or pasted, exactly, in their language's convention.

One rule for every field of the app, typed or pasted alike (the view-models pass
the active locale's two separators; nothing here knows about Qt):

* Surrounding spaces and a trailing unit of the field (``0,5 GB``) are ignored.
* A separator that appears more than once groups thousands (``1.000.000``,
  ``1,000,000``), in groups of three digits.
* When both ``.`` and ``,`` appear, the last one is the decimal separator and the
  other groups thousands (``1.234,5`` and ``1,234.5`` are both 1234.5).
* The locale's decimal separator alone is a decimal separator (``0,5`` in
  Portuguese, ``0.5`` in English).
* The locale's thousands separator alone:

  - where it is ``.`` (Portuguese), it is read as a decimal point, because people
    paste ``0.25`` from papers and terminals — except in a whole-number field,
    where ``1.024`` (three digits after the point) is 1024;
  - where it is ``,`` (English), it groups thousands when it can (``1,024``) and is
    otherwise a decimal separator (``0,5`` is 0.5, never 5).

* Spaces between digit groups group thousands (``1 000 000``).
* A power of ten may follow (``3e-4``, ``1,5E3``), for learning rates.

Text that does not follow these rules is not a number: the caller keeps it as
typed and says so; it never becomes some other value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

# Longer text is not a number anyone types; refusing it keeps parsing cheap.
MAX_TEXT_LENGTH = 64
# |exponent| accepted after "e": enough for any learning rate or byte count.
MAX_EXPONENT = 30

_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\t": " "})
_MINUS = ("-", "\u2212")
_EXPONENT = re.compile(r"^(?P<mantissa>.*?)[eE](?P<exponent>[+\-\u2212]?\d{1,3})$")
_BODY = re.compile(r"^[0-9., ]+$")


class NotANumber(ValueError):
    """The text cannot be read as a number under the rule above."""


def _valid_groups(integer_part: str, separator: str) -> bool:
    """ "1.234.567" with separator "." : first group 1-3 digits, the others exactly 3."""
    groups = integer_part.split(separator)
    head, tail = groups[0], groups[1:]
    if not head.isdigit() or len(head) > 3 or not tail:
        return False
    if head.startswith("0"):  # "0.500" or "0,500" is never a grouped number
        return False
    return all(len(g) == 3 and g.isdigit() for g in tail)


def _strip_unit(text: str, units: Sequence[str]) -> str:
    lowered = text.lower()
    for unit in units:
        if unit and lowered.endswith(unit.lower()):
            return text[: -len(unit)].rstrip()
    return text


def _decimal_separator(body: str, decimal_point: str, group_separator: str, whole: bool) -> str:
    """Which character of ``body`` is the decimal separator ("" when there is none)."""
    present = [c for c in ".," if c in body]
    if not present:
        return ""
    if len(present) == 2:
        last = "." if body.rfind(".") > body.rfind(",") else ","
        return last
    char = present[0]
    if body.count(char) > 1:
        return ""  # several: they group thousands
    if char == decimal_point or char not in (group_separator, decimal_point):
        return char
    # the locale's thousands separator, once
    head = body.split(char)[0].replace(" ", "")
    can_group = _valid_groups(head + char + body.split(char)[1], char)
    if char == ".":
        return "" if whole and can_group else "."
    return "" if can_group else char


def parse_number(
    text: str,
    decimal_point: str,
    group_separator: str,
    *,
    whole: bool = False,
    units: Sequence[str] = (),
) -> Decimal:
    """Read ``text`` as an exact ``Decimal`` (see the module's rule) or raise ``NotANumber``.

    ``whole`` says the field takes whole numbers (it only changes how a lone
    Portuguese ``.`` before three digits is read); ``units`` are the field's unit
    symbols, accepted after the number.
    """
    if len(text) > MAX_TEXT_LENGTH:
        raise NotANumber(text)
    cleaned = _strip_unit(text.translate(_SPACES).strip(), units)
    negative = False
    if cleaned[:1] in _MINUS:
        negative, cleaned = True, cleaned[1:].lstrip()
    elif cleaned[:1] == "+":
        cleaned = cleaned[1:].lstrip()
    exponent = 0
    match = _EXPONENT.match(cleaned)
    if match is not None:
        cleaned = match["mantissa"].rstrip()
        exponent = int(match["exponent"].replace("\u2212", "-"))
        if abs(exponent) > MAX_EXPONENT:
            raise NotANumber(text)
    if not cleaned or not _BODY.match(cleaned) or not any(c.isdigit() for c in cleaned):
        raise NotANumber(text)
    point = _decimal_separator(cleaned, decimal_point, group_separator, whole)
    integer_part, _, fraction = cleaned.partition(point) if point else (cleaned, "", "")
    if not fraction.isdigit() and fraction:
        raise NotANumber(text)
    # thousands: the other separator, or spaces, between groups of three
    group = ({".", ","} - {point}).pop() if point else ("." if "." in cleaned else ",")
    if group in integer_part or " " in integer_part:
        normalized = integer_part.replace(" ", group)
        if not _valid_groups(normalized, group):
            raise NotANumber(text)
        integer_part = normalized.replace(group, "")
    if integer_part and not integer_part.isdigit():
        raise NotANumber(text)
    digits = (integer_part or "0") + ("." + fraction if fraction else "")
    try:
        value = Decimal(digits).scaleb(exponent)
    except InvalidOperation as exc:  # pragma: no cover - digits are checked above
        raise NotANumber(text) from exc
    return -value if negative and value else value


def format_for_field(
    value: Decimal | int,
    decimal_point: str,
    group_separator: str,
    *,
    whole: bool,
) -> str:
    """The text a field shows for ``value``; ``parse_number`` reads it back to ``value``.

    Whole numbers group thousands with the locale's separator (``1.024``, ``1,024``).
    Decimal numbers do too, except where that separator is ``.``: there a lone
    ``.`` reads as a decimal point, so they group with a no-break space
    (``100 000``) — the SI style, never ambiguous.
    """
    number = Decimal(value)
    if number == number.to_integral_value():
        number = number.quantize(Decimal(1))
    else:
        number = number.normalize()
    text = f"{abs(number):,f}"
    integer_part, _, fraction = text.partition(".")
    group = group_separator if (whole or group_separator != ".") else "\u00a0"
    integer_part = integer_part.replace(",", group)
    sign = "-" if number < 0 else ""
    return sign + integer_part + (decimal_point + fraction if fraction else "")
