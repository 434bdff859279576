"""The "Lotes" and "Memória" groups, built from ``FIELD_SPECS``."""

from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.calculator import Field, Inputs
from gradacc_desktop.ui.fields import FIELD_SPECS, FieldSpec, Group
from gradacc_desktop.ui.spinboxes import DecimalSpinBox, IntSpinBox
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel, limits_for

SpinBox = IntSpinBox | DecimalSpinBox


class InputsPanel(QWidget):
    copyRequested = Signal()
    # "Estimar a partir do modelo…" under "Ativação por amostra"
    estimateRequested = Signal()

    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.boxes: dict[Field, SpinBox] = {}
        self.labels: dict[Field, QLabel] = {}
        self._groups: dict[Group, QGroupBox] = {}
        self.estimate_button: QPushButton | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for spec in FIELD_SPECS:
            group = self._groups.get(spec.group)
            if group is None:
                group = self._groups[spec.group] = QGroupBox(self)
                form = QFormLayout(group)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                layout.addWidget(group)
            self._add_field(spec, group)
        layout.addStretch(1)
        vm.inputsReplaced.connect(self.show_inputs)
        vm.fieldReplaced.connect(self.show_value)
        self.show_inputs(vm.last_valid_inputs)
        self.retranslate()

    def _add_field(self, spec: FieldSpec, group: QGroupBox) -> None:
        box: SpinBox
        minimum, maximum = limits_for(spec.field)
        if spec.decimals:
            box = DecimalSpinBox(group)
            box.setDecimals(spec.decimals)
            box.setRange(float(minimum), float(maximum))
            box.setSingleStep(spec.step)
        else:
            box = IntSpinBox(group)
            box.setRange(int(minimum), int(maximum))
        box.setObjectName(spec.object_name)
        # Opaque: a changed value repaints the box, not the group and panel beneath it.
        box.setAutoFillBackground(True)
        box.copyRequested.connect(self.copyRequested)

        # Typing reaches the line edit's signal (also for empty or out-of-range text);
        # stepping and setValue() update the editor with its signals blocked and
        # announce themselves through the spin box's own textChanged.
        def forward(_text: str, field: Field = spec.field, spin: SpinBox = box) -> None:
            self._vm.set_text(field, spin.cleanText())

        box.lineEdit().textChanged.connect(forward)
        box.textChanged.connect(forward)
        label = QLabel(group)
        label.setBuddy(box)
        form = group.layout()
        assert isinstance(form, QFormLayout)
        form.addRow(label, box)
        if spec.estimator:
            self.estimate_button = QPushButton(group)
            self.estimate_button.setObjectName("estimate_activation")
            self.estimate_button.clicked.connect(self.estimateRequested)
            self.estimate_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            form.addRow("", self.estimate_button)
        self.boxes[spec.field] = box
        self.labels[spec.field] = label

    def show_inputs(self, inputs: Inputs) -> None:
        for field, box in self.boxes.items():
            value = inputs.value(field)
            if isinstance(box, DecimalSpinBox):
                box.setValue(float(Decimal(value)))
            else:
                box.setValue(int(value))
            # setValue alone does not rewrite text the user left invalid or empty
            box.lineEdit().setText(box.textFromValue(box.value()))

    def show_value(self, field: Field, value: int | Decimal) -> None:
        """One field was set elsewhere (the planner): show it without disturbing the others."""
        box = self.boxes[field]
        if isinstance(box, DecimalSpinBox):
            box.setValue(float(Decimal(value)))
        else:
            box.setValue(int(value))
        box.lineEdit().setText(box.textFromValue(box.value()))

    def set_locale(self, locale: QLocale) -> None:
        """Re-display every value in ``locale`` (widgets keep the locale they were made with)."""
        for box in self.boxes.values():
            value = box.value()
            box.setLocale(locale)
            box.setValue(value)
            box.lineEdit().setText(box.textFromValue(value))

    def focus_chain(self) -> list[QWidget]:
        """The panel's focusable widgets in reading order."""
        chain: list[QWidget] = []
        for spec in FIELD_SPECS:
            chain.append(self.boxes[spec.field])
            if spec.estimator and self.estimate_button is not None:
                chain.append(self.estimate_button)
        return chain

    def retranslate(self) -> None:
        self._groups[Group.BATCHES].setTitle(self.tr("Batches"))
        self._groups[Group.MEMORY].setTitle(self.tr("Memory"))
        for field, box in self.boxes.items():
            label = self._vm.field_label(field)
            self.labels[field].setText(self._vm.field_label(field, mnemonic=True))
            box.setAccessibleName(label)
            box.setAccessibleDescription(self._vm.field_hint(field))
            box.setToolTip(self._vm.field_hint(field))
            if isinstance(box, DecimalSpinBox):
                box.setSuffix(" " + self._vm.unit_gb())
        if self.estimate_button is not None:
            self.estimate_button.setText(self.tr("&Estimate from the model…"))
            self.estimate_button.setToolTip(
                self.tr("Estimate the activation per sample from the model's shape")
            )
        # One label column across both groups, so the fields line up.
        width = max(label.sizeHint().width() for label in self.labels.values())
        for label in self.labels.values():
            label.setMinimumWidth(width)
