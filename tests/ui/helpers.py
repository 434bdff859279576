from __future__ import annotations

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField


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


def flush_deletions() -> None:
    """Run the pending ``deleteLater`` calls now.

    Qt deletes such objects when control returns to an event loop, which a test that
    never waits may not do; meanwhile they stay alive and every language switch of a
    later test retranslates them. Deleting a window can post more deletions (its
    children's), hence the second round.
    """
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QApplication.processEvents()


def dispose(*objects: QObject) -> None:
    """Close each widget and delete each object (and its children) now."""
    for obj in objects:
        if not shiboken6.isValid(obj):  # deleted already, e.g. with its parent
            continue
        if isinstance(obj, QWidget):
            obj.close()
        obj.deleteLater()
    flush_deletions()


def menus_of(window):  # type: ignore[no-untyped-def]
    """The menu bar's menus, in order (File, Language, Help)."""
    return (window.menus.file_menu, window.menus.language_menu, window.menus.help_menu)


def described(window: MainWindow, field: TrainingField) -> NumberField:
    """The training description's field for ``field``."""
    return window.description.fields[field]


def memory_typed(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Type the memory per GPU into the description — 1 GB per sample, 10 GB of other
    memory on the 80 GB card: up to 70 samples fit — so that, without a model, a
    micro-batch can be recommended (none is while the memory is not known)."""
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "1")
    type_into(qtbot, described(window, TrainingField.OTHER_MEMORY), "10")


def choice_box(window: MainWindow, choice: Choice) -> QComboBox:
    return window.description.combos[choice]


def choose(window: MainWindow, choice: Choice, data: object) -> None:
    """Pick ``data`` in the description's ``choice`` as a click in its list would."""
    combo = choice_box(window, choice)
    index = combo.findData(data)
    assert index >= 0, (choice, data)
    combo.setCurrentIndex(index)


def paste(qtbot, field: QAbstractSpinBox, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replace the field's text through the clipboard and the Paste shortcut."""
    QGuiApplication.clipboard().setText(text)
    clear(qtbot, field)
    qtbot.keySequence(field, QKeySequence.StandardKey.Paste)


def pick(qtbot, combo: QComboBox, data: object) -> None:  # type: ignore[no-untyped-def]
    """Choose ``data`` in ``combo`` with the arrow keys, as a user of the keyboard would."""
    target = combo.findData(data)
    assert target >= 0, data
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    while combo.currentIndex() != target:
        key = Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up
        before = combo.currentIndex()
        qtbot.keyClick(combo, key)
        assert combo.currentIndex() != before, f"the arrow keys do not reach {data!r}"


def wheel(widget: QWidget, delta: int) -> None:
    """One notch of the mouse wheel over the middle of ``widget`` (up when positive)."""
    pos = QPointF(widget.rect().center())
    event = QWheelEvent(
        pos,
        QPointF(widget.mapToGlobal(pos.toPoint())),
        QPoint(0, 0),
        QPoint(0, delta),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def show_tab(window: MainWindow, page: QWidget) -> None:
    """Switch to ``page``'s tab; a page built while shown is laid out on the next loop."""
    window.tabs.setCurrentWidget(page)
    QApplication.processEvents()
