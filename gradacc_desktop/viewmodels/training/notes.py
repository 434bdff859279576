"""What the description panel says about the figures it derives: the model in a line,
each derived memory figure with where it comes from (or why it cannot be derived and
what to give instead), and what the plan assumes."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import final

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory import ModelFacts, ModelSource
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time import GpuCard
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.figures import Figure, Figures, Missing, Source, shown_gb
from gradacc_desktop.core.training.problems import ProblemKind, problem_text
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.formatting import Translating, format_approx
from gradacc_desktop.viewmodels.shared_texts import ATTENTION_KERNEL, RECOMPUTATION, say
from gradacc_desktop.viewmodels.training.fields import TrainingField

#: the frameworks by their own names (not translated)
FRAMEWORK_NAMES = {
    Framework.DEEPSPEED: "DeepSpeed",
    Framework.MEGATRON: "Megatron",
    Framework.FSDP: "FSDP2",
}


@dataclass(frozen=True)
class FigureNote:
    #: one line: the derived value and where it comes from, or why there is none
    text: str
    #: the field holds a typed value over a derived one ("Use the derived value")
    overridden: bool = False
    #: the derived value, shown in the empty field
    placeholder: str = ""


@dataclass(frozen=True)
class DescriptionNotes:
    model: str = ""
    lora: str = ""
    activation: FigureNote = FigureNote("")
    other: FigureNote = FigureNote("")
    usable: str = ""
    #: what cannot be derived, each with what to give instead
    missing: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@final
class NoteTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def gb(self, nbytes: int) -> str:
        return self._formats.format_gb(shown_gb(nbytes))

    def notes(self, d: TrainingDescription, figs: Figures) -> DescriptionNotes:
        return DescriptionNotes(
            model=self._model(d, figs.facts),
            lora=self._lora(d, figs),
            activation=self._activation(d, figs.activation),
            other=self._other(d, figs),
            usable=self._usable(d.card),
            missing=self._missing(figs),
            warnings=self._warnings(d, figs.facts),
        )

    # -- the model ------------------------------------------------------------------
    def _model(self, d: TrainingDescription, model: ModelFacts | None) -> str:
        if d.model is None:
            return self.tr(
                "Choose the model: the activation per sample, the model states and the time "
                "per step are derived from it."
            )
        if model is None:
            return self.tr("This bundled model is not in this version of the app.")
        if d.model.source is ModelSource.PARAMS:  # the count is in the field above
            return self.tr(
                "Without the model's shape, the activation per sample cannot be estimated "
                "and the tensor- and pipeline-parallel traffic is not counted."
            )
        counted = self._formats.counted(
            lambda n: self.tr("%n parameter(s), exactly", "", n), model.params
        )
        size = model.size
        parts = [counted]
        if size is not None:
            parts.append(
                self._formats.counted(lambda n: self.tr("%n layer(s)", "", n), size.layers)
            )
        if model.learned_positions is not None:
            parts.append(
                self.tr("at most {length} tokens").format(
                    length=self._formats.format(model.learned_positions)
                )
            )
        return " · ".join(parts)

    def _lora(self, d: TrainingDescription, figs: Figures) -> str:
        if not d.method.adapters or figs.trainable is None or figs.facts is None:
            return ""
        total = figs.facts.params + figs.trainable
        f = self._formats.format
        return self.tr("LoRA trains {trained} of {total} parameters ({share} %).").format(
            trained=f(figs.trainable),
            total=f(total),
            share=format_approx(self._formats.locale, Decimal(figs.trainable * 100) / total, 3),
        )

    # -- the figures ----------------------------------------------------------------
    def _typed(self, figure: Figure, derived: str) -> FigureNote:
        """A figure typed over: beside what the model gives, or why it gives nothing."""
        if figure.derived is None:
            return FigureNote(
                self.tr("Typed in (not derived: {cause}).").format(
                    cause=self.missing_cause(figure.missing, figure.detail)
                )
            )
        return FigureNote(
            self.tr("Typed in; derived from the model: {derived}.").format(derived=derived),
            overridden=True,
            placeholder=derived,
        )

    def _not_derived(self, figure: Figure) -> FigureNote:
        return FigureNote(
            self.tr("Not derived: {why}").format(
                why=self.missing_reason(figure.missing, figure.detail)
            )
        )

    def _activation(self, d: TrainingDescription, figure: Figure) -> FigureNote:
        derived = "" if figure.derived is None else self.gb(figure.derived)
        if figure.source is Source.GIVEN:
            return self._typed(figure, derived)
        if figure.source is Source.ESTIMATED:
            length = self._formats.format(d.seq_len or 0)
            step = [d.precision.value]
            step.append(say(ATTENTION_KERNEL[d.attention]))
            if d.recomputed is not Recompute.NONE:
                step.append(say(RECOMPUTATION[d.recomputed]))
            if d.loss_fused:
                step.append(self.tr("fused loss"))
            return FigureNote(
                self.tr(
                    "Estimated: {value} per sample (the whole model on one GPU, {length} "
                    "tokens, {step}; transformers' saved tensors)."
                ).format(value=derived, length=length, step=", ".join(step)),
                placeholder=self.tr("{value} (estimated)").format(value=derived),
            )
        return self._not_derived(figure)

    def _other(self, d: TrainingDescription, figs: Figures) -> FigureNote:
        figure = figs.other
        derived = "" if figure.derived is None else self.gb(figure.derived)
        if figure.source is Source.GIVEN:
            return self._typed(figure, derived)
        if figure.source is Source.ESTIMATED and figs.states is not None:
            states = figs.states
            if states.zero_stage:
                sharding = self._formats.counted(
                    lambda n: self.tr("ZeRO-{stage} over %n GPU(s)", "", n), states.gpus
                ).format(stage=int(states.zero_stage))
            else:
                sharding = self.tr("no ZeRO")
            master = ""  # the copy the states are counted with, when not mixed precision's
            if d.master is MasterWeights.BF16:
                master = self.tr("a bf16 master copy")
            elif d.master is MasterWeights.NONE:
                master = self.tr("no master copy (pure bf16)")
            if master:
                sharding = ", ".join((sharding, master))
            said = {
                "states": self.gb(states.gpu_bytes),
                "sharding": sharding,
                "framework": FRAMEWORK_NAMES[d.framework],
                "overhead": self.gb(figs.overhead_bytes),
            }
            # Megatron's and FSDP2's caching allocator reserves a share over the states
            reserve = (figure.derived or 0) - states.gpu_bytes - figs.overhead_bytes
            if reserve > 0:
                text = self.tr(
                    "Model states {states} ({sharding}, as {framework} counts them) + "
                    "{reserve} allocator reserve + {overhead} overhead."
                ).format(reserve=self.gb(reserve), **said)
            else:
                text = self.tr(
                    "Model states {states} ({sharding}, as {framework} counts them) + "
                    "{overhead} overhead."
                ).format(**said)
            return FigureNote(
                text, placeholder=self.tr("{value} (estimated)").format(value=derived)
            )
        return self._not_derived(figure)

    def _usable(self, card: GpuCard | None) -> str:
        if card is None:
            return self.tr("Type the custom card's usable memory.")
        return self.tr("Usable: {usable} per GPU.").format(
            usable=self._formats.format_gb(card.usable_gb)
        )

    def missing_cause(self, missing: Missing | None, detail: str = "") -> str:
        """Why a figure is not derived, in a few words (no remedy: it was typed in)."""
        if missing is None:
            return ""
        return {
            Missing.NO_MODEL: self.tr("no model is chosen"),
            Missing.NO_SEQ_LEN: self.tr("no sequence length"),
            Missing.NO_SHAPE: self.tr("a parameter count has no shape"),
            Missing.SEQ_TOO_LONG: self.tr(
                "the model's learned positions stop at {length} tokens"
            ).format(length=self._formats.digits(detail)),
            Missing.NOT_ESTIMATED: self.tr("the estimator does not model it ({detail})").format(
                detail=detail
            ),
            Missing.RECOMPUTE: self.tr("the recomputation is not modelled for this model"),
            Missing.LORA_NOT_SIZED: self.tr("the adapters' size is not known"),
            Missing.LAYOUT: self.tr("no framework runs this layout"),
            Missing.NO_CAPACITY: self.tr("the custom card's memory is not given"),
            Missing.UNKNOWN_MODEL: self.tr("the model is not in this version of the app"),
        }[missing]

    def missing_reason(self, missing: Missing | None, detail: str = "") -> str:
        """Why a figure is not derived, and what to give instead."""
        if missing is None:
            return ""
        return {
            Missing.NO_MODEL: self.tr("choose the model, or type the value."),
            Missing.NO_SEQ_LEN: self.tr("type the sequence length, or type the value."),
            Missing.NO_SHAPE: self.tr(
                "a parameter count has no shape: choose the model or open its config.json, "
                "or type the activation per sample (measure it with the command under Help)."
            ),
            Missing.SEQ_TOO_LONG: self.tr(
                "the model's learned positions stop at {length} tokens: shorten the sequence."
            ).format(length=self._formats.digits(detail)),
            Missing.NOT_ESTIMATED: self.tr("the estimator does not model it ({detail}).").format(
                detail=detail
            ),
            Missing.RECOMPUTE: self._formats.said(problem_text(ProblemKind.RECOMPUTE_PER_OP_MODEL)),
            Missing.LORA_NOT_SIZED: self.tr(
                "the app does not know this model's projections: type the adapters' parameters."
            ),
            Missing.LAYOUT: self.tr("no framework runs this layout (see the plan)."),
            Missing.NO_CAPACITY: self.tr("type the custom card's usable memory."),
            Missing.UNKNOWN_MODEL: self.tr("this bundled model is not in this version of the app."),
        }[missing]

    def _missing(self, figs: Figures) -> tuple[str, ...]:
        lines = []
        if figs.activation.bytes is None and figs.activation.missing is not None:
            lines.append(
                self.tr("Activation per sample: {why}").format(
                    why=self.missing_reason(figs.activation.missing, figs.activation.detail)
                )
            )
        if figs.other.bytes is None and figs.other.missing is not None:
            lines.append(
                self.tr("Other memory: {why}").format(
                    why=self.missing_reason(figs.other.missing, figs.other.detail)
                )
            )
        return tuple(lines)

    def _warnings(self, d: TrainingDescription, model: ModelFacts | None) -> tuple[str, ...]:
        """A sequence longer than the context a rotary model was built for."""
        if model is None or d.seq_len is None or model.learned_positions is not None:
            return ()
        if model.context is None or d.seq_len <= model.context:
            return ()
        return (
            self.tr(
                "{length} tokens is beyond the {context} the model was built for: its "
                "rotary positions must be extended (RoPE scaling)."
            ).format(
                length=self._formats.format(d.seq_len), context=self._formats.format(model.context)
            ),
        )

    def field_placeholder(self, field: TrainingField, notes: DescriptionNotes) -> str:
        if field is TrainingField.ACTIVATION:
            return notes.activation.placeholder
        if field is TrainingField.OTHER_MEMORY:
            return notes.other.placeholder
        return ""


__all__ = ["DescriptionNotes", "FigureNote", "NoteTexts"]
