"""The master copy in the training description, as a user meets it: a combo box with its
label, tooltip and place in the tab order, chosen from the keyboard, read in the memory
card, a copy the framework does not keep said in the description, saved in a scenario."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into


def _llama_on_8(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "4096")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)


def _usage(window: MainWindow) -> str:
    return window.planner.results.fit.usage.text()


def test_the_bf16_master_copy_lowers_the_memory_and_is_saved(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    _llama_on_8(window, qtbot)
    combo = choice_box(window, Choice.MASTER_WEIGHTS)
    label = window.description.labels[Choice.MASTER_WEIGHTS]
    assert combo.isVisible() and label.isVisible() and label.buddy() is combo
    assert label.text() == "Pesos mestres" and combo.accessibleName() == "Pesos mestres"
    assert combo.currentText() == "fp32 (precisão mista)"
    assert "bf16_master_weights_and_grads" in combo.toolTip()
    before = _usage(window)
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # from the keyboard: bf16 (DeepSpeed)
    assert combo.currentText() == "bf16 (DeepSpeed)"
    d = window.training_vm.description
    assert d is not None and d.master is MasterWeights.BF16
    assert _usage(window) != before
    assert not window.description.problems.isVisible()
    # the other memory's note names the copy its model states are counted with
    note = window.training_vm.state.notes.other.text
    assert "(ZeRO-3 sobre 8 GPUs, cópia mestre em bf16, como o DeepSpeed" in note, note
    path = tmp_path / "bf16.json"
    assert window.scenarios.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["plan"]["master_weights"] == "bf16"
    qtbot.keyClick(combo, Qt.Key.Key_Up)
    assert _usage(window) == before
    assert window.scenarios.open(path)
    assert combo.currentText() == "bf16 (DeepSpeed)"


def test_pure_bf16_needs_a_framework_that_keeps_no_copy(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    _llama_on_8(window, qtbot)
    before = _usage(window)
    pick(qtbot, choice_box(window, Choice.MASTER_WEIGHTS), MasterWeights.NONE)
    problems = window.description.problems
    assert problems.isVisible()
    assert problems.text() == (
        "DeepSpeed's optimizers always keep a master copy, in fp32 or in bf16: the figures "
        "count the fp32 one."
    )
    assert _usage(window) == before  # counted with the fp32 copy, as said
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    assert not problems.isVisible()
    d = window.training_vm.description
    assert d is not None and d.master is MasterWeights.NONE


def test_the_plan_says_the_problem_above_its_figures(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    _llama_on_8(window, qtbot)
    above = window.planner.results.description_problems
    assert not above.isVisible()
    pick(qtbot, choice_box(window, Choice.MASTER_WEIGHTS), MasterWeights.NONE)
    # seen with the description hidden too: the figures count the fp32 copy, and say why
    window.description.setVisible(False)
    assert above.isVisible()
    assert above.text().startswith("DeepSpeed's optimizers always keep a master copy")
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    assert not above.isVisible()
