""" "Check my config": an existing DeepSpeed, accelerate or axolotl file read by
``core.config_import``, put into the training description and described in words.

The values and verdicts are worded here; the reasons the reader gives (a key it could
not use, what is missing, why the file cannot be read) are the core's ``Message``s,
translated here with their values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import final

from PySide6.QtCore import QObject

from gradacc_desktop.core.config_import import (
    ConfigImportError,
    ConfigKind,
    ImportedConfig,
    deepspeed_text,
    read_config,
)
from gradacc_desktop.core.setup import Offload, Precision, TrainingSetup
from gradacc_desktop.core.training.imported import fixed_by
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.training.fields import TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


@dataclass(frozen=True)
class CheckOutcome:
    ok: bool
    # one line for the status bar
    message: str
    # the report shown under the check button (plain text, one item per line)
    report: str
    # the setup to put into the description (None: nothing is applied)
    setup: TrainingSetup | None
    # the file as read (None when it was not)
    config: ImportedConfig | None = None


@final
class ConfigCheckTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def kind(self, kind: ConfigKind) -> str:
        return {
            ConfigKind.DEEPSPEED: self.tr("DeepSpeed configuration (JSON)"),
            ConfigKind.ACCELERATE: self.tr("accelerate config file (YAML)"),
            ConfigKind.AXOLOTL: self.tr("axolotl configuration (YAML)"),
            ConfigKind.TRAINER: self.tr("Hugging Face Trainer arguments (transformers / TRL)"),
            ConfigKind.LLAMA_FACTORY: self.tr("LLaMA-Factory configuration (YAML)"),
            ConfigKind.TORCHTUNE: self.tr("torchtune configuration (YAML)"),
            ConfigKind.NEOX: self.tr("GPT-NeoX configuration (YAML)"),
        }[kind]

    def offload(self, offload: Offload) -> str:
        return {
            Offload.NONE: self.tr("none"),
            Offload.OPTIMIZER: self.tr("the optimizer"),
            Offload.ALL: self.tr("the optimizer and the parameters"),
        }[offload]

    def check(self, path: Path, gpus: int | None) -> CheckOutcome:
        """Read ``path``; ``gpus``: the planner's GPUs, for files that do not say."""
        try:
            config = read_config(path)
        except ConfigImportError as exc:
            message = self.tr("Could not read “{name}”: {reason}").format(
                name=path.name, reason=self._formats.said(exc.message)
            )
            return CheckOutcome(False, message, message, None)
        file_gpus = config.derived(None).gpus
        setup, missing = config.setup(None if file_gpus is not None else gpus)
        lines = [self.tr("“{name}”: {kind}.").format(name=path.name, kind=self.kind(config.kind))]
        if setup is None and "precision" in config.auto_fields:
            # "auto" precision (axolotl's default) is bf16 on every GPU that has it: the
            # planner takes bf16 and says so, rather than nothing at all
            assumed = replace(
                config,
                precision=Precision.BF16,
                unresolved=tuple(f for f in config.unresolved if f != "precision"),
                auto_fields=tuple(f for f in config.auto_fields if f != "precision"),
            )
            setup, still = assumed.setup(None if file_gpus is not None else gpus)
            if setup is not None:
                lines.append(
                    self.tr('Precision "auto": taken as bf16 (fp16 on GPUs without bf16).')
                )
            else:
                missing = still
        lines += self._values(config, setup)
        lines += self._verdicts(config, None if file_gpus is not None else gpus)
        if config.auto_keys:
            lines.append(
                self.tr('Filled in by the trainer ("auto"): {keys}.').format(
                    keys=", ".join(config.auto_keys)
                )
            )
        for item in config.unread:
            lines.append(
                self.tr("Could not use {key} = {value}: {reason}").format(
                    key=item.key,
                    value=self._formats.said(item.value),
                    reason=self._formats.said(item.reason),
                )
            )
        if setup is None:
            lines.append(
                self.tr("Not put into the training description: {what}.").format(
                    what="; ".join(self._formats.said(m).rstrip(".") for m in missing)
                )
            )
            message = self.tr("“{name}” read; the description needs more to use it.").format(
                name=path.name
            )
            return CheckOutcome(True, message, "\n".join(lines), None)
        message = self.tr("Configuration read from “{name}”.").format(name=path.name)
        return CheckOutcome(True, message, "\n".join(lines), setup, config)

    def applied(self, outcome: CheckOutcome) -> CheckOutcome:
        """``outcome`` once its setup is in the description."""
        return replace(
            outcome, report=outcome.report + "\n" + self.tr("Put into the training description.")
        )

    def not_applied(self, outcome: CheckOutcome, path: Path) -> CheckOutcome:
        """``outcome`` when the description holds a refused entry: nothing was put in."""
        return replace(
            outcome,
            ok=False,
            message=self.tr(
                "“{name}” read, but not used: correct the training description first."
            ).format(name=path.name),
            report=outcome.report
            + "\n"
            + self.tr("Correct the training description, then check the file again."),
            setup=None,
        )

    def _values(self, config: ImportedConfig, setup: TrainingSetup | None) -> list[str]:
        f = self._formats.format
        if setup is not None:
            return [
                self.tr(
                    "Effective batch {e} = {b} × {a} × {g} on {nodes}, ZeRO-{zero}, "
                    "{precision}, offload: {offload}."
                ).format(
                    e=f(setup.effective_batch),
                    b=f(setup.micro_batch),
                    a=f(setup.accumulation_steps),
                    g=self._formats.gpus_text(setup.gpus),
                    nodes=self._formats.counted(
                        lambda n: self.tr("%n node(s)", "", n), setup.nodes
                    ),
                    zero=int(setup.zero_stage),
                    precision=setup.precision.value,
                    offload=self.offload(setup.offload),
                )
            ]
        known = []
        for name, value in config.values().items():
            if value is not None and name not in {"lora_targets"}:
                known.append(f"{name} = {value}")
        return [self.tr("Values read: {values}.").format(values=", ".join(known) or "—")]

    def _verdicts(self, config: ImportedConfig, gpus: int | None) -> list[str]:
        derived = config.derived(gpus)
        if derived.deepspeed is None or derived.megatron is None:
            return []
        f = self._formats.format
        lines = []
        if derived.deepspeed.ok:
            lines.append(self.tr("DeepSpeed accepts these batch values."))
        else:
            lines.append(self._formats.said(deepspeed_text(derived.deepspeed)))
        if derived.megatron.ok:
            lines.append(
                self.tr("Megatron accepts --global-batch-size {batch}.").format(
                    batch=f(derived.megatron.global_batch_size)
                )
            )
        else:
            lines.append(
                self.tr("Megatron would refuse --global-batch-size {batch}.").format(
                    batch=f(derived.megatron.global_batch_size)
                )
            )
        return lines


class CheckViewModel(QObject):
    """Reads a trainer config and puts what it fixes into the training description, so
    its memory and time show at once."""

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._texts = ConfigCheckTexts(training.formats)
        self._fit = FitTexts(training.formats)

    def check(self, path: Path) -> CheckOutcome:
        """Read ``path``; when it gives a whole setup, the description takes it (files
        that do not give the GPU count use the description's)."""
        t = self._training
        gpus = t.remembered_value(TrainingField.GPUS)
        outcome = self._texts.check(path, None if gpus is None else int(gpus))
        if outcome.setup is None or outcome.config is None:
            return outcome
        current = t.description
        if current is None:
            return self._texts.not_applied(outcome, path)
        t.apply(fixed_by(outcome.config, outcome.setup, current))
        outcome = self._texts.applied(outcome)
        plan = t.plan
        if plan is not None and plan.fit is not None:  # what it needs on the description's GPU
            fit = self._fit.fit(plan.fit, plan.description.tensor_parallel)
            outcome = replace(outcome, report=f"{outcome.report}\n{fit.verdict}: {fit.usage}")
        elif plan is not None and plan.no_fit is not None:
            fit = self._fit.fit_of_nothing(plan.no_fit, plan.description.tensor_parallel)
            outcome = replace(outcome, report=f"{outcome.report}\n{fit.verdict}: {fit.usage}")
        return outcome
