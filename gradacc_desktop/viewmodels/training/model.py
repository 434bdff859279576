"""The view-model of the training description: it holds what the description's fields
and choices hold, builds one ``TrainingDescription`` from them, calls the core's one
planning entry (``core.training.plan.plan``) once per change and emits the result as a
``TrainingState``. The planner, the exports, the chart and the search are views of it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.memory import ModelSpec
from gradacc_desktop.core.time import (
    GpuCard,
    GpuTable,
    ProfileError,
    SpeedProfile,
    parse_profile,
    profile_to_json,
)
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.imported import HeldBatch
from gradacc_desktop.core.training.plan import Plan, plan
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.files import Outcome
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.formatting import Entry, same_entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.training.build import (
    Choices,
    InvalidShape,
    build,
    folds_experts,
    has_experts,
    model_spec,
    pipelined,
)
from gradacc_desktop.viewmodels.training.checks import CheckState, check_state
from gradacc_desktop.viewmodels.training.choosing import (
    ChoiceValue,
    applied,
    choice_value,
    chosen,
    first_card,
    model_length,
    options,
    table_cards,
    visible,
)
from gradacc_desktop.viewmodels.training.fields import (
    CHOICES,
    CONFIG_MODEL,
    FIRST_VALUES,
    FOLLOW_THE_PLAN,
    PARAMS_MODEL,
    RULES,
    SHOWN_BY_CHOICES,
    SPEED_FIELDS,
    Choice,
    TrainingField,
)
from gradacc_desktop.viewmodels.training.held import HELD_FIELDS, held_note, held_values
from gradacc_desktop.viewmodels.training.notes import DescriptionNotes, NoteTexts
from gradacc_desktop.viewmodels.training.outcomes import TrainingOutcomes
from gradacc_desktop.viewmodels.training.shown import decided_text, placeholder_text
from gradacc_desktop.viewmodels.training.texts import TrainingTexts

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingState:
    #: None while a field the description needs holds a refused entry (``problems``)
    plan: Plan | None
    problems: tuple[str, ...]
    #: refused optional entries of the run (the plan goes on without them)
    run_problems: tuple[str, ...]
    notes: DescriptionNotes
    #: the fields and choices the description shows now
    visible: frozenset[TrainingField | Choice]
    #: under the batch: a checked file's own micro-batch and accumulation, held ("")
    batch_note: str = ""

    @property
    def description(self) -> TrainingDescription | None:
        return None if self.plan is None else self.plan.description


class TrainingViewModel(QObject):
    # every change of the description, its plan or the language: a ``TrainingState``
    stateChanged = Signal(object)
    # inputs set programmatically: a frozenset of ``TrainingField`` (and/or ``CHOICES``)
    inputsReplaced = Signal(object)

    def __init__(
        self,
        locale: QLocale | None = None,
        parent: QObject | None = None,
        gpu_table: GpuTable | None = None,
    ) -> None:
        super().__init__(parent)
        self._formats = PlanFormats(locale if locale is not None else QLocale())
        self._texts = TrainingTexts(self._formats)
        self._notes = NoteTexts(self._formats)
        self._outcomes = TrainingOutcomes(self._formats)
        self._cards = table_cards(gpu_table)
        self._choices = Choices(card=first_card(self._cards))
        #: the sequence length the last chosen model filled in (None: none yet)
        self._filled_length: Decimal | None = None
        self._profile: SpeedProfile | None = None
        self._config_error = ""
        #: a checked config's own micro-batch and accumulation (None: the user's batch)
        self._held: HeldBatch | None = None
        self._entries: Entries[TrainingField] = Entries(
            TrainingField,
            RULES,
            FIRST_VALUES,
            self._texts.field_label,
            self._formats.locale,
            self._formats.unit_gb(),
        )
        self._state = self._build_state()

    # -- access ---------------------------------------------------------------------
    @property
    def state(self) -> TrainingState:
        return self._state

    @property
    def plan(self) -> Plan | None:
        return self._state.plan

    @property
    def description(self) -> TrainingDescription | None:
        return self._state.description

    @property
    def locale(self) -> QLocale:
        return self._formats.locale

    @property
    def formats(self) -> PlanFormats:
        return self._formats

    @property
    def texts(self) -> TrainingTexts:
        return self._texts

    @property
    def notes_texts(self) -> NoteTexts:
        """How the notes word a figure and why it is missing (for the views of it)."""
        return self._notes

    @property
    def cards(self) -> tuple[GpuCard, ...]:
        return self._cards

    @property
    def choices(self) -> Choices:
        return self._choices

    @property
    def profile(self) -> SpeedProfile | None:
        return self._profile

    @property
    def config_error(self) -> str:
        """Why the last config.json was not opened ("" otherwise)."""
        return self._config_error

    def card(self) -> GpuCard | None:
        """The chosen card from the table (``None`` for the custom card)."""
        return next((c for c in self._cards if c.id == self._choices.card), None)

    # -- fields ---------------------------------------------------------------------
    def number_input(self, field: TrainingField) -> NumberInput:
        return self._entries.number_input(field)

    def entry(self, field: TrainingField) -> Entry:
        return self._entries.entry(field)

    def value(self, field: TrainingField) -> Decimal | None:
        return self._entries.accepted(field)

    def remembered_value(self, field: TrainingField) -> Decimal | None:
        """The field's accepted number, else its last valid one (what a saved scenario
        keeps; an optional field that holds nothing valid keeps nothing)."""
        return self._entries.current_or_last(field)

    def model_spec(self) -> ModelSpec | None:
        """The model the choices and fields name now (None: none, or sizes refused)."""
        try:
            return model_spec(self._choices, self._entries, self._outcomes.shape_problem)
        except InvalidShape:
            return None

    def problem(self, field: TrainingField) -> str | None:
        """Why ``field``'s entry is refused (``None``: accepted, or empty and optional)."""
        if self._entries.entry(field) is None and field in RULES.optional:
            return None
        return self._entries.problem(field)

    def editable(self, field: TrainingField) -> bool:
        """Whether the user types the field's value (else the description gives it)."""
        if field is TrainingField.MICRO_BATCH:
            return not self._choices.recommend
        if field is TrainingField.GPU_MEMORY or field in SPEED_FIELDS:
            return self.card() is None
        if field is TrainingField.MODEL_PARAMS:
            return self._choices.model == PARAMS_MODEL
        if field is TrainingField.VIRTUAL_STAGES:
            return pipelined(self._entries)
        if field is TrainingField.EXPERT_PARALLEL:
            return has_experts(self.model_spec())
        if field is TrainingField.EXPERT_TENSOR_PARALLEL:  # Megatron's
            return folds_experts(self._choices, self.model_spec())
        return True

    def check(self, choice: Choice) -> CheckState:
        """A check box's state: whether it can be ticked now (FP8 products: 16-bit training
        on a card with an FP8 peak; sequence parallelism: tensor parallelism), and its
        tooltip saying what it does and why it is off when it is."""
        return check_state(self._texts, choice, self._choices, self._entries, self._cards)

    def shown_text(self, field: TrainingField) -> str:
        """What the field shows: what it holds (unreadable text as typed), except where
        the description decides the value (``shown.decided_text``)."""
        number = self._entries.number_input(field)
        decided = decided_text(field, number, self.card(), self._choices, self.plan)
        return number.show_entry(self._entries.entry(field)) if decided is None else decided

    def placeholder(self, field: TrainingField) -> str:
        """What an empty field stands for (``shown.placeholder_text``)."""
        s = self._state
        args = (self._texts, self._notes, s.notes, self._choices, self._entries, self._cards)
        return placeholder_text(field, *args, s.plan)

    def set_text(self, field: TrainingField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale (unit allowed)."""
        raw = self._entries.number_input(field).read(text)
        if same_entry(self._entries.entry(field), raw):
            return
        self._entries.hold(field, raw)
        if field in HELD_FIELDS:
            self._held = None
        self._refresh()

    def use_derived(self, field: TrainingField) -> None:
        """Empty a field typed over a derived figure: the derived one is used again."""
        if self._entries.entry(field) is not None:
            self._replace({field: None})

    # -- choices ----------------------------------------------------------------------
    def choice(self, choice: Choice) -> ChoiceValue:
        return choice_value(self._choices, choice)

    def options(self, choice: Choice) -> list[tuple[object, str]]:
        """(data, text) of each option of ``choice``, in the order shown."""
        return options(self._texts, choice, self._choices, self._cards)

    def set_choice(self, choice: Choice, value: ChoiceValue) -> None:
        """The user picked ``value`` in ``choice`` (unknown values are ignored)."""
        picked = chosen(self._choices, self._cards, choice, value)
        if picked is None or picked == self._choices:
            return
        if choice is Choice.RECOMMEND:
            self._held = None
        if choice is Choice.RECOMMEND and not picked.recommend:
            current = None if self.plan is None else self.plan.current
            if current is not None:  # the recommended micro-batch becomes the user's own
                self._entries.hold(TrainingField.MICRO_BATCH, Decimal(current.micro_batch))
        self._choices = picked
        self._fill_length()
        self.inputsReplaced.emit(frozenset({CHOICES, *SPEED_FIELDS, *SHOWN_BY_CHOICES}))
        self._refresh()

    def open_config(self, path: str | Path) -> Outcome:
        """Take the model from a local ``config.json`` (never a download); a file that
        is not one says why and nothing changes."""
        read = self._outcomes.read_config(path)
        if isinstance(read, str):
            self._config_error = read
            self._refresh(force=True)
            return Outcome(False, read)
        self._config_error = ""
        self._choices = replace(self._choices, model=CONFIG_MODEL, config=read)
        self._fill_length()
        self.inputsReplaced.emit(frozenset({CHOICES, *SHOWN_BY_CHOICES}))
        self._refresh(force=True)
        return Outcome(True, self._outcomes.config_read(read))

    def _fill_length(self) -> None:
        """A model chosen while the sequence length is empty, or holds what the last
        model filled in: its own context (at most 4 096 tokens), written into the field
        where the user sees it (arrowing through the models, the length follows them
        until the user types one)."""
        held = self._entries.entry(TrainingField.SEQ_LEN)
        if held is not None and held != self._filled_length:
            return
        length = model_length(self._choices)
        if length is not None:
            self._filled_length = Decimal(length)
            self._entries.hold(TrainingField.SEQ_LEN, self._filled_length)
            self.inputsReplaced.emit(frozenset({TrainingField.SEQ_LEN}))

    # -- the whole description ----------------------------------------------------------
    def apply(self, description: TrainingDescription) -> None:
        """Make ``description``'s setup and batch the user's: a search's best setup, an
        alternative that fits, a checked config file. The model and what the run costs
        stay as they are unless ``description`` names another model. A held file's batch
        is let go (``hold_batch`` holds it again)."""
        self._held = None
        self._choices, values = applied(self._choices, self._cards, description)
        self._replace(values, choices=True)

    @property
    def held_batch(self) -> HeldBatch | None:
        return self._held

    def hold_batch(self, held: HeldBatch) -> None:
        """Keep a checked file's own micro-batch and accumulation steps while the GPUs
        change, as its framework would run it (the effective batch follows), until the
        user types a target or a micro-batch, or another description is applied."""
        self._held = held
        self._refresh(force=True)

    # -- the speed profile ------------------------------------------------------------
    def load_profile(self, path: Path) -> Outcome:
        """Use the speed profile at ``path``; on any problem nothing changes."""
        read = self._outcomes.read_profile(path)
        if isinstance(read, str):
            return Outcome(False, read)
        self._profile = read
        self._refresh(force=True)
        return Outcome(True, self._outcomes.profile_in_use(path.name))

    def clear_profile(self) -> None:
        if self._profile is not None:
            self._profile = None
            self._refresh(force=True)

    def remembered_profile(self) -> str | None:
        return None if self._profile is None else profile_to_json(self._profile)

    def restore_profile(self, text: str) -> bool:
        """Use a remembered profile again; an unreadable one is ignored (False)."""
        try:
            self._profile = parse_profile(text.encode("utf-8"))
        except (ProfileError, UnicodeError):
            return False
        self._refresh(force=True)
        return True

    def profile_summary(self) -> str:
        return self._outcomes.profile_summary(self._profile)

    # -- language -------------------------------------------------------------------
    def set_language(self, locale: QLocale) -> None:
        """After a language switch: numbers read and shown in ``locale``, words in the new
        language; one new state."""
        self._formats.locale = locale
        self._entries.set_language(locale, self._formats.unit_gb())
        self._refresh(force=True)

    # -- internals --------------------------------------------------------------------
    def hold(self, values: Mapping[TrainingField, Entry]) -> None:
        """Put values into fields without a refresh (a scenario being applied)."""
        for field, value in values.items():
            self._entries.hold(field, value)

    def set_choices(self, choices: Choices) -> None:
        """Every choice at once (a scenario being applied); no refresh."""
        self._choices = choices

    def refresh_all(self) -> None:
        """After ``hold``/``set_choices``: the fields re-read, one new state."""
        self._held = None
        self.inputsReplaced.emit(frozenset({CHOICES, *TrainingField}))
        self._refresh(force=True)

    def _replace(self, values: Mapping[TrainingField, Entry], choices: bool = False) -> None:
        for field, value in values.items():
            self._entries.hold(field, value)
        changed: set[object] = set(values)
        if choices:
            changed.add(CHOICES)
            changed.update(SHOWN_BY_CHOICES)
        self.inputsReplaced.emit(frozenset(changed))
        self._refresh()

    def _refresh(self, force: bool = False) -> None:
        replaced = self._follow_held()
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)
            if replaced:
                self.inputsReplaced.emit(replaced)
            # the recommended micro-batch and a model's parameters follow the plan (only
            # while the user does not type them)
            following = frozenset(f for f in FOLLOW_THE_PLAN if not self.editable(f))
            if following:
                self.inputsReplaced.emit(following)

    def _follow_held(self) -> frozenset[object]:
        """A held file's pair on the GPUs the fields hold now, put into the target and
        micro-batch fields (what changed)."""
        followed = None if self._held is None else held_values(self._held, self._entries)
        if followed is None:
            return frozenset()
        self._held, values = followed
        changed: set[object] = {f for f, v in values.items() if self._entries.entry(f) != v}
        self.hold(values)
        if self._choices.recommend:
            self._choices = replace(self._choices, recommend=False)
            changed.add(CHOICES)
        return frozenset(changed)

    def _build_state(self) -> TrainingState:
        built = build(
            self._choices, self._entries, self._cards, self._profile, self._outcomes.shape_problem
        )
        result: Plan | None = None
        notes = DescriptionNotes()
        problems = built.problems
        if built.description is not None:
            try:
                result = plan(built.description)
            except ValueError as exc:  # a combination the core refuses: say it, keep the inputs
                _log.warning("the description was not planned: %s", exc)
                problems = (str(exc),)
            else:
                notes = self._notes.notes(built.description, result.figures)
                # what the description asks for that its model, card or layout cannot
                # give: the core's sentences, as ``gradacc plan`` prints them
                said = self.formats.said
                problems = (*problems, *(said(p.message) for p in result.problems))
        return TrainingState(
            plan=result,
            problems=problems,
            run_problems=built.run_problems,
            notes=notes,
            visible=visible(self._choices, result),
            batch_note=held_note(self._texts, self._held, self._entries),
        )
