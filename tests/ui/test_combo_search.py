"""Typing a choice's words picks it, spaces and all (the GPU model: "NVIDIA H100"); a
space on its own still opens the list."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice
from tests.ui.helpers import choice_box, show_tab


def test_typing_a_card_with_spaces_picks_it(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    card = choice_box(window, Choice.CARD)
    card.setFocus()
    qtbot.waitUntil(card.hasFocus)
    qtbot.keyClicks(card, "NVIDIA H100")
    assert card.currentText() == "NVIDIA H100 SXM 80GB"
    assert not card.view().isVisible()  # the space went on with the search
    assert window.training_vm.choice(Choice.CARD) == card.currentData()
    qtbot.wait(QApplication.keyboardInputInterval() + 50)  # a new search, later on
    qtbot.keyClicks(card, "NVIDIA GeForce RTX 4090")
    assert card.currentText() == "NVIDIA GeForce RTX 4090 24GB"


def test_a_space_alone_opens_the_list(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    method = choice_box(window, Choice.METHOD)
    method.setFocus()
    qtbot.waitUntil(method.hasFocus)
    qtbot.wait(QApplication.keyboardInputInterval() + 50)
    qtbot.keyClick(method, Qt.Key.Key_Space)
    qtbot.waitUntil(method.view().isVisible)
    method.hidePopup()


def test_any_word_of_a_card_finds_it(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Every card's name starts with its vendor: "h100" finds the H100 by its word, and
    "h" again goes on to the next card with a word starting with it."""
    show_tab(window, window.planner_page)
    card = choice_box(window, Choice.CARD)
    card.setFocus()
    qtbot.waitUntil(card.hasFocus)
    qtbot.keyClicks(card, "h100")
    assert card.currentText() == "NVIDIA H100 SXM 80GB"
    assert window.training_vm.choice(Choice.CARD) == card.currentData()
    qtbot.wait(QApplication.keyboardInputInterval() + 50)
    qtbot.keyClicks(card, "4090")
    assert card.currentText() == "NVIDIA GeForce RTX 4090 24GB"
    qtbot.wait(QApplication.keyboardInputInterval() + 50)
    qtbot.keyClicks(card, "mi")
    assert card.currentText().startswith("AMD Instinct MI300X")
    qtbot.wait(QApplication.keyboardInputInterval() + 50)
    before = card.currentText()
    qtbot.keyClicks(card, "zzz")  # nothing: the choice stays
    assert card.currentText() == before
