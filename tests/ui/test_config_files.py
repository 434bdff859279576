"""A trainer's config file in one move: File → Open training config… (Ctrl+O), File →
Open scenario… with a config file, or a file dropped anywhere on the window; then the
file's own micro-batch and accumulation steps held while the GPUs change, marked as the
file's, and the report following the description."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QWidget

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import TrainingField
from tests.ui.helpers import box, described, show_tab, type_into

# micro-batch 4 and 8 accumulation steps; the GPUs are the launch's
PAIR = {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 8}


def _write(folder: Path, name: str = "ds_config.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(PAIR), encoding="utf-8")
    return path


def _drop(widget: QWidget, path: Path) -> None:
    """A file dragged from a file manager and dropped on ``widget``."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    mime.setText(str(path))  # file managers send the path as text too
    point = QPointF(widget.rect().center())
    actions = Qt.DropAction.CopyAction
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), actions, mime, buttons, keys)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(widget, QDropEvent(point, actions, mime, buttons, keys))


def test_ctrl_o_opens_a_training_config(  # type: ignore[no-untyped-def]
    window: MainWindow, monkeypatch, tmp_path: Path
) -> None:
    path = _write(tmp_path)
    monkeypatch.setattr("gradacc_desktop.ui.trainer.check.ask_open_path", lambda *a: path)
    action = window.menus.open_config_action
    assert action.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    assert action.text() == "&Abrir configuração de treino…"
    assert window.menus.open_scenario_action.shortcut() == QKeySequence("Ctrl+Shift+O")
    action.trigger()
    assert window.tabs.currentWidget() is window.trainer_page
    assert window.trainer.check.report.text().startswith("“ds_config.json”: configuração do")
    assert described(window, TrainingField.TARGET).text() == "32"
    assert described(window, TrainingField.MICRO_BATCH).text() == "4"


def test_open_scenario_with_a_training_config_goes_to_the_check(  # type: ignore[no-untyped-def]
    window: MainWindow, monkeypatch, tmp_path: Path
) -> None:
    path = _write(tmp_path)
    monkeypatch.setattr("gradacc_desktop.ui.scenario_dialogs.ask_open_path", lambda *a: path)
    window.menus.open_scenario_action.trigger()
    # no "the setting 'format' is missing": the file was checked and put in
    assert window.tabs.currentWidget() is window.trainer_page
    assert window.statusBar().currentMessage() == "Configuração lida de “ds_config.json”."
    assert described(window, TrainingField.TARGET).text() == "32"


@pytest.mark.parametrize("where", ["calculator field", "window", "description"])
def test_a_config_dropped_anywhere_is_checked(  # type: ignore[no-untyped-def]
    window: MainWindow, tmp_path: Path, where: str
) -> None:
    path = _write(tmp_path)
    if where == "description":
        show_tab(window, window.planner_page)
        target: QWidget = described(window, TrainingField.GPUS)
    elif where == "calculator field":
        from gradacc_desktop.core.calculator import Field

        target = box(window, Field.MICRO_BATCH)
    else:
        target = window
    before = target.text() if where != "window" else ""  # type: ignore[attr-defined]
    _drop(target, path)
    assert window.tabs.currentWidget() is window.trainer_page
    assert described(window, TrainingField.MICRO_BATCH).text() == "4"
    if where != "window":  # the field did not take the path as text
        assert target.text() == before  # type: ignore[attr-defined]


def test_the_files_pair_stays_when_the_gpus_change(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    show_tab(window, window.trainer_page)
    assert window.trainer.check.check(_write(tmp_path))
    report = window.trainer.check.report
    assert report.text().splitlines()[1] == (
        "Verificado em 1 GPU no total: as da descrição do treino (o arquivo não diz)."
    )
    note = window.description.notes[
        next(k for k in window.description.notes if k.value == "batch_note")
    ]
    assert note.isVisible() and note.text().startswith("De “ds_config.json”: micro-lote 4 e 8")
    type_into(qtbot, described(window, TrainingField.GPUS), "4")
    # E follows the GPUs, the file's pair stays: 4 × 8 × 4
    assert described(window, TrainingField.TARGET).text() == "128"
    assert described(window, TrainingField.MICRO_BATCH).text() == "4"
    assert "(4 × 8 × 4 = 128)" in note.text()
    # the report follows, without checking the file again
    lines = report.text().splitlines()
    assert lines[1] == (
        "Verificado em 4 GPUs no total: as da descrição do treino (o arquivo não diz)."
    )
    assert any(line.startswith("Lote efetivo 128 = 4 × 8 × 4 GPUs") for line in lines)
    # a typed target makes the batch the user's own: the mark goes
    type_into(qtbot, described(window, TrainingField.TARGET), "64")
    assert not note.isVisible()
    type_into(qtbot, described(window, TrainingField.GPUS), "2")
    assert described(window, TrainingField.TARGET).text() == "64"
