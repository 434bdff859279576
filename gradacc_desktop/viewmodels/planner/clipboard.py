"""The whole plan as plain text for the clipboard: the description it was planned
from, the configuration, the checks, the time and the pairs table."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.figures import Source, shown_gb
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.formatting import align_row, column_widths
from gradacc_desktop.viewmodels.planner.cost import CostTexts
from gradacc_desktop.viewmodels.planner.texts import PlannerTexts
from gradacc_desktop.viewmodels.planner.views import PairRow, PlannerState, PlanView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


@final
class PlanClipboard(Translating):
    def __init__(self, texts: PlannerTexts, formats: PlanFormats, cost: CostTexts) -> None:
        self._texts = texts
        self._formats = formats
        self._cost = cost

    def text(self, state: PlannerState, training: TrainingViewModel) -> str | None:
        """The plan, or ``None`` in the "no result" state."""
        view = state.results
        description = training.description
        if view is None or description is None:
            return None
        texts = self._texts
        lines = [self.tr("Run plan: gradient accumulation"), ""]
        lines.append(training.texts.title())
        lines += [f"{label}: {value}" for label, value in self._inputs(training, description)]
        config = view.configuration
        if config is not None:
            lines += ["", config.title, config.formula, config.summary]
            lines.append(f"{config.exact_badge}: {config.difference}")
            lines += [text for text in (config.reachable, config.note) if text]
        if view.nothing_fits is not None:
            nothing = view.nothing_fits
            lines += ["", texts.nothing_fits_title(), nothing.message, nothing.suggestions_title]
            lines += [f"- {suggestion}" for suggestion in nothing.suggestions]
        fit = view.fit
        lines += ["", texts.fit_title(), fit.verdict, fit.usage]
        lines += [text for text in (fit.headroom, fit.largest) if text]
        if view.deepspeed is not None:
            lines += ["", texts.deepspeed_title(), view.deepspeed.verdict]
            lines.append(view.deepspeed.explanation)
            lines += [view.deepspeed.megatron_verdict, view.deepspeed.megatron_explanation]
        lines += self._time_lines(view)
        lines += self._cost_lines(view)
        if view.extras is not None:
            extras = view.extras
            lines += ["", texts.extras_title(), extras.tokens, extras.steps]
            lines += [text for text in (extras.lr_linear, extras.lr_sqrt) if text]
        lines += ["", texts.pairs_title(), *self._pairs_table(view.pairs)]
        return "\n".join(lines) + "\n"

    def _inputs(self, training: TrainingViewModel, d: TrainingDescription) -> list[tuple[str, str]]:
        t, f = training.texts, self._formats.format
        gb = self._formats.format_gb

        def option(choice: Choice) -> str:
            value = training.choice(choice)
            return next((text for data, text in training.options(choice) if data == value), "")

        plan = training.plan
        rows = [(t.choice_label(Choice.MODEL), option(Choice.MODEL))]
        rows.append((t.choice_label(Choice.METHOD), option(Choice.METHOD)))
        rows.append((t.choice_label(Choice.PRECISION), option(Choice.PRECISION)))
        if d.seq_len is not None:
            rows.append((t.field_label(TrainingField.SEQ_LEN), f(d.seq_len)))
        rows.append((t.choice_label(Choice.CARD), "" if d.card is None else d.card.name))
        rows.append((t.field_label(TrainingField.GPUS), f(d.gpus)))
        if d.nodes > 1:
            rows.append((t.field_label(TrainingField.NODES), f(d.nodes)))
        if d.tensor_parallel > 1:
            rows.append((t.field_label(TrainingField.TENSOR_PARALLEL), f(d.tensor_parallel)))
        if d.pipeline_stages > 1:
            rows.append((t.field_label(TrainingField.PIPELINE_STAGES), f(d.pipeline_stages)))
        rows.append((t.choice_label(Choice.ZERO), option(Choice.ZERO)))
        rows.append((t.choice_label(Choice.OFFLOAD), option(Choice.OFFLOAD)))
        rows.append((t.choice_label(Choice.RECOMPUTE), option(Choice.RECOMPUTE)))
        rows.append((t.field_label(TrainingField.TARGET), f(d.target_batch)))
        current = None if plan is None else plan.current
        if d.micro_batch is not None:
            micro = f(d.micro_batch)
        elif current is not None:
            micro = self.tr("{value} (recommended)").format(value=f(current.micro_batch))
        else:
            micro = self.tr("recommended")
        rows.append((t.field_label(TrainingField.MICRO_BATCH), micro))
        rows.append((t.choice_label(Choice.ROUNDING), option(Choice.ROUNDING)))
        if plan is not None:
            figs = plan.figures
            for field, figure in (
                (TrainingField.ACTIVATION, figs.activation),
                (TrainingField.OTHER_MEMORY, figs.other),
            ):
                if figure.bytes is None:
                    continue
                how = (
                    self.tr("estimated")
                    if figure.source is Source.ESTIMATED
                    else self.tr("typed in")
                )
                rows.append(
                    (
                        t.field_label(field),
                        self.tr("{value} ({how})").format(
                            value=gb(shown_gb(figure.bytes)), how=how
                        ),
                    )
                )
        return rows

    def _time_lines(self, view: PlanView) -> list[str]:
        time = view.time
        if time is None:
            return []
        lines = ["", self._texts.time_title()]
        if not time.available:
            return [*lines, time.message]
        shown = (time.summary, time.utilisation, time.shares, time.layout)
        lines += [text for text in shown if text]
        if time.parts:
            lines.append(time.parts_title)
            widths = column_widths([[p.name, p.seconds, p.share] for p in time.parts])
            lines += [
                "  " + align_row([p.name, p.seconds, p.share], widths, [False, True, True], "  ")
                for p in time.parts
            ]
        return [*lines, *(text for text in (time.fastest, time.difference) if text)]

    def _cost_lines(self, view: PlanView) -> list[str]:
        cost = view.cost
        if cost is None:
            return []
        texts = self._cost
        lines = ["", texts.title()]
        trained, time, hours, price, total = texts.row_labels()
        for line in cost.lines:
            lines += [f"{trained}: {line.trained}", f"{time}: {line.time}"]
            lines.append(f"{hours}: {line.gpu_hours}")
            if line.total:
                lines.append(f"{total}: {line.total}")
        if cost.price:
            lines.append(f"{price}: {cost.price}")
        return lines + [text for text in (cost.missing, cost.note) if text]

    def _pairs_table(self, pairs: tuple[PairRow, ...]) -> list[str]:
        """The pairs table as aligned rows under its heading (numbers to the right)."""
        heading = [short for short, _full in self._texts.pairs_headers()]
        rows = [list(row.cells) for row in pairs]
        widths = column_widths([heading, *rows])
        right = [True, True, True, True, False, True, True][: len(heading)]
        in_use = self.tr("← in use")

        def line(cells: list[str], current: bool = False) -> str:
            text = align_row(cells, widths, right, "  ")
            return (text + "  " + in_use if current else text).rstrip()

        return [line(heading)] + [
            line(cells, row.current) for cells, row in zip(rows, pairs, strict=True)
        ]
