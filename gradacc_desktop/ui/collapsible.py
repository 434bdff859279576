"""A titled section whose body opens and closes with a toggle button."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleBox(QWidget):
    toggled = Signal(bool)

    def __init__(self, body: QWidget, parent: QWidget | None = None) -> None:
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
        self.body = body
        self.body.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body, 1)
        self.toggle.toggled.connect(self._on_toggled)
        self._update_policy(False)

    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, opened: bool) -> None:
        self.toggle.setChecked(opened)

    def set_title(self, text: str) -> None:
        self.toggle.setText(text)
        self.toggle.setAccessibleName(text)

    def _on_toggled(self, opened: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        self.body.setVisible(opened)
        self._update_policy(opened)
        self.toggled.emit(opened)

    def _update_policy(self, opened: bool) -> None:
        vertical = QSizePolicy.Policy.Expanding if opened else QSizePolicy.Policy.Fixed
        self.setSizePolicy(QSizePolicy.Policy.Preferred, vertical)
