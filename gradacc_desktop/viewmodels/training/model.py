"""The view-model of the training description: it holds what the description's fields
and choices hold, builds one ``TrainingDescription`` from them, calls the core's one
planning entry (``core.training.plan.plan``) once per change and emits the result as a
``TrainingState``. The planner, the exports, the chart and the search are views of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.activation import Attention, Family
from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.families import (
    ModelConfigError,
    file_name,
    parse_model_config_text,
    read_model_config_text,
)
from gradacc_desktop.core.gpus import (
    CUSTOM_ID,
    GpuCard,
    GpuTable,
    GpuTableError,
    custom_card,
    custom_performance,
    load_gpu_table,
)
from gradacc_desktop.core.lora import LoraTargets
from gradacc_desktop.core.models import ModelSource, ModelSpec, catalogue, facts
from gradacc_desktop.core.planning import Rounding
from gradacc_desktop.core.profile import (
    ProfileError,
    SpeedProfile,
    load_profile,
    parse_profile,
    profile_to_json,
)
from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.core.training.description import Method, Optimizer, TrainingDescription
from gradacc_desktop.core.training.plan import Plan, plan
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.files import Outcome
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.formatting import Entry, same_entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.training.build import (
    Choices,
    OpenedConfig,
    ShapeProblem,
    build,
    fp8_allowed,
    has_experts,
    model_spec,
    pipelined,
)
from gradacc_desktop.viewmodels.training.fields import (
    CHOICES,
    CONFIG_MODEL,
    DEFAULT_CARD,
    DEFAULT_CUSTOM_GB,
    FIRST_VALUES,
    IMAGE_FIELDS,
    NO_MODEL,
    PARAMS_MODEL,
    RULES,
    SHAPE_FIELDS,
    SHAPE_MODEL,
    SPEED_FIELDS,
    Choice,
    TrainingField,
)
from gradacc_desktop.viewmodels.training.notes import DescriptionNotes, NoteTexts
from gradacc_desktop.viewmodels.training.texts import TrainingTexts

_log = logging.getLogger(__name__)

#: what can go in ``set_choice``
ChoiceValue = object


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

    @property
    def description(self) -> TrainingDescription | None:
        return None if self.plan is None else self.plan.description


#: the choices that hold one member of an enum: the Choices attribute and the enum
ENUM_CHOICES: dict[Choice, tuple[str, Callable[[Any], Any]]] = {
    Choice.ATTENTION: ("attention", Attention),
    Choice.FAMILY: ("family", Family),
    Choice.METHOD: ("method", Method),
    Choice.LORA_TARGETS: ("lora_targets", LoraTargets),
    Choice.OPTIMIZER: ("optimizer", Optimizer),
    Choice.PRECISION: ("precision", Precision),
    Choice.ZERO: ("zero", ZeroStage),
    Choice.OFFLOAD: ("offload", Offload),
    Choice.RECOMPUTE: ("recompute", Recompute),
    Choice.ROUNDING: ("rounding", Rounding),
}


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
        if gpu_table is None:
            try:
                gpu_table = load_gpu_table()
            except GpuTableError as exc:  # a broken bundle leaves the custom card
                _log.warning("GPU table not usable, only the custom card is offered: %s", exc)
        self._cards: tuple[GpuCard, ...] = gpu_table.cards if gpu_table else ()
        ids = [c.id for c in self._cards]
        first_card = DEFAULT_CARD if DEFAULT_CARD in ids else (ids[0] if ids else CUSTOM_ID)
        self._choices = Choices(card=first_card)
        self._profile: SpeedProfile | None = None
        self._config_error = ""
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
            return model_spec(self._choices, self._entries, self._shape_problem)
        except ShapeProblem:
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
        return True

    def fp8_allowed(self) -> bool:
        """Whether FP8 products can be chosen now: 16-bit training on a card with an FP8
        peak (the check box is enabled only then)."""
        return fp8_allowed(self._choices.precision, self._current_card())

    def fp8_hint(self) -> str:
        """The FP8 check box's tooltip: what it does, and why it is off when it is."""
        card = self._current_card()
        why = ""
        if self._choices.precision is Precision.FP32:
            why = self._texts.fp8_needs_16_bit()
        elif not self.fp8_allowed():
            name = card.name if card is not None else self._texts.custom_card_name()
            why = self._texts.fp8_needs_peak(name)
        return self._texts.choice_hint(Choice.FP8) + (f"\n\n{why}" if why else "")

    def _current_card(self) -> GpuCard | None:
        """The card the description uses: a catalogue card, or the custom one (None
        while the custom card's figures are not all given)."""
        card = self.card()
        if card is not None:
            return card
        speed = [self._entries.optional_value(f)[0] for f in SPEED_FIELDS]
        if any(v is None for v in speed):
            return None
        tflops, bandwidth, link, network = (v for v in speed if v is not None)
        memory = self._entries.accepted(TrainingField.GPU_MEMORY) or DEFAULT_CUSTOM_GB
        return custom_card(memory, custom_performance(tflops, bandwidth, link, network))

    def shown_text(self, field: TrainingField) -> str:
        """What the field shows: what it holds (unreadable text as typed), except where
        the description decides the value — a catalogue card's memory and speed, the
        recommended micro-batch, a chosen model's exact parameters."""
        number = self._entries.number_input(field)
        card = self.card()
        if field is TrainingField.GPU_MEMORY and card is not None:
            return number.show(card.usable_gb)
        if field in SPEED_FIELDS and card is not None and card.performance is not None:
            return number.show(_card_speed(card, field))
        if field is TrainingField.MICRO_BATCH and self._choices.recommend:
            current = None if self.plan is None else self.plan.current
            # nothing to recommend (nothing fits): no number that would look like one
            return "" if current is None else number.show(Decimal(current.micro_batch))
        if field is TrainingField.MODEL_PARAMS and self._choices.model != PARAMS_MODEL:
            model = None if self.plan is None else self.plan.figures.facts
            return "" if model is None else number.show(Decimal(model.params))
        return number.show_entry(self._entries.entry(field))

    def placeholder(self, field: TrainingField) -> str:
        """What an empty field stands for: a derived figure, the efficiency model, the
        card's links, a goodput of 100 %."""
        if field is TrainingField.EFFICIENCY:
            return self._texts.modelled_efficiency()
        if field is TrainingField.GOODPUT:
            return self._texts.full_goodput()
        if field in (TrainingField.LINK, TrainingField.NETWORK):
            card = self._current_card()
            if card is None or card.performance is None:
                return ""
            perf = card.performance
            speed = perf.link_gbps if field is TrainingField.LINK else perf.inter_node_gbps
            return self._texts.card_link(speed)
        if field is TrainingField.MICRO_BATCH and self._choices.recommend:
            return "—"  # shown only while there is nothing to recommend
        return self._notes.field_placeholder(field, self._state.notes)

    def set_text(self, field: TrainingField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale (unit allowed)."""
        raw = self._entries.number_input(field).read(text)
        if same_entry(self._entries.entry(field), raw):
            return
        self._entries.hold(field, raw)
        self._refresh()

    def use_derived(self, field: TrainingField) -> None:
        """Empty a field typed over a derived figure: the derived one is used again."""
        if self._entries.entry(field) is not None:
            self._replace({field: None})

    # -- choices ----------------------------------------------------------------------
    def choice(self, choice: Choice) -> ChoiceValue:
        c = self._choices
        return {
            Choice.MODEL: c.model,
            Choice.FAMILY: c.family,
            Choice.METHOD: c.method,
            Choice.LORA_TARGETS: c.lora_targets,
            Choice.OPTIMIZER: c.optimizer,
            Choice.PRECISION: c.precision,
            Choice.FP8: c.fp8,
            Choice.VISION_FROZEN: c.vision_frozen,
            Choice.ATTENTION: c.attention,
            Choice.CARD: c.card,
            Choice.ZERO: c.zero,
            Choice.OFFLOAD: c.offload,
            Choice.RECOMPUTE: c.recompute,
            Choice.ROUNDING: c.rounding,
            Choice.RECOMMEND: c.recommend,
        }[choice]

    def options(self, choice: Choice) -> list[tuple[object, str]]:
        """(data, text) of each option of ``choice``, in the order shown."""
        t = self._texts
        if choice is Choice.MODEL:
            bundled = [(m.name, m.label) for m in catalogue()]
            config = self._choices.config
            return list(t.model_options(bundled, "" if config is None else config.file_name))
        table: dict[Choice, list[tuple[object, str]]] = {
            Choice.FAMILY: list(t.family_options()),
            Choice.METHOD: list(t.method_options()),
            Choice.LORA_TARGETS: list(t.target_options()),
            Choice.OPTIMIZER: list(t.optimizer_options()),
            Choice.PRECISION: list(t.precision_options()),
            Choice.ATTENTION: list(t.attention_options()),
            Choice.CARD: list(t.card_options(self._cards)),
            Choice.ZERO: list(t.zero_options()),
            Choice.OFFLOAD: list(t.offload_options()),
            Choice.RECOMPUTE: list(t.recompute_options()),
            Choice.ROUNDING: list(t.rounding_options()),
        }
        return table[choice]

    def set_choice(self, choice: Choice, value: ChoiceValue) -> None:
        """The user picked ``value`` in ``choice`` (unknown values are ignored)."""
        chosen = self._chosen(choice, value)
        if chosen is None or chosen == self._choices:
            return
        if choice is Choice.RECOMMEND and not chosen.recommend:
            current = None if self.plan is None else self.plan.current
            if current is not None:  # the recommended micro-batch becomes the user's own
                self._entries.hold(TrainingField.MICRO_BATCH, Decimal(current.micro_batch))
        self._choices = chosen
        self._fill_length()
        self.inputsReplaced.emit(frozenset({CHOICES, *SPEED_FIELDS, *_SHOWN_BY_CHOICES}))
        self._refresh()

    def _chosen(self, choice: Choice, value: ChoiceValue) -> Choices | None:
        """The choices with ``value`` in ``choice`` (None: not a value it takes)."""
        c = self._choices
        try:
            if choice is Choice.MODEL and isinstance(value, str):
                known = {m.name for m in catalogue()} | {NO_MODEL, SHAPE_MODEL, PARAMS_MODEL}
                if c.config is not None:
                    known.add(CONFIG_MODEL)
                return replace(c, model=value) if value in known else None
            if choice is Choice.CARD and isinstance(value, str):
                known_card = value in {card.id for card in self._cards}
                return replace(c, card=value if known_card else CUSTOM_ID)
            if choice is Choice.RECOMMEND and isinstance(value, bool):
                return replace(c, recommend=value)
            if choice is Choice.FP8 and isinstance(value, bool):
                return replace(c, fp8=value)
            if choice is Choice.VISION_FROZEN and isinstance(value, bool):
                return replace(c, vision_frozen=value)
            chosen = ENUM_CHOICES.get(choice)
            if chosen is not None:
                attribute, kind = chosen
                changes: dict[str, Any] = {attribute: kind(value)}
                return replace(c, **changes)
        except ValueError:
            return None
        return None

    def is_training_config(self, path: Path) -> bool:
        """``path`` is a trainer's config (DeepSpeed, accelerate, axolotl, ...) rather
        than a model's ``config.json``."""
        from gradacc_desktop.core.training.imported import is_training_config

        return is_training_config(path)

    def open_config(self, path: str | Path) -> Outcome:
        """Take the model from a local ``config.json`` (never a download); a file that
        is not one says why and nothing changes."""
        name = file_name(str(path))
        try:
            text = read_model_config_text(path)
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            self._config_error = self.tr("{file} was not opened: {reason}").format(
                file=name, reason=self._formats.said(exc.detail)
            )
            self._refresh(force=True)
            return Outcome(False, self._config_error)
        self._config_error = ""
        self._choices = replace(
            self._choices, model=CONFIG_MODEL, config=OpenedConfig(arch, name, text)
        )
        self._fill_length()
        self.inputsReplaced.emit(frozenset({CHOICES, *_SHOWN_BY_CHOICES}))
        self._refresh(force=True)
        return Outcome(
            True,
            self.tr("Model read from {file}: {model}.").format(
                file=name, model=arch.architecture or arch.model_type
            ),
        )

    def _fill_length(self) -> None:
        """A model chosen while the sequence length is empty: its own context (at most
        4 096 tokens), written into the field where the user sees it."""
        if self._entries.entry(TrainingField.SEQ_LEN) is not None:
            return
        spec = self._spec_guess()
        if spec is None or spec.source is ModelSource.PARAMS:
            return
        try:
            length = facts(spec).default_seq
        except (LookupError, ValueError):
            return
        if length is not None:
            self._entries.hold(TrainingField.SEQ_LEN, Decimal(length))
            self.inputsReplaced.emit(frozenset({TrainingField.SEQ_LEN}))

    def _spec_guess(self) -> ModelSpec | None:
        """The chosen model, when a bundled one or a file (the others need fields)."""
        c = self._choices
        if c.model == CONFIG_MODEL and c.config is not None:
            return ModelSpec.config(c.config.arch, c.config.file_name, c.config.text)
        if c.model in {m.name for m in catalogue()}:
            return ModelSpec.bundled(c.model)
        return None

    # -- the whole description ----------------------------------------------------------
    def apply(self, description: TrainingDescription) -> None:
        """Make ``description``'s setup and batch the user's: a search's best setup, an
        alternative that fits, a checked config file. The model and what the run costs
        stay as they are unless ``description`` names another model."""
        d = description
        c = replace(
            self._choices,
            method=d.method,
            optimizer=d.optimizer,
            precision=d.precision,
            attention=d.attention,
            zero=d.zero_stage,
            offload=d.offload,
            recompute=d.recompute,
            rounding=d.rounding,
            recommend=d.micro_batch is None,
        )
        targets = _targets_choice(d)
        if targets is not None:
            c = replace(c, lora_targets=targets)
        if d.card is not None and any(card.id == d.card.id for card in self._cards):
            c = replace(c, card=d.card.id)
        if d.model is not None and d.model.source is ModelSource.BUNDLED and d.model.name:
            c = replace(c, model=d.model.name)
        if d.fp8 or fp8_allowed(d.precision, d.card):  # else the choice waits for a card
            c = replace(c, fp8=d.fp8)
        c = replace(c, vision_frozen=d.vision_frozen)
        self._choices = c
        values: dict[TrainingField, Entry] = {
            TrainingField.TARGET: Decimal(d.target_batch),
            TrainingField.GPUS: Decimal(d.gpus),
            TrainingField.NODES: Decimal(d.nodes),
            TrainingField.TENSOR_PARALLEL: Decimal(d.tensor_parallel),
            TrainingField.PIPELINE_STAGES: Decimal(d.pipeline_stages),
            TrainingField.VIRTUAL_STAGES: Decimal(d.virtual_stages),
            TrainingField.EXPERT_PARALLEL: Decimal(d.expert_parallel),
            TrainingField.CONTEXT_PARALLEL: Decimal(d.context_parallel),
            TrainingField.LORA_RANK: Decimal(d.lora_rank),
            TrainingField.ACTIVATION: d.activation_gb,
            TrainingField.OTHER_MEMORY: d.other_memory_gb,
        }
        if d.micro_batch is not None:
            values[TrainingField.MICRO_BATCH] = Decimal(d.micro_batch)
        if d.seq_len is not None:
            values[TrainingField.SEQ_LEN] = Decimal(d.seq_len)
        for field, given in (
            (TrainingField.IMAGES, d.images),
            (TrainingField.IMAGE_WIDTH, d.image_width),
            (TrainingField.IMAGE_HEIGHT, d.image_height),
        ):
            if given is not None:
                values[field] = Decimal(given)
        self._replace(values, choices=True)

    # -- the speed profile ------------------------------------------------------------
    def load_profile(self, path: Path) -> Outcome:
        """Use the speed profile at ``path``; on any problem nothing changes."""
        try:
            profile = load_profile(path)
        except ProfileError as exc:
            return Outcome(False, self.profile_refused(path.name, exc.message))
        self._profile = profile
        self._refresh(force=True)
        return Outcome(True, self.tr("Speed profile “{name}” in use.").format(name=path.name))

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

    def profile_refused(self, name: str, detail: str) -> str:
        return self.tr("“{name}” is not a speed profile this app can read: {detail}").format(
            name=name, detail=self._formats.said(detail)
        )

    def profile_summary(self) -> str:
        profile = self._profile
        if profile is None:
            return self.tr("Micro-steps: estimated by the efficiency model (no measured profile).")
        f = self._formats.format
        return self.tr(
            "Micro-steps measured on {device}: {model}, sequence {seq}, micro-batches {low}–{high}."
        ).format(
            device=profile.device,
            model=profile.model,
            seq=f(profile.seq_len),
            low=f(profile.smallest),
            high=f(profile.largest),
        )

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
        self.inputsReplaced.emit(frozenset({CHOICES, *TrainingField}))
        self._refresh(force=True)

    def _replace(self, values: Mapping[TrainingField, Entry], choices: bool = False) -> None:
        for field, value in values.items():
            self._entries.hold(field, value)
        changed: set[object] = set(values)
        if choices:
            changed.add(CHOICES)
            changed.update(_SHOWN_BY_CHOICES)
        self.inputsReplaced.emit(frozenset(changed))
        self._refresh()

    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)
            # the recommended micro-batch and a model's parameters follow the plan (only
            # while the user does not type them)
            following = frozenset(f for f in _FOLLOW_THE_PLAN if not self.editable(f))
            if following:
                self.inputsReplaced.emit(following)

    def _shape_problem(self, family: Family, hidden: int, heads: int, kv_heads: int) -> str:
        if hidden % heads:
            return self.tr("Typed sizes: the hidden size must divide by the attention heads.")
        if heads % kv_heads:
            return self.tr("Typed sizes: the attention heads must divide by the key/value heads.")
        if family is Family.GPT2 and kv_heads != heads:
            return self.tr("Typed sizes: GPT-2 has as many key/value heads as attention heads.")
        return ""

    def _visible(self, plan_: Plan | None) -> frozenset[TrainingField | Choice]:
        c = self._choices
        shown: set[TrainingField | Choice] = {
            f
            for f in TrainingField
            if f not in SHAPE_FIELDS
            and f not in SPEED_FIELDS
            and f
            not in (
                TrainingField.MODEL_PARAMS,
                TrainingField.LORA_RANK,
                TrainingField.TRAINABLE_PARAMS,
                TrainingField.TARGET_SEQ,
                *IMAGE_FIELDS,
                TrainingField.REFERENCE_LR,
                TrainingField.REFERENCE_BATCH,
            )
        }
        hidden_choices = (Choice.FAMILY, Choice.LORA_TARGETS, Choice.VISION_FROZEN)
        shown |= {ch for ch in Choice if ch not in hidden_choices}
        if c.model == PARAMS_MODEL:  # any other model states its count in its note
            shown.add(TrainingField.MODEL_PARAMS)
        if c.model == SHAPE_MODEL:
            shown.update(SHAPE_FIELDS)
            shown.add(Choice.FAMILY)
        model = None if plan_ is None else plan_.figures.facts
        if c.method.adapters:
            shown.add(TrainingField.LORA_RANK)
            if model is not None and model.lora is None:
                shown.add(TrainingField.TRAINABLE_PARAMS)
            else:
                shown.add(Choice.LORA_TARGETS)
        if model is not None and model.encoder_decoder:
            shown.add(TrainingField.TARGET_SEQ)
        vision = None if model is None else model.vision
        if vision is not None:
            shown.add(Choice.VISION_FROZEN)
            if vision.takes_images:
                shown.add(TrainingField.IMAGES)
            if vision.resizable:
                shown.update((TrainingField.IMAGE_WIDTH, TrainingField.IMAGE_HEIGHT))
        return frozenset(shown)

    def _build_state(self) -> TrainingState:
        built = build(self._choices, self._entries, self._cards, self._profile, self._shape_problem)
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
        return TrainingState(
            plan=result,
            problems=problems,
            run_problems=built.run_problems,
            notes=notes,
            visible=self._visible(result),
        )


#: fields whose text or state follows the choices
_SHOWN_BY_CHOICES = frozenset(
    {
        TrainingField.GPU_MEMORY,
        TrainingField.MICRO_BATCH,
        TrainingField.MODEL_PARAMS,
        TrainingField.EFFICIENCY,
        TrainingField.LINK,
        TrainingField.NETWORK,
    }
)
#: fields whose text follows the plan
_FOLLOW_THE_PLAN = frozenset({TrainingField.MICRO_BATCH, TrainingField.MODEL_PARAMS})


def _card_speed(card: GpuCard, field: TrainingField) -> Decimal:
    perf = card.performance
    assert perf is not None
    if field is TrainingField.CUSTOM_TFLOPS:
        return perf.bf16_tflops if perf.bf16_tflops is not None else perf.fp16_tflops
    if field is TrainingField.CUSTOM_BANDWIDTH:
        return perf.memory_bandwidth_gbps
    if field is TrainingField.CUSTOM_LINK:
        return perf.link_gbps
    return perf.inter_node_gbps


def _targets_choice(d: TrainingDescription) -> LoraTargets | None:
    """The choice of adapted layers that ``d``'s targets are (PEFT names that match one
    of the choices for its model), or None."""
    if isinstance(d.lora_targets, LoraTargets):
        return d.lora_targets
    if d.model is None:
        return None
    try:
        layout = facts(d.model).lora
    except (LookupError, ValueError):
        return None
    if layout is None:
        return None
    wanted = set(d.lora_targets)
    return next((t for t in LoraTargets if set(layout.names(t)) == wanted), None)
