from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core import calculator as calc
from gradacc_desktop.core.calculator import (
    DEFAULTS,
    BatchInputs,
    EntryProblem,
    Field,
    InvalidInputs,
    compute,
    validate,
    worked_example,
)

ints = st.integers(min_value=1, max_value=1_000_000)
activations = st.decimals(
    min_value=Decimal("0.001"), max_value=Decimal(100_000), places=3, allow_nan=False
)
inputs_st = st.builds(BatchInputs, ints, ints, ints, activations)


def test_seed_worked_example() -> None:
    result = compute(DEFAULTS)
    assert result.effective_batch == 32
    assert result.activation_per_gpu_gb == Decimal(2)
    assert str(result.activation_per_gpu_gb) == "2"
    assert result.samples_per_gpu_per_step == 32


def test_seed_data_parallel_variant() -> None:
    example = worked_example(DEFAULTS)
    assert example.data_parallel.inputs.gpus == 4
    assert example.data_parallel.effective_batch == 128
    assert example.data_parallel.activation_per_gpu_gb == Decimal(2)


def test_decimal_is_exact() -> None:
    result = compute(BatchInputs(3, 1, 1, Decimal("0.1")))
    assert str(result.activation_per_gpu_gb) == "0.3"


def test_extremes_stay_exact() -> None:
    result = compute(BatchInputs(1_000_000, 1_000_000, 1_000_000, Decimal(100_000)))
    assert result.effective_batch == 10**18
    assert result.activation_per_gpu_gb == Decimal(10**11)


@pytest.mark.parametrize(
    ("field", "raw", "problem"),
    [
        (Field.MICRO_BATCH, None, EntryProblem.MISSING),
        (Field.MICRO_BATCH, "  ", EntryProblem.MISSING),
        (Field.MICRO_BATCH, "abc", EntryProblem.NOT_A_NUMBER),
        (Field.MICRO_BATCH, "NaN", EntryProblem.NOT_A_NUMBER),
        (Field.MICRO_BATCH, "inf", EntryProblem.NOT_A_NUMBER),
        (Field.MICRO_BATCH, "1.5", EntryProblem.NOT_AN_INTEGER),
        (Field.MICRO_BATCH, 0, EntryProblem.TOO_SMALL),
        (Field.ACCUMULATION_STEPS, -3, EntryProblem.TOO_SMALL),
        (Field.GPUS, 1_000_001, EntryProblem.TOO_LARGE),
        (Field.ACTIVATION_GB, "0", EntryProblem.TOO_SMALL),
        (Field.ACTIVATION_GB, "0.0001", EntryProblem.TOO_SMALL),
        (Field.ACTIVATION_GB, "0.1234", EntryProblem.TOO_PRECISE),
        (Field.ACTIVATION_GB, "100000.001", EntryProblem.TOO_LARGE),
        (Field.ACTIVATION_GB, True, EntryProblem.NOT_A_NUMBER),
    ],
)
def test_validation_names_field_and_problem(
    field: Field, raw: object, problem: EntryProblem
) -> None:
    values: dict[Field, object] = {f: DEFAULTS.value(f) for f in Field}
    values[field] = raw
    with pytest.raises(InvalidInputs) as info:
        validate(values)  # type: ignore[arg-type]
    assert [(e.field, e.problem) for e in info.value.errors] == [(field, problem)]


def test_validation_reports_every_bad_field_in_window_order() -> None:
    with pytest.raises(InvalidInputs) as info:
        validate({Field.GPUS: 0, Field.MICRO_BATCH: None})
    assert [e.field for e in info.value.errors] == list(Field)


def test_validate_accepts_strings_and_normalises() -> None:
    inputs = validate(
        {
            Field.MICRO_BATCH: "4",
            Field.ACCUMULATION_STEPS: 8,
            Field.GPUS: Decimal("1.000"),
            Field.ACTIVATION_GB: "0.500",
        }
    )
    assert inputs == DEFAULTS
    assert str(inputs.activation_gb) == "0.5"


@given(inputs_st)
def test_effective_batch_is_the_product(inputs: BatchInputs) -> None:
    r = compute(inputs)
    assert r.effective_batch == inputs.micro_batch * inputs.accumulation_steps * inputs.gpus
    assert r.samples_per_gpu_per_step * inputs.gpus == r.effective_batch


@given(inputs_st, st.integers(min_value=1, max_value=1000), st.sampled_from(list(Field)[:3]))
def test_effective_batch_is_multiplicative_in_each_input(
    inputs: BatchInputs, k: int, field: Field
) -> None:
    scaled = inputs.replace(**{field.value: int(inputs.value(field)) * k})
    assert compute(scaled).effective_batch == k * compute(inputs).effective_batch


@given(inputs_st)
def test_doubling_accumulation_doubles_batch_and_keeps_memory(inputs: BatchInputs) -> None:
    doubled = inputs.replace(accumulation_steps=inputs.accumulation_steps * 2)
    assert compute(doubled).effective_batch == 2 * compute(inputs).effective_batch
    assert compute(doubled).activation_per_gpu_gb == compute(inputs).activation_per_gpu_gb


@given(inputs_st, st.integers(min_value=1, max_value=10_000))
def test_adding_gpus_never_changes_memory(inputs: BatchInputs, extra: int) -> None:
    more = inputs.replace(gpus=inputs.gpus + extra)
    assert compute(more).activation_per_gpu_gb == compute(inputs).activation_per_gpu_gb
    assert compute(more).effective_batch > compute(inputs).effective_batch


@given(inputs_st)
def test_results_are_positive_and_exact(inputs: BatchInputs) -> None:
    r = compute(inputs)
    assert isinstance(r.effective_batch, int)
    assert r.effective_batch >= 1
    assert isinstance(r.activation_per_gpu_gb, Decimal)
    assert r.activation_per_gpu_gb > 0
    # exact: b·A has at most the input's decimal places, and equals the true product
    assert r.activation_per_gpu_gb == inputs.activation_gb * inputs.micro_batch
    assert -r.activation_per_gpu_gb.as_tuple().exponent <= calc.ACTIVATION_DECIMALS  # type: ignore[operator]
    assert "E" not in str(r.activation_per_gpu_gb)


@given(inputs_st)
def test_valid_inputs_round_trip_through_validation(inputs: BatchInputs) -> None:
    raw = {f: str(inputs.value(f)) for f in Field}
    assert validate(raw) == inputs  # type: ignore[arg-type]
