"""The calculator tab: the seed's page — inputs, live results, copy, details."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.confirmation import Confirmation
from gradacc_desktop.ui.details_panel import DetailsPanel
from gradacc_desktop.ui.header import Header
from gradacc_desktop.ui.inputs_panel import InputsPanel
from gradacc_desktop.ui.results_panel import ResultsPanel
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel


class CalculatorPage(QWidget):
    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("calculator_page")
        self.header = Header(vm, self)
        self.inputs = InputsPanel(vm, self)
        self.results = ResultsPanel(vm, self)
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("copy_button")
        # "✓ Copied" beside the button, where the eye is (the status bar says it too)
        self.copied = Confirmation(self, "copy_confirmation")
        self.details = DetailsPanel(vm, self)

        # The page scrolls rather than squeezing: at 800×600 with Details open, or at
        # the window's minimum, nothing is cut or drawn over something else.
        content = QWidget(self)
        content.setObjectName("calculator_content")
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("calculator_scroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        # a window smaller than this scrolls the page rather than shrinking further
        self.scroll_area.setMinimumSize(560, 420)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        # the result cards keep room for their numbers and the longest formula (5-digit
        # inputs, 100 000 GB) at the smallest size their labels shrink to
        self.results.setMinimumWidth(self.fontMetrics().averageCharWidth() * 52)

        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.setSpacing(12)
        layout.addWidget(self.header)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addWidget(self.inputs, 4)
        results_column = QVBoxLayout()
        results_column.addWidget(self.results, 1)
        copy_row = QHBoxLayout()
        copy_row.addStretch(1)
        copy_row.addWidget(self.copied)
        copy_row.addWidget(self.copy_button)
        results_column.addLayout(copy_row)
        body.addLayout(results_column, 5)
        layout.addLayout(body)
        layout.addWidget(self.details, 1)
        self._bottom_stretch = layout.count()
        layout.addStretch(0)
        self._layout = layout
        self.scroll_area.setWidget(content)
        self.details.toggled.connect(self._on_details_toggled)

        # Tab order follows the layout: inputs top to bottom, copy, details.
        chain = [*self.inputs.focus_chain(), self.copy_button, self.details.toggle]
        for first, second in pairwise(chain):
            self.setTabOrder(first, second)  # the details' text follows its toggle

    def _on_details_toggled(self, opened: bool) -> None:
        # closed: the empty space goes below the toggle; open: to the document
        self._layout.setStretch(self._bottom_stretch, 0 if opened else 1)

    def retranslate(self) -> None:
        self.header.retranslate()
        self.inputs.retranslate()
        self.results.retranslate()
        self.details.retranslate()
