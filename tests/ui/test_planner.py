"""The planner view, driven through its widgets as a user would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.core.planning import Rounding
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView, create_planner
from gradacc_desktop.ui.planner.other_memory import OtherMemoryDialog
from gradacc_desktop.viewmodels.planner import PlanField
from tests.ui.helpers import box, dispose, menus_of, type_into


@pytest.fixture
def planner(window: MainWindow, qtbot) -> Iterator[PlannerView]:  # type: ignore[no-untyped-def]
    view = create_planner(window.vm)  # a window of its own, beside the main window
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    qtbot.waitExposed(view)
    yield view
    dispose(view)


def _field(view: PlannerView, field: PlanField):  # type: ignore[no-untyped-def]
    return view.inputs.boxes[field]


def _solve(qtbot, view: PlannerView, target: str, gpus: str, micro: str) -> None:  # type: ignore[no-untyped-def]
    view.inputs.recommend.setChecked(False)
    type_into(qtbot, _field(view, PlanField.TARGET), target)
    type_into(qtbot, _field(view, PlanField.GPUS), gpus)
    type_into(qtbot, _field(view, PlanField.MICRO_BATCH), micro)


def test_target_gpus_and_micro_batch_give_the_steps(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner, "512", "8", "4")
    card = planner.results.configuration
    assert card.value.text() == "512"
    assert card.formula.text() == "E = 4 × 16 × 8 = 512"
    assert "a\u00a0=\u00a016" in card.exact_pairs.text()
    assert card.badge.text().endswith("Exato")
    assert "exato" in card.badge.text().lower()
    assert card.difference.text() == "Exatamente a meta de 512."
    assert planner.results.deepspeed.verdict.text().endswith("O DeepSpeed aceita estes valores")


@pytest.mark.parametrize(
    ("index", "formula", "difference"),
    [
        (Rounding.CEIL, "E = 3 × 17 × 2 = 102", "2 amostras acima da meta de 100."),
        (Rounding.FLOOR, "E = 3 × 16 × 2 = 96", "4 amostras abaixo da meta de 100."),
        (Rounding.NEAREST, "E = 3 × 17 × 2 = 102", "2 amostras acima da meta de 100."),
    ],
)
def test_rounding_combo(
    planner: PlannerView, qtbot, index: Rounding, formula: str, difference: str
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner, "100", "2", "3")
    combo = planner.inputs.rounding
    combo.setCurrentIndex(combo.findData(index.value))
    card = planner.results.configuration
    assert card.formula.text() == formula
    assert card.difference.text() == difference
    assert "Não exato" in card.badge.text()
    assert "recusaria" in planner.results.deepspeed.verdict.text()


def test_card_fits_and_custom_capacity(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    inputs = planner.inputs
    inputs.card.setCurrentIndex(inputs.card.findData("a100-80gb"))
    capacity = _field(planner, PlanField.GPU_MEMORY)
    assert not capacity.isEnabled()
    assert capacity.text() == "80 GB"
    type_into(qtbot, _field(planner, PlanField.OTHER_MEMORY), "17")
    fit = planner.results.fit
    assert fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert fit.verdict.ok is True
    assert fit.largest.text() == "Maior micro-lote que cabe: 126."
    inputs.card.setCurrentIndex(inputs.card.findData("custom"))
    assert capacity.isEnabled()
    assert inputs.card.currentText() == "Personalizada"
    type_into(qtbot, capacity, "20")
    assert "Cabe" in fit.verdict.text()


def test_nothing_fits_says_what_would_help(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    inputs = planner.inputs
    inputs.card.setCurrentIndex(inputs.card.findData("t4-16gb"))
    type_into(qtbot, _field(planner, PlanField.OTHER_MEMORY), "20")
    card = planner.results.nothing_fits
    assert card.isVisible()
    assert not planner.results.configuration.isVisible()
    assert card.message.text().startswith("Nada cabe: só a outra memória (20 GB)")
    assert "ZeRO" in card.suggestions.text()
    assert planner.results.fit.verdict.text() == "✘ Não cabe na memória da GPU"
    assert planner.vm.exported(ExportFormat.DEEPSPEED) is None


def test_use_configuration_fills_the_calculator(
    planner: PlannerView, window: MainWindow, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner, "512", "8", "4")
    with qtbot.waitSignal(planner.statusMessage) as blocker:
        qtbot.mouseClick(planner.results.configuration.use_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].startswith("Configuração enviada para a calculadora")
    assert [box(window, f).text() for f in Field] == ["4", "16", "8", "0,5 GB"]
    assert window.results.effective.value.text() == "512"


def test_activation_follows_both_ways(planner: PlannerView, window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "0.25")
    assert _field(planner, PlanField.ACTIVATION).text() == "0,25 GB"
    type_into(qtbot, _field(planner, PlanField.ACTIVATION), "0.5")
    assert planner.vm.value(PlanField.ACTIVATION) == __import__("decimal").Decimal("0.5")
    assert box(window, Field.ACTIVATION_GB).text() == "0,5 GB"
    # one input: text the field refuses is the calculator's too, and both say so
    type_into(qtbot, _field(planner, PlanField.ACTIVATION), "abc")
    assert box(window, Field.ACTIVATION_GB).text() == "abc"
    assert not window.vm.state.has_result
    assert not planner.vm.state.has_result


def test_pairs_table_and_double_click(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, _field(planner, PlanField.TARGET), "512")
    type_into(qtbot, _field(planner, PlanField.GPUS), "8")
    table = planner.pairs.table
    rows = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert rows == ["1", "2", "4", "8", "16", "32", "64"]
    assert table.selectionModel().selectedRows()[0].row() == 6
    assert table.item(2, 2).text() == "512 (exato)"
    assert table.item(2, 3).text() == "Sim"
    table.cellDoubleClicked.emit(2, 0)
    assert not planner.inputs.recommend.isChecked()
    assert _field(planner, PlanField.MICRO_BATCH).isEnabled()
    assert planner.results.configuration.formula.text() == "E = 4 × 16 × 8 = 512"


def test_scenario_round_trip_through_a_file(
    planner: PlannerView, window: MainWindow, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner, "512", "8", "4")
    planner.inputs.card.setCurrentIndex(planner.inputs.card.findData("h100-80gb"))
    type_into(qtbot, _field(planner, PlanField.SEQ_LEN), "2048")
    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "3")
    path = tmp_path / "cenario.json"
    assert planner.save_scenario(path)

    other_window_vm = window.vm
    second = create_planner(other_window_vm)
    qtbot.addWidget(second)
    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "9")
    with qtbot.waitSignal(second.statusMessage) as blocker:
        assert second.open_scenario(path)
    assert blocker.args[0] == "Cenário aberto de “cenario.json”."
    assert box(window, Field.ACCUMULATION_STEPS).text() == "3"
    assert second.inputs.card.currentData() == "h100-80gb"
    assert not second.inputs.recommend.isChecked()
    assert _field(second, PlanField.MICRO_BATCH).text() == "4"
    assert _field(second, PlanField.SEQ_LEN).text() == "2.048"
    assert _field(second, PlanField.REFERENCE_LR).text() == ""
    assert _field(second, PlanField.REFERENCE_LR).lineEdit().placeholderText() == "—"
    assert second.results.configuration.formula.text() == "E = 4 × 16 × 8 = 512"


def test_malformed_scenario_shows_a_message_and_changes_nothing(
    planner: PlannerView, window: MainWindow, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner, "512", "8", "4")
    before = planner.vm.scenario()
    path = tmp_path / "ruim.json"
    path.write_text('{"format": "gradacc-scenario", "version": 1, "calculator": ', "utf-8")
    assert not planner.open_scenario(path)
    message = planner.findChild(QMessageBox, "scenario_error")
    assert message is not None
    assert message.text() == (
        "Não foi possível abrir o cenário “ruim.json”: o arquivo não é um JSON válido "
        "(pode estar truncado ou danificado). Nada foi alterado."
    )
    message.close()
    assert planner.vm.scenario() == before
    assert _field(planner, PlanField.TARGET).text() == "512"


def test_language_switch_rerenders_the_planner(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentIndex(1)
    planner = window.planner  # the window tells its own planner of a switch
    _solve(qtbot, planner, "1024", "8", "4")
    assert planner.inputs.labels[PlanField.TARGET].text() == "Lote efe&tivo alvo"
    window.set_language("en")
    QApplication.processEvents()  # and Qt's LanguageChange changes nothing more
    assert planner.inputs.labels[PlanField.TARGET].text() == "&Target effective batch"
    assert planner.inputs._groups[next(iter(planner.inputs._groups))].title() == "Target and GPUs"
    assert planner.results.configuration.formula.text() == "E = 4 × 32 × 8 = 1,024"
    assert planner.results.configuration.difference.text() == "Exactly the target of 1,024."
    assert _field(planner, PlanField.TARGET).text() == "1,024"
    assert planner.inputs.card.itemText(planner.inputs.card.count() - 1) == "Custom"
    assert planner.pairs.title() == "Micro-batch and a&ccumulation steps"


def test_period_is_a_decimal_point_in_portuguese(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    other = _field(planner, PlanField.OTHER_MEMORY)
    type_into(qtbot, other, "0.5")
    qtbot.keyClick(other, Qt.Key.Key_Tab)
    assert other.text() == "0,5 GB"
    assert planner.vm.value(PlanField.OTHER_MEMORY) == __import__("decimal").Decimal("0.5")
    lr = _field(planner, PlanField.REFERENCE_LR)
    type_into(qtbot, lr, "0.0003")
    qtbot.keyClick(lr, Qt.Key.Key_Tab)
    assert lr.text() == "0,0003"


def test_other_memory_dialog_sets_other_memory(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(planner.inputs.estimate, Qt.MouseButton.LeftButton)
    dialog = planner.findChild(OtherMemoryDialog, "other_memory_dialog")
    assert dialog is not None
    type_into(qtbot, dialog.parameters, "7000000000")
    assert dialog.total.text() == "Outra memória por GPU: 140 GB + 1 GB de sobrecarga = 141 GB"
    assert dialog.source.text().startswith("Fonte: Artigo do ZeRO (Rajbhandari et al. 2020")
    assert dialog.rows[-1][2].text() == "20 bytes"
    assert dialog.cpu.text().startswith("Memória de CPU por nó:")
    dialog.accept()
    assert _field(planner, PlanField.OTHER_MEMORY).text() == "141 GB"


def test_mnemonics_are_unique_in_the_planner(planner: PlannerView, window: MainWindow) -> None:
    def mnemonic(text: str) -> str:
        return text[text.index("&") + 1].lower()

    texts = [label.text() for label in planner.inputs.labels.values()]
    texts += [
        planner.inputs.recommend.text(),
        planner.inputs.estimate.text(),
        planner.results.configuration.use_button.text(),
    ]
    texts += [m.title() for m in menus_of(window)]
    keys = [mnemonic(t) for t in texts]
    assert len(keys) == len(set(keys)), texts
    for field, label in planner.inputs.labels.items():
        assert label.buddy() is not None
        if isinstance(field, PlanField):
            assert planner.inputs.boxes[field].accessibleName() == label.text().replace("&", "")
