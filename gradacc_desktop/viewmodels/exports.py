"""The "Trainer configs" tab's view-model: the plan's setup as each framework's own
files (with what they hold of the model: LoRA, the sequence length, recomputation),
what a framework cannot carry, and saving the files into a folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gradacc_desktop.core.frameworks.export import Exported, ExportFormat, framework_of
from gradacc_desktop.core.memory import problem_text
from gradacc_desktop.core.text import Message
from gradacc_desktop.core.training.exports import export_description
from gradacc_desktop.viewmodels.files import Outcome
from gradacc_desktop.viewmodels.shared_texts import NOTHING_FITS, say
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel
from gradacc_desktop.viewmodels.training.scenarios import ScenarioFiles


class ExportViewModel(QObject):
    # the plan changed (the files may have): carries the training state
    stateChanged = Signal(object)

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._files = ScenarioFiles(training.formats)
        training.stateChanged.connect(self.stateChanged)

    @property
    def training(self) -> TrainingViewModel:
        return self._training

    @property
    def state(self) -> TrainingState:
        return self._training.state

    @staticmethod
    def formats() -> list[tuple[ExportFormat, str]]:
        # Product names: the same in every language.
        return [
            (ExportFormat.DEEPSPEED, "DeepSpeed (ds_config.json)"),
            (ExportFormat.HF, "Hugging Face Trainer"),
            (ExportFormat.HF_DEEPSPEED, "Hugging Face Trainer + DeepSpeed"),
            (ExportFormat.ACCELERATE, "Hugging Face Accelerate"),
            (ExportFormat.LIGHTNING, "PyTorch Lightning"),
            (ExportFormat.TORCHRUN, "PyTorch DDP (torchrun)"),
            (ExportFormat.MEGATRON, "Megatron-LM"),
        ]

    def format_for(self, current: ExportFormat) -> ExportFormat:
        """``current``, or — when its files do not run the description's framework — the
        first format whose files do (FSDP: accelerate's FSDP2 plugin; Megatron: its own
        arguments)."""
        d = self._training.description
        if d is None:
            return current
        setup = d.shape
        if framework_of(current, setup) is d.framework:
            return current
        suited = (f for f, _ in self.formats() if framework_of(f, setup) is d.framework)
        return next(suited, current)

    def summary(self) -> str:
        """What is exported, in a line."""
        plan = self._training.plan
        if plan is not None and plan.setup_problem is not None:  # ``unavailable`` says why
            return self.tr("Nothing to export: no framework runs this layout.")
        if plan is not None and plan.unrecommended:
            return self._no_micro_batch()
        if plan is not None and plan.no_fit is not None:
            return self._nothing_fits()
        if plan is None or plan.current is None:
            return self.tr("Nothing to export yet: the training description has no configuration.")
        f = self._training.formats.format
        current, d = plan.current, plan.description
        formula = f"E\u00a0=\u00a0{f(current.micro_batch)}\u00a0×\u00a0" + (
            f"{f(current.accumulation_steps)}\u00a0×\u00a0{f(d.gpus)}\u00a0=\u00a0"
            f"{f(current.effective_batch)}"
        )
        return self.tr("Exporting the training description's configuration: {formula}.").format(
            formula=formula
        )

    def exported(self, fmt: ExportFormat) -> Exported | None:
        """The files of ``fmt`` for the plan's setup (``None``: see ``unavailable``)."""
        plan = self._training.plan
        setup = None if plan is None else plan.setup
        if plan is None or setup is None:
            return None
        return export_description(fmt, plan.description, setup)

    def unavailable(self) -> str:
        """Why there is nothing to export, in words ("" when there is)."""
        plan = self._training.plan
        if plan is not None and plan.setup_problem is None and plan.unrecommended:
            return self._no_micro_batch()
        if plan is not None and plan.setup_problem is None and plan.no_fit is not None:
            return self._nothing_fits()
        if plan is None or (plan.current is None and plan.setup_problem is None):
            return self.tr("Nothing to export yet: the training description has no configuration.")
        if plan.setup_problem is None:
            return ""
        said = problem_text(plan.setup_problem, plan.description.shape)
        return self._training.formats.said(said)

    def _nothing_fits(self) -> str:
        return self.tr("Nothing to export: {why}.").format(why=say(NOTHING_FITS))

    def _no_micro_batch(self) -> str:
        return self.tr(
            "Nothing to export yet: which micro-batch fits is not known. Choose the model "
            "and the sequence length (or type the memory figures), or turn off "
            "“Recommend” and give the micro-batch."
        )

    def notes(self, fmt: ExportFormat) -> tuple[str, ...]:
        """What ``fmt`` cannot carry of the description (or how it does), translated."""
        exported = self.exported(fmt)
        if exported is None:
            return ()
        values = dict(exported.note_values)
        return tuple(
            self._training.formats.said(note)
            if isinstance(note, Message)
            else QCoreApplication.translate(getattr(note, "context", "Export"), note).format(
                **values
            )
            for note in exported.notes
        )

    def text(self, fmt: ExportFormat) -> str | None:
        exported = self.exported(fmt)
        return None if exported is None else exported.text

    def save(self, fmt: ExportFormat, folder: Path) -> Outcome:
        """Write the files of ``fmt`` into ``folder`` (replacing files of the same names)."""
        return self._files.save_export(self.exported(fmt), folder, self.unavailable())
