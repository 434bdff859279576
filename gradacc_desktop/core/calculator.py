"""The seed's calculator: effective batch and activation memory per GPU.

Pure Python, exact arithmetic: integers for batch sizes, ``Decimal`` for
gigabytes. Nothing here knows about Qt, locales or widgets.

Symbols (as in the seed's formula):

* ``b`` micro-batch size per GPU (integer >= 1)
* ``a`` gradient-accumulation steps (integer >= 1)
* ``g`` data-parallel GPUs / replicas (integer >= 1)
* ``A`` activation memory per sample, in GB (decimal > 0)
* ``E = b * a * g`` effective batch size
* ``M = b * A`` peak activation memory on one GPU (independent of ``a`` and ``g``)
"""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import NamedTuple

from .limits import DEFAULT_DECIMALS, EntryProblem, Limits, check, whole

__all__ = ["EntryProblem", "Limits"]  # re-exported: the calculator's inputs are checked with them

# Decimal places accepted for "activation per sample" (GB).
ACTIVATION_DECIMALS = DEFAULT_DECIMALS

# GPUs in the seed's data-parallel variant of the worked example, per GPU of the input.
DATA_PARALLEL_EXAMPLE_FACTOR = 4


class Field(enum.Enum):
    """The calculator's four inputs, in the order the window shows them."""

    MICRO_BATCH = "micro_batch"
    ACCUMULATION_STEPS = "accumulation_steps"
    GPUS = "gpus"
    ACTIVATION_GB = "activation_gb"


# Accepted ranges. Integers reach beyond any real cluster; activation reaches 10 000 GB.
LIMITS: dict[Field, Limits] = {
    Field.MICRO_BATCH: whole(1, 1_000_000),
    Field.ACCUMULATION_STEPS: whole(1, 1_000_000),
    Field.GPUS: whole(1, 1_000_000),
    Field.ACTIVATION_GB: Limits(
        Decimal(1).scaleb(-ACTIVATION_DECIMALS), Decimal(100_000), False, ACTIVATION_DECIMALS
    ),
}


class BatchInputs(NamedTuple):
    micro_batch: int
    accumulation_steps: int
    gpus: int
    activation_gb: Decimal

    def value(self, field: Field) -> int | Decimal:
        return getattr(self, field.value)  # type: ignore[no-any-return]

    def replace(self, **changes: int | Decimal) -> BatchInputs:
        values = {f.value: self.value(f) for f in Field}
        values.update(changes)
        return BatchInputs(**values)  # type: ignore[arg-type]


# The seed's defaults: 4 samples, 8 steps, 1 GPU, 0.5 GB per sample.
DEFAULTS = BatchInputs(micro_batch=4, accumulation_steps=8, gpus=1, activation_gb=Decimal("0.5"))


class BatchResult(NamedTuple):
    inputs: BatchInputs
    # E = b * a * g
    effective_batch: int
    # M = b * A, in GB, exact
    activation_per_gpu_gb: Decimal
    # b * a: samples each GPU processes per optimizer step
    samples_per_gpu_per_step: int
    # micro-batches (forward + backward passes) each GPU runs per optimizer step
    micro_batches_per_step: int


class ValidationError(NamedTuple):
    field: Field
    problem: EntryProblem
    limits: Limits


class InvalidInputs(ValueError):
    def __init__(self, errors: list[ValidationError]) -> None:
        super().__init__(", ".join(f"{e.field.value}: {e.problem.value}" for e in errors))
        self.errors = errors


def normalize(value: Decimal) -> Decimal:
    """Drop trailing zeros without switching to scientific notation (2.000 -> 2, 0.50 -> 0.5)."""
    if value == value.to_integral_value():
        return value.quantize(Decimal(1))
    return value.normalize()


def check_value(field: Field, value: int | Decimal | str | None) -> ValidationError | None:
    """Check one input. Strings are parsed in the C locale ("0.5")."""
    limits = LIMITS[field]
    problem = check(limits, value)
    return None if problem is None else ValidationError(field, problem, limits)


def validate(values: dict[Field, int | Decimal | str | None]) -> BatchInputs:
    """Turn raw values (one per field, possibly missing) into checked ``BatchInputs``.

    Raises ``InvalidInputs`` listing every field that is missing or out of range,
    in the window's order.
    """
    errors = [e for f in Field if (e := check_value(f, values.get(f))) is not None]
    if errors:
        raise InvalidInputs(errors)

    def number(field: Field) -> Decimal:
        raw = values[field]
        return raw if isinstance(raw, Decimal) else Decimal(str(raw).strip())

    return BatchInputs(
        micro_batch=int(number(Field.MICRO_BATCH)),
        accumulation_steps=int(number(Field.ACCUMULATION_STEPS)),
        gpus=int(number(Field.GPUS)),
        activation_gb=normalize(number(Field.ACTIVATION_GB)),
    )


def compute(inputs: BatchInputs) -> BatchResult:
    """E = b·a·g and M = b·A, exactly."""
    b, a, g = inputs.micro_batch, inputs.accumulation_steps, inputs.gpus
    return BatchResult(
        inputs=inputs,
        effective_batch=b * a * g,
        activation_per_gpu_gb=normalize(b * inputs.activation_gb),
        samples_per_gpu_per_step=b * a,
        micro_batches_per_step=a,
    )


class WorkedExample(NamedTuple):
    """The seed's worked example, recomputed from the user's inputs."""

    result: BatchResult
    # the same configuration spread over more data-parallel GPUs
    data_parallel: BatchResult


def worked_example(inputs: BatchInputs) -> WorkedExample:
    scaled = inputs.replace(gpus=inputs.gpus * DATA_PARALLEL_EXAMPLE_FACTOR)
    return WorkedExample(result=compute(inputs), data_parallel=compute(scaled))
