"""One estimate in words: sizes in GB and bytes, the breakdown rows, warnings, the
value "Use this value" hands to the calculator, sources and the measuring command."""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import final

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.calculator import ACTIVATION_DECIMALS, LIMITS, Field
from gradacc_desktop.core.memory import GB, STACK_TEXT, Item, Preset, Recompute, Result, StackKind
from gradacc_desktop.core.memory.families.vision_facts import summary as vision_summary
from gradacc_desktop.core.time import significant
from gradacc_desktop.viewmodels.activation.fields import (
    MEASURE_COMMAND,
    PAPER_CITATION,
    PAPER_URL,
    Options,
)
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel
from gradacc_desktop.viewmodels.activation.texts import ActivationTexts
from gradacc_desktop.viewmodels.activation.views import BreakdownRow, EstimateView, RowKind
from gradacc_desktop.viewmodels.formatting import Translating, format_counted


@final
class EstimateTexts(Translating):
    def __init__(self, texts: ActivationTexts) -> None:
        self._texts = texts

    @staticmethod
    def _gb(nbytes: int) -> Decimal:
        """Exact decimal GB."""
        return Decimal(nbytes) / GB

    def _shown_gb(self, nbytes: int) -> str:
        """GB to 3 decimal places, or 3 significant digits below 1 GB."""
        value = self._gb(nbytes)
        if value.is_zero():
            return self._texts.format_gb(Decimal(0))
        places = max(ACTIVATION_DECIMALS, ACTIVATION_DECIMALS - 1 - value.adjusted())
        rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        return self._texts.format_gb(rounded)

    def calculator_value(self, result: Result) -> Decimal | None:
        """The peak rounded up to the calculator's places; ``None`` beyond its range."""
        quantum = Decimal(1).scaleb(-ACTIVATION_DECIMALS)
        value = max(self._gb(result.peak_bytes).quantize(quantum, rounding=ROUND_CEILING), quantum)
        minimum, maximum = LIMITS[Field.ACTIVATION_GB].minimum, LIMITS[Field.ACTIVATION_GB].maximum
        return value if minimum <= value <= maximum else None

    def _row(self, item: Item) -> BreakdownRow:
        per_layer = self._shown_gb(item.bytes) if item.stack is not None else ""
        return BreakdownRow(
            label=self._texts.part_text(item.key),
            per_layer=per_layer,
            total=self._shown_gb(item.total),
            kind=RowKind.ITEM,
        )

    def _stack_heading(self, kind: StackKind, count: int, several: bool) -> str:
        if not several:
            return format_counted(
                self._texts.locale, lambda n: self.tr("Per layer × %n layer(s)", "", n), count
            )
        name = QCoreApplication.translate("Activation", STACK_TEXT[kind])
        return format_counted(
            self._texts.locale,
            lambda n: self.tr("{per_layer} × %n layer(s)", "", n).replace("{per_layer}", name),
            count,
        )

    def _breakdown(self, result: Result) -> tuple[BreakdownRow, ...]:
        stacks: dict[StackKind, list[Item]] = {}
        for item in result.breakdown:
            if item.stack is not None:
                stacks.setdefault(item.stack, []).append(item)
        outside = [item for item in result.breakdown if item.stack is None]
        rows: list[BreakdownRow] = []
        for kind, items in stacks.items():
            per_layer = sum(item.bytes for item in items)
            heading = self._stack_heading(kind, items[0].count, len(stacks) > 1)
            rows.append(BreakdownRow(heading, self._shown_gb(per_layer), "", RowKind.SECTION))
            rows += [self._row(item) for item in items]
        rows.append(BreakdownRow(self.tr("Once per sample"), "", "", RowKind.SECTION))
        rows += [self._row(item) for item in outside]
        rows.append(
            BreakdownRow(
                self.saved_title(),
                "",
                self._shown_gb(result.saved_bytes),
                RowKind.TOTAL,
            )
        )
        rows.append(BreakdownRow(self.tr("Only at the peak"), "", "", RowKind.SECTION))
        rows += [self._row(item) for item in result.peak_extra]
        rows.append(
            BreakdownRow(self.tr("Peak"), "", self._shown_gb(result.peak_bytes), RowKind.TOTAL)
        )
        return tuple(rows)

    def _warnings(
        self, result: Result, preset: Preset | None, model: LoadedModel | None
    ) -> tuple[str, ...]:
        warnings: list[str] = []
        limit: tuple[str, int] | None = None
        if preset is not None:
            limit = (preset.label, preset.max_position_embeddings)
        elif model is not None and model.arch.max_positions is not None:
            limit = (model.label, model.arch.max_positions)
        if limit is not None and result.inputs.seq > limit[1]:
            warnings.append(
                self.tr(
                    "The sequence is longer than {model} accepts ({maximum} positions)."
                ).format(model=limit[0], maximum=self._texts.format(limit[1]))
            )
        if self.calculator_value(result) is None:
            maximum = LIMITS[Field.ACTIVATION_GB].maximum
            warnings.append(
                self.tr("The peak is above the calculator's maximum of {maximum}.").format(
                    maximum=self._texts.format_gb(maximum)
                )
            )
        return tuple(warnings)

    def saved_title(self) -> str:
        return self.tr("Saved for the backward pass")

    def view(
        self, result: Result, preset: Preset | None, model: LoadedModel | None = None
    ) -> EstimateView:
        """Every display string of one valid estimate."""
        value = self.calculator_value(result)
        if value is None:
            calculator_value = ""
            note = ""
        else:
            calculator_value = self._texts.format_gb(value)
            note = self.tr(
                "“Use this value” puts {value} in the calculator's activation per sample: the "
                "peak rounded up to {decimals} decimal places."
            ).format(value=calculator_value, decimals=ACTIVATION_DECIMALS)
        return EstimateView(
            saved_title=self.saved_title(),
            peak_title=self.tr("Peak during the training step"),
            saved=self._shown_gb(result.saved_bytes),
            saved_bytes=self._texts.format_bytes(result.saved_bytes),
            peak=self._shown_gb(result.peak_bytes),
            peak_bytes=self._texts.format_bytes(result.peak_bytes),
            calculator_value=calculator_value,
            calculator_note=note,
            breakdown=self._breakdown(result),
            assumptions=(
                *(self._texts.assumption_text(a) for a in result.assumptions),
                *(QCoreApplication.translate("Activation", note) for note in result.notes),
            ),
            warnings=self._warnings(result, preset, model),
            result=result,
            vision=self._vision(result),
        )

    def _vision(self, result: Result) -> str:
        """The image tower's parameters, images, tokens and share of the saved bytes."""
        tower = vision_summary(result)
        if tower is None:
            return ""
        f = self._texts.format
        return self.tr(
            "Vision tower: {params} parameters · {images} × {tokens} tokens per image · "
            "{saved} of the {total} saved ({share} %)"
        ).format(
            params=f(tower.tower_parameters),
            images=f(tower.images),
            tokens=f(tower.tokens_per_image),
            saved=self._shown_gb(tower.tower_bytes),
            total=self._shown_gb(tower.saved_bytes),
            share=f(significant(tower.share * 100, 2)),
        )

    def sources(
        self, preset: Preset | None, preset_label: str, model: LoadedModel | None = None
    ) -> tuple[str, ...]:
        sources: list[str] = []
        if model is not None:
            sources.append(
                self.tr("Model: {model}, {source}").format(model=model.label, source=model.source)
            )
        if preset is not None:
            sources.append(
                self.tr("Model sizes: {model}, {url}").format(model=preset_label, url=preset.source)
            )
        sources.append(
            self.tr("Paper profile: {citation}, {url}").format(
                citation=PAPER_CITATION, url=PAPER_URL
            )
        )
        sources.append(
            self.tr(
                "Hugging Face profile: the transformers 5 modules and PyTorch's autograd, "
                "checked against what autograd saves on real models."
            )
        )
        return tuple(sources)

    def measure_command(
        self,
        o: Options,
        seq: int | None,
        model: LoadedModel | None = None,
        target_seq: int | None = None,
        images: int | None = None,
        image_size: tuple[int, int] | None = None,
    ) -> str:
        """The measuring tool's command for these options (sequence 2048 when unknown);
        ``images`` and ``image_size`` for a model with a vision tower."""
        seq = seq or 2048
        command = MEASURE_COMMAND
        if model is not None and model.file_name:
            command = command.replace("config.json", _shell_word(model.file_name))
        parts = [command, f"--seq {seq}"]
        if model is not None and model.arch.encoder_decoder and target_seq:
            parts.append(f"--target-seq {target_seq}")
        if images:
            parts.append(f"--images {images}")
        if image_size is not None:
            parts.append(f"--image-size {image_size[0]}x{image_size[1]}")
        if images is not None and o.vision_frozen:
            parts.append("--freeze-vision")
        parts += [
            f"--dtype {o.dtype.value}",
            f"--attention {o.attention.value}",
        ]
        if o.recompute is Recompute.FULL:
            parts.append("--checkpointing")
        if not o.dropout:
            parts.append("--no-dropout")
        if o.fused_loss:  # the tool builds the Hugging Face model: its loss is not Liger's
            parts.append(self.tr("# measures the loss unfused: Liger's kernels need a GPU"))
        return " ".join(parts)


def _shell_word(name: str) -> str:
    """``name`` as one word of a POSIX shell command (quoted when it needs to be)."""
    import shlex

    return shlex.quote(name)
