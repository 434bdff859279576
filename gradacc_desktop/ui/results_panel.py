"""The results pane: two result cards, or the "enter a value" prompt."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.fit_label import FitLabel
from gradacc_desktop.ui.prompt_page import PromptPage
from gradacc_desktop.viewmodels.calculator import CalculatorState, CalculatorViewModel


class ResultCard(QFrame):
    """A title, the number as the visual focus, and its substituted formula."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"card_{name}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # An opaque card: repainting a number does not repaint the panes beneath it.
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setAutoFillBackground(True)
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.value = FitLabel(26, self)
        self.value.setObjectName(f"result_{name}")
        self.formula = FitLabel(parent=self, bold=False)
        self.formula.setObjectName(f"formula_{name}")
        layout = QVBoxLayout(self)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.value)
        layout.addSpacing(4)
        layout.addWidget(self.formula)

    def set_accessible(self, value: str, formula: str) -> None:
        """Screen readers announce the card as "<title>: <value>" with the formula as detail."""
        self.value.setAccessibleName(f"{self.title.text()}: {value}")
        self.value.setAccessibleDescription(formula)


class ResultsPanel(QGroupBox):
    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.effective = ResultCard("effective_batch", self)
        self.activation = ResultCard("activation", self)
        self.per_gpu_title = QLabel(self)
        self.per_gpu_title.setWordWrap(True)
        self.per_gpu = FitLabel(self.font().pointSizeF() * 1.15, self)
        self.per_gpu.setObjectName("result_samples_per_gpu")
        self.per_gpu_title.setBuddy(self.per_gpu)
        self.memory_note = QLabel(self)
        self.memory_note.setObjectName("note_memory")
        self.memory_note.setWordWrap(True)

        results_page = QWidget(self)
        rl = QVBoxLayout(results_page)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.effective)
        rl.addWidget(self.activation)
        per_gpu_card = QFrame(self)
        per_gpu_card.setObjectName("card_samples_per_gpu")
        per_gpu_card.setFrameShape(QFrame.Shape.StyledPanel)
        per_gpu_card.setBackgroundRole(QPalette.ColorRole.Base)
        per_gpu_card.setAutoFillBackground(True)
        self.per_gpu_title.setParent(per_gpu_card)
        self.per_gpu.setParent(per_gpu_card)
        per_gpu_box = QVBoxLayout(per_gpu_card)
        per_gpu_box.setSpacing(2)
        per_gpu_box.addWidget(self.per_gpu_title)
        per_gpu_box.addWidget(self.per_gpu)
        rl.addWidget(per_gpu_card)
        self.memory_note.setContentsMargins(10, 0, 10, 0)
        rl.addWidget(self.memory_note)
        rl.addStretch(1)

        prompt_page = PromptPage("results", self)
        self.prompt, self.problems = prompt_page.prompt, prompt_page.problems

        self.pages = QStackedWidget(self)
        self.pages.addWidget(results_page)
        self.pages.addWidget(prompt_page)
        self._results_page, self._prompt_page = results_page, prompt_page
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages)

        vm.stateChanged.connect(self.show_state)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Results"))
        effective, activation, samples = self._vm.result_titles()
        self.effective.title.setText(effective)
        self.activation.title.setText(activation)
        self.per_gpu_title.setText(samples)
        self.per_gpu.setAccessibleName(self.per_gpu_title.text())
        self.show_state(self._vm.state)

    def show_state(self, state: CalculatorState) -> None:
        view = state.results
        if view is None:
            self._prompt_page.show_problems(state.prompt, state.problems)
            self.pages.setCurrentWidget(self._prompt_page)
            return
        self.effective.set_accessible(view.effective_batch, view.effective_formula)
        self.activation.set_accessible(view.activation, view.activation_formula)
        self.effective.value.setText(view.effective_batch)
        self.effective.formula.setText(view.effective_formula)
        self.activation.value.setText(view.activation)
        self.activation.formula.setText(view.activation_formula)
        self.per_gpu.setText(view.samples_per_gpu)
        self.memory_note.setText(view.memory_note)
        self.pages.setCurrentWidget(self._results_page)
