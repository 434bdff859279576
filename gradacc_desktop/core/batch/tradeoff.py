"""The batching trade-off as data for a chart: activation memory per GPU against
effective batch, growing the micro-batch versus accumulating at a fixed one.

Pure Python and exact; the chart widget only draws these points.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from ..calculator import normalize


@dataclass(frozen=True)
class Point:
    effective_batch: int
    activation_gb: Decimal


@dataclass(frozen=True)
class Comparison:
    """One effective batch reached both ways: memory per GPU for each."""

    effective_batch: int
    # the micro-batch alone reaches the batch (b' = E / g, a = 1)
    no_accumulation_gb: Decimal
    # the current micro-batch, accumulating (a' = E / (b·g)): stays at b·A
    accumulation_gb: Decimal


@dataclass(frozen=True)
class Tradeoff:
    # micro-batch b' = 1, 2, … with no accumulation (a = 1): memory rises with the batch
    no_accumulation: tuple[Point, ...]
    # the current micro-batch with accumulation steps a' = 1, 2, …: memory stays flat
    accumulation: tuple[Point, ...]
    # the current configuration
    current: Point
    # memory a GPU has left for activations (capacity − other memory), if known
    available_gb: Decimal | None
    # the largest effective batch the x axis shows
    max_effective_batch: int
    # activation per GPU if the current batch came from the micro-batch alone (b·a·A)
    without_accumulation_gb: Decimal
    # both ways side by side at the accumulation curve's batches (for a table)
    comparison: tuple[Comparison, ...]


def tradeoff(
    micro_batch: int,
    accumulation_steps: int,
    gpus: int,
    activation_gb: Decimal,
    available_gb: Decimal | None = None,
    points: int = 64,
) -> Tradeoff:
    """Both curves up to a little beyond the current effective batch.

    At most ``points`` points per curve, evenly spread over the x range, so a
    chart stays light whatever the batch size.
    """
    if min(micro_batch, accumulation_steps, gpus, points) < 1 or activation_gb <= 0:
        raise ValueError("micro-batch, steps, GPUs and points must be >= 1, activation > 0")
    current_e = micro_batch * accumulation_steps * gpus
    # x range: twice the current batch, and at least up to where the
    # no-accumulation curve would cross the available memory.
    reach = 2 * current_e
    if available_gb is not None and available_gb > 0:
        reach = max(reach, int(available_gb / activation_gb) * gpus + gpus)
    reach = max(reach, 2 * gpus)

    def spread(step: int) -> list[int]:
        """Multipliers k ≥ 1 with k·step ≤ reach, thinned to ``points`` values."""
        count = max(reach // step, 1)
        stride = -(-count // points)  # ceil: at most `points` values, plus the last
        ks = list(range(1, count + 1, stride))
        if ks[-1] != count:
            ks.append(count)
        return ks

    grow = tuple(Point(k * gpus, normalize(k * activation_gb)) for k in spread(gpus))
    flat_memory = normalize(micro_batch * activation_gb)
    accumulate = tuple(
        Point(k * micro_batch * gpus, flat_memory) for k in spread(micro_batch * gpus)
    )
    comparison = tuple(
        Comparison(
            p.effective_batch,
            normalize(p.effective_batch // gpus * activation_gb),
            flat_memory,
        )
        for p in accumulate
    )
    return Tradeoff(
        no_accumulation=grow,
        accumulation=accumulate,
        current=Point(current_e, flat_memory),
        available_gb=None if available_gb is None else normalize(available_gb),
        max_effective_batch=max(reach, current_e),
        without_accumulation_gb=normalize(micro_batch * accumulation_steps * activation_gb),
        comparison=comparison,
    )


def available_for_activations(capacity_gb: Decimal, other_gb: Decimal) -> Decimal:
    """What one GPU has left for activations: capacity − other memory, never below zero."""
    return normalize(max(capacity_gb - other_gb, Decimal(0)))


# Tick steps are 1, 2 or 5 times a power of ten.
_NICE_MANTISSAS = (1, 2, 5)


@dataclass(frozen=True)
class AxisScale:
    """An axis from 0 to ``step · intervals`` with a tick (and a label) at every step."""

    step: Decimal
    intervals: int

    @property
    def top(self) -> Decimal:
        return normalize(self.step * self.intervals)

    @property
    def decimals(self) -> int:
        """Decimal places every tick label needs (0 for whole steps)."""
        exponent = normalize(self.step).as_tuple().exponent
        assert isinstance(exponent, int)
        return max(-exponent, 0)

    def ticks(self) -> tuple[Decimal, ...]:
        return tuple(normalize(self.step * i) for i in range(self.intervals + 1))


def axis_scales(maximum: Decimal, max_intervals: int, integer: bool = False) -> Iterator[AxisScale]:
    """Ways to label an axis from 0 to at least ``maximum``, densest first.

    Steps of 1, 2 or 5 × 10ᵏ (at least 1 for an ``integer`` axis), from the
    smallest that needs at most ``max_intervals`` intervals up to the first
    that covers ``maximum`` in one: a view takes the densest whose labels fit.
    """
    if maximum <= 0 or max_intervals < 1:
        raise ValueError("maximum must be > 0 and max_intervals >= 1")
    exponent = (maximum / max_intervals).adjusted()
    if integer:
        exponent = max(exponent, 0)
    while True:
        for mantissa in _NICE_MANTISSAS:
            step = Decimal(mantissa).scaleb(exponent)
            intervals = int((maximum / step).to_integral_value(rounding=ROUND_CEILING))
            if intervals > max_intervals:
                continue
            yield AxisScale(normalize(step), max(intervals, 1))
            if intervals <= 1:
                return
        exponent += 1
