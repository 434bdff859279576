"""What a user types, pastes, steps and scrolls in a field is what the results use."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import box, clear, shown, type_into, wheel


def paste_into(qtbot, field, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replace the field's text through the clipboard and the Paste shortcut."""
    QGuiApplication.clipboard().setText(text)
    clear(qtbot, field)
    qtbot.keySequence(field, QKeySequence.StandardKey.Paste)


PT_CASES = [
    ("0.25", "1 GB", "0,25 GB"),
    ("0,25", "1 GB", "0,25 GB"),
    ("1.234,5", "4.938 GB", "1\u00a0234,5 GB"),
    ("0,5 GB", "2 GB", "0,5 GB"),
    (" 0.125 ", "0,5 GB", "0,125 GB"),
]
EN_CASES = [
    ("0,5", "2 GB", "0.5 GB"),
    ("0.5", "2 GB", "0.5 GB"),
    ("1,234.5", "4,938 GB", "1,234.5 GB"),
    ("0.75 GB", "3 GB", "0.75 GB"),
]


@pytest.mark.parametrize(("language", "cases"), [("pt_BR", PT_CASES), ("en", EN_CASES)])
def test_typed_and_pasted_text_give_the_same_value(make_window, qtbot, language, cases) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    field = box(window, Field.ACTIVATION_GB)
    for text, memory, tidy in cases:
        type_into(qtbot, field, text)
        typed = (shown(window), window.vm.entry(Field.ACTIVATION_GB))
        qtbot.keyClick(field, Qt.Key.Key_Tab)
        assert field.text() == tidy
        paste_into(qtbot, field, text)
        assert field.text() == text  # a paste is kept as pasted while editing
        pasted = (shown(window), window.vm.entry(Field.ACTIVATION_GB))
        assert typed == pasted
        assert typed[0][1] == memory
        qtbot.keyClick(field, Qt.Key.Key_Tab)
        assert field.text() == tidy


def test_a_refused_value_stays_as_typed_and_nothing_is_computed_from_it(
    window: MainWindow, qtbot
) -> None:  # type: ignore[no-untyped-def]
    micro = box(window, Field.MICRO_BATCH)
    type_into(qtbot, micro, "0")
    qtbot.keyClick(micro, Qt.Key.Key_Tab)
    assert micro.text() == "0"  # no revert, no fix-up
    assert not window.vm.state.has_result
    error = window.inputs.errors[Field.MICRO_BATCH]
    assert error.isVisible()
    assert "insira um valor de 1 a 1.000.000" in error.text()
    QGuiApplication.clipboard().setText("sentinel")
    qtbot.mouseClick(window.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "sentinel"
    type_into(qtbot, micro, "2")
    assert shown(window) == ("16", "1 GB")
    assert not error.isVisible()


def test_unreadable_text_changes_nothing_and_says_so(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    field = box(window, Field.ACTIVATION_GB)
    type_into(qtbot, field, "abc")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert field.text() == "abc"
    assert window.results.problems.text() == "Ativação por amostra: “abc” não é um número."


def test_a_language_switch_keeps_every_value_and_text(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "0,75")
    type_into(qtbot, box(window, Field.MICRO_BATCH), "1.024")
    assert shown(window) == ("8.192", "768 GB")
    window.set_language("en")
    assert box(window, Field.ACTIVATION_GB).text() == "0.75 GB"
    assert box(window, Field.MICRO_BATCH).text() == "1,024"
    assert shown(window) == ("8,192", "768 GB")
    type_into(qtbot, box(window, Field.GPUS), "x1")
    window.set_language("pt_BR")
    assert box(window, Field.GPUS).text() == "x1"  # unreadable text is kept as typed
    assert window.vm.entry(Field.ACTIVATION_GB) == Decimal("0.75")


def test_arrows_step_from_what_is_typed(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    activation = box(window, Field.ACTIVATION_GB)
    type_into(qtbot, activation, "0.5")
    qtbot.keyClick(activation, Qt.Key.Key_Up)
    assert activation.text() == "0,6 GB"  # exact: 0.5 + 0.1, no float artefact
    assert shown(window) == ("32", "2,4 GB")
    micro = box(window, Field.MICRO_BATCH)
    type_into(qtbot, micro, "0")
    qtbot.keyClick(micro, Qt.Key.Key_Up)
    assert micro.text() == "1"  # out of range: the first step lands on the minimum


def test_the_wheel_changes_only_the_field_being_edited(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    micro = box(window, Field.MICRO_BATCH)
    steps = box(window, Field.ACCUMULATION_STEPS)
    steps.setFocus()
    wheel(micro, 120)
    assert micro.text() == "4"
    micro.setFocus()
    qtbot.waitUntil(micro.hasFocus)
    wheel(micro, 120)
    assert micro.text() == "5"
    assert shown(window) == ("40", "2,5 GB")


def test_each_message_sits_under_its_own_field(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A refused entry's message shows right under its field, above the next one (and
    above the estimator's button under the activation)."""
    inputs = window.inputs
    below = {
        Field.ACCUMULATION_STEPS: box(window, Field.GPUS),
        Field.ACTIVATION_GB: inputs.estimate_button,
    }
    for field, following in below.items():
        type_into(qtbot, box(window, field), "0")
        error = inputs.errors[field]
        assert error.isVisible() and error.text()
        field_box = box(window, field)
        top = error.mapTo(window, error.rect().topLeft()).y()
        bottom = error.mapTo(window, error.rect().bottomLeft()).y()
        assert field_box.mapTo(window, field_box.rect().bottomLeft()).y() < top
        assert following is not None
        assert bottom < following.mapTo(window, following.rect().topLeft()).y()
    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "8")
    assert not inputs.errors[Field.ACCUMULATION_STEPS].isVisible()
