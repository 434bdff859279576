"""Ctrl+Shift+Tab to the previous tab, from anywhere in the main window.

X sends Ctrl+Shift+Tab as Ctrl+Shift+Backtab, which no key sequence of the
previous-tab action matches and no widget handles (the tabs are a bar over a stack,
not a ``QTabWidget``). X sends no key press for it either, only the shortcut override,
once, to the widget that has the focus: the guard takes it there, before that widget
does. It watches only that widget (or the window itself while nothing in it has the
focus), following the focus: an application-wide filter would run Python for every
event of the app, every repaint of every keystroke included.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

CTRL = Qt.KeyboardModifier.ControlModifier


class PreviousTabKey(QObject):
    """Calls ``previous()`` for Ctrl+Shift+Backtab in ``window`` (see the module)."""

    def __init__(self, window: QWidget, previous: Callable[[], None]) -> None:
        super().__init__(window)
        self._window = window
        self._previous = previous
        self._watched: QWidget | None = None
        self._watch(QApplication.focusWidget())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    @property
    def watched(self) -> QWidget | None:
        return self._watched

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        self._watch(new)

    def _watch(self, focused: QWidget | None) -> None:
        if not shiboken6.isValid(self._window):  # the window is being destroyed
            return
        if focused is None or focused.window() is not self._window:
            focused = self._window
        if focused is self._watched:
            return
        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = focused
        focused.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Backtab
            and event.modifiers() & CTRL
        ):
            event.accept()
            self._previous()
            return True
        return False
