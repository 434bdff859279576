"""A language switch reaches the planner by one route, ``PlannerView.set_language``:
the view-models rebuild their state once and every word is in the new language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QLocale
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
from gradacc_desktop.ui.planner import PlannerView, create_planner
from gradacc_desktop.ui.planner.other_memory import OtherMemoryDialog
from gradacc_desktop.viewmodels.other_memory import MemoryField
from gradacc_desktop.viewmodels.planner import PlanField

INPUTS = {PlanField.TARGET: "1000", PlanField.GPUS: "3", PlanField.SEQ_LEN: "2048"}


def _planner(window: MainWindow, qtbot) -> PlannerView:  # type: ignore[no-untyped-def]
    """A planner the window does not know of: only ``set_language`` tells it of a switch."""
    view = create_planner(window.vm)
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    qtbot.waitExposed(view)
    for field, text in INPUTS.items():
        view.vm.set_text(field, text)
    view.vm.set_text(PlanField.REFERENCE_LR, "abc")  # a refused entry stays as typed
    return view


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
        elif isinstance(widget, QTableWidget):
            for column in range(widget.columnCount()):
                header = widget.horizontalHeaderItem(column)
                yield name, f"header {column}", header.text() if header else ""
            for row in range(widget.rowCount()):
                cells = (widget.item(row, c) for c in range(widget.columnCount()))
                yield name, f"row {row}", "|".join(c.text() for c in cells if c is not None)
        if hasattr(widget, "toPlainText"):
            yield name, "plain", widget.toPlainText()


@pytest.mark.parametrize(("first", "then"), [("pt_BR", "en"), ("en", "pt_BR")])
def test_one_set_language_rebuilds_once_and_rewords_everything(  # type: ignore[no-untyped-def]
    make_window, qtbot, first: str, then: str
) -> None:
    window: MainWindow = make_window(language=first)
    view = _planner(window, qtbot)
    before = list(_words(view))
    emitted: list[object] = []
    helper_emitted: list[object] = []
    view.vm.stateChanged.connect(emitted.append)
    view.other_memory_vm.stateChanged.connect(helper_emitted.append)

    window.set_language(then)  # the catalogues change; the window does not know ``view``
    QApplication.processEvents()  # Qt's LanguageChange: not a second route
    assert emitted == [] and helper_emitted == []

    view.set_language(QLocale(then))
    assert len(emitted) == 1 and emitted[0] is view.vm.state
    assert len(helper_emitted) == 1

    # exactly what a planner built in the new language shows for the same inputs
    fresh = _planner(window, qtbot)
    after, expected = list(_words(view)), list(_words(fresh))
    assert [w for w in after if w[0] != "PlannerView:"] != [
        w for w in before if w[0] != "PlannerView:"
    ]
    assert after == expected
    assert view.inputs.boxes[PlanField.REFERENCE_LR].text() == "abc"
    target = "1,000" if then == "en" else "1.000"
    assert view.inputs.boxes[PlanField.TARGET].text() == target


def test_set_language_rewords_an_open_estimate_dialog(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    view = _planner(window, qtbot)
    dialog = view.open_other_memory_dialog()
    assert isinstance(dialog, OtherMemoryDialog)
    assert dialog.total.text() == "Outra memória por GPU: 20 GB + 1 GB de sobrecarga = 21 GB"
    dialog.overhead.set_text("1,5")
    window.set_language("en")
    view.set_language(QLocale("en"))
    assert dialog.windowTitle() == "Estimate other memory per GPU"
    assert dialog.total.text() == "Other memory per GPU: 20 GB + 1.5 GB overhead = 21.5 GB"
    assert dialog.overhead.text() == "1.5 GB"
    assert dialog.labels[MemoryField.PARAMETERS].text() == "Model &parameters"
    dialog.reject()
    # let the closed dialog's deferred deletion run before the view is deleted: a
    # stand-alone planner deleted with it still pending aborts Qt (so before too)
    QApplication.processEvents()
