"""A language switch reaches the description and the planner by one route, the window's:
the training view-model builds one new state, the planner's follows it once, and every
word on screen is what a page built in the new language shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QTableWidget,
    QWidget,
)

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.view import PlannerView
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.training.panel import TrainingPanel
from gradacc_desktop.viewmodels.search import SearchViewModel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choose, dispose, show_tab

INPUTS = {
    TrainingField.TARGET: "1000",
    TrainingField.GPUS: "3",
    TrainingField.SEQ_LEN: "2048",
    TrainingField.DATASET: "1000000",
}


def _words(view: QWidget) -> Iterator[tuple[str, str, str]]:
    """Every word ``view`` shows or tells assistive technology, in widget order."""
    for widget in [view, *view.findChildren(QWidget)]:
        name = f"{type(widget).__name__}:{widget.objectName()}"
        yield name, "accessible", widget.accessibleName()
        yield name, "description", widget.accessibleDescription()
        yield name, "tip", widget.toolTip()
        if isinstance(widget, QLabel | QAbstractButton):
            yield name, "text", widget.text()
        elif isinstance(widget, QGroupBox):
            yield name, "title", widget.title()
        elif isinstance(widget, QComboBox):
            yield name, "items", "|".join(widget.itemText(i) for i in range(widget.count()))
        elif isinstance(widget, NumberField):
            yield name, "field", f"{widget.text()}|{widget.lineEdit().placeholderText()}"
        elif isinstance(widget, QTableWidget):
            for column in range(widget.columnCount()):
                header = widget.horizontalHeaderItem(column)
                yield name, f"header {column}", header.text() if header else ""
            for row in range(widget.rowCount()):
                cells = (widget.item(row, c) for c in range(widget.columnCount()))
                yield name, f"row {row}", "|".join(c.text() for c in cells if c is not None)


@pytest.mark.parametrize(("first", "then"), [("pt_BR", "en"), ("en", "pt_BR")])
def test_one_switch_rebuilds_once_and_rewords_everything(  # type: ignore[no-untyped-def]
    make_window, qtbot, first: str, then: str
) -> None:
    window: MainWindow = make_window(language=first)
    show_tab(window, window.planner_page)
    choose(window, Choice.MODEL, "qwen3-0.6b")
    for field, text in INPUTS.items():
        window.training_vm.set_text(field, text)
    window.training_vm.set_text(TrainingField.PRICE, "abc")  # a refused entry stays as typed
    view, panel = window.planner, window.description
    before = list(_words(view)) + list(_words(panel))
    training: list[object] = []
    planned: list[object] = []
    window.training_vm.stateChanged.connect(training.append)
    window.planner_vm.stateChanged.connect(planned.append)

    window.set_language(then)
    QApplication.processEvents()  # Qt's LanguageChange: not a second route

    assert len(training) == 1 and training[0] is window.training_vm.state
    assert len(planned) == 1 and planned[0] is window.planner_vm.state
    # exactly what a planner and a panel built in the new language show
    fresh_view = PlannerView(window.planner_vm, SearchViewModel(window.training_vm))
    fresh_panel = TrainingPanel(window.training_vm)
    for fresh in (fresh_view, fresh_panel):
        qtbot.addWidget(fresh)
    fresh_view.retranslate()
    after = list(_words(view)) + list(_words(panel))
    assert after != before
    # (in any order: Qt makes some of its own widgets when a view is first shown)
    assert sorted(_words(view)) == sorted(_words(fresh_view))
    assert sorted(_words(panel)) == sorted(_words(fresh_panel))
    assert window.description.fields[TrainingField.PRICE].text() == "abc"
    target = "1,000" if then == "en" else "1.000"
    assert window.description.fields[TrainingField.TARGET].text() == target
    dispose(fresh_view, fresh_panel)
