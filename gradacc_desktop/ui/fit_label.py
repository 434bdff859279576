"""A label for a big number that shrinks its font instead of resizing the layout."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class FitLabel(QLabel):
    def __init__(self, point_size: float, parent: QWidget | None = None, bold: bool = True) -> None:
        super().__init__(parent)
        self._max_point_size = point_size
        self._min_point_size = 9.0
        font = QFont(self.font())
        font.setPointSizeF(point_size)
        font.setBold(bold)
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._height = QFontMetrics(font).height()
        # The number never changes the layout: fixed height, font shrinks to fit the width.
        self.setFixedHeight(self._height)

    def sizeHint(self) -> QSize:
        return QSize(120, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(40, self._height)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        font = QFont(self.font())
        size = self._max_point_size
        available = max(self.contentsRect().width(), 1)
        while size > self._min_point_size:
            font.setPointSizeF(size)
            if QFontMetrics(font).horizontalAdvance(self.text()) <= available:
                break
            size -= 1.0
        font.setPointSizeF(max(size, self._min_point_size))
        if font != self.font():
            super().setFont(font)
