"""The "no result" page of a results pane: the prompt and one line per bad field."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class PromptPage(QWidget):
    def __init__(
        self, name: str, parent: QWidget | None = None, selectable: bool = False, top: bool = False
    ) -> None:
        """``top``: the words at the top (a column that scrolls), not in the middle."""
        super().__init__(parent)
        self.prompt = QLabel(self)
        self.prompt.setObjectName(f"{name}_prompt")
        font = self.prompt.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.prompt.setFont(font)
        self.problems = QLabel(self)
        self.problems.setObjectName(f"{name}_problems")
        for label in (self.prompt, self.problems):
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if selectable:
            self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        if not top:
            layout.addStretch(1)
        layout.addWidget(self.prompt)
        layout.addWidget(self.problems)
        layout.addStretch(1)

    def show_problems(self, prompt: str, problems: tuple[str, ...] | list[str]) -> None:
        self.prompt.setText(prompt)
        self.problems.setText("\n".join(problems))
