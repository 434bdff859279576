"""The planner page and the description beside it are readable at every allowed size: at
800 × 600 and at the window's minimum, in both languages, with extreme values, no two
texts overlap and no text is cut (what does not fit scrolls)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QLabel

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import show_tab
from tests.ui.layout_checks import layout_problems, settle

# 5-digit inputs, 100 000 GB, and every optional field filled
EXTREME = {
    TrainingField.TARGET: "65536",
    TrainingField.GPUS: "1024",
    TrainingField.MICRO_BATCH: "3",
    TrainingField.GPU_MEMORY: "100000",
    TrainingField.ACTIVATION: "0.5",
    TrainingField.OTHER_MEMORY: "99999",
    TrainingField.SEQ_LEN: "32768",
    TrainingField.DATASET: "99999999999",
    TrainingField.TOKENS: "99999999999999",
    TrainingField.PRICE: "12345.67",
    TrainingField.REFERENCE_LR: "0.0003",
    TrainingField.REFERENCE_BATCH: "65536",
}


def _sizes(window: MainWindow) -> Iterator[tuple[int, int]]:
    for size in ((800, 600), (1, 1)):  # the window stops at its minimum
        for _ in range(3):  # as a drag would: wrapped texts settle their height over a few
            window.resize(*size)
            settle()
        yield window.width(), window.height()


def _enter_extremes(window: MainWindow, decimal_point: str) -> None:
    vm = window.training_vm
    vm.set_choice(Choice.RECOMMEND, False)
    vm.set_choice(Choice.CARD, "custom")
    for field, text in EXTREME.items():
        vm.set_text(field, text.replace(".", decimal_point))
    window.description.show_inputs(None)
    for field, box in window.planner.reference.items():
        box.set_text(vm.shown_text(field))


@pytest.mark.parametrize("extreme", [False, True], ids=["defaults", "extreme"])
@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_nothing_overlaps_and_no_text_is_cut(make_window, language: str, extreme: bool) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    show_tab(window, window.planner_page)
    view = window.planner
    if extreme:
        _enter_extremes(window, "," if language == "pt_BR" else ".")
        assert view.results.configuration.value.text() in ("67.584", "67,584")
        assert view.results.extras.lr_linear.text().endswith(("0,000309375", "0.000309375"))
    settle()
    for width, height in _sizes(window):
        assert width <= 800 and height <= 600
        for part in (view, window.description):
            problems = layout_problems(part, window)
            assert problems == [], f"{language} at {width}×{height}: {problems}"
        # the pairs table shows a few rows whatever the window's size
        table = view.pairs.table
        assert table.viewport().height() >= 3 * table.rowHeight(0)


def test_the_checks_see_an_overlap_and_a_cut_text(make_window) -> None:  # type: ignore[no-untyped-def]
    """The checks above are not blind: squeeze a wrapped text, lay a label over another."""
    window = make_window()
    show_tab(window, window.planner_page)
    view = window.planner
    window.training_vm.set_text(TrainingField.ACTIVATION, "1")  # a configuration shown
    window.training_vm.set_text(TrainingField.OTHER_MEMORY, "10")
    window.resize(800, 600)
    settle()
    title = view.results.configuration.title
    assert layout_problems(view, window) == []
    squeezed = QLabel("um texto longo que precisa de várias linhas", view.pairs)
    squeezed.setObjectName("squeezed")
    squeezed.setWordWrap(True)
    squeezed.setGeometry(QRect(view.pairs.table.geometry().topLeft(), QSize(60, 12)))
    squeezed.show()
    problems = layout_problems(view, window)
    assert any("squeezed" in p and "needs" in p for p in problems), problems
    squeezed.hide()
    stray = QLabel("sobreposto", title.parentWidget())
    stray.setGeometry(title.geometry())
    stray.show()
    problems = layout_problems(view, window)
    assert any("overlaps" in p and "sobreposto" in p for p in problems), problems
