"""The one planning entry: ``plan(description) -> Plan``.

From a ``TrainingDescription`` the plan derives, in one pass: the memory figures
(``figures``), the candidate (micro-batch, accumulation) pairs for the target batch and
the one recommended within the memory (``recommend.choose_pairs``), each pair's memory
per GPU, whether it fits, DeepSpeed's and Megatron's verdicts and its time per step, the
configuration in use, the fastest pair that fits (one rule, ``fastest``), the run's
totals, and — when nothing fits — why, with the numbers. The window's view-models and
``gradacc plan`` and ``gradacc time`` call this and only word what it returns;
``gradacc export`` builds the same description (``training.exports``).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ..attention import AttentionKernel
from ..batch.planning import AccumulationPlan, solve_accumulation, steps_per_epoch
from ..batch.recommend import (
    PairChoice,
    PlanPair,
    Suggestion,
    choose_pairs,
    nothing_fits_suggestions,
)
from ..frameworks.rules import Refusal, refusals, schedule_runs
from ..frameworks.verdicts import BatchVerdicts, batch_verdicts
from ..memory.lora import base_weight_bytes_per_param
from ..memory.setup import SetupNote, SetupProblem, TrainingSetup, setup_notes, setup_problem
from ..time.hardware import NoSpeedError, hardware
from ..time.step_results import RunTotals, StepTime, run_totals
from ..time.steptime import StepModel
from ..time.workload import Experts, Workload
from .description import TrainingDescription
from .figures import Figures, figures, shown_gb
from .problems import Problem, problems

__all__ = [
    "MemoryFit",
    "NoFit",
    "PairPlan",
    "Plan",
    "RunLine",
    "TimeMissing",
    "cpu_fits",
    "fastest",
    "gb_text",
    "plan",
    "step_model",
    "why_text",
]


class TimeMissing(enum.Enum):
    """Why there is no time per step."""

    NO_MODEL = "no_model"
    NO_SEQ_LEN = "no_seq_len"
    SEQ_TOO_LONG = "seq_too_long"
    #: the card has no speed figures (a custom card whose speed was not given)
    NO_SPEED = "no_speed"
    #: the card cannot compute in the training precision
    PRECISION = "precision"
    #: the GPUs do not split evenly over the nodes, or the expert-parallel size does not
    #: spread the model's experts over the data-parallel GPUs
    LAYOUT = "layout"
    #: per-op selective recomputation is not modelled for the model
    RECOMPUTE = "recompute"


@dataclass(frozen=True)
class PairPlan:
    pair: PlanPair
    #: other memory + b · activation per GPU (None: memory unknown)
    per_gpu_bytes: int | None
    #: None: memory unknown
    fits: bool | None
    verdicts: BatchVerdicts
    #: None: no time model
    time: StepTime | None
    #: the pipeline schedule runs these micro-batches (interleaved 1F1B needs whole
    #: groups of ``p``: Megatron refuses the rest)
    schedule_ok: bool = True

    @property
    def micro_batch(self) -> int:
        return self.pair.micro_batch

    @property
    def accumulation_steps(self) -> int:
        return self.pair.accumulation_steps

    @property
    def effective_batch(self) -> int:
        return self.pair.effective_batch


@dataclass(frozen=True)
class MemoryFit:
    """The memory verdict of the configuration in use."""

    micro_batch: int
    per_gpu_bytes: int
    usable_bytes: int
    other_bytes: int
    #: b · activation per GPU, rounded up
    activation_bytes: int
    #: one sample's activations on a GPU, rounded up
    per_sample_bytes: int
    fits: bool
    #: usable − per GPU (negative: short by that much)
    headroom_bytes: int
    max_micro_batch: int


@dataclass(frozen=True)
class NoFit:
    """Not even one sample per GPU fits."""

    other_bytes: int
    #: one sample's activations on a GPU, rounded up
    activation_bytes: int
    usable_bytes: int
    #: other + activation − usable (> 0)
    shortfall_bytes: int
    #: the other memory alone exceeds the card
    other_exceeds: bool
    suggestions: tuple[Suggestion, ...]

    @property
    def why(self) -> str:
        """One line, in English, with the numbers (the command line's ``why``)."""
        total = self.other_bytes + self.activation_bytes
        return why_text(self.other_bytes, self.activation_bytes, 1, total, self.usable_bytes)


@dataclass(frozen=True)
class RunLine:
    #: "epochs" (passes over the dataset) or "tokens" (a token budget)
    kind: str
    amount: int
    totals: RunTotals


@dataclass(frozen=True)
class Plan:
    description: TrainingDescription
    figures: Figures
    choice: PairChoice
    #: the micro-batch is the plan's recommendation, not the user's own
    recommending: bool
    #: the configuration in use (None: recommending and nothing fits)
    accumulation: AccumulationPlan | None
    pairs: tuple[PairPlan, ...]
    current: PairPlan | None
    #: the memory verdict of ``current`` (None: memory unknown, or nothing fits)
    fit: MemoryFit | None
    no_fit: NoFit | None
    fastest: PairPlan | None
    step_model: StepModel | None
    time_missing: TimeMissing | None
    #: English detail of ``time_missing``
    time_detail: str
    run: tuple[RunLine, ...]
    setup_problem: SetupProblem | None
    #: what frameworks run, but slowly (tensor parallelism across nodes)
    notes: tuple[SetupNote, ...] = ()
    #: what the description's framework refuses of the configuration in use (of the
    #: layout alone when there is none): the rule book's entries
    refusals: tuple[Refusal, ...] = ()
    #: what the description asks for that its model, card or layout cannot give
    problems: tuple[Problem, ...] = ()

    @property
    def cpu_bytes_per_node(self) -> int | None:
        """Each node's CPU memory for the model states (DeepSpeed's estimators: the
        offloaded optimizer and parameters with its 1.5x buffer, and the fp32 model each
        process loads); None when the model states are not derived."""
        states = self.figures.states
        return None if states is None else states.cpu_bytes

    @property
    def cpu_fits(self) -> bool | None:
        """Whether a node's CPU memory holds ``cpu_bytes_per_node`` (None: either is
        unknown)."""
        return cpu_fits(self.cpu_bytes_per_node, self.description.cpu_memory_gb)

    @property
    def setup(self) -> TrainingSetup | None:
        """The setup the exports describe (None: no configuration, or no framework runs
        this layout)."""
        if self.current is None or self.setup_problem is not None:
            return None
        return self.description.setup(self.current.micro_batch, self.current.accumulation_steps)

    @property
    def fits(self) -> bool | None:
        if self.no_fit is not None:
            return False
        return None if self.fit is None else self.fit.fits

    @property
    def unrecommended(self) -> bool:
        """A micro-batch to recommend was asked for but the memory is not known: none is
        given (the pairs that reach the target are listed, none of them in use)."""
        return self.recommending and self.current is None and self.no_fit is None

    @property
    def why(self) -> str | None:
        """Why the configuration does not fit, in one line (None when it fits or the
        memory is unknown)."""
        if self.no_fit is not None:
            return self.no_fit.why
        if self.fit is not None and not self.fit.fits:
            f = self.fit
            return why_text(
                f.other_bytes, f.per_sample_bytes, f.micro_batch, f.per_gpu_bytes, f.usable_bytes
            )
        return None


def cpu_fits(cpu_bytes: int | None, cpu_memory_gb: Decimal | None) -> bool | None:
    """Whether ``cpu_bytes`` fit a node's ``cpu_memory_gb`` decimal GB (None: either is
    unknown)."""
    if cpu_bytes is None or cpu_memory_gb is None:
        return None
    return cpu_bytes <= cpu_memory_gb * 10**9


def gb_text(nbytes: int) -> str:
    """Bytes as decimal GB to the MB, rounded up, for English one-liners ("161.606 GB")."""
    return f"{shown_gb(nbytes):f} GB"


def why_text(other: int, per_sample: int, micro_batch: int, total: int, usable: int) -> str:
    """Why a micro-batch does not fit, in one English line with the numbers."""
    return (
        f"{gb_text(other)} of model states and overhead + {micro_batch} x "
        f"{gb_text(per_sample)} of activations = {gb_text(total)} per GPU, more than the "
        f"{gb_text(usable)} usable"
    )


def fastest(pairs: tuple[PairPlan, ...] | list[PairPlan], effective_batch: int) -> PairPlan | None:
    """The one rule for "the fastest pair": among the timed pairs that reach
    ``effective_batch``, are not known to overflow the memory and that the pipeline
    schedule runs, the one with the most tokens per second (ties: the larger
    micro-batch)."""
    timed = [
        p
        for p in pairs
        if p.time is not None
        and p.fits is not False
        and p.schedule_ok
        and p.effective_batch == effective_batch
    ]
    if not timed:
        return None
    return max(timed, key=_speed)


def _speed(pair: PairPlan) -> tuple[Fraction, int]:
    assert pair.time is not None
    return pair.time.tokens_per_second, pair.micro_batch


def step_model(
    d: TrainingDescription, figs: Figures
) -> tuple[StepModel | None, TimeMissing | None, str]:
    model = figs.facts
    if model is None:
        return None, TimeMissing.NO_MODEL, ""
    if d.seq_len is None:
        return None, TimeMissing.NO_SEQ_LEN, ""
    longest = max(d.seq_len, d.target_seq or 0)  # an encoder-decoder's target too
    if model.learned_positions is not None and longest > model.learned_positions:
        return None, TimeMissing.SEQ_TOO_LONG, str(model.learned_positions)
    if d.card is None or d.card.performance is None:
        return None, TimeMissing.NO_SPEED, ""
    if d.world % d.nodes:
        return None, TimeMissing.LAYOUT, ""
    if not d.experts_tile or d.expert_problem(model) is not None:
        return None, TimeMissing.LAYOUT, ""
    if d.context_problem() is not None:
        return None, TimeMissing.LAYOUT, ""
    try:
        hw = hardware(
            d.card,
            d.precision,
            d.world // d.nodes,
            d.efficiency,
            fp8=d.fp8_products,
            link_gbps=d.link_gbps,
            network_gbps=d.network_gbps,
            framework=d.framework,
        )
    except NoSpeedError as exc:
        return None, TimeMissing.PRECISION, str(exc)
    size = model.size
    cost = figs.token_cost(d, d.seq_len)
    if cost is None:
        return None, TimeMissing.RECOMPUTE, ""
    experts = None
    if model.experts is not None and size is not None:
        # the routed tokens' all-to-alls over the expert-parallel group (none at 1), and
        # the experts a GPU holds in its weights and gradient reduction
        experts = Experts(
            experts=model.experts.experts,
            top_k=model.experts.top_k,
            layers=model.experts.sparse_layers,
            parallel=d.expert_parallel,
            params=model.experts.params,
            spread=d.shape.expert_spread,
        )
    workload = Workload(
        cost=cost,
        seq_len=d.seq_len,
        layout=d.layout,
        zero_stage=d.zero_stage,
        precision=d.precision,
        master=d.master,
        hidden=None if size is None else size.hidden,
        layers=None if size is None else size.layers,
        vocab=None if size is None else size.vocab,
        heads=None if size is None else size.shape.heads,
        # the keys and values ring attention passes around the context-parallel group
        kv_width=(
            None if size is None else (model.kv_heads or size.shape.heads) * size.shape.head_dim
        ),
        flash_attention=d.attention.fused,
        flash_kernel=d.attention is AttentionKernel.FLASH
        or (d.attention is AttentionKernel.SDPA and d.framework.flash_attention),
        activation_bytes_per_sample=figs.activation.bytes,
        offload=d.offload,
        frozen_value_bytes=(
            Fraction(base_weight_bytes_per_param(d.base_format))
            if cost.trained is not None
            else None
        ),
        experts=experts,
        framework=d.framework,
        sequence_parallel=d.sequence_parallel,
        tp_overlap=d.tp_overlapped,
        bf16_gradients=d.bf16_gradients,
    )
    return StepModel(workload, hw, d.profile), None, ""


def _run(d: TrainingDescription, step: StepTime) -> tuple[RunLine, ...]:
    lines: list[RunLine] = []
    budget = d.run
    price = budget.price_per_gpu_hour
    if budget.dataset_samples is not None:
        epochs = budget.epochs or 1
        steps = epochs * steps_per_epoch(budget.dataset_samples, step.effective_batch).keep_last
        lines.append(
            RunLine(
                "epochs",
                epochs,
                run_totals(step, steps=steps, price_per_gpu_hour=price, goodput=budget.goodput),
            )
        )
    if budget.tokens is not None:
        totals = run_totals(
            step, tokens=budget.tokens, price_per_gpu_hour=price, goodput=budget.goodput
        )
        lines.append(RunLine("tokens", budget.tokens, totals))
    return tuple(lines)


def plan(description: TrainingDescription) -> Plan:
    """Everything the description fixes (see the module's docstring)."""
    d = description
    figs = figures(d)
    largest_fit = figs.max_micro_batch()
    choice = choose_pairs(d.target_batch, d.gpus, d.rounding, largest_fit)
    timing, time_missing, time_detail = step_model(d, figs)

    def pair_plan(pair: PlanPair) -> PairPlan:
        per_gpu = figs.per_gpu_bytes(pair.micro_batch)
        fits = None if largest_fit is None else pair.micro_batch <= largest_fit
        return PairPlan(
            pair=pair,
            per_gpu_bytes=per_gpu,
            fits=fits,
            verdicts=batch_verdicts(
                d.target_batch, pair.micro_batch, pair.accumulation_steps, d.gpus
            ),
            time=(
                None if timing is None else timing.time(pair.micro_batch, pair.accumulation_steps)
            ),
            schedule_ok=schedule_runs(d.setup(pair.micro_batch, pair.accumulation_steps)),
        )

    recommending = d.micro_batch is None
    micro = d.micro_batch
    # a recommendation rests on the memory: none while it is not known (the pairs are
    # listed; which of them fits is what is missing, and ``Plan.unrecommended`` says so)
    if micro is None and choice.recommended is not None and largest_fit is not None:
        micro = choice.recommended.micro_batch
        if not schedule_runs(d.setup(micro, choice.recommended.accumulation_steps)):
            # the largest fitting micro-batch whose steps the interleaved schedule runs
            runnable = [
                p.micro_batch
                for p in choice.pairs
                if p.micro_batch <= choice.recommended.micro_batch
                and p.effective_batch == choice.recommended.effective_batch
                and schedule_runs(d.setup(p.micro_batch, p.accumulation_steps))
            ]
            micro = max(runnable, default=micro)
    pairs = {p.micro_batch: p for p in choice.pairs}
    accumulation = current = fit = no_fit = None
    if micro is not None:
        accumulation = solve_accumulation(d.target_batch, micro, d.gpus, d.rounding)
        if micro not in pairs:
            pairs[micro] = PlanPair(
                micro,
                accumulation.accumulation_steps,
                accumulation.effective_batch,
                accumulation.difference,
                accumulation.exact,
            )
    listed = tuple(pair_plan(pairs[b]) for b in sorted(pairs))
    if micro is not None:
        current = next(p for p in listed if p.micro_batch == micro)
        fit = _fit(figs, micro, largest_fit)
    if largest_fit == 0 and recommending:
        no_fit = _no_fit(figs)
    best = None if current is None else fastest(listed, current.effective_batch)
    run = () if current is None or current.time is None else _run(d, current.time)
    # without a configuration, the layout's own rules (steps the schedule runs)
    in_use = (
        d.setup(current.micro_batch, current.accumulation_steps)
        if current is not None
        else d.setup(1, d.pipeline_stages)
    )
    return Plan(
        description=d,
        figures=figs,
        choice=choice,
        recommending=recommending,
        accumulation=accumulation,
        pairs=listed,
        current=current,
        fit=fit,
        no_fit=no_fit,
        fastest=best,
        step_model=timing,
        time_missing=time_missing,
        time_detail=time_detail,
        run=run,
        setup_problem=setup_problem(d.shape),
        notes=setup_notes(d.shape),
        refusals=refusals(in_use, figs.facts, d.framework),
        problems=problems(d, figs.facts),
    )


def _fit(figs: Figures, micro_batch: int, largest_fit: int | None) -> MemoryFit | None:
    per_gpu = figs.per_gpu_bytes(micro_batch)
    if per_gpu is None or figs.usable_bytes is None or largest_fit is None:
        return None
    assert figs.other.bytes is not None
    return MemoryFit(
        micro_batch=micro_batch,
        per_gpu_bytes=per_gpu,
        usable_bytes=figs.usable_bytes,
        other_bytes=figs.other.bytes,
        activation_bytes=per_gpu - figs.other.bytes,
        per_sample_bytes=_per_sample(figs),
        fits=micro_batch <= largest_fit,
        headroom_bytes=figs.usable_bytes - per_gpu,
        max_micro_batch=largest_fit,
    )


def _per_sample(figs: Figures) -> int:
    share = figs.activation_per_gpu
    assert share is not None
    return math.ceil(share)


def _no_fit(figs: Figures) -> NoFit:
    other, usable = figs.other.bytes, figs.usable_bytes
    per_gpu = figs.per_gpu_bytes(1)
    assert other is not None and usable is not None and per_gpu is not None
    other_exceeds = other > usable
    suggestions = nothing_fits_suggestions(other_exceeds)
    return NoFit(
        other_bytes=other,
        activation_bytes=per_gpu - other,
        usable_bytes=usable,
        shortfall_bytes=per_gpu - usable,
        other_exceeds=other_exceeds,
        suggestions=suggestions,
    )
