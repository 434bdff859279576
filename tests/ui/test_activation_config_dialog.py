"""The estimator dialog with a model's config.json: opened from the button, dropped on
the window, what the user then sees and can edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.activation_dialog import ActivationDialog, open_activation_dialog
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.activation import ActivationField, Option
from tests.configs import config_path

F = ActivationField
QWEN3 = config_path("Qwen__Qwen3-0.6B.json")


def _open(window: MainWindow, qtbot) -> ActivationDialog:  # type: ignore[no-untyped-def]
    dialog = open_activation_dialog(window.vm, window)
    qtbot.waitExposed(dialog)
    return dialog


def _drop(dialog: ActivationDialog, path: Path) -> bool:
    """Drag one file over the dialog and drop it, as the window system does."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(dialog.width() / 2, dialog.height() / 2)
    actions = Qt.DropAction.CopyAction
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), actions, mime, buttons, modifiers)
    QApplication.sendEvent(dialog, enter)
    if not enter.isAccepted():
        return False
    QApplication.sendEvent(dialog, QDropEvent(point, actions, mime, buttons, modifiers))
    return True


def test_the_button_opens_a_config_and_locks_its_sizes(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = _open(window, qtbot)
    monkeypatch.setattr("gradacc_desktop.ui.activation_model.ask_open_path", lambda *_args: QWEN3)
    qtbot.mouseClick(dialog.model_source.open_button, Qt.MouseButton.LeftButton)
    assert dialog.combos[Option.PRESET].currentText() == "Qwen__Qwen3-0.6B.json (Qwen3ForCausalLM)"
    assert dialog.spins[F.HIDDEN].text() == "1.024"
    assert dialog.spins[F.HIDDEN].isReadOnly() and dialog.spins[F.KV_HEADS].isReadOnly()
    # neither keys nor typing change a size the file gives
    dialog.spins[F.LAYERS].setFocus()
    qtbot.keyClick(dialog.spins[F.LAYERS], Qt.Key.Key_Up)
    qtbot.keyClicks(dialog.spins[F.LAYERS], "9")
    assert dialog.spins[F.LAYERS].text() == "28"
    assert not dialog.combos[Option.FAMILY].isEnabled()
    assert dialog.spins[F.SEQ].text() == "4.096" and not dialog.spins[F.SEQ].isReadOnly()
    summary = dialog.model_source.summary
    assert summary.isVisible() and "596.049.920" in summary.text()
    assert not dialog.model_source.error.isVisible()
    assert not dialog.spins[F.TARGET_SEQ].isVisibleTo(dialog)
    assert dialog.use_button.isEnabled()
    # custom sizes: the values stay and become editable again
    index = dialog.combos[Option.PRESET].findData(None)
    dialog.combos[Option.PRESET].setCurrentIndex(index)
    assert not dialog.spins[F.HIDDEN].isReadOnly()
    assert dialog.spins[F.HIDDEN].text() == "1.024"
    assert not dialog.model_source.summary.isVisible()


def test_dropping_a_config_on_the_dialog_opens_it(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert _drop(dialog, QWEN3)
    assert dialog.vm.state.model_loaded
    assert "Qwen3ForCausalLM" in dialog.combos[Option.PRESET].currentText()
    # a file that is not a model config: a red line says why, the fields stay
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"model_type": "xlnet"}), encoding="utf-8")
    assert _drop(dialog, bad)
    error = dialog.model_source.error
    assert error.isVisible() and error.text().startswith("notes.json")
    assert "llama" in error.text()
    assert dialog.spins[F.HIDDEN].text() == "1.024"
    assert dialog.vm.state.model_loaded


def test_padded_batches_is_a_labelled_check_that_changes_the_figure(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    dialog = _open(window, qtbot)
    _drop(dialog, QWEN3)
    check = dialog.checks[Option.PADDED]
    assert "&" in check.text() and check.accessibleName()
    before = dialog.saved.value.text()
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton)
    assert check.isChecked()
    assert dialog.saved.value.text() != before


def test_use_cache_follows_the_file_and_changes_a_fused_qkv_model(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    dialog = _open(window, qtbot)
    phi3 = json.loads(config_path("microsoft__Phi-3-mini-4k-instruct.json").read_text("utf-8"))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(phi3 | {"use_cache": True}), encoding="utf-8")
    _drop(dialog, path)
    check = dialog.checks[Option.USE_CACHE]
    assert check.isEnabled() and check.isChecked()  # the file's value
    assert "&" in check.text() and check.accessibleName()
    with_cache = dialog.saved.value.text()
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton)
    assert not check.isChecked()
    # Phi-3's V is a view of the fused projection: without the cache's copy of V the
    # whole fused output stays, so the figure grows
    assert dialog.saved.value.text() != with_cache
    path.write_text(json.dumps(phi3 | {"use_cache": False}), encoding="utf-8")
    _drop(dialog, path)
    assert not check.isChecked()


def test_use_cache_is_greyed_out_for_an_encoder(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    _drop(dialog, config_path("FacebookAI__roberta-base.json"))
    assert not dialog.checks[Option.USE_CACHE].isEnabled()


def test_a_config_survives_closing_the_dialog(window: MainWindow, qtbot, settings) -> None:  # type: ignore[no-untyped-def]
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    _drop(dialog, QWEN3)
    dialog.spins[F.SEQ].selectAll()
    qtbot.keyClicks(dialog.spins[F.SEQ], "2048")
    dialog.reject()
    again = window.open_activation_estimator()
    qtbot.waitExposed(again)
    assert again is not dialog
    assert "Qwen3ForCausalLM" in again.combos[Option.PRESET].currentText()
    assert again.spins[F.SEQ].text() == "2.048"
    assert again.spins[F.HIDDEN].isReadOnly()


def test_the_target_length_shows_only_for_encoder_decoders(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    combo = dialog.combos[Option.PRESET]
    combo.setCurrentIndex(combo.findData("t5-base"))
    target = dialog.spins[F.TARGET_SEQ]
    assert target.isVisibleTo(dialog)
    label = dialog.labels[F.TARGET_SEQ]
    assert label.isVisibleTo(dialog) and label.buddy() is target
    assert "&" in label.text() and target.accessibleName()
    assert "12 camadas no codificador e 12 no decodificador" in (dialog.model_source.summary.text())
    combo.setCurrentIndex(combo.findData("gpt2"))
    assert not target.isVisibleTo(dialog)


def _models(name: str) -> Path:
    from gradacc_desktop.paths import resource_path

    return Path(resource_path("data", "models", name))


def test_a_vlm_shows_its_image_inputs_and_the_towers_share(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    dialog = _open(window, qtbot)
    assert not dialog.spins[F.IMAGES].isVisibleTo(dialog)
    assert not dialog.checks[Option.VISION_FROZEN].isVisibleTo(dialog)
    assert _drop(dialog, _models("llava-hf__llava-1.5-7b-hf.json"))
    assert dialog.spins[F.IMAGES].isVisibleTo(dialog) and dialog.spins[F.IMAGES].text() == "1"
    # LLaVA's processor resizes every image to 336²: no size to ask for
    assert not dialog.spins[F.IMAGE_WIDTH].isVisibleTo(dialog)
    frozen = dialog.checks[Option.VISION_FROZEN]
    assert frozen.isVisibleTo(dialog) and frozen.accessibleName() == "Torre de visão congelada"
    vision = dialog.results_group.vision
    assert vision.isVisibleTo(dialog)
    assert vision.text().startswith("Torre de visão: 303.507.456 parâmetros · 1 × 576 tokens")
    one_image = dialog.saved.value.text()
    dialog.spins[F.IMAGES].selectAll()
    qtbot.keyClicks(dialog.spins[F.IMAGES], "2")
    assert "2 × 576 tokens" in vision.text()
    assert dialog.saved.value.text() != one_image
    two_images = dialog.saved.value.text()
    frozen.setFocus()
    qtbot.keyClick(frozen, Qt.Key.Key_Space)
    assert frozen.isChecked() and dialog.saved.value.text() != two_images


def test_qwen2_vl_asks_for_the_image_size(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert _drop(dialog, _models("Qwen__Qwen2-VL-2B-Instruct.json"))
    width, height = dialog.spins[F.IMAGE_WIDTH], dialog.spins[F.IMAGE_HEIGHT]
    assert width.isVisibleTo(dialog) and height.isVisibleTo(dialog)
    assert (width.text(), height.text()) == ("448", "448")
    vision = dialog.results_group.vision
    assert "1 × 256 tokens" in vision.text()  # (448 / 28)²
    width.selectAll()
    qtbot.keyClicks(width, "896")
    assert "1 × 512 tokens" in vision.text()
    # the measuring command measures the same images
    assert "--images 1 --image-size 896x448" in dialog.vm.state.measure_command


def test_whisper_locks_the_encoder_length(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert _drop(dialog, _models("openai__whisper-small.json"))
    seq = dialog.spins[F.SEQ]
    assert seq.isReadOnly() and seq.text() == "1.500"
    assert dialog.spins[F.TARGET_SEQ].isVisibleTo(dialog)
    assert dialog.spins[F.TARGET_SEQ].text() == "448"
    assert not dialog.spins[F.IMAGES].isVisibleTo(dialog)
    assert dialog.vm.state.has_result


def test_it_opens_with_the_described_model_and_length(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The model and sequence length chosen in the training description are what the
    estimator opens with (the user asked about this model, not GPT-2)."""
    from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
    from tests.ui.helpers import choose, described, show_tab, type_into

    show_tab(window, window.planner_page)
    choose(window, Choice.MODEL, "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "2048")
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    assert dialog.combos[Option.PRESET].currentText() == "Llama 3.1 8B"
    assert dialog.spins[F.SEQ].text() == "2.048"
    assert dialog.spins[F.HIDDEN].text() == "4.096"
