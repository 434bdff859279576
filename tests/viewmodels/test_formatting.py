from __future__ import annotations

import html
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QLocale

from gradacc_desktop.core.numbers import NotANumber
from gradacc_desktop.core.numbers import parse_number as parse_text
from gradacc_desktop.viewmodels.formatting import escape, format_number

PT = QLocale("pt_BR")
EN = QLocale("en")


def parse_number(locale: QLocale, text: str, *, whole: bool = False) -> Decimal:
    """What a field reads: ``text`` with ``locale``'s separators (as ``NumberInput`` does)."""
    return parse_text(text, locale.decimalPoint(), locale.groupSeparator(), whole=whole)


@pytest.mark.parametrize(
    ("value", "pt", "en"),
    [
        (32, "32", "32"),
        (1_000_000_000, "1.000.000.000", "1,000,000,000"),
        (10**18, "1.000.000.000.000.000.000", "1,000,000,000,000,000,000"),
        (10**30, "1" + ".000" * 10, "1" + ",000" * 10),
        (Decimal("2"), "2", "2"),
        (Decimal("2.000"), "2", "2"),
        (Decimal("0.5"), "0,5", "0.5"),
        (Decimal("0.3"), "0,3", "0.3"),
        (Decimal("1234567.125"), "1.234.567,125", "1,234,567.125"),
        (Decimal("1E+3"), "1.000", "1,000"),
    ],
)
def test_format_groups_per_locale(value: int | Decimal, pt: str, en: str) -> None:
    assert format_number(PT, value) == pt
    assert format_number(EN, value) == en


@pytest.mark.parametrize(
    ("locale", "text", "expected"),
    [
        (PT, "0,5", Decimal("0.5")),
        (PT, "1.000", Decimal(1)),  # a lone period is a decimal point in Portuguese too
        (PT, "1.000.000", Decimal(1_000_000)),
        (PT, " 12 ", Decimal(12)),
        (EN, "0.5", Decimal("0.5")),
        (EN, "1,000,000", Decimal(1_000_000)),
        (EN, "0.1", Decimal("0.1")),
        (PT, "0,1", Decimal("0.1")),
        # more digits than a float holds: 12345678901234567.89 as a float is ...568
        (EN, "12,345,678,901,234,567.89", Decimal("12345678901234567.89")),
        (PT, "12.345.678.901.234.567,89", Decimal("12345678901234567.89")),
    ],
)
def test_parse_reads_locale_text_exactly(locale: QLocale, text: str, expected: Decimal) -> None:
    value = parse_number(locale, text)
    # a Decimal, not a float or an int that only compares equal (0.5 == Decimal("0.5"))
    assert type(value) is Decimal
    assert value == expected


@pytest.mark.parametrize("text", ["", "   ", "abc", "1,2,3x", "--1", "1e5e5"])
def test_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(NotANumber):
        parse_number(PT, text)


@given(st.integers(min_value=0, max_value=10**15))
def test_formatted_counts_read_back_in_whole_number_fields(value: int) -> None:
    # a count copied from the results ("1.024") means the same count in a field
    for locale in (PT, EN):
        assert parse_number(locale, format_number(locale, value), whole=True) == value


@given(st.decimals(min_value=0, max_value=10**12, places=3, allow_nan=False))
def test_english_results_read_back_in_decimal_fields(value: Decimal) -> None:
    assert parse_number(EN, format_number(EN, value)) == value


@given(st.text())
def test_escape_is_what_html_escape_gives(text: str) -> None:
    assert escape(text) == html.escape(text, quote=True)


def test_escape_keeps_markup_out_of_rich_text() -> None:
    assert escape('<b>O\'Brien & "co"</b>') == (
        "&lt;b&gt;O&#x27;Brien &amp; &quot;co&quot;&lt;/b&gt;"
    )
