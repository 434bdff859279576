"""A mouse wheel over a field or combo box the user is not using scrolls the page.

Qt gives wheel events to whatever is under the pointer: scrolling a form would
change a number, the GPU model or the rounding mode on the way. ``guard_wheel``
makes a widget take focus only by click or Tab and hands an unfocused wheel to
the scroll area around it. Number fields and combo boxes all use it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget


def scroll_instead(widget: QWidget, event: QEvent) -> bool:
    """A wheel over ``widget`` without focus scrolls the scroll area around it: True
    when the event was handed on (``widget`` must not use it)."""
    if widget.hasFocus():
        return False
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    if parent is not None:
        QApplication.sendEvent(parent.verticalScrollBar(), event)
    return True


class _WheelGuard(QObject):
    """For widgets that are not the app's own classes (Qt's combo boxes); the number
    field overrides ``wheelEvent`` instead, so a keystroke in it never enters Python
    through an event filter."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        return scroll_instead(watched, event)


_GUARD: _WheelGuard | None = None


def guard_wheel(*widgets: QWidget) -> None:
    global _GUARD
    if _GUARD is None:
        _GUARD = _WheelGuard()
    for widget in widgets:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        widget.installEventFilter(_GUARD)
