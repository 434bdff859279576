"""The time per step as a user reaches it: the trainer tab's "Time and cost" group and
layout fields, the planner's table and card, and the exports' notes on the layout."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.trainer import TrainerPage
from gradacc_desktop.ui.trainer.setup import Choice
from gradacc_desktop.viewmodels.planner import PlanField
from tests.planner_setup import write_profile
from tests.ui.helpers import type_into


def _trainer(window: MainWindow, qtbot) -> TrainerPage:  # type: ignore[no-untyped-def]
    planner = window.planner
    type_into(qtbot, planner.inputs.boxes[PlanField.TARGET], "512")
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "8")
    type_into(qtbot, planner.inputs.boxes[PlanField.ACTIVATION], "2")
    type_into(qtbot, planner.inputs.boxes[PlanField.SEQ_LEN], "4096")
    window.tabs.setCurrentIndex(2)
    QApplication.processEvents()
    return window.trainer


def _choose(qtbot, page: TrainerPage, choice: Choice, data: str) -> None:  # type: ignore[no-untyped-def]
    """Pick an item of a combo with the keyboard, as a user would."""
    combo = page.time.combos[choice]
    combo.setFocus()
    target = combo.findData(data)
    assert target >= 0, data
    while combo.currentIndex() != target:
        key = Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up
        qtbot.keyClick(combo, key)


def _cells(window: MainWindow, column: int) -> list[str]:
    table = window.planner.pairs.table
    return [table.item(r, column).text() for r in range(table.rowCount())]  # type: ignore[union-attr]


def test_choosing_a_model_fills_the_time_column_and_card(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="pt_BR")
    page = _trainer(window, qtbot)
    assert set(_cells(window, 5)) == {"—"}
    params = page.time.fields[PlanField.MODEL_PARAMS]
    assert params.isEnabled()
    _choose(qtbot, page, Choice.MODEL, "llama-3.1-8b")
    # the parameters its matrix products use: less the untied input embedding
    assert not params.isEnabled() and params.text() == "7.504.924.672"
    assert page.time.fields[PlanField.EFFICIENCY].lineEdit().placeholderText() == (
        "60 (típico da placa)"
    )
    window.tabs.setCurrentIndex(1)
    QApplication.processEvents()
    assert all(cell.endswith(" s") for cell in _cells(window, 5))
    assert all(cell != "—" for cell in _cells(window, 6))
    card = window.planner.results.time
    assert card.isVisible()
    assert "por passo do otimizador" in card.summary.text()
    assert card.utilisation.text().startswith("MFU ")


def test_a_pipeline_offers_the_fastest_pair_and_the_button_uses_it(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    page = _trainer(window, qtbot)
    _choose(qtbot, page, Choice.MODEL, "llama-3-70b")
    type_into(qtbot, page.setup.fields[PlanField.TENSOR_PARALLEL], "8")
    type_into(qtbot, page.setup.fields[PlanField.PIPELINE_STAGES], "4")
    type_into(qtbot, page.setup.nodes, "32")
    window.tabs.setCurrentIndex(1)
    QApplication.processEvents()
    card = window.planner.results.time
    assert card.fastest.text().startswith("Fastest pair that fits: 1 × 64")
    assert card.use_fastest.isVisible()
    qtbot.mouseClick(card.use_fastest, Qt.MouseButton.LeftButton)
    config = window.planner.results.configuration
    assert config.formula.text() == "E = 1 × 64 × 8 = 512"
    assert not card.use_fastest.isVisible()
    assert window.planner.inputs.boxes[PlanField.MICRO_BATCH].text() == "1"


def test_the_exports_carry_the_layout_or_say_why_not(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="pt_BR")
    page = _trainer(window, qtbot)
    type_into(qtbot, page.setup.fields[PlanField.TENSOR_PARALLEL], "2")
    page.export.set_format(ExportFormat.MEGATRON)
    assert "--tensor-model-parallel-size 2" in page.export.preview.toPlainText()
    assert page.export.notes.text().startswith("• O Megatron leva o layout inteiro")
    page.export.set_format(ExportFormat.ACCELERATE)
    assert "O paralelismo de tensor não está nestes arquivos" in page.export.notes.text()
    type_into(qtbot, page.setup.fields[PlanField.TENSOR_PARALLEL], "1")
    assert not page.export.notes.isVisible()


def test_time_inputs_survive_a_language_switch(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="pt_BR")
    page = _trainer(window, qtbot)
    type_into(qtbot, page.time.fields[PlanField.PRICE], "2,5")
    type_into(qtbot, page.time.fields[PlanField.TOKENS], "1000000")
    window.set_language("en")
    QApplication.processEvents()
    assert page.time.fields[PlanField.PRICE].text() == "2.5"
    assert page.time.fields[PlanField.TOKENS].text() == "1,000,000"
    assert page.time.title() == "Time and cost"
    assert page.time.labels[PlanField.TOKENS].text() == "Token &budget"
    for label in page.time.labels.values():
        buddy = label.buddy()
        assert buddy is not None and buddy.accessibleName() == label.text().replace("&", "")


def test_a_measured_profile_replaces_the_estimate(make_window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    page = _trainer(window, qtbot)
    _choose(qtbot, page, Choice.MODEL, "llama-3.1-8b")
    assert page.time.profile.text() == "Micro-steps: roofline estimate (no measured profile)."
    assert not page.time.clear_profile_button.isEnabled()
    path = tmp_path / "a100.json"
    write_profile(path, seq_len=2048)
    assert page.time.load_profile_from(path)
    assert page.time.profile.text() == (
        "Micro-steps measured on cuda:0 (NVIDIA A100-SXM4-80GB): Llama-3.1-8B, "
        "sequence 2,048, micro-batches 1–8."
    )
    window.tabs.setCurrentIndex(1)
    QApplication.processEvents()
    note = window.planner.results.time.note.text()
    assert note.startswith("Micro-steps measured on cuda:0")
    assert "Warning: measured at sequence length 2048, planned at 4096." in note
    window.tabs.setCurrentIndex(2)
    qtbot.mouseClick(page.time.clear_profile_button, Qt.MouseButton.LeftButton)
    assert page.time.profile.text().startswith("Micro-steps: roofline estimate")


def test_a_bad_profile_changes_nothing(make_window, qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMessageBox

    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: warned.append(text))
    window = make_window(language="pt_BR")
    page = _trainer(window, qtbot)
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    assert not page.time.load_profile_from(bad)
    assert warned and warned[0].startswith("“bad.json” não é um perfil de velocidade")
    assert page.time.profile.text().startswith("Micro-passos: estimativa roofline")


def test_the_profile_is_remembered(make_window, qtbot, tmp_path, settings) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    page = _trainer(window, qtbot)
    path = tmp_path / "p.json"
    write_profile(path)
    assert page.time.load_profile_from(path)
    window.save_state()
    again = make_window(language="en")
    again.tabs.setCurrentIndex(2)
    QApplication.processEvents()
    assert again.trainer.time.profile.text().startswith("Micro-steps measured on cuda:0")


def test_the_card_speed_dialog(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    page = _trainer(window, qtbot)
    _choose(qtbot, page, Choice.MODEL, "llama-3.1-8b")
    dialog = page.time.open_card_speed()
    form = dialog.form
    # a catalogue card: its figures, read-only, with their source
    tflops = form.fields[PlanField.CUSTOM_TFLOPS]
    assert tflops.text() == "312" and not tflops.isEnabled()
    assert form.fields[PlanField.CUSTOM_BANDWIDTH].text() == "2,039"
    assert dialog.note.text().startswith("NVIDIA A100 80GB: the vendor's figures (NVIDIA A100")
    # the custom card: no time until its speed is typed in
    window.planner.vm.set_card("custom")
    assert all(box.isEnabled() and box.text() == "" for box in form.fields.values())
    assert "View the card’s speed…" in window.planner.vm.state.results.time.message  # type: ignore[union-attr]
    for field, text in (
        (PlanField.CUSTOM_TFLOPS, "165.2"),
        (PlanField.CUSTOM_BANDWIDTH, "1008"),
        (PlanField.CUSTOM_LINK, "32"),
        (PlanField.CUSTOM_NETWORK, "3.125"),
    ):
        type_into(qtbot, form.fields[field], text)
    time = window.planner.vm.state.results.time  # type: ignore[union-attr]
    assert time is not None and time.available
    assert "of 165.2 TFLOP/s per GPU" in time.utilisation
    # every label has its own mnemonic and is its field's accessible name
    keys = [label.text()[label.text().index("&") + 1].lower() for label in form.labels.values()]
    assert len(set(keys)) == len(keys) == 4
    for label in form.labels.values():
        assert label.buddy().accessibleName() == label.text().replace("&", "")  # type: ignore[union-attr]
    # kept with the planner's settings
    again = window.planner.vm.remembered()
    assert '"custom_tflops": "165.2"' in again
    dialog.reject()
