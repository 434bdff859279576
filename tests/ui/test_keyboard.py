"""Keyboard, clipboard and menus as in any well-made desktop app, through events."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.planner_setup import described as describe
from tests.ui.helpers import box, choice_box, described, type_into, wheel


def _press_copy(window: MainWindow) -> None:
    widget = QApplication.focusWidget() or window
    from PySide6.QtTest import QTest

    QTest.keySequence(widget, QKeySequence.StandardKey.Copy)


def test_copy_with_a_selection_in_the_details_copies_the_selection(
    window: MainWindow, qtbot
) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(window, Qt.Key.Key_F1)
    browser = window.details.browser
    qtbot.waitUntil(browser.hasFocus)
    cursor = browser.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    cursor.movePosition(QTextCursor.MoveOperation.NextWord, QTextCursor.MoveMode.KeepAnchor, 2)
    browser.setTextCursor(cursor)
    selected = cursor.selectedText()
    assert selected.strip()
    QGuiApplication.clipboard().setText("sentinel")
    _press_copy(window)
    assert QGuiApplication.clipboard().text() == selected


def test_copy_in_a_field_without_selection_copies_the_results(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    micro = box(window, Field.MICRO_BATCH)
    type_into(qtbot, micro, "6")
    micro.lineEdit().deselect()
    QGuiApplication.clipboard().setText("sentinel")
    qtbot.keySequence(micro, QKeySequence.StandardKey.Copy)
    text = QGuiApplication.clipboard().text()
    assert "Tamanho de lote efetivo: E = 6 × 8 × 1 = 48" in text
    assert "Amostras por GPU em cada passo do otimizador (b × a): 48 = 6 × 8" in text


def test_copy_on_the_planner_copies_the_plan_not_the_calculator(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentWidget(window.planner_page)
    QGuiApplication.clipboard().setText("sentinel")
    # the focus in the training description beside the plan: Ctrl+C copies the plan
    first = described(window, TrainingField.TARGET)
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    qtbot.keySequence(first, QKeySequence.StandardKey.Copy)
    text = QGuiApplication.clipboard().text()
    assert text == window.planner_vm.clipboard_text()
    assert "Calculadora de Memória" not in text.splitlines()[0]


def test_copy_on_the_chart_copies_its_data(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    describe(window.training_vm, "4", "0,5")
    window.show_chart()
    QGuiApplication.clipboard().setText("sentinel")
    window.menus.copy_action.trigger()
    assert window.tradeoff_vm is not None
    assert QGuiApplication.clipboard().text() == window.tradeoff_vm.clipboard_text()


def test_ctrl_q_quits(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    assert len(window.menus.quit_action.shortcuts()) == 1
    box(window, Field.MICRO_BATCH).setFocus()
    qtbot.keyClick(
        box(window, Field.MICRO_BATCH), Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier
    )
    qtbot.waitUntil(lambda: not window.isVisible())


def test_f1_shows_the_current_tabs_help(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentWidget(window.planner_page)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.help_dialog is not None
    qtbot.waitUntil(window.help_dialog.isVisible)
    assert window.tabs.currentWidget() is window.planner_page  # it stays on the planner
    assert window.help_dialog.windowTitle() == "Ajuda: Planejar execução"
    assert "0.25 é 0,25" in window.help_dialog.text()
    window.help_dialog.close()
    window.tabs.setCurrentWidget(window.calculator)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.details.is_open()
    assert "Como digitar números" in window.details.text()


def _mnemonic(text: str) -> str | None:
    found = re.findall(r"&([^&])", text.replace("&&", ""))
    assert len(found) <= 1, text
    return found[0].lower() if found else None


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_menu_and_item_has_a_unique_mnemonic(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    menus = [a.menu() for a in window.menuBar().actions()]
    titles = [_mnemonic(m.title()) for m in menus if isinstance(m, QMenu)]
    assert None not in titles
    assert len(set(titles)) == len(titles)
    for menu in menus:
        assert isinstance(menu, QMenu)
        items = [a for a in menu.actions() if not a.isSeparator()]
        keys = [_mnemonic(a.text()) for a in items]
        assert None not in keys, [a.text() for a in items]
        assert len(set(keys)) == len(keys), [a.text() for a in items]


def test_the_wheel_over_an_unfocused_combo_scrolls_instead_of_choosing(
    window: MainWindow, qtbot
) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentWidget(window.planner_page)
    card = choice_box(window, Choice.CARD)
    before = card.currentText()
    described(window, TrainingField.TARGET).setFocus()
    wheel(card, -120)
    assert card.currentText() == before


def test_ctrl_page_down_in_a_field_switches_tabs_and_keeps_the_value(
    window: MainWindow, qtbot
) -> None:  # type: ignore[no-untyped-def]
    micro = box(window, Field.MICRO_BATCH)
    micro.setFocus()
    qtbot.waitUntil(micro.hasFocus)
    qtbot.keyClick(micro, Qt.Key.Key_PageDown, Qt.KeyboardModifier.ControlModifier)
    assert micro.text() == "4"
    assert window.tabs.currentWidget() is window.planner_page


def _alt_keys(window: MainWindow) -> list[tuple[str, str | None, str]]:
    """(kind, mnemonic, text) of the menus and of what the current tab shows."""
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel

    found = [("menu", _mnemonic(a.text()), a.text()) for a in window.menuBar().actions()]
    for button in window.tabs.findChildren(QAbstractButton):
        if button.isVisibleTo(window) and _mnemonic(button.text()):
            found.append(("button", _mnemonic(button.text()), button.text()))
    for label in window.tabs.findChildren(QLabel):
        if label.isVisibleTo(window) and _mnemonic(label.text()):
            found.append(("label", _mnemonic(label.text()), label.text()))
    for group in window.tabs.findChildren(QGroupBox):  # a titled box's letter focuses it
        if group.isVisibleTo(window) and _mnemonic(group.title()):
            found.append(("box", _mnemonic(group.title()), group.title()))
    return found


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_alt_key_of_a_tab_is_its_own(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    """Alt + a letter reaches one thing in each tab: a menu, a button or a field (the
    description beside the page included). A letter shared would only cycle the focus,
    and a menu's letter shared would never reach the field."""
    window: MainWindow = make_window(language=language)
    window.training_vm.set_choice(Choice.METHOD, Method.LORA)  # LoRA's rows shown too
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        QApplication.processEvents()
        found = _alt_keys(window)
        keys = [key for _kind, key, _text in found]
        assert len(keys) == len(set(keys)), (index, sorted(found, key=lambda f: str(f[1])))
        # the description's main fields keep a key of their own
        if index:
            assert {"d", "q", "e", "m", "g", "v", "o", "t", "z", "n"} <= set(keys)


def test_ctrl_tab_walks_the_tabs_from_a_field(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    micro = box(window, Field.MICRO_BATCH)
    micro.setFocus()
    qtbot.waitUntil(micro.hasFocus)
    qtbot.keyClick(micro, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.planner_page
    focused = QApplication.focusWidget() or window
    qtbot.keyClick(
        focused,
        Qt.Key.Key_Backtab,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert window.tabs.currentWidget() is window.calculator
    assert micro.text() == "4"
