"""Plan a run: from a target effective batch to micro-batch, accumulation steps and memory.

Pure Python, exact arithmetic (integers for batch sizes, ``Decimal`` for gigabytes,
``Fraction`` where a division must be exact). Nothing here knows about Qt or locales.

Symbols follow :mod:`gradacc_desktop.core.calculator`: ``T`` target effective batch,
``b`` micro-batch per GPU, ``a`` accumulation steps, ``g`` data-parallel GPUs,
``E = b·a·g`` achieved effective batch, ``A`` activation memory per sample (GB),
``O`` other memory per GPU (weights, gradients, optimizer states, overhead; GB),
``C`` usable memory of one GPU (GB).

The GPU table lives in :mod:`gradacc_desktop.core.time.gpus`, the model states in
:mod:`gradacc_desktop.core.memory.model_states` and the choice of pairs that fit a card in
:mod:`gradacc_desktop.core.batch.recommend`.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext

from ..calculator import normalize
from ..limits import Limits, require_positive_int, whole

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

# --------------------------------------------------------------------------- checks


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


def round_steps(target: int, per_step: int, rounding: Rounding) -> int:
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
    steps = round_steps(target, per_step, rounding)
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
        # a train batch derived as 0 comes from a given 0 (micro x steps x GPUs):
        # DeepSpeed's first assertion names it ("Train batch size: 0 has to be greater
        # than 0")
        if given[name] is not None or value < 0 or name == "train_batch_size":
            return result(DeepSpeedReason.NON_POSITIVE)
        if name == "grad_acc":
            return result(DeepSpeedReason.DERIVED_ZERO_STEPS)
        return result(DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH)
    if t != b * a * world_size:
        if derived:
            return result(DeepSpeedReason.NOT_DIVISIBLE)
        return result(DeepSpeedReason.PRODUCT_MISMATCH)
    return result(DeepSpeedReason.OK)


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
