""" "Check my config": an existing training config read by ``core.frameworks.config_import``, put
into the training description, and described in words (``config_check_texts``) with
the memory and time the plan then gives.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject

from gradacc_desktop.core.training.imported import fixed_by, layout_fixed_by
from gradacc_desktop.viewmodels.config_check_texts import CheckOutcome, ConfigCheckTexts
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.training.fields import TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

__all__ = ["CheckOutcome", "CheckViewModel"]


class CheckViewModel(QObject):
    """Reads a trainer config and puts what it fixes into the training description, so
    its memory and time show at once."""

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._texts = ConfigCheckTexts(training.formats)
        self._fit = FitTexts(training.formats)
        self._timing = TimingTexts(training.formats)

    def check(self, path: Path) -> CheckOutcome:
        """Read ``path``; when it gives a whole setup, the description takes it (files
        that do not give the GPU count use the description's, all of them: data-parallel
        x tensor x pipeline x context)."""
        t = self._training
        current = t.description
        if current is not None:
            gpus: int | None = current.world
        else:
            remembered = t.remembered_value(TrainingField.GPUS)
            gpus = None if remembered is None else int(remembered)
        outcome = self._texts.check(path, gpus)
        config = outcome.config
        if config is None:
            return outcome
        if outcome.setup is not None:
            described = None if current is None else fixed_by(config, outcome.setup, current)
        else:
            file_gpus = config.derived(None).gpus
            described = (
                None
                if current is None
                else layout_fixed_by(config, current, None if file_gpus is not None else gpus)
            )
            if described is None:
                return self._texts.not_put(outcome)
        if current is None or described is None:
            return self._texts.not_applied(outcome, path)
        t.apply(described)
        outcome = (
            self._texts.applied(outcome)
            if outcome.setup is not None
            else self._texts.layout_applied(outcome, path)
        )
        plan = t.plan
        if plan is None:
            return outcome
        lines = [outcome.report]
        lines += self._texts.figures_for(config, plan.description)
        if plan.fit is not None:  # what it needs on the description's GPU
            fit = self._fit.fit(plan.fit, plan.description.tensor_parallel)
            lines.append(f"{fit.verdict}: {fit.usage}")
        elif plan.no_fit is not None:
            fit = self._fit.fit_of_nothing(plan.no_fit, plan.description.tensor_parallel)
            lines.append(f"{fit.verdict}: {fit.usage}")
        else:
            lines.append(self._texts.memory_unknown())
        if plan.current is not None and plan.current.time is not None:
            step = plan.current.time
            lines.append(
                self._texts.time_line(
                    self._timing.seconds(step.step_seconds),
                    self._timing.rate(step.tokens_per_second),
                )
            )
        elif plan.time_missing is not None:
            lines.append(
                self._texts.time_unknown(
                    self._timing.missing(plan.time_missing, plan.time_detail, plan.description)
                )
            )
        return replace(outcome, report="\n".join(lines))
