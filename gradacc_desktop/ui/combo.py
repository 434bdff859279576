"""A combo box that ends a choice too long for it with "…" instead of cutting it.

In a narrow column (the training description beside a page at 800 × 600) Qt's
combo box clips its current text mid-word. This one draws the same frame and
arrow and elides the text to the room its style gives the text; the list shows
every choice in full, and the text itself is unchanged.

Typing a choice's words picks it, spaces included: Qt's combo box opens its list on a
space, so "NVIDIA H100" stopped at "NVIDIA" and opened the list; here a space typed
while a search is running (within the platform's keyboard-input interval) goes on with
the search, and a space on its own still opens the list.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, Qt
from PySide6.QtGui import QKeyEvent, QPaintEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)


class ElidingComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: when a printable key was last typed (not valid before the first)
        self._typed = QElapsedTimer()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        searching = self._typed.isValid() and (
            self._typed.elapsed() < QApplication.keyboardInputInterval()
        )
        if event.key() == Qt.Key.Key_Space and searching and not self.isEditable():
            view = self.view()
            view.setCurrentIndex(self.model().index(self.currentIndex(), 0))
            view.keyboardSearch(" ")
            row = view.currentIndex().row()
            if row != self.currentIndex():
                self.setCurrentIndex(row)
                self.activated.emit(row)
            self._typed.restart()
            event.accept()
            return
        if event.text().isprintable() and event.text() and event.key() != Qt.Key.Key_Space:
            self._typed.restart()
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        room = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        option.currentText = self.fontMetrics().elidedText(
            option.currentText, Qt.TextElideMode.ElideRight, room.width()
        )
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
