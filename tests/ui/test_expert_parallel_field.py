"""The expert-parallel GPUs in the training description, as a user meets them: a
labelled field under the pipeline's, enabled for a mixture of experts only, that
moves the time card's expert all-to-all."""

from __future__ import annotations

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into


def test_the_field_follows_the_model(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    panel = window.description
    field = described(window, TrainingField.EXPERT_PARALLEL)
    label = panel.labels[TrainingField.EXPERT_PARALLEL]
    assert label.text() == "GPUs de paralelismo de especialistas"
    assert label.buddy() is field or field.isAncestorOf(label.buddy())
    assert field.toolTip()
    chain = panel.tab_chain()
    virtual = panel.fields[TrainingField.VIRTUAL_STAGES]
    assert chain.index(panel.fields[TrainingField.EXPERT_PARALLEL]) == chain.index(virtual) + 1
    pick(qtbot, choice_box(window, Choice.CARD), "a100-80gb")
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    assert not field.isEnabled()
    pick(qtbot, choice_box(window, Choice.MODEL), "mixtral-8x7b")
    for key, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.ACTIVATION, "2"),
        (TrainingField.OTHER_MEMORY, "20"),
        (TrainingField.SEQ_LEN, "4096"),
    ):
        type_into(qtbot, described(window, key), text)
    assert field.isEnabled() and field.text() == "1"
    legend = window.planner.results.time.legend
    assert "expert_parallel" not in legend.shown()
    type_into(qtbot, field, "8")
    assert "expert_parallel" in legend.shown()
    assert window.training_vm.description.expert_parallel == 8  # type: ignore[union-attr]
