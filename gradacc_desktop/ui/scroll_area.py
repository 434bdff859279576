"""A frameless, vertically scrolling area for a form or a column of cards."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QFocusEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QWidget


class ScrollArea(QScrollArea):
    """A frameless, vertically scrolling area. When it takes the keyboard focus (to
    scroll text that has no control of its own) it draws a focus frame. It scrolls
    sideways only when a translation makes a line wider than the area can grow."""

    FOCUS_MARGIN = 2

    def __init__(self, widget: QWidget, parent: QWidget, focusable: bool) -> None:
        super().__init__(parent)
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        if focusable:
            m = self.FOCUS_MARGIN
            self.setViewportMargins(m, m, m, m)
        else:
            self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Tab between fields is handled by the window, not by this area: scroll the
        # field that takes the focus into view here
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """The whole control comes into view (``ensureWidgetVisible`` settles for a line
        edit's text cursor, leaving a field cut at the edge)."""
        inner = self.widget()
        if new is None or inner is None or not inner.isAncestorOf(new):
            return
        margin = 8
        top = new.mapTo(inner, QPoint(0, 0)).y()
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        if top - margin < bar.value():
            bar.setValue(top - margin)
        elif top + new.height() + margin > bar.value() + height:
            bar.setValue(top + new.height() + margin - height)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.Paint and self.hasFocus():
            painter = QPainter(self)
            pen = QPen(self.palette().color(QPalette.ColorRole.Highlight))
            pen.setWidth(self.FOCUS_MARGIN)
            painter.setPen(pen)
            half = self.FOCUS_MARGIN // 2
            painter.drawRect(self.rect().adjusted(half, half, -half, -half))
        return handled

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.update()
