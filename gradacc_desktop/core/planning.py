"""Plan a run: from a target effective batch to micro-batch, accumulation steps and memory.

Pure Python, exact arithmetic (integers for batch sizes, ``Decimal`` for gigabytes,
``Fraction`` where a division must be exact). Nothing here knows about Qt or locales.

Symbols follow :mod:`gradacc_desktop.core.calculator`: ``T`` target effective batch,
``b`` micro-batch per GPU, ``a`` accumulation steps, ``g`` data-parallel GPUs,
``E = b·a·g`` achieved effective batch, ``A`` activation memory per sample (GB),
``O`` other memory per GPU (weights, gradients, optimizer states, overhead; GB),
``C`` usable memory of one GPU (GB).

The GPU table lives in :mod:`gradacc_desktop.core.gpus` and the "other memory"
estimator in :mod:`gradacc_desktop.core.memory`; both are re-exported here.
"""

from __future__ import annotations

import enum
import math
from bisect import bisect_right
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from .calculator import normalize
from .gpus import GpuCard, GpuTableError, custom_card, load_gpu_table
from .limits import Limits, require_positive_int, whole
from .memory import (
    DEFAULT_OVERHEAD_GB,
    RECIPES,
    OtherMemoryEstimate,
    Recipe,
    RecipeRule,
    ZeroStage,
    estimate_other_memory,
)
from .text import trans_late

# Shown under the planner's memory inputs; translated where it is shown.
UNIT_NOTE = trans_late(
    "Planner",
    "Memory is in decimal gigabytes everywhere: 1 GB = 10⁹ bytes "
    "(not GiB = 2³⁰ bytes; 1 GiB ≈ 1.074 GB).",
)

# Largest target batch the planner accepts; divisor enumeration stays under ~32k steps.
MAX_TARGET_BATCH = 1_000_000_000

# Ranges for the planner's own inputs (batch-size fields reuse calculator.LIMITS).
TARGET_LIMITS = whole(1, MAX_TARGET_BATCH)
GPU_MEMORY_LIMITS = Limits(Decimal("0.001"), Decimal(100_000), integer=False)
OTHER_MEMORY_LIMITS = Limits(Decimal(0), Decimal(100_000), integer=False)
SEQ_LEN_LIMITS = whole(1, 100_000_000)
DATASET_LIMITS = whole(1, 10**15)
# The reference learning rate: 0.00000001 .. 1000, to the 8th decimal place.
LR_DECIMALS = 8
LR_LIMITS = Limits(Decimal(1).scaleb(-LR_DECIMALS), Decimal(1000), False, LR_DECIMALS)

# Precision (significant digits) for the learning-rate scaling rules.
LR_PRECISION = 28

__all__ = [
    "DATASET_LIMITS",
    "DEFAULT_OVERHEAD_GB",
    "GPU_MEMORY_LIMITS",
    "LR_DECIMALS",
    "LR_LIMITS",
    "LR_PRECISION",
    "MAX_TARGET_BATCH",
    "OTHER_MEMORY_LIMITS",
    "RECIPES",
    "SEQ_LEN_LIMITS",
    "TARGET_LIMITS",
    "UNIT_NOTE",
    "AccumulationPlan",
    "Candidates",
    "DeepSpeedCheck",
    "DeepSpeedReason",
    "ExactPair",
    "FitResult",
    "GpuCard",
    "GpuTableError",
    "NothingFits",
    "OtherMemoryEstimate",
    "PairChoice",
    "PlanPair",
    "Recipe",
    "RecipeRule",
    "Recommendation",
    "Rounding",
    "StepsPerEpoch",
    "Suggestion",
    "ZeroStage",
    "choose_pairs",
    "custom_card",
    "deepspeed_check",
    "divisors",
    "estimate_other_memory",
    "fit",
    "load_gpu_table",
    "lr_linear",
    "lr_sqrt",
    "max_micro_batch",
    "recommend",
    "recommend_with_pairs",
    "solve_accumulation",
    "steps_per_epoch",
    "tokens_per_step",
]


# --------------------------------------------------------------------------- checks


def _non_negative_decimal(name: str, value: Decimal) -> None:
    if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
        raise ValueError(f"{name} must be a finite Decimal >= 0, got {value!r}")


# --------------------------------------------------------------------------- solving


class Rounding(enum.Enum):
    """How to turn ``T / (b·g)`` into whole accumulation steps."""

    CEIL = "ceil"  # reach at least the target (default)
    FLOOR = "floor"  # never exceed the target
    NEAREST = "nearest"  # closest; ties go up (to at least the target)


def divisors(n: int) -> list[int]:
    """All positive divisors of ``n`` ascending, in O(sqrt n)."""
    require_positive_int("n", n)
    small: list[int] = []
    large: list[int] = []
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
    return small + large[::-1]


def _round_steps(target: int, per_step: int, rounding: Rounding) -> int:
    quotient, remainder = divmod(target, per_step)
    if remainder == 0 or rounding is Rounding.FLOOR:
        steps = quotient
    elif rounding is Rounding.CEIL:
        steps = quotient + 1
    else:  # NEAREST, ties up: round up when 2·remainder >= per_step
        steps = quotient + 1 if 2 * remainder >= per_step else quotient
    return max(steps, 1)


@dataclass(frozen=True)
class ExactPair:
    """A micro-batch that reaches the target exactly, with its accumulation steps."""

    micro_batch: int
    accumulation_steps: int


@dataclass(frozen=True)
class AccumulationPlan:
    target: int
    micro_batch: int
    gpus: int
    rounding: Rounding
    # a = T/(b·g) rounded by ``rounding``, never below 1
    accumulation_steps: int
    # E = b·a·g
    effective_batch: int
    # E - T (negative: below the target)
    difference: int
    # T is a multiple of b·g, so E == T
    exact: bool
    # largest multiple of b·g that is <= T (None when T < b·g)
    reachable_below: int | None
    # smallest multiple of b·g that is >= T
    reachable_above: int
    # every micro-batch that hits T exactly with these GPUs, ascending (empty if g ∤ T)
    exact_micro_batches: tuple[ExactPair, ...]
    # FLOOR asked never to exceed T, but b·g > T: even a = 1 overshoots (a is then 1)
    floor_unreachable: bool = False
    # the largest micro-batch with b·g <= T (None when even b = 1 exceeds T: fewer GPUs)
    largest_micro_batch_within: int | None = None


def solve_accumulation(
    target: int, micro_batch: int, gpus: int, rounding: Rounding = Rounding.CEIL
) -> AccumulationPlan:
    """Accumulation steps for a target effective batch, with the exact alternatives."""
    require_positive_int("target", target)
    require_positive_int("micro_batch", micro_batch)
    require_positive_int("gpus", gpus)
    per_step = micro_batch * gpus
    steps = _round_steps(target, per_step, rounding)
    effective = per_step * steps
    below = (target // per_step) * per_step
    above = -(-target // per_step) * per_step
    exact_pairs: tuple[ExactPair, ...] = ()
    if target % gpus == 0:
        per_gpu = target // gpus
        exact_pairs = tuple(ExactPair(d, per_gpu // d) for d in divisors(per_gpu))
    return AccumulationPlan(
        target=target,
        micro_batch=micro_batch,
        gpus=gpus,
        rounding=rounding,
        accumulation_steps=steps,
        effective_batch=effective,
        difference=effective - target,
        exact=target % per_step == 0,
        reachable_below=below if below >= per_step else None,
        reachable_above=above,
        exact_micro_batches=exact_pairs,
        floor_unreachable=rounding is Rounding.FLOOR and per_step > target,
        largest_micro_batch_within=(target // gpus) or None,
    )


# --------------------------------------------------------------------------- DeepSpeed


class DeepSpeedReason(enum.Enum):
    OK = "ok"
    # neither train_batch_size nor train_micro_batch_size_per_gpu was given
    MISSING_BATCH_SIZE = "missing_batch_size"
    # a value the user gave is zero or negative (DeepSpeed asserts > 0;
    # a zero micro-batch next to train_batch_size even raises ZeroDivisionError)
    NON_POSITIVE = "non_positive"
    # all three were given and train_batch_size != micro · grad_acc · world_size
    PRODUCT_MISMATCH = "product_mismatch"
    # a value was derived by integer division that did not divide evenly
    NOT_DIVISIBLE = "not_divisible"
    # derived gradient_accumulation_steps is 0 (train_batch_size < micro · world_size)
    DERIVED_ZERO_STEPS = "derived_zero_steps"
    # derived micro-batch is 0 (train_batch_size < grad_acc · world_size)
    DERIVED_ZERO_MICRO_BATCH = "derived_zero_micro_batch"


@dataclass(frozen=True)
class DeepSpeedCheck:
    ok: bool
    reason: DeepSpeedReason
    # the three values after DeepSpeed's derivation (None only when nothing could be derived)
    train_batch_size: int | None
    micro_batch: int | None
    grad_acc: int | None
    world_size: int
    # names of the values DeepSpeed derived ("train_batch_size", "micro_batch", "grad_acc")
    derived: tuple[str, ...]
    # micro · grad_acc · world_size after derivation (None when a value is missing)
    product: int | None


def deepspeed_check(
    train_batch_size: int | None,
    micro_batch: int | None,
    grad_acc: int | None,
    world_size: int,
) -> DeepSpeedCheck:
    """Replay DeepSpeed's batch-size resolution and assertions.

    Modelled on ``deepspeed/runtime/config.py`` (deepspeedai/DeepSpeed, read at commit
    029f12b): ``_configure_train_batch_size`` calls ``_set_batch_related_parameters``
    then ``_batch_assertion``.

    * all three given: nothing is derived;
    * train + micro: ``grad_acc = train // micro; grad_acc //= world_size``;
    * train + grad_acc: ``micro = train // world_size; micro //= grad_acc``;
    * micro + grad_acc: ``train = micro * grad_acc * world_size``;
    * train only: ``grad_acc = 1; micro = train // world_size``;
    * micro only: ``train = micro * world_size; grad_acc = 1``;
    * otherwise: ``assert False`` ("Either train_batch_size or
      train_micro_batch_size_per_gpu needs to be provided").

    ``_batch_assertion`` then asserts, in order, train > 0, micro > 0, grad_acc > 0 and
    ``train == micro * grad_acc * world_size``. Floor division of positive integers
    composes, so ``(T // b) // g == T // (b·g)``.
    """
    require_positive_int("world_size", world_size)
    t, b, a = train_batch_size, micro_batch, grad_acc
    given = {"train_batch_size": t, "micro_batch": b, "grad_acc": a}
    derived: tuple[str, ...] = ()

    def result(reason: DeepSpeedReason) -> DeepSpeedCheck:
        product = b * a * world_size if b is not None and a is not None else None
        return DeepSpeedCheck(
            ok=reason is DeepSpeedReason.OK,
            reason=reason,
            train_batch_size=t,
            micro_batch=b,
            grad_acc=a,
            world_size=world_size,
            derived=derived,
            product=product,
        )

    if t is not None and b is not None and a is None:
        if b == 0:  # DeepSpeed raises ZeroDivisionError here
            return result(DeepSpeedReason.NON_POSITIVE)
        a = (t // b) // world_size
        derived = ("grad_acc",)
    elif t is not None and a is not None and b is None:
        if a == 0:
            return result(DeepSpeedReason.NON_POSITIVE)
        b = (t // world_size) // a
        derived = ("micro_batch",)
    elif b is not None and a is not None and t is None:
        t = b * a * world_size
        derived = ("train_batch_size",)
    elif t is not None and b is None and a is None:
        a, b = 1, t // world_size
        derived = ("grad_acc", "micro_batch")
    elif b is not None and t is None and a is None:
        t, a = b * world_size, 1
        derived = ("train_batch_size", "grad_acc")
    elif t is None and b is None:
        return result(DeepSpeedReason.MISSING_BATCH_SIZE)
    assert t is not None and b is not None and a is not None

    for name, value in (("train_batch_size", t), ("micro_batch", b), ("grad_acc", a)):
        if value > 0:
            continue
        if given[name] is not None or value < 0:
            return result(DeepSpeedReason.NON_POSITIVE)
        if name == "grad_acc":
            return result(DeepSpeedReason.DERIVED_ZERO_STEPS)
        return result(DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH)
    if t != b * a * world_size:
        if derived:
            return result(DeepSpeedReason.NOT_DIVISIBLE)
        return result(DeepSpeedReason.PRODUCT_MISMATCH)
    return result(DeepSpeedReason.OK)


# --------------------------------------------------------------------------- memory fit


@dataclass(frozen=True)
class FitResult:
    micro_batch: int
    # C, usable memory of one GPU (GB)
    gpu_memory_gb: Decimal
    # O, everything but activations (GB)
    other_memory_gb: Decimal
    # A, activation memory per sample (GB)
    activation_per_sample_gb: Decimal
    # b·A
    activation_gb: Decimal
    # b·A + O
    total_gb: Decimal
    # total <= capacity
    fits: bool
    # C - total (negative when it does not fit)
    headroom_gb: Decimal
    # largest b with b·A + O <= C (0 when even b = 1 does not fit)
    max_micro_batch: int


def max_micro_batch(
    gpu_memory_gb: Decimal, other_memory_gb: Decimal, activation_per_sample_gb: Decimal
) -> int:
    """floor((C - O) / A), exactly; 0 when O > C."""
    _non_negative_decimal("gpu_memory_gb", gpu_memory_gb)
    _non_negative_decimal("other_memory_gb", other_memory_gb)
    _non_negative_decimal("activation_per_sample_gb", activation_per_sample_gb)
    if activation_per_sample_gb == 0:
        raise ValueError("activation_per_sample_gb must be > 0")
    free = Fraction(gpu_memory_gb) - Fraction(other_memory_gb)
    if free < 0:
        return 0
    return math.floor(free / Fraction(activation_per_sample_gb))


def fit(
    gpu_memory_gb: Decimal,
    other_memory_gb: Decimal,
    activation_per_sample_gb: Decimal,
    micro_batch: int,
) -> FitResult:
    """Does ``b`` samples' activations plus the other memory fit in one GPU?"""
    require_positive_int("micro_batch", micro_batch)
    largest = max_micro_batch(gpu_memory_gb, other_memory_gb, activation_per_sample_gb)
    activation = micro_batch * activation_per_sample_gb
    total = activation + other_memory_gb
    return FitResult(
        micro_batch=micro_batch,
        gpu_memory_gb=gpu_memory_gb,
        other_memory_gb=other_memory_gb,
        activation_per_sample_gb=activation_per_sample_gb,
        activation_gb=normalize(activation),
        total_gb=normalize(total),
        fits=total <= gpu_memory_gb,
        headroom_gb=normalize(gpu_memory_gb - total),
        max_micro_batch=largest,
    )


# --------------------------------------------------------------------------- recommend


@dataclass(frozen=True)
class PlanPair:
    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    # E - T
    difference: int
    exact: bool


class Suggestion(enum.Enum):
    """What to try when not even one sample per GPU fits."""

    ACTIVATION_RECOMPUTATION = "activation_recomputation"
    SHORTER_SEQUENCES = "shorter_sequences"
    ZERO_SHARDING = "zero_sharding"
    MORE_GPUS = "more_gpus"
    LARGER_GPU = "larger_gpu"
    PARAMETER_EFFICIENT = "parameter_efficient"
    SMALLER_MODEL = "smaller_model"


@dataclass(frozen=True)
class NothingFits:
    # the fit at b = 1
    fit: FitResult
    # total at b = 1 minus capacity (> 0)
    shortfall_gb: Decimal
    # the other memory alone exceeds the GPU
    other_exceeds_capacity: bool
    suggestions: tuple[Suggestion, ...]


@dataclass(frozen=True)
class Recommendation:
    target: int
    gpus: int
    rounding: Rounding
    # largest b that fits in memory (None when no memory figures were given)
    max_micro_batch: int | None
    # largest b worth considering: min(max_micro_batch, b_cap), see ``recommend``
    largest_useful_micro_batch: int
    # candidate pairs, ascending by micro-batch (see ``recommend`` for which b appear)
    pairs: tuple[PlanPair, ...]
    recommended: PlanPair
    # the fit of the recommended pair (None when no memory figures were given)
    fit: FitResult | None
    # FLOOR rounding with T < g: no micro-batch stays at or below T (use fewer GPUs)
    floor_unreachable: bool = False


@dataclass(frozen=True)
class Candidates:
    """What the planner shows, from one pass: the recommendation within the memory
    limit and every pair worth listing with or without it."""

    # ``recommend`` with the memory figures
    outcome: Recommendation | NothingFits
    # the pairs of ``recommend`` without memory figures, plus the outcome's own pairs
    # (which add the largest fitting micro-batch and the one chosen under the limit),
    # ascending by micro-batch, each micro-batch once
    pairs: tuple[PlanPair, ...]


def _pair(target: int, micro_batch: int, gpus: int, rounding: Rounding) -> PlanPair:
    steps = _round_steps(target, micro_batch * gpus, rounding)
    effective = micro_batch * steps * gpus
    return PlanPair(micro_batch, steps, effective, effective - target, effective == target)


Memory = tuple[Decimal, Decimal, Decimal]


def _memory(
    gpu_memory_gb: Decimal | None, other_memory_gb: Decimal | None, activation_gb: Decimal | None
) -> Memory | None:
    """The three memory figures together, or ``None`` when none is given."""
    if gpu_memory_gb is not None and other_memory_gb is not None and activation_gb is not None:
        return gpu_memory_gb, other_memory_gb, activation_gb
    if gpu_memory_gb is None and other_memory_gb is None and activation_gb is None:
        return None
    raise ValueError("gpu_memory_gb, other_memory_gb and activation_gb go together")


def _exact_sizes(target: int, gpus: int) -> list[int]:
    """Every micro-batch that reaches ``target`` exactly on ``gpus``, ascending."""
    return divisors(target // gpus) if target % gpus == 0 else []


def recommend(
    target: int,
    gpus: int,
    gpu_memory_gb: Decimal | None = None,
    other_memory_gb: Decimal | None = None,
    activation_gb: Decimal | None = None,
    rounding: Rounding = Rounding.CEIL,
) -> Recommendation | NothingFits:
    """Choose a micro-batch and accumulation steps for a target effective batch.

    The three memory figures are given together or not at all; without them every
    micro-batch is assumed to fit.

    Micro-batches larger than one optimizer step needs per GPU are never useful, so
    ``b`` is capped at ``b_cap = ceil(T/g)`` (``floor(T/g)`` for FLOOR rounding, at
    least 1). The candidate list holds only the "interesting" ``b`` up to
    ``min(max_micro_batch, b_cap)``: every exact divisor pair, every power of two and
    that largest useful ``b`` itself — at most a few thousand entries for T <= 10^9.

    The recommended pair reaches T exactly whenever some fitting pair can, using the
    largest such micro-batch. Otherwise it is the fitting pair whose E lands closest
    to T on the rounding mode's side (CEIL: E >= T, FLOOR: E <= T, NEAREST: either,
    ties up), ties going to the largest micro-batch. (Simply taking the largest
    fitting micro-batch can overshoot badly: T = 100, g = 3, b <= 20 gives 20·2·3 =
    120, while 17·2·3 = 102.)
    """
    require_positive_int("target", target)
    require_positive_int("gpus", gpus)
    memory = _memory(gpu_memory_gb, other_memory_gb, activation_gb)
    return _recommend(target, gpus, rounding, memory, _exact_sizes(target, gpus), {})


def recommend_with_pairs(
    target: int,
    gpus: int,
    gpu_memory_gb: Decimal,
    other_memory_gb: Decimal,
    activation_gb: Decimal,
    rounding: Rounding = Rounding.CEIL,
) -> Candidates:
    """``recommend`` with the memory figures, and the pairs of ``recommend`` without
    them merged with its own (see ``Candidates``), sharing the divisors and the pairs
    the two have in common."""
    require_positive_int("target", target)
    require_positive_int("gpus", gpus)
    memory = _memory(gpu_memory_gb, other_memory_gb, activation_gb)
    if memory is None:
        raise ValueError("recommend_with_pairs needs the memory figures")
    exact_sizes = _exact_sizes(target, gpus)
    made: dict[int, PlanPair] = {}
    _recommend(target, gpus, rounding, None, exact_sizes, made)
    outcome = _recommend(target, gpus, rounding, memory, exact_sizes, made)
    return Candidates(outcome=outcome, pairs=tuple(made[b] for b in sorted(made)))


def _recommend(
    target: int,
    gpus: int,
    rounding: Rounding,
    memory: Memory | None,
    exact_sizes: list[int],
    made: dict[int, PlanPair],
) -> Recommendation | NothingFits:
    """``recommend`` for checked arguments; every candidate pair goes into ``made``
    (reused when it is already there)."""
    largest_fit: int | None = None
    if memory is not None:
        largest_fit = max_micro_batch(*memory)
        if largest_fit == 0:
            return _nothing_fits(fit(*memory, 1))
    chosen, pairs, largest = _choose(target, gpus, rounding, largest_fit, exact_sizes, made)
    return Recommendation(
        target=target,
        gpus=gpus,
        rounding=rounding,
        max_micro_batch=largest_fit,
        largest_useful_micro_batch=largest,
        pairs=pairs,
        recommended=chosen,
        fit=None if memory is None else fit(*memory, chosen.micro_batch),
        floor_unreachable=rounding is Rounding.FLOOR and target < gpus,
    )


def _choose(
    target: int,
    gpus: int,
    rounding: Rounding,
    largest_fit: int | None,
    exact_sizes: list[int],
    made: dict[int, PlanPair],
) -> tuple[PlanPair, tuple[PlanPair, ...], int]:
    """The recommended pair, the candidate pairs and the largest useful micro-batch when
    at most ``largest_fit`` samples fit (``None``: no limit; at least 1)."""
    cap = target // gpus if rounding is Rounding.FLOOR else -(-target // gpus)
    cap = max(cap, 1)
    largest = cap if largest_fit is None else min(cap, largest_fit)

    candidates = {largest}
    candidates.update(1 << k for k in range(largest.bit_length()) if 1 << k <= largest)
    fitting_exact = exact_sizes[: bisect_right(exact_sizes, largest)]
    candidates.update(fitting_exact)
    chosen_b = (
        fitting_exact[-1]
        if fitting_exact
        else _closest_micro_batch(target, gpus, largest, rounding)
    )
    candidates.add(chosen_b)
    for b in candidates:
        if b not in made:
            made[b] = _pair(target, b, gpus, rounding)
    pairs = tuple(made[b] for b in sorted(candidates))
    return made[chosen_b], pairs, largest


@dataclass(frozen=True)
class PairChoice:
    """The pairs a plan lists and the one it recommends, for a memory limit given as the
    largest micro-batch that fits (``recommend_with_pairs`` for callers that count
    memory themselves)."""

    #: every pair worth listing, with or without the limit, ascending by micro-batch
    pairs: tuple[PlanPair, ...]
    #: None when not even one sample per GPU fits
    recommended: PlanPair | None
    #: the limit (None: no memory figures)
    largest_fit: int | None
    #: the largest micro-batch worth considering within the limit
    largest_useful: int
    floor_unreachable: bool


def choose_pairs(
    target: int, gpus: int, rounding: Rounding = Rounding.CEIL, largest_fit: int | None = None
) -> PairChoice:
    """The candidate pairs and the recommended one when at most ``largest_fit`` samples
    fit on a GPU (``None``: memory unknown, every micro-batch assumed to fit)."""
    require_positive_int("target", target)
    require_positive_int("gpus", gpus)
    if largest_fit is not None and (
        isinstance(largest_fit, bool) or not isinstance(largest_fit, int) or largest_fit < 0
    ):
        raise ValueError(f"largest_fit must be an integer >= 0, got {largest_fit!r}")
    exact_sizes = _exact_sizes(target, gpus)
    made: dict[int, PlanPair] = {}
    _choose(target, gpus, rounding, None, exact_sizes, made)
    chosen: PlanPair | None = None
    largest = 0
    if largest_fit != 0:
        chosen, _pairs, largest = _choose(target, gpus, rounding, largest_fit, exact_sizes, made)
    return PairChoice(
        pairs=tuple(made[b] for b in sorted(made)),
        recommended=chosen,
        largest_fit=largest_fit,
        largest_useful=largest,
        floor_unreachable=rounding is Rounding.FLOOR and target < gpus,
    )


def _block_starts(m: int, largest: int) -> list[tuple[int, int]]:
    """Blocks [lo, hi] of b in 1..largest on which ``m // b`` is constant, O(sqrt m)."""
    blocks: list[tuple[int, int]] = []
    lo = 1
    while lo <= largest:
        q = m // lo
        hi = largest if q == 0 else min(largest, m // q)
        blocks.append((lo, hi))
        lo = hi + 1
    return blocks


def _closest_micro_batch(target: int, gpus: int, largest: int, rounding: Rounding) -> int:
    """The b <= largest whose rounded pair lands closest to T, ties to the largest b.

    CEIL only considers E >= T and FLOOR E <= T (as far as a >= 1 allows); NEAREST
    any E, ties going up. On a block of b where ``a`` is constant, E = b·a·g grows
    with b, so only block ends can be best: O(sqrt(T/g)) candidates, not O(T).
    """
    candidates: set[int] = set()
    if rounding is not Rounding.FLOOR:  # a = (T-1)//g // b + 1: best at block start
        candidates.update(lo for lo, _ in _block_starts((target - 1) // gpus, largest))
    if rounding is not Rounding.CEIL:  # a = T//g // b: best at block end
        candidates.update(hi for _, hi in _block_starts(target // gpus, largest))

    def key(b: int) -> tuple[int, int, int, int]:
        difference = _pair(target, b, gpus, rounding).difference
        wrong_side = (rounding is Rounding.CEIL and difference < 0) or (
            rounding is Rounding.FLOOR and difference > 0
        )
        return (int(wrong_side), abs(difference), -int(difference >= 0), -b)

    return min(candidates, key=key)


def nothing_fits_suggestions(other_exceeds: bool) -> tuple[Suggestion, ...]:
    """What to try when not even one sample fits: against the model states when they
    alone exceed the GPU, against the activations otherwise."""
    if other_exceeds:
        return (
            Suggestion.ZERO_SHARDING,
            Suggestion.MORE_GPUS,
            Suggestion.PARAMETER_EFFICIENT,
            Suggestion.LARGER_GPU,
            Suggestion.SMALLER_MODEL,
        )
    return (
        Suggestion.ACTIVATION_RECOMPUTATION,
        Suggestion.SHORTER_SEQUENCES,
        Suggestion.ZERO_SHARDING,
        Suggestion.LARGER_GPU,
        Suggestion.SMALLER_MODEL,
    )


def _nothing_fits(at_one: FitResult) -> NothingFits:
    other_too_big = at_one.other_memory_gb > at_one.gpu_memory_gb
    suggestions = nothing_fits_suggestions(other_too_big)
    return NothingFits(
        fit=at_one,
        shortfall_gb=normalize(-at_one.headroom_gb),
        other_exceeds_capacity=other_too_big,
        suggestions=suggestions,
    )


# --------------------------------------------------------------------------- tokens, steps, lr


def tokens_per_step(effective_batch: int, seq_len: int) -> int:
    """Tokens per optimizer step: E · sequence length (packed, unpadded sequences)."""
    require_positive_int("effective_batch", effective_batch)
    require_positive_int("seq_len", seq_len)
    return effective_batch * seq_len


@dataclass(frozen=True)
class StepsPerEpoch:
    # ceil(N / E): the last, partial step is kept
    keep_last: int
    # floor(N / E): the partial step is dropped (drop_last=True); may be 0
    drop_last: int
    # samples in the partial last step (0 when E divides N)
    remainder: int


def steps_per_epoch(dataset_samples: int, effective_batch: int) -> StepsPerEpoch:
    """Optimizer steps per epoch, counted in samples (ignores per-rank sharding remainders)."""
    require_positive_int("dataset_samples", dataset_samples)
    require_positive_int("effective_batch", effective_batch)
    quotient, remainder = divmod(dataset_samples, effective_batch)
    return StepsPerEpoch(
        keep_last=quotient + (1 if remainder else 0), drop_last=quotient, remainder=remainder
    )


def _check_lr(lr: Decimal, effective_batch: int, reference_batch: int) -> None:
    if not isinstance(lr, Decimal) or not lr.is_finite() or lr <= 0:
        raise ValueError(f"lr must be a finite Decimal > 0, got {lr!r}")
    require_positive_int("effective_batch", effective_batch)
    require_positive_int("reference_batch", reference_batch)


def lr_linear(lr: Decimal, effective_batch: int, reference_batch: int) -> Decimal:
    """Linear scaling rule (Goyal et al. 2017): lr · E / E_ref, 28 significant digits."""
    _check_lr(lr, effective_batch, reference_batch)
    with localcontext() as ctx:
        ctx.prec = LR_PRECISION
        return normalize(lr * effective_batch / reference_batch)


def lr_sqrt(lr: Decimal, effective_batch: int, reference_batch: int) -> Decimal:
    """Square-root scaling rule (Krizhevsky 2014; common for Adam): lr · sqrt(E / E_ref)."""
    _check_lr(lr, effective_batch, reference_batch)
    with localcontext() as ctx:
        ctx.prec = LR_PRECISION
        ratio = Decimal(effective_batch) / Decimal(reference_batch)
        return normalize(lr * ratio.sqrt())
