"""The planner's result cards: configuration, memory fit, DeepSpeed, tokens and steps."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.fit_label import FitLabel
from gradacc_desktop.ui.planner.card import Card, text_label
from gradacc_desktop.ui.planner.cost import CostCard
from gradacc_desktop.ui.planner.step_parts import PartsLegend, StepBar
from gradacc_desktop.ui.prompt_page import PromptPage
from gradacc_desktop.ui.verdict import VerdictLabel, verdict_colour
from gradacc_desktop.viewmodels.planner import (
    ConfigurationView,
    DeepSpeedView,
    ExtrasView,
    FitView,
    NothingFitsView,
    PlannerState,
    PlannerViewModel,
    TimeView,
)


class ConfigurationCard(Card):
    useRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("configuration", parent)
        self.badge = VerdictLabel(self)
        self.badge.setObjectName("plan_exact_badge")
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.body.removeWidget(self.title)
        self.body.addLayout(head)
        self.value = FitLabel(26, self)
        self.value.setObjectName("plan_achieved")
        self.formula = text_label(self, "plan_formula")
        self.summary = text_label(self, "plan_summary")
        self.difference = text_label(self, "plan_difference")
        self.note = text_label(self, "plan_note")
        self.reachable = text_label(self, "plan_reachable")
        self.exact_title = text_label(self, "plan_exact_title")
        self.exact_pairs = text_label(self, "plan_exact_pairs")
        self.use_button = QPushButton(self)
        self.use_button.setObjectName("plan_use")
        self.use_hint = text_label(self, "plan_use_hint")
        for widget in (
            self.value,
            self.formula,
            self.summary,
            self.difference,
            self.note,
            self.reachable,
            self.exact_title,
            self.exact_pairs,
        ):
            self.body.addWidget(widget)
        row = QHBoxLayout()
        row.addWidget(self.use_hint, 1)
        row.addWidget(self.use_button, 0, Qt.AlignmentFlag.AlignRight)
        self.body.addLayout(row)
        self.use_button.clicked.connect(self.useRequested)

    def show_view(self, view: ConfigurationView) -> None:
        self.title.setText(view.title)
        self.badge.set_verdict(view.exact, view.exact_badge)
        self.value.setText(view.achieved)
        self.formula.setText(view.formula)
        self.summary.setText(view.summary)
        self.difference.setText(view.difference)
        self.note.setText(view.note)
        self.note.setVisible(bool(view.note))
        self.reachable.setText(view.reachable)
        self.reachable.setVisible(bool(view.reachable))
        self.exact_title.setText(view.exact_pairs_title)
        self.exact_pairs.setText(view.exact_pairs)
        self.exact_pairs.setVisible(bool(view.exact_pairs))
        self.use_button.setEnabled(view.can_use)
        self.use_hint.setText(view.use_hint)
        self.use_hint.setVisible(bool(view.use_hint))


class NothingFitsCard(Card):
    """Not even one sample fits: why, with the numbers, and each single change that
    would fit, with a button that makes it."""

    useAlternative = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("nothing_fits", parent)
        self.verdict = VerdictLabel(self)
        self.verdict.setObjectName("plan_nothing_fits_verdict")
        self.message = text_label(self, "plan_nothing_fits")
        self.suggestions = text_label(self, "plan_suggestions")
        for widget in (self.verdict, self.message, self.suggestions):
            self.body.addWidget(widget)
        self.alternatives = QVBoxLayout()
        self.alternatives.setSpacing(2)
        self.body.addLayout(self.alternatives)
        self.rows: list[tuple[QLabel, QPushButton]] = []
        self._use_text = ""

    def set_use_text(self, text: str) -> None:
        self._use_text = text
        for _label, button in self.rows:
            button.setText(text)

    def show_view(self, view: NothingFitsView, verdict: str) -> None:
        self.verdict.set_verdict(False, verdict)
        self.message.setText(view.message)
        self.suggestions.setText(view.suggestions_title)
        while len(self.rows) < len(view.suggestions):
            index = len(self.rows)
            row = QHBoxLayout()
            label = text_label(self, f"plan_alternative_{index}")
            button = QPushButton(self._use_text, self)
            button.setObjectName(f"plan_use_alternative_{index}")
            button.clicked.connect(lambda _checked=False, i=index: self.useAlternative.emit(i))
            row.addWidget(label, 1)
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.alternatives.addLayout(row)
            self.rows.append((label, button))
        for index, (label, button) in enumerate(self.rows):
            shown = index < len(view.suggestions)
            label.setVisible(shown)
            button.setVisible(shown)
            if shown:
                text = view.suggestions[index]
                label.setText(f"• {text}")
                button.setAccessibleName(f"{self._use_text.replace('&', '')}: {text}")


class FitCard(Card):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("fit", parent)
        self.verdict = VerdictLabel(self)
        self.verdict.setObjectName("plan_fit_verdict")
        self.usage = text_label(self, "plan_fit_usage")
        self.headroom = text_label(self, "plan_headroom")
        self.largest = text_label(self, "plan_largest")
        for widget in (self.verdict, self.usage, self.headroom, self.largest):
            self.body.addWidget(widget)

    def show_view(self, view: FitView) -> None:
        self.verdict.set_verdict(view.fits, view.verdict)
        self.usage.setText(view.usage)
        self.headroom.setText(view.headroom)
        self.largest.setText(view.largest)


class DeepSpeedCard(Card):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("deepspeed", parent)
        self.verdict = VerdictLabel(self)
        self.verdict.setObjectName("plan_deepspeed_verdict")
        self.explanation = text_label(self, "plan_deepspeed")
        self.megatron_verdict = VerdictLabel(self)
        self.megatron_verdict.setObjectName("plan_megatron_verdict")
        self.megatron_explanation = text_label(self, "plan_megatron")
        self.body.addWidget(self.verdict)
        self.body.addWidget(self.explanation)
        self.body.addWidget(self.megatron_verdict)
        self.body.addWidget(self.megatron_explanation)

    def show_view(self, view: DeepSpeedView) -> None:
        self.verdict.set_verdict(view.ok, view.verdict)
        self.explanation.setText(view.explanation)
        self.megatron_verdict.set_verdict(view.megatron_ok, view.megatron_verdict)
        self.megatron_explanation.setText(view.megatron_explanation)


class ExtrasCard(Card):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("extras", parent)
        # the learning-rate reference (the planner's own inputs) sits in this card
        self.reference = QFormLayout()
        self.reference.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.body.addLayout(self.reference)
        self.tokens = text_label(self, "plan_tokens")
        self.steps = text_label(self, "plan_steps")
        self.lr_linear = text_label(self, "plan_lr_linear")
        self.lr_sqrt = text_label(self, "plan_lr_sqrt")
        self.lr_note = text_label(self, "plan_lr_note")
        font = self.lr_note.font()
        font.setItalic(True)
        self.lr_note.setFont(font)
        for widget in (self.tokens, self.steps, self.lr_linear, self.lr_sqrt, self.lr_note):
            self.body.addWidget(widget)

    def show_view(self, view: ExtrasView) -> None:
        self.tokens.setText(view.tokens)
        self.steps.setText(view.steps)
        self.lr_linear.setText(view.lr_linear)
        self.lr_sqrt.setText(view.lr_sqrt)
        self.lr_sqrt.setVisible(bool(view.lr_sqrt))
        self.lr_note.setText(view.lr_note)


class TimeCard(Card):
    """Time per step of the configuration in use, where its step's time goes (a stacked
    bar and its legend), the fastest pair that fits (with a button to use it) and which
    parts make it faster; or why the time cannot be estimated."""

    useFastest = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("time", parent)
        self.message = text_label(self, "plan_time_message")
        self.summary = text_label(self, "plan_time_summary")
        self.utilisation = text_label(self, "plan_time_utilisation")
        self.shares = text_label(self, "plan_time_shares")
        self.layout_text = text_label(self, "plan_time_layout")
        self.parts_title = text_label(self, "plan_time_parts_title")
        self.bar = StepBar(self)
        self.legend = PartsLegend(self)
        self.fastest = text_label(self, "plan_time_fastest")
        self.difference = text_label(self, "plan_time_difference")
        self.use_fastest = QPushButton(self)
        self.use_fastest.setObjectName("plan_use_fastest")
        self.note = text_label(self, "plan_time_note")
        font = self.note.font()
        font.setItalic(True)
        self.note.setFont(font)
        for widget in (
            self.message,
            self.summary,
            self.utilisation,
            self.shares,
            self.layout_text,
        ):
            self.body.addWidget(widget)
        self.body.addSpacing(4)
        for part in (self.parts_title, self.bar, self.legend):
            self.body.addWidget(part)
        self.body.addSpacing(4)
        row = QHBoxLayout()
        texts = QVBoxLayout()
        texts.setSpacing(2)
        texts.addWidget(self.fastest)
        texts.addWidget(self.difference)
        row.addLayout(texts, 1)
        row.addWidget(self.use_fastest, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.body.addLayout(row)
        self.body.addWidget(self.note)
        self._fastest: int | None = None
        self.use_fastest.clicked.connect(self._on_use)

    def _on_use(self) -> None:
        if self._fastest is not None:
            self.useFastest.emit(self._fastest)

    def show_view(self, view: TimeView) -> None:
        self.message.setText(view.message)
        self.message.setVisible(not view.available)
        for label, text in (
            (self.summary, view.summary),
            (self.utilisation, view.utilisation),
            (self.shares, view.shares),
            (self.layout_text, view.layout),
            (self.parts_title, view.parts_title),
            (self.fastest, view.fastest),
            (self.difference, view.difference),
            (self.note, view.note),
        ):
            label.setText(text)
            label.setVisible(bool(text))
        self.bar.set_parts(view.parts)
        self.bar.setAccessibleName(view.parts_title)
        self.bar.setVisible(bool(view.parts))
        self.legend.set_parts(view.parts)
        self.legend.setVisible(bool(view.parts))
        self._fastest = view.fastest_micro_batch
        self.use_fastest.setVisible(view.fastest_micro_batch is not None)


class PlannerResultsPanel(QWidget):
    useRequested = Signal()
    statusMessage = Signal(str)

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.configuration = ConfigurationCard(self)
        self.nothing_fits = NothingFitsCard(self)
        self.fit = FitCard(self)
        self.time = TimeCard(self)
        self.cost = CostCard(vm, self)
        self.deepspeed = DeepSpeedCard(self)
        self.extras = ExtrasCard(self)
        results_page = QWidget(self)
        # what the description asks for that it cannot give, above what it gives instead
        # (the description may be hidden): the description panel's own sentences
        self.description_problems = text_label(results_page, "plan_description_problems")
        palette = self.description_problems.palette()
        colour = verdict_colour(palette, False)
        palette.setColor(self.description_problems.foregroundRole(), colour)
        self.description_problems.setPalette(palette)
        rl = QVBoxLayout(results_page)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(8)
        rl.addWidget(self.description_problems)
        cards = (
            self.configuration,
            self.nothing_fits,
            self.cost,
            self.fit,
            self.time,
            self.deepspeed,
            self.extras,
        )
        for card in cards:
            rl.addWidget(card)
        rl.addStretch(1)

        # at the top of the column: it scrolls, and the cards before it may have left it
        # scrolled down
        prompt_page = PromptPage("plan", self, selectable=True, top=True)
        self.prompt, self.problems = prompt_page.prompt, prompt_page.problems

        self.pages = QStackedWidget(self)
        self.pages.addWidget(results_page)
        self.pages.addWidget(prompt_page)
        self._results_page, self._prompt_page = results_page, prompt_page
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.configuration.useRequested.connect(self.useRequested)
        self.time.useFastest.connect(vm.choose_pair)
        self.nothing_fits.useAlternative.connect(self._use_alternative)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self.show_state(vm.state)

    def _use_alternative(self, index: int) -> None:
        message = self._vm.use_alternative(index)
        if message is not None:
            self.statusMessage.emit(message)

    def add_card(self, card: QWidget, before: QWidget | None = None) -> None:
        """Put another card in the column (the search's), before ``before`` or last."""
        layout = self._results_page.layout()
        assert isinstance(layout, QVBoxLayout)
        index = layout.indexOf(before) if before is not None else layout.count() - 1
        layout.insertWidget(index, card)

    def retranslate(self) -> None:
        """The cards' fixed words (what they show comes with the state)."""
        texts = self._vm.texts
        self.fit.title.setText(texts.fit_title())
        self.nothing_fits.title.setText(texts.nothing_fits_title())
        self.deepspeed.title.setText(texts.deepspeed_title())
        self.extras.title.setText(texts.extras_title())
        self.time.title.setText(texts.time_title())
        self.cost.retranslate()
        self.time.use_fastest.setText(self.tr("Use this p&air"))
        self.time.use_fastest.setToolTip(
            self.tr("Plan with the fastest pair that fits: its micro-batch becomes yours")
        )
        self.nothing_fits.set_use_text(self.tr("Use this"))
        self.configuration.use_button.setText(self.tr("&Use this configuration"))
        self.configuration.use_button.setToolTip(
            self.tr("Fill the calculator with this micro-batch, accumulation steps and GPUs")
        )

    def show_state(self, state: PlannerState) -> None:
        view = state.results
        if view is None:
            self._prompt_page.show_problems(state.prompt, state.problems)
            self.pages.setCurrentWidget(self._prompt_page)
            area = self.parentWidget()
            while area is not None and not isinstance(area, QAbstractScrollArea):
                area = area.parentWidget()
            if area is not None:  # the words in view, wherever the cards were scrolled
                area.verticalScrollBar().setValue(0)
            return
        self.description_problems.setText("\n".join(state.problems))
        self.description_problems.setVisible(bool(state.problems))
        config = view.configuration
        self.configuration.setVisible(config is not None)
        if config is not None:
            self.configuration.show_view(config)
        self.nothing_fits.setVisible(view.nothing_fits is not None)
        if view.nothing_fits is not None:
            self.nothing_fits.show_view(view.nothing_fits, view.fit.verdict)
        self.fit.show_view(view.fit)
        self.cost.setVisible(view.cost is not None)
        if view.cost is not None:
            self.cost.show_view(view.cost)
        self.time.setVisible(view.time is not None)
        if view.time is not None:
            self.time.show_view(view.time)
        self.deepspeed.setVisible(view.deepspeed is not None)
        if view.deepspeed is not None:
            self.deepspeed.show_view(view.deepspeed)
        self.extras.setVisible(view.extras is not None)
        if view.extras is not None:
            self.extras.show_view(view.extras)
        self.pages.setCurrentWidget(self._results_page)
