"""The main window's parts: Ctrl+Shift+Tab follows the focus (no application-wide
filter), the menus name the window's commands without importing the window, and the
window restores its state through its persistence part."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import box

UI = Path(__file__).resolve().parents[2] / "gradacc_desktop" / "ui"


def test_the_previous_tab_key_watches_only_the_focused_widget(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.show()
    qtbot.waitExposed(window)
    field = box(window, next(iter(window.inputs.boxes)))
    field.setFocus()
    QApplication.processEvents()
    if QApplication.focusWidget() is not None:  # offscreen: the window may not be active
        assert window.previous_tab_key.watched is QApplication.focusWidget()
    window.tabs.setCurrentIndex(1)
    target = QApplication.focusWidget() or window
    qtbot.keyClick(
        target,
        Qt.Key.Key_Backtab,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert window.tabs.currentIndex() == 0


def test_nothing_filters_every_event_of_the_application(window: MainWindow) -> None:
    """The window used to filter the whole application's events (every repaint of
    every keystroke ran Python): its key guard now watches one widget."""
    watched = window.previous_tab_key.watched
    assert watched is not None and watched.window() is window


def test_the_menus_do_not_import_the_window() -> None:
    tree = ast.parse((UI / "window_menus.py").read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "gradacc_desktop.ui.main_window" not in imported


def test_the_window_restores_what_it_saved(make_window, settings) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.resize(900, 700)
    first.tabs.setCurrentIndex(3)
    first.details.set_open(True)
    first.save_state()
    again = make_window()
    assert again.tabs.currentIndex() == 3
    assert again.details.is_open()
