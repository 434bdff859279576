"""Every field of every tab words a refused entry the same way, from the core's rule."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.batch.planning import LR_LIMITS, OTHER_MEMORY_LIMITS
from gradacc_desktop.core.limits import whole
from gradacc_desktop.viewmodels.formatting import Unparsed
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Learning rate: use at most 8 decimal places."),
        ("pt_BR", "Learning rate: use no máximo 8 casas decimais."),
    ],
)
def test_the_places_in_the_message_are_the_fields_own(catalogue, language, expected) -> None:  # type: ignore[no-untyped-def]
    catalogue(language)
    number = NumberInput(LR_LIMITS, locale=QLocale(language))
    assert describe("Learning rate", Decimal("0.000000011"), number) == expected


def test_gigabytes_say_three_places(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    number = NumberInput(OTHER_MEMORY_LIMITS, locale=QLocale("en"))
    assert describe("Other", Decimal("0.0001"), number) == "Other: use at most 3 decimal places."


def test_each_problem_in_portuguese(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    number = NumberInput(whole(1, 1_000_000), locale=QLocale("pt_BR"))
    assert describe("GPUs", Decimal(4), number) is None
    assert describe("GPUs", None, number) == "GPUs: insira um valor."
    assert describe("GPUs", Unparsed("x1"), number) == "GPUs: “x1” não é um número."
    assert describe("GPUs", Decimal("2.5"), number) == "GPUs: insira um número inteiro."
    assert describe("GPUs", Decimal(0), number) == "GPUs: insira um valor de 1 a 1.000.000."
