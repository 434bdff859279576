from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.batch.planning import (
    DeepSpeedReason,
    Rounding,
    deepspeed_check,
    divisors,
    lr_linear,
    lr_sqrt,
    solve_accumulation,
    steps_per_epoch,
    tokens_per_step,
)

D = Decimal
small = st.integers(min_value=1, max_value=2_000)
roundings = st.sampled_from(list(Rounding))


# --------------------------------------------------------------------------- solve


def test_solve_ceil_floor_nearest() -> None:
    ceil = solve_accumulation(100, 3, 2)
    assert (ceil.accumulation_steps, ceil.effective_batch, ceil.difference) == (17, 102, 2)
    assert not ceil.exact
    assert (ceil.reachable_below, ceil.reachable_above) == (96, 102)
    assert [(p.micro_batch, p.accumulation_steps) for p in ceil.exact_micro_batches] == [
        (1, 50),
        (2, 25),
        (5, 10),
        (10, 5),
        (25, 2),
        (50, 1),
    ]
    floor = solve_accumulation(100, 3, 2, Rounding.FLOOR)
    assert (floor.accumulation_steps, floor.effective_batch, floor.difference) == (16, 96, -4)
    nearest = solve_accumulation(100, 3, 2, Rounding.NEAREST)
    assert nearest.effective_batch == 102


def test_nearest_ties_go_up() -> None:
    # 10 / 4 = 2.5 steps: the tie goes up to 3 steps (E = 12 >= T)
    assert solve_accumulation(10, 4, 1, Rounding.NEAREST).accumulation_steps == 3
    assert solve_accumulation(9, 4, 1, Rounding.NEAREST).accumulation_steps == 2


def test_steps_never_below_one() -> None:
    plan = solve_accumulation(5, 8, 2, Rounding.FLOOR)
    assert plan.accumulation_steps == 1
    assert plan.effective_batch == 16
    assert plan.reachable_below is None
    assert plan.reachable_above == 16


def test_exact_pairs_empty_when_gpus_do_not_divide() -> None:
    plan = solve_accumulation(10, 1, 3)
    assert plan.exact_micro_batches == ()
    assert not plan.exact


def test_exact() -> None:
    plan = solve_accumulation(512, 4, 8)
    assert plan.exact and plan.difference == 0 and plan.accumulation_steps == 16
    assert plan.reachable_below == plan.reachable_above == 512


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_solve_rejects_bad_values(bad: object) -> None:
    with pytest.raises(ValueError):
        solve_accumulation(bad, 1, 1)  # type: ignore[arg-type]


def test_divisors() -> None:
    assert divisors(1) == [1]
    assert divisors(36) == [1, 2, 3, 4, 6, 9, 12, 18, 36]
    assert divisors(97) == [1, 97]
    assert len(divisors(735_134_400)) == 1344  # highly composite, < 10^9


@given(small, small, small, roundings)
def test_properties_of_solve(t: int, b: int, g: int, rounding: Rounding) -> None:
    plan = solve_accumulation(t, b, g, rounding)
    assert plan.effective_batch == b * plan.accumulation_steps * g
    assert plan.difference == plan.effective_batch - t
    assert plan.exact == (t % (b * g) == 0) == (plan.difference == 0)
    assert plan.accumulation_steps >= 1
    for pair in plan.exact_micro_batches:
        assert pair.micro_batch * pair.accumulation_steps * g == t
    assert [p.micro_batch for p in plan.exact_micro_batches] == sorted(
        {d for d in range(1, t + 1) if t % g == 0 and (t // g) % d == 0}
    )
    if plan.reachable_below is not None:
        assert plan.reachable_below <= t and plan.reachable_below % (b * g) == 0
    assert plan.reachable_above >= t and plan.reachable_above % (b * g) == 0


@given(small, small, small)
def test_rounding_modes_bracket_the_target(t: int, b: int, g: int) -> None:
    ceil = solve_accumulation(t, b, g, Rounding.CEIL).effective_batch
    floor = solve_accumulation(t, b, g, Rounding.FLOOR).effective_batch
    nearest = solve_accumulation(t, b, g, Rounding.NEAREST).effective_batch
    assert ceil >= t
    if t >= b * g:  # otherwise a would be 0 and is lifted to 1
        assert floor <= t
        assert abs(nearest - t) <= abs(ceil - t) and abs(nearest - t) <= abs(floor - t)
    assert floor <= nearest <= ceil


# --------------------------------------------------------------------------- DeepSpeed


# Cases replay deepspeed/runtime/config.py (deepspeedai/DeepSpeed @ 029f12b):
#   _set_batch_related_parameters: "grad_acc = train_batch // micro_batch;
#   grad_acc //= self.world_size" when only train_batch and micro_batch are set, etc.;
#   _batch_assertion: asserts train_batch > 0, micro_batch > 0, grad_acc > 0 and
#   "train_batch == micro_batch * grad_acc * self.world_size".
@pytest.mark.parametrize(
    ("args", "reason", "derived"),
    [
        ((32, 4, 8, 1), DeepSpeedReason.OK, (32, 4, 8)),
        ((64, 4, None, 2), DeepSpeedReason.OK, (64, 4, 8)),  # 64 // 4 // 2 = 8
        ((10, 4, None, 1), DeepSpeedReason.NOT_DIVISIBLE, (10, 4, 2)),  # 2·4 != 10
        ((100, 3, None, 2), DeepSpeedReason.NOT_DIVISIBLE, (100, 3, 16)),
        ((2, 4, None, 1), DeepSpeedReason.DERIVED_ZERO_STEPS, (2, 4, 0)),
        ((8, 4, None, 4), DeepSpeedReason.DERIVED_ZERO_STEPS, (8, 4, 0)),
        ((32, 4, 4, 1), DeepSpeedReason.PRODUCT_MISMATCH, (32, 4, 4)),
        ((64, None, 4, 4), DeepSpeedReason.OK, (64, 4, 4)),  # micro = 64 // 4 // 4
        ((30, None, 4, 4), DeepSpeedReason.NOT_DIVISIBLE, (30, 1, 4)),
        ((3, None, 4, 4), DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH, (3, 0, 4)),
        ((None, 4, 8, 2), DeepSpeedReason.OK, (64, 4, 8)),
        ((16, None, None, 4), DeepSpeedReason.OK, (16, 4, 1)),
        ((18, None, None, 4), DeepSpeedReason.NOT_DIVISIBLE, (18, 4, 1)),
        ((2, None, None, 4), DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH, (2, 0, 1)),
        ((None, 4, None, 3), DeepSpeedReason.OK, (12, 4, 1)),
        ((None, None, 8, 1), DeepSpeedReason.MISSING_BATCH_SIZE, (None, None, 8)),
        ((None, None, None, 1), DeepSpeedReason.MISSING_BATCH_SIZE, (None, None, None)),
        ((0, 4, 8, 1), DeepSpeedReason.NON_POSITIVE, (0, 4, 8)),
        ((32, 0, None, 1), DeepSpeedReason.NON_POSITIVE, (32, 0, None)),  # ZeroDivisionError
        ((-8, 2, None, 1), DeepSpeedReason.NON_POSITIVE, (-8, 2, -4)),
    ],
)
def test_deepspeed_cases(
    args: tuple[int | None, int | None, int | None, int],
    reason: DeepSpeedReason,
    derived: tuple[int | None, int | None, int | None],
) -> None:
    check = deepspeed_check(*args)
    assert check.reason is reason
    assert check.ok == (reason is DeepSpeedReason.OK)
    assert (check.train_batch_size, check.micro_batch, check.grad_acc) == derived


@given(small, small, small)
def test_deepspeed_agrees_with_divisibility(t: int, b: int, g: int) -> None:
    check = deepspeed_check(t, b, None, g)
    assert check.ok == (t % (b * g) == 0)
    assert check.grad_acc == t // (b * g)


# --------------------------------------------------------------------------- tokens, lr


def test_tokens_and_steps() -> None:
    assert tokens_per_step(512, 2048) == 1_048_576
    steps = steps_per_epoch(10_000, 96)
    assert (steps.keep_last, steps.drop_last, steps.remainder) == (105, 104, 16)
    even = steps_per_epoch(960, 96)
    assert (even.keep_last, even.drop_last, even.remainder) == (10, 10, 0)
    assert steps_per_epoch(5, 96).drop_last == 0


def test_lr_scaling() -> None:
    assert lr_linear(D("3e-4"), 512, 256) == D("0.0006")
    assert lr_sqrt(D("1e-4"), 1024, 256) == D("0.0002")
    root2 = lr_sqrt(D("1"), 512, 256)
    assert str(root2).startswith("1.414213562373095048801688724")
    assert len(root2.as_tuple().digits) == 28
    with pytest.raises(ValueError):
        lr_linear(D(0), 1, 1)
