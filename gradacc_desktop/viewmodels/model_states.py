"""The model states behind the description's "other memory" in detail: each component
on one GPU (GB and bytes per parameter), the CPU memory per node, where the rules come
from. Nothing is chosen here: the model, the method, ZeRO and offload are the training
description's (``core.memory.framework_states`` counts them as the framework keeps them:
DeepSpeed's estimators, Megatron's or FSDP2's rules)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gradacc_desktop.core.memory import ModelStates, StatePart
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.training.figures import Source, shown_gb
from gradacc_desktop.viewmodels.formatting import format_approx
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel

# Significant digits of a bytes-per-parameter figure (ZeRO shares can repeat forever).
BYTES_DIGITS = 6


@dataclass(frozen=True)
class ModelStatesView:
    # (component, GB on one GPU, bytes per parameter) rows, the total row last
    rows: tuple[tuple[str, str, str], ...]
    states: str
    total: str
    cpu: str
    source: str
    sharding: str
    #: LoRA in a line ("" without adapters)
    lora: str
    #: the figure is typed over: the plan uses the typed value, this is what it replaces
    overridden: str


@dataclass(frozen=True)
class ModelStatesState:
    view: ModelStatesView | None
    #: why there are no model states to show
    message: str = ""


class ModelStatesViewModel(QObject):
    stateChanged = Signal(object)

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._state = self._build(training.state)
        training.stateChanged.connect(self._on_state)

    @property
    def state(self) -> ModelStatesState:
        return self._state

    def title(self) -> str:
        return self.tr("Model states per GPU")

    def headers(self) -> tuple[str, str, str]:
        return (self.tr("Component"), self.tr("On one GPU"), self.tr("Per parameter"))

    def refresh(self) -> None:
        self._on_state(self._training.state)

    def _on_state(self, state: TrainingState) -> None:
        self._state = self._build(state)
        self.stateChanged.emit(self._state)

    def part_name(self, part: StatePart, master: MasterWeights = MasterWeights.FP32) -> str:
        """``master``: the copy the optimizer updates (its parts are named in its format)."""
        if master is MasterWeights.BF16 and part is StatePart.MASTER_WEIGHTS:
            return self.tr("bf16 master weights")
        if master is MasterWeights.BF16 and part is StatePart.FP32_GRADIENTS:
            return self.tr("bf16 gradients of the master copy")
        return {
            StatePart.WEIGHTS: self.tr("Weights"),
            StatePart.GRADIENTS: self.tr("Gradients"),
            StatePart.FP32_GRADIENTS: self.tr("fp32 gradients"),
            StatePart.MASTER_WEIGHTS: self.tr("fp32 master weights"),
            StatePart.OPTIMIZER_STATES: self.tr("Optimizer states"),
            StatePart.LARGEST_LAYER: self.tr("Largest layer, gathered"),
            StatePart.CPU_MODEL: self.tr("fp32 model while loading"),
            StatePart.CPU_OFFLOAD: self.tr("Offloaded states"),
            StatePart.CPU_BUFFER: self.tr("DeepSpeed's 1.5× buffer"),
        }[part]

    def _build(self, state: TrainingState) -> ModelStatesState:
        plan = state.plan
        if plan is None:
            return ModelStatesState(None, self.tr("Correct the training description first."))
        figs = plan.figures
        states = figs.states
        if states is None:
            cause = self._training.notes_texts.missing_cause(figs.other.missing, figs.other.detail)
            return ModelStatesState(
                None, self.tr("No model states to show: {cause}.").format(cause=cause)
            )
        overridden = ""
        if figs.other.source is Source.GIVEN:
            overridden = self.tr(
                "The plan uses the other memory typed in the description; these are the model "
                "states it replaces."
            )
        derived = figs.other.derived
        reserve = 0 if derived is None else derived - states.gpu_bytes - figs.overhead_bytes
        stage, model = figs.pipeline_stage, figs.facts
        uneven = ""
        if stage is not None and model is not None:
            uneven = self.tr(
                "Megatron's pipeline stages are not equal: the one that holds the most (the "
                "embedding or the output layer beside its layers), counted here, holds {stage} "
                "of the model's {total} parameters, split over its tensor-parallel GPUs."
            ).format(
                stage=self._training.formats.format(stage.params),
                total=self._training.formats.format(model.params),
            )
        return ModelStatesState(
            self._view(states, figs.overhead_bytes, reserve, state.notes.lora, overridden, uneven)
        )

    # -- words --------------------------------------------------------------------
    def _gb(self, amount: Fraction) -> str:
        return self._training.formats.format_gb(
            shown_gb(-(-amount.numerator // amount.denominator))
        )

    def _bytes(self, value: Decimal) -> str:
        """A byte count in the plural form it takes: "1 byte", "2 bytes", "≈ 1,33333 bytes"."""
        selector = int(value) if value == value.to_integral_value() else 2
        text = self.tr("%n byte(s)", "", selector)
        shown = format_approx(self._training.locale, value, BYTES_DIGITS)
        return text.replace(str(selector), shown, 1)

    @staticmethod
    def _per_param(amount: Fraction, parameters: int) -> Decimal:
        share = amount / parameters
        return Decimal(share.numerator) / Decimal(share.denominator)

    def _view(
        self,
        e: ModelStates,
        overhead: int,
        reserve: int,
        lora: str,
        overridden: str,
        uneven: str = "",
    ) -> ModelStatesView:
        """``uneven``: which pipeline stage the figures are for, when Megatron's are not
        equal (instead of an even share of the model)."""
        formats = self._training.formats
        gpu = [c for c in e.components if c.where == "gpu" and c.bytes]
        rows = tuple(
            (
                self.part_name(c.part, e.master),
                self._gb(c.bytes),
                self._bytes(self._per_param(c.bytes, e.parameters)),
            )
            for c in gpu
        )
        total_states = Fraction(e.gpu_bytes)
        rows += (
            (
                self.tr("Model states per GPU"),
                self._gb(total_states),
                self._bytes(self._per_param(total_states, e.parameters)),
            ),
        )
        # the parameters one model replica's GPU computes with; ZeRO then shards their
        # states over the data-parallel GPUs (the lines below say how)
        states = formats.counted(
            lambda n: self.tr("%n parameter(s): {gb} of model states on each GPU", "", n),
            e.parameters,
        ).format(gb=self._gb(total_states))
        if reserve:
            total = self.tr(
                "Other memory per GPU: {states} + {reserve} the allocator's reserve + "
                "{overhead} overhead = {total}"
            ).format(
                states=self._gb(total_states),
                reserve=self._gb(Fraction(reserve)),
                overhead=self._gb(Fraction(overhead)),
                total=self._gb(total_states + reserve + overhead),
            )
        else:
            total = self.tr(
                "Other memory per GPU: {states} + {overhead} overhead = {total}"
            ).format(
                states=self._gb(total_states),
                overhead=self._gb(Fraction(overhead)),
                total=self._gb(total_states + overhead),
            )
        cpu_parts = ", ".join(
            f"{self.part_name(c.part, e.master)} {self._gb(c.bytes)}"
            for c in e.components
            if c.where == "cpu" and c.bytes
        )
        cpu = self.tr("CPU memory per node: {total} ({parts}).").format(
            total=self._gb(Fraction(e.cpu_bytes)), parts=cpu_parts
        )
        if e.zero_stage:
            sharding = formats.counted(
                lambda n: self.tr("Sharded over %n data-parallel GPU(s).", "", n), e.gpus
            )
        else:
            sharding = self.tr("No sharding: every GPU holds a full copy.")
        if uneven:
            sharding += " " + uneven
        elif e.model_parallel > 1:
            sharding += " " + formats.counted(
                lambda n: self.tr(
                    "Each GPU holds 1/%n of the model (tensor parallel × pipeline stages).", "", n
                ),
                e.model_parallel,
            )
        source = QCoreApplication.translate("ModelStates", e.source).format(stage=int(e.zero_stage))
        return ModelStatesView(
            rows=rows,
            states=states,
            total=total,
            cpu=cpu,
            source=source,
            sharding=sharding,
            lora=lora,
            overridden=overridden,
        )
