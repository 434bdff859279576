"""The planner's fixed words: field labels and hints, choices, titles and notes,
shared by the widgets, the messages and the copied plan."""

from __future__ import annotations

from decimal import Decimal
from typing import final

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.core.gpus import CUSTOM_ID, GpuCard
from gradacc_desktop.core.planning import UNIT_NOTE, Rounding
from gradacc_desktop.core.profile import SpeedProfile
from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.viewmodels.planner.fields import PlanField
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating


def _plain(text: str, mnemonic: bool) -> str:
    return text if mnemonic else text.replace("&", "")


@final
class PlannerTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    # -- inputs -----------------------------------------------------------------
    def field_label(self, field: PlanField, mnemonic: bool = False) -> str:
        text = {
            PlanField.TARGET: self.tr("&Target effective batch"),
            PlanField.GPUS: self.tr("Data-parallel &GPUs"),
            PlanField.MICRO_BATCH: self.tr("&Micro-batch size"),
            PlanField.GPU_MEMORY: self.tr("&Usable memory per GPU"),
            PlanField.OTHER_MEMORY: self.tr("&Other memory per GPU"),
            PlanField.ACTIVATION: self.tr("Acti&vation per sample"),
            PlanField.SEQ_LEN: self.tr("Se&quence length"),
            PlanField.DATASET: self.tr("&Dataset size"),
            PlanField.REFERENCE_LR: self.tr("Reference learning r&ate"),
            PlanField.REFERENCE_BATCH: self.tr("Reference &batch size"),
            PlanField.NODES: self.tr("&Nodes (machines)"),
            PlanField.TENSOR_PARALLEL: self.tr("&Tensor parallel"),
            PlanField.PIPELINE_STAGES: self.tr("Pipeline sta&ges"),
            PlanField.MODEL_PARAMS: self.tr("Model param&eters"),
            PlanField.EFFICIENCY: self.tr("GPU effic&iency (%)"),
            PlanField.PRICE: self.tr("Price per GPU-ho&ur"),
            PlanField.TOKENS: self.tr("Token &budget"),
            PlanField.EPOCHS: self.tr("Ho&w many epochs"),
            PlanField.CUSTOM_TFLOPS: self.tr("Dense &peak (TFLOPS)"),
            PlanField.CUSTOM_BANDWIDTH: self.tr("&Memory bandwidth (GB/s)"),
            PlanField.CUSTOM_LINK: self.tr("&Link between GPUs (GB/s)"),
            PlanField.CUSTOM_NETWORK: self.tr("&Network between nodes (GB/s)"),
        }[field]
        return _plain(text, mnemonic)

    def field_hint(self, field: PlanField) -> str:
        return {
            PlanField.TARGET: self.tr(
                "Effective batch you want per optimizer step (T), summed over all GPUs."
            ),
            PlanField.GPUS: self.tr("Data-parallel replicas, each with its own micro-batch (g)."),
            PlanField.MICRO_BATCH: self.tr(
                "Samples each GPU processes in one forward and backward pass (b)."
            ),
            PlanField.GPU_MEMORY: self.tr(
                "Memory one GPU can use for training, in decimal gigabytes (C)."
            ),
            PlanField.OTHER_MEMORY: self.tr(
                "Everything on one GPU except activations: weights, gradients, optimizer "
                "states and framework overhead (O). Estimate… computes it from the model size."
            ),
            PlanField.ACTIVATION: self.tr(
                "Activation memory one training sample needs (A); shared with the calculator."
            ),
            PlanField.SEQ_LEN: self.tr(
                "Tokens per sample (optional): gives the tokens per optimizer step."
            ),
            PlanField.DATASET: self.tr(
                "Training samples in one epoch (optional): gives the optimizer steps per epoch."
            ),
            PlanField.REFERENCE_LR: self.tr(
                "A learning rate known to work (optional), at the reference batch size."
            ),
            PlanField.REFERENCE_BATCH: self.tr(
                "The effective batch the reference learning rate was tuned for (optional)."
            ),
            PlanField.NODES: self.tr(
                "Machines the data-parallel GPUs are spread over, evenly (for the exported "
                "launch lines and configurations)."
            ),
            PlanField.TENSOR_PARALLEL: self.tr(
                "GPUs each layer is split over (Megatron tensor parallelism, with sequence "
                "parallelism): weights and activations per GPU shrink by this factor. The "
                "data-parallel GPUs stay the planner's g; the world size is g × tensor × "
                "pipeline."
            ),
            PlanField.PIPELINE_STAGES: self.tr(
                "Groups of layers in sequence (1F1B schedule): the accumulation steps are the "
                "micro-batches that fill the pipeline, and its idle share is (p − 1)/(a + p − 1)."
            ),
            PlanField.MODEL_PARAMS: self.tr(
                "Parameters of the model (optional, when no bundled model is chosen): the "
                "time per step counts 6 FLOPs per parameter and token. A bundled model "
                "shows the parameters its matrix products use: without embedding lookups "
                "and, for a mixture of experts, with only the experts a token is routed to."
            ),
            PlanField.EFFICIENCY: self.tr(
                "Share of the card's dense peak that training kernels reach (optional; empty: "
                "the card's typical figure). Measure yours and type it here."
            ),
            PlanField.PRICE: self.tr(
                "What one GPU costs per hour, in any currency (optional): gives the run's cost."
            ),
            PlanField.TOKENS: self.tr(
                "Tokens to train on (optional): gives the run's steps, time, GPU-hours and cost."
            ),
            PlanField.EPOCHS: self.tr(
                "Passes over the dataset (optional; empty: one): with the dataset size, gives "
                "the run's steps, time, GPU-hours and cost."
            ),
            PlanField.CUSTOM_TFLOPS: self.tr(
                "The card's dense peak in the precision you train in, in TFLOPS (10¹² FLOP/s), "
                "without sparsity."
            ),
            PlanField.CUSTOM_BANDWIDTH: self.tr("The card's memory bandwidth, in GB/s."),
            PlanField.CUSTOM_LINK: self.tr(
                "The link between two GPUs of one node, per direction, in GB/s (NVLink, PCIe)."
            ),
            PlanField.CUSTOM_NETWORK: self.tr(
                "The network between nodes, per GPU and per direction, in GB/s "
                "(200 Gb/s InfiniBand = 25 GB/s)."
            ),
        }[field]

    def recommend_label(self) -> str:
        return self.tr("&Recommend")

    def recommend_hint(self) -> str:
        return self.tr(
            "Let the planner choose the largest micro-batch that fits and reaches the target."
        )

    def zero_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("&ZeRO stage"), mnemonic)

    def zero_options(self) -> list[tuple[ZeroStage, str]]:
        return [
            (ZeroStage.NONE, self.tr("None (plain data parallel)")),
            (ZeroStage.OPTIMIZER, self.tr("ZeRO-1 (optimizer states)")),
            (ZeroStage.GRADIENTS, self.tr("ZeRO-2 (+ gradients)")),
            (ZeroStage.WEIGHTS, self.tr("ZeRO-3 (+ weights)")),
        ]

    def precision_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("&Precision"), mnemonic)

    def precision_options(self) -> list[tuple[Precision, str]]:
        return [
            (Precision.BF16, self.tr("bf16 mixed precision")),
            (Precision.FP16, self.tr("fp16 mixed precision")),
            (Precision.FP32, self.tr("fp32 (full precision)")),
        ]

    def offload_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("CPU &offload"), mnemonic)

    def offload_options(self) -> list[tuple[Offload, str]]:
        return [
            (Offload.NONE, self.tr("None")),
            (Offload.OPTIMIZER, self.tr("Optimizer states")),
            (Offload.ALL, self.tr("Optimizer states and parameters (ZeRO-3)")),
        ]

    def recompute_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("&Recomputation"), mnemonic)

    def recompute_options(self) -> list[tuple[Recompute, str]]:
        return [
            (Recompute.NONE, self.tr("None (keep the activations)")),
            (Recompute.FULL, self.tr("Full (recompute every layer: +1/3 compute)")),
        ]

    def model_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("&Model"), mnemonic)

    def model_options(self, names: tuple[str, ...]) -> list[tuple[str, str]]:
        """("", "parameters typed in") then each bundled model (product names, untranslated)."""
        return [("", self.tr("Type the parameters"))] + [(n, n) for n in names]

    def card_efficiency(self, percent: Decimal) -> str:
        """The placeholder of the empty efficiency field."""
        return self.tr("{percent} (the card's typical)").format(
            percent=self._formats.format(percent.normalize())
        )

    def profile_summary(self, profile: SpeedProfile | None) -> str:
        if profile is None:
            return self.tr("Micro-steps: roofline estimate (no measured profile).")
        f = self._formats.format
        return self.tr(
            "Micro-steps measured on {device}: {model}, sequence {seq}, micro-batches {low}–{high}."
        ).format(
            device=profile.device,
            model=profile.model,
            seq=f(profile.seq_len),
            low=f(profile.smallest),
            high=f(profile.largest),
        )

    def profile_loaded(self, name: str) -> str:
        return self.tr("Speed profile “{name}” in use.").format(name=name)

    def profile_refused(self, name: str, detail: str) -> str:
        return self.tr("“{name}” is not a speed profile this app can read: {detail}").format(
            name=name, detail=detail
        )

    def load_profile_label(self) -> str:
        return self.tr("Lo&ad measured profile…")

    def clear_profile_label(self) -> str:
        return self.tr("&Discard profile")

    def card_speed_button(self) -> str:
        return self.tr("&View the card's speed…")

    def card_speed_title(self) -> str:
        return self.tr("GPU speed")

    def card_speed_note(self, card: GpuCard | None) -> str:
        """Where the figures come from; a custom card's are typed in."""
        if card is None:
            return self.tr(
                "The custom card's speed, as you type it: the time per step needs all four."
            )
        perf = card.performance
        if perf is None:
            return ""
        peak = perf.bf16_tflops is None
        return self.tr(
            "{name}: the vendor's figures ({source}). The peak is the dense bf16 rate{no_bf16}. "
            "Choose the custom card in the planner to type your own."
        ).format(
            name=card.name,
            source=perf.source,
            no_bf16=self.tr(" (this card has no bf16: fp16 shown)") if peak else "",
        )

    def time_setup_title(self) -> str:
        return self.tr("Time and cost")

    def time_setup_hint(self) -> str:
        return self.tr(
            "What the time per optimizer step is estimated from: the model (a bundled one "
            "gives its parameters and attention shape), recomputation, the card's efficiency, "
            "and for the run's totals a token budget and a price. See the planner's "
            "“Time per step” card and pairs table."
        )

    def setup_hint(self) -> str:
        return self.tr(
            "How the exported configuration runs: the GPUs above split evenly over the "
            "nodes, the ZeRO stage, the precision and what is offloaded to CPU memory."
        )

    def rounding_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("Rou&nding"), mnemonic)

    def rounding_options(self) -> list[tuple[Rounding, str]]:
        return [
            (Rounding.CEIL, self.tr("Round up (at least the target)")),
            (Rounding.FLOOR, self.tr("Round down (at most the target)")),
            (Rounding.NEAREST, self.tr("Nearest (ties round up)")),
        ]

    def card_label(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("GPU mod&el"), mnemonic)

    def card_options(self, cards: tuple[GpuCard, ...]) -> list[tuple[str, str]]:
        """(id, name) of every card, then the custom card."""
        return [(c.id, c.name) for c in cards] + [(CUSTOM_ID, self.card_name(None))]

    def card_name(self, card: GpuCard | None) -> str:
        """A card's name; ``None`` is the custom card."""
        return card.name if card is not None else self.tr("Custom")

    def card_hint(self, card: GpuCard | None) -> str:
        if card is None:
            return self.tr("Type the usable memory of your GPU below.")
        gb = self._formats.format_gb
        return self.tr("{name}: {usable} usable (vendor figure: {vendor}).").format(
            name=card.name, usable=gb(card.usable_gb), vendor=gb(card.vendor_gb)
        )

    @staticmethod
    def unit_note() -> str:
        return QCoreApplication.translate("Planner", UNIT_NOTE)

    def prompt(self) -> str:
        return self.tr("Enter a value to see the plan.")

    @staticmethod
    def export_formats() -> list[tuple[ExportFormat, str]]:
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

    # -- titles shared by the view and the copied plan --------------------------
    def pairs_title(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("Micro-batch and a&ccumulation steps"), mnemonic)

    def pairs_headers(self) -> list[tuple[str, str]]:
        """(column heading, its full wording) of the pairs table."""
        return [
            (self.tr("Micro-batch (b)"), self.tr("Micro-batch size (b)")),
            (self.tr("Steps (a)"), self.tr("Accumulation steps (a)")),
            (self.tr("Batch (E)"), self.tr("Effective batch size (E)")),
            (self.tr("Fits"), self.tr("Fits in GPU memory")),
            (
                self.tr("DeepSpeed · Megatron"),
                self.tr(
                    "Whether DeepSpeed (train_batch_size) and Megatron (--global-batch-size) "
                    "start with the target and this pair"
                ),
            ),
            (self.tr("Time/step"), self.tr("Estimated time of one optimizer step")),
            (self.tr("Tokens/s"), self.tr("Tokens trained per second, all GPUs together")),
        ]

    def fit_title(self) -> str:
        return self.tr("Memory per GPU")

    def nothing_fits_title(self) -> str:
        return self.tr("Recommendation")

    def deepspeed_title(self) -> str:
        return self.tr("DeepSpeed and Megatron check")

    def extras_title(self) -> str:
        return self.tr("Tokens, steps and learning rate")

    def time_title(self) -> str:
        return self.tr("Time per step")
