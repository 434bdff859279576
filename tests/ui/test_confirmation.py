"""Confirmations beside the control that acted: the calculator's copy, the trainer tab's
copy and save — readable for a few seconds, then gone."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from gradacc_desktop.ui.confirmation import SHOWN_MS, Confirmation
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import memory_typed, show_tab


def test_a_confirmation_stays_a_few_seconds_then_goes(qtbot) -> None:  # type: ignore[no-untyped-def]
    assert SHOWN_MS >= 4000  # long enough to read
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    note = Confirmation(parent, "note", shown_ms=200)
    note.say("Copied")
    assert note.isVisible() and note.text() == "✓ Copied"
    assert note.accessibleName() == "Copied"
    qtbot.waitUntil(lambda: not note.isVisible(), timeout=2000)
    assert note.text() == ""


def test_copying_the_results_says_so_beside_the_button(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    copied = window.calculator.copied
    assert not copied.isVisible()
    qtbot.mouseClick(window.copy_button, Qt.MouseButton.LeftButton)
    assert copied.isVisible() and copied.text() == "✓ Copiado"
    # beside the button, on the same row
    button = window.copy_button.geometry()
    assert abs(copied.geometry().center().y() - button.center().y()) <= button.height()
    assert copied.geometry().right() <= button.left()
    qtbot.wait(1000)
    assert copied.isVisible()  # still there to be read


def test_the_export_says_copied_and_saved_beside_its_buttons(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    show_tab(window, window.trainer_page)
    memory_typed(qtbot, window)
    export = window.trainer.export
    qtbot.mouseClick(export.copy_button, Qt.MouseButton.LeftButton)
    assert export.done.isVisible()
    assert export.done.text() == f"✓ {export.current_file()} copiado"
    assert export.save_into(tmp_path, confirm=False)
    assert export.done.text() == f"✓ Salvo em “{tmp_path.name}”"
