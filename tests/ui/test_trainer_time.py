"""The time per step as a user reaches it: the model, the layout and "The run" in the
training description beside the trainer tab, the planner's table and time card, the
exports' notes on the layout, the measured speed profile and the card's speed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.core.memory.setup import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.training.specs import DescriptionSection, Extra
from gradacc_desktop.viewmodels.settings import PLANNER
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.planner_setup import write_profile
from tests.ui.helpers import (
    choice_box,
    choose,
    described,
    memory_typed,
    pick,
    show_tab,
    type_into,
)


def _trainer(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """512 on 8 data-parallel GPUs at 2 GB per sample (typed) and 4 096 tokens, on the
    trainer tab with the description beside it."""
    show_tab(window, window.trainer_page)
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.ACTIVATION, "2"),
        (TrainingField.SEQ_LEN, "4096"),
    ):
        type_into(qtbot, described(window, field), text)


def _cells(window: MainWindow, column: int) -> list[str]:
    table = window.planner.pairs.table
    return [table.item(r, column).text() for r in range(table.rowCount())]  # type: ignore[union-attr]


def _llama_8b(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Llama 3.1 8B, its states sharded over the 8 GPUs (ZeRO-3) so that it fits."""
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)


def _pipeline(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Llama-3-70B on 8 data × 8 tensor × 4 pipeline GPUs over 32 nodes, as torchtitan
    runs it (FSDP2)."""
    choose(window, Choice.FRAMEWORK, Framework.FSDP)
    choose(window, Choice.MODEL, "llama-3-70b")
    for field, text in (
        (TrainingField.TENSOR_PARALLEL, "8"),
        (TrainingField.PIPELINE_STAGES, "4"),
        (TrainingField.NODES, "32"),
    ):
        type_into(qtbot, described(window, field), text)


def test_choosing_a_model_fills_the_time_column_and_card(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="pt_BR")
    _trainer(window, qtbot)
    show_tab(window, window.planner_page)
    assert set(_cells(window, 5)) == {"—"}
    _llama_8b(window, qtbot)
    # a bundled model states its exact parameter count in its note
    assert not described(window, TrainingField.MODEL_PARAMS).isVisible()
    assert window.description.notes[Extra.MODEL_NOTE].text() == (
        "8.030.261.248 parâmetros, exatamente · 32 camadas"
    )
    assert window.planner.results.fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert described(window, TrainingField.EFFICIENCY).lineEdit().placeholderText() == (
        "modelada pelo formato do modelo"
    )
    assert all(cell.endswith(" s") for cell in _cells(window, 5))
    assert all(cell != "—" for cell in _cells(window, 6))
    card = window.planner.results.time
    assert card.isVisible()
    assert "por passo do otimizador" in card.summary.text()
    assert card.utilisation.text().startswith("MFU ")


def test_a_pipeline_offers_the_fastest_pair_and_the_button_uses_it(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="en")
    _trainer(window, qtbot)
    _pipeline(window, qtbot)
    show_tab(window, window.planner_page)
    card = window.planner.results.time
    config = window.planner.results.configuration
    assert config.formula.text() == "E = 64 × 1 × 8 = 512"  # the largest that fits
    step = _cells(window, 5)[_cells(window, 0).index("2")]  # as the pairs table shows it
    assert card.fastest.text().startswith(f"Fastest pair that fits: 2 × 32 — {step} per step")
    assert card.difference.isVisible()
    assert card.difference.text().startswith("2 × 32 is ")
    assert "faster: pipeline bubble −" in card.difference.text()
    assert card.use_fastest.isVisible() and card.use_fastest.text() == "Use this p&air"
    qtbot.mouseClick(card.use_fastest, Qt.MouseButton.LeftButton)
    assert config.formula.text() == "E = 2 × 32 × 8 = 512"
    assert not card.use_fastest.isVisible() and not card.difference.isVisible()
    assert not window.description.recommend.isChecked()
    assert described(window, TrainingField.MICRO_BATCH).text() == "2"


def test_the_exports_carry_the_layout_or_say_why_not(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="pt_BR")
    _trainer(window, qtbot)
    memory_typed(qtbot, window)  # a micro-batch recommended: files to export
    page = window.trainer
    tensor = described(window, TrainingField.TENSOR_PARALLEL)
    type_into(qtbot, tensor, "2")
    page.export.set_format(ExportFormat.MEGATRON)
    assert "--tensor-model-parallel-size 2" in page.export.preview.toPlainText()
    assert page.export.notes.text().startswith("• O Megatron leva o layout inteiro")
    page.export.set_format(ExportFormat.ACCELERATE)
    assert "O paralelismo de tensor não está nestes arquivos" in page.export.notes.text()
    type_into(qtbot, tensor, "1")
    assert not page.export.notes.isVisible()


def test_the_runs_inputs_survive_a_language_switch(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="pt_BR")
    _trainer(window, qtbot)
    price = described(window, TrainingField.PRICE)
    tokens = described(window, TrainingField.TOKENS)
    type_into(qtbot, price, "2,5")
    type_into(qtbot, tokens, "1000000")
    window.set_language("en")
    assert price.text() == "2.5"
    assert tokens.text() == "1,000,000"
    panel = window.description
    assert panel.sections[DescriptionSection.RUN].title() == "The run"
    assert panel.labels[TrainingField.TOKENS].text() == "Toke&n budget"
    for field in (TrainingField.DATASET, TrainingField.EPOCHS, TrainingField.PRICE):
        label = panel.labels[field]
        assert label.buddy() is described(window, field)
        assert described(window, field).accessibleName() == label.text().replace("&", "")


def test_a_measured_profile_replaces_the_estimate(  # type: ignore[no-untyped-def]
    make_window, qtbot, tmp_path: Path, monkeypatch
) -> None:
    window: MainWindow = make_window(language="en")
    _trainer(window, qtbot)
    _llama_8b(window, qtbot)
    panel = window.description
    note = panel.notes[Extra.PROFILE]
    assert note.text() == "Micro-steps: estimated by the efficiency model (no measured profile)."
    assert not panel.clear_profile.isEnabled()
    path = write_profile(tmp_path / "a100.json", seq_len=2048)
    monkeypatch.setattr("gradacc_desktop.ui.training.opening.ask_open_path", lambda *_args: path)
    qtbot.mouseClick(panel.load_profile, Qt.MouseButton.LeftButton)
    assert window.statusBar().currentMessage() == "Speed profile “a100.json” in use."
    assert note.text() == (
        "Micro-steps measured on cuda:0 (NVIDIA A100-SXM4-80GB): Llama-3.1-8B, "
        "sequence 2,048, micro-batches 1–8."
    )
    assert panel.clear_profile.isEnabled()
    show_tab(window, window.planner_page)
    time_note = window.planner.results.time.note.text()
    assert time_note.startswith("Micro-steps measured on cuda:0")
    # the measured forward and backward stand for the kernels in the breakdown
    legend = window.planner.results.time.legend
    assert "measured" in legend.shown() and "matmul" not in legend.shown()
    assert "Warning: measured at sequence length 2,048, planned at 4,096." in time_note
    qtbot.mouseClick(panel.clear_profile, Qt.MouseButton.LeftButton)
    assert note.text().startswith("Micro-steps: estimated by the efficiency model")
    assert not panel.clear_profile.isEnabled()


def test_a_bad_profile_changes_nothing_and_says_why(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path, monkeypatch
) -> None:
    _trainer(window, qtbot)
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    monkeypatch.setattr("gradacc_desktop.ui.training.opening.ask_open_path", lambda *_args: bad)
    panel = window.description
    qtbot.mouseClick(panel.load_profile, Qt.MouseButton.LeftButton)
    assert (
        window.statusBar().currentMessage().startswith("“bad.json” não é um perfil de velocidade")
    )
    assert (
        panel.notes[Extra.PROFILE]
        .text()
        .startswith("Micro-passos: estimados pelo modelo de eficiência")
    )
    assert not panel.clear_profile.isEnabled()


def test_the_profile_is_remembered(make_window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="en")
    _trainer(window, qtbot)
    assert window.training_vm.load_profile(write_profile(tmp_path / "p.json")).ok
    window.save_state()
    again: MainWindow = make_window(language="en")
    show_tab(again, again.trainer_page)
    assert (
        again.description.notes[Extra.PROFILE].text().startswith("Micro-steps measured on cuda:0")
    )


def test_the_card_speed_dialog(make_window, qtbot, settings) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="en")
    _trainer(window, qtbot)
    _llama_8b(window, qtbot)
    panel = window.description
    assert panel.card_speed.text() == "The card's speed…"
    qtbot.mouseClick(panel.card_speed, Qt.MouseButton.LeftButton)
    dialog = window.card_speed_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.windowTitle() == "GPU speed"
    # a catalogue card: its figures, read-only, with their source
    tflops = dialog.fields[TrainingField.CUSTOM_TFLOPS]
    assert tflops.text() == "312" and not tflops.isEnabled()
    assert dialog.fields[TrainingField.CUSTOM_BANDWIDTH].text() == "2,039"
    assert dialog.note.text().startswith("NVIDIA A100 SXM4 80GB: the vendor's figures (NVIDIA A100")
    # the custom card: no time until its speed is typed in
    pick(qtbot, choice_box(window, Choice.CARD), "custom")
    type_into(qtbot, described(window, TrainingField.GPU_MEMORY), "80")
    assert dialog.group.title() == "Custom"
    assert all(box.isEnabled() and box.text() == "" for box in dialog.fields.values())
    time_card = window.planner.results.time
    assert time_card.message.text() == (
        "The custom card has no speed figures: type them under “The card's speed…” "
        "(training description, GPUs), or choose a GPU model."
    )
    for field, text in (
        (TrainingField.CUSTOM_TFLOPS, "165.2"),
        (TrainingField.CUSTOM_BANDWIDTH, "1008"),
        (TrainingField.CUSTOM_LINK, "32"),
        (TrainingField.CUSTOM_NETWORK, "3.125"),
    ):
        type_into(qtbot, dialog.fields[field], text)
    assert not time_card.message.isVisible()
    assert "of 165.2 TFLOP/s per GPU" in time_card.utilisation.text()
    # every label has its own mnemonic and is its field's accessible name
    labels = dialog.labels.values()
    keys = [label.text()[label.text().index("&") + 1].lower() for label in labels]
    assert len(set(keys)) == len(keys) == 4
    for field, label in dialog.labels.items():
        assert label.buddy() is dialog.fields[field]
        assert dialog.fields[field].accessibleName() == label.text().replace("&", "")
    # a language switch reaches the open dialog
    window.set_language("pt_BR")
    assert dialog.windowTitle() == "Velocidade da GPU"
    assert dialog.fields[TrainingField.CUSTOM_NETWORK].text() == "3,125"
    # kept with the description in the settings
    window.save_state()
    remembered = settings.get(PLANNER)
    assert remembered is not None and '"custom_tflops": "165.2"' in remembered
    dialog.reject()
