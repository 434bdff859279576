"""The parallel layout and the 1F1B bubble, against a step-by-step schedule simulation."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.time.layout import ParallelLayout, bubble_fraction


def simulate_1f1b(
    stages: int, micro_batches: int, forward: int, backward: int
) -> tuple[int, list[int]]:
    """Run the 1F1B (PipeDream-Flush) schedule op by op.

    Each stage runs its own list of operations in order: ``min(p - s - 1, m)`` warm-up
    forwards, then one forward and one backward at a time, then the remaining
    backwards. A forward waits for the previous stage's forward of the same
    micro-batch, a backward for the next stage's backward (the last stage: its own
    forward). Returns the makespan and, per stage, the most micro-batches whose
    activations it held at once (forwards done minus backwards done)."""
    p, m = stages, micro_batches
    orders: list[list[tuple[str, int]]] = []
    for s in range(p):
        warm = min(p - s - 1, m)
        order = [("F", i) for i in range(warm)]
        f, b = warm, 0
        while f < m:
            order.append(("F", f))
            f += 1
            order.append(("B", b))
            b += 1
        order += [("B", i) for i in range(b, m)]
        orders.append(order)
    done: dict[tuple[str, int, int], int] = {}
    position = [0] * p
    clock = [0] * p
    held, peak = [0] * p, [0] * p
    while any(position[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            if position[s] == len(orders[s]):
                continue
            kind, i = orders[s][position[s]]
            if kind == "F":
                need = ("F", s - 1, i) if s > 0 else None
            else:
                need = ("B", s + 1, i) if s < p - 1 else ("F", s, i)
            if need is not None and need not in done:
                continue
            start = max(clock[s], done[need] if need is not None else 0)
            clock[s] = start + (forward if kind == "F" else backward)
            done[(kind, s, i)] = clock[s]
            held[s] += 1 if kind == "F" else -1
            peak[s] = max(peak[s], held[s])
            position[s] += 1
            progressed = True
        assert progressed, "the schedule deadlocked"
    return max(clock), peak


@pytest.mark.parametrize("stages", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("micro_batches", [1, 2, 3, 4, 7, 8, 16, 33])
def test_bubble_matches_a_simulated_1f1b_schedule(stages: int, micro_batches: int) -> None:
    forward, backward = 1, 2  # the backward costs twice the forward
    makespan, peak = simulate_1f1b(stages, micro_batches, forward, backward)
    ideal = micro_batches * (forward + backward)
    assert makespan == (micro_batches + stages - 1) * (forward + backward)
    assert Fraction(makespan - ideal, makespan) == bubble_fraction(stages, micro_batches)
    # stage s holds min(p - s, m) micro-batches at once; with m >= p the first holds p of
    # its 1/p of the layers, the whole model's worth that figures.stage_peak counts
    assert peak == [min(stages - s, micro_batches) for s in range(stages)]


def test_bubble_as_the_paper_states_it() -> None:
    # Narayanan et al. 2021, section 2.2.1: bubble time fraction (p - 1) / m of the ideal
    # time, i.e. (p - 1) / (m + p - 1) of the whole step.
    assert bubble_fraction(8, 8) == Fraction(7, 15)
    assert bubble_fraction(4, 1) == Fraction(3, 4)
    assert bubble_fraction(1, 100) == 0
    p, m = 16, 96
    fraction = bubble_fraction(p, m)
    assert fraction / (1 - fraction) == Fraction(p - 1, m)


@given(st.integers(1, 64), st.integers(1, 512))
def test_bubble_shrinks_as_micro_batches_grow(stages: int, micro_batches: int) -> None:
    now, more = bubble_fraction(stages, micro_batches), bubble_fraction(stages, micro_batches + 1)
    assert 0 <= more <= now < 1
    assert (more < now) == (stages > 1)


def test_world_and_shares() -> None:
    layout = ParallelLayout(data=4, tensor=8, pipeline=2)
    assert layout.world == 64
    assert layout.model_shards == 16
    assert layout.fits_in_node(8) and layout.fits_in_node(16)
    assert not layout.fits_in_node(4) and not layout.fits_in_node(12)  # 12 = 8 + a split 4


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_layout_refuses_bad_sizes(bad: object) -> None:
    with pytest.raises(ValueError):
        ParallelLayout(data=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        bubble_fraction(2, bad)  # type: ignore[arg-type]
