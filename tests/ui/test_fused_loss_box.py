"""The fused loss (Liger) in the training description, as a user meets it: a check box
with its label and tooltip, ticked with the mouse or Space, read in the planner's memory
card, off under Megatron (saying why), saved in a scenario and opened again."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.activation import Attention
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.activation import Option
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into


def _llama_at_32k(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "32768")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")


def _usage(window: MainWindow) -> str:
    return window.planner.results.fit.usage.text()


def test_the_fused_loss_box_lowers_the_memory_and_is_saved(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    _llama_at_32k(window, qtbot)
    box = window.description.checks[Choice.FUSED_LOSS]
    assert box.isVisible() and box.isEnabled() and not box.isChecked()
    assert box.text() == "Perda fundida (Liger)"
    assert box.accessibleName() == "Perda fundida (Liger)"
    assert "use_liger_kernel" in box.toolTip()
    before = _usage(window)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))
    assert box.isChecked()
    d = window.training_vm.description
    assert d is not None and d.fused_loss
    assert _usage(window) != before  # the logits' 10·s·V bytes are gone
    path = tmp_path / "liger.json"
    assert window.scenarios.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["plan"]["fused_loss"] is True
    box.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(box, Qt.Key.Key_Space)  # from the keyboard
    assert not box.isChecked() and _usage(window) == before
    assert window.scenarios.open(path)
    assert box.isChecked()


def test_the_fused_loss_is_off_under_megatron_and_says_why(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    _llama_at_32k(window, qtbot)
    box = window.description.checks[Choice.FUSED_LOSS]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert not box.isEnabled() and not box.isChecked()
    assert box.toolTip().endswith(
        "Off now: The fused loss (Liger) replaces the head and loss of Hugging Face models: "
        "Megatron runs its own. Choose DeepSpeed or FSDP."
    )
    d = window.training_vm.description
    assert d is not None and not d.fused_loss
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    assert box.isEnabled() and box.isChecked()  # the choice waited


def test_the_estimator_opens_with_the_descriptions_fused_loss(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    """The description's loss is the estimator's at first (its figure is the one the
    description counts); unticking it there brings the logits back; an encoder's head
    takes no fused loss."""
    _llama_at_32k(window, qtbot)
    box = window.description.checks[Choice.FUSED_LOSS]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    fused = dialog.checks[Option.FUSED_LOSS]
    assert fused.isEnabled() and fused.isChecked()
    assert fused.text() == "Perda fundida (Liger)"
    peak = dialog.peak.value.text()
    qtbot.mouseClick(fused, Qt.MouseButton.LeftButton, pos=QPoint(6, fused.height() // 2))
    assert not fused.isChecked() and dialog.peak.value.text() != peak
    combo = dialog.combos[Option.PRESET]
    combo.setCurrentIndex(combo.findData("bert-base-uncased"))
    assert not fused.isEnabled()


def test_the_measuring_command_says_it_measures_the_loss_unfused(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    fused = dialog.checks[Option.FUSED_LOSS]
    assert "Liger" not in dialog.measure_command.toPlainText()
    qtbot.mouseClick(fused, Qt.MouseButton.LeftButton, pos=QPoint(6, fused.height() // 2))
    assert dialog.measure_command.toPlainText().endswith(
        "--no-dropout # measures the loss unfused: Liger's kernels need a GPU"
    )


def test_the_estimator_opens_with_the_descriptions_whole_step(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    """Recomputation, precision and attention kernel come with the model and length: the
    estimator's figure is the description's activation per sample."""
    _llama_at_32k(window, qtbot)
    pick(qtbot, choice_box(window, Choice.RECOMPUTE), Recompute.FULL)
    pick(qtbot, choice_box(window, Choice.PRECISION), Precision.FP16)
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    assert dialog.combos[Option.RECOMPUTE].currentData() is Recompute.FULL
    assert dialog.combos[Option.DTYPE].currentData() is Precision.FP16
    assert dialog.combos[Option.ATTENTION].currentData() is Attention.SDPA
    estimate, plan = dialog.vm.state.estimate, window.training_vm.plan
    assert estimate is not None and plan is not None
    assert estimate.result.peak_bytes == plan.figures.activation.bytes
