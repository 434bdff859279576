"""Each node's CPU memory in the training description: an optional field (empty: not
given) that the plan checks DeepSpeed's CPU figures against, worded on the memory card
and kept in scenario files."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel, PlanView
from gradacc_desktop.viewmodels.training.fields import RULES, Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel

#: DeepSpeed's CPU figure per node for the issue's setup below (the model-states
#: dialog's "1 693 GB"), to the MB
NEED = "1,693.289 GB"


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _issue(locale: str = "en") -> PlannerViewModel:
    """The issue's case: Llama-3-70B on 16 H100s over 2 nodes (2 data × 4 tensor × 2
    pipeline), ZeRO-1 with the optimizer offloaded — the search's best setup for it,
    which fits the GPUs."""
    vm = TrainingViewModel(QLocale(locale))
    vm.set_choice(Choice.CARD, "h100-80gb")
    vm.set_choice(Choice.MODEL, "llama-3-70b")
    vm.set_choice(Choice.ZERO, ZeroStage.OPTIMIZER)
    vm.set_choice(Choice.OFFLOAD, Offload.OPTIMIZER)
    for field, text in (
        (F.TARGET, "512"),
        (F.GPUS, "2"),
        (F.TENSOR_PARALLEL, "4"),
        (F.PIPELINE_STAGES, "2"),
        (F.NODES, "2"),
        (F.SEQ_LEN, "2048"),
    ):
        vm.set_text(field, text)
    return PlannerViewModel(vm, CalculatorViewModel(QLocale(locale)))


def _results(planner: PlannerViewModel) -> PlanView:
    results = planner.state.results
    assert results is not None, planner.state.problems
    return results


def test_the_field_is_optional_whole_gb_stepping_by_64(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    number = vm.number_input(F.CPU_MEMORY)
    assert number.optional and number.whole and number.step == 64
    assert (number.limits.minimum, number.limits.maximum) == (1, 100_000)
    assert F.CPU_MEMORY in RULES.optional
    assert vm.shown_text(F.CPU_MEMORY) == "" and vm.placeholder(F.CPU_MEMORY) == "not given"
    assert vm.texts.field_label(F.CPU_MEMORY) == "CPU memory per node (GB)"
    assert "offloaded optimizer states" in vm.texts.field_hint(F.CPU_MEMORY)
    # Portuguese "2.048" in a whole-number field is 2048, never two gigabytes
    pt = TrainingViewModel(QLocale("pt_BR"))
    pt.set_text(F.CPU_MEMORY, "2.048")
    assert pt.value(F.CPU_MEMORY) == 2048 and pt.shown_text(F.CPU_MEMORY) == "2.048"


def test_the_issue_case_says_what_a_node_must_hold(qapp) -> None:  # type: ignore[no-untyped-def]
    planner = _issue()
    training = planner.training
    plan = training.plan
    assert plan is not None and plan.fit is not None and plan.fit.fits
    assert plan.cpu_fits is None
    # the node's memory not given: the need, and which field takes the memory
    fit = _results(planner).fit
    assert fit.fits is True
    assert fit.verdict == "Fits in GPU memory; a node's CPU memory is not given"
    assert fit.usage.endswith(
        f"The offloaded model states need {NEED} of CPU memory per node, and a node's "
        "memory is not given: type it in “CPU memory per node (GB)” to check it."
    )
    # 1000 GB: the GPUs hold it, a node does not
    training.set_text(F.CPU_MEMORY, "1000")
    assert training.description is not None
    assert training.description.cpu_memory_gb == Decimal(1000)
    fit = _results(planner).fit
    assert fit.fits is False
    assert fit.verdict == "Fits in GPU memory, but not in a node's CPU memory"
    assert fit.usage.endswith(
        f"A node's CPU memory must hold {NEED} of model states (DeepSpeed's estimate), "
        "more than the 1,000 GB it has."
    )
    # 2048 GB: it fits both
    training.set_text(F.CPU_MEMORY, "2048")
    fit = _results(planner).fit
    assert fit.fits is True
    assert fit.verdict == "Fits in GPU memory and in a node's CPU memory"
    assert fit.usage.endswith(f"CPU memory per node: {NEED} of 2,048 GB.")
    # the clipboard says the same
    assert "Fits in GPU memory and in a node's CPU memory" in planner.clipboard_text()
    # emptied: not given again
    training.set_text(F.CPU_MEMORY, "")
    assert _results(planner).fit.verdict == "Fits in GPU memory; a node's CPU memory is not given"


def test_in_portuguese_the_numbers_follow_the_locale(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    planner = _issue("pt_BR")
    planner.training.set_text(F.CPU_MEMORY, "1000")
    fit = _results(planner).fit
    assert fit.verdict == "Cabe na memória da GPU, mas não na memória de CPU de um nó"
    assert fit.usage.endswith(
        "A memória de CPU de um nó precisa guardar 1.693,289 GB de estados do modelo "
        "(estimativa do DeepSpeed), mais que os 1.000 GB que ele tem."
    )
    assert planner.training.placeholder(F.CPU_MEMORY) == "não informada"


def test_without_offload_an_unknown_node_memory_says_nothing(qapp) -> None:  # type: ignore[no-untyped-def]
    # Llama 3.1 8B on 8 H100s with ZeRO-2 and nothing offloaded
    training = TrainingViewModel(QLocale("en"))
    planner = PlannerViewModel(training, CalculatorViewModel(QLocale("en")))
    training.set_choice(Choice.CARD, "h100-80gb")
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_choice(Choice.ZERO, ZeroStage.GRADIENTS)
    for field, text in ((F.TARGET, "64"), (F.GPUS, "8"), (F.SEQ_LEN, "2048")):
        training.set_text(field, text)
    fit = _results(planner).fit
    assert fit.verdict == "Fits in GPU memory" and "CPU" not in fit.usage
    # given, the fp32 model each process loads is checked against it all the same
    training.set_text(F.CPU_MEMORY, "64")
    plan = training.plan
    assert plan is not None and plan.cpu_fits is False
    fit = _results(planner).fit
    assert fit.fits is False
    assert fit.verdict == "Fits in GPU memory, but not in a node's CPU memory"
    assert "more than the 64 GB it has." in fit.usage
    training.set_text(F.CPU_MEMORY, "1024")
    assert _results(planner).fit.verdict == "Fits in GPU memory and in a node's CPU memory"


def test_a_refused_entry_leaves_the_memory_not_given_and_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    planner = _issue()
    training = planner.training
    training.set_text(F.CPU_MEMORY, "0")
    assert training.state.run_problems == (
        "CPU memory per node (GB): enter a value from 1 to 100,000.",
    )
    assert training.description is not None and training.description.cpu_memory_gb is None
    assert _results(planner).fit.verdict == "Fits in GPU memory; a node's CPU memory is not given"


def test_the_node_memory_is_saved_and_reopened(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = _issue().training
    saved.set_text(F.CPU_MEMORY, "1536")
    files = ScenarioViewModel(saved, CalculatorViewModel(QLocale("en")))
    path = tmp_path / "node.json"
    assert files.save(path).ok
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 12 and data["plan"]["cpu_memory_gb"] == 1536
    opened = TrainingViewModel(QLocale("en"))
    assert ScenarioViewModel(opened, CalculatorViewModel(QLocale("en"))).open(path).ok
    assert opened.shown_text(F.CPU_MEMORY) == "1,536"
    assert opened.description == saved.description
    # through the settings store too
    restored = TrainingViewModel(QLocale("en"))
    store = ScenarioViewModel(restored, CalculatorViewModel(QLocale("en")))
    assert store.restore_remembered(files.remembered())
    assert restored.description is not None and restored.description.cpu_memory_gb == 1536


def test_a_version_7_file_opens_with_the_node_memory_not_given(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = _issue().training
    data = json.loads(
        scenario_io.save(ScenarioViewModel(saved, CalculatorViewModel(QLocale("en"))).scenario())
    )
    data["version"] = 7
    del data["plan"]["cpu_memory_gb"], data["plan"]["fused_loss"], data["plan"]["master_weights"]
    del data["plan"]["expert_tensor_parallel"]  # version 11
    del data["plan"]["tp_comm_overlap"]  # version 12
    del data["plan"]["grad_reduce_bf16"]  # version 12
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    opened = _issue().training
    opened.set_text(F.CPU_MEMORY, "512")
    assert ScenarioViewModel(opened, CalculatorViewModel(QLocale("en"))).open(path).ok
    assert opened.shown_text(F.CPU_MEMORY) == ""
    assert opened.description is not None and opened.description.cpu_memory_gb is None
