"""A combo box that ends a choice too long for it with "…" instead of cutting it.

In a narrow column (the training description beside a page at 800 × 600) Qt's
combo box clips its current text mid-word. This one draws the same frame and
arrow and elides the text to the room its style gives the text; the list shows
every choice in full, and the text itself is unchanged.

Typing picks a choice, as in Qt's combo box, but by any of its words too: "h100" finds
"NVIDIA H100 SXM 80GB" (every card's name starts with its vendor). What was typed
within the platform's keyboard-input interval is one search, spaces included (Qt's
combo box opens its list on a space, so "NVIDIA H100" stopped at "NVIDIA"); a space on
its own still opens the list. A choice whose text starts with the search comes first,
then one with a word that does; the same letter again goes on to the next such choice.
"""

from __future__ import annotations

import re

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

#: what separates the words of a choice ("Fused: SDPA / FlashAttention 2")
_WORDS = re.compile(r"[\s(),:/·]+")


class ElidingComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: when a printable key was last typed (not valid before the first)
        self._typed = QElapsedTimer()
        #: what was typed since the search began
        self._search = ""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        searching = self._typed.isValid() and (
            self._typed.elapsed() < QApplication.keyboardInputInterval()
        )
        typed = bool(text) and text.isprintable() and not self.isEditable()
        if not typed or (event.key() == Qt.Key.Key_Space and not searching):
            super().keyPressEvent(event)  # a space alone opens the list
            return
        self._search = self._search + text if searching else text
        self._typed.restart()
        row = self._find(self._search)
        if row >= 0 and row != self.currentIndex():
            self.setCurrentIndex(row)
            self.activated.emit(row)
        event.accept()

    def _find(self, search: str) -> int:
        """The row ``search`` picks: from the current choice on (after it for one letter,
        and for the same letter typed again), the first whose text starts with it, else
        the first with a word that does; -1 when none."""
        wanted = search.casefold()
        again = len(set(wanted)) == 1 and len(wanted) > 1
        if again:
            wanted = wanted[0]
        count, current = self.count(), max(self.currentIndex(), 0)
        first = current + 1 if len(wanted) == 1 else current
        rows = [(first + k) % count for k in range(count)]
        texts = {row: self.itemText(row).casefold() for row in rows}
        for row in rows:
            if texts[row].startswith(wanted):
                return row
        for row in rows:
            if any(word.startswith(wanted) for word in _WORDS.split(texts[row])):
                return row
        return -1

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
