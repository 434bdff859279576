""" "Check my config" in words: what ``core.frameworks.config_import`` read of a training config,
whether its framework runs it, and the memory and time lines the view-model adds.

The values and verdicts are worded here; the reasons the reader gives (a key it could
not use, what is missing, why the file cannot be read) are the core's ``Message``s,
translated here with their values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import final

from gradacc_desktop.core.frameworks import megatron_text
from gradacc_desktop.core.frameworks.config_import import (
    FRAMEWORKS,
    ConfigImportError,
    ConfigKind,
    ImportedConfig,
    deepspeed_text,
    read_config,
)
from gradacc_desktop.core.frameworks.config_import.verdict import (
    Verdict,
    described_setup,
    unknown_text,
    verdict,
)
from gradacc_desktop.core.memory import ModelSource, ModelSpec, Offload, TrainingSetup
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.imported import bundled_model_of
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.shared_texts import ATTENTION_KERNEL, RECOMPUTATION, say


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
    # why there is no setup: what is missing, or the reason it cannot run (worded)
    missing: tuple[str, ...] = ()


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

    def read(self, path: Path) -> ImportedConfig | CheckOutcome:
        """The file as read, or the outcome saying why it cannot be."""
        try:
            return read_config(path)
        except ConfigImportError as exc:
            message = self.tr("Could not read “{name}”: {reason}").format(
                name=path.name, reason=self._formats.said(exc.message)
            )
            return CheckOutcome(False, message, message, None)

    def check(self, config: ImportedConfig, name: str, world: int | None) -> CheckOutcome:
        """What ``config`` gives on ``world`` GPUs in all (None: the file's own count)."""
        said = self._formats.said
        v = verdict(config, world)
        setup, missing, assumed_bf16 = described_setup(config, world)
        lines = [self.tr("“{name}”: {kind}.").format(name=name, kind=self.kind(config.kind))]
        lines += self._assumed(config, world)
        if v.accepts:
            lines.append(self._accepts(config.kind))
        else:
            lines.append(self._refuses(config.kind))
            lines += [f"• {said(r)}" for r in v.refusals]
        if assumed_bf16:
            lines.append(self.tr('Precision "auto": taken as bf16 (fp16 on GPUs without bf16).'))
        lines += self._values(config, setup)
        lines += self._layout(v)
        lines += [
            self.tr("Derived: {note}.").format(note=said(n).rstrip(".")) for n in v.derived.notes
        ]
        lines += [self.tr("Warning: {text}").format(text=said(w)) for w in v.derived.warnings]
        lines += self._verdicts(v)
        if config.auto_keys:
            lines.append(
                self.tr('Filled in by the trainer ("auto"): {keys}.').format(
                    keys=", ".join(config.auto_keys)
                )
            )
        lines += self._files(config)
        lines += self._unknown(config)
        not_found = {f.key for f in config.resolved_files if f.path is None}
        for item in config.unread:
            # a named file not found is said once, by _files
            if not item.refused and item.key not in not_found:
                lines.append(
                    self.tr("Could not use {key} = {value}: {reason}").format(
                        key=item.key, value=said(item.value), reason=said(item.reason)
                    )
                )
        if setup is None:
            message = self.tr("“{name}” read; the description needs more to use it.").format(
                name=name
            )
            what = tuple(said(m).rstrip(".") for m in missing)
            return CheckOutcome(True, message, "\n".join(lines), None, config, what)
        message = self.tr("Configuration read from “{name}”.").format(name=name)
        return CheckOutcome(True, message, "\n".join(lines), setup, config)

    def _assumed(self, config: ImportedConfig, world: int | None) -> list[str]:
        """The GPUs the report is for, and whose count that is."""
        own_count = config.derived(None)
        own, source = own_count.gpus, own_count.gpus_from
        if world is None or world == own:
            if own is None:
                return [self.tr("GPUs: the file does not say how many.")]
            if source == "derived":
                return [
                    self.tr(
                        "Checked on {gpus}: what its train_batch_size, micro-batch and "
                        "accumulation steps imply."
                    ).format(gpus=self._all(own))
                ]
            return [self.tr("Checked on {gpus}, as the file says.").format(gpus=self._all(own))]
        if own is None:
            return [
                self.tr(
                    "Checked on {gpus}: the training description's (the file does not say)."
                ).format(gpus=self._all(world))
            ]
        return [
            self.tr("Checked on {gpus}: the training description's (the file says {own}).").format(
                gpus=self._all(world), own=self._formats.format(own)
            )
        ]

    def _all(self, world: int) -> str:
        return self._formats.counted(lambda n: self.tr("%n GPU(s) in all", "", n), world)

    def _unknown(self, config: ImportedConfig) -> list[str]:
        """The keys the framework does not know but runs anyway: a near miss on its own
        line ("did you mean …?"), the others grouped by what the framework does."""
        said = self._formats.said
        lines = []
        grouped: dict[str, list[str]] = {}
        for unknown in config.unknown_keys:
            if unknown.refused:
                continue  # among the refusals, first
            if unknown.suggestion:
                lines.append(
                    self.tr("Unknown key: {text}").format(text=said(unknown_text(unknown)))
                )
            else:
                grouped.setdefault(unknown.reason, []).append(unknown.key)
        for reason, keys in grouped.items():
            lines.append(
                self.tr("Unknown keys ({reason}): {keys}.").format(
                    reason=said(reason), keys=", ".join(keys)
                )
            )
        return lines

    def _accepts(self, kind: ConfigKind) -> str:
        return self.tr("{framework} would run it as written.").format(framework=FRAMEWORKS[kind])

    def _refuses(self, kind: ConfigKind) -> str:
        return self.tr("{framework} would refuse it:").format(framework=FRAMEWORKS[kind])

    def _layout(self, v: Verdict) -> list[str]:
        d = v.derived
        f = self._formats.format
        lines = []
        if d.parallel and d.gpus is not None:
            sizes = " × ".join(
                f"{self._parallel_name(name)} {f(size)}" for name, size in d.parallel
            )
            replicas = "" if d.data_parallel is None else self._replicas(d.data_parallel)
            if d.data_parallel is None:
                lines.append(
                    self.tr("{gpus}: {sizes}.").format(
                        gpus=self._formats.gpus_text(d.gpus), sizes=sizes
                    )
                )
            else:
                lines.append(
                    self.tr("{gpus}: {sizes} → {replicas}.").format(
                        gpus=self._formats.gpus_text(d.gpus), sizes=sizes, replicas=replicas
                    )
                )
        if v.tokens_per_step is not None and d.effective_batch is not None:
            values = {
                "tokens": f(v.tokens_per_step),
                "batch": f(d.effective_batch),
                "seq": f(v.tokens_per_step // d.effective_batch),
            }
            if v.tokens_at_most:
                lines.append(
                    self.tr(
                        "At most {tokens} tokens per optimizer step ({batch} samples × "
                        "{seq}; the samples are not packed, so shorter ones are padded)."
                    ).format(**values)
                )
            else:
                lines.append(
                    self.tr(
                        "{tokens} tokens per optimizer step ({batch} samples × {seq}, packed)."
                    ).format(**values)
                )
        return lines

    def _replicas(self, count: int) -> str:
        return self._formats.counted(lambda n: self.tr("%n data-parallel replica(s)", "", n), count)

    def _parallel_name(self, name: str) -> str:
        return {
            "tensor": self.tr("tensor"),
            "pipeline": self.tr("pipeline"),
            "context": self.tr("context"),
            "shard": self.tr("sharded"),
            "replicate": self.tr("replicated"),
        }.get(name, name)

    def _files(self, config: ImportedConfig) -> list[str]:
        lines = []
        for found in config.resolved_files:
            if found.path is None:
                lines.append(
                    self.tr("Not found: {key} = {reference}; what it sets stays unknown.").format(
                        key=found.key, reference=found.reference
                    )
                )
            elif found.where == "config folder":
                lines.append(
                    self.tr("Read {reference} next to the config.").format(
                        reference=found.reference
                    )
                )
            elif found.path == found.reference:  # an absolute path, read as written
                lines.append(
                    self.tr("Read {reference}, which {key} names.").format(
                        reference=found.reference, key=found.key
                    )
                )
            else:  # the launch folder or a folder above the config
                lines.append(
                    self.tr("Read {reference} from {path}.").format(
                        reference=found.reference, path=found.path
                    )
                )
        return lines

    def figures_for(self, config: ImportedConfig, description: TrainingDescription) -> list[str]:
        """Which model and card the memory and time below are for, and a model the file
        names that the description could not take."""
        lines = []
        model = self.model_name(description.model)
        card = self.tr("no GPU card chosen") if description.card is None else description.card.name
        lines.append(
            self.tr("For {model} on {count} × {card}:").format(
                model=model, count=self._formats.format(description.world), card=card
            )
        )
        if config.base_model and bundled_model_of(config.base_model) is None:
            lines.insert(
                0,
                self.tr(
                    "The file's model {name} is not a bundled model: the description keeps "
                    "its own model (choose the model, or open its config.json, in the "
                    "description)."
                ).format(name=config.base_model),
            )
        return lines

    def model_name(self, model: ModelSpec | None) -> str:
        if model is None:
            return self.tr("no model chosen")
        if model.source is ModelSource.BUNDLED and model.name:
            return model.name
        if model.source is ModelSource.CONFIG:
            return model.file_name or self.tr("the model's config.json")
        if model.source is ModelSource.PARAMS and model.params is not None:
            return self.tr("a model of {count} parameters").format(
                count=self._formats.format(model.params)
            )
        return self.tr("the typed model shape")

    def memory_unknown(self) -> str:
        return self.tr(
            "Memory per GPU: not known until the description has a model and a GPU card."
        )

    def time_line(self, step: str, rate: str) -> str:
        return self.tr("Time: {step} per optimizer step, {rate} tokens/s.").format(
            step=step, rate=rate
        )

    def time_unknown(self, why: str) -> str:
        return self.tr("Time per step: {why}").format(why=why)

    def not_put(self, missing: tuple[str, ...]) -> str:
        """The report's last line when nothing of the file goes into the description."""
        return self.tr("Not put into the training description: {what}.").format(
            what="; ".join(missing)
        )

    def layout_message(self, name: str) -> str:
        return self.tr("GPUs and setup read from “{name}”.").format(name=name)

    def layout_put(self, missing: tuple[str, ...]) -> str:
        """The report's line once the file's GPUs and setup, not its batch, are in the
        description."""
        return self.tr(
            "Its GPUs, parallel sizes and setup were put into the training description; "
            "the file does not give the batch ({what}): the training script's arguments "
            "do, so the description keeps its own."
        ).format(what=", ".join(missing))

    def put(self) -> str:
        return self.tr("Put into the training description.")

    def taken(self, config: ImportedConfig) -> str | None:
        """What the description took from the file besides its batch and layout: the
        sequence length, the recomputation and the loss (None: nothing)."""
        parts = []
        if config.sequence_length is not None:
            parts.append(
                self.tr("{length} tokens").format(
                    length=self._formats.format(config.sequence_length)
                )
            )
        if config.checkpointing is not None:
            checked = Recompute.FULL if config.checkpointing else Recompute.NONE
            parts.append(say(RECOMPUTATION[checked]))
        if config.attention is not None:
            parts.append(say(ATTENTION_KERNEL[config.attention]))
        if config.fused_loss:
            parts.append(self.tr("the fused loss (Liger)"))
        if config.master_weights is MasterWeights.BF16:
            parts.append(self.tr("a bf16 master copy with bf16 optimizer states"))
        elif config.master_weights is MasterWeights.NONE:
            parts.append(self.tr("pure bf16 (no master copy)"))
        if not parts:
            return None
        return self.tr("From the file as well: {parts}.").format(parts=", ".join(parts))

    def batch_held(self) -> str:
        """The report's line while the description holds the file's own pair."""
        return self.tr(
            "Put into the training description. Its micro-batch and accumulation steps "
            "stay the file's when you change the GPUs, and the effective batch follows, "
            "as the framework would run the file."
        )

    def correct_first(self) -> str:
        return self.tr("Correct the training description, then check the file again.")

    def not_applied(self, outcome: CheckOutcome, name: str) -> CheckOutcome:
        """``outcome`` when the description holds a refused entry: nothing was put in."""
        return replace(
            outcome,
            ok=False,
            message=self.tr(
                "“{name}” read, but not used: correct the training description first."
            ).format(name=name),
            setup=None,
        )

    def _values(self, config: ImportedConfig, setup: TrainingSetup | None) -> list[str]:
        f = self._formats.format
        if setup is not None:
            values = {
                "e": f(setup.effective_batch),
                "b": f(setup.micro_batch),
                "a": f(setup.accumulation_steps),
                "g": (
                    self._formats.gpus_text(setup.gpus)
                    if setup.world == setup.gpus
                    else self._replicas(setup.gpus)
                ),
                "zero": int(setup.zero_stage),
                "precision": setup.precision.value,
                "offload": self.offload(setup.offload),
            }
            if config.nodes is None:
                # the file does not say on how many machines: the description keeps its own
                return [
                    self.tr(
                        "Effective batch {e} = {b} × {a} × {g}, ZeRO-{zero}, {precision}, "
                        "offload: {offload}."
                    ).format(**values)
                ]
            return [
                self.tr(
                    "Effective batch {e} = {b} × {a} × {g} on {nodes}, ZeRO-{zero}, "
                    "{precision}, offload: {offload}."
                ).format(
                    **values,
                    nodes=self._formats.counted(
                        lambda n: self.tr("%n node(s)", "", n), setup.nodes
                    ),
                )
            ]
        known = []
        for name, value in config.values().items():
            if value is not None and name not in {"lora_targets"}:
                known.append(f"{name} = {value}")
        return [self.tr("Values read: {values}.").format(values=", ".join(known) or "—")]

    def _verdicts(self, v: Verdict) -> list[str]:
        """DeepSpeed's and Megatron's verdicts in the core's one wording (a refusal by
        DeepSpeed is said once, among the refusals)."""
        derived = v.derived
        if derived.deepspeed is None or derived.megatron is None:
            return []
        said = self._formats.said
        lines = []
        if derived.problem != deepspeed_text(derived.deepspeed):
            lines.append(said(deepspeed_text(derived.deepspeed)))
        lines.append(said(megatron_text(derived.megatron, derived.accumulation_steps)))
        return lines
