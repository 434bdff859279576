"""A model with a vision tower in the training description: the image inputs and the
frozen-tower box appear only for it, and what they say reaches the derived activation
and the trainable parameters the plan uses."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.training.specs import Extra
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choose, described, show_tab, type_into

F = TrainingField


def _activation(window: MainWindow) -> str:
    """The derived activation per sample, as the description's note says it."""
    note = window.description.notes[Extra.ACTIVATION_NOTE].text()
    assert note.startswith("Estimado:"), note
    return note


def test_the_image_inputs_show_only_for_a_model_with_a_vision_tower(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    show_tab(window, window.planner_page)
    panel = window.description
    choose(window, Choice.MODEL, "llama-3.1-8b")
    assert not described(window, F.IMAGES).isVisibleTo(window)
    assert not panel.checks[Choice.VISION_FROZEN].isVisibleTo(window)
    choose(window, Choice.MODEL, "qwen2-vl-2b-instruct")
    type_into(qtbot, described(window, F.SEQ_LEN), "2048")
    for field in (F.IMAGES, F.IMAGE_WIDTH, F.IMAGE_HEIGHT):
        assert described(window, field).isVisibleTo(window), field
        assert described(window, field).text() == ""  # empty: one image at 448²
    frozen = panel.checks[Choice.VISION_FROZEN]
    assert frozen.isVisibleTo(window) and frozen.text() == "Torre de visão congelada"
    assert frozen.toolTip()
    one = _activation(window)
    assert one
    type_into(qtbot, described(window, F.IMAGES), "3")
    three = _activation(window)
    assert three != one
    # LLaVA resizes every image: no size to ask for
    choose(window, Choice.MODEL, "llava-1.5-7b")
    assert described(window, F.IMAGES).isVisibleTo(window)
    assert not described(window, F.IMAGE_WIDTH).isVisibleTo(window)


def test_a_frozen_tower_lowers_the_trainable_parameters(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    show_tab(window, window.planner_page)
    choose(window, Choice.MODEL, "qwen2-vl-2b-instruct")
    type_into(qtbot, described(window, F.SEQ_LEN), "2048")
    vm = window.description.vm
    plan = vm.state.plan
    assert plan is not None
    before = plan.figures.trainable
    activation = _activation(window)
    frozen = window.description.checks[Choice.VISION_FROZEN]
    frozen.setFocus()
    qtbot.keyClick(frozen, Qt.Key.Key_Space)
    assert frozen.isChecked()
    plan = vm.state.plan
    assert plan is not None
    assert plan.figures.trainable == before - 665_271_296
    assert _activation(window) != activation
