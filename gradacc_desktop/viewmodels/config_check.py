""" "Check my config": an existing training config read by ``core.frameworks.config_import``, put
into the training description, and described in words (``config_check_texts``) with
the memory and time the plan then gives.

The report follows the description: every change of it (the GPUs, the model, the card)
words the file again on the description's GPUs, and the file's own micro-batch and
accumulation steps stay in the description while its GPUs change
(``TrainingViewModel.hold_batch``), as the framework would run the file.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from gradacc_desktop.core.frameworks.config_import import ImportedConfig
from gradacc_desktop.core.training.imported import HeldBatch, fixed_by, layout_fixed_by
from gradacc_desktop.viewmodels.config_check_texts import CheckOutcome, ConfigCheckTexts
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.training.fields import TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel

__all__ = ["CheckOutcome", "CheckViewModel"]


class _Put(enum.Enum):
    """What of the file went into the description."""

    SETUP = "setup"  # its batch and setup (its pair held while the GPUs change)
    LAYOUT = "layout"  # its GPUs and setup; the batch is the script's
    NOTHING = "nothing"  # the file leaves too much open
    REFUSED = "refused"  # the description holds a refused entry


@dataclass(frozen=True)
class _Checked:
    name: str
    config: ImportedConfig
    put: _Put
    #: what the file was missing when nothing of it was put in
    missing: tuple[str, ...] = ()


class CheckViewModel(QObject):
    """Reads a trainer config and puts what it fixes into the training description, so
    its memory and time show at once; the report (``reportChanged``) follows the
    description from then on."""

    reportChanged = Signal(str)

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._texts = ConfigCheckTexts(training.formats)
        self._fit = FitTexts(training.formats)
        self._timing = TimingTexts(training.formats)
        self._checked: _Checked | None = None
        self._report = ""
        training.stateChanged.connect(self._follow)

    @property
    def report(self) -> str:
        return self._report

    def check(self, path: Path) -> CheckOutcome:
        """Read ``path``; when it gives a whole setup, the description takes it (files
        that do not give the GPU count use the description's, all of them: data-parallel
        x tensor x pipeline x context)."""
        read = self._texts.read(path)
        if isinstance(read, CheckOutcome):
            self._checked = None
            self._show(read.report)
            return read
        t = self._training
        current = t.description
        world = self._world(read, taken=False)
        outcome = self._texts.check(read, path.name, world)
        put, described = _Put.NOTHING, None
        if current is None:
            put = _Put.REFUSED
        elif outcome.setup is not None:
            put, described = _Put.SETUP, fixed_by(read, outcome.setup, current)
        else:
            described = layout_fixed_by(read, current, world)
            put = _Put.NOTHING if described is None else _Put.LAYOUT
        self._checked = _Checked(path.name, read, put, outcome.missing)
        if described is None:
            self._show(self._words())
        else:
            t.apply(described)  # the report follows the description's new state
            if outcome.setup is not None:
                setup = outcome.setup
                held = HeldBatch(read, path.name, setup.micro_batch, setup.accumulation_steps)
                t.hold_batch(held)
        if put is _Put.REFUSED:
            outcome = self._texts.not_applied(outcome, path.name)
        elif put is _Put.LAYOUT:
            outcome = replace(outcome, message=self._texts.layout_message(path.name))
        return replace(outcome, report=self._report)

    def _world(self, config: ImportedConfig, taken: bool) -> int | None:
        """The GPUs in all to check ``config`` on: its own count until the description
        has taken it, else the description's (or its last valid GPUs); None where that
        is the file's own count (the report then says how the file gives it)."""
        own = config.derived(None).gpus
        if own is not None and not taken:
            return None
        d = self._training.description
        if d is not None:
            world: int | None = d.world
        else:
            remembered = self._training.remembered_value(TrainingField.GPUS)
            world = None if remembered is None else int(remembered)
        return None if world == own else world

    def _follow(self, _state: TrainingState) -> None:
        if self._checked is not None:
            self._show(self._words())

    def _show(self, report: str) -> None:
        if report != self._report:
            self._report = report
            self.reportChanged.emit(report)

    def _words(self) -> str:
        """The report of the checked file on the description as it is now."""
        checked = self._checked
        assert checked is not None
        t = self._training
        plan = t.plan
        taken = checked.put in (_Put.SETUP, _Put.LAYOUT)
        outcome = self._texts.check(
            checked.config, checked.name, self._world(checked.config, taken)
        )
        lines = [outcome.report]
        if checked.put is _Put.NOTHING:
            return "\n".join([*lines, self._texts.not_put(checked.missing)])
        if checked.put is _Put.REFUSED:
            return "\n".join([*lines, self._texts.correct_first()])
        held = t.held_batch
        if checked.put is _Put.LAYOUT:
            lines.append(self._texts.layout_put(checked.missing))
        elif held is not None and held.config is checked.config:
            lines.append(self._texts.batch_held())
        else:
            lines.append(self._texts.put())
        besides = self._texts.taken(checked.config)
        if besides is not None:  # the file's setup went into the description
            lines.append(besides)
        if plan is None:
            return "\n".join(lines)
        lines += self._texts.figures_for(checked.config, plan.description)
        fit = self._fit.of_plan(plan)  # what it needs on the description's GPU
        if fit is not None:
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
        return "\n".join(lines)
