"""The training setup the exports describe (nodes, tensor and pipeline parallelism,
ZeRO stage, precision, CPU offload) and what the time per step is estimated from
(model, recomputation, efficiency, price, token budget).

Both groups are built from a table of specs (``SETUP_SPECS``, ``TIME_SPECS``): number
fields and choices, each with a visible label as its buddy and an accessible name."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QWidget,
)

from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.ui.file_dialogs import ask_open_path
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.planner import CHOICES, PlanField, PlannerViewModel
from gradacc_desktop.viewmodels.settings import Settings


class Choice(enum.Enum):
    ZERO = "zero"
    PRECISION = "precision"
    OFFLOAD = "offload"
    MODEL = "model"
    RECOMPUTE = "recompute"


Spec = PlanField | Choice

# In the order the forms show them.
SETUP_SPECS: tuple[Spec, ...] = (
    PlanField.NODES,
    PlanField.TENSOR_PARALLEL,
    PlanField.PIPELINE_STAGES,
    Choice.ZERO,
    Choice.PRECISION,
    Choice.OFFLOAD,
)
TIME_SPECS: tuple[Spec, ...] = (
    Choice.MODEL,
    PlanField.MODEL_PARAMS,
    Choice.RECOMPUTE,
    PlanField.EFFICIENCY,
    PlanField.PRICE,
    PlanField.TOKENS,
    PlanField.EPOCHS,
)

# (label text by mnemonic flag, [(data, text)], current data)
_Options = tuple[Callable[[bool], str], list[tuple[object, str]], object]


class SetupForm(QGroupBox):
    """A form of the planner's fields and choices, kept in step with its view-model."""

    copyRequested = Signal()

    def __init__(
        self, vm: PlannerViewModel, specs: tuple[Spec, ...], name: str, parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._vm = vm
        self._specs = specs
        self._quiet = False
        self.labels: dict[Spec, QLabel] = {}
        self.fields: dict[PlanField, NumberField] = {}
        self.combos: dict[Choice, QComboBox] = {}
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for spec in specs:
            label = QLabel(self)
            widget: QWidget
            if isinstance(spec, PlanField):
                field = NumberField(vm.number_input(spec), self)
                field.setObjectName(f"plan_{spec.value}")
                field.copyRequested.connect(self.copyRequested)
                field.textChanged.connect(
                    lambda text, f=spec: None if self._quiet else self._vm.set_text(f, text)
                )
                self.fields[spec] = field
                widget = field
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

    # -- what subclasses say ------------------------------------------------------
    def title_text(self) -> tuple[str, str]:
        """(title, tooltip)."""
        raise NotImplementedError

    def _options(self) -> dict[Choice, _Options]:
        """Each choice's label, options and current value (none by default)."""
        return {}

    def _choose(self, choice: Choice, data: object) -> None:
        """The user picked ``data`` in ``choice`` (a form without choices never is)."""

    def _field_enabled(self, field: PlanField) -> bool:
        return True

    # -- shared -------------------------------------------------------------------
    @contextmanager
    def _silently(self) -> Iterator[None]:
        quiet, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = quiet

    def retranslate(self) -> None:
        texts = self._vm.texts
        title, hint = self.title_text()
        self.setTitle(title)
        self.setToolTip(hint)
        for spec, box in self.fields.items():
            self.labels[spec].setText(texts.field_label(spec, mnemonic=True))
            box.setAccessibleName(texts.field_label(spec))
            box.setToolTip(texts.field_hint(spec))
            box.setAccessibleDescription(texts.field_hint(spec))
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
        for box in self.fields.values():
            box.setLocale(locale)
        self.show_inputs(None)

    def show_inputs(self, fields: frozenset[object] | None) -> None:
        with self._silently():
            for spec, box in self.fields.items():
                if fields is None or spec in fields:
                    box.set_text(self._vm.shown_text(spec))
                box.setEnabled(self._field_enabled(spec))
            if fields is None or CHOICES in fields:
                for choice, (_name, _options, current) in self._options().items():
                    combo = self.combos[choice]
                    combo.setCurrentIndex(max(combo.findData(current), 0))

    def _on_choice(self, _index: int) -> None:
        if self._quiet:
            return
        for choice, combo in self.combos.items():
            self._choose(choice, combo.currentData())

    def tab_chain(self) -> list[QWidget]:
        chain: list[QWidget] = []
        for spec in self._specs:
            chain.append(self.fields[spec] if isinstance(spec, PlanField) else self.combos[spec])
        return chain


class SetupPanel(SetupForm):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(vm, SETUP_SPECS, "trainer_setup", parent)
        self.nodes = self.fields[PlanField.NODES]
        self.retranslate()
        self.show_inputs(None)

    def title_text(self) -> tuple[str, str]:
        return self.tr("Training setup"), self._vm.texts.setup_hint()

    def _options(self) -> dict[Choice, _Options]:
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

    def _choose(self, choice: Choice, data: object) -> None:
        if choice is Choice.ZERO and isinstance(data, int):
            self._vm.set_zero_stage(ZeroStage(data))
        elif choice is Choice.PRECISION and isinstance(data, str):
            self._vm.set_precision(Precision(data))
        elif choice is Choice.OFFLOAD and isinstance(data, str):
            self._vm.set_offload(Offload(data))


class TimeSetupPanel(SetupForm):
    """The time model's inputs, and the measured speed profile that can replace its
    micro-step (load a file written by the measuring tool, or discard it)."""

    statusMessage = Signal(str)

    def __init__(
        self,
        vm: PlannerViewModel,
        parent: QWidget | None = None,
        settings: Callable[[], Settings | None] = lambda: None,
    ) -> None:
        super().__init__(vm, TIME_SPECS, "trainer_time", parent)
        self._settings = settings
        self.profile = QLabel(self)
        self.profile.setObjectName("plan_profile_summary")
        self.profile.setWordWrap(True)
        self.load_profile_button = QPushButton(self)
        self.load_profile_button.setObjectName("plan_load_profile")
        self.clear_profile_button = QPushButton(self)
        self.clear_profile_button.setObjectName("plan_clear_profile")
        # the card's speed: the catalogue's figures, or the custom card's typed in
        self.card_speed_button = QPushButton(self)
        self.card_speed_button.setObjectName("plan_card_speed")
        self.card_speed_dialog: QDialog | None = None
        form_ = self.layout()
        assert isinstance(form_, QFormLayout)
        form_.addRow(self.card_speed_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.load_profile_button)
        buttons.addWidget(self.clear_profile_button)
        buttons.addStretch(1)
        form = self.layout()
        assert isinstance(form, QFormLayout)
        form.addRow(self.profile)
        form.addRow(buttons)
        self.load_profile_button.clicked.connect(self.ask_profile)
        self.card_speed_button.clicked.connect(self.open_card_speed)
        self.clear_profile_button.clicked.connect(vm.clear_profile)
        self.retranslate()
        self.show_inputs(None)
        # the empty efficiency field shows the card's own figure, which follows the card
        vm.stateChanged.connect(self._show_efficiency_placeholder)
        self._show_efficiency_placeholder()

    def _show_efficiency_placeholder(self, _state: object = None) -> None:
        line = self.fields[PlanField.EFFICIENCY].lineEdit()
        text = self._vm.efficiency_placeholder()
        if line.placeholderText() != text:
            line.setPlaceholderText(text)
        summary = self._vm.profile_summary()
        if self.profile.text() != summary:
            self.profile.setText(summary)
        self.clear_profile_button.setEnabled(self._vm.profile is not None)

    def retranslate(self) -> None:
        super().retranslate()
        if hasattr(self, "load_profile_button"):
            texts = self._vm.texts
            self.load_profile_button.setText(texts.load_profile_label())
            self.load_profile_button.setToolTip(
                self.tr(
                    "A speed profile recorded with python -m gradacc_desktop.measure "
                    "--time-micro-batches … --profile-out: its measured times replace the "
                    "estimate of one micro-step"
                )
            )
            self.clear_profile_button.setText(texts.clear_profile_label())
            self.card_speed_button.setText(texts.card_speed_button())
            self._show_efficiency_placeholder()

    def open_card_speed(self) -> QDialog:
        """The card's speed (the custom card's is typed in there)."""
        from gradacc_desktop.ui.trainer.card_speed import CardSpeedDialog

        if self.card_speed_dialog is None:
            self.card_speed_dialog = CardSpeedDialog(self._vm, self)
            self.card_speed_dialog.form.copyRequested.connect(self.copyRequested)
        self.card_speed_dialog.show()
        self.card_speed_dialog.raise_()
        self.card_speed_dialog.activateWindow()
        return self.card_speed_dialog

    def set_language(self, locale: QLocale) -> None:
        super().set_language(locale)
        dialog = self.card_speed_dialog
        if dialog is not None and hasattr(dialog, "set_language"):
            dialog.set_language(locale)

    def ask_profile(self) -> None:
        path = ask_open_path(
            self,
            self.tr("Load a measured speed profile"),
            self.tr("Speed profiles (*.json);;All files (*)"),
            self._settings(),
        )
        if path is not None:
            self.load_profile_from(path)

    def load_profile_from(self, path: Path) -> bool:
        outcome = self._vm.load_profile(path)
        self.statusMessage.emit(outcome.message)
        if not outcome.ok:
            QMessageBox.warning(self, self.tr("Speed profile"), outcome.message)
        return outcome.ok

    def tab_chain(self) -> list[QWidget]:
        return [
            *super().tab_chain(),
            self.card_speed_button,
            self.load_profile_button,
            self.clear_profile_button,
        ]

    def title_text(self) -> tuple[str, str]:
        texts = self._vm.texts
        return texts.time_setup_title(), texts.time_setup_hint()

    def _options(self) -> dict[Choice, _Options]:
        texts, vm = self._vm.texts, self._vm
        return {
            Choice.MODEL: (texts.model_label, list(vm.model_options()), vm.model_name or ""),
            Choice.RECOMPUTE: (
                texts.recompute_label,
                [(r.value, t) for r, t in texts.recompute_options()],
                vm.recompute.value,
            ),
        }

    def _choose(self, choice: Choice, data: object) -> None:
        if choice is Choice.MODEL and isinstance(data, str):
            self._vm.set_model(data or None)
        elif choice is Choice.RECOMPUTE and isinstance(data, str):
            self._vm.set_recompute(Recompute(data))

    def _field_enabled(self, field: PlanField) -> bool:
        # a bundled model gives its own parameters
        return field is not PlanField.MODEL_PARAMS or self._vm.model_name is None
