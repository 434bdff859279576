"""Recommend a pair: the micro-batch and accumulation steps that reach a target batch
and fit one card's memory, the pairs around it, and what to change when nothing fits.

Symbols as in :mod:`gradacc_desktop.core.batch.planning` (which solves one pair and checks its
memory); ``m`` is the largest micro-batch that fits.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from dataclasses import dataclass
from decimal import Decimal

from ..calculator import normalize
from ..limits import require_positive_int
from .planning import (
    FitResult,
    Rounding,
    divisors,
    fit,
    max_micro_batch,
    round_steps,
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
    steps = round_steps(target, micro_batch * gpus, rounding)
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
