"""The planner's input groups ("Meta e GPUs", "Memória", "Tokens e passos"), built
from ``PLANNER_FIELD_SPECS``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.planning import Rounding
from gradacc_desktop.ui.planner.fields import (
    PLANNER_FIELD_SPECS,
    Extra,
    Kind,
    PlanGroup,
    PlannerFieldSpec,
)
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.planner import (
    CHOICES,
    PlanField,
    PlannerState,
    PlannerViewModel,
)

# shown in an empty optional field
EMPTY = "—"


class PlannerInputsPanel(QWidget):
    copyRequested = Signal()
    estimateRequested = Signal()

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._quiet = False
        self.boxes: dict[PlanField, NumberField] = {}
        self.labels: dict[PlanField | Kind, QLabel] = {}
        self._groups: dict[PlanGroup, QGroupBox] = {}
        self.recommend = QCheckBox(self)
        self.recommend.setObjectName("plan_recommend")
        self.rounding = QComboBox(self)
        self.rounding.setObjectName("plan_rounding")
        self.card = QComboBox(self)
        self.card.setObjectName("plan_card")
        self.estimate = QPushButton(self)
        self.estimate.setObjectName("plan_estimate")
        self.unit_note = QLabel(self)
        self.unit_note.setObjectName("plan_unit_note")
        self.unit_note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for spec in PLANNER_FIELD_SPECS:
            group = self._groups.get(spec.group)
            if group is None:
                group = self._groups[spec.group] = QGroupBox(self)
                form = QFormLayout(group)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                layout.addWidget(group)
            self._add_row(spec, group)
        memory_form = self._groups[PlanGroup.MEMORY].layout()
        assert isinstance(memory_form, QFormLayout)
        memory_form.addRow(self.unit_note)
        layout.addStretch(1)

        guard_wheel(self.rounding, self.card)
        self.recommend.toggled.connect(self._on_recommend)
        self.rounding.currentIndexChanged.connect(self._on_rounding)
        self.card.currentIndexChanged.connect(self._on_card)
        self.estimate.clicked.connect(self.estimateRequested)
        vm.inputsReplaced.connect(self.show_inputs)
        vm.stateChanged.connect(self._on_state)
        self.retranslate()
        self.show_inputs(None)

    # -- construction -----------------------------------------------------------
    def _add_row(self, spec: PlannerFieldSpec, group: QGroupBox) -> None:
        form = group.layout()
        assert isinstance(form, QFormLayout)
        label = QLabel(group)
        if spec.field is None:
            combo = self.rounding if spec.kind is Kind.ROUNDING else self.card
            combo.setParent(group)
            label.setBuddy(combo)
            form.addRow(label, combo)
            self.labels[spec.kind] = label
            return
        box = self._make_box(spec, group)
        label.setBuddy(box)
        self.boxes[spec.field] = box
        self.labels[spec.field] = label
        if spec.extra is None:
            form.addRow(label, box)
            return
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(box, 1)
        extra = self.recommend if spec.extra is Extra.RECOMMEND else self.estimate
        extra.setParent(group)
        row.addWidget(extra)
        form.addRow(label, row)

    def _make_box(self, spec: PlannerFieldSpec, group: QGroupBox) -> NumberField:
        assert spec.field is not None
        number = self._vm.number_input(spec.field)
        box = NumberField(number, group)
        if number.optional:
            box.lineEdit().setPlaceholderText(EMPTY)
        box.setObjectName(spec.object_name)
        box.copyRequested.connect(self.copyRequested)

        def forward(text: str, field: PlanField = spec.field, spin: NumberField = box) -> None:
            if self._quiet or not spin.isEnabled():
                return
            self._vm.set_text(field, text)

        box.textChanged.connect(forward)
        return box

    @contextmanager
    def _silently(self) -> Iterator[None]:
        quiet, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = quiet

    # -- showing values -----------------------------------------------------------
    def _show(self, field: PlanField, text: str) -> None:
        with self._silently():
            self.boxes[field].set_text(text)

    def show_inputs(self, fields: frozenset[object] | None) -> None:
        """Re-read ``fields`` from the view-model (``None``: everything)."""
        for field in self.boxes:
            if fields is None or field in fields:
                self._show(field, self._vm.shown_text(field))
        if fields is None or CHOICES in fields:
            with self._silently():
                self.recommend.setChecked(self._vm.recommending)
                index = self.rounding.findData(self._vm.rounding.value)
                self.rounding.setCurrentIndex(max(index, 0))
                self.card.setCurrentIndex(max(self.card.findData(self._vm.card_id), 0))
            self._update_enabled()
            self._on_state(self._vm.state)

    def _update_enabled(self) -> None:
        micro = self.boxes[PlanField.MICRO_BATCH]
        micro.setEnabled(not self._vm.recommending)
        # a card from the table shows its usable memory; the custom card, what was typed
        self.boxes[PlanField.GPU_MEMORY].setEnabled(self._vm.card() is None)
        self._show(PlanField.GPU_MEMORY, self._vm.shown_text(PlanField.GPU_MEMORY))
        self.card.setToolTip(self._vm.card_hint(self._vm.card_id))

    def _on_state(self, state: PlannerState) -> None:
        """While recommending, the disabled micro-batch box shows the recommended value."""
        if not self._vm.recommending:
            return
        if state.results is not None and state.results.configuration is not None:
            self._show(PlanField.MICRO_BATCH, self._vm.shown_text(PlanField.MICRO_BATCH))

    # -- user choices ---------------------------------------------------------------
    def _on_recommend(self, on: bool) -> None:
        if self._quiet:
            return
        if not on:
            # the recommended micro-batch shown in the box becomes the user's own
            micro = self.boxes[PlanField.MICRO_BATCH]
            self._vm.set_text(PlanField.MICRO_BATCH, micro.text())
        self._vm.set_recommend(on)
        self._update_enabled()

    def _on_rounding(self, index: int) -> None:
        data = self.rounding.itemData(index)
        if not self._quiet and isinstance(data, str):
            self._vm.set_rounding(Rounding(data))

    def _on_card(self, index: int) -> None:
        data = self.card.itemData(index)
        if self._quiet or not isinstance(data, str):
            return
        self._vm.set_card(data)
        self._update_enabled()

    # -- language -----------------------------------------------------------------
    def set_language(self, locale: QLocale) -> None:
        """Re-display every field in ``locale``: a number keeps its value, unreadable
        text stays as typed (the view-model already reads in ``locale``)."""
        for box in self.boxes.values():
            box.setLocale(locale)
        self.show_inputs(None)

    def retranslate(self) -> None:
        vm, texts = self._vm, self._vm.texts
        self._groups[PlanGroup.TARGET].setTitle(self.tr("Target and GPUs"))
        self._groups[PlanGroup.MEMORY].setTitle(self.tr("Memory"))
        self._groups[PlanGroup.TOKENS].setTitle(self.tr("Tokens and steps"))
        for field, box in self.boxes.items():
            self.labels[field].setText(texts.field_label(field, mnemonic=True))
            box.setAccessibleName(texts.field_label(field))
            box.setAccessibleDescription(texts.field_hint(field))
            box.setToolTip(texts.field_hint(field))
        self.labels[Kind.ROUNDING].setText(texts.rounding_label(mnemonic=True))
        self.rounding.setAccessibleName(texts.rounding_label())
        self.labels[Kind.CARD].setText(texts.card_label(mnemonic=True))
        self.card.setAccessibleName(texts.card_label())
        self.recommend.setText(texts.recommend_label())
        self.recommend.setToolTip(texts.recommend_hint())
        self.estimate.setText(self.tr("E&stimate…"))
        self.estimate.setToolTip(
            self.tr("Estimate the other memory from the model size and training recipe")
        )
        self.unit_note.setText(texts.unit_note())
        with self._silently():
            rounding = [(r.value, text) for r, text in texts.rounding_options()]
            self._fill(self.rounding, rounding, vm.rounding.value)
            self._fill(self.card, vm.card_options(), vm.card_id)
        self.card.setToolTip(vm.card_hint(vm.card_id))
        labels = list(self.labels.values())
        width = max(label.sizeHint().width() for label in labels)
        for each in labels:
            each.setMinimumWidth(width)

    @staticmethod
    def _fill(combo: QComboBox, options: list[tuple[str, str]], current: str) -> None:
        combo.clear()
        for data, text in options:
            combo.addItem(text, data)
        combo.setCurrentIndex(max(combo.findData(current), 0))

    def first_widget(self) -> QWidget:
        return self.boxes[PlanField.TARGET]

    def tab_chain(self) -> list[QWidget]:
        """Focus order, top to bottom."""
        chain: list[QWidget] = []
        for spec in PLANNER_FIELD_SPECS:
            if spec.field is None:
                chain.append(self.rounding if spec.kind is Kind.ROUNDING else self.card)
                continue
            chain.append(self.boxes[spec.field])
            if spec.extra is Extra.RECOMMEND:
                chain.append(self.recommend)
            elif spec.extra is Extra.ESTIMATE:
                chain.append(self.estimate)
        return chain
