"""The memory card: whether the configuration fits in one GPU with the figures the
description derives, what is missing to say so, and — when not even one sample fits —
why, with the numbers, and the single changes that would fit."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import final

from gradacc_desktop.core.frameworks.rules import Refusal
from gradacc_desktop.core.memory import Offload
from gradacc_desktop.core.time.compute import to_decimal
from gradacc_desktop.core.training.alternatives import Alternative, Change
from gradacc_desktop.core.training.figures import shown_free_gb, shown_gb
from gradacc_desktop.core.training.plan import MemoryFit, NoFit, Plan
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import FitView, NothingFitsView
from gradacc_desktop.viewmodels.shared_texts import say


@final
class FitTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def gb(self, nbytes: int) -> str:
        return self._formats.format_gb(shown_gb(nbytes))

    def gb_factor(self, nbytes: int) -> str:
        """``nbytes`` as a factor of a product shown beside it: "≈ 14,5 GB" when showing
        it to the MB rounded it (the product is computed from the exact bytes)."""
        shown = self.gb(nbytes)
        return shown if shown_gb(nbytes) * 10**9 == nbytes else f"≈\u00a0{shown}"

    def of_plan(self, plan: Plan, typed_other: bool = False) -> FitView | None:
        """The memory verdict of ``plan``'s configuration in use, or of one sample when
        nothing fits (None: a figure is missing); ``typed_other``: the other memory was
        typed in (it is then not called model states)."""
        d, reserve = plan.description, plan.figures.slack
        layout = (d.tensor_parallel, typed_other, reserve, d.pipeline_stages)
        if plan.fit is not None:
            return self._fit(plan.fit, *layout)
        if plan.no_fit is None:
            return None
        nothing = plan.no_fit
        one = MemoryFit(
            micro_batch=1,
            per_gpu_bytes=nothing.other_bytes + nothing.activation_bytes,
            usable_bytes=nothing.usable_bytes,
            other_bytes=nothing.other_bytes,
            activation_bytes=nothing.activation_bytes,
            per_sample_bytes=nothing.activation_bytes,
            fits=False,
            headroom_bytes=-nothing.shortfall_bytes,
            max_micro_batch=0,
        )
        return self._fit(one, *layout)

    def _fit(
        self,
        result: MemoryFit,
        tensor_parallel: int,
        typed_other: bool,
        reserve: Fraction,
        pipeline_stages: int,
    ) -> FitView:
        """``reserve``: the caching allocator's reserve the activations per GPU include
        (FSDP2's, Megatron's)."""
        f = self._formats.format
        if typed_other:
            usage = self.tr(
                "Activations {micro} × {per_sample} = {activation}, plus {other} of other "
                "memory: {total} of {capacity}."
            )
        else:
            usage = self.tr(
                "Activations {micro} × {per_sample} = {activation}, plus {other} of model "
                "states and overhead: {total} of {capacity}."
            )
        usage = usage.format(
            micro=f(result.micro_batch),
            per_sample=self.gb_factor(result.per_sample_bytes),
            activation=self.gb(result.activation_bytes),
            other=self.gb(result.other_bytes),
            total=self.gb(result.per_gpu_bytes),
            capacity=self.gb(result.usable_bytes),
        )
        if result.fits:
            free = self._formats.format_gb(shown_free_gb(result.headroom_bytes))
            headroom = self.tr("Headroom: {free} free.").format(free=free)
        else:
            headroom = self.tr("Over capacity by {excess}.").format(
                excess=self.gb(-result.headroom_bytes)
            )
        if result.max_micro_batch:
            largest = self.tr("Largest micro-batch that fits: {largest}.").format(
                largest=f(result.max_micro_batch)
            )
        else:
            largest = self.tr("Not even a micro-batch of 1 fits.")
        if reserve:
            usage += " " + self.tr(
                "Each sample's activations include the caching allocator's reserve (+{percent} %)."
            ).format(percent=self._formats.format(to_decimal(reserve * 100, 1)))
        if tensor_parallel > 1:
            usage += " " + self.tr(
                "Per GPU: each of the {tensor} tensor-parallel GPUs keeps its share of one "
                "sample's activations (what tensor parallelism does not split, it keeps whole)."
            ).format(tensor=f(tensor_parallel))
        if pipeline_stages > 1:
            usage += " " + self.tr(
                "The first pipeline stage holds p micro-batches of 1/p of the layers."
            )
        verdict = (
            self.tr("Fits in GPU memory") if result.fits else self.tr("Does not fit in GPU memory")
        )
        return FitView(
            fits=result.fits, verdict=verdict, usage=usage, headroom=headroom, largest=largest
        )

    def refused(self, fit: FitView, refusals: tuple[Refusal, ...]) -> FitView:
        """A setup a framework refuses: why, first (the rule book's sentences); when it
        fits the memory, the verdict says that it is refused all the same, marked as a
        setup that does not run."""
        said = " ".join(self._formats.said(r.message) for r in refusals)
        usage = f"{said} {fit.usage}" if fit.usage else said
        if not fit.fits:
            return replace(fit, usage=usage)
        return replace(  # it will not run: the verdict is not a green one
            fit,
            fits=False,
            verdict=self.tr("Fits in GPU memory, but the framework refuses this setup"),
            usage=usage,
        )

    def node_memory(self, fit: FitView, plan: Plan) -> FitView:
        """``fit`` with what a node's CPU memory must hold (DeepSpeed's estimate of the
        model states on the CPU: offloads, the fp32 model each process loads): a plan
        that fits the GPUs but not a node's memory does not fit; with the node's memory
        not given, an offload says what it needs and which field takes the memory."""
        need, memory = plan.cpu_bytes_per_node, plan.description.cpu_memory_gb
        if need is None or (memory is None and plan.description.offload is Offload.NONE):
            return fit
        cpu = self.gb(need)
        if memory is None:
            said = self.tr(
                "The offloaded model states need {cpu} of CPU memory per node, and a "
                "node's memory is not given: type it in “{field}” to check it."
            ).format(cpu=cpu, field=say(shared.CPU_MEMORY))
            verdict = self.tr("Fits in GPU memory; a node's CPU memory is not given")
        elif plan.cpu_fits:
            said = self.tr("CPU memory per node: {cpu} of {memory}.").format(
                cpu=cpu, memory=self._formats.format_gb(memory)
            )
            verdict = self.tr("Fits in GPU memory and in a node's CPU memory")
        else:
            said = self.tr(
                "A node's CPU memory must hold {cpu} of model states (DeepSpeed's "
                "estimate), more than the {memory} it has."
            ).format(cpu=cpu, memory=self._formats.format_gb(memory))
            if fit.fits:  # even a fit the framework refuses: it does not fit a node
                return replace(
                    fit,
                    fits=False,
                    verdict=self.tr("Fits in GPU memory, but not in a node's CPU memory"),
                    usage=f"{fit.usage} {said}",
                )
            verdict = fit.verdict
        # a verdict of its own only where the GPU's is a plain "fits"
        if not fit.fits or plan.refusals:
            verdict = fit.verdict
        return replace(fit, verdict=verdict, usage=f"{fit.usage} {said}")

    def unknown(self, missing: tuple[str, ...]) -> FitView:
        """No verdict: a figure cannot be derived (``missing`` says which and why)."""
        return FitView(
            fits=None,
            verdict=self.tr("Memory not known"),
            usage=" ".join(missing)
            or self.tr("Give the model and the sequence length to see the memory per GPU."),
            headroom="",
            largest="",
        )

    def nothing_fits(
        self, nothing: NoFit, found: tuple[Alternative, ...], typed_other: bool = False
    ) -> NothingFitsView:
        if nothing.other_exceeds and typed_other:
            message = self.tr(
                "Nothing fits: the other memory alone ({other}) is more than the {capacity} "
                "this GPU has, before any activations."
            )
        elif nothing.other_exceeds:
            message = self.tr(
                "Nothing fits: the model states and overhead alone ({other}) are more than "
                "the {capacity} this GPU has, before any activations."
            )
        elif typed_other:
            message = self.tr(
                "Nothing fits: even one sample needs {total} ({activation} of activations + "
                "{other} of other memory), {shortfall} more than the {capacity} this GPU has."
            )
        else:
            message = self.tr(
                "Nothing fits: even one sample needs {total} ({activation} of activations + "
                "{other} of model states and overhead), {shortfall} more than the {capacity} "
                "this GPU has."
            )
        message = message.format(
            other=self.gb(nothing.other_bytes),
            capacity=self.gb(nothing.usable_bytes),
            total=self.gb(nothing.other_bytes + nothing.activation_bytes),
            activation=self.gb(nothing.activation_bytes),
            shortfall=self.gb(nothing.shortfall_bytes),
        )
        if found:
            title = self.tr("It would fit with one change:")
            lines = tuple(self.alternative(a) for a in found)
        else:
            title = self.tr("No single change makes it fit: try “Find the best setup”, or a "
                            "smaller model.")  # fmt: skip
            lines = ()
        return NothingFitsView(message=message, suggestions_title=title, suggestions=lines)

    def alternative(self, a: Alternative) -> str:
        """One change that fits, with what it gives."""
        d = a.description
        f = self._formats.format
        what = {
            Change.RECOMPUTE: lambda: self.tr("Full activation recomputation"),
            Change.ZERO_STAGE: lambda: self.tr("ZeRO-{stage}").format(stage=int(d.zero_stage)),
            Change.OFFLOAD: lambda: self.tr("ZeRO-{stage} with CPU offload").format(
                stage=int(d.zero_stage)
            ),
            Change.LORA: lambda: self.tr("LoRA adapters (rank {rank})").format(rank=d.lora_rank),
            Change.QLORA: lambda: self.tr("QLoRA adapters (rank {rank})").format(rank=d.lora_rank),
            Change.CARD: lambda: self.tr("A larger card: {card}").format(
                card="" if d.card is None else d.card.name
            ),
            Change.GPUS: lambda: self._formats.counted(
                lambda n: self.tr("With more GPUs: ZeRO-3 over %n data-parallel GPU(s)", "", n),
                d.gpus,
            ),
            Change.TENSOR_PARALLEL: lambda: self.tr("Tensor parallel {size}").format(
                size=f(d.tensor_parallel)
            ),
        }[a.change]()
        fits = self._formats.counted(
            lambda n: self.tr("up to %n sample(s) per GPU", "", n), a.max_micro_batch
        )
        return self.tr("{change}: {fits} ({other} + {per_sample} per sample).").format(
            change=what,
            fits=fits,
            other=self.gb(a.other_bytes),
            per_sample=self.gb(a.per_sample_bytes),
        )
