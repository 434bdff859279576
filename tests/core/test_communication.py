"""Collective volumes against a simulated ring, and which collectives run when."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.time.communication import (
    CollectiveKind,
    What,
    When,
    data_parallel,
    tensor_parallel,
    volume_factor,
)


def ring(ranks: int, size: int, phases: int) -> tuple[list[list[int]], list[int]]:
    """Run a ring reduce-scatter (phases = 1) or all-reduce (reduce-scatter then
    all-gather, phases = 2) on ``ranks`` buffers of ``size`` elements, chunk by chunk.
    Rank r starts with the vector [r + 1] * size. Returns the final buffers and the
    elements each rank sent."""
    chunks = [
        (size * c // ranks, size * (c + 1) // ranks) for c in range(ranks)
    ]  # nearly equal chunks
    data = [[r + 1] * size for r in range(ranks)]
    sent = [0] * ranks
    # reduce-scatter: at step k rank r sends chunk (r - k) to r + 1, which adds it in
    for k in range(ranks - 1):
        outgoing = []
        for r in range(ranks):
            lo, hi = chunks[(r - k) % ranks]
            outgoing.append((r, (r - k) % ranks, data[r][lo:hi]))
            sent[r] += hi - lo
        for r, c, values in outgoing:
            lo, hi = chunks[c]
            target = (r + 1) % ranks
            data[target][lo:hi] = [x + y for x, y in zip(data[target][lo:hi], values, strict=True)]
    if phases == 2:  # all-gather: rank r owns chunk (r + 1) and passes the sums around
        for k in range(ranks - 1):
            outgoing = []
            for r in range(ranks):
                c = (r + 1 - k) % ranks
                lo, hi = chunks[c]
                outgoing.append((r, c, data[r][lo:hi]))
                sent[r] += hi - lo
            for r, c, values in outgoing:
                lo, hi = chunks[c]
                data[(r + 1) % ranks][lo:hi] = values
    return data, sent


@pytest.mark.parametrize("ranks", [2, 3, 4, 8, 16])
def test_ring_all_reduce_sends_two_n_minus_one_over_n(ranks: int) -> None:
    size = ranks * 12
    data, sent = ring(ranks, size, phases=2)
    total = ranks * (ranks + 1) // 2
    assert all(buffer == [total] * size for buffer in data)  # it is an all-reduce
    assert all(Fraction(s, size) == volume_factor(CollectiveKind.ALL_REDUCE, ranks) for s in sent)


@pytest.mark.parametrize("ranks", [2, 5, 8])
def test_ring_reduce_scatter_sends_n_minus_one_over_n(ranks: int) -> None:
    size = ranks * 7
    _, sent = ring(ranks, size, phases=1)
    assert all(
        Fraction(s, size) == volume_factor(CollectiveKind.REDUCE_SCATTER, ranks) for s in sent
    )
    assert volume_factor(CollectiveKind.ALL_GATHER, ranks) == volume_factor(
        CollectiveKind.REDUCE_SCATTER, ranks
    )


@given(st.integers(1, 4096), st.integers(1, 10**12), st.integers(1, 10**12))
def test_all_reduce_time_is_volume_over_bandwidth(ranks: int, size: int, bandwidth: int) -> None:
    (collective,) = data_parallel(ZeroStage.NONE, size, max(ranks, 2), Fraction(bandwidth), True)
    n = max(ranks, 2)
    assert collective.seconds == Fraction(2 * (n - 1) * size, n * bandwidth)


def test_which_collectives_run_when() -> None:
    def summary(stage: ZeroStage) -> list[tuple[CollectiveKind, What, When, int]]:
        return [
            (c.kind, c.what, c.when, c.count)
            for c in data_parallel(stage, 100, 4, Fraction(1), True)
        ]

    step, micro = When.OPTIMIZER_STEP, When.MICRO_STEP
    grads, weights = What.GRADIENTS, What.WEIGHTS
    # DDP with no_sync: one gradient all-reduce per optimizer step
    assert summary(ZeroStage.NONE) == [(CollectiveKind.ALL_REDUCE, grads, step, 1)]
    # ZeRO-1: reduce-scatter then all-gather, once per step (2 psi, as DDP)
    assert summary(ZeroStage.OPTIMIZER) == [
        (CollectiveKind.REDUCE_SCATTER, grads, step, 1),
        (CollectiveKind.ALL_GATHER, weights, step, 1),
    ]
    # ZeRO-2: gradients leave on every micro-step
    assert summary(ZeroStage.GRADIENTS) == [
        (CollectiveKind.REDUCE_SCATTER, grads, micro, 1),
        (CollectiveKind.ALL_GATHER, weights, step, 1),
    ]
    # ZeRO-3 / FSDP: two gathers and a reduce-scatter per micro-step (3 psi, 1.5x DDP)
    assert summary(ZeroStage.WEIGHTS) == [
        (CollectiveKind.ALL_GATHER, weights, micro, 2),
        (CollectiveKind.REDUCE_SCATTER, grads, micro, 1),
    ]
    ddp = sum(c.volume for c in data_parallel(ZeroStage.NONE, 100, 4, Fraction(1), True))
    zero3 = sum(c.volume for c in data_parallel(ZeroStage.WEIGHTS, 100, 4, Fraction(1), True))
    assert zero3 == ddp * Fraction(3, 2)
    assert data_parallel(ZeroStage.WEIGHTS, 100, 1, Fraction(1), True) == ()


def test_tensor_parallel_all_reduces_per_layer() -> None:
    (plain,) = tensor_parallel(10, 1000, 8, Fraction(1), True, recompute=False)
    (again,) = tensor_parallel(10, 1000, 8, Fraction(1), True, recompute=True)
    assert plain.count == 40 and again.count == 60
    assert plain.volume == 40 * 1000 * Fraction(14, 8)
    assert tensor_parallel(10, 1000, 1, Fraction(1), True, recompute=False) == ()
