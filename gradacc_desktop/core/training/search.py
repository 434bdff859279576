"""Find the best setup for a description on a number of GPUs.

The search walks every layout of ``world_size`` GPUs over the description's nodes —
tensor-parallel size (powers of two that divide the GPUs of a node), pipeline stages
(divisors of what is left), ZeRO stage with its CPU offload, the recomputations the
description's framework offers (``Framework.recomputations``: none and full; Megatron's
selective with the eager attention, whose s² scores it drops; FSDP's per-op selective
where it is modelled for the model) — and, for
each, every micro-batch that reaches the target batch exactly (``b · a · dp = T``: what
DeepSpeed's ``train_batch_size`` and Megatron's ``--global-batch-size`` accept). It keeps
the layouts that fit and that the frameworks run, times each one's pairs with the step
model and ranks the layouts by their fastest pair's time per optimizer step (ties: the
simpler layout — fewer model-parallel GPUs, no offload, a lower ZeRO stage, less
recomputation — then the larger micro-batch). Memory figures are always derived here: a
value typed over them belongs to one setup, not to all.

For every value of every dimension the best does not use, ``Exclusion`` says why: the
layouts with it do not fit (with the closest miss), a framework refuses them (which
rule), or they are slower (by how much).

What the description's framework refuses is the rule book's (``frameworks.rules``: the
same entries ``plan`` returns and the exports name); the search adds its own two:

* a data-parallel size that does not divide the target batch: no micro-batch reaches it;
* a data-parallel size the description's expert-parallel size does not divide (the
  expert-parallel groups tile the data-parallel GPUs, in DeepSpeed-MoE and Megatron),
  or an expert-parallel size the model's experts cannot take (every layout).

The expert-parallel and context-parallel sizes are the description's in every layout
tried (they are not searched): the context-parallel GPUs come out of ``world_size``
first, and the layouts split the ``world_size / cp`` that is left.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

from gradacc_desktop.core.recompute import Recompute

from ..batch.planning import divisors
from ..frameworks.rules import Refusal, refusals, schedule_runs
from ..memory.models import ModelFacts, UnknownModelError, facts
from ..memory.setup import Offload
from ..memory.zero import ZeroStage
from ..time.step_results import StepTime
from .description import TrainingDescription
from .figures import Figures, figures, repeated_share
from .plan import TimeMissing, cpu_fits, step_model

__all__ = [
    "Blocked",
    "Candidate",
    "Exclusion",
    "ExclusionReason",
    "SearchResult",
    "Unsearchable",
    "search",
]

#: every ZeRO stage with the offloads it allows
ZERO_OFFLOAD = (
    (ZeroStage.NONE, Offload.NONE),
    (ZeroStage.OPTIMIZER, Offload.NONE),
    (ZeroStage.OPTIMIZER, Offload.OPTIMIZER),
    (ZeroStage.GRADIENTS, Offload.NONE),
    (ZeroStage.GRADIENTS, Offload.OPTIMIZER),
    (ZeroStage.WEIGHTS, Offload.NONE),
    (ZeroStage.WEIGHTS, Offload.OPTIMIZER),
    (ZeroStage.WEIGHTS, Offload.ALL),
)
#: how many layouts the ranking lists
RANKED = 10


class Blocked(enum.Enum):
    """Why the search itself cannot use a layout (what a framework refuses is
    ``Candidate.refusals``)."""

    NOT_REACHABLE = "not_reachable"
    #: the expert-parallel size does not divide the data-parallel GPUs (or the model's
    #: experts, or the model has none)
    EXPERT_PARALLEL = "expert_parallel"


class ExclusionReason(enum.Enum):
    """Why a value of a dimension is not in the best setup."""

    NOT_FIT = "not_fit"
    #: the model states a node holds in its CPU memory do not fit it
    NOT_FIT_CPU = "not_fit_cpu"
    REFUSED = "refused"
    SLOWER = "slower"


class Unsearchable(enum.Enum):
    """Why there is nothing to search."""

    NO_MODEL = "no_model"
    #: no activation per sample: the model's shape or the sequence length is missing
    NO_ACTIVATION = "no_activation"
    NO_CAPACITY = "no_capacity"
    #: the GPUs do not split evenly over the nodes
    UNEVEN_NODES = "uneven_nodes"
    #: the context-parallel size does not divide the GPUs, or the sequence does not
    #: split into 2·CP equal chunks
    CONTEXT_PARALLEL = "context_parallel"


@dataclass(frozen=True)
class Candidate:
    """One layout with its fastest pair (or why it is out)."""

    zero_stage: ZeroStage
    offload: Offload
    recompute: Recompute
    tensor_parallel: int
    pipeline_stages: int
    #: data-parallel GPUs
    gpus: int
    micro_batch: int | None = None
    accumulation_steps: int | None = None
    fits: bool = False
    per_gpu_bytes: int | None = None
    #: the closest miss when nothing fits: bytes per GPU at one sample, and usable
    shortfall_bytes: int | None = None
    #: each node's CPU memory for the model states (offloads; None: not derived)
    cpu_bytes_per_node: int | None = None
    #: CPU bytes per node over the description's node memory (None: it fits, or the
    #: node's memory is not known)
    cpu_shortfall_bytes: int | None = None
    step: StepTime | None = None
    #: what the description's framework refuses of it (the rule book's entries)
    refusals: tuple[Refusal, ...] = ()
    blocked: Blocked | None = None
    #: the description's (every layout keeps it)
    expert_parallel: int = 1
    #: the description's (every layout keeps it; adds GPUs)
    context_parallel: int = 1

    @property
    def accepted(self) -> bool:
        return (
            not self.refusals
            and self.blocked is None
            and self.fits
            and self.micro_batch is not None
        )

    @property
    def effective_batch(self) -> int | None:
        if self.micro_batch is None or self.accumulation_steps is None:
            return None
        return self.micro_batch * self.accumulation_steps * self.gpus

    @property
    def step_seconds(self) -> Fraction | None:
        return None if self.step is None else self.step.step_seconds

    def value(self, dimension: str) -> object:
        return getattr(self, dimension)


@dataclass(frozen=True)
class Exclusion:
    dimension: str
    value: object
    reason: ExclusionReason
    #: NOT_FIT: the smallest shortfall of any of its layouts (bytes per GPU, one sample);
    #: NOT_FIT_CPU: the smallest of a node's CPU memory
    shortfall_bytes: int | None = None
    #: REFUSED: the rules that refuse its layouts (one of each), and the search's own
    #: reasons
    refusals: tuple[Refusal, ...] = ()
    blocked: tuple[Blocked, ...] = ()
    #: SLOWER: its fastest layout
    candidate: Candidate | None = None


@dataclass(frozen=True)
class SearchResult:
    description: TrainingDescription
    world_size: int
    nodes: int
    #: accepted layouts, fastest first (at most ``RANKED``); the first is the best
    ranking: tuple[Candidate, ...]
    exclusions: tuple[Exclusion, ...]
    #: layouts considered (accepted, refused or not fitting)
    considered: int
    #: why the ranking is by simplicity rather than time (None: ranked by time)
    untimed: TimeMissing | None
    unsearchable: Unsearchable | None = None

    @property
    def best(self) -> Candidate | None:
        return self.ranking[0] if self.ranking else None

    def applied(self, candidate: Candidate | None = None) -> TrainingDescription | None:
        """The description with ``candidate`` (the best by default) as its setup."""
        chosen = self.best if candidate is None else candidate
        if chosen is None:
            return None
        return replace(
            self.description,
            gpus=chosen.gpus,
            nodes=self.nodes,
            tensor_parallel=chosen.tensor_parallel,
            pipeline_stages=chosen.pipeline_stages,
            zero_stage=chosen.zero_stage,
            offload=chosen.offload,
            recompute=chosen.recompute,
            micro_batch=chosen.micro_batch,
            activation_gb=None,
            other_memory_gb=None,
        )


DIMENSIONS = ("zero_stage", "offload", "recompute", "tensor_parallel", "pipeline_stages")


def _tensor_options(gpus_per_node: int) -> list[int]:
    options, tp = [], 1
    while tp <= gpus_per_node:
        if gpus_per_node % tp == 0:
            options.append(tp)
        tp *= 2
    return options


def _layouts(world: int, gpus_per_node: int) -> Iterator[tuple[int, int, int]]:
    """(tp, pp, dp) of every layout of ``world`` GPUs."""
    for tp in _tensor_options(gpus_per_node):
        for pp in divisors(world // tp):
            yield tp, pp, world // (tp * pp)


def _rank_key(c: Candidate) -> tuple[Fraction, int, bool, int, int, int]:
    seconds = c.step_seconds if c.step_seconds is not None else Fraction(0)
    return (
        seconds,
        c.tensor_parallel * c.pipeline_stages,
        c.offload is not Offload.NONE,
        int(c.zero_stage),
        list(Recompute).index(c.recompute),  # the less recomputed first
        -(c.micro_batch or 0),
    )


def _evaluate(d: TrainingDescription, model: ModelFacts) -> Candidate:
    layout = Candidate(
        zero_stage=d.zero_stage,
        offload=d.offload,
        recompute=d.recompute,
        tensor_parallel=d.tensor_parallel,
        pipeline_stages=d.pipeline_stages,
        gpus=d.gpus,
        expert_parallel=d.expert_parallel,
        context_parallel=d.context_parallel,
    )
    if not d.experts_tile or d.expert_problem(model) is not None:
        return replace(layout, blocked=Blocked.EXPERT_PARALLEL)
    # the layout's own rules (accumulation steps the schedule runs: one group)
    refused = refusals(d.setup(1, d.pipeline_stages), model, d.framework)
    if refused:
        return replace(layout, refusals=refused)
    if d.target_batch % d.gpus:
        return replace(layout, blocked=Blocked.NOT_REACHABLE)
    figs: Figures = figures(d, model)
    cpu = None if figs.states is None else figs.states.cpu_bytes
    layout = replace(layout, cpu_bytes_per_node=cpu)
    if cpu_fits(cpu, d.cpu_memory_gb) is False:
        assert cpu is not None and d.cpu_memory_gb is not None
        return replace(layout, cpu_shortfall_bytes=cpu - int(d.cpu_memory_gb * 10**9))
    largest = figs.max_micro_batch()
    assert largest is not None
    per_gpu = d.target_batch // d.gpus
    sizes = [b for b in divisors(per_gpu) if b <= largest]
    if not sizes:
        one = figs.per_gpu_bytes(1)
        assert one is not None and figs.usable_bytes is not None
        return replace(layout, shortfall_bytes=one - figs.usable_bytes)
    if d.layout.virtual > 1:
        # interleaved 1F1B runs whole groups of pipeline-stages micro-batches only
        runnable = [b for b in sizes if schedule_runs(d.setup(b, per_gpu // b))]
        if not runnable:
            largest_size = sizes[-1]
            setup = d.setup(largest_size, per_gpu // largest_size)
            return replace(layout, refusals=refusals(setup, model, d.framework))
        sizes = runnable
    timing, _missing, _detail = step_model(d, figs)
    # the layout's other ranking keys are the same for every pair: the fastest step,
    # then the largest micro-batch (``_rank_key``)
    steps = [(None if timing is None else timing.time(b, per_gpu // b), b) for b in sizes]
    step, b = min(
        steps, key=lambda sb: (Fraction(0) if sb[0] is None else sb[0].step_seconds, -sb[1])
    )
    return replace(
        layout,
        micro_batch=b,
        accumulation_steps=per_gpu // b,
        fits=True,
        per_gpu_bytes=figs.per_gpu_bytes(b),
        step=step,
    )


def search(
    description: TrainingDescription,
    world_size: int,
    nodes: int | None = None,
    *,
    tensor_parallel: tuple[int, ...] | None = None,
    pipeline_stages: tuple[int, ...] | None = None,
) -> SearchResult:
    """The best setup of ``description`` on ``world_size`` GPUs over ``nodes`` nodes (the
    description's by default). ``tensor_parallel`` and ``pipeline_stages`` narrow the
    sizes tried (``(1,)``: plain data parallelism)."""
    d = replace(description, activation_gb=None, other_memory_gb=None, micro_batch=None)
    nodes = d.nodes if nodes is None else nodes
    if world_size < 1 or nodes < 1:
        raise ValueError("world_size and nodes must be >= 1")
    d = replace(d, nodes=nodes)

    def unsearchable(why: Unsearchable) -> SearchResult:
        return SearchResult(d, world_size, nodes, (), (), 0, None, why)

    if d.model is None:
        return unsearchable(Unsearchable.NO_MODEL)
    try:
        model = facts(d.model)
    except UnknownModelError:
        return unsearchable(Unsearchable.NO_MODEL)
    if world_size % nodes:
        return unsearchable(Unsearchable.UNEVEN_NODES)
    cp = d.context_parallel
    if world_size % cp or d.context_problem() is not None:
        return unsearchable(Unsearchable.CONTEXT_PARALLEL)
    # every layout tries its own recomputations: the probe asks for none
    probe = figures(replace(d, recompute=Recompute.NONE), model)
    if probe.activation.bytes is None:
        return unsearchable(Unsearchable.NO_ACTIVATION)
    if probe.usable_bytes is None:
        return unsearchable(Unsearchable.NO_CAPACITY)

    # the recomputations the framework offers (per-op: where it is modelled for the
    # model); with a fused attention kernel there are no s² scores for the selective one
    # to drop, so it keeps what none keeps and is slower: not tried
    recomputes = [
        r
        for r in d.framework.recomputations
        if not (r is Recompute.SELECTIVE and d.attention.fused)
        and (
            r is not Recompute.SELECTIVE_OP
            or repeated_share(replace(d, recompute=r), model) is not None
        )
    ]
    evaluated: list[Candidate] = []
    per_node = world_size // nodes
    for tp, pp, dp in _layouts(world_size // cp, max(1, per_node // cp)):
        if tensor_parallel is not None and tp not in tensor_parallel:
            continue
        if pipeline_stages is not None and pp not in pipeline_stages:
            continue
        for recompute in recomputes:
            for zero, offload in ZERO_OFFLOAD:
                changed = replace(
                    d,
                    gpus=dp,
                    tensor_parallel=tp,
                    pipeline_stages=pp,
                    zero_stage=zero,
                    offload=offload,
                    recompute=recompute,
                )
                evaluated.append(_evaluate(changed, model))
    accepted = sorted((c for c in evaluated if c.accepted), key=_rank_key)
    untimed = None  # why the best is not timed (then none is: the card has no speed)
    if accepted and accepted[0].step is None:
        best = accepted[0]
        chosen = replace(
            d,
            gpus=best.gpus,
            tensor_parallel=best.tensor_parallel,
            pipeline_stages=best.pipeline_stages,
            zero_stage=best.zero_stage,
            offload=best.offload,
            recompute=best.recompute,
        )
        untimed = step_model(chosen, figures(chosen, model))[1]
    return SearchResult(
        description=d,
        world_size=world_size,
        nodes=nodes,
        ranking=tuple(accepted[:RANKED]),
        exclusions=_exclusions(evaluated, accepted[0] if accepted else None),
        considered=len(evaluated),
        untimed=untimed,
    )


def _twin(group: list[Candidate], best: Candidate, dimension: str) -> Candidate | None:
    """The layout of ``group`` that is ``best`` but for ``dimension`` (None: not tried)."""
    others = [d for d in DIMENSIONS if d != dimension]
    return next((c for c in group if all(c.value(d) == best.value(d) for d in others)), None)


def _exclusions(evaluated: list[Candidate], best: Candidate | None) -> tuple[Exclusion, ...]:
    found: list[Exclusion] = []
    for dimension in DIMENSIONS:
        values: dict[object, list[Candidate]] = {}
        for c in evaluated:
            values.setdefault(c.value(dimension), []).append(c)
        for value, group in values.items():
            if best is not None and best.value(dimension) == value:
                continue
            accepted = sorted((c for c in group if c.accepted), key=_rank_key)
            if accepted:
                found.append(
                    Exclusion(dimension, value, ExclusionReason.SLOWER, candidate=accepted[0])
                )
                continue
            misses = [c.shortfall_bytes for c in group if c.shortfall_bytes is not None]
            if misses:
                found.append(Exclusion(dimension, value, ExclusionReason.NOT_FIT, min(misses)))
                continue
            cpu = [c.cpu_shortfall_bytes for c in group if c.cpu_shortfall_bytes is not None]
            if cpu:
                found.append(Exclusion(dimension, value, ExclusionReason.NOT_FIT_CPU, min(cpu)))
                continue
            # why the best with this one value changed is out; else every reason met
            twin = None if best is None else _twin(group, best, dimension)
            said = group if twin is None or not (twin.refusals or twin.blocked) else [twin]
            first: dict[object, Refusal] = {}
            for c in said:
                for r in c.refusals:
                    first.setdefault(r.rule, r)
            blocked = tuple(b for b in Blocked if any(c.blocked is b for c in said))
            found.append(
                Exclusion(
                    dimension,
                    value,
                    ExclusionReason.REFUSED,
                    refusals=tuple(first.values()),
                    blocked=blocked,
                )
            )
    return tuple(found)
