"""The training setup the exports describe: nodes, ZeRO stage, precision, CPU offload.

Built from ``SETUP_SPECS``: one number field and three choices, each with a visible
label as its buddy and an accessible name."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QWidget

from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.planner import CHOICES, PlanField, PlannerViewModel


class Choice(enum.Enum):
    ZERO = "zero"
    PRECISION = "precision"
    OFFLOAD = "offload"


# In the order the form shows them: the nodes field, then the three choices.
SETUP_SPECS: tuple[PlanField | Choice, ...] = (
    PlanField.NODES,
    Choice.ZERO,
    Choice.PRECISION,
    Choice.OFFLOAD,
)


# (label text by mnemonic flag, [(data, text)], current data)
_Options = tuple[Callable[[bool], str], list[tuple[object, str]], object]


class SetupPanel(QGroupBox):
    copyRequested = Signal()

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainer_setup")
        self._vm = vm
        self._quiet = False
        self.labels: dict[PlanField | Choice, QLabel] = {}
        self.combos: dict[Choice, QComboBox] = {}
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.nodes = NumberField(vm.number_input(PlanField.NODES), self)
        self.nodes.setObjectName("plan_nodes")
        self.nodes.copyRequested.connect(self.copyRequested)
        self.nodes.textChanged.connect(self._on_nodes)
        for spec in SETUP_SPECS:
            label = QLabel(self)
            if isinstance(spec, PlanField):
                widget: QWidget = self.nodes
            else:
                combo = QComboBox(self)
                combo.setObjectName(f"plan_{spec.value}")
                # long choices ("… parameters (ZeRO-3)") never widen the page past 800 px
                combo.setSizeAdjustPolicy(
                    QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
                )
                combo.setMinimumContentsLength(12)
                combo.currentIndexChanged.connect(self._on_choice)
                self.combos[spec] = combo
                widget = combo
            label.setBuddy(widget)
            self.labels[spec] = label
            form.addRow(label, widget)
        guard_wheel(*self.combos.values())
        vm.inputsReplaced.connect(self.show_inputs)
        self.retranslate()
        self.show_inputs(None)

    def _options(
        self,
    ) -> dict[Choice, tuple[Callable[[bool], str], list[tuple[object, str]], object]]:
        texts, vm = self._vm.texts, self._vm
        return {
            Choice.ZERO: (
                texts.zero_label,
                [(int(z), t) for z, t in texts.zero_options()],
                int(vm.zero_stage),
            ),
            Choice.PRECISION: (
                texts.precision_label,
                [(p.value, t) for p, t in texts.precision_options()],
                vm.precision.value,
            ),
            Choice.OFFLOAD: (
                texts.offload_label,
                [(o.value, t) for o, t in texts.offload_options()],
                vm.offload.value,
            ),
        }

    @contextmanager
    def _silently(self) -> Iterator[None]:
        quiet, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = quiet

    def retranslate(self) -> None:
        texts = self._vm.texts
        self.setTitle(self.tr("Training setup"))
        self.setToolTip(texts.setup_hint())
        label = self.labels[PlanField.NODES]
        label.setText(texts.field_label(PlanField.NODES, mnemonic=True))
        self.nodes.setAccessibleName(texts.field_label(PlanField.NODES))
        self.nodes.setToolTip(texts.field_hint(PlanField.NODES))
        self.nodes.setAccessibleDescription(texts.field_hint(PlanField.NODES))
        with self._silently():
            for choice, (name, options, current) in self._options().items():
                self.labels[choice].setText(name(True))
                combo = self.combos[choice]
                combo.setAccessibleName(name(False))
                combo.clear()
                for data, text in options:
                    combo.addItem(text, data)
                combo.setCurrentIndex(max(combo.findData(current), 0))

    def set_language(self, locale: QLocale) -> None:
        self.nodes.setLocale(locale)
        self.show_inputs(None)

    def show_inputs(self, fields: frozenset[object] | None) -> None:
        if fields is None or PlanField.NODES in fields:
            with self._silently():
                self.nodes.set_text(self._vm.shown_text(PlanField.NODES))
        if fields is None or CHOICES in fields:
            with self._silently():
                for choice, (_name, _options, current) in self._options().items():
                    combo = self.combos[choice]
                    combo.setCurrentIndex(max(combo.findData(current), 0))

    def _on_nodes(self, text: str) -> None:
        if not self._quiet:
            self._vm.set_text(PlanField.NODES, text)

    def _on_choice(self, _index: int) -> None:
        if self._quiet:
            return
        zero = self.combos[Choice.ZERO].currentData()
        precision = self.combos[Choice.PRECISION].currentData()
        offload = self.combos[Choice.OFFLOAD].currentData()
        if isinstance(zero, int):
            self._vm.set_zero_stage(ZeroStage(zero))
        if isinstance(precision, str):
            self._vm.set_precision(Precision(precision))
        if isinstance(offload, str):
            self._vm.set_offload(Offload(offload))

    def tab_chain(self) -> list[QWidget]:
        return [self.nodes, *self.combos.values()]
