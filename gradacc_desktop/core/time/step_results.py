"""What the time model says of one optimizer step and of a run: the step's time and
where it goes (``TimeParts``), its throughput and utilisation, the run's totals with
the goodput, and the one rule for the fastest of several steps.

Pure Python, exact (``Fraction`` seconds; round only to show).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property

from ..limits import require_positive_int
from .compute import SECONDS_PER_HOUR, require_goodput, require_price


@dataclass(frozen=True)
class TimeParts:
    """Where one optimizer step's time goes, in seconds; the parts add up to the step.

    Kernel parts count the ``a`` micro-steps' busy time; the bubble counts the idle
    pipeline slots whatever fills them."""

    #: matrix products (with a typed efficiency: every FLOP)
    matmul: Fraction = Fraction(0)
    #: a mixture of experts' grouped expert products
    expert_matmul: Fraction = Fraction(0)
    attention: Fraction = Fraction(0)
    #: element-wise work, and reading the weights where products cannot hide it
    memory: Fraction = Fraction(0)
    #: a mixture of experts' token permutation around the experts
    permutation: Fraction = Fraction(0)
    #: the GPU waiting for the host: Python, kernel launches and framework hooks of
    #: each layer take longer than its kernels
    overhead: Fraction = Fraction(0)
    #: a measured speed profile's forward and backward
    measured: Fraction = Fraction(0)
    tensor_parallel: Fraction = Fraction(0)
    pipeline: Fraction = Fraction(0)
    expert_parallel: Fraction = Fraction(0)
    #: ring attention's key/value sends beyond the attention they overlap (context
    #: parallelism)
    context_parallel: Fraction = Fraction(0)
    #: exposed data-parallel collectives (gradients and weights)
    data_parallel: Fraction = Fraction(0)
    #: exposed weight fetches from the host (ZeRO-Infinity)
    offload: Fraction = Fraction(0)
    bubble: Fraction = Fraction(0)
    optimizer: Fraction = Fraction(0)
    #: the framework's own work once per optimizer step
    framework: Fraction = Fraction(0)

    @property
    def total(self) -> Fraction:
        return sum((getattr(self, name) for name in PART_NAMES), Fraction(0))

    @property
    def communication(self) -> Fraction:
        return (
            self.tensor_parallel
            + self.pipeline
            + self.expert_parallel
            + self.context_parallel
            + self.data_parallel
            + self.offload
        )


#: the parts in the order the window lists them
PART_NAMES = (
    "matmul",
    "expert_matmul",
    "attention",
    "memory",
    "permutation",
    "overhead",
    "measured",
    "tensor_parallel",
    "pipeline",
    "expert_parallel",
    "context_parallel",
    "data_parallel",
    "offload",
    "bubble",
    "optimizer",
    "framework",
)


@dataclass(frozen=True)
class StepTime:
    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    tokens_per_step: int
    world: int
    #: reading the last stage's weights (and gradients) once: a floor under its products
    weight_seconds: Fraction
    #: one micro-step with its exposed traffic (a pipeline slot)
    micro_step_seconds: Fraction
    #: idle pipeline time in one optimizer step
    bubble_seconds: Fraction
    optimizer_seconds: Fraction
    step_seconds: Fraction
    model_flops_per_token: int
    hardware_flops_per_token: Fraction
    peak_flops: Fraction
    #: the micro-step's busy time came from a measured speed profile
    measured: bool = False
    #: makes one micro-step's parts (no bubble, no optimizer) when asked: timing every
    #: pair needs only the step
    explain: Callable[[], TimeParts] | None = field(default=None, compare=False, repr=False)
    #: the once-per-step data-parallel time
    data_step_seconds: Fraction = Fraction(0)
    #: the framework's own once-per-step work
    framework_seconds: Fraction = Fraction(0)
    #: one micro-step (forward and backward) of each pipeline stage, first to last (the
    #: last one also runs the output layer and the loss)
    stage_seconds: tuple[Fraction, ...] = ()

    @cached_property
    def slot(self) -> TimeParts | None:
        """One micro-step's parts (None: not known, e.g. a bare step)."""
        return None if self.explain is None else self.explain()

    @cached_property
    def parts(self) -> TimeParts:
        """Where the step's time goes (see ``TimeParts``): ``a`` micro-steps of the
        slowest pipeline stage, the once-per-step data-parallel time, the bubble, the
        optimizer and the framework's own work."""
        a, slot = self.accumulation_steps, self.slot
        if slot is None:
            return TimeParts(
                bubble=self.bubble_seconds,
                optimizer=self.optimizer_seconds,
                framework=self.framework_seconds,
            )
        scaled = {name: a * getattr(slot, name) for name in PART_NAMES}
        scaled["data_parallel"] += self.data_step_seconds
        scaled["bubble"] = self.bubble_seconds
        scaled["optimizer"] = self.optimizer_seconds
        scaled["framework"] = self.framework_seconds
        return TimeParts(**scaled)

    @cached_property
    def compute_seconds(self) -> Fraction:
        """One micro-step's FLOPs at the kernels' rates (of its slowest stage)."""
        slot = self.slot
        if slot is None:
            return Fraction(0)
        return slot.matmul + slot.expert_matmul + slot.attention

    @cached_property
    def memory_seconds(self) -> Fraction:
        """One micro-step's memory-bound time: the weights read (as far as the products
        do not already cover it), element-wise work and token permutation."""
        slot = self.slot
        if slot is None:
            return Fraction(0)
        products = slot.matmul + slot.expert_matmul
        return slot.memory + slot.permutation + min(products, self.weight_seconds)

    @cached_property
    def communication_seconds(self) -> Fraction:
        """Exposed communication in one optimizer step."""
        return self.parts.communication

    @property
    def memory_bound(self) -> bool:
        """Whether memory traffic, not FLOPs, sets the micro-step (never said of a
        measured one)."""
        return not self.measured and self.memory_seconds > self.compute_seconds

    @cached_property
    def tokens_per_second(self) -> Fraction:
        return self.tokens_per_step / self.step_seconds

    @cached_property
    def tokens_per_second_per_gpu(self) -> Fraction:
        return self.tokens_per_second / self.world

    @cached_property
    def mfu(self) -> Fraction:
        return self.model_flops_per_token * self.tokens_per_second_per_gpu / self.peak_flops

    @cached_property
    def hfu(self) -> Fraction:
        return self.hardware_flops_per_token * self.tokens_per_second_per_gpu / self.peak_flops

    @cached_property
    def bubble_fraction(self) -> Fraction:
        return self.bubble_seconds / self.step_seconds

    @cached_property
    def communication_fraction(self) -> Fraction:
        return self.communication_seconds / self.step_seconds


@dataclass(frozen=True)
class RunTotals:
    steps: int
    seconds: Fraction
    gpu_hours: Fraction
    #: None without a price
    cost: Fraction | None

    @property
    def days(self) -> Fraction:
        return self.seconds / 86_400


def run_totals(
    step: StepTime,
    *,
    tokens: int | None = None,
    steps: int | None = None,
    price_per_gpu_hour: Decimal | None = None,
    goodput: Decimal | None = None,
) -> RunTotals:
    """The one run time of a budget: steps, wall-clock time, GPU-hours and cost of a run
    of ``tokens`` or of ``steps`` optimizer steps (an epoch budget: its steps).

    A run is whole optimizer steps, as a trainer runs it: a token budget takes
    ``ceil(tokens / tokens per step)`` steps (the last one, even when only part of it
    is needed, is a whole step), each ``step.step_seconds`` long. ``goodput``: the
    share of the wall-clock time spent training (restarts, checkpoints and lost work
    take the rest), which stretches the time, GPU-hours and cost. ``gradacc plan``
    (``--tokens``, ``--epochs``), ``gradacc time`` with a predicted speed and the
    planner's run card all read their run time from here. (``compute.training_time``
    is the other estimate: a rate given as FLOP/s, with no step to count.)"""
    if (tokens is None) == (steps is None):
        raise ValueError("give tokens or steps")
    if tokens is not None:
        require_positive_int("tokens", tokens)
        steps = -(-tokens // step.tokens_per_step)
    assert steps is not None
    require_positive_int("steps", steps)
    require_price(price_per_gpu_hour)
    seconds = steps * step.step_seconds / require_goodput(goodput)
    gpu_hours = seconds * step.world / SECONDS_PER_HOUR
    cost = None if price_per_gpu_hour is None else gpu_hours * Fraction(price_per_gpu_hour)
    return RunTotals(steps, seconds, gpu_hours, cost)
