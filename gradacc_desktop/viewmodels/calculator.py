"""View-model of the calculator: holds the four inputs, calls the core, and
emits display-ready, locale-formatted state. No widgets here."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import NamedTuple

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.calculator import (
    DEFAULTS,
    LIMITS,
    BatchInputs,
    BatchResult,
    Field,
    compute,
    validate,
)
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.formatting import (
    Entry,
    escape,
    format_counted,
    format_number,
    same_entry,
)
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe, problem_of
from gradacc_desktop.viewmodels.shared_texts import say

# The multiplication sign used in every substituted formula.
TIMES = "×"


class ResultsView(NamedTuple):
    """Display strings for one valid result (and the raw result behind them)."""

    effective_batch: str
    effective_formula: str
    activation: str
    activation_formula: str
    samples_per_gpu: str
    memory_note: str
    result: BatchResult


class CalculatorState(NamedTuple):
    # ``None`` is the "no result" state: show ``prompt`` and ``problems`` instead.
    results: ResultsView | None
    prompt: str
    problems: tuple[str, ...]
    # the same problems by field, shown beside each field: ``(Field, message)`` pairs
    field_problems: tuple[tuple[Field, str], ...] = ()

    @property
    def has_result(self) -> bool:
        return self.results is not None

    def problem(self, field: Field) -> str | None:
        return next((message for f, message in self.field_problems if f is field), None)


class CalculatorViewModel(QObject):
    # every change of inputs, results or language: carries a ``CalculatorState``
    stateChanged = Signal(object)
    # inputs set programmatically (restore defaults, settings, scenarios): carries ``BatchInputs``
    inputsReplaced = Signal(object)
    # one input set elsewhere (the planner's shared activation): carries the ``Field``;
    # the field shows ``display_text(field)``
    fieldReplaced = Signal(object)

    def __init__(
        self,
        locale: QLocale | None = None,
        parent: QObject | None = None,
        inputs: BatchInputs = DEFAULTS,
    ) -> None:
        super().__init__(parent)
        self._locale = locale if locale is not None else QLocale()
        self._raw: dict[Field, Entry] = {f: Decimal(inputs.value(f)) for f in Field}
        self._last_valid: BatchInputs = inputs
        self._numbers: dict[Field, NumberInput] = {
            f: NumberInput(
                LIMITS[f],
                step=Decimal("0.1") if f is Field.ACTIVATION_GB else Decimal(1),
                unit=self.unit_gb() if f is Field.ACTIVATION_GB else "",
                locale=self._locale,
            )
            for f in Field
        }
        self._state = self._build_state()

    # -- inputs -------------------------------------------------------------
    @property
    def locale(self) -> QLocale:
        return self._locale

    @property
    def state(self) -> CalculatorState:
        return self._state

    @property
    def inputs(self) -> BatchInputs | None:
        """The current inputs when all four are valid, else ``None``."""
        return self._state.results.result.inputs if self._state.results else None

    @property
    def last_valid_inputs(self) -> BatchInputs:
        """The current value of each field, or its last valid value if it is empty/invalid now."""
        return self._last_valid

    def number_input(self, field: Field) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget)."""
        return self._numbers[field]

    def entry(self, field: Field) -> Entry:
        """What ``field`` holds now: a number, unreadable text, or nothing."""
        return self._raw.get(field)

    def display_text(self, field: Field) -> str:
        """The text ``field`` shows for what it holds (unreadable text stays as typed)."""
        return self._numbers[field].show_entry(self._raw.get(field))

    def set_text(self, field: Field, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale (unit allowed)."""
        self._set_entry(field, self._numbers[field].read(text))

    def set_inputs(self, inputs: BatchInputs) -> None:
        self._raw = {f: Decimal(inputs.value(f)) for f in Field}
        self._last_valid = inputs
        self._refresh()
        self.inputsReplaced.emit(inputs)

    def set_value(self, field: Field, value: int | Decimal) -> None:
        """Set one field from elsewhere in the app (the estimator's "Use this value")."""
        if self._set_entry(field, Decimal(value)):
            self.fieldReplaced.emit(field)

    def _set_entry(self, field: Field, raw: Entry) -> bool:
        """Hold ``raw`` for ``field`` and recompute; False when nothing changed."""
        if same_entry(self._raw.get(field), raw):
            return False
        self._raw[field] = raw
        if isinstance(raw, Decimal) and problem_of(raw, self._numbers[field]) is None:
            value = raw if field is Field.ACTIVATION_GB else int(raw)
            self._last_valid = self._last_valid.replace(**{field.value: value})
        self._refresh()
        return True

    def restore_defaults(self) -> None:
        self.set_inputs(DEFAULTS)

    def set_language(self, locale: QLocale) -> None:
        """After a language switch (the new translators are installed): read and
        show numbers in ``locale`` and re-render every string, in one new state."""
        self._locale = locale
        for number in self._numbers.values():
            number.locale = locale
        self._numbers[Field.ACTIVATION_GB].unit = self.unit_gb()
        self._refresh(force=True)

    # -- labels shared by widgets, clipboard and messages ---------------------
    def field_label(self, field: Field, mnemonic: bool = False) -> str:
        text = {
            Field.MICRO_BATCH: say(shared.MICRO_BATCH),
            Field.ACCUMULATION_STEPS: self.tr("&Accumulation steps"),
            Field.GPUS: say(shared.GPUS),
            Field.ACTIVATION_GB: say(shared.ACTIVATION),
        }[field]
        return text if mnemonic else text.replace("&", "")

    def field_hint(self, field: Field) -> str:
        return {
            Field.MICRO_BATCH: say(shared.MICRO_BATCH_HINT),
            Field.ACCUMULATION_STEPS: self.tr(
                "Micro-batches whose gradients are summed before one optimizer step (a)."
            ),
            Field.GPUS: self.tr("Data-parallel replicas, each with its own micro-batch (g)."),
            Field.ACTIVATION_GB: self.tr(
                "Activation memory one training sample needs, in gigabytes (A)."
            ),
        }[field]

    def unit_gb(self) -> str:
        return self.tr("GB")

    def title(self) -> str:
        """The calculator's name: the window's title, the page's heading, the clipboard's."""
        return self.tr("Gradient Accumulation Memory Calculator")

    def result_titles(self) -> tuple[str, str, str]:
        """The three results' names (the cards' titles and the clipboard's rows): the
        effective batch, the activation memory per GPU, the samples per optimizer step."""
        return (
            self.tr("Effective batch size"),
            self.tr("Peak activation memory per GPU"),
            self.tr("Samples per GPU per optimizer step (b × a)"),
        )

    def format(self, value: int | Decimal) -> str:
        return format_number(self._locale, value)

    def format_gb(self, value: Decimal) -> str:
        return self.tr("{value} GB").format(value=self.format(value))

    def counted(self, translate: Callable[[int], str], count: int) -> str:
        """Translate a ``%n`` plural message for any ``count`` (see ``format_counted``)."""
        return format_counted(self._locale, translate, count)

    def input_text(self, inputs: BatchInputs, field: Field) -> str:
        value = inputs.value(field)
        return (
            self.format_gb(Decimal(value)) if field is Field.ACTIVATION_GB else self.format(value)
        )

    # -- clipboard ------------------------------------------------------------
    def summary_rows(self) -> list[tuple[str, str]] | None:
        """(label, value) rows of inputs and results; ``None`` in the no-result state."""
        view = self._state.results
        if view is None:
            return None
        inputs = view.result.inputs
        rows = [(self.field_label(f), self.input_text(inputs, f)) for f in Field]
        effective, activation, samples = self.result_titles()
        rows.append((effective, view.effective_formula))
        rows.append((activation, view.activation_formula))
        rows.append((samples, view.samples_per_gpu))
        return rows

    def clipboard_text(self) -> str | None:
        rows = self.summary_rows()
        if rows is None:
            return None
        lines = [self.title(), ""]
        lines += [f"{label}: {value}" for label, value in rows]
        return "\n".join(lines) + "\n"

    def clipboard_html(self) -> str | None:
        rows = self.summary_rows()
        if rows is None:
            return None
        body = "".join(
            f"<tr><th align='left'>{escape(label)}</th><td align='right'>{escape(value)}</td></tr>"
            for label, value in rows
        )
        title = escape(self.title())
        return f"<table><caption>{title}</caption>{body}</table>"

    # -- internals ------------------------------------------------------------
    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _build_state(self) -> CalculatorState:
        by_field = tuple((f, p) for f in Field if (p := self._problem(f)) is not None)
        prompt = self.tr("Enter a value to see the results.")
        if by_field:
            problems = tuple(p for _f, p in by_field)
            return CalculatorState(
                results=None, prompt=prompt, problems=problems, field_problems=by_field
            )
        inputs = validate({f: self._raw[f] for f in Field})  # type: ignore[misc]
        return CalculatorState(
            results=self._results_view(compute(inputs)), prompt=prompt, problems=()
        )

    def _problem(self, field: Field) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        number = self._numbers[field]
        raw = self._raw.get(field)
        if problem_of(raw, number) is None:
            return None
        return describe(self.field_label(field), raw, number)  # only a problem needs the label

    def _results_view(self, result: BatchResult) -> ResultsView:
        i = result.inputs
        f = self.format
        e = f(result.effective_batch)
        m = self.format_gb(result.activation_per_gpu_gb)
        a_gb = self.format_gb(i.activation_gb)
        return ResultsView(
            effective_batch=e,
            effective_formula=" ".join(
                ["E =", f(i.micro_batch), TIMES, f(i.accumulation_steps), TIMES, f(i.gpus), "=", e]
            ),
            activation=m,
            activation_formula=f"M = {f(i.micro_batch)} {TIMES} {a_gb} = {m}",
            samples_per_gpu=(
                f"{f(result.samples_per_gpu_per_step)} = {f(i.micro_batch)} {TIMES} "
                f"{f(i.accumulation_steps)}"
            ),
            memory_note=self.tr(
                "Activation memory depends only on the micro-batch: "
                "accumulation steps and GPUs do not change it."
            ),
            result=result,
        )
