"""The context-parallel GPUs in the training description, as a user meets them: a
labelled field under the expert-parallel one, enabled for every model, that splits
each sequence over more GPUs."""

from __future__ import annotations

from gradacc_desktop.core.time.step_results import PART_NAMES
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.step_parts import PART_COLOURS
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into


def test_the_field_splits_the_sequence(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    panel = window.description
    field = described(window, TrainingField.CONTEXT_PARALLEL)
    label = panel.labels[TrainingField.CONTEXT_PARALLEL]
    assert label.text() == "GPUs de paralelismo de contexto"
    assert label.buddy() is field or field.isAncestorOf(label.buddy())
    assert "2·c" in field.toolTip()
    chain = panel.tab_chain()
    # after the expert-parallel GPUs and Megatron's expert tensor-parallel size
    experts = panel.fields[TrainingField.EXPERT_PARALLEL]
    expert_tensor = panel.fields[TrainingField.EXPERT_TENSOR_PARALLEL]
    assert chain.index(expert_tensor) == chain.index(experts) + 1
    assert chain.index(field) == chain.index(expert_tensor) + 1
    assert set(PART_COLOURS) == set(PART_NAMES)
    pick(qtbot, choice_box(window, Choice.CARD), "h100-80gb")
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    assert field.isEnabled() and field.text() == "1"
    for key, text in (
        (TrainingField.TARGET, "16"),
        (TrainingField.GPUS, "2"),
        (TrainingField.SEQ_LEN, "32768"),
    ):
        type_into(qtbot, described(window, key), text)
    type_into(qtbot, field, "4")
    description = window.training_vm.description
    assert description is not None and description.context_parallel == 4
    assert description.world == 8
