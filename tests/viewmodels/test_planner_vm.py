from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale

from gradacc_desktop.core import planning
from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.core.memory import Recipe, ZeroStage
from gradacc_desktop.core.planning import UNIT_NOTE, Candidates, Rounding
from gradacc_desktop.core.scenario import Reason, ScenarioError
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import format_approx
from gradacc_desktop.viewmodels.other_memory import MemoryField, OtherMemoryViewModel
from gradacc_desktop.viewmodels.planner import PlanField, PlannerState, PlannerViewModel
from gradacc_desktop.viewmodels.planner import results as results_module


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _planner(locale: str = "en") -> PlannerViewModel:
    return PlannerViewModel(CalculatorViewModel(QLocale(locale)))


def _solve(vm: PlannerViewModel, target: str, gpus: str, micro: str) -> None:
    vm.set_recommend(False)
    vm.set_text(PlanField.TARGET, target)
    vm.set_text(PlanField.GPUS, gpus)
    vm.set_text(PlanField.MICRO_BATCH, micro)


def test_solve_exact(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "512", "8", "4")
    view = vm.state.results
    assert view is not None and view.configuration is not None
    config = view.configuration
    assert (config.micro_batch, config.accumulation_steps) == (4, 16)
    assert config.formula == "E = 4 × 16 × 8 = 512"
    assert config.exact and config.exact_badge == "Exact"
    assert config.difference == "Exactly the target of 512."
    assert "b\u00a0=\u00a08\u00a0→\u00a0a\u00a0=\u00a08" in config.exact_pairs
    assert view.deepspeed is not None and view.deepspeed.ok


@pytest.mark.parametrize(
    ("rounding", "steps", "difference"),
    [
        (Rounding.CEIL, 17, "2 samples above the target of 100."),
        (Rounding.FLOOR, 16, "4 samples below the target of 100."),
        (Rounding.NEAREST, 17, "2 samples above the target of 100."),
    ],
)
def test_rounding_modes(qapp, rounding: Rounding, steps: int, difference: str) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "100", "2", "3")
    vm.set_rounding(rounding)
    config = vm.configuration()
    assert config is not None
    assert config.accumulation_steps == steps
    assert config.difference == difference
    assert config.reachable == (
        "With micro-batch 3 on 2 GPUs, the nearest batches reached exactly are 96 (below) "
        "and 102 (above)."
    )
    assert vm.state.results is not None
    deepspeed = vm.state.results.deepspeed
    assert deepspeed is not None and not deepspeed.ok
    assert "would refuse" in deepspeed.verdict
    assert "train_batch_size = 100" in deepspeed.explanation


def test_no_exact_micro_batch_when_gpus_do_not_divide(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "10", "3", "1")
    config = vm.configuration()
    assert config is not None
    assert config.exact_pairs == ""
    assert "not a multiple of the number of GPUs" in config.exact_pairs_title


def test_many_exact_pairs_are_shortened(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "720720", "1", "1")
    config = vm.configuration()
    assert config is not None
    assert config.exact_pairs.count("→") == 12
    assert config.exact_pairs.endswith("…and 228 more")


def test_recommendation_and_fit(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_text(PlanField.TARGET, "512")
    vm.set_text(PlanField.GPUS, "8")
    vm.set_card("a100-80gb")
    vm.set_text(PlanField.OTHER_MEMORY, "17")
    view = vm.state.results
    assert view is not None and view.configuration is not None
    assert view.configuration.title == "Recommended configuration"
    assert (view.configuration.micro_batch, view.configuration.accumulation_steps) == (64, 1)
    assert view.fit.fits and view.fit.verdict == "Fits in GPU memory"
    assert view.fit.usage == (
        "Activations 64 × 0.5 GB = 32 GB, plus 17 GB other memory: 49 GB of 80 GB."
    )
    assert view.fit.headroom == "Headroom: 31 GB free."
    assert view.fit.largest == "Largest micro-batch that fits: 126."
    current = [row for row in view.pairs if row.current]
    assert [row.micro_batch for row in current] == [64]
    assert all(row.fits for row in view.pairs)


def test_nothing_fits(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_card("t4-16gb")
    vm.set_text(PlanField.OTHER_MEMORY, "14.8")
    view = vm.state.results
    assert view is not None
    assert view.configuration is None and view.deepspeed is None
    assert view.nothing_fits is not None
    assert view.nothing_fits.message == (
        "Nothing fits: even a micro-batch of 1 needs 15.3 GB (0.5 GB of activations + "
        "14.8 GB other memory), 0.3 GB more than this GPU's 15 GB."
    )
    assert any("activation recomputation" in s for s in view.nothing_fits.suggestions)
    assert not view.fit.fits
    assert vm.export_text(ExportFormat.DEEPSPEED) is None
    assert vm.use_configuration() is None


def test_activation_is_shared_with_the_calculator(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    calc = vm.calculator
    calc.set_text(Field.ACTIVATION_GB, "0.25")
    assert vm.value(PlanField.ACTIVATION) == Decimal("0.25")
    vm.set_text(PlanField.ACTIVATION, "1.5")
    assert calc.last_valid_inputs.activation_gb == Decimal("1.5")
    assert calc.state.results is not None
    assert calc.state.results.activation == "6 GB"


def test_use_configuration_fills_the_calculator(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "512", "8", "4")
    message = vm.use_configuration()
    assert message == "Configuration sent to the calculator: E = 4 × 16 × 8 = 512."
    inputs = vm.calculator.inputs
    assert inputs is not None
    assert (inputs.micro_batch, inputs.accumulation_steps, inputs.gpus) == (4, 16, 8)


def test_tokens_steps_and_learning_rates(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "512", "8", "4")
    vm.set_text(PlanField.SEQ_LEN, "2048")
    vm.set_text(PlanField.DATASET, "1000000")
    vm.set_text(PlanField.REFERENCE_LR, "0.0003")
    vm.set_text(PlanField.REFERENCE_BATCH, "256")
    assert vm.state.results is not None
    extras = vm.state.results.extras
    assert extras is not None
    assert extras.tokens == "1,048,576 tokens per optimizer step (512 × 2,048)."
    assert extras.steps == (
        "1,954 optimizer steps per epoch (keeping the last, partial step of 64 samples; "
        "1,953 with drop_last)."
    )
    assert extras.lr_linear == "Linear scaling: 0.0006"
    assert extras.lr_sqrt == "Square-root scaling: ≈ 0.000424264"
    assert extras.lr_note.startswith("Heuristics")


def test_optional_field_problem_does_not_hide_the_plan(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_text(PlanField.SEQ_LEN, "0")
    assert vm.state.results is not None and vm.state.results.extras is not None
    assert vm.state.results.extras.tokens == (
        "Sequence length: enter a value from 1 to 100,000,000."
    )


def test_invalid_required_input_is_the_no_result_state(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_text(PlanField.TARGET, "")
    vm.set_text(PlanField.GPUS, "x")
    state = vm.state
    assert isinstance(state, PlannerState)
    assert state.results is None
    assert state.prompt == "Enter a value to see the plan."
    assert state.problems == (
        "Target effective batch: enter a value.",
        "Data-parallel GPUs: “x” is not a number.",
    )


def test_unit_note_is_the_cores_translated(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    assert _planner().texts.unit_note() == UNIT_NOTE
    catalogue("pt_BR")
    assert _planner("pt_BR").texts.unit_note() == (
        "A memória está sempre em gigabytes decimais: 1 GB = 10⁹ bytes "
        "(não GiB = 2³⁰ bytes; 1 GiB ≈ 1,074 GB)."
    )


def test_one_core_recommendation_per_refresh(qapp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[tuple[object, ...]] = []
    real = results_module.recommend_with_pairs

    def counted(*args: object) -> Candidates:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the planner asks recommend_with_pairs, once")

    monkeypatch.setattr(results_module, "recommend_with_pairs", counted)
    monkeypatch.setattr(planning, "recommend", refused)
    vm = _planner()
    assert len(calls) == 1  # the first state
    emitted: list[PlannerState] = []
    vm.stateChanged.connect(emitted.append)
    edits = [
        lambda: vm.set_text(PlanField.TARGET, "1000"),
        lambda: vm.set_text(PlanField.GPUS, "3"),
        lambda: vm.set_rounding(Rounding.NEAREST),
        lambda: vm.set_card("t4-16gb"),
        lambda: vm.set_text(PlanField.OTHER_MEMORY, "20"),  # nothing fits
        lambda: vm.set_recommend(False),
        lambda: vm.choose_pair(8),
        lambda: vm.set_text(PlanField.SEQ_LEN, "2048"),
        lambda: vm.calculator.set_text(Field.ACTIVATION_GB, "0.25"),  # the shared field
        lambda: vm.set_language(QLocale("en")),
    ]
    for number, edit in enumerate(edits, start=2):
        edit()
        assert len(calls) == number, number
    assert len(emitted) == len(edits)
    vm.set_text(PlanField.TARGET, "")  # the no-result state asks nothing
    assert len(calls) == len(edits) + 1


def test_set_language_rebuilds_once_and_the_calculator_locale_is_not_followed(  # type: ignore[no-untyped-def]
    qapp, catalogue
) -> None:
    vm = _planner()
    _solve(vm, "1024", "2", "8")
    emitted: list[PlannerState] = []
    vm.stateChanged.connect(emitted.append)
    catalogue("pt_BR")
    vm.calculator.set_language(QLocale("pt_BR"))
    assert emitted == [] and vm.locale.name() == "en_US"
    vm.set_language(QLocale("pt_BR"))
    assert emitted == [vm.state]
    config = vm.configuration()
    assert config is not None
    assert config.formula == "E = 8 × 64 × 2 = 1.024"
    assert config.exact_badge == "Exato"
    assert vm.shown_text(PlanField.OTHER_MEMORY) == "21 GB"
    assert vm.number_input(PlanField.TARGET).read("2.048") == Decimal(2048)


def test_portuguese_numbers(catalogue, qapp) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = _planner("pt_BR")
    _solve(vm, "1.024", "2", "8")
    vm.set_text(PlanField.ACTIVATION, "0,5")
    config = vm.configuration()
    assert config is not None
    assert config.formula == "E = 8 × 64 × 2 = 1.024"
    assert config.exact_badge == "Exato"
    assert format_approx(QLocale("pt_BR"), Decimal("0.000424264068")) == "≈ 0,000424264"


def test_scenario_round_trip(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    _solve(vm, "512", "8", "4")
    vm.set_rounding(Rounding.FLOOR)
    vm.set_card("h100-80gb")
    vm.set_text(PlanField.SEQ_LEN, "4096")
    path = tmp_path / "plan.json"
    assert vm.save_scenario(path).ok
    loaded = scenario_io.load(path.read_bytes())
    assert loaded.plan.gpu_memory_gb == Decimal(80)

    other = _planner()
    outcome = other.open_scenario(path)
    assert outcome.ok and outcome.message == "Scenario opened from “plan.json”."
    assert other.scenario() == vm.scenario()
    assert other.card_id == "h100-80gb" and other.rounding is Rounding.FLOOR
    assert not other.recommending
    assert other.value(PlanField.SEQ_LEN) == 4096


def test_bad_scenario_changes_nothing(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    before = vm.scenario()
    for data in (b"{", b"\xff\xfe", b"[]", b" " * (scenario_io.MAX_BYTES + 10)):
        path = tmp_path / "bad.json"
        path.write_bytes(data)
        outcome = vm.open_scenario(path)
        assert not outcome.ok
        assert outcome.message.startswith("Could not open the scenario “bad.json”: ")
        assert outcome.message.endswith("Nothing was changed.")
        assert vm.scenario() == before
    missing = vm.open_scenario(tmp_path / "missing.json")
    assert not missing.ok


def _saved(tmp_path: Path) -> tuple[PlannerViewModel, bytes]:
    """A planner whose scenario differs from the one saved before (``previous``)."""
    vm = _planner()
    _solve(vm, "512", "8", "4")
    assert vm.save_scenario(tmp_path / "plan.json").ok
    previous = (tmp_path / "plan.json").read_bytes()
    vm.set_text(PlanField.TARGET, "1024")
    return vm, previous


def test_failed_save_keeps_the_previous_scenario(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm, previous = _saved(tmp_path)
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "notes").write_bytes(previous)
    failures = {
        tmp_path / "folder.json": "Filename refers to a directory",
        tmp_path / "notes" / "plan.json": "Not a directory",
        tmp_path / "gone" / "plan.json": "No such file or directory",
    }
    for path, reason in failures.items():
        outcome = vm.save_scenario(path)
        assert not outcome.ok
        assert outcome.message == (
            f"Could not save the scenario to “{path.name}”: {reason}. Nothing was changed."
        )
    assert (tmp_path / "notes").read_bytes() == previous
    assert (tmp_path / "plan.json").read_bytes() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.json", "notes", "plan.json"]
    assert vm.save_scenario(tmp_path / "plan.json").ok  # and a good save still replaces it
    assert scenario_io.load((tmp_path / "plan.json").read_bytes()).plan.target_batch == 1024


_SAVE_UNDER_A_LIMIT = """
import resource, signal, sys
from pathlib import Path
from PySide6.QtCore import QLocale
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
vm = PlannerViewModel(CalculatorViewModel(QLocale("en")))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))  # a scenario is larger than this
print(vm.save_scenario(Path(sys.argv[1])).message)
"""


@pytest.mark.skipif(os.name != "posix", reason="resource limits are POSIX")
def test_save_past_a_file_size_limit_keeps_the_previous_scenario(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _vm, previous = _saved(tmp_path)
    path = tmp_path / "plan.json"
    # in a child process: its output goes through a pipe, which the limit leaves alone
    result = subprocess.run(
        [sys.executable, "-c", _SAVE_UNDER_A_LIMIT, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "Could not save the scenario to “plan.json”: File too large. Nothing was changed."
    )
    assert path.read_bytes() == previous
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_failed_save_in_portuguese(qapp, catalogue, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = PlannerViewModel(CalculatorViewModel(QLocale("pt_BR")))
    outcome = vm.save_scenario(tmp_path / "sumiu" / "plano.json")
    assert not outcome.ok
    # the system's reason comes through Qt, which has its own Portuguese for it
    reason = QCoreApplication.translate("QIODevice", "No such file or directory")
    assert reason == "Não existe o arquivo ou pasta"
    assert outcome.message == (
        f"Não foi possível salvar o cenário em “plano.json”: {reason}. Nada foi alterado."
    )


def test_every_scenario_reason_has_a_message(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    messages = {vm.scenario_problem(ScenarioError(r, "plan.gpus", "3")) for r in Reason}
    assert len(messages) == len(Reason)
    assert "the setting “plan.gpus” is out of range." in messages


def test_other_memory_helper(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_text(PlanField.GPUS, "4")
    helper = OtherMemoryViewModel(vm)
    helper.set_text(MemoryField.PARAMETERS, "7,000,000,000")
    view = helper.state.results
    assert view is not None
    # no ZeRO: 2 + 2 + 4 + 4 + 8 = 20 bytes per parameter (the fp32 gradients counted)
    assert view.rows[-1] == ("Model states per GPU", "140 GB", "20 bytes")
    assert view.states == "7,000,000,000 parameters: 140 GB of model states on each GPU"
    assert view.total == "Other memory per GPU: 140 GB + 1 GB overhead = 141 GB"
    assert view.source.startswith("ZeRO paper (Rajbhandari et al. 2020")
    helper.set_zero_stage(ZeroStage.WEIGHTS)
    view = helper.state.results
    # ZeRO-3 on 4 GPUs: 18 / 4 bytes (DeepSpeed's estimator)
    assert view is not None and view.rows[-1] == ("Model states per GPU", "31.5 GB", "4.5 bytes")
    assert view.sharding == "Sharded over the planner's 4 data-parallel GPUs."
    helper.set_recipe(Recipe.LORA)
    assert helper.state.results is not None
    assert helper.apply()
    assert vm.value(PlanField.OTHER_MEMORY) == helper.state.results.total_gb
    helper.set_text(MemoryField.PARAMETERS, "")
    assert helper.state.results is None and not helper.apply()
    for recipe, _ in helper.recipe_options():
        assert helper.source(recipe)


def test_rounding_down_that_cannot_stay_within_the_target_says_so(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _planner()
    vm.set_rounding(Rounding.FLOOR)
    _solve(vm, "10", "4", "4")
    config = vm.configuration()
    assert config is not None
    assert config.difference == (
        "6 samples above the target of 10. Rounding down cannot stay within it: "
        "use a micro-batch of at most 2."
    )
    _solve(vm, "10", "4", "2")
    config = vm.configuration()
    assert config is not None and config.difference == "2 samples below the target of 10."
