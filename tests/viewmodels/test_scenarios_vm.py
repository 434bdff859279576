"""Scenario files and the settings store: the training description (and the
calculator's inputs) saved and opened whole; a refused file changes nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.scenario import ReadProblem, ScenarioError
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.training.fields import CONFIG_MODEL, SHAPE_MODEL, Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel
from tests.configs import config_path
from tests.planner_setup import training


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


@dataclass(frozen=True)
class Made:
    """A scenario view-model with the description and the calculator it saves."""

    training: TrainingViewModel
    calculator: CalculatorViewModel
    files: ScenarioViewModel


def _scenarios(vm: TrainingViewModel | None = None, locale: str = "en") -> Made:
    """Scenarios of ``vm`` (a fresh description by default) and a fresh calculator."""
    described = TrainingViewModel(QLocale(locale)) if vm is None else vm
    calculator = CalculatorViewModel(QLocale(locale))
    return Made(described, calculator, ScenarioViewModel(described, calculator))


def _described() -> Made:
    """A description with something in every part: the model, the card, the layout, the
    batch, typed memory, the run."""
    vm = training()
    vm.set_choice(Choice.RECOMMEND, False)
    vm.set_text(F.MICRO_BATCH, "4")
    vm.set_choice(Choice.ROUNDING, Rounding.FLOOR)
    vm.set_choice(Choice.CARD, "h100-80gb")
    vm.set_choice(Choice.MODEL, "mixtral-8x7b")
    vm.set_text(F.SEQ_LEN, "4096")
    vm.set_text(F.TENSOR_PARALLEL, "2")
    vm.set_text(F.EFFICIENCY, "42.5")
    vm.set_text(F.PRICE, "1.75")
    vm.set_text(F.TOKENS, "5000000")
    vm.set_choice(Choice.RECOMPUTE, Recompute.FULL)
    made = _scenarios(vm)
    made.calculator.set_text(Field.MICRO_BATCH, "6")
    return made


def test_scenario_round_trip(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = _described()
    path = tmp_path / "plan.json"
    outcome = saved.files.save(path)
    assert outcome.ok and outcome.message == "Scenario saved to “plan.json”."
    loaded = scenario_io.load(path.read_bytes())
    assert loaded.plan.gpu_memory_gb == Decimal(80)  # the H100's, written for other readers
    assert loaded.plan.tensor_parallel == 2 and loaded.plan.recompute is Recompute.FULL

    opened = _scenarios()
    outcome = opened.files.open(path)
    assert outcome.ok and outcome.message == "Scenario opened from “plan.json”."
    assert opened.files.scenario() == saved.files.scenario()
    again = opened.training
    assert again.description == saved.training.description
    assert again.choice(Choice.MODEL) == "mixtral-8x7b" and again.choice(Choice.CARD) == "h100-80gb"
    assert again.choice(Choice.ROUNDING) is Rounding.FLOOR
    assert again.choice(Choice.RECOMMEND) is False
    assert again.value(F.SEQ_LEN) == 4096 and again.value(F.EFFICIENCY) == Decimal("42.5")
    assert again.shown_text(F.OTHER_MEMORY) == "20 GB"
    calculator = opened.calculator.inputs
    assert calculator is not None and calculator == saved.calculator.inputs
    assert calculator.micro_batch == 6


def test_opening_a_scenario_replaces_the_fields(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "plan.json"
    assert _described().files.save(path).ok
    opened = _scenarios()
    replaced: list[frozenset[object]] = []
    states: list[object] = []
    opened.training.inputsReplaced.connect(replaced.append)
    opened.training.stateChanged.connect(states.append)
    assert opened.files.open(path).ok
    assert set(F) <= replaced[0]  # every field re-reads what it shows
    assert len(states) == 1  # one new plan


def test_the_time_inputs_are_remembered(qapp) -> None:  # type: ignore[no-untyped-def]
    saved = _described()
    text = saved.files.remembered()
    restored = _scenarios()
    calculator_before = restored.calculator.inputs
    assert restored.files.restore_remembered(text)
    again = restored.training
    assert again.description == saved.training.description
    assert again.value(F.PRICE) == Decimal("1.75") and again.value(F.TOKENS) == 5_000_000
    assert again.choice(Choice.RECOMPUTE) is Recompute.FULL
    # the calculator keeps its own (4, not the saved 6)
    assert restored.calculator.inputs == calculator_before
    assert calculator_before is not None and calculator_before.micro_batch == 4
    assert not restored.files.restore_remembered("{")
    assert not restored.files.restore_remembered('{"format": "something else"}')


@pytest.mark.parametrize("model", ["@config", SHAPE_MODEL, "@params", "gpt2"])
def test_every_kind_of_model_comes_back(qapp, model: str) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    if model == "@config":
        assert vm.open_config(config_path("google__gemma-2b.json")).ok
    else:
        vm.set_choice(Choice.MODEL, model)
    vm.set_text(F.SHAPE_LAYERS, "16")
    vm.set_text(F.MODEL_PARAMS, "3000000000")
    restored = _scenarios()
    assert restored.files.restore_remembered(_scenarios(vm).files.remembered())
    again = restored.training
    assert again.description == vm.description
    assert again.choice(Choice.MODEL) == vm.choice(Choice.MODEL)
    assert again.state.notes.model == vm.state.notes.model
    if model == "@config":
        assert again.choice(Choice.MODEL) == CONFIG_MODEL
        assert (CONFIG_MODEL, "File: google__gemma-2b.json") in again.options(Choice.MODEL)


def test_lora_comes_back(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "llama-3.2-1b")
    vm.set_choice(Choice.METHOD, Method.QLORA)
    vm.set_text(F.LORA_RANK, "64")
    restored = _scenarios()
    assert restored.files.restore_remembered(_scenarios(vm).files.remembered())
    again = restored.training
    assert again.description == vm.description
    assert again.shown_text(F.LORA_RANK) == "64"


def test_a_refused_entry_is_not_saved(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scenarios = _scenarios(training())
    vm = scenarios.training
    vm.set_text(F.GPUS, "x")
    vm.set_text(F.PRICE, "-1")  # a run entry: the plan goes on, the file would not
    assert scenarios.files.unsaved_problems() == (
        "Data-parallel GPUs: “x” is not a number.",
        "Price per GPU-hour: enter a value from 0 to 1,000,000.",
    )
    outcome = scenarios.files.save(tmp_path / "plan.json")
    assert not outcome.ok
    assert outcome.message == (
        "Nothing saved: correct these fields first. Data-parallel GPUs: “x” is not a number. "
        "Price per GPU-hour: enter a value from 0 to 1,000,000."
    )
    assert not (tmp_path / "plan.json").exists()
    # what it would keep is the last valid value, never the refused text
    assert scenarios.files.scenario().plan.gpus == 8


def test_bad_scenario_changes_nothing(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scenarios = _scenarios(training())
    before = scenarios.files.scenario()
    description = scenarios.training.description
    for data in (b"{", b"\xff\xfe", b"[]", b" " * (scenario_io.MAX_BYTES + 10)):
        path = tmp_path / "bad.json"
        path.write_bytes(data)
        outcome = scenarios.files.open(path)
        assert not outcome.ok
        assert outcome.message.startswith("Could not open the scenario “bad.json”: ")
        assert outcome.message.endswith(" Nothing was changed.")
        assert scenarios.files.scenario() == before
        assert scenarios.training.description == description
    missing = scenarios.files.open(tmp_path / "missing.json")
    assert not missing.ok and "No such file or directory" in missing.message


def _saved(tmp_path: Path) -> tuple[Made, bytes]:
    """A description whose scenario differs from the one saved before (``previous``)."""
    scenarios = _scenarios(training())
    assert scenarios.files.save(tmp_path / "plan.json").ok
    previous = (tmp_path / "plan.json").read_bytes()
    scenarios.training.set_text(F.TARGET, "1024")
    return scenarios, previous


def test_failed_save_keeps_the_previous_scenario(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scenarios, previous = _saved(tmp_path)
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "notes").write_bytes(previous)
    failures = {
        tmp_path / "folder.json": "Filename refers to a directory",
        tmp_path / "notes" / "plan.json": "Not a directory",
        tmp_path / "gone" / "plan.json": "No such file or directory",
    }
    for path, reason in failures.items():
        outcome = scenarios.files.save(path)
        assert not outcome.ok
        assert outcome.message == (
            f"Could not save the scenario to “{path.name}”: {reason}. Nothing was changed."
        )
    assert (tmp_path / "notes").read_bytes() == previous
    assert (tmp_path / "plan.json").read_bytes() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.json", "notes", "plan.json"]
    assert scenarios.files.save(tmp_path / "plan.json").ok  # and a good save still replaces it
    assert scenario_io.load((tmp_path / "plan.json").read_bytes()).plan.target_batch == 1024


def test_failed_save_in_portuguese(qapp, catalogue, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    scenarios = _scenarios(locale="pt_BR")
    outcome = scenarios.files.save(tmp_path / "sumiu" / "plano.json")
    assert not outcome.ok
    # the system's reason comes through Qt, which has its own Portuguese for it
    reason = QCoreApplication.translate("QIODevice", "No such file or directory")
    assert reason == "Não existe o arquivo ou pasta"
    assert outcome.message == (
        f"Não foi possível salvar o cenário em “plano.json”: {reason}. Nada foi alterado."
    )


def test_every_scenario_reason_has_a_message(qapp) -> None:  # type: ignore[no-untyped-def]
    scenarios = _scenarios()
    messages = {scenarios.files.problem(ScenarioError(r, "plan.gpus", "3")) for r in ReadProblem}
    assert len(messages) == len(ReadProblem)
    assert "the setting “plan.gpus” is out of range." in messages
    too_large = scenarios.files.problem(ScenarioError(ReadProblem.TOO_LARGE, "", ""))
    assert too_large == f"the file is larger than {scenario_io.MAX_BYTES:,} bytes."


def _time_model_inputs() -> Made:
    """The time model's newer inputs, each away from its default: interleaved pipeline
    stages, FP8 products on an H100, eager attention, typed links, a goodput."""
    vm = training()
    vm.set_choice(Choice.CARD, "h100-80gb")
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_text(F.SEQ_LEN, "4096")
    vm.set_text(F.PIPELINE_STAGES, "2")
    vm.set_text(F.VIRTUAL_STAGES, "4")
    vm.set_choice(Choice.FP8, True)
    vm.set_choice(Choice.ATTENTION, AttentionKernel.EAGER)
    vm.set_text(F.LINK, "200")
    vm.set_text(F.NETWORK, "12.5")
    vm.set_text(F.GOODPUT, "92.5")
    return _scenarios(vm)


def test_the_time_model_inputs_are_saved_and_reopened(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = _time_model_inputs()
    d = saved.training.description
    assert d is not None and d.fp8 and d.layout.virtual == 4
    path = tmp_path / "plan.json"
    assert saved.files.save(path).ok
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert (plan["virtual_stages"], plan["fp8"], plan["attention"]) == (4, True, "eager")
    assert (plan["link_gbps"], plan["network_gbps"]) == ("200", "12.5")
    assert plan["goodput_percent"] == "92.5"

    opened = _scenarios()
    assert opened.files.open(path).ok
    again = opened.training
    assert again.description == d
    assert (
        again.choice(Choice.FP8) is True and again.choice(Choice.ATTENTION) is AttentionKernel.EAGER
    )
    assert again.shown_text(F.VIRTUAL_STAGES) == "4"
    assert again.shown_text(F.LINK) == "200" and again.shown_text(F.NETWORK) == "12.5"
    assert again.shown_text(F.GOODPUT) == "92.5"
    # and through the settings store
    restored = _scenarios()
    assert restored.files.restore_remembered(saved.files.remembered())
    assert restored.training.description == d


def test_a_version_4_file_opens_with_the_defaults_of_the_new_inputs(  # type: ignore[no-untyped-def]
    qapp, tmp_path: Path
) -> None:
    saved = _time_model_inputs()
    data = json.loads(scenario_io.save(saved.files.scenario()))
    data["version"] = 4
    for key in (
        "virtual_stages",
        "expert_parallel",
        "context_parallel",
        "fp8",
        "attention",
        "link_gbps",
        "network_gbps",
    ):
        del data["plan"][key]
    del data["plan"]["goodput_percent"]
    for key in ("images", "image_width", "image_height", "vision_frozen"):  # version 6
        del data["plan"][key]
    for key in ("framework", "sequence_parallel"):  # version 7
        del data["plan"][key]
    del data["plan"]["cpu_memory_gb"]  # version 8
    del data["plan"]["fused_loss"], data["plan"]["master_weights"]  # versions 9, 10
    del data["plan"]["expert_tensor_parallel"]  # version 11
    del data["plan"]["tp_comm_overlap"]  # version 12
    del data["plan"]["grad_reduce_bf16"]  # version 12
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    opened = _time_model_inputs()  # every new input away from its default
    assert opened.files.open(path).ok
    again = opened.training
    d = again.description
    assert d is not None and d.pipeline_stages == 2 and d.layout.virtual == 1
    assert not d.fp8 and d.attention is AttentionKernel.SDPA
    assert d.link_gbps is d.network_gbps is d.run.goodput is None
    assert again.shown_text(F.LINK) == "" and again.placeholder(F.LINK) == "450 (the card's)"
    assert again.shown_text(F.GOODPUT) == "" and again.placeholder(F.GOODPUT) == "100"


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("virtual_stages", 0, "the setting “plan.virtual_stages” is out of range."),
        ("fp8", "yes", "the setting “plan.fp8” has the wrong type."),
        (
            "attention",
            "flash_attention_3",
            "the setting “plan.attention” has a value this app does not know.",
        ),
        ("link_gbps", "-3", "the setting “plan.link_gbps” is out of range."),
        ("goodput_percent", "150", "the setting “plan.goodput_percent” is out of range."),
    ],
)
def test_a_bad_new_input_refuses_the_file_and_changes_nothing(  # type: ignore[no-untyped-def]
    qapp, tmp_path: Path, key: str, value: object, said: str
) -> None:
    saved = _time_model_inputs()
    data = json.loads(scenario_io.save(saved.files.scenario()))
    data["plan"][key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    opened = _scenarios(training())
    before = opened.training.description
    outcome = opened.files.open(path)
    assert not outcome.ok
    assert outcome.message == f"Could not open the scenario “bad.json”: {said} Nothing was changed."
    assert opened.training.description == before
