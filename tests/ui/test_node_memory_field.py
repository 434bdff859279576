"""Each node's CPU memory as a user meets it: a labelled field under the nodes, empty
("not given") at first, whose value decides whether the plan's CPU offload fits a node,
and which a scenario file keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.training.panel import TrainingPanel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into
from tests.ui.layout_checks import layout_problems, settle

#: what the user reads, in each language
WORDS = {
    "pt_BR": {
        "label": "Memória de CPU por nó (GB)",
        "empty": "não informada",
        "need": "1.693,289 GB",
        "unknown": "Cabe na memória da GPU; a memória de CPU de um nó não foi informada",
        "short": "Cabe na memória da GPU, mas não na memória de CPU de um nó",
        "fits": "Cabe na memória da GPU e na memória de CPU de um nó",
        "has": "mais que os 1.000 GB que ele tem.",
        "of": "Memória de CPU por nó: 1.693,289 GB de 2.048 GB.",
        "typed": "2.048",
    },
    "en": {
        "label": "CPU memory per node (GB)",
        "empty": "not given",
        "need": "1,693.289 GB",
        "unknown": "Fits in GPU memory; a node's CPU memory is not given",
        "short": "Fits in GPU memory, but not in a node's CPU memory",
        "fits": "Fits in GPU memory and in a node's CPU memory",
        "has": "more than the 1,000 GB it has.",
        "of": "CPU memory per node: 1,693.289 GB of 2,048 GB.",
        "typed": "2,048",
    },
}


def _panel(window: MainWindow) -> TrainingPanel:
    show_tab(window, window.planner_page)
    return window.description


def _issue(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The issue's case: Llama-3-70B on 16 H100s over 2 nodes (2 data × 4 tensor × 2
    pipeline), ZeRO-1 with the optimizer offloaded."""
    pick(qtbot, choice_box(window, Choice.CARD), "h100-80gb")
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3-70b")
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.OPTIMIZER)
    pick(qtbot, choice_box(window, Choice.OFFLOAD), Offload.OPTIMIZER)
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "2"),
        (TrainingField.TENSOR_PARALLEL, "4"),
        (TrainingField.PIPELINE_STAGES, "2"),
        (TrainingField.NODES, "2"),
        (TrainingField.SEQ_LEN, "2048"),
    ):
        type_into(qtbot, described(window, field), text)


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_field_has_its_label_name_hint_and_place(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    panel = _panel(window)
    words = WORDS[language]
    field = panel.fields[TrainingField.CPU_MEMORY]
    label = panel.labels[TrainingField.CPU_MEMORY]
    assert label.isVisible() and label.text() == words["label"]
    assert label.buddy() is field
    assert field.accessibleName() == words["label"]
    assert field.toolTip() and "DeepSpeed" in field.toolTip()
    assert field.text() == "" and field.lineEdit().placeholderText() == words["empty"]
    # in the GPUs' section, right under the nodes
    chain = panel.tab_chain()
    assert chain.index(field) == chain.index(panel.fields[TrainingField.NODES]) + 1


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_typing_the_node_memory_changes_the_verdict(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    _panel(window)
    _issue(window, qtbot)
    words = WORDS[language]
    verdict = window.planner.results.fit.verdict
    usage = window.planner.results.fit.usage
    field = described(window, TrainingField.CPU_MEMORY)
    # not given: it fits the GPUs, and says what a node needs and where to type it
    assert verdict.text() == f"✔ {words['unknown']}" and verdict.ok is True
    assert words["need"] in usage.text() and f"“{words['label']}”" in usage.text()
    type_into(qtbot, field, "1000")
    assert verdict.text() == f"✘ {words['short']}" and verdict.ok is False
    assert words["need"] in usage.text() and usage.text().endswith(words["has"])
    type_into(qtbot, field, words["typed"])  # grouped the locale's way
    assert verdict.text() == f"✔ {words['fits']}" and verdict.ok is True
    assert usage.text().endswith(words["of"])
    type_into(qtbot, field, "")
    assert verdict.text() == f"✔ {words['unknown']}"


def test_the_node_memory_is_saved_in_the_scenario(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    _panel(window)
    _issue(window, qtbot)
    field = described(window, TrainingField.CPU_MEMORY)
    type_into(qtbot, field, "1536")
    path = tmp_path / "cenario.json"
    assert window.scenarios.save(path)
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert plan["cpu_memory_gb"] == 1536
    verdict = window.planner.results.fit.verdict.text()
    type_into(qtbot, field, "")
    assert window.planner.results.fit.verdict.text() != verdict
    assert window.scenarios.open(path)
    assert field.text() == "1.536"
    assert window.planner.results.fit.verdict.text() == verdict


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_row_is_readable_at_800_by_600(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    panel = _panel(window)
    _issue(window, qtbot)
    type_into(qtbot, described(window, TrainingField.CPU_MEMORY), "100000")
    for _ in range(2):
        window.resize(800, 600)
        settle()
    field = panel.fields[TrainingField.CPU_MEMORY]
    panel.area.ensureWidgetVisible(field)
    settle()
    label = panel.labels[TrainingField.CPU_MEMORY]
    assert label.width() >= label.sizeHint().width()
    assert not panel.area.horizontalScrollBar().isVisible()
    assert layout_problems(panel, window) == []
