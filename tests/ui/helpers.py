from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow


def box(window: MainWindow, field: Field) -> QAbstractSpinBox:
    return window.inputs.boxes[field]


def clear(qtbot, spin: QAbstractSpinBox) -> None:  # type: ignore[no-untyped-def]
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClick(spin, Qt.Key.Key_Backspace)


def type_into(qtbot, spin: QAbstractSpinBox, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replace the field's text by typing, keystroke by keystroke, as a user would."""
    clear(qtbot, spin)
    qtbot.keyClicks(spin, text)


def shown(window: MainWindow) -> tuple[str, str]:
    """The two big numbers of the results pane, as the user reads them."""
    return window.results.effective.value.text(), window.results.activation.value.text()


def results_visible(window: MainWindow) -> bool:
    return window.results.effective.value.isVisible()
