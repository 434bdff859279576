"""The rows of the training description panel, built from ``specs.ROWS``: a label as
the buddy of its field or choice, a check box, or a note with its buttons. A part the
panel (``panel.TrainingPanel``) is composed of: it reads and fills the panel's
widget tables."""

from __future__ import annotations

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.combo import ElidingComboBox
from gradacc_desktop.ui.model_picker import ModelPicker
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.training.specs import CHECK_BOXES, DescriptionSection, Extra, Key, RowSpec
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


def note_label(parent: QWidget, name: str, italic: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 0.92)
    font.setItalic(italic)
    label.setFont(font)
    return label


class PanelRows:
    """Builds the panel's rows into its sections' forms (mixed into the panel)."""

    vm: TrainingViewModel
    copyRequested: SignalInstance
    _forms: dict[DescriptionSection, QFormLayout]
    _rows: dict[Key, QWidget]
    _quiet: bool
    labels: dict[Key, QLabel]
    fields: dict[TrainingField, NumberField]
    combos: dict[Choice, QComboBox]
    checks: dict[Choice, QCheckBox]
    notes: dict[Extra, QLabel]
    recommend: QCheckBox
    activation_back: QToolButton
    other_back: QToolButton
    open_config: QPushButton
    card_speed: QPushButton
    states_details: QPushButton
    load_profile: QPushButton
    clear_profile: QPushButton

    def _on_check(self, choice: Choice, on: bool) -> None:
        raise NotImplementedError

    def _on_choice(self, choice: Choice) -> None:
        raise NotImplementedError

    def _add_row(self, spec: RowSpec, section: QGroupBox) -> None:
        form = self._forms[spec.section]
        key = spec.key
        if isinstance(key, Extra):
            widget = self._extra(key, section)
            form.addRow(widget)
            self._rows[key] = widget
            return
        if key in CHECK_BOXES:
            assert isinstance(key, Choice)
            check = QCheckBox(section)
            check.setObjectName(spec.object_name)
            check.toggled.connect(lambda on, c=key: self._on_check(c, on))
            self.checks[key] = check
            form.addRow(check)
            self._rows[key] = check
            return
        label = QLabel(section)
        widget = self._input(spec, section)
        label.setBuddy(widget)
        self.labels[key] = label
        row: QWidget = widget
        if spec.beside is not None:
            holder = QWidget(section)
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 0, 0)
            line.addWidget(widget, 1)
            beside = {
                Choice.RECOMMEND: self.recommend,
                Extra.ACTIVATION_NOTE: self.activation_back,
                Extra.OTHER_NOTE: self.other_back,
            }[spec.beside]
            beside.setParent(holder)
            line.addWidget(beside)
            row = holder
        form.addRow(label, row)
        self._rows[key] = row

    def _input(self, spec: RowSpec, parent: QWidget) -> QWidget:
        key = spec.key
        if isinstance(key, TrainingField):
            field = NumberField(self.vm.number_input(key), parent)
            field.setObjectName(spec.object_name)
            field.copyRequested.connect(self.copyRequested)

            def forward(text: str, f: TrainingField = key, box: NumberField = field) -> None:
                if not self._quiet and box.isEnabled():
                    self.vm.set_text(f, text)

            field.textChanged.connect(forward)
            self.fields[key] = field
            return field
        assert isinstance(key, Choice)
        vm = self.vm  # the picker's words come from the view-model, never the panel (a cycle)
        combo = (
            ModelPicker(lambda: vm.texts, parent)
            if key is Choice.MODEL
            else ElidingComboBox(parent)
        )
        combo.setObjectName(spec.object_name)
        # long choices never widen the panel past the window
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        combo.currentIndexChanged.connect(lambda _i, c=key: self._on_choice(c))
        self.combos[key] = combo
        return combo

    def _extra(self, key: Extra, parent: QWidget) -> QWidget:
        if key is Extra.OPEN_CONFIG:
            self.open_config.setParent(parent)
            return self.open_config
        if key is Extra.CARD_SPEED:
            self.card_speed.setParent(parent)
            return self.card_speed
        holder = QWidget(parent)
        line = QVBoxLayout(holder)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(2)
        note = note_label(holder, f"training_{key.value}", italic=key is Extra.ACTIVATION_NOTE)
        self.notes[key] = note
        line.addWidget(note)
        buttons: list[QWidget] = []
        if key is Extra.OTHER_NOTE:
            buttons = [self.states_details]
        elif key is Extra.PROFILE:
            buttons = [self.load_profile, self.clear_profile]
        for button in buttons:  # one under the other: the panel stays narrow
            button.setParent(holder)
            line.addWidget(button)
        return holder
