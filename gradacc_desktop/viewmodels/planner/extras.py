"""The extras card: tokens per optimizer step, optimizer steps per epoch and the
scaled learning rates, from the optional fields."""

from __future__ import annotations

from decimal import Decimal
from typing import final

from gradacc_desktop.core.batch import lr_linear, lr_sqrt, steps_per_epoch, tokens_per_step
from gradacc_desktop.viewmodels.entries import OptionalValue
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.formatting import format_approx
from gradacc_desktop.viewmodels.planner.views import ExtrasView

# Significant digits shown for the scaled learning rates.
LR_DIGITS = 6


@final
class ExtrasTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def view(
        self,
        effective: int,
        seq_len: int | None,
        dataset: OptionalValue,
        lr_value: OptionalValue,
        reference_batch: OptionalValue,
    ) -> ExtrasView:
        """``seq_len`` from the description; the dataset size and the learning-rate
        reference as their fields hold them."""
        tokens = self._tokens(effective, None if seq_len is None else Decimal(seq_len), None)
        steps = self._steps(effective, *dataset)
        lr, lr_problem = lr_value
        reference, reference_problem = reference_batch
        note = self.tr(
            "Heuristics, not guarantees: linear scaling (Goyal et al. 2017) is the usual rule "
            "for SGD, square-root scaling is common with Adam. Start there and tune."
        )
        problem = lr_problem or reference_problem
        if problem:
            linear = root = problem
        elif lr is None or reference is None:
            linear = self.tr(
                "Enter a reference learning rate and its batch size to scale the learning rate."
            )
            root = ""
        else:
            locale = self._formats.locale
            linear = self.tr("Linear scaling: {lr}").format(
                lr=format_approx(locale, lr_linear(lr, effective, int(reference)), LR_DIGITS)
            )
            root = self.tr("Square-root scaling: {lr}").format(
                lr=format_approx(locale, lr_sqrt(lr, effective, int(reference)), LR_DIGITS)
            )
        return ExtrasView(tokens=tokens, steps=steps, lr_linear=linear, lr_sqrt=root, lr_note=note)

    def _tokens(self, effective: int, seq: Decimal | None, problem: str | None) -> str:
        if problem:
            return problem
        if seq is None:
            return self.tr(
                "Type the sequence length in the training description to see the tokens per "
                "optimizer step."
            )
        f = self._formats.format
        return self._formats.counted(
            lambda n: self.tr("%n tokens per optimizer step ({batch} × {length}).", "", n),
            tokens_per_step(effective, int(seq)),
        ).format(batch=f(effective), length=f(int(seq)))

    def _steps(self, effective: int, samples: Decimal | None, problem: str | None) -> str:
        if problem:
            return problem
        if samples is None:
            return self.tr("Enter the dataset size to see the optimizer steps per epoch.")
        f = self._formats.format
        result = steps_per_epoch(int(samples), effective)
        steps = self._formats.counted(
            lambda n: self.tr("%n optimizer step(s) per epoch", "", n), result.keep_last
        )
        if result.remainder:
            return (
                steps
                + " "
                + self.tr(
                    "(keeping the last, partial step of {remainder} samples; {drop} with "
                    "drop_last)."
                ).format(remainder=f(result.remainder), drop=f(result.drop_last))
            )
        return steps + " " + self.tr("(the dataset divides evenly: no partial step).")
