"""One reading of a number, typed or pasted, in Portuguese and English."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.numbers import NotANumber, format_for_field, parse_number

PT = (",", ".")  # decimal point, thousands separator
EN = (".", ",")


def pt(text: str, whole: bool = False) -> Decimal:
    return parse_number(text, *PT, whole=whole, units=("GB",))


def en(text: str, whole: bool = False) -> Decimal:
    return parse_number(text, *EN, whole=whole, units=("GB",))


@pytest.mark.parametrize(
    ("text", "whole", "expected"),
    [
        ("0,5", False, "0.5"),
        ("0.25", False, "0.25"),  # pasted from a paper or a terminal
        ("0.5", False, "0.5"),
        ("1.234,5", False, "1234.5"),
        ("1,234.5", False, "1234.5"),  # both separators: the last one is the decimal point
        ("1.000.000", True, "1000000"),
        ("1.000.000", False, "1000000"),
        ("1.024", True, "1024"),  # a whole-number field: the period groups thousands
        ("1.024", False, "1.024"),  # a decimal field: a lone period is a decimal point
        ("1.5", True, "1.5"),  # refused later as "not a whole number", never 15
        ("1,000,000", True, "1000000"),
        ("  0,5 GB  ", False, "0.5"),
        ("0,5GB", False, "0.5"),
        ("0,5 gb", False, "0.5"),
        ("100\u00a0000", False, "100000"),
        ("1 000", True, "1000"),
        ("5,", False, "5"),
        (",5", False, "0.5"),
        ("3e-4", False, "0.0003"),
        ("1,5E3", False, "1500"),
        ("-1", True, "-1"),
        ("\u22122", True, "-2"),
        ("+7", True, "7"),
    ],
)
def test_portuguese(text: str, whole: bool, expected: str) -> None:
    assert pt(text, whole) == Decimal(expected)


@pytest.mark.parametrize(
    ("text", "whole", "expected"),
    [
        ("0.5", False, "0.5"),
        ("0,5", False, "0.5"),  # never 5
        ("2,75", False, "2.75"),
        ("0,500", False, "0.5"),  # "0,500" cannot be a grouped number
        ("1,024", True, "1024"),
        ("1,024", False, "1024"),
        ("1,234.5", False, "1234.5"),
        ("1.234,5", False, "1234.5"),
        ("1,000,000", True, "1000000"),
        ("0.5 GB", False, "0.5"),
    ],
)
def test_english(text: str, whole: bool, expected: str) -> None:
    assert en(text, whole) == Decimal(expected)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "abc",
        "GB",
        "1,2,3",
        "1.2.3",
        "12.34.567",
        "1.234.5,6,7",
        "1,2.3,4",
        "1e999",
        "--1",
        "0x10",
        "1 0",
        "½",
        "1" * 65,
        "0,5 GiB",  # GiB is not GB: refused, not silently read
    ],
)
def test_unreadable_text_is_refused(text: str) -> None:
    with pytest.raises(NotANumber):
        pt(text)
    with pytest.raises(NotANumber):
        en(text)


decimals = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(10**13), places=3)
wholes = st.integers(min_value=0, max_value=10**13)


@given(decimals)
def test_a_decimal_field_reads_back_what_it_shows(value: Decimal) -> None:
    for point, group in (PT, EN):
        text = format_for_field(value, point, group, whole=False)
        assert parse_number(text, point, group) == value
        assert parse_number(f" {text} GB ", point, group, units=("GB",)) == value


@given(wholes)
def test_a_whole_number_field_reads_back_what_it_shows(value: int) -> None:
    for point, group in (PT, EN):
        text = format_for_field(value, point, group, whole=True)
        assert parse_number(text, point, group, whole=True) == value


def test_shown_forms() -> None:
    assert format_for_field(1024, *PT, whole=True) == "1.024"
    assert format_for_field(1024, *EN, whole=True) == "1,024"
    assert format_for_field(Decimal("100000"), *PT, whole=False) == "100\u00a0000"
    assert format_for_field(Decimal("1234.5"), *EN, whole=False) == "1,234.5"
    assert format_for_field(Decimal("0.50"), *PT, whole=False) == "0,5"
