"""The memory cards: does the configuration fit in one GPU, and what would help when
not even one sample does."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.planning import FitResult, NothingFits, Suggestion
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import FitView, NothingFitsView


@final
class FitTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def fit(self, result: FitResult, tensor_parallel: int = 1) -> FitView:
        """``result`` in words; with tensor parallelism its activation per sample is
        one GPU's share (``tensor_parallel`` is said)."""
        g = self._formats.format_gb
        usage = self.tr(
            "Activations {micro} × {per_sample} = {activation}, plus {other} other memory: "
            "{total} of {capacity}."
        ).format(
            micro=self._formats.format(result.micro_batch),
            per_sample=g(result.activation_per_sample_gb),
            activation=g(result.activation_gb),
            other=g(result.other_memory_gb),
            total=g(result.total_gb),
            capacity=g(result.gpu_memory_gb),
        )
        if result.fits:
            headroom = self.tr("Headroom: {free} free.").format(free=g(result.headroom_gb))
        else:
            headroom = self.tr("Over capacity by {excess}.").format(
                excess=g(abs(result.headroom_gb))
            )
        if result.max_micro_batch:
            largest = self.tr("Largest micro-batch that fits: {largest}.").format(
                largest=self._formats.format(result.max_micro_batch)
            )
        else:
            largest = self.tr("Not even a micro-batch of 1 fits.")
        if tensor_parallel > 1:
            usage += " " + self.tr(
                "Per GPU: one sample's activations split over {tensor} tensor-parallel GPUs "
                "(the first pipeline stage holds p micro-batches of 1/p of the layers)."
            ).format(tensor=self._formats.format(tensor_parallel))
        verdict = (
            self.tr("Fits in GPU memory") if result.fits else self.tr("Does not fit in GPU memory")
        )
        return FitView(
            fits=result.fits, verdict=verdict, usage=usage, headroom=headroom, largest=largest
        )

    def nothing_fits(self, nothing: NothingFits) -> NothingFitsView:
        g = self._formats.format_gb
        at_one = nothing.fit
        if nothing.other_exceeds_capacity:
            message = self.tr(
                "Nothing fits: the other memory alone ({other}) is more than this GPU's "
                "{capacity}, before any activations."
            )
        else:
            message = self.tr(
                "Nothing fits: even a micro-batch of 1 needs {total} ({activation} of "
                "activations + {other} other memory), {shortfall} more than this GPU's "
                "{capacity}."
            )
        message = message.format(
            other=g(at_one.other_memory_gb),
            capacity=g(at_one.gpu_memory_gb),
            total=g(at_one.total_gb),
            activation=g(at_one.activation_gb),
            shortfall=g(nothing.shortfall_gb),
        )
        return NothingFitsView(
            message=message,
            suggestions_title=self.tr("What would help:"),
            suggestions=tuple(self._suggestion(s) for s in nothing.suggestions),
        )

    def _suggestion(self, suggestion: Suggestion) -> str:
        return {
            Suggestion.ACTIVATION_RECOMPUTATION: self.tr(
                "Turn on activation recomputation (gradient checkpointing) to cut the "
                "activation memory per sample."
            ),
            Suggestion.SHORTER_SEQUENCES: self.tr(
                "Use shorter sequences: activation memory grows with the sequence length."
            ),
            Suggestion.ZERO_SHARDING: self.tr(
                "Shard optimizer states, gradients and weights across the GPUs with ZeRO or "
                "FSDP (Estimate… shows the effect)."
            ),
            Suggestion.MORE_GPUS: self.tr(
                "Add data-parallel GPUs: with ZeRO sharding each one holds a smaller share."
            ),
            Suggestion.LARGER_GPU: self.tr("Choose a GPU with more memory."),
            Suggestion.PARAMETER_EFFICIENT: self.tr(
                "Train fewer parameters, for example with LoRA."
            ),
            Suggestion.SMALLER_MODEL: self.tr("Use a smaller model."),
        }[suggestion]
