"""The planner is readable at every allowed size: at 800 × 600 and at the window's
minimum, in both languages, with extreme values, no two texts overlap and no text
is cut."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QTableView,
    QWidget,
)

from gradacc_desktop.ui.fit_label import FitLabel
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.viewmodels.planner import PlanField

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


def _settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def _window_rect(widget: QWidget, window: QWidget) -> QRect:
    """Where ``widget`` is seen in ``window``: its rectangle cut by every ancestor's."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect


def _shown_leaves(root: QWidget, window: QWidget) -> Iterator[tuple[QWidget, QRect]]:
    for widget in root.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow():
            continue
        if any(isinstance(c, QWidget) and c.isVisible() for c in widget.children()):
            continue
        rect = _window_rect(widget, window)
        if not rect.isEmpty():
            yield widget, rect


def _describe(widget: QWidget) -> str:
    text = getattr(widget, "text", None)
    shown = text() if callable(text) else ""
    return f"{type(widget).__name__} {widget.objectName()!r} {str(shown)[:40]!r}"


def _cut_text(widget: QWidget) -> str | None:
    """Why the widget's text does not fit in it, or None."""
    if isinstance(widget, QLabel) and widget.text():
        if widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
            if widget.height() < needed:
                return f"{widget.height()} px high, needs {needed} at {widget.width()} wide"
        else:
            hint = widget.sizeHint()
            if widget.width() < hint.width() or widget.height() < hint.height():
                return f"{widget.size().toTuple()} smaller than {hint.toTuple()}"
    if isinstance(widget, QAbstractButton | QComboBox):
        hint = widget.minimumSizeHint()
        if widget.width() < hint.width() or widget.height() < hint.height():
            return f"{widget.size().toTuple()} smaller than {hint.toTuple()}"
    if isinstance(widget, QLineEdit) and widget.text():
        needed = widget.fontMetrics().horizontalAdvance(widget.text()) + 8
        if widget.width() < needed:
            return f"{widget.width()} px wide, text needs {needed}"
    if isinstance(widget, FitLabel):
        width = QFontMetrics(widget.fitted_font()).horizontalAdvance(widget.text())
        if width > widget.contentsRect().width():
            return f"text {width} px wide in {widget.contentsRect().width()}"
    return None


def layout_problems(view: QWidget, window: QWidget) -> list[str]:
    found = []
    leaves = list(_shown_leaves(view, window))
    for i, (first, first_rect) in enumerate(leaves):
        for second, second_rect in leaves[i + 1 :]:
            if first_rect.intersects(second_rect):
                found.append(f"{_describe(first)} overlaps {_describe(second)}")
    for widget in [view, *view.findChildren(QWidget)]:
        if not widget.isVisible() or _window_rect(widget, window).isEmpty():
            continue
        reason = _cut_text(widget)
        if reason:
            found.append(f"{_describe(widget)}: {reason}")
        if isinstance(widget, QTableView):
            header = widget.horizontalHeader()
            for column in range(header.count()):
                needed = max(header.sectionSizeHint(column), widget.sizeHintForColumn(column))
                if header.sectionSize(column) < needed:
                    found.append(f"{_describe(widget)}: column {column} cut")
    return found


def _sizes(window: MainWindow) -> Iterator[tuple[int, int]]:
    window.resize(800, 600)
    _settle()
    yield window.width(), window.height()
    window.resize(1, 1)  # the window stops at its minimum
    _settle()
    window.resize(1, 1)
    _settle()
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
    _settle()
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
    _settle()
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
