"""The "Estimate activation from the model" dialog, built from ``CONTROL_SPECS``.

Every edit updates the estimate at once; "Use this value" puts the peak per sample
in the calculator's "activation per sample". A model's config.json can be opened or
dropped anywhere on the dialog. All text and numbers come from
``ActivationViewModel``; this module only places and wires widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QLocale, QSignalBlocker, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.activation_fields import CONTROL_SPECS, ActivationSection, ControlSpec, Kind
from gradacc_desktop.ui.activation_model import ModelSourcePanel
from gradacc_desktop.ui.activation_parts import MeasurePanel
from gradacc_desktop.ui.activation_results import EstimatePanel
from gradacc_desktop.ui.drops import accept_file_drag, dropped_file
from gradacc_desktop.ui.screen_fit import fit_to_screen
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.activation import (
    FLAGS,
    IMAGE_FIELDS,
    ActivationField,
    ActivationState,
    ActivationViewModel,
    Control,
    Option,
)
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.settings import Settings

if TYPE_CHECKING:  # only named in annotations
    from gradacc_desktop.core.training.description import TrainingDescription


class ActivationDialog(QDialog):
    def __init__(
        self,
        calculator_vm: CalculatorViewModel,
        parent: QWidget | None = None,
        vm: ActivationViewModel | None = None,
        settings: Settings | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("activation_dialog")
        self.setAcceptDrops(True)
        self._calculator = calculator_vm
        self.vm = vm if vm is not None else ActivationViewModel(calculator_vm.locale, self)
        self.setLocale(self.vm.locale)

        self.spins: dict[ActivationField, NumberField] = {}
        self.combos: dict[Option, QComboBox] = {}
        self.checks: dict[Option, QCheckBox] = {}
        self.labels: dict[Control, QLabel] = {}
        self.groups: dict[ActivationSection, QGroupBox] = {}

        inputs_column = QVBoxLayout()
        for section in ActivationSection:
            group = self.groups[section] = QGroupBox(self)
            form = QFormLayout(group)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            inputs_column.addWidget(group)
        inputs_column.addStretch(1)
        for spec in CONTROL_SPECS:
            self._add_control(spec)
        # under the model choice: open a config.json, and what was read
        self.model_source = ModelSourcePanel(
            self.vm, self.groups[ActivationSection.MODEL], lambda: settings
        )
        model_form = self.groups[ActivationSection.MODEL].layout()
        assert isinstance(model_form, QFormLayout)
        model_form.insertRow(1, self.model_source)

        results = self.results_group = EstimatePanel(self)
        # the parts tests and the tab order reach through the dialog
        self.saved, self.peak, self.table = results.saved, results.peak, results.table
        self.prompt, self.problems, self.pages = results.prompt, results.problems, results.pages
        self.assumptions, self.assumptions_text = results.assumptions, results.assumptions_text
        self.calculator_note, self.warnings = results.calculator_note, results.warnings
        self.measure = MeasurePanel(self)
        self.measure_text = self.measure.text
        self.measure_command = self.measure.command
        self.copy_command = self.measure.copy_button

        self.buttons = QDialogButtonBox(self)
        self.use_button = self.buttons.addButton("", QDialogButtonBox.ButtonRole.AcceptRole)
        self.use_button.setObjectName("activation_use")
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        # Enter means "use this value", and nothing while there is no estimate.
        self.use_button.setDefault(True)
        self.cancel_button.setAutoDefault(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        # Everything but the buttons scrolls: at 800×600, or on a small screen, nothing
        # is squeezed or cut, and "Usar este valor" stays in reach.
        content = QWidget(self)
        content.setObjectName("activation_content")
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addLayout(inputs_column, 0)
        body.addWidget(results, 1)
        # the cards keep room for their numbers; the breakdown spans the whole width
        # below, so the part names are never cut
        results.setMinimumWidth(self.fontMetrics().averageCharWidth() * 56)
        self.table.setMinimumHeight(self.fontMetrics().height() * 12)
        content_layout = QVBoxLayout(content)
        content_layout.setContentsMargins(0, 0, 0, 0)
        content_layout.addLayout(body)
        content_layout.addWidget(self.table, 1)
        # "measure instead" sits under the cards, in the room the inputs column leaves
        results.add_below_cards(self.measure)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("activation_scroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(content)
        # a dialog smaller than this scrolls rather than shrinking further
        self.scroll_area.setMinimumSize(560, 400)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.buttons)

        self._set_tab_order()
        self.vm.stateChanged.connect(self.show_state)
        self.vm.valuesReplaced.connect(self.show_values)
        self.show_values({f: self.vm.value(f) for f in ActivationField})
        self.retranslate()
        fit_to_screen(self, 1000, 780)  # its buttons stay on the screen

    # -- construction ---------------------------------------------------------
    def _add_control(self, spec: ControlSpec) -> None:
        group = self.groups[spec.section]
        form = group.layout()
        assert isinstance(form, QFormLayout)
        widget: QWidget
        if spec.kind is Kind.CHECK:
            assert isinstance(spec.control, Option)
            check = QCheckBox(group)
            check.toggled.connect(self._checked_setter(spec.control))
            self.checks[spec.control] = check
            widget = check
            form.addRow(check)
        else:
            if spec.kind is Kind.NUMBER:
                assert isinstance(spec.control, ActivationField)
                widget = self._spin(spec.control, group)
            else:
                assert isinstance(spec.control, Option)
                combo = QComboBox(group)
                guard_wheel(combo)
                combo.currentIndexChanged.connect(self._choice_setter(spec.control, combo))
                self.combos[spec.control] = combo
                widget = combo
            label = QLabel(group)
            label.setBuddy(widget)
            self.labels[spec.control] = label
            form.addRow(label, widget)
        widget.setObjectName(spec.object_name)

    def _spin(self, field: ActivationField, parent: QWidget) -> NumberField:
        spin = NumberField(self.vm.number_input(field), parent)
        spin.setLocale(self.vm.locale)
        # every change of the text (typed, pasted, stepped, set) reaches the view-model
        spin.textChanged.connect(lambda text: self.vm.set_text(field, text))
        self.spins[field] = spin
        return spin

    def _choice_setter(self, option: Option, combo: QComboBox) -> Callable[[int], None]:
        setters: dict[Option, Callable[[Any], None]] = {
            Option.PRESET: self.vm.select_preset,
            Option.FAMILY: self.vm.set_family,
            **{
                o: partial(self.vm.set_option, o)
                for o in (Option.DTYPE, Option.ATTENTION, Option.RECOMPUTE, Option.PROFILE)
            },
        }
        setter = setters[option]

        def changed(index: int) -> None:
            if index >= 0:
                setter(combo.itemData(index))

        return changed

    def _checked_setter(self, option: Option) -> Callable[[bool], None]:
        return partial(self.vm.set_option, option)

    def _set_tab_order(self) -> None:
        chain: list[QWidget] = []
        for spec in CONTROL_SPECS:
            widget = self.findChild(QWidget, spec.object_name)
            assert widget is not None
            chain.append(widget)
            if spec.control is Option.PRESET:
                chain.append(self.model_source.open_button)
        chain += [
            self.table,
            self.assumptions.toggle,
            self.assumptions_text,
            self.measure_command,
            self.copy_command,
            self.use_button,
            self.cancel_button,
        ]
        for first, second in pairwise(chain):
            self.setTabOrder(first, second)

    # -- language -------------------------------------------------------------
    def retranslate(self) -> None:
        vm, texts = self.vm, self.vm.texts
        self.setWindowTitle(texts.title())
        self.groups[ActivationSection.MODEL].setTitle(self.tr("Model"))
        self.groups[ActivationSection.STEP].setTitle(self.tr("Training step"))
        for control, label in self.labels.items():
            label.setText(texts.label(control, mnemonic=True))
        # One label column across both groups, so the fields line up.
        width = max(label.sizeHint().width() for label in self.labels.values())
        for label in self.labels.values():
            label.setMinimumWidth(width)
        for spec in CONTROL_SPECS:
            widget = self.findChild(QWidget, spec.object_name)
            assert widget is not None
            widget.setAccessibleName(texts.label(spec.control))
            widget.setAccessibleDescription(texts.hint(spec.control))
            widget.setToolTip(texts.hint(spec.control))
        for option, check in self.checks.items():
            check.setText(texts.label(option, mnemonic=True))
        self.model_source.retranslate()
        self._fill_choices()
        self.results_group.retranslate()
        self.measure.setTitle(self.tr("Measure instead of estimating"))
        self.measure_text.setText(
            self.tr(
                "With PyTorch and transformers installed, this command builds your model from "
                "its config.json with random weights (nothing is downloaded) and prints the "
                "bytes autograd keeps for the backward pass, per sample:"
            )
        )
        self.measure_command.setAccessibleName(self.tr("Measuring command"))
        self.copy_command.setText(self.tr("Cop&y command"))
        self.use_button.setText(self.tr("&Use this value"))
        self.use_button.setToolTip(
            self.tr("Put the peak per sample in the calculator's activation per sample.")
        )
        self.show_state(vm.state)

    def _fill_choices(self) -> None:
        vm, texts = self.vm, self.vm.texts
        choices: dict[Option, tuple[tuple[Any, str], ...]] = {
            Option.PRESET: vm.preset_choices(),
            Option.FAMILY: vm.family_choices(),
            Option.DTYPE: texts.dtype_choices(),
            Option.ATTENTION: texts.attention_choices(),
            Option.RECOMPUTE: texts.recompute_choices(),
            Option.PROFILE: texts.profile_choices(),
        }
        for option, combo in self.combos.items():
            wanted = choices[option]
            current = tuple((combo.itemData(i), combo.itemText(i)) for i in range(combo.count()))
            if [d for d, _t in current] == [d for d, _t in wanted] and option is Option.PRESET:
                continue  # same choices: the current item's text is set by _show_options
            if current == wanted:
                continue
            with QSignalBlocker(combo):
                combo.clear()
                for data, text in wanted:
                    combo.addItem(text, data)

    def set_language(self, locale: QLocale) -> None:
        """After a language switch (the main window's one route): the view-model's new
        state, every field re-shown in ``locale`` (a number keeps its value, unreadable
        text stays as typed), and the dialog's words."""
        self.setLocale(locale)
        self.vm.set_language(locale)
        for field, spin in self.spins.items():
            spin.setLocale(locale)
            spin.set_text(self.vm.display_text(field))
        self.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # a light or dark theme's red
            self.show_state(self.vm.state)

    # -- state ----------------------------------------------------------------
    def show_values(self, values: dict[ActivationField, int | None]) -> None:
        for field in values:
            self.spins[field].set_text(self.vm.display_text(field))

    def show_state(self, state: ActivationState) -> None:
        self._fill_choices()  # an opened file or another family adds a choice
        self._show_options(state)
        self.model_source.show_state(state)
        locked = state.model_loaded
        for field in (
            ActivationField.HIDDEN,
            ActivationField.LAYERS,
            ActivationField.HEADS,
            ActivationField.INTERMEDIATE,
            ActivationField.VOCAB,
        ):
            self._lock(self.spins[field], locked)
        self.combos[Option.FAMILY].setEnabled(not locked)
        for option in (Option.PROFILE, Option.SEQUENCE_PARALLEL):
            widget = self.combos.get(option) or self.checks[option]
            widget.setEnabled(state.typed_family)
        self.spins[ActivationField.TENSOR_PARALLEL].setEnabled(state.typed_family)
        self.checks[Option.USE_CACHE].setEnabled(state.cache_applies)
        self.checks[Option.FUSED_LOSS].setEnabled(state.loss_fuses)
        step = self.groups[ActivationSection.STEP].layout()
        assert isinstance(step, QFormLayout)
        step.setRowVisible(self.spins[ActivationField.TARGET_SEQ], state.encoder_decoder)
        for field in IMAGE_FIELDS:
            step.setRowVisible(self.spins[field], field in state.image_fields)
        step.setRowVisible(self.checks[Option.VISION_FROZEN], state.vision)
        self._lock(self.spins[ActivationField.SEQ], state.fixed_seq)
        invalid = f"color: {verdict_colour(self.palette(), ok=False).name()};"
        for field in self.spins:
            # the field's label turns red while its value is the problem
            self.labels[field].setStyleSheet(invalid if field in state.invalid else "")
        self.spins[ActivationField.KV_HEADS].setEnabled(not state.kv_heads_follow_heads)
        self._lock(self.spins[ActivationField.KV_HEADS], locked)
        self.use_button.setEnabled(state.can_use)
        self.measure.show_command(state.measure_command)
        self.results_group.show_state(state)

    @staticmethod
    def _lock(spin: NumberField, locked: bool) -> None:
        """A size read from the config.json: selectable and copyable, not editable; no
        step arrows, so it does not look editable either."""
        spin.setReadOnly(locked)
        symbols = QAbstractSpinBox.ButtonSymbols
        spin.setButtonSymbols(symbols.NoButtons if locked else symbols.UpDownArrows)

    def _show_options(self, state: ActivationState) -> None:
        o = state.options
        wanted: dict[Option, object] = {
            Option.PRESET: state.preset,
            Option.FAMILY: o.family,
            Option.DTYPE: o.dtype,
            Option.ATTENTION: o.attention,
            Option.RECOMPUTE: o.recompute,
            Option.PROFILE: o.profile,
        }
        for option, combo in self.combos.items():
            with QSignalBlocker(combo):
                for index in range(combo.count()):
                    if combo.itemData(index) == wanted[option]:
                        combo.setCurrentIndex(index)
                        break
        preset = self.combos[Option.PRESET]
        with QSignalBlocker(preset):
            for index, (_name, text) in enumerate(self.vm.preset_choices()):
                current = index == preset.currentIndex()
                preset.setItemText(index, state.preset_label if current else text)
        for option in FLAGS:
            with QSignalBlocker(self.checks[option]):
                self.checks[option].setChecked(getattr(o, option.value))

    # -- behaviour ------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        accept_file_drag(event)

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_file(event)
        if path is not None:
            self.model_source.open(path)

    def accept(self) -> None:
        if self.vm.use_value(self._calculator):
            super().accept()


SETTINGS_GROUP = "estimator"


def open_activation_dialog(
    calculator_vm: CalculatorViewModel,
    parent: QWidget | None = None,
    settings: Settings | None = None,
    described: TrainingDescription | None = None,
) -> ActivationDialog:
    """Show the dialog (non-modal; one per parent: an open one is raised instead).

    With ``settings``, it opens with the setup it had when last closed and
    remembers the new one when it closes; ``described``: the training description, whose
    step (model, sequence length, precision, attention, recomputation, loss) it opens
    with.
    """
    if parent is not None:
        for existing in parent.findChildren(ActivationDialog):
            if existing.isVisible():
                existing.raise_()
                existing.activateWindow()
                return existing
    vm = ActivationViewModel(calculator_vm.locale)
    if settings is not None:
        vm.restore(settings.read_group(SETTINGS_GROUP))
    vm.start_from(described)
    dialog = ActivationDialog(calculator_vm, parent, vm=vm, settings=settings)
    vm.setParent(dialog)
    if settings is not None:
        dialog.finished.connect(lambda _result: settings.write_group(SETTINGS_GROUP, vm.snapshot()))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
