from __future__ import annotations

from decimal import Decimal

from PySide6.QtWidgets import QApplication, QDialogButtonBox

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import TrainingField
from tests.planner_setup import described as describe
from tests.ui.helpers import box, described, menus_of, shown, type_into


def test_portuguese_on_first_start(window: MainWindow) -> None:
    assert window.language.language == "pt_BR"
    assert window.menus.language_actions["pt_BR"].isChecked()
    assert not window.menus.language_actions["en"].isChecked()


def test_switch_to_english_is_instant_and_keeps_inputs(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "1000")
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "0.25")
    assert shown(window) == ("8.000", "250 GB")
    window.menus.language_actions["en"].trigger()
    assert window.windowTitle() == "Gradient Accumulation Memory Calculator"
    assert window.inputs.labels[Field.MICRO_BATCH].text() == "&Micro-batch size"
    assert window.results.effective.title.text() == "Effective batch size"
    assert [m.title() for m in menus_of(window)] == [
        "&File",
        "&Language",
        "&Help",
    ]
    assert [box(window, f).text() for f in Field] == ["1,000", "8", "1", "0.25 GB"]
    assert shown(window) == ("8,000", "250 GB")
    assert window.results.activation.formula.text() == "M = 1,000 × 0.25 GB = 250 GB"
    assert window.menus.language_actions["en"].isChecked()


def test_english_parses_english_numbers(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    spin = box(window, Field.ACTIVATION_GB)
    type_into(qtbot, spin, "1.5")
    assert window.vm.entry(Field.ACTIVATION_GB) == Decimal("1.5")
    assert shown(window) == ("32", "6 GB")
    type_into(qtbot, box(window, Field.GPUS), "1,024")
    assert shown(window) == ("32,768", "6 GB")


def test_switch_back_to_portuguese(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.set_language("en")
    window.set_language("pt_BR")
    assert window.windowTitle() == "Calculadora de Memória de Acumulação de Gradiente"
    assert box(window, Field.ACTIVATION_GB).text() == "0,5 GB"
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "0.75")
    assert window.vm.entry(Field.ACTIVATION_GB) == Decimal("0.75")
    assert shown(window) == ("32", "3 GB")


def test_details_text_follows_the_language(window: MainWindow) -> None:
    window.details.set_open(True)
    assert "Perguntas frequentes (FAQ)" in window.details.text()
    window.set_language("en")
    assert window.details.toggle.text() == "Details"
    text = window.details.text()
    assert "Frequently asked questions (FAQ)" in text
    assert "Perguntas frequentes" not in text


def test_language_choice_is_remembered(make_window, settings) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.set_language("en")
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    assert second.language.language == "en"
    assert second.windowTitle() == "Gradient Accumulation Memory Calculator"


def test_qt_standard_buttons_are_translated(window: MainWindow) -> None:
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text() == "Cancelar"
    window.set_language("en")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text() == "Cancel"


def test_one_switch_tells_each_part_once(window: MainWindow) -> None:
    """One route: the calculator, the training description, the planner and the chart
    each get one new state per switch, and what they show is in the new language."""
    describe(window.training_vm, "4", "0,5", "20")
    window.show_chart()
    planner, chart_vm = window.planner, window.tradeoff_vm
    assert chart_vm is not None
    counts = {"calculator": 0, "training": 0, "planner": 0, "chart": 0}

    def count(name: str) -> object:
        return lambda *_args: counts.__setitem__(name, counts[name] + 1)

    window.vm.stateChanged.connect(count("calculator"))
    window.training_vm.stateChanged.connect(count("training"))
    window.planner_vm.stateChanged.connect(count("planner"))
    chart_vm.changed.connect(count("chart"))
    window.menus.language_actions["en"].trigger()
    QApplication.processEvents()  # Qt's own LanguageChange events change nothing more
    assert counts == {"calculator": 1, "training": 1, "planner": 1, "chart": 1}
    assert window.tabs.tabText(1) == "Plan a run"
    assert window.chart is not None
    assert window.chart.summary.text() == chart_vm.view().summary
    assert planner.results.configuration.title.text() == "Your configuration"
    assert window.description.title.text() == "Training description"
    # the description's numbers follow the language too
    assert described(window, TrainingField.OTHER_MEMORY).text() == "20 GB"
    assert described(window, TrainingField.ACTIVATION).text() == "0.5 GB"
