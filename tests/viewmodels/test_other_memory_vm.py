"""Byte and parameter counts of the "other memory" estimate take the right plural form."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.lora import BaseFormat
from gradacc_desktop.core.memory import Recipe, ZeroStage
from gradacc_desktop.core.setup import Offload
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.other_memory import (
    LoraTargets,
    MemoryField,
    OtherMemoryViewModel,
)
from gradacc_desktop.viewmodels.planner import PlanField, PlannerViewModel


def _helper(language: str) -> tuple[PlannerViewModel, OtherMemoryViewModel]:
    planner = PlannerViewModel(CalculatorViewModel(QLocale(language)))
    helper = OtherMemoryViewModel(planner)
    helper.set_zero_stage(ZeroStage.WEIGHTS)  # mixed-precision Adam: 18 bytes, all sharded
    return planner, helper


def _rows(helper: OtherMemoryViewModel) -> list[tuple[str, str, str]]:
    view = helper.state.results
    assert view is not None
    return list(view.rows)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            {
                "2": ("1 byte", "9 bytes"),
                "3": ("≈ 0.666667 bytes", "6 bytes"),
                "16": ("0.125 bytes", "1.125 bytes"),
            },
        ),
        (
            "pt_BR",
            {
                "2": ("1 byte", "9 bytes"),
                "3": ("≈ 0,666667 bytes", "6 bytes"),
                "16": ("0,125 bytes", "1,125 bytes"),
            },
        ),
    ],
)
def test_byte_counts_take_their_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, expected: dict[str, tuple[str, str]]
) -> None:
    """ZeRO-3, no largest layer: 2/N weights and 18/N bytes in all per parameter."""
    catalogue(language)
    planner, helper = _helper(language)
    for gpus, (weights, total) in expected.items():
        planner.set_text(PlanField.GPUS, gpus)
        rows = _rows(helper)
        assert (rows[0][2], rows[-1][2]) == (weights, total), gpus


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "1 parameter: ", "7,000,000,000 parameters: 140 GB of model states on each GPU"),
        (
            "pt_BR",
            "1 parâmetro: ",
            "7.000.000.000 parâmetros: 140 GB de estados do modelo em cada GPU",
        ),
    ],
)
def test_parameter_count_takes_its_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, one: str, many: str
) -> None:
    """No ZeRO: 2 + 2 + 4 + 4 + 8 = 20 bytes per parameter (fp32 gradients counted)."""
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
    # ZeRO-3 on one GPU, 1B parameters: 18 bytes each
    assert view.total == "Other memory per GPU: 18 GB + 1.5 GB overhead = 19.5 GB"
    assert helper.display_text(MemoryField.OVERHEAD) == "1.5 GB"
    assert number.read("2.5") == Decimal("2.5")


def test_llama2_7b_zero2_on_8_gpus_is_deepspeeds_figure(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    planner, helper = _helper("en")
    planner.set_text(PlanField.GPUS, "8")
    helper.set_zero_stage(ZeroStage.GRADIENTS)
    helper.set_text(MemoryField.PARAMETERS, "6738415616")
    view = helper.state.results
    assert view is not None
    # DeepSpeed's estimate_zero2_model_states_mem_needs: 28,638,266,368 bytes
    assert view.estimate.gpu_bytes == 28_638_266_368
    assert view.rows[-1][:2] == ("Model states per GPU", "28.639 GB")
    assert view.total_gb == Decimal("29.639")
    assert view.cpu.startswith("CPU memory per node: 323.444 GB")
    assert "estimate_zero2_model_states_mem_needs" in view.source
    assert [name for name, _gb, _b in view.rows[:-1]] == [
        "Weights",
        "Gradients",
        "fp32 gradients",
        "fp32 master weights",
        "Optimizer states",
    ]
    assert helper.apply()
    assert planner.value(PlanField.OTHER_MEMORY) == Decimal("29.639")


def test_offload_and_the_planner_setup_are_one(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    planner, helper = _helper("en")
    helper.set_zero_stage(ZeroStage.GRADIENTS)
    helper.set_offload(Offload.OPTIMIZER)
    assert planner.offload is Offload.OPTIMIZER and planner.zero_stage is ZeroStage.GRADIENTS
    view = helper.state.results
    assert view is not None
    # ZeRO-2 with the optimizer offloaded: only the 16-bit weights stay on the GPU
    assert view.estimate.gpu_bytes == 2 * 10**9
    assert "Offloaded states" in view.cpu
    helper.set_zero_stage(ZeroStage.NONE)
    assert helper.state.results is None
    assert helper.state.problems == ("CPU offload needs ZeRO stage 1, 2 or 3.",)


def test_qlora_from_a_model_shape(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    _planner, helper = _helper("en")
    helper.set_zero_stage(ZeroStage.NONE)
    helper.set_recipe(Recipe.LORA)
    helper.set_model("llama-3-8b")
    helper.set_lora_targets(LoraTargets.ALL_LINEAR)
    helper.set_text(MemoryField.LORA_RANK, "16")
    assert helper.uses_shape()
    assert helper.display_text(MemoryField.PARAMETERS) == "8,030,261,248"
    sixteen = helper.state.results
    assert sixteen is not None
    assert sixteen.lora.startswith("LoRA trains 41,943,040 of 8,072,204,288 parameters")
    helper.set_base_format(BaseFormat.NF4)
    four = helper.state.results
    assert four is not None
    weights = {name: gb for name, gb, _b in four.rows}["Weights"]
    # NF4 linears (with double quantization) + 16-bit embeddings, head and norms +
    # the 16-bit adapters: 5,702,295,552 + 2 * 41,943,040 bytes
    assert weights == "5.787 GB"
    assert four.estimate.gpu_bytes < sixteen.estimate.gpu_bytes


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
