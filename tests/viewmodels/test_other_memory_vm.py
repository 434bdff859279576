"""Byte and parameter counts of the "other memory" estimate take the right plural form."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.memory import ZeroStage
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.other_memory import MemoryField, OtherMemoryViewModel
from gradacc_desktop.viewmodels.planner import PlanField, PlannerViewModel


def _helper(language: str) -> tuple[PlannerViewModel, OtherMemoryViewModel]:
    planner = PlannerViewModel(CalculatorViewModel(QLocale(language)))
    helper = OtherMemoryViewModel(planner)
    helper.set_zero_stage(ZeroStage.WEIGHTS)  # mixed-precision Adam: 16 bytes, all sharded
    return planner, helper


def _rows(helper: OtherMemoryViewModel) -> dict[str, str]:
    view = helper.state.results
    assert view is not None
    return dict(view.rows)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            {
                "2": ("1 byte", "8 bytes"),
                "3": ("≈ 0.666667 bytes", "≈ 5.33333 bytes"),
                "16": ("0.125 bytes", "1 byte"),
            },
        ),
        (
            "pt_BR",
            {
                "2": ("1 byte", "8 bytes"),
                "3": ("≈ 0,666667 bytes", "≈ 5,33333 bytes"),
                "16": ("0,125 bytes", "1 byte"),
            },
        ),
    ],
)
def test_byte_counts_take_their_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, expected: dict[str, tuple[str, str]]
) -> None:
    catalogue(language)
    planner, helper = _helper(language)
    for gpus, (weights, total) in expected.items():
        planner.set_text(PlanField.GPUS, gpus)
        rows = list(_rows(helper).values())
        assert (rows[0], rows[-1]) == (weights, total), gpus


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "1 parameter × 16 bytes = ", "7,000,000,000 parameters × 16 bytes = 112 GB"),
        ("pt_BR", "1 parâmetro × 16 bytes = ", "7.000.000.000 parâmetros × 16 bytes = 112 GB"),
    ],
)
def test_parameter_count_takes_its_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, one: str, many: str
) -> None:
    catalogue(language)
    _planner, helper = _helper(language)
    helper.set_zero_stage(ZeroStage.NONE)
    helper.set_text(MemoryField.PARAMETERS, "1")
    view = helper.state.results
    assert view is not None and view.states.startswith(one)
    helper.set_text(MemoryField.PARAMETERS, many.split(" ")[0])
    view = helper.state.results
    assert view is not None and view.states == many


def test_set_language_rebuilds_once(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    portuguese = catalogue("pt_BR")
    planner, helper = _helper("pt_BR")
    helper.set_text(MemoryField.OVERHEAD, "1,5")
    number = helper.number_input(MemoryField.OVERHEAD)
    assert helper.number_input(MemoryField.OVERHEAD) is number  # asking changes nothing
    emitted: list[object] = []
    helper.stateChanged.connect(emitted.append)
    portuguese.uninstall()
    catalogue("en")
    planner.set_language(QLocale("en"))
    assert emitted == []  # the helper's words follow its own set_language
    helper.set_language(QLocale("en"))
    assert emitted == [helper.state]
    view = helper.state.results
    assert view is not None
    assert view.total == "Other memory per GPU: 16 GB + 1.5 GB overhead = 17.5 GB"
    assert helper.display_text(MemoryField.OVERHEAD) == "1.5 GB"
    assert number.read("2.5") == Decimal("2.5")


def test_each_recipe_names_its_source_from_the_core(catalogue) -> None:  # type: ignore[no-untyped-def]
    from gradacc_desktop.core.memory import RECIPES, ZERO_SOURCE, Recipe

    catalogue("en")
    _planner, helper = _helper("en")
    for recipe, rule in RECIPES.items():
        assert helper.source(recipe) == rule.source.format(zero=ZERO_SOURCE)
    assert helper.source(Recipe.LORA).endswith(f", {ZERO_SOURCE})")

    catalogue("pt_BR")
    _planner, helper = _helper("pt_BR")
    zero_pt = helper.source(Recipe.ADAM_MIXED)
    assert zero_pt != ZERO_SOURCE and "ZeRO" in zero_pt
    for recipe, rule in RECIPES.items():
        english = rule.source.format(zero=ZERO_SOURCE)
        assert recipe is Recipe.ADAM_MIXED or helper.source(recipe) != english
        assert ("{zero}" in rule.source) == (zero_pt in helper.source(recipe))
