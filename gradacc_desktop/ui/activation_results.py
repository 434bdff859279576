"""The estimator's results: two cards (saved, peak), the note on "Use this value",
warnings, the breakdown, assumptions and sources — or, while a field is refused,
the prompt and the problems."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.activation_parts import BreakdownTable
from gradacc_desktop.ui.collapsible import CollapsibleBox
from gradacc_desktop.ui.results_panel import ResultCard
from gradacc_desktop.viewmodels.activation import ActivationState
from gradacc_desktop.viewmodels.formatting import escape


class EstimatePanel(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = self
        self.saved = ResultCard("saved", box)
        self.peak = ResultCard("peak", box)
        self.calculator_note = QLabel(box)
        self.calculator_note.setObjectName("activation_calculator_note")
        self.calculator_note.setWordWrap(True)
        self.calculator_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.vision = QLabel(box)
        self.vision.setObjectName("activation_vision")
        self.vision.setWordWrap(True)
        self.vision.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings = QLabel(box)
        self.warnings.setObjectName("activation_warnings")
        self.warnings.setWordWrap(True)
        # the dialog lays the breakdown out across its whole width
        self.table = BreakdownTable(box)
        self.assumptions_text = QTextBrowser()
        self.assumptions_text.setObjectName("activation_assumptions")
        self.assumptions_text.setOpenExternalLinks(False)
        self.assumptions_text.setOpenLinks(False)
        self.assumptions = CollapsibleBox(self.assumptions_text, box)
        self.assumptions.toggle.setObjectName("activation_assumptions_toggle")
        self.assumptions.toggled.connect(self._on_assumptions_toggled)

        cards = QHBoxLayout()
        cards.addWidget(self.saved, 1)
        cards.addWidget(self.peak, 1)
        results_page = QWidget(box)
        rl = QVBoxLayout(results_page)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(cards)
        rl.addWidget(self.calculator_note)
        rl.addWidget(self.vision)
        rl.addWidget(self.warnings)
        rl.addStretch(1)

        self.prompt = QLabel(box)
        self.prompt.setObjectName("activation_prompt")
        self.prompt.setWordWrap(True)
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.prompt.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.prompt.setFont(font)
        self.problems = QLabel(box)
        self.problems.setObjectName("activation_problems")
        self.problems.setWordWrap(True)
        self.problems.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        prompt_page = QWidget(box)
        pl = QVBoxLayout(prompt_page)
        pl.addStretch(1)
        pl.addWidget(self.prompt)
        pl.addWidget(self.problems)
        pl.addStretch(1)

        self.pages = QStackedWidget(box)
        self.pages.addWidget(results_page)
        self.pages.addWidget(prompt_page)
        self._results_page, self._prompt_page = results_page, prompt_page
        self._layout = QVBoxLayout(box)
        self._layout.addWidget(self.pages, 3)
        self._layout.addWidget(self.assumptions, 0)

    def add_below_cards(self, widget: QWidget) -> None:
        """A part of the dialog that sits under the cards, above the assumptions."""
        self._layout.insertWidget(1, widget)

    def retranslate(self) -> None:
        self.setTitle(self.tr("Estimate per sample"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Part"), self.tr("Per layer"), self.tr("Per sample")]
        )
        self.table.setAccessibleName(self.tr("Breakdown"))
        self.assumptions.set_title(self.tr("Assumptions and sour&ces"))
        self.assumptions_text.setAccessibleName(self.tr("Assumptions and sources"))

    def show_state(self, state: ActivationState) -> None:
        self._show_assumptions(state)
        view = state.estimate
        if view is None:
            self.prompt.setText(state.prompt)
            self.problems.setText("\n".join(state.problems))
            self.pages.setCurrentWidget(self._prompt_page)
            self.table.setVisible(False)
            return
        self.saved.title.setText(view.saved_title)
        self.peak.title.setText(view.peak_title)
        self.saved.value.setText(view.saved)
        self.saved.formula.setText(view.saved_bytes)
        self.saved.set_accessible(view.saved, view.saved_bytes)
        self.peak.value.setText(view.peak)
        self.peak.formula.setText(view.peak_bytes)
        self.peak.set_accessible(view.peak, view.peak_bytes)
        self.calculator_note.setText(view.calculator_note)
        self.calculator_note.setVisible(bool(view.calculator_note))
        self.vision.setText(view.vision)
        self.vision.setVisible(bool(view.vision))
        self.warnings.setText("\n".join(view.warnings))
        self.warnings.setVisible(bool(view.warnings))
        self.table.show_rows(view.breakdown)
        self.table.setVisible(True)
        self.pages.setCurrentWidget(self._results_page)

    def _show_assumptions(self, state: ActivationState) -> None:
        assumptions = escape(self.tr("Assumptions"))
        sources = escape(self.tr("Sources"))
        html = []
        if state.estimate is not None:
            html.append(f"<h4>{assumptions}</h4><ul>")
            html += [f"<li>{escape(text)}</li>" for text in state.estimate.assumptions]
            html.append("</ul>")
        html.append(f"<h4>{sources}</h4><ul>")
        html += [f"<li>{escape(text)}</li>" for text in state.sources]
        html.append("</ul>")
        bar = self.assumptions_text.verticalScrollBar()
        position = bar.value()
        self.assumptions_text.setHtml("".join(html))
        bar.setValue(position)

    def _on_assumptions_toggled(self, opened: bool) -> None:
        # Opened, the assumptions share the column with the breakdown.
        self._layout.setStretch(self._layout.indexOf(self.assumptions), 2 if opened else 0)
