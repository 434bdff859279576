"""The view-model of "Plan a run": the training description's plan in words.

It holds no input of the description (``TrainingViewModel`` does): it follows the
description's state, words its one ``Plan`` as a ``PlannerState`` and turns the
planner's buttons into changes of the description (a pair from the table, the fastest
pair, a change that would fit) or of the calculator ("Use this configuration").
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.calculator import BatchInputs
from gradacc_desktop.core.training.alternatives import Alternative, alternatives
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner.clipboard import PlanClipboard
from gradacc_desktop.viewmodels.planner.cost import CostTexts, Currency, default_currency
from gradacc_desktop.viewmodels.planner.results import Extras, PlanResults
from gradacc_desktop.viewmodels.planner.texts import PlannerTexts
from gradacc_desktop.viewmodels.planner.views import ConfigurationView, PlannerState
from gradacc_desktop.viewmodels.settings import CURRENCY, Settings
from gradacc_desktop.viewmodels.training.fields import TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel

#: the planner's own inputs (kept by the training view-model with the rest)
REFERENCE_FIELDS = (TrainingField.REFERENCE_LR, TrainingField.REFERENCE_BATCH)


class PlannerViewModel(QObject):
    # every new plan or language: a ``PlannerState``
    stateChanged = Signal(object)

    def __init__(
        self,
        training: TrainingViewModel,
        calculator: CalculatorViewModel,
        parent: QObject | None = None,
        settings: Settings | None = None,
    ) -> None:
        """``settings``: where the chosen currency is remembered (None: not kept)."""
        super().__init__(parent)
        self._training = training
        self._calc = calculator
        self._settings = settings
        self._currency = None if settings is None else settings.get(CURRENCY)
        self._formats = training.formats  # one locale for the description and its views
        self._texts = PlannerTexts(self._formats)
        self._results = PlanResults(self._formats)
        self._clipboard = PlanClipboard(self._texts, self._formats, self._results.cost_texts)
        self._alternatives: tuple[Alternative, ...] = ()
        self._state = self._build_state(training.state)
        training.stateChanged.connect(self._on_training_state)

    # -- access ---------------------------------------------------------------------
    @property
    def training(self) -> TrainingViewModel:
        return self._training

    @property
    def calculator(self) -> CalculatorViewModel:
        return self._calc

    @property
    def state(self) -> PlannerState:
        return self._state

    @property
    def texts(self) -> PlannerTexts:
        return self._texts

    @property
    def formats(self) -> PlanFormats:
        return self._formats

    @property
    def locale(self) -> QLocale:
        return self._formats.locale

    @property
    def cost_texts(self) -> CostTexts:
        return self._results.cost_texts

    def configuration(self) -> ConfigurationView | None:
        view = self._state.results
        return view.configuration if view is not None else None

    # -- the learning-rate reference (the planner's own fields) -------------------------
    def number_input(self, field: TrainingField) -> NumberInput:
        return self._training.number_input(field)

    def shown_text(self, field: TrainingField) -> str:
        return self._training.shown_text(field)

    def set_text(self, field: TrainingField, text: str) -> None:
        self._training.set_text(field, text)
        # the reference is not part of the description: its plan does not change, the
        # planner's words do
        self._refresh(self._training.state)

    def reference(self) -> tuple[Decimal | None, int | None]:
        """The learning-rate reference (rate, batch) the fields hold (``None`` where a
        field is empty or not valid). Remembered between sessions, not in scenarios."""
        lr = self._training.value(TrainingField.REFERENCE_LR)
        batch = self._training.value(TrainingField.REFERENCE_BATCH)
        return lr, None if batch is None else int(batch)

    def set_reference(self, lr: Decimal | None, batch: int | None) -> None:
        """Put a remembered learning-rate reference back (``None`` leaves a field empty)."""
        self._training.hold(
            {
                TrainingField.REFERENCE_LR: lr,
                TrainingField.REFERENCE_BATCH: None if batch is None else Decimal(batch),
            }
        )
        self._training.refresh_all()

    # -- the cost card's currency (display only: nothing is converted) -----------------
    def currency(self) -> Currency:
        """The chosen currency, or the language's own until one is chosen."""
        if self._currency is not None:
            return self._currency
        return default_currency(self._formats.locale.name())

    def set_currency(self, currency: Currency) -> None:
        """Show the price and the total in ``currency``, and remember it."""
        if currency is self.currency() and self._currency is not None:
            return
        self._currency = currency
        if self._settings is not None:
            self._settings.set(CURRENCY, currency)
        self._refresh(self._training.state)

    # -- actions ----------------------------------------------------------------------
    def use_configuration(self) -> str | None:
        """Fill the calculator with the planned configuration; returns a status message."""
        config = self.configuration()
        if config is None or not config.can_use:
            return None
        activation = config.activation_gb
        if activation is None or activation == 0:  # unknown: the calculator keeps its own
            activation = self._calc.last_valid_inputs.activation_gb
        self._calc.set_inputs(
            BatchInputs(config.micro_batch, config.accumulation_steps, config.gpus, activation)
        )
        return self.tr("Configuration sent to the calculator: {formula}.").format(
            formula=config.formula
        )

    def choose_pair(self, micro_batch: int) -> None:
        """Take a micro-batch from the pairs table as the user's own."""
        self._training.set_choices(replace(self._training.choices, recommend=False))
        self._training.hold({TrainingField.MICRO_BATCH: Decimal(micro_batch)})
        self._training.refresh_all()

    def use_fastest(self) -> bool:
        """Take the fastest pair that fits (the time card's "Use this pair")."""
        plan = self._training.plan
        if plan is None or plan.fastest is None:
            return False
        self.choose_pair(plan.fastest.micro_batch)
        return True

    def use_alternative(self, index: int) -> str | None:
        """Make one of the changes that would fit; returns a status message."""
        if not 0 <= index < len(self._alternatives):
            return None
        chosen = self._alternatives[index]
        self._training.apply(chosen.description)
        return self.tr("Training description changed: {change}").format(
            change=self._results.fit_texts.alternative(chosen)
        )

    def clipboard_text(self) -> str | None:
        """The whole plan as plain text, or ``None`` in the "no result" state."""
        return self._clipboard.text(self._state, self._training)

    # -- internals --------------------------------------------------------------------
    def _on_training_state(self, state: TrainingState) -> None:
        self._refresh(state)

    def _refresh(self, training: TrainingState, force: bool = False) -> None:
        state = self._build_state(training)
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _build_state(self, training: TrainingState) -> PlannerState:
        plan = training.plan
        if plan is None:
            return PlannerState(None, self._texts.prompt(), training.problems)
        self._alternatives = ()
        if plan.no_fit is not None:
            self._alternatives = alternatives(
                plan.description, self._training.cards, plan.figures.facts
            )
        t = self._training
        extras = Extras(
            dataset=_optional(t, TrainingField.DATASET),
            lr=_optional(t, TrainingField.REFERENCE_LR),
            reference_batch=_optional(t, TrainingField.REFERENCE_BATCH),
            currency=self.currency(),
            run_fields=(
                t.texts.field_label(TrainingField.TOKENS),
                t.texts.field_label(TrainingField.DATASET),
                t.texts.field_label(TrainingField.EPOCHS),
                t.texts.field_label(TrainingField.PRICE),
            ),
        )
        view = self._results.view(plan, extras, training.notes.missing, self._alternatives)
        # the description's problems (what it asks for that its figures do not count)
        return PlannerState(view, self._texts.prompt(), training.problems)


def _optional(
    training: TrainingViewModel, field: TrainingField
) -> tuple[Decimal | None, str | None]:
    if training.entry(field) is None:
        return None, None
    problem = training.problem(field)
    return (None, problem) if problem else (training.value(field), None)
