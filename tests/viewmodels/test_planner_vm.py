"""The planner's view-model: the training description's plan in words — the
configuration, the memory verdict, the frameworks' checks, the extras, the pairs table —
and the planner's buttons (a pair, the calculator, a change that would fit)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import format_approx
from gradacc_desktop.viewmodels.planner import (
    ConfigurationView,
    PlannerState,
    PlannerViewModel,
    PlanView,
)
from gradacc_desktop.viewmodels.training import model as training_model
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from tests.planner_setup import one_gpu_llama, planner


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _solve(vm: PlannerViewModel, target: str, gpus: str, micro: str) -> None:
    """The user's own micro-batch (not the recommended one) for ``target`` on ``gpus``."""
    training = vm.training
    training.set_choice(Choice.RECOMMEND, False)
    training.set_text(TrainingField.TARGET, target)
    training.set_text(TrainingField.GPUS, gpus)
    training.set_text(TrainingField.MICRO_BATCH, micro)


def _results(vm: PlannerViewModel) -> PlanView:
    results = vm.state.results
    assert results is not None, vm.state.problems
    return results


def _configuration(vm: PlannerViewModel) -> ConfigurationView:
    config = vm.configuration()
    assert config is not None
    return config


def test_solve_exact(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "512", "8", "4")
    view = _results(vm)
    config = _configuration(vm)
    assert (config.micro_batch, config.accumulation_steps) == (4, 16)
    assert config.title == "Your configuration" and not config.recommended
    assert config.formula == "E = 4 × 16 × 8 = 512"
    assert config.exact and config.exact_badge == "Exact"
    assert config.difference == "Exactly the target of 512."
    assert config.note == ""  # only a recommendation says why it was chosen
    assert "b\u00a0=\u00a08\u00a0→\u00a0a\u00a0=\u00a08" in config.exact_pairs
    assert view.deepspeed is not None and view.deepspeed.ok and view.deepspeed.megatron_ok
    assert [row.micro_batch for row in view.pairs if row.current] == [4]


@pytest.mark.parametrize(
    ("rounding", "steps", "difference"),
    [
        (Rounding.CEIL, 17, "2 samples above the target of 100."),
        (Rounding.FLOOR, 16, "4 samples below the target of 100."),
        (Rounding.NEAREST, 17, "2 samples above the target of 100."),
    ],
)
def test_rounding_modes(qapp, rounding: Rounding, steps: int, difference: str) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "100", "2", "3")
    vm.training.set_choice(Choice.ROUNDING, rounding)
    config = _configuration(vm)
    assert config.accumulation_steps == steps
    assert config.difference == difference
    assert config.exact_badge == "Not exact"
    assert config.reachable == (
        "With micro-batch 3 on 2 GPUs, the nearest batches reached exactly are 96 (below) "
        "and 102 (above)."
    )
    deepspeed = _results(vm).deepspeed
    assert deepspeed is not None and not deepspeed.ok
    assert deepspeed.verdict == "DeepSpeed would refuse to start"
    # the core's sentence (what gradacc plan prints), then the advice with this pair's batch
    product = 3 * steps * 2
    assert deepspeed.explanation.startswith(
        f"DeepSpeed refuses train_batch_size 100: 3 (micro-batch) x {steps} (accumulation "
        f"steps) x 2 GPU(s) = {product}. Give it train_batch_size {product} "
    )


def test_no_exact_micro_batch_when_gpus_do_not_divide(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "10", "3", "1")
    config = _configuration(vm)
    assert config.exact_pairs == ""
    assert config.exact_pairs_title == (
        "No micro-batch reaches 10 exactly on 3 GPUs: the target is not a multiple of the "
        "number of GPUs."
    )


def test_many_exact_pairs_are_shortened(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "720720", "1", "1")
    config = _configuration(vm)
    # 720 720 = 2⁴·3²·5·7·11·13 has 5·3·2·2·2·2 = 240 divisors: 12 shown, 228 more
    assert config.exact_pairs.count("→") == 12
    assert config.exact_pairs.endswith("…and 228 more")


def test_recommendation_and_fit(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.ACTIVATION, "0.5")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "17")
    view = _results(vm)
    config = _configuration(vm)
    assert config.title == "Recommended configuration" and config.recommended
    # (80 − 17) / 0.5 = 126 samples fit; 64 is the largest that reaches 512 exactly on 8
    assert (config.micro_batch, config.accumulation_steps) == (64, 1)
    assert config.note == "The largest micro-batch that fits and reaches the target exactly."
    assert view.fit.fits and view.fit.verdict == "Fits in GPU memory"
    assert view.fit.usage == (
        "Activations 64 × 0.5 GB = 32 GB, plus 17 GB of other memory: 49 GB of 80 GB."
    )
    assert view.fit.headroom == "Headroom: 31 GB free."
    assert view.fit.largest == "Largest micro-batch that fits: 126."
    assert [row.micro_batch for row in view.pairs if row.current] == [64]
    assert all(row.fits for row in view.pairs)
    assert view.capacity_gb == 80.0


def test_pairs_that_do_not_fit_are_marked(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()  # 2 GB per sample, 20 GB other memory: (80 − 20) / 2 = 30 fit
    rows = {row.micro_batch: row for row in _results(vm).pairs}
    assert rows[30].fits and rows[30].cells[3] == "Yes"
    assert not rows[32].fits and rows[32].cells[3] == "No"
    assert rows[30].cells[2] == "720 (+208)" and not rows[30].accepted  # 30 × 3 × 8
    assert rows[30].cells[4] == "Refused"
    assert rows[16].cells[2] == "512 (exact)" and rows[16].cells[4] == "Both accept"
    # the recommendation is the largest that fits *and* reaches 512 exactly
    assert [b for b, row in rows.items() if row.current] == [16]


def test_nothing_fits_with_typed_figures(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_choice(Choice.CARD, "t4-16gb")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "14.8")
    vm.training.set_text(TrainingField.ACTIVATION, "0.5")
    view = _results(vm)
    assert view.configuration is None and view.deepspeed is None
    nothing = view.nothing_fits
    assert nothing is not None
    assert nothing.message == (
        "Nothing fits: even one sample needs 15.3 GB (0.5 GB of activations + 14.8 GB of "
        "other memory), 0.3 GB more than the 15 GB this GPU has."
    )
    assert view.fit.fits is False and view.fit.largest == "Not even a micro-batch of 1 fits."
    assert view.fit.headroom == "Over capacity by 0.3 GB."
    assert all(row.fits is False for row in view.pairs)
    assert vm.use_configuration() is None
    text = vm.clipboard_text()
    assert text is not None and nothing.message in text.splitlines()


def test_a_change_that_would_fit_is_applied(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = PlannerViewModel(one_gpu_llama(), CalculatorViewModel(QLocale("en")))
    nothing = _results(vm).nothing_fits
    assert nothing is not None and nothing.suggestions
    assert nothing.suggestions_title == "It would fit with one change:"
    message = vm.use_alternative(0)
    assert message == f"Training description changed: {nothing.suggestions[0]}"
    view = _results(vm)
    assert view.nothing_fits is None and view.fit.fits is True
    assert vm.training.choice(Choice.MODEL) == "llama-3.1-8b"  # the model stays
    assert vm.use_alternative(99) is None


def test_use_configuration_fills_the_calculator(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "512", "8", "4")
    message = vm.use_configuration()
    assert message == "Configuration sent to the calculator: E = 4 × 16 × 8 = 512."
    inputs = vm.calculator.inputs
    assert inputs is not None
    assert (inputs.micro_batch, inputs.accumulation_steps, inputs.gpus) == (4, 16, 8)
    assert inputs.activation_gb == Decimal(2)  # the description's activation per sample


def test_without_an_activation_the_calculator_keeps_its_own(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.ACTIVATION, "")  # no model: nothing derived
    vm.training.set_choice(Choice.RECOMMEND, False)  # the user's own micro-batch
    vm.training.set_text(TrainingField.MICRO_BATCH, "4")
    own = vm.calculator.last_valid_inputs.activation_gb
    assert vm.use_configuration() is not None
    inputs = vm.calculator.inputs
    assert inputs is not None and inputs.activation_gb == own


def test_choose_a_pair_from_the_table(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    assert _configuration(vm).recommended
    vm.choose_pair(8)
    config = _configuration(vm)
    assert not config.recommended and (config.micro_batch, config.accumulation_steps) == (8, 8)
    assert vm.training.choice(Choice.RECOMMEND) is False
    assert vm.training.shown_text(TrainingField.MICRO_BATCH) == "8"
    assert [row.micro_batch for row in _results(vm).pairs if row.current] == [8]


def test_tokens_steps_and_learning_rates(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "512", "8", "4")
    training = vm.training
    training.set_text(TrainingField.SEQ_LEN, "2048")
    training.set_text(TrainingField.DATASET, "1000000")
    vm.set_reference(Decimal("0.0003"), 256)
    extras = _results(vm).extras
    assert extras is not None
    assert extras.tokens == "1,048,576 tokens per optimizer step (512 × 2,048)."
    # 1 000 000 = 1 953 · 512 + 64
    assert extras.steps == (
        "1,954 optimizer steps per epoch (keeping the last, partial step of 64 samples; "
        "1,953 with drop_last)."
    )
    assert extras.lr_linear == "Linear scaling: 0.0006"  # 0.0003 · 512 / 256
    assert extras.lr_sqrt == "Square-root scaling: ≈ 0.000424264"  # 0.0003 · √2
    assert extras.lr_note.startswith("Heuristics")
    assert vm.reference() == (Decimal("0.0003"), 256)


def test_a_dataset_that_divides_evenly(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.DATASET, "5120")
    extras = _results(vm).extras
    assert extras is not None
    assert extras.steps == (
        "10 optimizer steps per epoch (the dataset divides evenly: no partial step)."
    )


def test_a_remembered_reference_is_put_back(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.set_reference(Decimal("0.0001"), 1024)
    assert vm.reference() == (Decimal("0.0001"), 1024)
    assert vm.shown_text(TrainingField.REFERENCE_BATCH) == "1,024"
    extras = _results(vm).extras
    assert extras is not None and extras.lr_linear == "Linear scaling: 0.00005"
    vm.set_reference(None, None)
    assert vm.reference() == (None, None)
    extras = _results(vm).extras
    assert extras is not None and extras.lr_linear.startswith("Enter a reference learning rate")


def test_a_refused_optional_entry_does_not_hide_the_plan(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.DATASET, "0")
    vm.set_text(TrainingField.REFERENCE_LR, "fast")
    extras = _results(vm).extras
    assert extras is not None
    assert extras.steps == "Dataset size: enter a value from 1 to 1,000,000,000,000,000."
    assert extras.lr_linear == "Reference learning rate: “fast” is not a number."
    assert _configuration(vm).micro_batch == 16  # the plan stands


def test_a_refused_sequence_length_is_the_no_result_state(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.SEQ_LEN, "0")  # the description reads it
    assert vm.state.results is None
    assert vm.state.problems == ("Sequence length: enter a value from 1 to 100,000,000.",)
    assert vm.clipboard_text() is None


def test_invalid_required_input_is_the_no_result_state(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.TARGET, "")
    vm.training.set_text(TrainingField.GPUS, "x")
    state = vm.state
    assert isinstance(state, PlannerState)
    assert state.results is None and not state.has_result
    assert state.prompt == "Correct the training description to see the plan."
    assert state.problems == (
        "Target effective batch: enter a value.",
        "Data-parallel GPUs: “x” is not a number.",
    )
    assert vm.configuration() is None and vm.use_configuration() is None
    vm.training.set_text(TrainingField.TARGET, "512")
    vm.training.set_text(TrainingField.GPUS, "8")
    assert vm.state.has_result


def test_a_layout_no_framework_runs_is_said(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_text(TrainingField.NODES, "3")
    assert _results(vm).setup_problem == "8 GPUs cannot be split evenly over 3 nodes."
    vm.training.set_text(TrainingField.NODES, "2")
    assert _results(vm).setup_problem == ""
    vm.training.set_choice(Choice.OFFLOAD, Offload.OPTIMIZER)  # without ZeRO
    assert _results(vm).setup_problem.startswith("CPU offload needs ZeRO stage 1, 2 or 3")


def test_clipboard_text(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "512", "8", "4")
    text = vm.clipboard_text()
    assert text is not None and text.endswith("\n")
    lines = text.splitlines()
    assert lines[:3] == ["Run plan: gradient accumulation", "", "Training description"]
    for line in (
        "Model: — choose a model —",
        "GPU model: NVIDIA A100 SXM4 80GB",
        "Data-parallel GPUs: 8",
        "Target effective batch: 512",
        "Micro-batch size: 4",
        "Activation per sample: 2 GB (typed in)",
        "Other memory per GPU: 20 GB (typed in)",
        "E = 4 × 16 × 8 = 512",
        "Exact: Exactly the target of 512.",
        "DeepSpeed accepts these values",
    ):
        assert line in lines, line
    in_use = [line for line in lines if line.endswith("← in use")]
    assert len(in_use) == 1 and in_use[0].split()[:2] == ["4", "16"]
    vm.training.set_choice(Choice.RECOMMEND, True)
    text = vm.clipboard_text()
    assert text is not None and "Micro-batch size: 16 (recommended)" in text.splitlines()


def test_one_plan_per_change(qapp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[object] = []
    real = training_model.plan

    def counted(description):  # type: ignore[no-untyped-def]
        calls.append(description)
        return real(description)

    monkeypatch.setattr(training_model, "plan", counted)
    vm = PlannerViewModel(TrainingViewModel(QLocale("en")), CalculatorViewModel(QLocale("en")))
    assert len(calls) == 1  # the first state
    emitted: list[PlannerState] = []
    vm.stateChanged.connect(emitted.append)
    training = vm.training
    edits = [
        lambda: training.set_text(TrainingField.TARGET, "1000"),
        lambda: training.set_text(TrainingField.GPUS, "3"),
        lambda: training.set_choice(Choice.ROUNDING, Rounding.NEAREST),
        lambda: training.set_choice(Choice.CARD, "t4-16gb"),
        lambda: training.set_text(TrainingField.OTHER_MEMORY, "20"),  # nothing fits
        lambda: training.set_choice(Choice.RECOMMEND, False),
        lambda: vm.choose_pair(8),
        lambda: training.set_text(TrainingField.SEQ_LEN, "2048"),
        lambda: training.set_language(QLocale("pt_BR")),  # "1.000": new words
    ]
    for number, edit in enumerate(edits, start=2):
        edit()
        assert len(calls) == number, number
    assert len(emitted) == len(edits)
    training.set_text(TrainingField.TARGET, "1.000")  # nothing new: nothing planned
    assert len(calls) == len(edits) + 1
    training.set_text(TrainingField.TARGET, "")  # the no-result state plans nothing
    assert len(calls) == len(edits) + 1
    assert len(emitted) == len(edits) + 1 and vm.state.results is None


def test_set_language_rebuilds_once_and_the_calculator_locale_is_not_followed(  # type: ignore[no-untyped-def]
    qapp, catalogue
) -> None:
    vm = planner()
    _solve(vm, "1024", "2", "8")
    emitted: list[PlannerState] = []
    vm.stateChanged.connect(emitted.append)
    catalogue("pt_BR")
    vm.calculator.set_language(QLocale("pt_BR"))
    assert emitted == [] and vm.locale.name() == "en_US"
    vm.training.set_language(QLocale("pt_BR"))
    assert emitted == [vm.state]
    config = _configuration(vm)
    assert config.formula == "E = 8 × 64 × 2 = 1.024"
    assert config.exact_badge == "Exato"
    assert vm.shown_text(TrainingField.OTHER_MEMORY) == "20 GB"
    assert vm.number_input(TrainingField.TARGET).read("2.048") == Decimal(2048)


def test_portuguese_numbers(catalogue, qapp) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = planner("pt_BR")
    _solve(vm, "1.024", "2", "8")
    vm.training.set_text(TrainingField.ACTIVATION, "0,5")
    assert vm.training.value(TrainingField.ACTIVATION) == Decimal("0.5")
    config = _configuration(vm)
    assert config.formula == "E = 8 × 64 × 2 = 1.024"
    assert config.exact_badge == "Exato"
    assert _results(vm).fit.usage == (
        "Ativações 8 × 0,5 GB = 4 GB, mais 20 GB de outra memória: 24 GB de 80 GB."
    )
    assert format_approx(QLocale("pt_BR"), Decimal("0.000424264068")) == "≈ 0,000424264"


def test_rounding_down_that_cannot_stay_within_the_target_says_so(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    vm.training.set_choice(Choice.ROUNDING, Rounding.FLOOR)
    _solve(vm, "10", "4", "4")
    assert _configuration(vm).difference == (
        "6 samples above the target of 10. Rounding down cannot stay within it: "
        "use a micro-batch of at most 2."
    )
    _solve(vm, "10", "4", "2")
    assert _configuration(vm).difference == "2 samples below the target of 10."


def test_typing_the_reference_rescales_the_learning_rate_at_once(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    _solve(vm, "512", "8", "4")
    vm.set_text(TrainingField.REFERENCE_LR, "0.0003")
    vm.set_text(TrainingField.REFERENCE_BATCH, "256")
    extras = _results(vm).extras
    assert extras is not None and extras.lr_linear == "Linear scaling: 0.0006"
    vm.set_text(TrainingField.REFERENCE_BATCH, "512")
    extras = _results(vm).extras
    assert extras is not None and extras.lr_linear == "Linear scaling: 0.0003"


def test_choosing_a_pair_plans_once(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    states: list[object] = []
    vm.stateChanged.connect(states.append)
    assert vm.training.choice(Choice.RECOMMEND) is True
    vm.choose_pair(2)
    assert len(states) == 1
    assert _configuration(vm).micro_batch == 2
    assert vm.training.choice(Choice.RECOMMEND) is False


def test_the_pairs_note_says_when_no_row_is_in_use(qapp) -> None:  # type: ignore[no-untyped-def]
    """Before the memory is known no pair is recommended: the note under the table does
    not point at a bold row that is not there."""
    vm = planner()
    vm.training.set_text(TrainingField.ACTIVATION, "")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "")
    view = vm.state.results
    assert view is not None and view.configuration is None
    assert "; none is in use yet." in view.pairs_note
    assert not any(row.current for row in view.pairs)
    vm.training.set_text(TrainingField.ACTIVATION, "1")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "10")
    view = vm.state.results
    assert view is not None and "; the row in use is in bold." in view.pairs_note
    assert sum(row.current for row in view.pairs) == 1


def test_the_pairs_note_explains_the_grey_rows_only_when_one_does_not_fit(qapp) -> None:  # type: ignore[no-untyped-def]
    """A row that does not fit is grey in the table; the note says so while there is one,
    and not while every row fits or the memory is not known."""
    grey = "A grey row does not fit in one GPU's memory."
    vm = planner()
    vm.training.set_text(TrainingField.ACTIVATION, "")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "")
    view = vm.state.results
    assert view is not None and all(row.fits is None for row in view.pairs)
    assert grey not in view.pairs_note
    vm.training.set_text(TrainingField.ACTIVATION, "1")
    vm.training.set_text(TrainingField.OTHER_MEMORY, "10")
    view = vm.state.results
    assert view is not None and all(row.fits for row in view.pairs)
    assert grey not in view.pairs_note
    vm.training.set_text(TrainingField.ACTIVATION, "20")
    view = vm.state.results
    assert view is not None and any(row.fits is False for row in view.pairs)
    assert grey in view.pairs_note
