"""The planner page, driven through the training description beside it as a user would:
the result cards, the pairs table, the learning-rate reference, scenario files and a
language switch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.view import PlannerView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import box, choice_box, described, memory_typed, pick, show_tab, type_into


@pytest.fixture
def planner(window: MainWindow) -> PlannerView:
    show_tab(window, window.planner_page)
    return window.planner


def _solve(qtbot, window: MainWindow, target: str, gpus: str, micro: str) -> None:  # type: ignore[no-untyped-def]
    """The user's own micro-batch: untick "Recommend", then type the three numbers."""
    recommend = window.description.recommend
    if recommend.isChecked():
        qtbot.mouseClick(recommend, Qt.MouseButton.LeftButton)
    type_into(qtbot, described(window, TrainingField.TARGET), target)
    type_into(qtbot, described(window, TrainingField.GPUS), gpus)
    type_into(qtbot, described(window, TrainingField.MICRO_BATCH), micro)


def test_target_gpus_and_micro_batch_give_the_steps(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "512", "8", "4")
    card = planner.results.configuration
    assert card.value.text() == "512"
    assert card.formula.text() == "E = 4 × 16 × 8 = 512"
    assert "a\u00a0=\u00a016" in card.exact_pairs.text()
    assert card.badge.text().endswith("Exato")
    assert card.difference.text() == "Exatamente a meta de 512."
    assert planner.results.deepspeed.verdict.text().endswith("O DeepSpeed aceita estes valores")


@pytest.mark.parametrize(
    ("rounding", "formula", "difference"),
    [
        (Rounding.CEIL, "E = 3 × 17 × 2 = 102", "2 amostras acima da meta de 100."),
        (Rounding.FLOOR, "E = 3 × 16 × 2 = 96", "4 amostras abaixo da meta de 100."),
        (Rounding.NEAREST, "E = 3 × 17 × 2 = 102", "2 amostras acima da meta de 100."),
    ],
)
def test_the_rounding_choice(  # type: ignore[no-untyped-def]
    window: MainWindow,
    planner: PlannerView,
    qtbot,
    rounding: Rounding,
    formula: str,
    difference: str,
) -> None:
    _solve(qtbot, window, "100", "2", "3")
    pick(qtbot, choice_box(window, Choice.ROUNDING), rounding)
    card = planner.results.configuration
    assert card.formula.text() == formula
    assert card.difference.text() == difference
    assert "Não exato" in card.badge.text()
    assert "recusaria" in planner.results.deepspeed.verdict.text()


def test_a_catalogue_card_fits_and_the_custom_card_takes_its_capacity(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    capacity = described(window, TrainingField.GPU_MEMORY)
    assert not capacity.isEnabled()
    assert capacity.text() == "80 GB"
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "0,5")
    type_into(qtbot, described(window, TrainingField.OTHER_MEMORY), "17")
    fit = planner.results.fit
    assert fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert fit.verdict.ok is True
    assert fit.largest.text() == "Maior micro-lote que cabe: 126."
    card = choice_box(window, Choice.CARD)
    pick(qtbot, card, "custom")
    assert card.currentText() == "Personalizado"
    assert capacity.isEnabled()
    type_into(qtbot, capacity, "20")
    assert fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert fit.largest.text() == "Maior micro-lote que cabe: 6."
    type_into(qtbot, capacity, "17")
    assert planner.results.nothing_fits.isVisible()


def test_nothing_fits_says_what_would_help(window: MainWindow, planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    pick(qtbot, choice_box(window, Choice.CARD), "t4-16gb")
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "0,5")
    type_into(qtbot, described(window, TrainingField.OTHER_MEMORY), "20")
    card = planner.results.nothing_fits
    assert card.isVisible()
    assert not planner.results.configuration.isVisible()
    assert card.message.text().startswith("Nada cabe: só a outra memória (20 GB)")
    assert planner.results.fit.verdict.text() == "✘ Não cabe na memória da GPU"
    assert planner.results.fit.verdict.ok is False
    show_tab(window, window.trainer_page)
    preview = window.trainer.export.preview.toPlainText()
    assert preview.startswith("Nada a exportar: nem um micro-lote de 1 cabe")


def test_use_this_configuration_fills_the_calculator(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "512", "8", "4")
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "0,25")
    button = planner.results.configuration.use_button
    assert button.isEnabled()
    QApplication.processEvents()  # the cards laid out, as before a user's click
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.statusBar().currentMessage().startswith("Configuração enviada para a calculadora")
    assert window.tabs.currentWidget() is window.calculator
    assert [box(window, f).text() for f in Field] == ["4", "16", "8", "0,25 GB"]
    assert window.results.effective.value.text() == "512"


def test_the_pairs_table_and_a_double_click(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    memory_typed(qtbot, window)
    type_into(qtbot, described(window, TrainingField.TARGET), "512")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")
    table = planner.pairs.table
    rows = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert rows == ["1", "2", "4", "8", "16", "32", "64"]
    assert table.selectionModel().selectedRows()[0].row() == 6  # the recommended one
    assert described(window, TrainingField.MICRO_BATCH).text() == "64"
    assert table.item(2, 2).text() == "512 (exato)"
    rect = table.visualItemRect(table.item(2, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.description.recommend.isChecked()  # a click only selects
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert not window.description.recommend.isChecked()
    micro = described(window, TrainingField.MICRO_BATCH)
    assert micro.isEnabled() and micro.text() == "4"
    assert planner.results.configuration.formula.text() == "E = 4 × 16 × 8 = 512"


def test_a_scenario_round_trip_through_a_file(
    window: MainWindow, planner: PlannerView, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "512", "8", "4")
    pick(qtbot, choice_box(window, Choice.CARD), "h100-80gb")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "2048")
    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "3")
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_LR], "0,0003")
    path = tmp_path / "cenario.json"
    assert window.scenarios.save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["plan"]["gpu_card"] == "h100-80gb"

    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "9")
    pick(qtbot, choice_box(window, Choice.CARD), "a100-80gb")
    type_into(qtbot, described(window, TrainingField.TARGET), "64")
    qtbot.mouseClick(window.description.recommend, Qt.MouseButton.LeftButton)
    assert window.scenarios.open(path)
    assert window.statusBar().currentMessage() == "Cenário aberto de “cenario.json”."
    assert box(window, Field.ACCUMULATION_STEPS).text() == "3"
    assert choice_box(window, Choice.CARD).currentData() == "h100-80gb"
    assert not window.description.recommend.isChecked()
    assert described(window, TrainingField.TARGET).text() == "512"
    assert described(window, TrainingField.MICRO_BATCH).text() == "4"
    assert described(window, TrainingField.SEQ_LEN).text() == "2.048"
    # the learning-rate reference is the planner's, not the scenario's
    assert planner.reference[TrainingField.REFERENCE_LR].text() == "0,0003"
    assert planner.results.configuration.formula.text() == "E = 4 × 16 × 8 = 512"


def test_a_malformed_scenario_shows_a_message_and_changes_nothing(
    window: MainWindow, planner: PlannerView, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "512", "8", "4")
    before = window.planner_vm.clipboard_text()
    path = tmp_path / "ruim.json"
    path.write_text('{"format": "gradacc-scenario", "version": 1, "calculator": ', "utf-8")
    assert not window.scenarios.open(path)
    message = window.findChild(QMessageBox, "scenario_error")
    assert message is not None
    assert message.text() == (
        "Não foi possível abrir o cenário “ruim.json”: o arquivo não é um JSON válido "
        "(pode estar truncado ou danificado). Nada foi alterado."
    )
    message.close()
    assert window.planner_vm.clipboard_text() == before
    assert described(window, TrainingField.TARGET).text() == "512"


def test_a_language_switch_rewords_the_planner(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "1024", "8", "4")
    assert planner.reference_labels[TrainingField.REFERENCE_LR].text() == (
        "Taxa de aprendizado de referência"
    )
    window.set_language("en")
    QApplication.processEvents()  # and Qt's LanguageChange changes nothing more
    assert planner.reference_labels[TrainingField.REFERENCE_LR].text() == (
        "Reference learning rate"
    )
    assert planner.results.configuration.formula.text() == "E = 4 × 32 × 8 = 1,024"
    assert planner.results.configuration.difference.text() == "Exactly the target of 1,024."
    assert planner.results.fit.title.text() == "Memory per GPU"
    assert planner.search.title.text() == "Find the best setup"
    assert planner.pairs.title() == "Micro-batch and accumulation steps"
    assert described(window, TrainingField.TARGET).text() == "1,024"


def test_a_period_is_a_decimal_point_in_portuguese(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    other = described(window, TrainingField.OTHER_MEMORY)
    type_into(qtbot, other, "0.5")
    qtbot.keyClick(other, Qt.Key.Key_Tab)
    assert other.text() == "0,5 GB"
    assert str(window.training_vm.value(TrainingField.OTHER_MEMORY)) == "0.5"
    lr = planner.reference[TrainingField.REFERENCE_LR]
    type_into(qtbot, lr, "0.0003")
    qtbot.keyClick(lr, Qt.Key.Key_Tab)
    assert lr.text() == "0,0003"
    assert window.planner_vm.reference()[0] is not None
    assert str(window.planner_vm.reference()[0]) == "0.0003"


def test_the_learning_rate_reference_scales_the_rate_as_it_is_typed(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window, "512", "8", "4")
    extras = planner.results.extras
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_LR], "0,0003")
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_BATCH], "256")
    assert extras.lr_linear.text() == "Escala linear: 0,0006"
    assert extras.lr_sqrt.isVisible()
    assert extras.lr_sqrt.text() == "Escala pela raiz quadrada: ≈ 0,000424264"
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_BATCH], "128")
    assert extras.lr_linear.text() == "Escala linear: 0,0012"
    type_into(qtbot, described(window, TrainingField.TARGET), "256")
    assert extras.lr_linear.text() == "Escala linear: 0,0006"
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_LR], "abc")
    assert extras.lr_linear.text() == "Taxa de aprendizado de referência: “abc” não é um número."
    for field, label in planner.reference_labels.items():
        assert label.buddy() is planner.reference[field]
        assert planner.reference[field].accessibleName() == label.text().replace("&", "")


def test_grey_rows_are_the_pairs_that_do_not_fit_and_the_note_says_so(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    """Before the memory is known no row is grey; once some pair does not fit its row is
    grey and the note under the table says what grey means."""
    table, note = planner.pairs.table, planner.pairs.note
    type_into(qtbot, described(window, TrainingField.TARGET), "64")

    def grey() -> list[str]:
        dim = table.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        return [
            table.item(r, 0).text()
            for r in range(table.rowCount())
            if table.item(r, 0).foreground().color() == dim
        ]

    assert grey() == [] and "cinza" not in note.text()
    memory_typed(qtbot, window)  # 0,5 GB a sample beside 21 GB of model states
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "20")
    assert grey() == ["4", "8", "16", "32", "64"]
    assert "Uma linha em cinza não cabe na memória de uma GPU." in note.text()


def test_a_setup_the_framework_refuses_is_not_a_green_fit(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    """DeepSpeed's pipeline engine refuses ZeRO-3: the memory card says it fits the
    memory but will not run, with the cross, not the tick."""
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "2048")
    type_into(qtbot, described(window, TrainingField.PIPELINE_STAGES), "4")
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)
    verdict = planner.results.fit.verdict
    assert verdict.text() == "✘ Cabe na memória da GPU, mas o framework recusa esta configuração"
    assert "ZeRO-3" in planner.results.fit.usage.text()
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.OPTIMIZER)
    assert verdict.text().startswith("✔ ")
