"""The view-model of "Plan a run": holds what the planner's fields and choices hold,
asks ``results`` for the plan and emits it as ``PlannerState``.

The activation per sample is shared with the calculator: the planner follows the
calculator's entry and sends its own edits there, so both always agree.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QObject, Signal

from gradacc_desktop.core.calculator import Field, Inputs
from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.export import Exported, ExportFormat, export
from gradacc_desktop.core.gpus import (
    CUSTOM_ID,
    GpuTable,
    Performance,
    TrainingPrecision,
    custom_card,
    custom_performance,
)
from gradacc_desktop.core.layout import ParallelLayout
from gradacc_desktop.core.memory import DEFAULT_OVERHEAD_GB
from gradacc_desktop.core.model_size import ModelSize
from gradacc_desktop.core.model_states import model_states
from gradacc_desktop.core.models import UnknownModelError, known_models, model_size
from gradacc_desktop.core.planning import (
    GpuCard,
    GpuTableError,
    Rounding,
    load_gpu_table,
)
from gradacc_desktop.core.profile import (
    ProfileError,
    SpeedProfile,
    load_profile,
    parse_profile,
    profile_to_json,
)
from gradacc_desktop.core.scenario import Scenario, ScenarioError
from gradacc_desktop.core.setup import (
    PROBLEM_TEXT,
    Offload,
    Precision,
    TrainingSetup,
    ZeroStage,
    setup_problem,
)
from gradacc_desktop.core.tradeoff import available_for_activations
from gradacc_desktop.viewmodels.calculator import CalculatorState, CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import Entry, same_entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner import scenarios
from gradacc_desktop.viewmodels.planner.clipboard import PlanClipboard
from gradacc_desktop.viewmodels.planner.config_check import CheckOutcome, ConfigCheckTexts
from gradacc_desktop.viewmodels.planner.entries import PlanEntries
from gradacc_desktop.viewmodels.planner.extras import OptionalValue
from gradacc_desktop.viewmodels.planner.fields import (
    CHOICES,
    DEFAULT_CARD,
    DEFAULT_CUSTOM_GB,
    DEFAULT_GPUS,
    DEFAULT_LAYOUT,
    DEFAULT_NODES,
    DEFAULT_PARAMETERS,
    DEFAULT_TARGET,
    OPTIONAL_FIELDS,
    SPEED_FIELDS,
    TIME_FIELDS,
    PlanField,
)
from gradacc_desktop.viewmodels.planner.formats import PlanFormats
from gradacc_desktop.viewmodels.planner.results import PlanRequest, PlanResults
from gradacc_desktop.viewmodels.planner.texts import PlannerTexts
from gradacc_desktop.viewmodels.planner.timing import TimeRequest
from gradacc_desktop.viewmodels.planner.views import (
    ConfigurationView,
    PlannerState,
    ScenarioOutcome,
)

_log = logging.getLogger(__name__)


def _card_speed(perf: Performance, field: PlanField) -> Decimal:
    """A catalogue card's figure for one of the speed fields."""
    if field is PlanField.CUSTOM_TFLOPS:
        return perf.bf16_tflops if perf.bf16_tflops is not None else perf.fp16_tflops
    if field is PlanField.CUSTOM_BANDWIDTH:
        return perf.memory_bandwidth_gbps
    if field is PlanField.CUSTOM_LINK:
        return perf.link_gbps
    return perf.inter_node_gbps


def default_other_memory_gb() -> Decimal:
    """The first "other memory": a 1B-parameter model trained with mixed-precision Adam
    on one GPU, as the Estimate dialog counts it (DeepSpeed's 20 bytes per parameter
    without ZeRO) plus the default overhead."""
    states = model_states(DEFAULT_PARAMETERS, 1, ZeroStage.NONE)
    return Decimal(states.gpu_bytes) / 10**9 + DEFAULT_OVERHEAD_GB


class PlannerViewModel(QObject):
    # every change of inputs, results or language: carries a ``PlannerState``
    stateChanged = Signal(object)
    # inputs set programmatically: carries a frozenset of ``PlanField`` (and/or ``CHOICES``)
    inputsReplaced = Signal(object)

    def __init__(
        self,
        calculator: CalculatorViewModel,
        parent: QObject | None = None,
        gpu_table: GpuTable | None = None,
    ) -> None:
        super().__init__(parent)
        self._calc = calculator
        if gpu_table is None:
            try:
                gpu_table = load_gpu_table()
            except GpuTableError as exc:  # a broken bundle leaves the custom card
                _log.warning("GPU table not usable, only the custom card is offered: %s", exc)
        self._cards: tuple[GpuCard, ...] = gpu_table.cards if gpu_table else ()
        ids = [c.id for c in self._cards]
        self._card_id = DEFAULT_CARD if DEFAULT_CARD in ids else (ids[0] if ids else CUSTOM_ID)
        self._recommend = True
        self._rounding = Rounding.CEIL
        self._zero = ZeroStage.NONE
        self._precision = Precision.BF16
        self._offload = Offload.NONE
        self._recompute = Recompute.NONE
        # a bundled model (its name and size), or None: the parameters are typed in
        self._model: ModelSize | None = None
        self._model_names: tuple[str, ...] | None = None
        # a measured speed profile replacing the roofline's micro-step (None: roofline)
        self._profile: SpeedProfile | None = None
        self._formats = PlanFormats(calculator.locale)
        self._texts = PlannerTexts(self._formats)
        self._results = PlanResults(self._formats)
        self._files = scenarios.ScenarioFiles(self._formats)
        self._clipboard = PlanClipboard(self._texts, self._formats)
        self._checks = ConfigCheckTexts(self._formats)
        first: dict[PlanField, Entry] = {
            PlanField.TARGET: DEFAULT_TARGET,
            PlanField.GPUS: DEFAULT_GPUS,
            PlanField.NODES: DEFAULT_NODES,
            PlanField.TENSOR_PARALLEL: DEFAULT_LAYOUT,
            PlanField.PIPELINE_STAGES: DEFAULT_LAYOUT,
            PlanField.MICRO_BATCH: Decimal(calculator.last_valid_inputs.micro_batch),
            PlanField.GPU_MEMORY: DEFAULT_CUSTOM_GB,
            PlanField.OTHER_MEMORY: default_other_memory_gb(),
            PlanField.ACTIVATION: calculator.entry(Field.ACTIVATION_GB),
            **dict.fromkeys(OPTIONAL_FIELDS),
        }
        self._entries = PlanEntries(
            first,
            {PlanField.ACTIVATION: calculator.last_valid_inputs.activation_gb},
            self._texts.field_label,
            calculator.locale,
            self._formats.unit_gb(),
        )
        self._state = self._build_state()
        calculator.stateChanged.connect(self._on_calculator_state)

    # -- access ---------------------------------------------------------------
    @property
    def calculator(self) -> CalculatorViewModel:
        return self._calc

    @property
    def locale(self) -> QLocale:
        return self._formats.locale

    @property
    def formats(self) -> PlanFormats:
        """Numbers, gigabytes and counts in the planner's locale."""
        return self._formats

    @property
    def texts(self) -> PlannerTexts:
        """Labels, hints, choices and titles."""
        return self._texts

    @property
    def state(self) -> PlannerState:
        return self._state

    @property
    def recommending(self) -> bool:
        return self._recommend

    @property
    def rounding(self) -> Rounding:
        return self._rounding

    @property
    def card_id(self) -> str:
        return self._card_id

    @property
    def zero_stage(self) -> ZeroStage:
        return self._zero

    @property
    def precision(self) -> Precision:
        return self._precision

    @property
    def offload(self) -> Offload:
        return self._offload

    @property
    def recompute(self) -> Recompute:
        return self._recompute

    @property
    def model_name(self) -> str | None:
        """The bundled model chosen for the time per step (None: parameters typed in)."""
        return None if self._model is None else self._model.name

    @property
    def profile(self) -> SpeedProfile | None:
        return self._profile

    def profile_summary(self) -> str:
        """Which micro-step times the planner uses, in a line."""
        return self._texts.profile_summary(self._profile)

    def load_profile(self, path: Path) -> ScenarioOutcome:
        """Use the speed profile at ``path``; on any problem nothing changes."""
        try:
            profile = load_profile(path)
        except ProfileError as exc:
            return ScenarioOutcome(False, self._texts.profile_refused(path.name, str(exc)))
        self._profile = profile
        self._refresh(force=True)
        return ScenarioOutcome(True, self._texts.profile_loaded(path.name))

    def clear_profile(self) -> None:
        if self._profile is not None:
            self._profile = None
            self._refresh(force=True)

    def remembered_profile(self) -> str | None:
        """The profile in use as JSON text, for the settings store."""
        return None if self._profile is None else profile_to_json(self._profile)

    def restore_profile(self, text: str) -> bool:
        """Use a remembered profile again; an unreadable one is ignored (False)."""
        try:
            self._profile = parse_profile(text.encode("utf-8"))
        except (ProfileError, UnicodeError):
            return False
        self._refresh(force=True)
        return True

    def efficiency_placeholder(self) -> str:
        """What the empty efficiency field stands for: the chosen card's own figure."""
        card = self.card()
        if card is None or card.performance is None:
            return ""
        return self._texts.card_efficiency(card.performance.efficiency * 100)

    def model_options(self) -> list[tuple[str, str]]:
        """("", "type the parameters") and every bundled model, for the model choice."""
        if self._model_names is None:
            try:
                self._model_names = known_models()
            except Exception:  # a broken bundle leaves typing the parameters
                _log.exception("bundled models not readable")
                self._model_names = ()
        return self._texts.model_options(self._model_names)

    def value(self, field: PlanField) -> Decimal | None:
        """The field's current number, or ``None`` when it is empty or not a number."""
        return self._entries.value(field)

    def last_valid(self, field: PlanField) -> Decimal | None:
        return self._entries.last_valid(field)

    def optional_value(self, field: PlanField) -> OptionalValue:
        """(value, problem) of an optional field: (None, None) when it is empty."""
        return self._entries.optional_value(field)

    def card(self) -> GpuCard | None:
        """The chosen card from the table (``None`` for the custom card)."""
        return next((c for c in self._cards if c.id == self._card_id), None)

    def card_options(self) -> list[tuple[str, str]]:
        """(id, name) of every card, then the custom card."""
        return self._texts.card_options(self._cards)

    def card_hint(self, card_id: str) -> str:
        return self._texts.card_hint(next((c for c in self._cards if c.id == card_id), None))

    def capacity(self) -> Decimal | None:
        """Usable memory of the chosen card, or the custom value typed in."""
        card = self.card()
        return card.usable_gb if card is not None else self.value(PlanField.GPU_MEMORY)

    def available_for_activations(self) -> Decimal | None:
        """Capacity minus other memory (for the trade-off chart), if both are known."""
        capacity = self.capacity()
        other = self.value(PlanField.OTHER_MEMORY)
        if capacity is None or other is None:
            return None
        return available_for_activations(capacity, other)

    def configuration(self) -> ConfigurationView | None:
        view = self._state.results
        return view.configuration if view is not None else None

    # -- fields ---------------------------------------------------------------
    def number_input(self, field: PlanField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget)."""
        return self._entries.number_input(field)

    def shown_text(self, field: PlanField) -> str:
        """What the field shows: what it holds (unreadable text as typed), except where
        the planner decides the value — a card from the table shows its usable memory,
        and while recommending the micro-batch shows the recommended one."""
        number = self._entries.number_input(field)
        card = self.card()
        if field is PlanField.GPU_MEMORY and card is not None:
            return number.show(card.usable_gb)
        if field is PlanField.MODEL_PARAMS and self._model is not None:
            return number.show(self._model.compute_params)
        if field in SPEED_FIELDS and card is not None and card.performance is not None:
            return number.show(_card_speed(card.performance, field))
        if field is PlanField.MICRO_BATCH and self._recommend:
            config = self.configuration()
            if config is not None:
                return number.show(config.micro_batch)
        return number.show_entry(self._entries.entry(field))

    # -- editing --------------------------------------------------------------
    def set_text(self, field: PlanField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale (unit allowed)."""
        raw = self._entries.number_input(field).read(text)
        if same_entry(self._entries.entry(field), raw):
            return
        self._entries.hold(field, raw)
        if field is PlanField.ACTIVATION:
            # One input shared with the calculator: it takes the same text, valid or
            # not (its echo finds nothing new here).
            self._calc.set_shared_text(Field.ACTIVATION_GB, text)
        # the nodes change only the exports: they are told even when the plan is the same
        self._refresh(force=field is PlanField.NODES)

    def set_recommend(self, on: bool) -> None:
        if on != self._recommend:
            self._recommend = on
            self._refresh()

    def set_rounding(self, rounding: Rounding) -> None:
        if rounding is not self._rounding:
            self._rounding = rounding
            self._refresh()

    def set_card(self, card_id: str) -> None:
        if card_id not in {c.id for c in self._cards}:
            card_id = CUSTOM_ID
        if card_id != self._card_id:
            self._card_id = card_id
            # the speed fields show the new card's figures (or the custom card's own)
            self.inputsReplaced.emit(frozenset(SPEED_FIELDS))
            self._refresh()

    def set_zero_stage(self, stage: ZeroStage) -> None:
        if stage is not self._zero:
            self._zero = stage
            self._refresh(force=True)

    def set_precision(self, precision: Precision) -> None:
        if precision is not self._precision:
            self._precision = precision
            self._refresh(force=True)

    def set_offload(self, offload: Offload) -> None:
        if offload is not self._offload:
            self._offload = offload
            self._refresh(force=True)

    def set_recompute(self, recompute: Recompute) -> None:
        if recompute is not self._recompute:
            self._recompute = recompute
            self._refresh()

    def set_model(self, name: str | None) -> None:
        """Choose a bundled model by name (None or unknown: type the parameters)."""
        chosen = self._model_named(name)
        if chosen != self._model:
            self._model = chosen
            self.inputsReplaced.emit(frozenset({PlanField.MODEL_PARAMS, CHOICES}))
            self._refresh()

    @staticmethod
    def _model_named(name: str | None) -> ModelSize | None:
        if not name:
            return None
        try:
            return model_size(name)
        except UnknownModelError:
            _log.warning("unknown bundled model %r: the parameters are typed in", name)
            return None

    def set_other_memory(self, gb: Decimal) -> None:
        self._replace({PlanField.OTHER_MEMORY: gb})

    def reference(self) -> tuple[Decimal | None, int | None]:
        """The learning-rate reference (rate, batch) the fields hold: ``None`` where a
        field is empty or not valid. Remembered between sessions (not in scenarios)."""
        lr = self._entries.current_or_last(PlanField.REFERENCE_LR)
        batch = self._entries.current_or_last(PlanField.REFERENCE_BATCH)
        return lr, None if batch is None else int(batch)

    def set_reference(self, lr: Decimal | None, batch: int | None) -> None:
        """Put a remembered learning-rate reference back (``None`` leaves a field empty)."""
        self._replace(
            {
                PlanField.REFERENCE_LR: lr,
                PlanField.REFERENCE_BATCH: None if batch is None else Decimal(batch),
            }
        )

    def choose_pair(self, micro_batch: int) -> None:
        """Take a micro-batch from the pairs table as the user's own."""
        self._recommend = False
        self._replace({PlanField.MICRO_BATCH: Decimal(micro_batch)}, choices=True)

    def set_language(self, locale: QLocale) -> None:
        """After a language switch, once the new catalogues are installed: numbers are
        read and shown in ``locale``, units and texts are in the new language. The state
        is rebuilt and emitted once."""
        self._formats.locale = locale
        self._entries.set_language(locale, self._formats.unit_gb())
        self._refresh(force=True)

    # -- actions ----------------------------------------------------------------
    def use_configuration(self) -> str | None:
        """Fill the calculator with the planned configuration; returns a status message."""
        config = self.configuration()
        if config is None or not config.can_use:
            return None
        self._calc.set_inputs(
            Inputs(config.micro_batch, config.accumulation_steps, config.gpus, config.activation_gb)
        )
        return self.tr("Configuration sent to the calculator: {formula}.").format(
            formula=config.formula
        )

    def _requested_setup(self) -> TrainingSetup | None:
        """The setup the planner's configuration and choices ask for, whether or not a
        framework would run it (``None``: no configuration or no valid node count)."""
        config = self.configuration()
        nodes = self._entries.value(PlanField.NODES)
        if config is None or nodes is None or self._entries.problem(PlanField.NODES):
            return None
        layout = [
            self._entries.value(f) for f in (PlanField.TENSOR_PARALLEL, PlanField.PIPELINE_STAGES)
        ]
        if any(v is None for v in layout) or any(
            self._entries.problem(f) for f in (PlanField.TENSOR_PARALLEL, PlanField.PIPELINE_STAGES)
        ):
            return None
        tensor, stages = (int(v) for v in layout if v is not None)
        return TrainingSetup(
            config.micro_batch,
            config.accumulation_steps,
            config.gpus,
            nodes=int(nodes),
            zero_stage=self._zero,
            precision=self._precision,
            offload=self._offload,
            tensor_parallel=tensor,
            pipeline_stages=stages,
        )

    def export_setup(self) -> TrainingSetup | None:
        """The whole training setup the exports describe, or ``None`` when there is no
        configuration, the nodes field holds no valid number, or no framework would
        run the combination (see ``export_unavailable``)."""
        setup = self._requested_setup()
        return setup if setup is not None and setup_problem(setup) is None else None

    def exported(self, fmt: ExportFormat) -> Exported | None:
        """The files of ``fmt`` for the current setup (``None``: see ``export_unavailable``)."""
        setup = self.export_setup()
        return None if setup is None else export(fmt, setup)

    def export_text(self, fmt: ExportFormat) -> str | None:
        """Every file of ``fmt`` as one text."""
        files = self.exported(fmt)
        return None if files is None else files.text

    def export_unavailable(self) -> str:
        """Why there is nothing to export, in words."""
        config = self.configuration()
        if config is None:
            return self.tr("Nothing to export yet: the planner has no configuration.")
        problem = self._entries.problem(PlanField.NODES)
        if problem is not None:
            return problem
        setup = self._requested_setup()
        assert setup is not None
        reason = setup_problem(setup)
        if reason is None:
            return ""
        f = self._formats.format
        return QCoreApplication.translate("Setup", PROBLEM_TEXT[reason]).format(
            gpus=f(setup.world),
            nodes=f(setup.nodes),
            tensor_parallel=f(setup.tensor_parallel),
            gpus_per_node=f(setup.gpus_per_node),
        )

    def export_notes(self, fmt: ExportFormat) -> tuple[str, ...]:
        """What ``fmt`` cannot carry of the layout (or how it does), translated."""
        exported = self.exported(fmt)
        if exported is None:
            return ()
        return tuple(QCoreApplication.translate("Export", note) for note in exported.notes)

    def save_export(self, fmt: ExportFormat, folder: Path) -> ScenarioOutcome:
        """Write the files of ``fmt`` into ``folder`` (replacing files of the same names)."""
        return self._files.save_export(self.exported(fmt), folder, self.export_unavailable())

    def check_config(self, path: Path) -> CheckOutcome:
        """Read an existing DeepSpeed, accelerate or axolotl file; when it gives a whole
        setup, the planner takes it (target = its effective batch, its micro-batch,
        GPUs, nodes, ZeRO stage, precision and offload). Files that do not give the
        GPU count use the planner's."""
        gpus = self._entries.value(PlanField.GPUS)
        outcome = self._checks.check(path, None if gpus is None else int(gpus))
        setup = outcome.setup
        if setup is not None:
            self._recommend = False
            self._zero, self._precision, self._offload = (
                setup.zero_stage,
                setup.precision,
                setup.offload,
            )
            self._replace(
                {
                    PlanField.TARGET: Decimal(setup.effective_batch),
                    PlanField.GPUS: Decimal(setup.gpus),
                    PlanField.MICRO_BATCH: Decimal(setup.micro_batch),
                    PlanField.NODES: Decimal(setup.nodes),
                },
                choices=True,
            )
            fit = self._state.results.fit if self._state.results is not None else None
            if fit is not None:  # what the imported setup needs on the planner's GPU
                outcome = replace(outcome, report=f"{outcome.report}\n{fit.verdict}: {fit.usage}")
        return outcome

    def clipboard_text(self) -> str | None:
        """The whole plan as plain text, or ``None`` in the "no result" state."""
        return self._clipboard.text(self)

    # -- scenarios ----------------------------------------------------------------
    def scenario(self) -> Scenario:
        """The calculator's and the planner's settings (last valid values where invalid now)."""

        inputs = self._calc.last_valid_inputs
        plan = scenarios.plan_settings(
            self._entries,
            self._recommend,
            self._rounding,
            self.card(),
            inputs.activation_gb,
            (self._zero, self._precision, self._offload),
            (self.model_name, self._recompute),
        )
        return Scenario(calculator=inputs, plan=plan)

    def unsaved_problems(self) -> tuple[str, ...]:
        """Why the scenario cannot be saved now: a field holds a value it refuses.

        A saved scenario is what the fields show; one that cannot be read as a value
        is never replaced by a remembered one behind the user's back.
        """
        fields = [
            *self._required(),
            *(f for f in PlanField if f in OPTIONAL_FIELDS and self._entries.entry(f) is not None),
        ]
        mine = tuple(p for f in fields if (p := self._entries.problem(f)) is not None)
        theirs = self._calc.state.problems
        return theirs + tuple(p for p in mine if p not in theirs)

    def save_scenario(self, path: Path) -> ScenarioOutcome:
        return self._files.save(path, self.scenario(), self.unsaved_problems())

    def open_scenario(self, path: Path) -> ScenarioOutcome:
        """Read, validate and apply a scenario file; on any problem nothing changes."""
        return self._files.open(path, self.apply_scenario)

    def scenario_problem(self, error: ScenarioError) -> str:
        return self._files.problem(error)

    def apply_scenario(self, loaded: Scenario, with_calculator: bool = True) -> None:
        """Apply a validated scenario; ``with_calculator=False`` leaves the calculator's
        inputs alone (restoring the planner at start-up: the calculator has its own)."""
        plan = loaded.plan
        self._recommend = plan.micro_batch is None
        self._rounding = plan.rounding
        self._zero, self._precision, self._offload = plan.zero_stage, plan.precision, plan.offload
        self._recompute = plan.recompute
        self._model = self._model_named(plan.model)
        known = {c.id for c in self._cards}
        self._card_id = plan.gpu_card if plan.gpu_card in known else CUSTOM_ID
        self._replace(scenarios.field_values(plan, self._card_id), choices=True, refresh=False)
        # The calculator's activation is the shared one: the planner follows it.
        if with_calculator:
            self._calc.set_inputs(loaded.calculator)
        self._refresh(force=True)

    def remembered(self) -> str:
        """The planner's settings as scenario JSON, for the settings store."""
        return scenarios.remembered_text(self.scenario())

    def restore_remembered(self, text: str) -> bool:
        """Apply what ``remembered`` stored; anything invalid is ignored (False)."""
        loaded = scenarios.read_remembered(text)
        if loaded is None:
            return False
        self.apply_scenario(loaded, with_calculator=False)
        return True

    # -- internals --------------------------------------------------------------
    def _replace(
        self,
        values: Mapping[PlanField, Entry],
        choices: bool = False,
        refresh: bool = True,
    ) -> None:
        for field, value in values.items():
            self._entries.hold(field, value)
        changed: set[object] = set(values)
        if choices:
            changed.add(CHOICES)
        self.inputsReplaced.emit(frozenset(changed))
        if refresh:
            self._refresh()

    def _on_calculator_state(self, _state: CalculatorState) -> None:
        """Follow the calculator's activation; its other inputs do not concern the
        planner, so typing there costs the planner nothing."""
        activation = self._calc.entry(Field.ACTIVATION_GB)
        if not same_entry(activation, self._entries.entry(PlanField.ACTIVATION)):
            self._replace({PlanField.ACTIVATION: activation}, refresh=False)
            self._refresh(force=True)

    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _required(self) -> list[PlanField]:
        fields = [PlanField.TARGET, PlanField.GPUS]
        if not self._recommend:
            fields.append(PlanField.MICRO_BATCH)
        if self._card_id == CUSTOM_ID:
            fields.append(PlanField.GPU_MEMORY)
        fields += [PlanField.OTHER_MEMORY, PlanField.ACTIVATION]
        fields += [PlanField.TENSOR_PARALLEL, PlanField.PIPELINE_STAGES]
        return fields

    def _build_state(self) -> PlannerState:
        prompt = self._texts.prompt()
        entries = self._entries
        problems = tuple(p for f in self._required() if (p := entries.problem(f)) is not None)
        if problems:
            return PlannerState(None, prompt, problems)
        capacity = self.capacity()
        assert capacity is not None
        request = PlanRequest(
            target=int(entries.number(PlanField.TARGET)),
            gpus=int(entries.number(PlanField.GPUS)),
            micro_batch=None if self._recommend else int(entries.number(PlanField.MICRO_BATCH)),
            capacity=capacity,
            other_gb=entries.number(PlanField.OTHER_MEMORY),
            activation_gb=entries.number(PlanField.ACTIVATION),
            rounding=self._rounding,
            optional={f: entries.optional_value(f) for f in OPTIONAL_FIELDS},
            tensor_parallel=int(entries.number(PlanField.TENSOR_PARALLEL)),
            time=self._time_request(request_activation=entries.number(PlanField.ACTIVATION)),
        )
        return PlannerState(self._results.view(request), prompt, ())

    def _time_fields(self) -> tuple[PlanField, ...]:
        """The optional fields the time per step reads now: a bundled model gives its own
        parameters and a catalogue card its own speed, so those fields are not read."""
        unused = set()
        if self._model is not None:
            unused.add(PlanField.MODEL_PARAMS)
        if self.card() is not None:
            unused.update(SPEED_FIELDS)
        return tuple(f for f in (*TIME_FIELDS, PlanField.SEQ_LEN) if f not in unused)

    def _time_request(self, request_activation: Decimal) -> TimeRequest:
        """What the time per step needs (valid required fields assumed)."""
        entries = self._entries
        values = {f: entries.optional_value(f) for f in self._time_fields()}
        problems = [p for _value, p in values.values() if p is not None]

        def number(field: PlanField) -> Decimal | None:
            return values[field][0] if field in values else None

        def whole(field: PlanField) -> int | None:
            value = number(field)
            return None if value is None else int(value)

        card = self.card()
        speed = [number(f) for f in SPEED_FIELDS]
        if card is None and all(v is not None for v in speed):
            tflops, bandwidth, link, network = (v for v in speed if v is not None)
            performance = custom_performance(tflops, bandwidth, link, network)
            card = custom_card(self.capacity() or Decimal(1), performance)
        dataset = entries.optional_value(PlanField.DATASET)[0]
        nodes = entries.value(PlanField.NODES)
        return TimeRequest(
            model=self._model,
            params=whole(PlanField.MODEL_PARAMS),
            seq_len=whole(PlanField.SEQ_LEN),
            card=card,
            precision=TrainingPrecision(self._precision.value),
            zero=self._zero,
            nodes=1 if nodes is None or entries.problem(PlanField.NODES) else int(nodes),
            layout=ParallelLayout(
                int(entries.number(PlanField.GPUS)),
                int(entries.number(PlanField.TENSOR_PARALLEL)),
                int(entries.number(PlanField.PIPELINE_STAGES)),
            ),
            recompute=self._recompute,
            efficiency_percent=number(PlanField.EFFICIENCY),
            price=number(PlanField.PRICE),
            tokens=whole(PlanField.TOKENS),
            dataset=None if dataset is None else int(dataset),
            epochs=whole(PlanField.EPOCHS),
            activation_gb=request_activation,
            problem=problems[0] if problems else None,
            profile=self._profile,
        )
