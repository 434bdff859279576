"""Title and one-line description at the top of the window."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gradacc_desktop.viewmodels.calculator import CalculatorViewModel


class Header(QWidget):
    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.title = QLabel(self)
        self.title.setObjectName("header_title")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.description = QLabel(self)
        self.description.setObjectName("header_description")
        self.description.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.description)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(self._vm.title())
        self.description.setText(
            self.tr(
                "Calculate the effective batch size reached through gradient accumulation and the "
                "activation memory it requires, from the micro-batch size, the accumulation steps, "
                "the data-parallel replicas and the activation cost per sample."
            )
        )
