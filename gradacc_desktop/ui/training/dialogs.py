"""The description's two dialogs: the card's speed (the catalogue's figures, read-only
with their source, or the custom card's typed in) and the model states behind the other
memory, component by component."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.viewmodels.model_states import ModelStatesState, ModelStatesViewModel
from gradacc_desktop.viewmodels.training.fields import SPEED_FIELDS, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


def _label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class CardSpeedDialog(QDialog):
    def __init__(self, vm: TrainingViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card_speed_dialog")
        self._vm = vm
        self._quiet = False
        self.group = QGroupBox(self)
        form = QFormLayout(self.group)
        self.fields: dict[TrainingField, NumberField] = {}
        self.labels: dict[TrainingField, QLabel] = {}
        for field in SPEED_FIELDS:
            box = NumberField(vm.number_input(field), self.group)
            box.setObjectName(f"plan_{field.value}")
            box.lineEdit().setPlaceholderText("—")
            label = QLabel(self.group)
            label.setBuddy(box)
            form.addRow(label, box)
            box.textChanged.connect(
                lambda text, f=field, b=box: (
                    None if self._quiet or not b.isEnabled() else self._vm.set_text(f, text)
                )
            )
            self.fields[field] = box
            self.labels[field] = label
        self.note = _label(self, "card_speed_note")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.group)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        vm.inputsReplaced.connect(lambda _fields: self.show_inputs())
        self.retranslate()

    def show_inputs(self) -> None:
        self._quiet = True
        try:
            for field, box in self.fields.items():
                box.set_text(self._vm.shown_text(field))
                box.setEnabled(self._vm.editable(field))
        finally:
            self._quiet = False
        card = self._vm.card()
        self.group.setTitle(self._vm.texts.card_options(())[-1][1] if card is None else card.name)
        note = self._note()
        if self.note.text() != note:
            self.note.setText(note)

    def _note(self) -> str:
        card = self._vm.card()
        if card is None:
            return self.tr(
                "The custom card's speed, as you type it: the time per step needs all four."
            )
        perf = card.performance
        if perf is None:
            return ""
        return self.tr(
            "{name}: the vendor's figures ({source}). The peak is the dense bf16 rate{no_bf16}. "
            "Choose the custom card in the description to type your own."
        ).format(
            name=card.name,
            source=perf.source,
            no_bf16=self.tr(" (this card has no bf16: fp16 shown)")
            if perf.bf16_tflops is None
            else "",
        )

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("GPU speed"))
        texts = self._vm.texts
        for field, label in self.labels.items():
            label.setText(texts.field_label(field, mnemonic=True))
            box = self.fields[field]
            box.setAccessibleName(texts.field_label(field))
            box.setToolTip(texts.field_hint(field))
        self.show_inputs()

    def set_language(self, locale: QLocale) -> None:
        for box in self.fields.values():
            box.setLocale(locale)
        self.retranslate()


class ModelStatesDialog(QDialog):
    """Weights, gradients and optimizer states on one GPU, as DeepSpeed counts them for
    the description, and the CPU memory per node (read-only)."""

    def __init__(self, vm: ModelStatesViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("model_states_dialog")
        self._vm = vm
        self.breakdown = QGroupBox(self)
        self.grid = QGridLayout(self.breakdown)
        self.rows: list[tuple[QLabel, QLabel, QLabel]] = []
        self.message = _label(self, "states_message")
        self.lora = _label(self, "states_lora")
        self.states = _label(self, "states_states")
        self.total = _label(self, "states_total")
        font = self.total.font()
        font.setBold(True)
        self.total.setFont(font)
        self.sharding = _label(self, "states_sharding")
        self.cpu = _label(self, "states_cpu")
        self.source = _label(self, "states_source")
        self.overridden = _label(self, "states_overridden")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (
            self.message,
            self.overridden,
            self.lora,
            self.breakdown,
            self.states,
            self.total,
            self.sharding,
            self.cpu,
            self.source,
            self.buttons,
        ):
            layout.addWidget(widget)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self._vm.title())
        self.breakdown.setTitle(self._vm.title())
        self._vm.refresh()

    def show_state(self, state: ModelStatesState) -> None:
        view = state.view
        self.message.setText(state.message)
        self.message.setVisible(view is None)
        for widget in (self.breakdown, self.states, self.total, self.sharding, self.cpu):
            widget.setVisible(view is not None)
        self.source.setVisible(view is not None)
        if view is None:
            self.lora.hide()
            self.overridden.hide()
            return
        headers = self._vm.headers()
        rows = (headers, *view.rows)
        while len(self.rows) < len(rows):
            r = len(self.rows)
            cells = (QLabel(self.breakdown), QLabel(self.breakdown), QLabel(self.breakdown))
            for c, cell in enumerate(cells):
                cell.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                if c:
                    cell.setAlignment(Qt.AlignmentFlag.AlignRight)
                self.grid.addWidget(cell, r, c)
            self.rows.append(cells)
        for r, cells in enumerate(self.rows):
            shown = r < len(rows)
            for c, cell in enumerate(cells):
                cell.setVisible(shown)
                if shown:
                    cell.setText(rows[r][c])
                    font = cell.font()
                    font.setBold(r in (0, len(rows) - 1))
                    cell.setFont(font)
        self.states.setText(view.states)
        self.total.setText(view.total)
        self.sharding.setText(view.sharding)
        self.cpu.setText(view.cpu)
        self.source.setText(view.source)
        self.lora.setText(view.lora)
        self.lora.setVisible(bool(view.lora))
        self.overridden.setText(view.overridden)
        self.overridden.setVisible(bool(view.overridden))
