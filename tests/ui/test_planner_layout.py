"""The planner is readable at every allowed size: at 800 × 600 and at the window's
minimum, in both languages, with extreme values, no two texts overlap and no text
is cut."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QLabel

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.viewmodels.planner import PlanField
from tests.ui.layout_checks import layout_problems, settle

# 5-digit inputs, 100 000 GB, and every optional field filled
EXTREME = {
    PlanField.TARGET: "65536",
    PlanField.GPUS: "1024",
    PlanField.MICRO_BATCH: "3",
    PlanField.GPU_MEMORY: "100000",
    PlanField.OTHER_MEMORY: "99999",
    PlanField.SEQ_LEN: "32768",
    PlanField.DATASET: "99999999999",
    PlanField.REFERENCE_LR: "0.0003",
    PlanField.REFERENCE_BATCH: "65536",
}


def _sizes(window: MainWindow) -> Iterator[tuple[int, int]]:
    window.resize(800, 600)
    settle()
    yield window.width(), window.height()
    window.resize(1, 1)  # the window stops at its minimum
    settle()
    window.resize(1, 1)
    settle()
    yield window.width(), window.height()


def _enter_extremes(view: PlannerView, decimal_point: str) -> None:
    vm = view.vm
    vm.set_recommend(False)
    vm.set_card("custom")
    vm.set_text(PlanField.REFERENCE_LR, "")
    for field, text in EXTREME.items():
        vm.set_text(field, text.replace(".", decimal_point))
    view.inputs.show_inputs(None)


@pytest.mark.parametrize("extreme", [False, True], ids=["defaults", "extreme"])
@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_nothing_overlaps_and_no_text_is_cut(make_window, language: str, extreme: bool) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    window.tabs.setCurrentIndex(1)
    view = window.planner
    if extreme:
        _enter_extremes(view, "," if language == "pt_BR" else ".")
        assert view.results.configuration.value.text() in ("67.584", "67,584")
    settle()
    for width, height in _sizes(window):
        assert width <= 800 and height <= 600
        problems = layout_problems(view, window)
        assert problems == [], f"{language} at {width}×{height}: {problems}"
        # the pairs table shows a few rows whatever the window's size
        table = view.pairs.table
        assert table.viewport().height() >= 3 * table.rowHeight(0)


def test_the_checks_see_an_overlap_and_a_cut_text(make_window) -> None:  # type: ignore[no-untyped-def]
    """The checks above are not blind: squeeze a wrapped text, lay a label over another."""
    window = make_window()
    window.tabs.setCurrentIndex(1)
    view = window.planner
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
