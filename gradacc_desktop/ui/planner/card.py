"""The planner's building blocks: a framed card with a bold title, a wrapped text label."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget


def text_label(parent: QWidget, name: str, selectable: bool = True) -> QLabel:
    """A word-wrapped label named ``name`` (selectable with the mouse unless told)."""
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class Card(QFrame):
    """A framed section with a bold title."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"plan_card_{name}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self)
        self.title.setObjectName(f"plan_title_{name}")
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.body = QVBoxLayout(self)
        self.body.setSpacing(4)
        self.body.addWidget(self.title)
