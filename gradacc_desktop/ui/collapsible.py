"""A titled section whose body opens and closes with a toggle button."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleBox(QWidget):
    toggled = Signal(bool)

    def __init__(self, body: QWidget | None, parent: QWidget | None = None) -> None:
        """``body`` may come later (``set_body``): a panel that builds it on first open."""
        super().__init__(parent)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("details_toggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        font = self.toggle.font()
        font.setBold(True)
        self.toggle.setFont(font)
        self.body: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.toggle)
        if body is not None:
            self.set_body(body)
        self.toggle.toggled.connect(self._on_toggled)
        self._update_policy(False)

    def set_body(self, body: QWidget) -> None:
        self.body = body
        body.setVisible(self.is_open())
        self._layout.addWidget(body, 1)

    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, opened: bool) -> None:
        self.toggle.setChecked(opened)

    def set_title(self, text: str) -> None:
        self.toggle.setText(text)
        self.toggle.setAccessibleName(text)

    def _on_toggled(self, opened: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        if self.body is not None:
            self.body.setVisible(opened)
        self._update_policy(opened)
        self.toggled.emit(opened)

    def _update_policy(self, opened: bool) -> None:
        vertical = QSizePolicy.Policy.Expanding if opened else QSizePolicy.Policy.Fixed
        self.setSizePolicy(QSizePolicy.Policy.Preferred, vertical)
