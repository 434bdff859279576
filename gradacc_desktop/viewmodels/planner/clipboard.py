"""The whole plan as plain text for the clipboard: inputs, configuration, checks,
extras and the pairs table."""

from __future__ import annotations

from typing import TYPE_CHECKING, final

from gradacc_desktop.viewmodels.formatting import align_row, column_widths
from gradacc_desktop.viewmodels.planner.fields import PlanField
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.texts import PlannerTexts
from gradacc_desktop.viewmodels.planner.views import ExtrasView, PairRow, PlanView

if TYPE_CHECKING:  # the model builds this class
    from gradacc_desktop.viewmodels.planner.model import PlannerViewModel

# Optional fields shown among the inputs when they hold a valid value.
_OPTIONAL_INPUTS = (
    PlanField.SEQ_LEN,
    PlanField.DATASET,
    PlanField.REFERENCE_LR,
    PlanField.REFERENCE_BATCH,
)


@final
class PlanClipboard(Translating):
    def __init__(self, texts: PlannerTexts, formats: PlanFormats) -> None:
        self._texts = texts
        self._formats = formats

    def text(self, model: PlannerViewModel) -> str | None:
        """``model``'s plan, or ``None`` in the "no result" state."""
        view = model.state.results
        if view is None:
            return None
        texts = self._texts
        lines = [self.tr("Run plan: gradient accumulation"), ""]
        lines.append(self.tr("Inputs"))
        lines += [f"{label}: {value}" for label, value in self._input_rows(model, view)]
        config = view.configuration
        if config is not None:
            lines += ["", config.title]
            lines.append(config.formula)
            lines.append(config.summary)
            lines.append(f"{config.exact_badge}: {config.difference}")
            lines += [text for text in (config.reachable, config.note) if text]
        if view.nothing_fits is not None:
            nothing = view.nothing_fits
            lines += ["", texts.nothing_fits_title(), nothing.message, nothing.suggestions_title]
            lines += [f"- {suggestion}" for suggestion in nothing.suggestions]
        fit_view = view.fit
        lines += ["", texts.fit_title(), fit_view.verdict, fit_view.usage, fit_view.headroom]
        lines.append(fit_view.largest)
        if view.deepspeed is not None:
            lines += ["", texts.deepspeed_title(), view.deepspeed.verdict]
            lines.append(view.deepspeed.explanation)
            lines += [view.deepspeed.megatron_verdict, view.deepspeed.megatron_explanation]
        lines += self._time_lines(view)
        extras = self._filled_extras(model, view.extras)
        if extras:
            lines += ["", texts.extras_title(), *extras]
        lines += ["", texts.pairs_title(), *self._pairs_table(view.pairs)]
        return "\n".join(lines) + "\n"

    def _input_rows(self, model: PlannerViewModel, view: PlanView) -> list[tuple[str, str]]:
        texts, f, gb = self._texts, self._formats.format, self._formats.format_gb

        def number(field: PlanField) -> str:
            value = model.value(field)
            assert value is not None
            return (
                gb(value) if field in (PlanField.OTHER_MEMORY, PlanField.ACTIVATION) else f(value)
            )

        config = view.configuration
        if not model.recommending:
            micro = number(PlanField.MICRO_BATCH)
        elif config is not None:
            micro = self.tr("{value} (recommended)").format(value=f(config.micro_batch))
        else:
            micro = self.tr("recommended")
        capacity = model.capacity()
        assert capacity is not None
        rows = [
            (texts.field_label(PlanField.TARGET), number(PlanField.TARGET)),
            (texts.field_label(PlanField.GPUS), number(PlanField.GPUS)),
            (texts.field_label(PlanField.MICRO_BATCH), micro),
            (texts.rounding_label(), dict(texts.rounding_options())[model.rounding]),
            (texts.card_label(), texts.card_name(model.card())),
            (texts.field_label(PlanField.GPU_MEMORY), gb(capacity)),
            (texts.field_label(PlanField.OTHER_MEMORY), number(PlanField.OTHER_MEMORY)),
            (texts.field_label(PlanField.ACTIVATION), number(PlanField.ACTIVATION)),
        ]
        for field in _OPTIONAL_INPUTS:
            value, problem = model.optional_value(field)
            if value is not None and problem is None:
                rows.append((texts.field_label(field), f(value)))
        return rows

    def _time_lines(self, view: PlanView) -> list[str]:
        time = view.time
        if time is None:
            return []
        lines = ["", self._texts.time_title()]
        if not time.available:
            return [*lines, time.message]
        shown = (time.summary, time.utilisation, time.shares, time.layout, time.fastest)
        return [*lines, *(text for text in shown if text), *time.run]

    @staticmethod
    def _filled_extras(model: PlannerViewModel, extras: ExtrasView | None) -> list[str]:
        """The extras whose inputs were given (valid or with their problem)."""
        if extras is None:
            return []

        def given(field: PlanField) -> bool:
            return model.optional_value(field) != (None, None)

        lines = []
        if given(PlanField.SEQ_LEN):
            lines.append(extras.tokens)
        if given(PlanField.DATASET):
            lines.append(extras.steps)
        if given(PlanField.REFERENCE_LR) or given(PlanField.REFERENCE_BATCH):
            lines += [text for text in (extras.lr_linear, extras.lr_sqrt) if text]
            lines.append(extras.lr_note)
        return lines

    def _pairs_table(self, pairs: tuple[PairRow, ...]) -> list[str]:
        """The pairs table as aligned rows under its heading (numbers to the right)."""
        heading = [short for short, _full in self._texts.pairs_headers()]
        rows = [list(row.cells) for row in pairs]
        widths = column_widths([heading, *rows])
        # numbers right, the frameworks' verdict left
        right = [True, True, True, True, False, True, True][: len(heading)]
        in_use = self.tr("← in use")

        def line(cells: list[str], current: bool = False) -> str:
            text = align_row(cells, widths, right, "  ")
            return (text + "  " + in_use if current else text).rstrip()

        return [line(heading)] + [
            line(cells, row.current) for cells, row in zip(rows, pairs, strict=True)
        ]
