"""Spin boxes that behave as users expect in Portuguese and English."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox, QWidget


def _wants_window_copy(box: QSpinBox | QDoubleSpinBox, event: QKeyEvent) -> bool:
    """The platform's Copy shortcut with nothing selected copies the results."""
    return event.matches(QKeySequence.StandardKey.Copy) and not box.lineEdit().hasSelectedText()


class IntSpinBox(QSpinBox):
    # Copy pressed with no text selected: the window copies the results.
    copyRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setGroupSeparatorShown(True)
        self.setAccelerated(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if _wants_window_copy(self, event):
            self.copyRequested.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class DecimalSpinBox(QDoubleSpinBox):
    """A decimal spin box where a typed period is a decimal point in every locale.

    In pt-BR the period is the group separator, so ``QDoubleSpinBox`` reads
    "0.5" as 5. Brazilians type a period (main keyboard or keypad) meaning a
    decimal point; this box turns it into the locale's decimal separator.
    Values are shown without trailing zeros (0,5 rather than 0,500).
    """

    copyRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccelerated(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if _wants_window_copy(self, event):
            self.copyRequested.emit()
            event.accept()
            return
        point = self.locale().decimalPoint()
        if event.key() == Qt.Key.Key_Period and event.text() == "." and point != ".":
            event = QKeyEvent(
                event.type(),
                Qt.Key.Key_Comma if point == "," else event.key(),
                event.modifiers(),
                point,
                event.isAutoRepeat(),
                event.count(),
            )
        super().keyPressEvent(event)

    def textFromValue(self, value: float) -> str:
        options = self.locale().numberOptions()
        locale = QLocale(self.locale())
        if not self.isGroupSeparatorShown():
            locale.setNumberOptions(options | QLocale.NumberOption.OmitGroupSeparator)
        text = locale.toString(value, "f", self.decimals())
        if locale.decimalPoint() in text:
            text = text.rstrip("0").rstrip(locale.decimalPoint())
        return text


class BigIntSpinBox(QDoubleSpinBox):
    """A whole-number spin box for counts beyond 32 bits (parameters, dataset samples).

    ``QSpinBox`` stops at 2^31 - 1; a double holds every integer up to 2^53 exactly,
    so this box keeps no decimals and shows group separators ("7.000.000.000" in
    pt-BR, where the period is typed as a group separator, not a decimal point).
    """

    copyRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(0)
        self.setGroupSeparatorShown(True)
        self.setAccelerated(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if _wants_window_copy(self, event):
            self.copyRequested.emit()
            event.accept()
            return
        super().keyPressEvent(event)
