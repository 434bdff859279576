"""The planner's time per step: what the pairs table and the "Time per step" card say."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.memory.setup import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.viewmodels.planner import CostView, PlannerViewModel, PlanView, TimeView
from gradacc_desktop.viewmodels.training.fields import NO_MODEL, PARAMS_MODEL, Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from tests.planner_setup import activation_share_gb, pipeline, planner, timed, write_profile


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def view(vm: PlannerViewModel) -> PlanView:
    results = vm.state.results
    assert results is not None, vm.state.problems
    return results


def time(vm: PlannerViewModel) -> TimeView:
    card = view(vm).time
    assert card is not None
    return card


def _number(text: str) -> Decimal:
    """An English figure as shown ("29,000", "72.2 s")."""
    return Decimal(text.split()[0].replace(",", ""))


def test_without_a_model_the_card_says_where_to_choose_one(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    card = time(vm)
    assert not card.available
    assert card.message == "Choose the model in the training description to see the time per step."
    assert all(row.cells[5:] == ("—", "—") for row in view(vm).pairs)
    # a bundled model chosen while the length is empty brings its own context
    vm.training.set_choice(Choice.MODEL, "llama-3.1-8b")
    assert vm.training.shown_text(F.SEQ_LEN) == "4,096"
    assert time(vm).available
    vm.training.set_text(F.SEQ_LEN, "")
    assert time(vm).message == (
        "Type the sequence length in the training description to see the time."
    )


def test_every_pair_gets_its_time_and_the_card_its_figures(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    card = time(vm)
    assert card.available, card.message
    # an A100's dense bf16 peak is 312 TFLOP/s (NVIDIA's datasheet)
    assert card.utilisation.startswith("MFU ") and card.utilisation.endswith(
        " of 312 TFLOP/s per GPU"
    )
    assert card.layout == "World size 8 = 8 data-parallel × 1 tensor × 1 pipeline"
    assert card.note.startswith("The kernels' efficiency is modelled from the model's shape: ")
    assert (
        "the attention kernel" in card.note
        and "docs/" not in card.note
        and "Without the model's shape" not in card.note
    )
    rows = view(vm).pairs
    assert all(row.cells[5].endswith(" s") and row.cells[6] != "—" for row in rows)
    # the card times the pair in use, as its row does
    row = next(r for r in rows if r.current)
    assert card.summary.startswith(f"{row.cells[5]} per optimizer step · {row.cells[6]} tokens/s")
    # one step trains 512 × 4,096 tokens: the time and the rate shown agree to their digits
    step, rate = _number(row.cells[5]), _number(row.cells[6])
    assert abs(step * rate / (512 * 4096) - 1) < Decimal("0.01")


def test_a_pipeline_prefers_many_micro_batches_and_offers_the_pair(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    config = view(vm).configuration
    assert config is not None and config.accumulation_steps == 1  # memory picks b = 64
    card = time(vm)
    # about (4 − 1) of the (1 + 4 − 1) micro-step slots idle (the last stage, with the
    # output layer, is a little slower than the others); the optimizer's update is the rest
    assert 73 <= _bubble(card) <= 75
    assert card.layout == "World size 256 = 8 data-parallel × 8 tensor × 4 pipeline"
    assert card.fastest.startswith("Fastest pair that fits: 2 × 32 — ")
    assert card.fastest_micro_batch == 2
    # why it is faster: its bubble is 3 micro-steps of 2 samples, not 3 of 64
    found = re.fullmatch(r"2 × 32 is ([\d.]+) % faster: (.+)\.", card.difference)
    assert found is not None, card.difference
    assert found.group(2).startswith("pipeline bubble −")
    assert Decimal(found.group(1)) > 50
    assert vm.use_fastest()
    config = view(vm).configuration
    assert config is not None and (config.micro_batch, config.accumulation_steps) == (2, 32)
    card = time(vm)
    # about 3 / (32 + 3) of the step (the last stage, with the output layer, a little
    # slower than the others)
    assert 8 <= _bubble(card) <= Decimal("8.6")
    assert card.fastest == "This is the fastest pair that fits and reaches this batch."
    assert card.fastest_micro_batch is None and card.difference == ""


def _bubble(card: TimeView) -> Decimal:
    """The pipeline bubble's share of the step, as the card says it (in %)."""
    found = re.search(r"pipeline bubble ([\d.]+) %", card.shares)
    assert found is not None, card.shares
    bubble = next(part for part in card.parts if part.key == "bubble")
    assert bubble.share == f"{found.group(1)} %"  # the breakdown says the same
    return Decimal(found.group(1))


def test_without_a_time_there_is_no_fastest_pair_to_use(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    assert not vm.use_fastest()
    config = view(vm).configuration
    assert config is not None and config.recommended  # nothing changed


def test_tensor_parallelism_shares_the_activations(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(F.OTHER_MEMORY, "60")
    assert view(vm).fit.largest == "Largest micro-batch that fits: 10."  # (80 − 60) / 2
    vm.training.set_text(F.TENSOR_PARALLEL, "4")
    assert view(vm).fit.largest == "Largest micro-batch that fits: 40."  # (80 − 60) / (2/4)
    assert "each of the 4 tensor-parallel GPUs keeps its share" in view(vm).fit.usage


def cost(vm: PlannerViewModel) -> CostView:
    card = view(vm).cost
    assert card is not None
    return card


def test_the_run_totals_and_cost(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    vm.training.set_text(F.DATASET, "100000")
    vm.training.set_text(F.TOKENS, "1000000000")
    vm.training.set_text(F.PRICE, "2.5")
    card = cost(vm)
    assert [line.trained for line in card.lines] == [
        "1 epoch of 100,000 samples · 196 optimizer steps",  # ceil(100000 / 512)
        "1,000,000,000 tokens · 477 optimizer steps",  # ceil(1e9 / 2 097 152)
    ]
    assert card.price == "US$2.50" and card.missing == ""
    for line in card.lines:
        # "3.93 h", "31.4 (8 GPUs)", "US$78.61": 8 GPUs for the hours, at 2.5 each
        assert line.time.endswith(" h") and line.gpu_hours.endswith(" (8 GPUs)"), line
        assert re.fullmatch(r"US\$[\d,]+\.\d\d", line.total), line.total
        hours, gpu_hours = _number(line.time), _number(line.gpu_hours)
        total = Decimal(line.total.removeprefix("US$").replace(",", ""))
        assert abs(hours * 8 / gpu_hours - 1) < Decimal("0.01")
        assert abs(total / Decimal("2.5") - gpu_hours) <= Decimal("0.05")
    # the time card no longer repeats them
    assert not any("GPU-hours" in text for text in vars(time(vm)).values() if isinstance(text, str))


def test_several_epochs(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    vm.training.set_text(F.DATASET, "100000")
    assert cost(vm).lines[0].trained == "1 epoch of 100,000 samples · 196 optimizer steps"
    vm.training.set_text(F.EPOCHS, "3")
    # 3 × ceil(100000 / 512)
    assert cost(vm).lines[0].trained == "3 epochs of 100,000 samples · 588 optimizer steps"
    # no price given: no total, and the card says what to type
    assert cost(vm).lines[0].total == "" and cost(vm).price == ""
    assert cost(vm).missing == (
        "No total without the price: type the “Price per GPU-hour” in the training description."
    )


def test_the_cost_card_says_what_is_missing(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    assert cost(vm).lines == () and cost(vm).missing.startswith(
        "No run time or cost without a time per step. "
    )
    timed(vm.training)
    vm.training.set_text(F.PRICE, "2.5")
    assert cost(vm).lines == () and cost(vm).price == "US$2.50"
    assert cost(vm).missing == (
        "Type the “Token budget”, or the “Dataset size” (and “How many epochs”), in the "
        "training description to see the run's time and cost."
    )


def test_efficiency_recompute_and_precision_change_the_time(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    assert training.placeholder(F.EFFICIENCY) == "modelled from the model's shape"
    modelled = _number(time(vm).summary)
    training.set_text(F.EFFICIENCY, "60")
    assert time(vm).note.startswith(
        "The typed efficiency applies: every kernel at 60 % of the peak"
    )
    before = _number(time(vm).summary)
    assert before != modelled  # one typed share instead of the efficiency model
    training.set_text(F.EFFICIENCY, "30")  # half the share: about twice the compute time
    assert time(vm).note.startswith("The typed efficiency applies: every kernel at 30 %")
    assert abs(_number(time(vm).summary) / before - 2) < Decimal("0.1")
    training.set_text(F.EFFICIENCY, "")
    assert _number(time(vm).summary) == modelled
    training.set_choice(Choice.RECOMPUTE, Recompute.FULL)
    # full recomputation runs the forward twice: hardware FLOPs are 8/6 of the model's
    mfu, hfu = (Decimal(part.split()[1]) for part in time(vm).utilisation.split(" · "))
    assert abs(hfu / mfu - Decimal(4) / 3) < Decimal("0.01")
    training.set_choice(Choice.CARD, "v100-32gb")  # Volta has no bf16
    assert time(vm).message == (
        "NVIDIA V100 SXM2 32GB cannot compute in bf16: choose another precision."
    )
    training.set_choice(Choice.PRECISION, Precision.FP16)
    assert time(vm).available
    training.set_choice(Choice.CARD, "custom")
    assert time(vm).message.startswith("The custom card has no speed figures")


def test_a_custom_cards_speed_times_the_pairs(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    training.set_choice(Choice.CARD, "custom")
    assert training.editable(F.CUSTOM_TFLOPS) and training.editable(F.GPU_MEMORY)
    assert training.shown_text(F.GPU_MEMORY) == "24 GB"
    for field, text in (
        (F.CUSTOM_TFLOPS, "312"),
        (F.CUSTOM_BANDWIDTH, "2039"),
        (F.CUSTOM_LINK, "300"),
        (F.CUSTOM_NETWORK, "25"),
    ):
        training.set_text(field, text)
    card = time(vm)
    assert card.available and card.utilisation.endswith(" of 312 TFLOP/s per GPU")
    assert view(vm).capacity_gb == 24.0


def test_a_refused_run_entry_is_left_out_and_said(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    training.set_text(F.EFFICIENCY, "150")
    assert view(vm).configuration is not None  # the plan stands
    assert time(vm).available
    assert time(vm).note.startswith("The kernels' efficiency is modelled from the model's shape")
    assert training.state.problems == ()
    assert training.state.run_problems == ("GPU efficiency (%): enter a value from 0.1 to 100.",)
    training.set_text(F.EFFICIENCY, "")
    assert training.state.run_problems == ()


def test_typed_parameters_without_a_model(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    training.set_choice(Choice.MODEL, PARAMS_MODEL)
    assert training.editable(F.MODEL_PARAMS)
    training.set_text(F.SEQ_LEN, "2048")
    training.set_text(F.MODEL_PARAMS, "7000000000")
    card = time(vm)
    assert card.available
    # a bare count: what the time leaves out, said (8 data-parallel GPUs, no tensor split)
    assert card.note.endswith(
        "Without the model's shape the time leaves out the attention FLOPs, the products' "
        "width, the memory-bound work and the host's work per layer, how much data-parallel "
        "traffic hides behind each layer: choose a bundled model or open its config.json."
    )
    assert "tensor-parallel" not in card.note
    assert [part.key for part in card.parts if part.key in ("attention", "overhead")] == []
    training.set_text(F.TENSOR_PARALLEL, "2")
    assert ", the tensor-parallel communication, " in time(vm).note
    training.set_choice(Choice.MODEL, "gpt2")
    assert "Without the model's shape" not in time(vm).note
    assert not training.editable(F.MODEL_PARAMS)
    assert training.shown_text(F.MODEL_PARAMS) == "124,439,808"  # GPT-2 small, exactly


def test_a_measured_profile_replaces_the_roofline(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    assert training.profile_summary() == (
        "Micro-steps: estimated by the efficiency model (no measured profile)."
    )
    outcome = training.load_profile(write_profile(tmp_path / "a100.json"))
    assert outcome.ok and outcome.message == "Speed profile “a100.json” in use."
    assert training.profile_summary() == (
        "Micro-steps measured on cuda:0 (NVIDIA A100-SXM4-80GB): Llama-3.1-8B, sequence "
        "4,096, micro-batches 1–8."
    )
    assert time(vm).note.startswith(
        "Micro-steps measured on cuda:0 (NVIDIA A100-SXM4-80GB) (Llama-3.1-8B)"
    )
    vm.choose_pair(16)  # outside the measured 1–8
    assert "Micro-batch 16 is outside the measured 1–8: extrapolated." in time(vm).note
    remembered = training.remembered_profile()
    assert remembered is not None
    training.clear_profile()
    assert training.profile is None
    assert time(vm).note.startswith("The kernels' efficiency is modelled")
    assert training.restore_profile(remembered) and training.profile is not None
    assert not training.restore_profile("{")


def test_a_profile_measured_in_another_precision_warns(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    assert vm.training.load_profile(write_profile(tmp_path / "p.json")).ok
    assert "Warning" not in time(vm).note
    vm.training.set_choice(Choice.PRECISION, Precision.FP16)
    assert "Warning: measured in bf16, planned in fp16." in time(vm).note


def test_a_file_that_is_not_a_profile_changes_nothing(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    before = vm.state
    path = tmp_path / "notes.json"
    path.write_text("[]", encoding="utf-8")
    outcome = vm.training.load_profile(path)
    assert not outcome.ok
    assert outcome.message.startswith("“notes.json” is not a speed profile this app can read: ")
    assert vm.training.profile is None and vm.state == before


def test_portuguese_numbers(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = planner("pt_BR")
    timed(vm.training)
    card = time(vm)
    assert "por passo do otimizador" in card.summary
    assert card.utilisation.endswith(" de 312 TFLOP/s por GPU")
    rows = view(vm).pairs
    # "7,62 s" and "29.000": a decimal comma, a dot between thousands
    assert all(r.cells[5].endswith(" s") and "." not in r.cells[5] for r in rows)
    assert any("," in r.cells[5] for r in rows)
    assert all("." in r.cells[6] and "," not in r.cells[6] for r in rows if len(r.cells[6]) > 3)


def test_the_pairs_as_numbers_for_the_chart(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    results = view(vm)
    points = results.points
    assert [p.micro_batch for p in points] == [r.micro_batch for r in results.pairs]
    # 2 GB per sample typed: the first stage's share of it split over 8 tensor-parallel
    # GPUs (less than 2/8: the logits sit on the last stage; FSDP2's allocator reserves
    # 10 % on top), on top of the 20 GB typed
    share = activation_share_gb(vm.training)
    assert share < 2 / 8 * 1.1
    assert all(abs(p.memory_gb - (p.micro_batch * share + 20)) < 1e-6 for p in points)
    assert [p.micro_batch for p in points if p.fastest] == [2]
    assert [p.micro_batch for p in points if p.current] == [64]
    assert all(p.step_seconds is not None and p.step_seconds > 0 for p in points)
    assert [p.cells for p in points] == [r.cells for r in results.pairs]
    assert results.capacity_gb == 80.0
    vm.training.set_choice(Choice.MODEL, NO_MODEL)  # no model: the points stay, untimed
    assert all(p.step_seconds is None for p in view(vm).points)


def test_fields_the_time_does_not_read_never_stop_it(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    # a bundled model gives its own parameters: the parameter field is not read
    training.set_text(F.MODEL_PARAMS, "0")
    assert training.state.problems == () and time(vm).available
    assert training.shown_text(F.MODEL_PARAMS) == "8,030,261,248"
    # a catalogue card gives its own memory: the custom card's memory is not read
    training.set_text(F.GPU_MEMORY, "lots")
    assert training.state.problems == () and time(vm).available
    assert training.shown_text(F.GPU_MEMORY) == "80 GB"
    training.set_choice(Choice.CARD, "custom")  # now it is read, and refused
    assert vm.state.results is None
    assert vm.state.problems == ("Usable memory per GPU: “lots” is not a number.",)


def test_lengths_in_messages_are_grouped_as_numbers(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("pt_BR"))
    vm.set_choice(Choice.MODEL, "gpt2")
    vm.set_text(F.SEQ_LEN, "4096")  # GPT-2's learned positions stop at 1 024
    assert "1.024 tokens" in vm.state.notes.activation.text
