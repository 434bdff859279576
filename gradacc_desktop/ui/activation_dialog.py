"""The "Estimate activation from the model" dialog, built from ``CONTROL_SPECS``.

Every edit updates the estimate at once; "Use this value" puts the peak per sample
in the calculator's "activation per sample". All text and numbers come from
``ActivationViewModel``; this module only places and wires widgets.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QEvent, QLocale, QSignalBlocker, Qt
from PySide6.QtGui import QFont, QGuiApplication, QTextOption
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.collapsible import CollapsibleBox
from gradacc_desktop.ui.results_panel import ResultCard
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.activation import (
    ActivationField,
    ActivationState,
    ActivationViewModel,
    Control,
    Option,
    RowKind,
)
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.settings import Settings


class Section(enum.Enum):
    MODEL = "model"
    STEP = "step"


class Kind(enum.Enum):
    NUMBER = "number"
    CHOICE = "choice"
    CHECK = "check"


@dataclass(frozen=True)
class ControlSpec:
    control: Control
    section: Section
    kind: Kind

    @property
    def object_name(self) -> str:
        return f"activation_{self.control.value}"


CONTROL_SPECS: tuple[ControlSpec, ...] = (
    ControlSpec(Option.PRESET, Section.MODEL, Kind.CHOICE),
    ControlSpec(Option.FAMILY, Section.MODEL, Kind.CHOICE),
    ControlSpec(ActivationField.HIDDEN, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.LAYERS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.HEADS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.KV_HEADS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.INTERMEDIATE, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.VOCAB, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.SEQ, Section.STEP, Kind.NUMBER),
    ControlSpec(Option.DTYPE, Section.STEP, Kind.CHOICE),
    ControlSpec(Option.ATTENTION, Section.STEP, Kind.CHOICE),
    ControlSpec(Option.RECOMPUTE, Section.STEP, Kind.CHOICE),
    ControlSpec(ActivationField.TENSOR_PARALLEL, Section.STEP, Kind.NUMBER),
    ControlSpec(Option.SEQUENCE_PARALLEL, Section.STEP, Kind.CHECK),
    ControlSpec(Option.DROPOUT, Section.STEP, Kind.CHECK),
    ControlSpec(Option.PROFILE, Section.STEP, Kind.CHOICE),
)

_COLUMNS = 3


class ActivationDialog(QDialog):
    def __init__(
        self,
        calculator_vm: CalculatorViewModel,
        parent: QWidget | None = None,
        vm: ActivationViewModel | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("activation_dialog")
        self._calculator = calculator_vm
        self.vm = vm if vm is not None else ActivationViewModel(calculator_vm.locale, self)
        self.setLocale(self.vm.locale)

        self.spins: dict[ActivationField, NumberField] = {}
        self.combos: dict[Option, QComboBox] = {}
        self.checks: dict[Option, QCheckBox] = {}
        self.labels: dict[Control, QLabel] = {}
        self.groups: dict[Section, QGroupBox] = {}

        inputs_column = QVBoxLayout()
        for section in Section:
            group = self.groups[section] = QGroupBox(self)
            form = QFormLayout(group)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            inputs_column.addWidget(group)
        inputs_column.addStretch(1)
        for spec in CONTROL_SPECS:
            self._add_control(spec)

        results = self._build_results()
        self.measure = self._build_measure()

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
        self._results_layout.insertWidget(1, self.measure)
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
        self.resize(1000, 780)
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        if screen is not None:
            self.resize(min(self.width(), screen.width()), min(self.height(), screen.height()))

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
            Option.DTYPE: self.vm.set_dtype,
            Option.ATTENTION: self.vm.set_attention,
            Option.RECOMPUTE: self.vm.set_recompute,
            Option.PROFILE: self.vm.set_profile,
        }
        setter = setters[option]

        def changed(index: int) -> None:
            if index >= 0:
                setter(combo.itemData(index))

        return changed

    def _checked_setter(self, option: Option) -> Callable[[bool], None]:
        return {
            Option.SEQUENCE_PARALLEL: self.vm.set_sequence_parallel,
            Option.DROPOUT: self.vm.set_dropout,
        }[option]

    def _build_results(self) -> QGroupBox:
        box = QGroupBox(self)
        self.results_group = box
        self.saved = ResultCard("saved", box)
        self.peak = ResultCard("peak", box)
        self.calculator_note = QLabel(box)
        self.calculator_note.setObjectName("activation_calculator_note")
        self.calculator_note.setWordWrap(True)
        self.calculator_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings = QLabel(box)
        self.warnings.setObjectName("activation_warnings")
        self.warnings.setWordWrap(True)

        self.table = QTableWidget(0, _COLUMNS, box)
        self.table.setObjectName("activation_breakdown")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

        self.assumptions_text = QTextBrowser()
        self.assumptions_text.setObjectName("activation_assumptions")
        self.assumptions_text.setOpenExternalLinks(False)
        self.assumptions_text.setOpenLinks(False)
        self.assumptions = CollapsibleBox(self.assumptions_text, box)
        self.assumptions.toggle.setObjectName("activation_assumptions_toggle")
        self.assumptions.toggled.connect(self._on_assumptions_toggled)

        cards = QHBoxLayout()
        cards.addWidget(self.saved, 1)
        cards.addWidget(self.peak, 1)
        results_page = QWidget(box)
        rl = QVBoxLayout(results_page)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(cards)
        rl.addWidget(self.calculator_note)
        rl.addWidget(self.warnings)
        rl.addStretch(1)

        self.prompt = QLabel(box)
        self.prompt.setObjectName("activation_prompt")
        self.prompt.setWordWrap(True)
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.prompt.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.prompt.setFont(font)
        self.problems = QLabel(box)
        self.problems.setObjectName("activation_problems")
        self.problems.setWordWrap(True)
        self.problems.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        prompt_page = QWidget(box)
        pl = QVBoxLayout(prompt_page)
        pl.addStretch(1)
        pl.addWidget(self.prompt)
        pl.addWidget(self.problems)
        pl.addStretch(1)

        self.pages = QStackedWidget(box)
        self.pages.addWidget(results_page)
        self.pages.addWidget(prompt_page)
        self._results_page, self._prompt_page = results_page, prompt_page
        layout = QVBoxLayout(box)
        layout.addWidget(self.pages, 3)
        layout.addWidget(self.assumptions, 0)
        self._results_layout = layout
        return box

    def _build_measure(self) -> QGroupBox:
        box = QGroupBox(self)
        box.setObjectName("activation_measure")
        self.measure_text = QLabel(box)
        self.measure_text.setWordWrap(True)
        # the whole command, wrapped: never a field that shows only its start
        self.measure_command = QPlainTextEdit(box)
        self.measure_command.setObjectName("activation_measure_command")
        self.measure_command.setReadOnly(True)
        self.measure_command.setTabChangesFocus(True)
        self.measure_command.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.measure_command.setFont(font)
        lines = 5  # the longest command wraps to about four lines at 800 × 600
        self.measure_command.setFixedHeight(
            self.measure_command.fontMetrics().lineSpacing() * lines
            + 2 * self.measure_command.frameWidth()
            + 8
        )
        self.copy_command = QPushButton(box)
        self.copy_command.setObjectName("activation_copy_command")
        self.copy_command.setAutoDefault(False)
        self.copy_command.clicked.connect(self.copy_measure_command)
        layout = QVBoxLayout(box)
        layout.addWidget(self.measure_text)
        layout.addWidget(self.measure_command)
        layout.addWidget(self.copy_command, 0, Qt.AlignmentFlag.AlignRight)
        return box

    def _set_tab_order(self) -> None:
        chain: list[QWidget] = []
        for spec in CONTROL_SPECS:
            widget = self.findChild(QWidget, spec.object_name)
            assert widget is not None
            chain.append(widget)
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
        self.groups[Section.MODEL].setTitle(self.tr("Model"))
        self.groups[Section.STEP].setTitle(self.tr("Training step"))
        self.results_group.setTitle(self.tr("Estimate per sample"))
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
        choices: dict[Option, tuple[tuple[Any, str], ...]] = {
            Option.PRESET: vm.preset_choices(),
            Option.FAMILY: texts.family_choices(),
            Option.DTYPE: texts.dtype_choices(),
            Option.ATTENTION: texts.attention_choices(),
            Option.RECOMPUTE: texts.recompute_choices(),
            Option.PROFILE: texts.profile_choices(),
        }
        for option, combo in self.combos.items():
            with QSignalBlocker(combo):
                combo.clear()
                for data, text in choices[option]:
                    combo.addItem(text, data)
        self.saved.title.setText(self.tr("Saved for the backward pass"))
        self.peak.title.setText(self.tr("Peak during the training step"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Part"), self.tr("Per layer"), self.tr("Per sample")]
        )
        self.table.setAccessibleName(self.tr("Breakdown"))
        self.assumptions.set_title(self.tr("Assumptions and sour&ces"))
        self.assumptions_text.setAccessibleName(self.tr("Assumptions and sources"))
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
        self._show_options(state)
        invalid = f"color: {verdict_colour(self.palette(), ok=False).name()};"
        for field in self.spins:
            # the field's label turns red while its value is the problem
            self.labels[field].setStyleSheet(invalid if field in state.invalid else "")
        self.spins[ActivationField.KV_HEADS].setEnabled(not state.kv_heads_follow_heads)
        self.use_button.setEnabled(state.can_use)
        if self.measure_command.toPlainText() != state.measure_command:
            self.measure_command.setPlainText(state.measure_command)
        self._show_assumptions(state)
        view = state.estimate
        if view is None:
            self.prompt.setText(state.prompt)
            self.problems.setText("\n".join(state.problems))
            self.pages.setCurrentWidget(self._prompt_page)
            self.table.setVisible(False)
            return
        self.saved.value.setText(view.saved)
        self.saved.formula.setText(view.saved_bytes)
        self.saved.set_accessible(view.saved, view.saved_bytes)
        self.peak.value.setText(view.peak)
        self.peak.formula.setText(view.peak_bytes)
        self.peak.set_accessible(view.peak, view.peak_bytes)
        self.calculator_note.setText(view.calculator_note)
        self.calculator_note.setVisible(bool(view.calculator_note))
        self.warnings.setText("\n".join(view.warnings))
        self.warnings.setVisible(bool(view.warnings))
        self._show_breakdown(state)
        self.table.setVisible(True)
        self.pages.setCurrentWidget(self._results_page)

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
        for option, enabled in (
            (Option.SEQUENCE_PARALLEL, o.sequence_parallel),
            (Option.DROPOUT, o.dropout),
        ):
            with QSignalBlocker(self.checks[option]):
                self.checks[option].setChecked(enabled)

    def _show_breakdown(self, state: ActivationState) -> None:
        assert state.estimate is not None
        rows = state.estimate.breakdown
        self.table.setRowCount(len(rows))
        bold = QFont(self.table.font())
        bold.setBold(True)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, row in enumerate(rows):
            label = row.label if row.kind is not RowKind.ITEM else "    " + row.label
            for c, text in enumerate((label, row.per_layer, row.total)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(right)
                else:
                    item.setToolTip(row.label)
                if row.kind is not RowKind.ITEM:
                    item.setFont(bold)
                self.table.setItem(r, c, item)

    def _show_assumptions(self, state: ActivationState) -> None:
        assumptions = escape(self.tr("Assumptions"))
        sources = escape(self.tr("Sources"))
        html = []
        if state.estimate is not None:
            html.append(f"<h4>{assumptions}</h4><ul>")
            html += [f"<li>{escape(text)}</li>" for text in state.estimate.assumptions]
            html.append("</ul>")
        html.append(f"<h4>{sources}</h4><ul>")
        html += [f"<li>{escape(text)}</li>" for text in state.sources]
        html.append("</ul>")
        bar = self.assumptions_text.verticalScrollBar()
        position = bar.value()
        self.assumptions_text.setHtml("".join(html))
        bar.setValue(position)

    def _on_assumptions_toggled(self, opened: bool) -> None:
        # Opened, the assumptions share the column with the breakdown.
        self._results_layout.setStretch(1, 2 if opened else 0)

    # -- behaviour ------------------------------------------------------------
    def copy_measure_command(self) -> None:
        QGuiApplication.clipboard().setText(self.measure_command.toPlainText())

    def accept(self) -> None:
        if self.vm.use_value(self._calculator):
            super().accept()


SETTINGS_GROUP = "estimator"


def open_activation_dialog(
    calculator_vm: CalculatorViewModel,
    parent: QWidget | None = None,
    settings: Settings | None = None,
) -> ActivationDialog:
    """Show the dialog (non-modal; one per parent: an open one is raised instead).

    With ``settings``, it opens with the setup it had when last closed and
    remembers the new one when it closes.
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
    dialog = ActivationDialog(calculator_vm, parent, vm=vm)
    vm.setParent(dialog)
    if settings is not None:
        dialog.finished.connect(lambda _result: settings.write_group(SETTINGS_GROUP, vm.snapshot()))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
