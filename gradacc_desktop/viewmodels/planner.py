"""View-model of "Plan a run": holds the planner's inputs, calls ``core.planning`` and
emits display-ready, locale-formatted state. No widgets and no arithmetic here.

The activation per sample is shared with the calculator: the planner follows the
calculator's value and sends its own edits there, so both always agree.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.calculator import LIMITS, Field, Inputs, check_value
from gradacc_desktop.core.export import ExportFormat, render
from gradacc_desktop.core.gpus import CUSTOM_ID, GpuTable
from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    LR_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
    DeepSpeedReason,
    FitResult,
    GpuCard,
    GpuTableError,
    NothingFits,
    PlanPair,
    Recipe,
    Recommendation,
    Rounding,
    Suggestion,
    deepspeed_check,
    estimate_other_memory,
    fit,
    load_gpu_table,
    lr_linear,
    lr_sqrt,
    max_micro_batch,
    recommend,
    solve_accumulation,
    steps_per_epoch,
    tokens_per_step,
)
from gradacc_desktop.core.scenario import PlanSettings, Reason, Scenario, ScenarioError
from gradacc_desktop.core.tradeoff import available_for_activations
from gradacc_desktop.viewmodels.calculator import TIMES, CalculatorState, CalculatorViewModel
from gradacc_desktop.viewmodels.files import write_file_atomically
from gradacc_desktop.viewmodels.formatting import (
    Entry,
    align_row,
    column_widths,
    format_approx,
    format_number,
    same_entry,
)
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe, problem_of

# Exact micro-batches listed before "…and N more".
MAX_EXACT_SHOWN = 12
# Significant digits shown for the scaled learning rates.
LR_DIGITS = 6
# Card chosen on first start (falls back to the first card, then to "custom").
DEFAULT_CARD = "a100-80gb"
DEFAULT_CUSTOM_GB = Decimal(24)
# Model size the "other memory" helper starts from (1B parameters, mixed-precision Adam).
DEFAULT_PARAMETERS = 1_000_000_000


class PlanField(enum.Enum):
    """The planner's typed inputs, in the order the view shows them."""

    TARGET = "target_batch"
    GPUS = "gpus"
    MICRO_BATCH = "micro_batch"
    GPU_MEMORY = "gpu_memory_gb"  # the custom card's capacity
    OTHER_MEMORY = "other_memory_gb"
    ACTIVATION = "activation_gb"  # shared with the calculator
    SEQ_LEN = "seq_len"
    DATASET = "dataset_samples"
    REFERENCE_LR = "reference_lr"
    REFERENCE_BATCH = "reference_batch"


OPTIONAL_FIELDS = frozenset(
    {PlanField.SEQ_LEN, PlanField.DATASET, PlanField.REFERENCE_LR, PlanField.REFERENCE_BATCH}
)

FIELD_LIMITS: dict[PlanField, Limits] = {
    PlanField.TARGET: TARGET_LIMITS,
    PlanField.GPUS: LIMITS[Field.GPUS],
    PlanField.MICRO_BATCH: LIMITS[Field.MICRO_BATCH],
    PlanField.GPU_MEMORY: GPU_MEMORY_LIMITS,
    PlanField.OTHER_MEMORY: OTHER_MEMORY_LIMITS,
    PlanField.ACTIVATION: LIMITS[Field.ACTIVATION_GB],
    PlanField.SEQ_LEN: SEQ_LEN_LIMITS,
    PlanField.DATASET: DATASET_LIMITS,
    PlanField.REFERENCE_LR: LR_LIMITS,
    PlanField.REFERENCE_BATCH: TARGET_LIMITS,
}

# Everything the view can be told to re-read after a programmatic change.
CHOICES = "choices"  # recommend, rounding and card


# Fields measured in gigabytes (they show and accept the unit).
GB_FIELDS = frozenset({PlanField.GPU_MEMORY, PlanField.OTHER_MEMORY, PlanField.ACTIVATION})
# One press of an arrow key.
FIELD_STEPS: dict[PlanField, Decimal] = {
    PlanField.ACTIVATION: Decimal("0.1"),
    PlanField.REFERENCE_LR: Decimal("0.0001"),
}


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class ConfigurationView:
    """The configuration the planner settled on (the user's micro-batch or the recommended one)."""

    title: str
    recommended: bool
    micro_batch: int
    accumulation_steps: int
    gpus: int
    activation_gb: Decimal
    effective_batch: int
    achieved: str
    formula: str
    summary: str
    difference: str
    exact: bool
    exact_badge: str
    reachable: str
    exact_pairs_title: str
    exact_pairs: str
    note: str
    # the calculator accepts these values ("Usar esta configuração" is enabled)
    can_use: bool
    use_hint: str


@dataclass(frozen=True)
class FitView:
    fits: bool
    verdict: str
    usage: str
    headroom: str
    largest: str


@dataclass(frozen=True)
class DeepSpeedView:
    ok: bool
    verdict: str
    explanation: str


@dataclass(frozen=True)
class NothingFitsView:
    message: str
    suggestions_title: str
    suggestions: tuple[str, ...]


@dataclass(frozen=True)
class PairRow:
    micro_batch: int
    accumulation_steps: int
    cells: tuple[str, str, str, str]
    fits: bool
    exact: bool
    # the row of the configuration shown in the results
    current: bool


@dataclass(frozen=True)
class ExtrasView:
    tokens: str
    steps: str
    lr_linear: str
    lr_sqrt: str
    lr_note: str


@dataclass(frozen=True)
class PlanView:
    configuration: ConfigurationView | None
    fit: FitView
    nothing_fits: NothingFitsView | None
    deepspeed: DeepSpeedView | None
    pairs: tuple[PairRow, ...]
    pairs_note: str
    extras: ExtrasView | None


@dataclass(frozen=True)
class PlannerState:
    # ``None`` is the "no result" state: show ``prompt`` and ``problems`` instead.
    results: PlanView | None
    prompt: str
    problems: tuple[str, ...]
    unit_note: str

    @property
    def has_result(self) -> bool:
        return self.results is not None


@dataclass(frozen=True)
class ScenarioOutcome:
    ok: bool
    message: str


# --------------------------------------------------------------------------- view-model


class PlannerViewModel(QObject):
    # every change of inputs, results or language: carries a ``PlannerState``
    stateChanged = Signal(object)
    # inputs set programmatically: carries a frozenset of ``PlanField`` (and/or ``CHOICES``)
    inputsReplaced = Signal(object)
    # the calculator's locale changed (language switch): carries the ``QLocale``
    localeChanged = Signal(object)

    def __init__(
        self,
        calculator: CalculatorViewModel,
        parent: QObject | None = None,
        gpu_table: GpuTable | None = None,
    ) -> None:
        super().__init__(parent)
        self._calc = calculator
        self.gpu_table_error: str | None = None
        if gpu_table is None:
            try:
                gpu_table = load_gpu_table()
            except GpuTableError as exc:  # a broken bundle leaves the custom card
                self.gpu_table_error = str(exc)
        self._cards: tuple[GpuCard, ...] = gpu_table.cards if gpu_table else ()
        ids = [c.id for c in self._cards]
        self._card_id = DEFAULT_CARD if DEFAULT_CARD in ids else (ids[0] if ids else CUSTOM_ID)
        self._recommend = True
        self._rounding = Rounding.CEIL
        activation = calculator.last_valid_inputs.activation_gb
        default_other = estimate_other_memory(DEFAULT_PARAMETERS, Recipe.ADAM_MIXED).total_gb
        self._raw: dict[PlanField, Entry] = {
            PlanField.TARGET: Decimal(32),
            PlanField.GPUS: Decimal(1),
            PlanField.MICRO_BATCH: Decimal(calculator.last_valid_inputs.micro_batch),
            PlanField.GPU_MEMORY: DEFAULT_CUSTOM_GB,
            PlanField.OTHER_MEMORY: default_other,
            PlanField.ACTIVATION: calculator.entry(Field.ACTIVATION_GB),
            PlanField.SEQ_LEN: None,
            PlanField.DATASET: None,
            PlanField.REFERENCE_LR: None,
            PlanField.REFERENCE_BATCH: None,
        }
        self._last_valid: dict[PlanField, Decimal] = {
            f: v for f, v in self._raw.items() if isinstance(v, Decimal)
        }
        self._last_valid.setdefault(PlanField.ACTIVATION, activation)
        self._numbers: dict[PlanField, NumberInput] = {
            f: NumberInput(
                FIELD_LIMITS[f],
                step=FIELD_STEPS.get(f, Decimal(1)),
                unit=self.unit_gb() if f in GB_FIELDS else "",
                optional=f in OPTIONAL_FIELDS,
                locale=calculator.locale,
            )
            for f in PlanField
        }
        self._locale_name = calculator.locale.name()
        self._state = self._build_state()
        calculator.stateChanged.connect(self._on_calculator_state)

    # -- access ---------------------------------------------------------------
    @property
    def calculator(self) -> CalculatorViewModel:
        return self._calc

    @property
    def locale(self) -> QLocale:
        return self._calc.locale

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

    def value(self, field: PlanField) -> Decimal | None:
        """The field's current number, or ``None`` when it is empty or not a number."""
        raw = self._raw.get(field)
        return raw if isinstance(raw, Decimal) else None

    def last_valid(self, field: PlanField) -> Decimal | None:
        return self._last_valid.get(field)

    def card(self) -> GpuCard | None:
        """The chosen card from the table (``None`` for the custom card)."""
        return next((c for c in self._cards if c.id == self._card_id), None)

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

    # -- editing --------------------------------------------------------------
    def number_input(self, field: PlanField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget)."""
        return self._numbers[field]

    def entry(self, field: PlanField) -> Entry:
        return self._raw.get(field)

    def display_text(self, field: PlanField) -> str:
        """The text ``field`` shows for what it holds (unreadable text stays as typed)."""
        return self._numbers[field].show_entry(self._raw.get(field))

    def shown_text(self, field: PlanField) -> str:
        """What the field shows: what it holds, except where the planner decides the
        value — a card from the table shows its usable memory, and while recommending
        the micro-batch shows the recommended one."""
        card = self.card()
        if field is PlanField.GPU_MEMORY and card is not None:
            return self._numbers[field].show(card.usable_gb)
        if field is PlanField.MICRO_BATCH and self._recommend:
            config = self.configuration()
            if config is not None:
                return self._numbers[field].show(config.micro_batch)
        return self.display_text(field)

    def set_text(self, field: PlanField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale (unit allowed)."""
        raw = self._numbers[field].read(text)
        old = self._raw.get(field)
        if same_entry(old, raw):
            return
        self._hold(field, raw)
        if field is PlanField.ACTIVATION:
            # One input shared with the calculator: it takes the same text, valid or
            # not (its echo finds nothing new here).
            self._calc.set_shared_text(Field.ACTIVATION_GB, text)
        self._refresh()

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
            self._refresh()

    def set_other_memory(self, gb: Decimal) -> None:
        self._replace({PlanField.OTHER_MEMORY: gb})

    def reference(self) -> tuple[Decimal | None, int | None]:
        """The learning-rate reference (rate, batch) the fields hold: ``None`` where a
        field is empty or not valid. Remembered between sessions (not in scenarios)."""
        lr = self._current_or_last(PlanField.REFERENCE_LR)
        batch = self._current_or_last(PlanField.REFERENCE_BATCH)
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

    def retranslate(self) -> None:
        for field in GB_FIELDS:
            self._numbers[field].unit = self.unit_gb()
        self._refresh(force=True)

    # -- labels shared by widgets and messages ----------------------------------
    def field_label(self, field: PlanField, mnemonic: bool = False) -> str:
        text = {
            PlanField.TARGET: self.tr("&Target effective batch"),
            PlanField.GPUS: self.tr("Data-parallel &GPUs"),
            PlanField.MICRO_BATCH: self.tr("&Micro-batch size"),
            PlanField.GPU_MEMORY: self.tr("&Usable memory per GPU"),
            PlanField.OTHER_MEMORY: self.tr("&Other memory per GPU"),
            PlanField.ACTIVATION: self.tr("Acti&vation per sample"),
            PlanField.SEQ_LEN: self.tr("Se&quence length"),
            PlanField.DATASET: self.tr("&Dataset size"),
            PlanField.REFERENCE_LR: self.tr("Reference learning r&ate"),
            PlanField.REFERENCE_BATCH: self.tr("Reference &batch size"),
        }[field]
        return text if mnemonic else text.replace("&", "")

    def field_hint(self, field: PlanField) -> str:
        return {
            PlanField.TARGET: self.tr(
                "Effective batch you want per optimizer step (T), summed over all GPUs."
            ),
            PlanField.GPUS: self.tr("Data-parallel replicas, each with its own micro-batch (g)."),
            PlanField.MICRO_BATCH: self.tr(
                "Samples each GPU processes in one forward and backward pass (b)."
            ),
            PlanField.GPU_MEMORY: self.tr(
                "Memory one GPU can use for training, in decimal gigabytes (C)."
            ),
            PlanField.OTHER_MEMORY: self.tr(
                "Everything on one GPU except activations: weights, gradients, optimizer "
                "states and framework overhead (O). Estimate… computes it from the model size."
            ),
            PlanField.ACTIVATION: self.tr(
                "Activation memory one training sample needs (A); shared with the calculator."
            ),
            PlanField.SEQ_LEN: self.tr(
                "Tokens per sample (optional): gives the tokens per optimizer step."
            ),
            PlanField.DATASET: self.tr(
                "Training samples in one epoch (optional): gives the optimizer steps per epoch."
            ),
            PlanField.REFERENCE_LR: self.tr(
                "A learning rate known to work (optional), at the reference batch size."
            ),
            PlanField.REFERENCE_BATCH: self.tr(
                "The effective batch the reference learning rate was tuned for (optional)."
            ),
        }[field]

    def recommend_label(self) -> str:
        return self.tr("&Recommend")

    def recommend_hint(self) -> str:
        return self.tr(
            "Let the planner choose the largest micro-batch that fits and reaches the target."
        )

    def rounding_label(self, mnemonic: bool = False) -> str:
        text = self.tr("Rou&nding")
        return text if mnemonic else text.replace("&", "")

    def rounding_options(self) -> list[tuple[Rounding, str]]:
        return [
            (Rounding.CEIL, self.tr("Round up (at least the target)")),
            (Rounding.FLOOR, self.tr("Round down (at most the target)")),
            (Rounding.NEAREST, self.tr("Nearest (ties round up)")),
        ]

    def card_label(self, mnemonic: bool = False) -> str:
        text = self.tr("GPU mod&el")
        return text if mnemonic else text.replace("&", "")

    def card_options(self) -> list[tuple[str, str]]:
        """(id, name) of every card, then the custom card."""
        return [(c.id, c.name) for c in self._cards] + [(CUSTOM_ID, self.tr("Custom"))]

    def card_hint(self, card_id: str) -> str:
        card = next((c for c in self._cards if c.id == card_id), None)
        if card is None:
            return self.tr("Type the usable memory of your GPU below.")
        return self.tr("{name}: {usable} usable (vendor figure: {vendor}).").format(
            name=card.name,
            usable=self.format_gb(card.usable_gb),
            vendor=self.format_gb(card.vendor_gb),
        )

    def unit_gb(self) -> str:
        return self.tr("GB")

    def unit_note(self) -> str:
        # The English text is ``core.planning.UNIT_NOTE`` (a test keeps them equal).
        return self.tr(
            "Memory is in decimal gigabytes everywhere: 1 GB = 10⁹ bytes "
            "(not GiB = 2³⁰ bytes; 1 GiB ≈ 1.074 GB)."
        )

    @staticmethod
    def export_formats() -> list[tuple[ExportFormat, str]]:
        # Product names: the same in every language.
        return [
            (ExportFormat.DEEPSPEED, "DeepSpeed (JSON)"),
            (ExportFormat.HF, "Hugging Face TrainingArguments"),
            (ExportFormat.ACCELERATE, "Hugging Face Accelerate"),
            (ExportFormat.LIGHTNING, "PyTorch Lightning"),
        ]

    # -- formatting helpers -----------------------------------------------------
    def format(self, value: int | Decimal) -> str:
        return format_number(self.locale, value)

    def format_gb(self, value: Decimal) -> str:
        return self.tr("{value} GB").format(value=self.format(value))

    def signed(self, value: int) -> str:
        sign = self.locale.positiveSign() if value > 0 else ""
        return sign + self.format(value)

    def counted(self, translate: Callable[[int], str], count: int) -> str:
        return self._calc.counted(translate, count)

    def gpus_text(self, gpus: int) -> str:
        return self.counted(lambda n: self.tr("%n GPU(s)", "", n), gpus)

    # -- actions ----------------------------------------------------------------
    def configuration(self) -> ConfigurationView | None:
        view = self._state.results
        return view.configuration if view is not None else None

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

    def export_text(self, fmt: ExportFormat) -> str | None:
        config = self.configuration()
        if config is None:
            return None
        return render(fmt, config.micro_batch, config.accumulation_steps, config.gpus)

    def export_unavailable(self) -> str:
        return self.tr("Nothing to export yet: the planner has no configuration.")

    # -- titles shared by the view and the copied plan ----------------------------
    def pairs_title(self, mnemonic: bool = False) -> str:
        text = self.tr("Micro-batch and a&ccumulation steps")
        return text if mnemonic else text.replace("&", "")

    def pairs_headers(self) -> list[tuple[str, str]]:
        """(column heading, its full wording) of the pairs table."""
        return [
            (self.tr("Micro-batch (b)"), self.tr("Micro-batch size (b)")),
            (self.tr("Steps (a)"), self.tr("Accumulation steps (a)")),
            (self.tr("Batch (E)"), self.tr("Effective batch size (E)")),
            (self.tr("Fits"), self.tr("Fits in GPU memory")),
        ]

    def fit_title(self) -> str:
        return self.tr("Memory per GPU")

    def nothing_fits_title(self) -> str:
        return self.tr("Recommendation")

    def deepspeed_title(self) -> str:
        return self.tr("DeepSpeed check")

    def extras_title(self) -> str:
        return self.tr("Tokens, steps and learning rate")

    # -- the plan as text -----------------------------------------------------------
    def clipboard_text(self) -> str | None:
        """The whole plan as plain text (inputs, configuration, checks, extras and the
        pairs table), or ``None`` in the "no result" state."""
        view = self._state.results
        if view is None:
            return None
        lines = [self.tr("Run plan: gradient accumulation"), ""]
        lines.append(self.tr("Inputs"))
        lines += [f"{label}: {value}" for label, value in self._input_rows(view)]
        config = view.configuration
        if config is not None:
            lines += ["", config.title]
            lines.append(config.formula)
            lines.append(config.summary)
            lines.append(f"{config.exact_badge}: {config.difference}")
            lines += [text for text in (config.reachable, config.note) if text]
        if view.nothing_fits is not None:
            nothing = view.nothing_fits
            lines += ["", self.nothing_fits_title(), nothing.message, nothing.suggestions_title]
            lines += [f"- {suggestion}" for suggestion in nothing.suggestions]
        fit_view = view.fit
        lines += ["", self.fit_title(), fit_view.verdict, fit_view.usage, fit_view.headroom]
        lines.append(fit_view.largest)
        if view.deepspeed is not None:
            lines += ["", self.deepspeed_title(), view.deepspeed.verdict]
            lines.append(view.deepspeed.explanation)
        extras = self._filled_extras(view.extras)
        if extras:
            lines += ["", self.extras_title(), *extras]
        lines += ["", self.pairs_title(), *self._pairs_table(view.pairs)]
        return "\n".join(lines) + "\n"

    def _input_rows(self, view: PlanView) -> list[tuple[str, str]]:
        config = view.configuration
        if not self._recommend:
            micro = self.format(self._number(PlanField.MICRO_BATCH))
        elif config is not None:
            micro = self.tr("{value} (recommended)").format(value=self.format(config.micro_batch))
        else:
            micro = self.tr("recommended")
        rounding = dict(self.rounding_options())[self._rounding]
        card = self.card()
        capacity = self.capacity()
        assert capacity is not None
        rows = [
            (self.field_label(PlanField.TARGET), self.format(self._number(PlanField.TARGET))),
            (self.field_label(PlanField.GPUS), self.format(self._number(PlanField.GPUS))),
            (self.field_label(PlanField.MICRO_BATCH), micro),
            (self.rounding_label(), rounding),
            (self.card_label(), card.name if card is not None else self.tr("Custom")),
            (self.field_label(PlanField.GPU_MEMORY), self.format_gb(capacity)),
        ]
        for field in (PlanField.OTHER_MEMORY, PlanField.ACTIVATION):
            rows.append((self.field_label(field), self.format_gb(self._number(field))))
        for field in (
            PlanField.SEQ_LEN,
            PlanField.DATASET,
            PlanField.REFERENCE_LR,
            PlanField.REFERENCE_BATCH,
        ):
            value, problem = self._optional(field)
            if value is not None and problem is None:
                rows.append((self.field_label(field), self.format(value)))
        return rows

    def _filled_extras(self, extras: ExtrasView | None) -> list[str]:
        """The extras whose inputs were given (valid or with their problem)."""
        if extras is None:
            return []
        given = {field: self._raw.get(field) is not None for field in OPTIONAL_FIELDS}
        lines = []
        if given[PlanField.SEQ_LEN]:
            lines.append(extras.tokens)
        if given[PlanField.DATASET]:
            lines.append(extras.steps)
        if given[PlanField.REFERENCE_LR] or given[PlanField.REFERENCE_BATCH]:
            lines += [text for text in (extras.lr_linear, extras.lr_sqrt) if text]
            lines.append(extras.lr_note)
        return lines

    def _pairs_table(self, pairs: tuple[PairRow, ...]) -> list[str]:
        """The pairs table as aligned rows under its heading (numbers to the right)."""
        heading = [short for short, _full in self.pairs_headers()]
        rows = [list(row.cells) for row in pairs]
        widths = column_widths([heading, *rows])
        right = [True] * (len(heading) - 1) + [False]  # numbers right, "Fits" left
        in_use = self.tr("← in use")

        def line(cells: list[str], current: bool = False) -> str:
            text = align_row(cells, widths, right, "  ")
            return (text + "  " + in_use if current else text).rstrip()

        return [line(heading)] + [
            line(cells, row.current) for cells, row in zip(rows, pairs, strict=True)
        ]

    # -- scenarios ----------------------------------------------------------------
    def scenario(self) -> Scenario:
        """The calculator's and the planner's settings (last valid values where invalid now)."""

        def integer(field: PlanField) -> int | None:
            value = self._current_or_last(field)
            return None if value is None else int(value)

        target, gpus = integer(PlanField.TARGET), integer(PlanField.GPUS)
        assert target is not None and gpus is not None
        return Scenario(
            calculator=self._calc.last_valid_inputs,
            plan=PlanSettings(
                target_batch=target,
                micro_batch=None if self._recommend else integer(PlanField.MICRO_BATCH),
                gpus=gpus,
                rounding=self._rounding,
                gpu_card=self._card_id,
                gpu_memory_gb=(
                    self._current_or_last(PlanField.GPU_MEMORY)
                    if self.card() is None
                    else self.capacity()
                ),
                other_memory_gb=self._current_or_last(PlanField.OTHER_MEMORY),
                activation_gb=self._calc.last_valid_inputs.activation_gb,
                seq_len=integer(PlanField.SEQ_LEN),
                dataset_samples=integer(PlanField.DATASET),
            ),
        )

    def unsaved_problems(self) -> tuple[str, ...]:
        """Why the scenario cannot be saved now: a field holds a value it refuses.

        A saved scenario is what the fields show; one that cannot be read as a value
        is never replaced by a remembered one behind the user's back.
        """
        fields = [
            *self._required(),
            *(f for f in PlanField if f in OPTIONAL_FIELDS and self._raw.get(f) is not None),
        ]
        mine = tuple(p for f in fields if (p := self._problem(f)) is not None)
        return self._calc.state.problems + tuple(
            p for p in mine if p not in self._calc.state.problems
        )

    def save_scenario(self, path: Path) -> ScenarioOutcome:
        problems = self.unsaved_problems()
        if problems:
            return ScenarioOutcome(
                False,
                self.tr("Nothing saved: correct these fields first. {problems}").format(
                    problems=" ".join(problems)
                ),
            )
        data = scenario_io.save(self.scenario())
        # all or nothing: a failed save leaves the file that was there untouched
        error = write_file_atomically(path, data)
        if error is not None:
            return ScenarioOutcome(
                False,
                self.tr(
                    "Could not save the scenario to “{name}”: {error}. Nothing was changed."
                ).format(name=path.name, error=error),
            )
        return ScenarioOutcome(True, self.tr("Scenario saved to “{name}”.").format(name=path.name))

    def open_scenario(self, path: Path) -> ScenarioOutcome:
        """Read, validate and apply a scenario file; on any problem nothing changes."""
        try:
            with path.open("rb") as stream:
                # never read more than the loader accepts: a huge file is refused, not loaded
                data = stream.read(scenario_io.MAX_BYTES + 1)
            loaded = scenario_io.load(data)
        except OSError as exc:
            reason = str(exc.strerror or exc)
            return ScenarioOutcome(False, self._open_failed(path, reason))
        except ScenarioError as exc:
            return ScenarioOutcome(False, self._open_failed(path, self.scenario_problem(exc)))
        self.apply_scenario(loaded)
        return ScenarioOutcome(
            True, self.tr("Scenario opened from “{name}”.").format(name=path.name)
        )

    def apply_scenario(self, loaded: Scenario, with_calculator: bool = True) -> None:
        """Apply a validated scenario; ``with_calculator=False`` leaves the calculator's
        inputs alone (restoring the planner at start-up: the calculator has its own)."""
        plan = loaded.plan
        self._recommend = plan.micro_batch is None
        self._rounding = plan.rounding
        known = {c.id for c in self._cards}
        self._card_id = plan.gpu_card if plan.gpu_card in known else CUSTOM_ID
        values: dict[PlanField, Decimal | None] = {
            PlanField.TARGET: Decimal(plan.target_batch),
            PlanField.GPUS: Decimal(plan.gpus),
            PlanField.SEQ_LEN: None if plan.seq_len is None else Decimal(plan.seq_len),
            PlanField.DATASET: (
                None if plan.dataset_samples is None else Decimal(plan.dataset_samples)
            ),
        }
        # "not given" (null) keeps what the planner has for these
        if plan.micro_batch is not None:
            values[PlanField.MICRO_BATCH] = Decimal(plan.micro_batch)
        if plan.other_memory_gb is not None:
            values[PlanField.OTHER_MEMORY] = plan.other_memory_gb
        if plan.gpu_memory_gb is not None and self._card_id == CUSTOM_ID:
            values[PlanField.GPU_MEMORY] = plan.gpu_memory_gb
        self._replace(values, choices=True, refresh=False)
        # The calculator's activation is the shared one: the planner follows it.
        if with_calculator:
            self._calc.set_inputs(loaded.calculator)
        self._refresh(force=True)

    def remembered(self) -> str:
        """The planner's settings as scenario JSON, for the settings store."""
        return scenario_io.save(self.scenario()).decode("utf-8")

    def restore_remembered(self, text: str) -> bool:
        """Apply what ``remembered`` stored; anything invalid is ignored (False)."""
        try:
            loaded = scenario_io.load(text.encode("utf-8"))
        except (ScenarioError, UnicodeError):
            return False
        self.apply_scenario(loaded, with_calculator=False)
        return True

    def scenario_problem(self, error: ScenarioError) -> str:
        key = error.path or error.detail
        messages: dict[Reason, str] = {
            Reason.TOO_LARGE: self.tr("the file is larger than {limit} bytes.").format(
                limit=self.format(scenario_io.MAX_BYTES)
            ),
            Reason.NOT_UTF8: self.tr("the file is not UTF-8 text."),
            Reason.BAD_JSON: self.tr(
                "the file is not valid JSON (it may be truncated or damaged)."
            ),
            Reason.TOO_DEEP: self.tr("the file nests its data too deeply to be a scenario."),
            Reason.DUPLICATE_KEY: self.tr("the key “{key}” appears more than once."),
            Reason.NOT_AN_OBJECT: self.tr("“{key}” is not a group of settings.")
            if error.path
            else self.tr("the file does not contain a scenario."),
            Reason.WRONG_FORMAT: self.tr("this is not a scenario file of this app."),
            Reason.UNSUPPORTED_VERSION: self.tr(
                "the file uses scenario version {key}, which this app does not know."
            ),
            Reason.MISSING_KEY: self.tr("the setting “{key}” is missing."),
            Reason.UNKNOWN_KEY: self.tr("the setting “{key}” is unknown."),
            Reason.WRONG_TYPE: self.tr("the setting “{key}” has the wrong type."),
            Reason.NOT_A_NUMBER: self.tr("the setting “{key}” is not a number."),
            Reason.NUMBER_TOO_LARGE: self.tr("the file contains a number with too many digits."),
            Reason.NOT_AN_INTEGER: self.tr("the setting “{key}” must be a whole number."),
            Reason.OUT_OF_RANGE: self.tr("the setting “{key}” is out of range."),
            Reason.TOO_PRECISE: self.tr(
                "the setting “{key}” has more than {decimals} decimal places."
            ),
            Reason.BAD_CHOICE: self.tr("the setting “{key}” has a value this app does not know."),
        }
        if error.reason is Reason.UNSUPPORTED_VERSION:
            key = error.detail
        places = error.limits.places if error.limits is not None else 0
        return messages[error.reason].format(key=key, decimals=places)

    def _open_failed(self, path: Path, reason: str) -> str:
        return self.tr(
            "Could not open the scenario “{name}”: {reason} Nothing was changed."
        ).format(name=path.name, reason=reason)

    # -- internals --------------------------------------------------------------
    def _hold(self, field: PlanField, raw: Entry) -> None:
        """Keep ``raw`` as ``field``'s entry; an accepted number is also its last valid one."""
        self._raw[field] = raw
        if isinstance(raw, Decimal) and problem_of(raw, self._numbers[field]) is None:
            self._last_valid[field] = raw

    def _current_or_last(self, field: PlanField) -> Decimal | None:
        current = self.value(field)
        if current is not None and self._problem(field) is None:
            return current
        if field in OPTIONAL_FIELDS:
            return None
        return self._last_valid.get(field)

    def _replace(
        self,
        values: Mapping[PlanField, Entry],
        choices: bool = False,
        refresh: bool = True,
    ) -> None:
        for field, value in values.items():
            self._hold(field, value)
        changed: set[object] = set(values)
        if choices:
            changed.add(CHOICES)
        self.inputsReplaced.emit(frozenset(changed))
        if refresh:
            self._refresh()

    def _on_calculator_state(self, _state: CalculatorState) -> None:
        """Follow the calculator's locale and activation; its other inputs do not
        concern the planner, so typing there costs the planner nothing."""
        changed = False
        if self._calc.locale.name() != self._locale_name:
            self._locale_name = self._calc.locale.name()
            for number in self._numbers.values():
                number.locale = self._calc.locale
            self.localeChanged.emit(self._calc.locale)
            changed = True
        activation = self._calc.entry(Field.ACTIVATION_GB)
        if not same_entry(activation, self._raw.get(PlanField.ACTIVATION)):
            self._replace({PlanField.ACTIVATION: activation}, refresh=False)
            changed = True
        if changed:
            self._refresh(force=True)

    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _problem(self, field: PlanField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self.field_label(field), self._raw.get(field), self._numbers[field])

    def _required(self) -> list[PlanField]:
        fields = [PlanField.TARGET, PlanField.GPUS]
        if not self._recommend:
            fields.append(PlanField.MICRO_BATCH)
        if self._card_id == CUSTOM_ID:
            fields.append(PlanField.GPU_MEMORY)
        fields += [PlanField.OTHER_MEMORY, PlanField.ACTIVATION]
        return fields

    def _number(self, field: PlanField) -> Decimal:
        value = self.value(field)
        assert value is not None
        return value

    def _optional(self, field: PlanField) -> tuple[Decimal | None, str | None]:
        """(value, problem) of an optional field: (None, None) when it is empty."""
        if self._raw.get(field) is None:
            return None, None
        problem = self._problem(field)
        return (None, problem) if problem else (self.value(field), None)

    def _build_state(self) -> PlannerState:
        prompt = self.tr("Enter a value to see the plan.")
        unit_note = self.unit_note()
        problems = tuple(p for f in self._required() if (p := self._problem(f)) is not None)
        if problems:
            return PlannerState(None, prompt, problems, unit_note)
        target = int(self._number(PlanField.TARGET))
        gpus = int(self._number(PlanField.GPUS))
        activation = self._number(PlanField.ACTIVATION)
        other = self._number(PlanField.OTHER_MEMORY)
        capacity = self.capacity()
        assert capacity is not None
        constrained = recommend(target, gpus, capacity, other, activation, self._rounding)
        nothing = constrained if isinstance(constrained, NothingFits) else None
        micro: int | None
        if not self._recommend:
            micro = int(self._number(PlanField.MICRO_BATCH))
        elif isinstance(constrained, Recommendation):
            micro = constrained.recommended.micro_batch
        else:
            micro = None

        configuration = None
        deepspeed = None
        extras = None
        if micro is not None:
            configuration = self._configuration(target, micro, gpus, activation, constrained)
            deepspeed = self._deepspeed(target, configuration)
            extras = self._extras(configuration.effective_batch)
            fit_result = fit(capacity, other, activation, micro)
        else:
            assert nothing is not None
            fit_result = nothing.fit
        pairs, pairs_note = self._pairs(target, gpus, capacity, other, activation, configuration)
        return PlannerState(
            results=PlanView(
                configuration=configuration,
                fit=self._fit(fit_result),
                nothing_fits=self._nothing_fits(nothing) if nothing else None,
                deepspeed=deepspeed,
                pairs=pairs,
                pairs_note=pairs_note,
                extras=extras,
            ),
            prompt=prompt,
            problems=(),
            unit_note=unit_note,
        )

    def _configuration(
        self,
        target: int,
        micro: int,
        gpus: int,
        activation: Decimal,
        constrained: Recommendation | NothingFits,
    ) -> ConfigurationView:
        plan = solve_accumulation(target, micro, gpus, self._rounding)
        f = self.format
        a, e = plan.accumulation_steps, plan.effective_batch
        formula = " ".join(["E =", f(micro), TIMES, f(a), TIMES, f(gpus), "=", f(e)])
        target_text = f(target)
        if plan.exact:
            difference = self.tr("Exactly the target of {target}.").format(target=target_text)
        elif plan.difference > 0:
            difference = self.counted(
                lambda n: self.tr("%n sample(s) above the target of {target}.", "", n),
                plan.difference,
            ).format(target=target_text)
        else:
            difference = self.counted(
                lambda n: self.tr("%n sample(s) below the target of {target}.", "", n),
                abs(plan.difference),
            ).format(target=target_text)
        on_gpus = self.gpus_text(gpus)
        if plan.exact:
            reachable = ""
        elif plan.reachable_below is None:
            reachable = self.tr(
                "With micro-batch {micro} on {gpus}, the smallest reachable batch is {above}: "
                "a single step already passes the target."
            )
        else:
            reachable = self.tr(
                "With micro-batch {micro} on {gpus}, the nearest batches reached exactly are "
                "{below} (below) and {above} (above)."
            )
        reachable = reachable.format(
            micro=f(micro),
            gpus=on_gpus,
            target=target_text,
            below=f(plan.reachable_below) if plan.reachable_below is not None else "",
            above=f(plan.reachable_above),
        )
        exact_pairs = plan.exact_micro_batches
        if exact_pairs:
            title = self.tr("Micro-batches that reach {target} exactly on {gpus}:").format(
                target=target_text, gpus=on_gpus
            )
            # non-breaking spaces: a pair never wraps in the middle
            items = [
                f"b\u00a0=\u00a0{f(p.micro_batch)}\u00a0→\u00a0a\u00a0=\u00a0{f(p.accumulation_steps)}"
                for p in exact_pairs
            ]
            shown = ", ".join(items[:MAX_EXACT_SHOWN])
            hidden = len(items[MAX_EXACT_SHOWN:])
            if hidden:
                shown += " " + self.counted(lambda n: self.tr("…and %n more", "", n), hidden)
            pairs_text = shown
        else:
            title = self.tr(
                "No micro-batch reaches {target} exactly on {gpus}: the target is not a "
                "multiple of the number of GPUs."
            ).format(target=target_text, gpus=on_gpus)
            pairs_text = ""
        note = ""
        if self._recommend and isinstance(constrained, Recommendation):
            note = (
                self.tr("The largest micro-batch that fits and reaches the target exactly.")
                if plan.exact
                else self.tr(
                    "No micro-batch that fits reaches the target exactly: this one comes "
                    "closest on the side the rounding mode allows."
                )
            )
        calc_ok = (
            check_value(Field.MICRO_BATCH, micro) is None
            and check_value(Field.ACCUMULATION_STEPS, a) is None
            and check_value(Field.GPUS, gpus) is None
        )
        use_hint = (
            ""
            if calc_ok
            else self.tr(
                "The calculator accepts at most {maximum} for micro-batch, accumulation steps "
                "and GPUs."
            ).format(maximum=f(LIMITS[Field.MICRO_BATCH].maximum))
        )
        return ConfigurationView(
            title=self.tr("Recommended configuration")
            if self._recommend
            else self.tr("Your configuration"),
            recommended=self._recommend,
            micro_batch=micro,
            accumulation_steps=a,
            gpus=gpus,
            activation_gb=activation,
            effective_batch=e,
            achieved=f(e),
            formula=formula,
            summary=self.tr("Micro-batch {micro} · accumulation steps {steps} · {gpus}").format(
                micro=f(micro), steps=f(a), gpus=on_gpus
            ),
            difference=difference,
            exact=plan.exact,
            exact_badge=self.tr("Exact") if plan.exact else self.tr("Not exact"),
            reachable=reachable,
            exact_pairs_title=title,
            exact_pairs=pairs_text,
            note=note,
            can_use=calc_ok,
            use_hint=use_hint,
        )

    def _deepspeed(self, target: int, config: ConfigurationView) -> DeepSpeedView:
        b, a, g = config.micro_batch, config.accumulation_steps, config.gpus
        check = deepspeed_check(target, b, a, g)
        f = self.format
        values = {
            "target": f(target),
            "micro": f(b),
            "steps": f(a),
            "gpus": f(g),
            "on_gpus": self.gpus_text(g),
            "product": f(check.product) if check.product is not None else "",
        }
        if check.ok:
            verdict = self.tr("DeepSpeed accepts these values")
        else:
            verdict = self.tr("DeepSpeed would refuse to start")
        explanation = {
            DeepSpeedReason.OK: self.tr(
                "With train_batch_size = {target}, train_micro_batch_size_per_gpu = {micro} and "
                "gradient_accumulation_steps = {steps} on {on_gpus}, the batch sizes agree: "
                "{micro} × {steps} × {gpus} = {target}."
            ),
            DeepSpeedReason.PRODUCT_MISMATCH: self.tr(
                "DeepSpeed requires train_batch_size = micro-batch × accumulation steps × GPUs. "
                "With train_batch_size = {target} it stops, because {micro} × {steps} × {gpus} = "
                "{product}. Give it train_batch_size = {product} (the exported configuration "
                "does) or choose a micro-batch that reaches {target} exactly."
            ),
            DeepSpeedReason.NOT_DIVISIBLE: self.tr(
                "DeepSpeed derives a missing batch value by whole-number division; here the "
                "division does not come out even, so the values no longer multiply to "
                "train_batch_size and it stops."
            ),
            DeepSpeedReason.DERIVED_ZERO_STEPS: self.tr(
                "train_batch_size = {target} is smaller than micro-batch × GPUs, so the "
                "accumulation steps DeepSpeed derives come out as 0 and it stops."
            ),
            DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH: self.tr(
                "train_batch_size = {target} is smaller than accumulation steps × GPUs, so the "
                "micro-batch DeepSpeed derives comes out as 0 and it stops."
            ),
            DeepSpeedReason.NON_POSITIVE: self.tr(
                "Every batch value DeepSpeed receives must be at least 1."
            ),
            DeepSpeedReason.MISSING_BATCH_SIZE: self.tr(
                "DeepSpeed needs train_batch_size or train_micro_batch_size_per_gpu."
            ),
        }[check.reason].format(**values)
        return DeepSpeedView(ok=check.ok, verdict=verdict, explanation=explanation)

    def _fit(self, result: FitResult) -> FitView:
        g = self.format_gb
        usage = self.tr(
            "Activations {micro} × {per_sample} = {activation}, plus {other} other memory: "
            "{total} of {capacity}."
        ).format(
            micro=self.format(result.micro_batch),
            per_sample=g(result.activation_per_sample_gb),
            activation=g(result.activation_gb),
            other=g(result.other_memory_gb),
            total=g(result.total_gb),
            capacity=g(result.gpu_memory_gb),
        )
        if result.fits:
            headroom = self.tr("Headroom: {free} free.").format(free=g(result.headroom_gb))
        else:
            headroom = self.tr("Over capacity by {excess}.").format(
                excess=g(abs(result.headroom_gb))
            )
        if result.max_micro_batch:
            largest = self.tr("Largest micro-batch that fits: {largest}.").format(
                largest=self.format(result.max_micro_batch)
            )
        else:
            largest = self.tr("Not even a micro-batch of 1 fits.")
        verdict = (
            self.tr("Fits in GPU memory") if result.fits else self.tr("Does not fit in GPU memory")
        )
        return FitView(
            fits=result.fits, verdict=verdict, usage=usage, headroom=headroom, largest=largest
        )

    def _nothing_fits(self, nothing: NothingFits) -> NothingFitsView:
        g = self.format_gb
        at_one = nothing.fit
        if nothing.other_exceeds_capacity:
            message = self.tr(
                "Nothing fits: the other memory alone ({other}) is more than this GPU's "
                "{capacity}, before any activations."
            )
        else:
            message = self.tr(
                "Nothing fits: even a micro-batch of 1 needs {total} ({activation} of "
                "activations + {other} other memory), {shortfall} more than this GPU's "
                "{capacity}."
            )
        message = message.format(
            other=g(at_one.other_memory_gb),
            capacity=g(at_one.gpu_memory_gb),
            total=g(at_one.total_gb),
            activation=g(at_one.activation_gb),
            shortfall=g(nothing.shortfall_gb),
        )
        sentences = {
            Suggestion.ACTIVATION_RECOMPUTATION: self.tr(
                "Turn on activation recomputation (gradient checkpointing) to cut the "
                "activation memory per sample."
            ),
            Suggestion.SHORTER_SEQUENCES: self.tr(
                "Use shorter sequences: activation memory grows with the sequence length."
            ),
            Suggestion.ZERO_SHARDING: self.tr(
                "Shard optimizer states, gradients and weights across the GPUs with ZeRO or "
                "FSDP (Estimate… shows the effect)."
            ),
            Suggestion.MORE_GPUS: self.tr(
                "Add data-parallel GPUs: with ZeRO sharding each one holds a smaller share."
            ),
            Suggestion.LARGER_GPU: self.tr("Choose a GPU with more memory."),
            Suggestion.PARAMETER_EFFICIENT: self.tr(
                "Train fewer parameters, for example with LoRA."
            ),
            Suggestion.SMALLER_MODEL: self.tr("Use a smaller model."),
        }
        return NothingFitsView(
            message=message,
            suggestions_title=self.tr("What would help:"),
            suggestions=tuple(sentences[s] for s in nothing.suggestions),
        )

    def _pairs(
        self,
        target: int,
        gpus: int,
        capacity: Decimal,
        other: Decimal,
        activation: Decimal,
        config: ConfigurationView | None,
    ) -> tuple[tuple[PairRow, ...], str]:
        """Candidate pairs up to one optimizer step per GPU, each with its fit."""
        largest = max_micro_batch(capacity, other, activation)
        everything = recommend(target, gpus, rounding=self._rounding)
        assert isinstance(everything, Recommendation)
        by_micro: dict[int, PlanPair] = {p.micro_batch: p for p in everything.pairs}
        constrained = recommend(target, gpus, capacity, other, activation, self._rounding)
        if isinstance(constrained, Recommendation):
            by_micro.update({p.micro_batch: p for p in constrained.pairs})
        if config is not None and config.micro_batch not in by_micro:
            plan = solve_accumulation(target, config.micro_batch, gpus, self._rounding)
            by_micro[config.micro_batch] = PlanPair(
                plan.micro_batch,
                plan.accumulation_steps,
                plan.effective_batch,
                plan.difference,
                plan.exact,
            )
        yes, no = self.tr("Yes"), self.tr("No")
        rows = []
        for micro in sorted(by_micro):
            pair = by_micro[micro]
            fits = pair.micro_batch <= largest
            if pair.exact:
                achieved = self.tr("{batch} (exact)").format(
                    batch=self.format(pair.effective_batch)
                )
            else:
                achieved = self.tr("{batch} ({difference})").format(
                    batch=self.format(pair.effective_batch), difference=self.signed(pair.difference)
                )
            rows.append(
                PairRow(
                    micro_batch=pair.micro_batch,
                    accumulation_steps=pair.accumulation_steps,
                    cells=(
                        self.format(pair.micro_batch),
                        self.format(pair.accumulation_steps),
                        achieved,
                        yes if fits else no,
                    ),
                    fits=fits,
                    exact=pair.exact,
                    current=config is not None and pair.micro_batch == config.micro_batch,
                )
            )
        note = self.tr(
            "Exact divisors, powers of two and the largest useful micro-batch; the row in use "
            "is in bold. Return or a double-click uses the selected row."
        )
        return tuple(rows), note

    def _extras(self, effective: int) -> ExtrasView:
        f = self.format
        seq, seq_problem = self._optional(PlanField.SEQ_LEN)
        if seq_problem:
            tokens = seq_problem
        elif seq is None:
            tokens = self.tr("Enter a sequence length to see the tokens per optimizer step.")
        else:
            count = tokens_per_step(effective, int(seq))
            tokens = self.counted(
                lambda n: self.tr("%n tokens per optimizer step ({batch} × {length}).", "", n),
                count,
            ).format(batch=f(effective), length=f(int(seq)))

        samples, samples_problem = self._optional(PlanField.DATASET)
        if samples_problem:
            steps = samples_problem
        elif samples is None:
            steps = self.tr("Enter the dataset size to see the optimizer steps per epoch.")
        else:
            result = steps_per_epoch(int(samples), effective)
            steps = self.counted(
                lambda n: self.tr("%n optimizer step(s) per epoch", "", n), result.keep_last
            )
            if result.remainder:
                steps += " " + self.tr(
                    "(keeping the last, partial step of {remainder} samples; {drop} with "
                    "drop_last)."
                ).format(remainder=f(result.remainder), drop=f(result.drop_last))
            else:
                steps += " " + self.tr("(the dataset divides evenly: no partial step).")

        lr, lr_problem = self._optional(PlanField.REFERENCE_LR)
        reference, reference_problem = self._optional(PlanField.REFERENCE_BATCH)
        note = self.tr(
            "Heuristics, not guarantees: linear scaling (Goyal et al. 2017) is the usual rule "
            "for SGD, square-root scaling is common with Adam. Start there and tune."
        )
        problem = lr_problem or reference_problem
        if problem:
            linear = root = problem
        elif lr is None or reference is None:
            linear = self.tr(
                "Enter a reference learning rate and its batch size to scale the learning rate."
            )
            root = ""
        else:
            linear = self.tr("Linear scaling: {lr}").format(
                lr=format_approx(self.locale, lr_linear(lr, effective, int(reference)), LR_DIGITS)
            )
            root = self.tr("Square-root scaling: {lr}").format(
                lr=format_approx(self.locale, lr_sqrt(lr, effective, int(reference)), LR_DIGITS)
            )
        return ExtrasView(tokens=tokens, steps=steps, lr_linear=linear, lr_sqrt=root, lr_note=note)
