from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.calculator import DEFAULTS, BatchInputs, Field
from gradacc_desktop.viewmodels.calculator import CalculatorState, CalculatorViewModel


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _vm(locale: str = "en") -> CalculatorViewModel:
    return CalculatorViewModel(QLocale(locale))


def test_defaults_give_the_seed_example(qapp) -> None:  # type: ignore[no-untyped-def]
    view = _vm().state.results
    assert view is not None
    assert view.effective_batch == "32"
    assert view.effective_formula == "E = 4 × 8 × 1 = 32"
    assert view.activation == "2 GB"
    assert view.activation_formula == "M = 4 × 0.5 GB = 2 GB"
    assert view.samples_per_gpu == "32 = 4 × 8"
    assert view.result.effective_batch == 32


def test_each_edit_emits_a_typed_state(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    with qtbot.waitSignal(vm.stateChanged) as blocker:
        vm.set_text(Field.GPUS, "4")
    state = blocker.args[0]
    assert isinstance(state, CalculatorState)
    assert state.results is not None
    assert state.results.effective_batch == "128"
    assert state.results.activation == "2 GB"


def test_same_value_emits_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    with qtbot.assertNotEmitted(vm.stateChanged):
        vm.set_text(Field.MICRO_BATCH, "4")


def test_empty_field_is_the_no_result_state(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_text(Field.ACCUMULATION_STEPS, "")
    state = vm.state
    assert state.results is None
    assert state.prompt == "Enter a value to see the results."
    assert state.problems == ("Accumulation steps: enter a value.",)
    assert vm.inputs is None
    assert vm.clipboard_text() is None
    # the last valid value is kept for saving
    assert vm.last_valid_inputs == DEFAULTS


def test_problems_name_the_field(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_text(Field.MICRO_BATCH, "0")
    vm.set_text(Field.ACTIVATION_GB, "x")
    assert vm.state.problems == (
        "Micro-batch size: enter a value from 1 to 1,000,000.",
        "Activation per sample: “x” is not a number.",
    )
    vm.set_text(Field.MICRO_BATCH, "2")
    vm.set_text(Field.ACTIVATION_GB, "0.25")
    assert vm.state.results is not None
    assert vm.state.results.activation_formula == "M = 2 × 0.25 GB = 0.5 GB"


def test_portuguese_formatting(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("pt_BR")
    vm.set_text(Field.MICRO_BATCH, "1.000.000")
    vm.set_text(Field.ACCUMULATION_STEPS, "1.000")
    vm.set_text(Field.GPUS, "1.000")
    vm.set_text(Field.ACTIVATION_GB, "0,1")
    view = vm.state.results
    assert view is not None
    assert view.effective_batch == "1.000.000.000.000"
    assert view.activation == "100.000 GB"
    assert view.activation_formula == "M = 1.000.000 × 0,1 GB = 100.000 GB"


def test_locale_switch_rerenders_without_losing_values(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("pt_BR")
    vm.set_text(Field.MICRO_BATCH, "1.000")
    states: list[CalculatorState] = []
    vm.stateChanged.connect(states.append)
    vm.set_language(QLocale("en"))
    assert len(states) == 1  # one new state per switch, not one per concern
    assert vm.state.results is not None
    assert vm.state.results.effective_batch == "8,000"


def test_set_inputs_announces_replacement(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    new = BatchInputs(2, 3, 4, Decimal("1.5"))
    with qtbot.waitSignal(vm.inputsReplaced) as blocker:
        vm.set_inputs(new)
    assert blocker.args == [new]
    assert vm.inputs == new
    vm.restore_defaults()
    assert vm.inputs == DEFAULTS


def test_clipboard_text_and_html(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    text = vm.clipboard_text()
    assert text is not None
    assert text.splitlines() == [
        "Gradient Accumulation Memory Calculator",
        "",
        "Micro-batch size: 4",
        "Accumulation steps: 8",
        "Data-parallel GPUs: 1",
        "Activation per sample: 0.5 GB",
        "Effective batch size: E = 4 × 8 × 1 = 32",
        "Peak activation memory per GPU: M = 4 × 0.5 GB = 2 GB",
        "Samples per GPU per optimizer step (b × a): 32 = 4 × 8",
    ]
    html = vm.clipboard_html()
    assert html is not None
    assert html.startswith("<table>")
    assert "<th align='left'>Effective batch size</th>" in html
    assert "E = 4 × 8 × 1 = 32" in html


def test_plural_count_is_locale_formatted_beyond_32_bits(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    from gradacc_desktop.viewmodels.details import DetailsContent

    content = DetailsContent(vm)

    def gpus(n: int) -> str:
        return vm.counted(lambda k: content.tr("on %n GPU(s)", "", k), n)

    assert gpus(1) == "on a single GPU"
    assert gpus(3) == "on 3 GPUs"
    assert gpus(1_000_000) == "on 1,000,000 GPUs"
    assert gpus(10**18) == "on 1,000,000,000,000,000,000 GPUs"
