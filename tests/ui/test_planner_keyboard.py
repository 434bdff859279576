"""The planner page from the keyboard: the tab chain, the pairs table, mnemonics."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QScrollArea,
    QWidget,
)

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.view import PlannerView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choose, described, memory_typed, show_tab, type_into
from tests.ui.layout_checks import settle


@pytest.fixture
def planner(window: MainWindow) -> PlannerView:
    window.resize(800, 600)
    show_tab(window, window.planner_page)
    settle()
    return window.planner


def _stop(view: PlannerView, widget: QWidget | None) -> QWidget | None:
    """The tab-chain member that holds ``widget`` (a field's line edit is its field)."""
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


def _reachable(view: PlannerView) -> list[QWidget]:
    return [w for w in view.tab_chain() if w.isVisible() and w.isEnabled()]


def _walk(view: PlannerView, qtbot) -> list[QWidget | None]:  # type: ignore[no-untyped-def]
    """Press Tab from the first stop until the focus leaves the planner; each control
    that takes the focus is scrolled into view."""
    _reachable(view)[0].setFocus(Qt.FocusReason.TabFocusReason)
    visited: list[QWidget | None] = [_stop(view, QApplication.focusWidget())]
    for _ in range(40):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        if now is None or not view.isAncestorOf(now):
            return visited
        stop = _stop(view, now)
        if stop is not None and view.results.isAncestorOf(stop):
            assert _in_view(stop, view.results_area), stop.objectName()
        visited.append(stop)
    raise AssertionError(f"the focus never left the planner: {visited}")


def _timed(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A plan with a time, so the time card's button and the search have something."""
    choose(window, Choice.MODEL, "qwen3-0.6b")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")
    type_into(qtbot, described(window, TrainingField.TARGET), "512")


def test_tab_visits_every_control_in_reading_order_and_leaves(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _timed(window, qtbot)
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    # the search's page in the column: its own controls, the ranking first in focus
    assert planner.search.table.isVisible() and not planner.results_area.isVisible()
    assert QApplication.focusWidget() is planner.search.table
    settle()
    visited = _walk(planner, qtbot)
    assert visited == _reachable(planner)
    assert visited[0] is planner.search.world and planner.search.table in visited
    # Esc: the plan again, the focus on the button that opened the search
    qtbot.keyClick(planner.search.table, Qt.Key.Key_Escape)
    assert planner.results_area.isVisible() and not planner.search.isVisible()
    assert QApplication.focusWidget() is planner.search_card.open_button
    settle()  # the cards the plan shows laid out, as before a user's next key
    visited = _walk(planner, qtbot)
    assert visited == _reachable(planner)
    assert planner.search_card.open_button in visited
    assert planner.reference[TrainingField.REFERENCE_LR] in visited
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
    reachable = _reachable(planner)
    reachable[-1].setFocus(Qt.FocusReason.TabFocusReason)
    backwards = []
    for _ in range(len(reachable) - 1):
        backwards.append(_stop(planner, QApplication.focusWidget()))
        qtbot.keyClick(
            QApplication.focusWidget(), Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier
        )
    backwards.append(_stop(planner, QApplication.focusWidget()))
    assert backwards == list(reversed(reachable))


def test_the_table_is_one_stop_arrows_move_inside_and_return_uses_the_row(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    memory_typed(qtbot, window)
    type_into(qtbot, described(window, TrainingField.TARGET), "512")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")
    table = planner.pairs.table
    assert not table.tabKeyNavigation()
    table.setFocus(Qt.FocusReason.TabFocusReason)
    current = table.currentRow()
    assert table.item(current, 0).text() == "64"  # the recommended row
    qtbot.keyClick(table, Qt.Key.Key_Up)
    qtbot.keyClick(table, Qt.Key.Key_Up)
    assert table.currentRow() == current - 2
    recommend = window.description.recommend
    assert recommend.isChecked()  # moving chooses nothing
    qtbot.keyClick(table, Qt.Key.Key_Return)
    assert not recommend.isChecked()
    assert described(window, TrainingField.MICRO_BATCH).text() == "16"
    assert planner.results.configuration.formula.text() == "E = 16 × 4 × 8 = 512"
    assert QApplication.focusWidget() is table
    qtbot.keyClick(table, Qt.Key.Key_Down)
    qtbot.keyClick(table, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert planner.results.configuration.formula.text() == "E = 32 × 2 × 8 = 512"
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table  # Tab leaves the table


def test_the_pairs_table_has_a_title_and_no_alt_key_of_its_own(
    window: MainWindow, planner: PlannerView
) -> None:
    """Every letter of the tab is taken by the description and the buttons: the table
    is one Tab stop, its title without a mnemonic."""
    assert planner.pairs.title() == "Micro-lote e passos de acumulação"
    assert planner.pairs.table.accessibleName()


def _mnemonic(text: str) -> str | None:
    found = re.findall(r"&([^&])", text.replace("&&", ""))
    assert len(found) <= 1, text
    return found[0].lower() if found else None


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_planners_fields_and_buttons_have_a_mnemonic(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    """The buttons that act on the plan each have an Alt key; the planner's own fields
    (the GPUs to search on, the learning-rate reference) and the cost card's currency are
    labelled and reached with Tab: the description beside the page takes the other
    letters."""
    window: MainWindow = make_window(language=language)
    show_tab(window, window.planner_page)
    planner = window.planner
    labelled = [
        widget
        for widget in planner.findChildren(QLabel)
        if widget.buddy() is not None and planner.isAncestorOf(widget.buddy())
    ]
    assert len(labelled) == 4 and all(label.text() for label in labelled)
    buttons = [
        planner.results.configuration.use_button.text(),
        planner.search_card.open_button.text(),
        planner.search.run_button.text(),
        planner.search.use_button.text(),
        planner.results.time.use_fastest.text(),
    ]
    assert None not in [_mnemonic(text) for text in buttons], buttons
