"""The GPU's speed: the chosen card's figures from the catalogue (read-only, with their
source), or the custom card's, typed in (kept with the planner's settings)."""

from __future__ import annotations

from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from gradacc_desktop.ui.trainer.setup import SetupForm
from gradacc_desktop.viewmodels.planner import PlanField, PlannerViewModel
from gradacc_desktop.viewmodels.planner.fields import SPEED_FIELDS


class CardSpeedForm(SetupForm):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(vm, SPEED_FIELDS, "card_speed", parent)
        # a change of card re-shows these fields (``inputsReplaced``): its figures or
        # the custom card's own
        self.retranslate()
        self.show_inputs(None)

    def title_text(self) -> tuple[str, str]:
        return self._vm.texts.card_name(self._vm.card()), ""

    def _field_enabled(self, field: PlanField) -> bool:
        return self._vm.card() is None  # only the custom card's speed is typed in

    def show_inputs(self, fields: frozenset[object] | None) -> None:
        super().show_inputs(fields)
        self.setTitle(self._vm.texts.card_name(self._vm.card()))


class CardSpeedDialog(QDialog):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card_speed_dialog")
        self._vm = vm
        self.form = CardSpeedForm(vm, self)
        self.note = QLabel(self)
        self.note.setObjectName("card_speed_note")
        self.note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        # the note names the card: it changes with it, not with every keystroke
        vm.inputsReplaced.connect(lambda _fields: self._show_note())
        self.retranslate()

    def _show_note(self) -> None:
        text = self._vm.texts.card_speed_note(self._vm.card())
        if self.note.text() != text:
            self.note.setText(text)

    def retranslate(self) -> None:
        self.setWindowTitle(self._vm.texts.card_speed_title())
        self.form.retranslate()
        self.form.show_inputs(None)
        self._show_note()

    def set_language(self, locale: QLocale) -> None:
        self.form.set_language(locale)
        self.retranslate()
