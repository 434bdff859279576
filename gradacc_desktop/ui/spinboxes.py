"""The number field every input of the app uses.

``QSpinBox``/``QDoubleSpinBox`` own a value of their own and rewrite the text
to match it — on focus-out, on a language change, when a paste reads "0.5" as
5 in Portuguese — without the view-model hearing of it, so the field and the
results could disagree. ``NumberField`` keeps no value: the text the user
typed is the field's truth, every change of it reaches the view-model, and
the view-model's ``NumberInput`` says what the text means, how to step it and
how to show a value. Nothing is fixed up silently: a valid entry is re-shown
in the locale's own form (same value) when editing ends; anything else stays
exactly as typed, with the view-model's message beside it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QValidator, QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QWidget

from gradacc_desktop.ui.wheel import scroll_instead
from gradacc_desktop.viewmodels.number_input import NumberInput

# Longest text a field accepts (a pasted page is refused at the door, not parsed).
MAX_LENGTH = 64


class NumberField(QAbstractSpinBox):
    # Copy pressed with no text selected: the window copies the current tab's results.
    copyRequested = Signal()
    # Every change of the text, typed, pasted, stepped or set: carries the text.
    textChanged = Signal(str)

    def __init__(self, number: NumberInput, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.number = number
        self._steps_for: tuple[str | None, tuple[bool, bool]] = (None, (False, False))
        self.setAccelerated(True)
        self.setKeyboardTracking(True)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        # the wheel changes a value only in the field that has focus (wheelEvent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.lineEdit().setMaxLength(MAX_LENGTH)
        # a file dragged over a field is for the window (it opens the file), not text
        self.lineEdit().setAcceptDrops(False)
        self.setAcceptDrops(False)
        self.lineEdit().textChanged.connect(self.textChanged)
        self.editingFinished.connect(self.tidy)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if scroll_instead(self, event):
            event.accept()
            return
        super().wheelEvent(event)

    # -- the text is the field ------------------------------------------------------
    def text(self) -> str:
        return self.lineEdit().text()

    def set_text(self, text: str) -> None:
        """Show ``text`` (a value set elsewhere: defaults, a scenario, a language switch)."""
        if self.lineEdit().text() != text:
            self.lineEdit().setText(text)

    def tidy(self) -> None:
        """Editing ended: show a valid entry in the locale's own form (same value)."""
        canonical = self.number.canonical(self.text())
        if canonical is not None and canonical != self.text():
            self.lineEdit().setText(canonical)

    # -- QAbstractSpinBox's hooks ------------------------------------------------------
    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        # Every text is accepted as typed; what it means is the view-model's business.
        return QValidator.State.Acceptable, text, pos

    def fixup(self, text: str) -> str:
        return text

    def stepBy(self, steps: int) -> None:
        stepped = self.number.stepped(self.text(), steps)
        if stepped is not None:
            self.lineEdit().setText(stepped)
            self.selectAll()

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self.isReadOnly() or not self.isEnabled():
            return flags
        text = self.text()
        if self._steps_for[0] != text:  # Qt asks on every change and every paint
            self._steps_for = (text, self.number.step_enabled(text))
        up, down = self._steps_for[1]
        if up:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if down:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LocaleChange:  # the same text may mean another number
            self._steps_for = (None, (False, False))
        super().changeEvent(event)

    # -- keyboard, clipboard and wheel -------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy) and not self.lineEdit().hasSelectedText():
            self.copyRequested.emit()
            event.accept()
            return
        # Alt + a key is a mnemonic, never typing: one that reaches no control (a disabled
        # check box's Alt+8) must not put its "8" into the field (Ctrl+Alt is AltGr)
        modifiers = event.modifiers()
        alt = bool(modifiers & Qt.KeyboardModifier.AltModifier)
        if alt and not modifiers & Qt.KeyboardModifier.ControlModifier and event.text():
            event.ignore()
            return
        super().keyPressEvent(event)

    # -- size ---------------------------------------------------------------------------
    def sizeHint(self) -> QSize:
        # Qt's own hint is the style's size around room for an empty value (a space and
        # the cursor's two pixels: QAbstractSpinBox has no minimum or maximum to show);
        # the field needs room for its widest entry instead. Widening Qt's hint by the
        # difference keeps the style's frame and buttons without asking the style here
        # (which would build QStyle's Python enums before the first paint).
        self.ensurePolished()
        metrics = self.fontMetrics()
        texts = [self.number.widest(), self.lineEdit().placeholderText()]
        width = max(metrics.horizontalAdvance(t) for t in texts) + metrics.horizontalAdvance("  ")
        empty = metrics.horizontalAdvance(" ") + 2
        return super().sizeHint() + QSize(max(0, width - empty), 0)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()
