"""Copy what the user selected, whatever kind of widget holds it."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


def copy_selection(widget: QWidget | None) -> bool:
    """Copy ``widget``'s selected text; False when it has none (the caller copies results).

    A window-level Copy shortcut fires before text views see Ctrl+C, so the window
    asks here first: details, previews, help and selectable labels keep their
    selection semantics.
    """
    if isinstance(widget, QAbstractSpinBox):
        widget = widget.findChild(QLineEdit)
    if isinstance(widget, QLineEdit) and widget.hasSelectedText():
        if widget.echoMode() == QLineEdit.EchoMode.Normal:
            widget.copy()
            return True
        return False
    if isinstance(widget, QTextEdit | QPlainTextEdit) and widget.textCursor().hasSelection():
        widget.copy()
        return True
    if isinstance(widget, QLabel) and widget.hasSelectedText():
        QApplication.clipboard().setText(widget.selectedText())
        return True
    return False
