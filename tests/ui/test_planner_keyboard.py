"""The planner from the keyboard: the tab chain, the pairs table, mnemonics and copy."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QGroupBox,
    QLabel,
    QScrollArea,
    QWidget,
)

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.viewmodels.planner import PlanField


@pytest.fixture
def planner(window: MainWindow, qtbot) -> PlannerView:  # type: ignore[no-untyped-def]
    window.resize(800, 600)
    window.tabs.setCurrentIndex(1)
    view = window.planner
    window.activateWindow()
    qtbot.waitActive(window)
    return view


def _stop(view: PlannerView, widget: QWidget | None) -> QWidget | None:
    """The tab-chain member that holds ``widget`` (a spin box's editor is its box)."""
    chain = view.tab_chain()
    if widget in chain:
        return widget
    for member in chain:
        if widget is not None and member.isAncestorOf(widget):
            return member
    return widget


def _in_view(widget: QWidget, area: QScrollArea) -> bool:
    viewport = area.viewport()
    return viewport.rect().contains(QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size()))


def _walk(view: PlannerView, qtbot) -> list[QWidget | None]:  # type: ignore[no-untyped-def]
    """Press Tab from the first field until the focus leaves the planner; each control
    that takes the focus is scrolled into view."""
    view.inputs.first_widget().setFocus(Qt.FocusReason.TabFocusReason)
    visited: list[QWidget | None] = [_stop(view, QApplication.focusWidget())]
    for _ in range(60):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        if now is None or not view.isAncestorOf(now):
            return visited
        stop = _stop(view, now)
        for area in (view.inputs_area, view.results_area):
            if stop is not None and area.widget().isAncestorOf(stop):
                assert _in_view(stop, area), stop.objectName()
        visited.append(stop)
    raise AssertionError(f"the focus never left the planner: {visited}")


def _reachable(view: PlannerView) -> list[QWidget]:
    return [w for w in view.tab_chain() if w.isVisible() and w.isEnabled()]


def test_tab_visits_every_control_in_reading_order_and_leaves(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    visited = _walk(planner, qtbot)
    assert visited == _reachable(planner)
    assert visited[-1] is planner.pairs.table
    # every control that takes Tab is in the chain
    focusable = [
        w
        for w in planner.findChildren(QWidget)
        if w.isVisible()
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and w.focusProxy() is None
        and _stop(planner, w) not in visited
    ]
    assert focusable == []


def test_shift_tab_walks_the_chain_backwards(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _reachable(planner)[-1].setFocus(Qt.FocusReason.TabFocusReason)
    backwards = []
    for _ in range(len(_reachable(planner)) - 1):
        backwards.append(_stop(planner, QApplication.focusWidget()))
        qtbot.keyClick(
            QApplication.focusWidget(), Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier
        )
    backwards.append(_stop(planner, QApplication.focusWidget()))
    assert backwards == list(reversed(_reachable(planner)))


def test_the_table_is_one_stop_arrows_move_inside_and_return_uses_the_row(
    planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    planner.vm.set_text(PlanField.TARGET, "512")
    planner.vm.set_text(PlanField.GPUS, "8")
    table = planner.pairs.table
    assert not table.tabKeyNavigation()
    table.setFocus(Qt.FocusReason.TabFocusReason)
    current = table.currentRow()
    assert table.item(current, 0).text() == "64"  # the recommended row
    qtbot.keyClick(table, Qt.Key.Key_Up)
    qtbot.keyClick(table, Qt.Key.Key_Up)
    assert table.currentRow() == current - 2
    assert planner.inputs.recommend.isChecked()  # moving chooses nothing
    qtbot.keyClick(table, Qt.Key.Key_Return)
    assert not planner.inputs.recommend.isChecked()
    assert planner.vm.value(PlanField.MICRO_BATCH) == 16
    assert planner.results.configuration.formula.text() == "E = 16 × 4 × 8 = 512"
    assert QApplication.focusWidget() is table
    qtbot.keyClick(table, Qt.Key.Key_Down)
    qtbot.keyClick(table, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert planner.results.configuration.formula.text() == "E = 32 × 2 × 8 = 512"
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table  # Tab leaves the table


def test_the_pairs_title_mnemonic_reaches_the_table(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    assert planner.pairs.title() == "Micro-lote e passos de a&cumulação"
    first = planner.inputs.first_widget()
    first.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    assert QApplication.focusWidget() is planner.pairs.table


def _mnemonic(text: str) -> str | None:
    index = text.replace("&&", "").find("&")
    return None if index < 0 else text.replace("&&", "")[index + 1].lower()


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_label_and_button_has_its_own_mnemonic(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    """Labels of controls, buttons, the menus and titled groups that have a mnemonic:
    each with one, no two alike (the menus' count: Alt+key reaches them too)."""
    window = make_window(language=language)
    window.tabs.setCurrentIndex(1)
    planner = window.planner
    texts = []
    for widget in planner.findChildren(QWidget):
        labelled = isinstance(widget, QLabel) and widget.buddy() is not None
        if labelled or (isinstance(widget, QAbstractButton) and widget.text()):
            texts.append(widget.text())  # type: ignore[attr-defined]
        elif isinstance(widget, QGroupBox) and "&" in widget.title():
            texts.append(widget.title())
    texts += [action.text() for action in window.menuBar().actions() if action.text()]
    keys = [_mnemonic(text) for text in texts]
    assert None not in keys, texts
    assert len(set(keys)) == len(keys), sorted(zip(keys, texts, strict=True))
    # the table has no label: its group's title takes the focus there
    assert _mnemonic(planner.pairs.title()) is not None
