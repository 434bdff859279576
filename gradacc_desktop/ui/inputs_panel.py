"""The "Lotes" and "Memória" groups, built from ``FIELD_SPECS``."""

from __future__ import annotations

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

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.fields import FIELD_SPECS, FieldSpec, Group
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.verdict import VerdictLabel
from gradacc_desktop.viewmodels.calculator import CalculatorState, CalculatorViewModel


class InputsPanel(QWidget):
    copyRequested = Signal()
    # "Estimar a partir do modelo…" under "Ativação por amostra"
    estimateRequested = Signal()

    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.boxes: dict[Field, NumberField] = {}
        self.labels: dict[Field, QLabel] = {}
        # the view-model's message for a refused entry, under its field (built at the
        # field's first refused entry: most sessions never need one)
        self.errors: dict[Field, VerdictLabel] = {}
        self._errors_shown: set[Field] = set()
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
        vm.inputsReplaced.connect(lambda _inputs: self.show_inputs())
        vm.fieldReplaced.connect(self.show_field)
        vm.stateChanged.connect(self.show_problems)
        self.show_inputs()
        self.retranslate()
        self.show_problems(vm.state)

    def _add_field(self, spec: FieldSpec, group: QGroupBox) -> None:
        box = NumberField(self._vm.number_input(spec.field), group)
        box.setObjectName(spec.object_name)
        # Opaque: a changed value repaints the box, not the group and panel beneath it.
        box.setAutoFillBackground(True)
        box.copyRequested.connect(self.copyRequested)
        # Every change of the text (typed, pasted, stepped, set) reaches the view-model.
        box.textChanged.connect(lambda text, field=spec.field: self._vm.set_text(field, text))
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

    def _error_label(self, field: Field) -> VerdictLabel:
        """The message row under ``field``'s row (built the first time it is needed)."""
        error = self.errors.get(field)
        if error is None:
            box = self.boxes[field]
            form = _form_of(box)
            field_role = QFormLayout.ItemRole.FieldRole
            row = next(
                r
                for r in range(form.rowCount())
                if (item := form.itemAt(r, field_role)) is not None and item.widget() is box
            )
            error = self.errors[field] = VerdictLabel(box.parentWidget())
            error.setObjectName(f"{box.objectName()}_error")
            form.insertRow(row + 1, "", error)
            form.setRowVisible(error, False)
        return error

    def show_inputs(self) -> None:
        """Show what the view-model holds in every field (defaults, settings, scenarios)."""
        for field in self.boxes:
            self.show_field(field)

    def show_field(self, field: Field) -> None:
        """One field was set elsewhere (the planner's shared activation)."""
        self.boxes[field].set_text(self._vm.display_text(field))

    def show_problems(self, state: CalculatorState) -> None:
        """Each refused entry's message under its field (rows change only when needed)."""
        if not state.field_problems and not self._errors_shown:
            return  # the usual keystroke: everything valid before and after
        for field in self.boxes:
            message = state.problem(field)
            if message is None and field not in self._errors_shown:
                continue
            error = self._error_label(field)
            if message is not None:
                error.set_verdict(False, message)
            if (message is not None) != (field in self._errors_shown):
                _form_of(error).setRowVisible(error, message is not None)
                self._errors_shown ^= {field}

    def set_locale(self, locale: QLocale) -> None:
        """Re-display every field in ``locale``: a number keeps its value, unreadable
        text stays as typed (the view-model already reads in ``locale``)."""
        for field, box in self.boxes.items():
            box.setLocale(locale)
            box.set_text(self._vm.display_text(field))

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
            self.labels[field].setText(self._vm.field_label(field, mnemonic=True))
            box.setAccessibleName(self._vm.field_label(field))
            box.setAccessibleDescription(self._vm.field_hint(field))
            box.setToolTip(self._vm.field_hint(field))
        if self.estimate_button is not None:
            self.estimate_button.setText(self.tr("&Estimate from the model…"))
            self.estimate_button.setToolTip(
                self.tr("Estimate the activation per sample from the model's shape")
            )
        # One label column across both groups, so the fields line up.
        width = max(label.sizeHint().width() for label in self.labels.values())
        for label in self.labels.values():
            label.setMinimumWidth(width)


def _form_of(widget: QWidget) -> QFormLayout:
    """The form a field (or its message) sits in: its group's layout."""
    group = widget.parentWidget()
    form = group.layout() if group is not None else None
    assert isinstance(form, QFormLayout)
    return form
