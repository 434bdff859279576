"""The planner's time per step: what the pairs table and the "Time per step" card say."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gradacc_desktop.core.compute import Recompute, token_cost
from gradacc_desktop.core.gpus import TrainingPrecision, load_gpu_table
from gradacc_desktop.core.layout import ParallelLayout
from gradacc_desktop.core.models import model_size
from gradacc_desktop.core.setup import Precision
from gradacc_desktop.core.steptime import StepModel, Workload, hardware
from gradacc_desktop.viewmodels.planner import PlanField, PlannerViewModel, PlanView, TimeView
from tests.planner_setup import planner


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def view(vm: PlannerViewModel) -> PlanView:
    results = vm.state.results
    assert results is not None
    return results


def time(vm: PlannerViewModel) -> TimeView:
    card = view(vm).time
    assert card is not None
    return card


def timed(vm: PlannerViewModel, model: str = "llama-3.1-8b", seq: str = "4096") -> None:
    vm.set_model(model)
    vm.set_text(PlanField.SEQ_LEN, seq)


def test_without_a_model_the_card_says_where_to_choose_one(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    card = time(vm)
    assert not card.available
    assert "Trainer configs" in card.message and "Time and cost" in card.message
    assert all(row.cells[5:] == ("—", "—") for row in view(vm).pairs)
    vm.set_model("llama-3.1-8b")
    assert time(vm).message.startswith("Type the sequence length")


def test_every_pair_gets_its_time_and_the_card_its_figures(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm)
    card = time(vm)
    assert card.available, card.message
    assert "per optimizer step" in card.summary and "tokens/s" in card.summary
    assert card.utilisation.startswith("MFU ") and "of 312 TFLOP/s per GPU" in card.utilisation
    assert card.layout == "World size 8 = 8 data-parallel × 1 tensor × 1 pipeline"
    rows = view(vm).pairs
    assert all(row.cells[5].endswith(" s") and row.cells[6] != "—" for row in rows)
    # the figures are the core's, for the pair in use
    config = view(vm).configuration
    assert config is not None
    size = model_size("llama-3.1-8b")
    hw = hardware(load_gpu_table().by_id("a100-80gb"), TrainingPrecision.BF16, 8)
    workload = Workload(
        token_cost(size.compute_params, size.shape, 4096),
        4096,
        ParallelLayout(8),
        hidden=size.hidden,
        layers=size.layers,
        activation_bytes_per_sample=2 * 10**9,
    )
    step = StepModel(workload, hw).time(config.micro_batch, config.accumulation_steps)
    row = next(r for r in rows if r.current)
    from gradacc_desktop.core.compute import significant

    assert row.cells[5] == f"{significant(step.step_seconds, 3)} s"


def test_a_pipeline_prefers_many_micro_batches_and_offers_the_pair(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm, "llama-3-70b")
    vm.set_text(PlanField.TENSOR_PARALLEL, "8")
    vm.set_text(PlanField.PIPELINE_STAGES, "4")
    vm.set_text(PlanField.NODES, "32")
    config = view(vm).configuration
    assert config is not None and config.accumulation_steps == 1  # memory picks b = 64
    card = time(vm)
    assert "pipeline bubble 75 %" in card.shares  # (4 - 1) / (1 + 4 - 1)
    assert card.fastest.startswith("Fastest pair that fits: 1 × 64")
    assert card.fastest_micro_batch == 1
    vm.choose_pair(card.fastest_micro_batch)
    config = view(vm).configuration
    assert config is not None and (config.micro_batch, config.accumulation_steps) == (1, 64)
    assert time(vm).fastest == "This is the fastest pair that fits and reaches this batch."
    assert time(vm).fastest_micro_batch is None


def test_tensor_parallelism_shares_the_activations(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.set_text(PlanField.OTHER_MEMORY, "60")
    largest = view(vm).fit.largest
    assert largest == "Largest micro-batch that fits: 10."  # (80 - 60) / 2
    vm.set_text(PlanField.TENSOR_PARALLEL, "4")
    assert view(vm).fit.largest == "Largest micro-batch that fits: 40."
    assert "split over 4 tensor-parallel GPUs" in view(vm).fit.usage


def test_the_run_totals_and_cost(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm)
    vm.set_text(PlanField.DATASET, "100000")
    vm.set_text(PlanField.TOKENS, "1000000000")
    vm.set_text(PlanField.PRICE, "2.5")
    run = time(vm).run
    assert len(run) == 2
    assert run[0].startswith("One epoch (196 steps): ")  # ceil(100000 / 512)
    assert run[1].startswith("1,000,000,000 tokens (477 steps): ")  # ceil(1e9 / 2 097 152)
    assert all("GPU-hours, cost " in line for line in run)


def test_efficiency_recompute_and_precision_change_the_time(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm, seq="8")  # tiny micro-steps are memory-bound
    vm.set_text(PlanField.SEQ_LEN, "4096")
    before = time(vm).summary
    vm.set_text(PlanField.EFFICIENCY, "30")  # half the card's 60 %
    assert time(vm).summary != before
    assert "compute at 30 % of the peak" in time(vm).note
    vm.set_recompute(Recompute.FULL)
    assert "HFU" in time(vm).utilisation
    vm.set_card("v100-32gb")
    assert time(vm).message == "NVIDIA V100 32GB cannot compute in bf16: choose another precision."
    vm.set_precision(Precision.FP16)
    assert time(vm).available
    vm.set_card("custom")
    assert time(vm).message.startswith("The custom card has no speed figures")


def test_a_refused_time_field_stops_only_the_time(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm)
    vm.set_text(PlanField.EFFICIENCY, "150")
    assert view(vm).configuration is not None  # the plan stands
    assert not time(vm).available and "efficiency" in time(vm).message.lower()
    vm.set_text(PlanField.EFFICIENCY, "")
    assert time(vm).available


def test_typed_parameters_without_a_model(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.set_text(PlanField.SEQ_LEN, "2048")
    vm.set_text(PlanField.MODEL_PARAMS, "7000000000")
    card = time(vm)
    assert card.available
    vm.set_text(PlanField.TENSOR_PARALLEL, "2")
    assert "not counted without the model's shape" in time(vm).note
    vm.set_model("gpt2")
    assert vm.shown_text(PlanField.MODEL_PARAMS) == "123,653,376"  # less the positions


def test_the_time_inputs_are_remembered(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm, "mixtral-8x7b")
    vm.set_text(PlanField.TENSOR_PARALLEL, "2")
    vm.set_text(PlanField.PIPELINE_STAGES, "2")
    vm.set_text(PlanField.EFFICIENCY, "42,5".replace(",", "."))
    vm.set_text(PlanField.PRICE, "1.75")
    vm.set_text(PlanField.TOKENS, "5000000")
    vm.set_recompute(Recompute.FULL)
    text = vm.remembered()
    again = planner()
    assert again.restore_remembered(text)
    assert again.model_name == "mixtral-8x7b" and again.recompute is Recompute.FULL
    assert again.value(PlanField.TENSOR_PARALLEL) == Decimal(2)
    assert again.value(PlanField.PIPELINE_STAGES) == Decimal(2)
    assert again.value(PlanField.EFFICIENCY) == Decimal("42.5")
    assert again.value(PlanField.PRICE) == Decimal("1.75")
    assert again.value(PlanField.TOKENS) == Decimal(5_000_000)
    assert time(again).summary == time(vm).summary


def test_portuguese_numbers(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = planner("pt_BR")
    timed(vm)
    card = time(vm)
    assert "por passo do otimizador" in card.summary
    assert "de 312 TFLOP/s por GPU" in card.utilisation
    assert all("," in row.cells[5] or row.cells[5].split()[0].isdigit() for row in view(vm).pairs)


def test_the_pairs_as_numbers_for_the_chart(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm, "llama-3-70b")
    vm.set_text(PlanField.TENSOR_PARALLEL, "8")
    vm.set_text(PlanField.PIPELINE_STAGES, "4")
    vm.set_text(PlanField.NODES, "32")
    results = view(vm)
    points = results.points
    assert [p.micro_batch for p in points] == [r.micro_batch for r in results.pairs]
    assert all(p.memory_gb == p.micro_batch * 2 / 8 + 20 for p in points)
    assert [p.micro_batch for p in points if p.fastest] == [1]
    assert [p.micro_batch for p in points if p.current] == [64]
    assert all(p.step_seconds is not None and p.step_seconds > 0 for p in points)
    assert results.capacity_gb == 80.0
    vm.set_model(None)  # no model: the points stay, without a time
    assert all(p.step_seconds is None for p in view(vm).points)


def test_several_epochs(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm)
    vm.set_text(PlanField.DATASET, "100000")
    one = time(vm).run[0]
    vm.set_text(PlanField.EPOCHS, "3")
    three = time(vm).run[0]
    assert three.startswith("3 epochs (588 steps): ")  # 3 x ceil(100000 / 512)
    assert one.startswith("One epoch (196 steps): ")
    vm.set_text(PlanField.EPOCHS, "0")
    assert not time(vm).available  # a refused time field stops only the time


def test_fields_the_time_does_not_read_never_stop_it(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm)
    # the catalogue card gives its own speed, the bundled model its own parameters
    vm.set_text(PlanField.CUSTOM_TFLOPS, "abc")
    vm.set_text(PlanField.MODEL_PARAMS, "0")
    assert time(vm).available
    vm.set_card("custom")  # now the custom speed is read, and refused
    assert not time(vm).available and "peak" in time(vm).message.lower()
