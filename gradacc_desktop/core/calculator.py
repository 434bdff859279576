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
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

# Decimal places accepted for "activation per sample" (GB).
ACTIVATION_DECIMALS = 3
_ACTIVATION_QUANTUM = Decimal(1).scaleb(-ACTIVATION_DECIMALS)

# GPUs in the seed's data-parallel variant of the worked example, per GPU of the input.
DATA_PARALLEL_EXAMPLE_FACTOR = 4


class Field(enum.Enum):
    """The calculator's four inputs, in the order the window shows them."""

    MICRO_BATCH = "micro_batch"
    ACCUMULATION_STEPS = "accumulation_steps"
    GPUS = "gpus"
    ACTIVATION_GB = "activation_gb"


@dataclass(frozen=True)
class Limits:
    minimum: Decimal
    maximum: Decimal
    integer: bool


# Accepted ranges. Integers reach beyond any real cluster; activation reaches 10 000 GB.
LIMITS: dict[Field, Limits] = {
    Field.MICRO_BATCH: Limits(Decimal(1), Decimal(1_000_000), integer=True),
    Field.ACCUMULATION_STEPS: Limits(Decimal(1), Decimal(1_000_000), integer=True),
    Field.GPUS: Limits(Decimal(1), Decimal(1_000_000), integer=True),
    Field.ACTIVATION_GB: Limits(_ACTIVATION_QUANTUM, Decimal(100_000), integer=False),
}


@dataclass(frozen=True)
class Inputs:
    micro_batch: int
    accumulation_steps: int
    gpus: int
    activation_gb: Decimal

    def value(self, field: Field) -> int | Decimal:
        return getattr(self, field.value)  # type: ignore[no-any-return]

    def replace(self, **changes: int | Decimal) -> Inputs:
        values = {f.value: self.value(f) for f in Field}
        values.update(changes)
        return Inputs(**values)  # type: ignore[arg-type]


# The seed's defaults: 4 samples, 8 steps, 1 GPU, 0.5 GB per sample.
DEFAULTS = Inputs(micro_batch=4, accumulation_steps=8, gpus=1, activation_gb=Decimal("0.5"))


@dataclass(frozen=True)
class Result:
    inputs: Inputs
    # E = b * a * g
    effective_batch: int
    # M = b * A, in GB, exact
    activation_per_gpu_gb: Decimal
    # b * a: samples each GPU processes per optimizer step
    samples_per_gpu_per_step: int
    # micro-batches (forward + backward passes) each GPU runs per optimizer step
    micro_batches_per_step: int


class Problem(enum.Enum):
    MISSING = "missing"
    NOT_A_NUMBER = "not_a_number"
    NOT_AN_INTEGER = "not_an_integer"
    TOO_SMALL = "too_small"
    TOO_LARGE = "too_large"
    TOO_PRECISE = "too_precise"


@dataclass(frozen=True)
class ValidationError:
    field: Field
    problem: Problem
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
    if value is None or (isinstance(value, str) and not value.strip()):
        return ValidationError(field, Problem.MISSING, limits)
    if isinstance(value, bool):
        return ValidationError(field, Problem.NOT_A_NUMBER, limits)
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except InvalidOperation:
        return ValidationError(field, Problem.NOT_A_NUMBER, limits)
    if not number.is_finite():
        return ValidationError(field, Problem.NOT_A_NUMBER, limits)
    if limits.integer and number != number.to_integral_value():
        return ValidationError(field, Problem.NOT_AN_INTEGER, limits)
    if number < limits.minimum:
        return ValidationError(field, Problem.TOO_SMALL, limits)
    if number > limits.maximum:
        return ValidationError(field, Problem.TOO_LARGE, limits)
    if not limits.integer and number.quantize(_ACTIVATION_QUANTUM) != number:
        return ValidationError(field, Problem.TOO_PRECISE, limits)
    return None


def validate(values: dict[Field, int | Decimal | str | None]) -> Inputs:
    """Turn raw values (one per field, possibly missing) into checked ``Inputs``.

    Raises ``InvalidInputs`` listing every field that is missing or out of range,
    in the window's order.
    """
    errors = [e for f in Field if (e := check_value(f, values.get(f))) is not None]
    if errors:
        raise InvalidInputs(errors)

    def number(field: Field) -> Decimal:
        raw = values[field]
        return raw if isinstance(raw, Decimal) else Decimal(str(raw).strip())

    return Inputs(
        micro_batch=int(number(Field.MICRO_BATCH)),
        accumulation_steps=int(number(Field.ACCUMULATION_STEPS)),
        gpus=int(number(Field.GPUS)),
        activation_gb=normalize(number(Field.ACTIVATION_GB)),
    )


def compute(inputs: Inputs) -> Result:
    """E = b·a·g and M = b·A, exactly."""
    b, a, g = inputs.micro_batch, inputs.accumulation_steps, inputs.gpus
    return Result(
        inputs=inputs,
        effective_batch=b * a * g,
        activation_per_gpu_gb=normalize(b * inputs.activation_gb),
        samples_per_gpu_per_step=b * a,
        micro_batches_per_step=a,
    )


@dataclass(frozen=True)
class WorkedExample:
    """The seed's worked example, recomputed from the user's inputs."""

    result: Result
    # the same configuration spread over more data-parallel GPUs
    data_parallel: Result


def worked_example(inputs: Inputs) -> WorkedExample:
    scaled = inputs.replace(gpus=inputs.gpus * DATA_PARALLEL_EXAMPLE_FACTOR)
    return WorkedExample(result=compute(inputs), data_parallel=compute(scaled))
