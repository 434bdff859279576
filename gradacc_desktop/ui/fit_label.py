"""One line of text that shrinks its font to fit instead of resizing the layout.

Results change on every keystroke. A ``QLabel`` asks its parent layouts to
recompute on each ``setText`` and repaints the whole results pane; this widget
keeps a fixed size hint, never requests a layout, and repaints only itself.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

_MIN_POINT_SIZE = 7.0


class FitLabel(QWidget):
    def __init__(
        self,
        point_size: float | None = None,
        parent: QWidget | None = None,
        bold: bool = True,
        alignment: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
    ) -> None:
        super().__init__(parent)
        self._text = ""
        self._alignment = alignment | Qt.AlignmentFlag.AlignVCenter
        base = QFont(self.font())
        if point_size is not None:
            base.setPointSizeF(point_size)
        base.setBold(bold)
        self._base = base
        self._fitted = QFont(base)
        super().setFont(base)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._match_parent()
        self._update_height()

    # -- QLabel-like API ------------------------------------------------------
    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        self._fit()
        self.update()

    # -- geometry ---------------------------------------------------------------
    def sizeHint(self) -> QSize:
        return QSize(120, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(40, self._height)

    def _update_height(self) -> None:
        self._base_metrics = QFontMetrics(self._base)
        self._height = self._base_metrics.height() + 2
        self.setFixedHeight(self._height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _match_parent(self) -> None:
        """On a parent that paints its own background (a result card), paint the same
        background: the label is then opaque, and a new number repaints the label alone,
        not the card beneath it. On any other parent, stay transparent."""
        parent = self.parentWidget()
        opaque = parent is not None and parent.autoFillBackground()
        if parent is not None and opaque:
            self.setBackgroundRole(parent.backgroundRole())
        self.setAutoFillBackground(opaque)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ParentChange:
            self._match_parent()
        if event.type() == QEvent.Type.FontChange:
            self._base = QFont(self.font())
            self._update_height()
            self._fit()
        super().changeEvent(event)

    def _fit(self) -> None:
        available = max(self.contentsRect().width(), 1)
        if self._base_metrics.horizontalAdvance(self._text) <= available:
            self._fitted = self._base  # the common case: no new font, no new metrics
            return
        font = QFont(self._base)
        size = self._base.pointSizeF()
        while (
            size > _MIN_POINT_SIZE and QFontMetrics(font).horizontalAdvance(self._text) > available
        ):
            size -= 1.0
            font.setPointSizeF(max(size, _MIN_POINT_SIZE))
        self._fitted = font

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setFont(self._fitted)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect: QRect = self.contentsRect()
        painter.drawText(rect, int(self._alignment) | int(Qt.TextFlag.TextSingleLine), self._text)
