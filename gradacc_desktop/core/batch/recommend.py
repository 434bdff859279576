"""Recommend a pair: the micro-batch and accumulation steps that reach a target batch
within the largest micro-batch that fits one card, the pairs around it, and what to
change when nothing fits. The plan (:mod:`gradacc_desktop.core.training.plan`) counts
the memory; symbols as in :mod:`gradacc_desktop.core.batch.planning`.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from dataclasses import dataclass

from ..limits import require_positive_int
from .planning import Rounding, divisors, round_steps


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


def _pair(target: int, micro_batch: int, gpus: int, rounding: Rounding) -> PlanPair:
    steps = round_steps(target, micro_batch * gpus, rounding)
    effective = micro_batch * steps * gpus
    return PlanPair(micro_batch, steps, effective, effective - target, effective == target)


def _exact_sizes(target: int, gpus: int) -> list[int]:
    """Every micro-batch that reaches ``target`` exactly on ``gpus``, ascending."""
    return divisors(target // gpus) if target % gpus == 0 else []


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
    largest micro-batch that fits."""

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
    fit on a GPU (``None``: memory unknown, every micro-batch assumed to fit; 0: none
    fits, nothing is recommended).

    Micro-batches larger than one optimizer step needs per GPU are never useful, so
    ``b`` is capped at ``b_cap = ceil(T/g)`` (``floor(T/g)`` for FLOOR rounding, at
    least 1). The pairs listed are only the "interesting" ``b``: every exact divisor
    pair, every power of two and the largest useful ``b`` — with and without the
    limit, at most a few thousand entries for T <= 10^9.

    The recommended pair reaches T exactly whenever some fitting pair can, using the
    largest such micro-batch. Otherwise it is the fitting pair whose E lands closest
    to T on the rounding mode's side (CEIL: E >= T, FLOOR: E <= T, NEAREST: either,
    ties up), ties going to the largest micro-batch. (Simply taking the largest
    fitting micro-batch can overshoot badly: T = 100, g = 3, b <= 20 gives 20·2·3 =
    120, while 17·2·3 = 102.)"""
    require_positive_int("target", target)
    require_positive_int("gpus", gpus)
    if largest_fit is not None and (
        isinstance(largest_fit, bool) or not isinstance(largest_fit, int) or largest_fit < 0
    ):
        raise ValueError(f"largest_fit must be an integer >= 0, got {largest_fit!r}")
    exact_sizes = _exact_sizes(target, gpus)
    made: dict[int, PlanPair] = {}
    chosen: PlanPair | None
    chosen, _pairs, largest = _choose(target, gpus, rounding, None, exact_sizes, made)
    if largest_fit == 0:
        chosen, largest = None, 0
    elif largest_fit is not None:
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
