"""What the planner shows: frozen, display-ready views of one state of the planner."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class ConfigurationView:
    """The configuration the planner settled on (the user's micro-batch or the recommended one)."""

    title: str
    recommended: bool
    micro_batch: int
    accumulation_steps: int
    gpus: int
    #: one sample's activations for the calculator (None: unknown)
    activation_gb: Decimal | None
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
    #: None: the memory is not known (``usage`` says what is missing)
    fits: bool | None
    verdict: str
    usage: str
    headroom: str
    largest: str


@dataclass(frozen=True)
class DeepSpeedView:
    ok: bool
    verdict: str
    explanation: str
    # Megatron, given the target as --global-batch-size
    megatron_ok: bool = True
    megatron_verdict: str = ""
    megatron_explanation: str = ""


@dataclass(frozen=True)
class NothingFitsView:
    message: str
    suggestions_title: str
    suggestions: tuple[str, ...]


@dataclass(frozen=True)
class PairRow:
    micro_batch: int
    accumulation_steps: int
    #: b, a, E, fits, verdicts, time per step, tokens/s ("—" without a time)
    cells: tuple[str, ...]
    #: None: the memory is not known
    fits: bool | None
    exact: bool
    # DeepSpeed and Megatron both accept the target with this pair
    accepted: bool
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
class PairPoint:
    """One pair of the table as numbers, for the chart of time against memory (floats:
    only drawn; every figure a user reads is in ``PairRow`` and the cards)."""

    micro_batch: int
    accumulation_steps: int
    #: memory one GPU holds with this pair: b × activation share + other memory (GB;
    #: None: not known)
    memory_gb: float | None
    #: the same in bytes (what a text shows, to the MB rounded up)
    per_gpu_bytes: int | None
    #: time of one optimizer step (None: no time can be estimated)
    step_seconds: float | None
    tokens_per_second: float | None
    #: None: the memory is not known
    fits: bool | None
    #: the configuration in use
    current: bool
    #: the fastest pair that fits and reaches the same batch
    fastest: bool
    #: its row as the table words it (b, a, E, fits, verdicts, time, tokens/s)
    cells: tuple[str, ...]


@dataclass(frozen=True)
class TimePart:
    """One part of an optimizer step's time, as the card's breakdown lists it."""

    #: the core's name of the part (``steptime.PART_NAMES``): it picks the part's colour
    key: str
    name: str
    #: "0.62 s"
    seconds: str
    #: of the step: "7.4 %" ("< 0.1 %" for a sliver)
    share: str
    #: of the step, for the stacked bar (only drawn; ``share`` is what a user reads)
    fraction: float


@dataclass(frozen=True)
class TimeView:
    """The "Time per step" card: the configuration in use, where its step's time goes,
    the fastest fitting pair and why it is faster — or, when the time cannot be
    estimated, why (``message``). The run's totals are the cost card's."""

    available: bool
    message: str
    #: why there is no time, without the card's "No time per step" (the cost card's)
    reason: str = ""
    summary: str = ""
    utilisation: str = ""
    shares: str = ""
    layout: str = ""
    #: "Where one optimizer step's time goes" (empty without parts)
    parts_title: str = ""
    #: each part of the step that takes any time, in the core's order
    parts: tuple[TimePart, ...] = ()
    #: the fastest pair that fits (empty: none to offer)
    fastest: str = ""
    #: which parts make the fastest pair faster (empty when it is the one in use)
    difference: str = ""
    #: its micro-batch when it is not the one in use ("Use this pair")
    fastest_micro_batch: int | None = None
    note: str = ""


@dataclass(frozen=True)
class CostLine:
    """One budget of the run (a token budget, or epochs over the dataset) in words."""

    #: "100.000.000 tokens · 1.526 optimizer steps"
    trained: str
    #: "2,31 days"
    time: str
    #: "443,5 (8 GPUs)"
    gpu_hours: str
    #: "R$ 798,30" ("" without a price)
    total: str


@dataclass(frozen=True)
class CostView:
    """The "Training cost" card: one line per budget the description gives, the price
    per GPU-hour, and what is missing for the rest (a sentence, never a number)."""

    lines: tuple[CostLine, ...]
    #: "R$ 1,80" ("" not given)
    price: str
    #: what is missing for the time or the total ("" when nothing is)
    missing: str
    note: str = ""


@dataclass(frozen=True)
class PlanView:
    configuration: ConfigurationView | None
    fit: FitView
    nothing_fits: NothingFitsView | None
    deepspeed: DeepSpeedView | None
    pairs: tuple[PairRow, ...]
    pairs_note: str
    extras: ExtrasView | None
    time: TimeView | None = None
    cost: CostView | None = None
    #: the pairs as numbers, in the table's order (see ``PairPoint``)
    points: tuple[PairPoint, ...] = ()
    #: usable memory of one GPU (GB), the chart's limit line (None: not known)
    capacity_gb: float | None = None
    #: a line on the setup when no framework runs it ("" otherwise)
    setup_problem: str = ""


@dataclass(frozen=True)
class PlannerState:
    # ``None`` is the "no result" state: show ``prompt`` and ``problems`` instead; with
    # results, ``problems`` are what the description asks for that the figures do not
    # count (shown above them).
    results: PlanView | None
    prompt: str
    problems: tuple[str, ...]

    @property
    def has_result(self) -> bool:
        return self.results is not None
