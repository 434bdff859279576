"""The training description panel: the one place the training is described. Built from
``specs.ROWS``: every input has a visible label as its buddy and an accessible name;
rows the description does not have now are hidden; a field typed over a derived figure
says so and offers the derived value back."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path

from PySide6.QtCore import QLocale, QSize, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.scroll_area import ScrollArea
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.training.opening import ask_config, ask_profile
from gradacc_desktop.ui.training.rows import PanelRows, note_label
from gradacc_desktop.ui.training.specs import (
    CHECK_BOXES,
    CONDITIONAL,
    ROWS,
    DescriptionSection,
    Extra,
    Key,
)
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.choosing import ENUM_CHOICES, refused_choices
from gradacc_desktop.viewmodels.training.fields import CHOICES, Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel

#: shown in an empty optional field that stands for nothing
EMPTY = "—"
#: a field beside its label needs at least this much room (pixels), the sections' frames
#: and the scroll bar this much more
FIELD_WIDTH = 150
SIDE_MARGINS = 48
#: the narrowest the panel gets (labels above the fields)
MINIMUM_WIDTH = 220


class TrainingPanel(PanelRows, QWidget):
    statusMessage = Signal(str)
    copyRequested = Signal()
    #: "Details…" of the other memory: the model states' breakdown
    modelStatesRequested = Signal()
    cardSpeedRequested = Signal()

    def __init__(
        self,
        vm: TrainingViewModel,
        parent: QWidget | None = None,
        settings: Callable[[], Settings | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("training_panel")
        self.vm = vm
        self._settings = settings
        self._quiet = False
        self.fields: dict[TrainingField, NumberField] = {}
        self.combos: dict[Choice, QComboBox] = {}
        #: choices shown as a check box of their own row (FP8 products, sequence parallelism)
        self.checks: dict[Choice, QCheckBox] = {}
        self.labels: dict[Key, QLabel] = {}
        self.notes: dict[Extra, QLabel] = {}
        self.sections: dict[DescriptionSection, QGroupBox] = {}
        self._forms: dict[DescriptionSection, QFormLayout] = {}
        self._rows: dict[Key, QWidget] = {}
        self.title = QLabel(self)
        self.title.setObjectName("training_title")
        title_font = QFont(self.title.font())
        title_font.setBold(True)
        title_font.setPointSizeF(title_font.pointSizeF() * 1.1)
        self.title.setFont(title_font)
        self.problems = note_label(self, "training_problems")
        self.recommend = QCheckBox(self)
        self.recommend.setObjectName("training_recommend")
        self.open_config = QPushButton(self)
        self.open_config.setObjectName("training_open_config")
        self.card_speed = QPushButton(self)
        self.card_speed.setObjectName("training_card_speed")
        self.activation_back = QToolButton(self)
        self.activation_back.setObjectName("training_activation_back")
        self.other_back = QToolButton(self)
        self.other_back.setObjectName("training_other_back")
        self.states_details = QPushButton(self)
        self.states_details.setObjectName("training_states_details")
        self.load_profile = QPushButton(self)
        self.load_profile.setObjectName("training_load_profile")
        self.clear_profile = QPushButton(self)
        self.clear_profile.setObjectName("training_clear_profile")

        column = QWidget(self)
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.setSpacing(8)
        for spec in ROWS:
            section = self.sections.get(spec.section)
            if section is None:
                section = self.sections[spec.section] = QGroupBox(column)
                section.setObjectName(f"training_section_{spec.section.value}")
                form = QFormLayout(section)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
                self._forms[spec.section] = form
                column_layout.addWidget(section)
            self._add_row(spec, section)
        column_layout.addStretch(1)
        self.area = ScrollArea(column, self, focusable=False)
        self.area.setObjectName("training_area")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.problems)
        layout.addWidget(self.area, 1)
        self._column = column
        self._wrapped: bool | None = None

        guard_wheel(*self.combos.values())
        for first, second in pairwise(self.tab_chain()):  # Tab follows the reading order
            QWidget.setTabOrder(first, second)
        # an Alt key may focus a field scrolled out of sight: bring it into view
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._follow_focus)
        self.recommend.toggled.connect(self._on_recommend)
        self.open_config.clicked.connect(self.ask_config)
        self.card_speed.clicked.connect(self.cardSpeedRequested)
        self.states_details.clicked.connect(self.modelStatesRequested)
        self.activation_back.clicked.connect(lambda: self.vm.use_derived(TrainingField.ACTIVATION))
        self.other_back.clicked.connect(lambda: self.vm.use_derived(TrainingField.OTHER_MEMORY))
        self.load_profile.clicked.connect(self.ask_profile)
        self.clear_profile.clicked.connect(vm.clear_profile)
        vm.inputsReplaced.connect(self.show_inputs)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self.show_inputs(None)

    def _follow_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        column = self.area.widget()
        if new is not None and column is not None and column.isAncestorOf(new):
            self.area.ensureWidgetVisible(new, 0, 24)

    # -- the labels beside the fields, or above them when the panel is narrow -----------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_labels()

    def _fit_labels(self) -> None:
        """Labels beside their fields while both fit; above them in a narrow panel."""
        labels = [label.sizeHint().width() for label in self.labels.values()]
        needed = max(labels, default=0) + FIELD_WIDTH + SIDE_MARGINS
        wrap = self.area.viewport().width() < needed
        if wrap == self._wrapped:
            return
        self._wrapped = wrap
        policy = (
            QFormLayout.RowWrapPolicy.WrapAllRows
            if wrap
            else QFormLayout.RowWrapPolicy.DontWrapRows
        )
        for form in self._forms.values():
            form.setRowWrapPolicy(policy)

    def minimumSizeHint(self) -> QSize:
        """Narrow: the labels then stand above their fields."""
        return QSize(MINIMUM_WIDTH, super().minimumSizeHint().height())

    @contextmanager
    def _silently(self) -> Iterator[None]:
        quiet, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = quiet

    # -- showing ------------------------------------------------------------------------
    def show_inputs(self, fields: frozenset[object] | None) -> None:
        """Re-read ``fields`` (and the choices with ``CHOICES``) from the view-model."""
        with self._silently():
            for field, box in self.fields.items():
                if fields is None or field in fields:
                    box.set_text(self.vm.shown_text(field))
                box.setEnabled(self.vm.editable(field))
            if fields is None or CHOICES in fields:
                self._fill_choices()
        self.show_state(self.vm.state)

    def _fill_choices(self) -> None:
        for choice, combo in self.combos.items():
            options = self.vm.options(choice)
            current = self.vm.choice(choice)
            if [combo.itemData(i) for i in range(combo.count())] != [d for d, _ in options]:
                combo.clear()
                for data, text in options:
                    combo.addItem(text, data)
            index = next((i for i, (d, _) in enumerate(options) if d == current), 0)
            combo.setCurrentIndex(index)
        self.recommend.setChecked(bool(self.vm.choice(Choice.RECOMMEND)))
        self._show_checks()

    def _show_checks(self) -> None:
        """Each check box ticked when chosen and possible, enabled only when possible (FP8
        products: bf16 or fp16 on a card with an FP8 peak; sequence parallelism: tensor
        parallelism), its tooltip saying what it does and why it is off."""
        for choice, check in self.checks.items():
            state = self.vm.check(choice)
            with self._silently():
                check.setChecked(bool(self.vm.choice(choice)) and state.enabled)
            check.setEnabled(state.enabled)
            check.setToolTip(state.hint)
            check.setAccessibleDescription(state.hint)

    def show_state(self, state: TrainingState) -> None:
        vm = self.vm
        for key, row in self._rows.items():
            if key in CONDITIONAL:
                visible = key in state.visible
                label = self.labels.get(key)
                section = self._section_of(key)
                self._forms[section].setRowVisible(row, visible)
                if label is not None:
                    label.setVisible(visible)
        for field, box in self.fields.items():
            text = vm.placeholder(field) or (EMPTY if vm.number_input(field).optional else "")
            if box.lineEdit().placeholderText() != text:
                box.lineEdit().setPlaceholderText(text)
            box.setEnabled(vm.editable(field))
            self._mark(field, vm.problem(field) is not None)
        refused = refused_choices(state.plan)
        for choice in ENUM_CHOICES:
            self._mark(choice, choice in refused)
        self._show_checks()
        notes = state.notes
        self._say(Extra.MODEL_NOTE, notes.model + "".join(f"\n⚠ {w}" for w in notes.warnings))
        self._say(Extra.LORA_NOTE, notes.lora)
        self._say(Extra.ACTIVATION_NOTE, notes.activation.text)
        self._say(Extra.OTHER_NOTE, notes.other.text)
        self._say(Extra.USABLE_NOTE, notes.usable)
        self._say(Extra.PROFILE, vm.profile_summary())
        self._say(Extra.BATCH_NOTE, state.batch_note)
        self._forms[DescriptionSection.METHOD].setRowVisible(
            self._rows[Extra.LORA_NOTE], bool(notes.lora)
        )
        self._forms[DescriptionSection.BATCH].setRowVisible(
            self._rows[Extra.BATCH_NOTE], bool(state.batch_note)
        )
        self.activation_back.setVisible(notes.activation.overridden)
        self.other_back.setVisible(notes.other.overridden)
        states = None if state.plan is None else state.plan.figures.states
        self.states_details.setEnabled(states is not None)
        self.clear_profile.setEnabled(vm.profile is not None)
        problems = list(state.problems) + list(state.run_problems)
        if vm.config_error:
            problems.insert(0, vm.config_error)
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(bool(problems))
        palette = self.problems.palette()
        palette.setColor(self.problems.foregroundRole(), verdict_colour(palette, False))
        self.problems.setPalette(palette)

    def _section_of(self, key: Key) -> DescriptionSection:
        return next(spec.section for spec in ROWS if spec.key == key)

    def _say(self, key: Extra, text: str) -> None:
        note = self.notes.get(key)
        if note is not None and note.text() != text:
            note.setText(text)
            note.setVisible(bool(text))

    def _mark(self, field: Key, refused: bool) -> None:
        """A refused field's or choice's label in the theme's red (its message is
        above)."""
        label = self.labels.get(field)
        if label is None:
            return
        palette = self.palette()
        if refused:
            palette.setColor(label.foregroundRole(), verdict_colour(palette, False))
        label.setPalette(palette)

    # -- the user's choices -------------------------------------------------------------
    def _on_choice(self, choice: Choice) -> None:
        if self._quiet:
            return
        self.vm.set_choice(choice, self.combos[choice].currentData())

    def _on_recommend(self, on: bool) -> None:
        if not self._quiet:
            self.vm.set_choice(Choice.RECOMMEND, on)

    def _on_check(self, choice: Choice, on: bool) -> None:
        if not self._quiet and self.checks[choice].isEnabled():
            self.vm.set_choice(choice, on)

    def ask_config(self) -> None:
        path = ask_config(self, self.vm, self._settings())
        if path is not None:
            self.open_config_file(path)

    def open_config_file(self, path: Path) -> bool:
        outcome = self.vm.open_config(path)
        self.statusMessage.emit(outcome.message)
        return outcome.ok

    def ask_profile(self) -> None:
        ask_profile(self, self.vm, self._settings(), self.statusMessage.emit)

    # -- words ----------------------------------------------------------------------------
    def retranslate(self) -> None:
        t = self.vm.texts
        self.title.setText(t.title())
        titles = {
            DescriptionSection.MODEL: t.section_model(),
            DescriptionSection.METHOD: t.section_method(),
            DescriptionSection.HARDWARE: t.section_hardware(),
            DescriptionSection.LAYOUT: t.section_layout(),
            DescriptionSection.BATCH: t.section_batch(),
            DescriptionSection.MEMORY: t.section_memory(),
            DescriptionSection.RUN: t.section_run(),
        }
        for section, box in self.sections.items():
            box.setTitle(titles[section])
        self._wrapped = None  # the labels change width: decide again
        for key, label in self.labels.items():
            if isinstance(key, TrainingField):
                label.setText(t.field_label(key, mnemonic=True))
                field = self.fields[key]
                field.setAccessibleName(t.field_label(key))
                field.setToolTip(t.field_hint(key))
                field.setAccessibleDescription(t.field_hint(key))
            elif isinstance(key, Choice):
                label.setText(t.choice_label(key, mnemonic=True))
                combo = self.combos[key]
                combo.setAccessibleName(t.choice_label(key))
                combo.setToolTip(t.choice_hint(key))
        self.recommend.setText(t.choice_label(Choice.RECOMMEND, mnemonic=True))
        self.recommend.setToolTip(t.choice_hint(Choice.RECOMMEND))
        for choice, check in self.checks.items():
            check.setText(t.choice_label(choice, mnemonic=True))
            check.setAccessibleName(t.choice_label(choice))
        self.open_config.setText(t.open_config_button())
        self.card_speed.setText(t.card_speed_button())
        for button in (self.activation_back, self.other_back):
            button.setText("↺")
            button.setToolTip(t.back_to_derived())
            button.setAccessibleName(t.back_to_derived())
        self.states_details.setText(t.states_details_button())
        self.load_profile.setText(t.load_profile_label())
        self.clear_profile.setText(t.clear_profile_label())
        with self._silently():
            for combo in self.combos.values():
                combo.clear()
            self._fill_choices()
        self.show_state(self.vm.state)
        self._fit_labels()

    def set_language(self, locale: QLocale) -> None:
        """After the view-model's ``set_language``: numbers re-shown in ``locale``."""
        for box in self.fields.values():
            box.setLocale(locale)
        self.retranslate()
        self.show_inputs(None)

    def tab_chain(self) -> list[QWidget]:
        """Every control in reading order."""
        chain: list[QWidget] = []
        for spec in ROWS:
            key = spec.key
            if isinstance(key, TrainingField):
                chain.append(self.fields[key])
            elif isinstance(key, Choice):
                chain.append(self.checks[key] if key in CHECK_BOXES else self.combos[key])
            elif key is Extra.OPEN_CONFIG:
                chain.append(self.open_config)
            elif key is Extra.CARD_SPEED:
                chain.append(self.card_speed)
            elif key is Extra.OTHER_NOTE:
                chain.append(self.states_details)
            elif key is Extra.PROFILE:
                chain += [self.load_profile, self.clear_profile]
            if spec.beside is Choice.RECOMMEND:
                chain.append(self.recommend)
            elif spec.beside is Extra.ACTIVATION_NOTE:
                chain.append(self.activation_back)
            elif spec.beside is Extra.OTHER_NOTE:
                chain.append(self.other_back)
        return chain
