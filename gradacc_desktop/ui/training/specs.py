"""The training description panel as a table: its sections, top to bottom, and in each
the rows — a number field (``TrainingField``), a choice (``Choice``: a combo box, or a
check box in ``CHECK_BOXES``) or one of the panel's own widgets (``Extra``) — with what
stands beside a row."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField


class DescriptionSection(enum.Enum):
    MODEL = "model"
    METHOD = "method"
    HARDWARE = "hardware"
    LAYOUT = "layout"
    BATCH = "batch"
    MEMORY = "memory"
    RUN = "run"


class Extra(enum.Enum):
    """A widget of the panel that is not an input of the description."""

    OPEN_CONFIG = "open_config"  # "Open config.json…"
    MODEL_NOTE = "model_note"  # the model in a line
    LORA_NOTE = "lora_note"  # what LoRA trains
    CARD_SPEED = "card_speed"  # "The card's speed…"
    USABLE_NOTE = "usable_note"
    ACTIVATION_NOTE = "activation_note"  # where the activation per sample comes from
    OTHER_NOTE = "other_note"  # where the other memory comes from, "Details…"
    PROFILE = "profile"  # the measured speed profile: load, discard
    BATCH_NOTE = "batch_note"  # a checked file's own micro-batch and accumulation, held


Key = TrainingField | Choice | Extra


@dataclass(frozen=True)
class RowSpec:
    section: DescriptionSection
    key: Key
    #: a widget beside the row's own (the recommend box, "use the derived value")
    beside: Choice | Extra | None = None

    @property
    def object_name(self) -> str:
        return f"training_{self.key.value}"


T, C, E = TrainingField, Choice, Extra
ROWS: tuple[RowSpec, ...] = (
    RowSpec(DescriptionSection.MODEL, C.MODEL),
    RowSpec(DescriptionSection.MODEL, E.OPEN_CONFIG),
    RowSpec(DescriptionSection.MODEL, C.FAMILY),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_HIDDEN),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_LAYERS),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_HEADS),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_KV_HEADS),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_INTERMEDIATE),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_VOCAB),
    RowSpec(DescriptionSection.MODEL, T.SHAPE_POSITIONS),
    RowSpec(DescriptionSection.MODEL, T.MODEL_PARAMS),
    RowSpec(DescriptionSection.MODEL, E.MODEL_NOTE),
    RowSpec(DescriptionSection.MODEL, T.SEQ_LEN),
    RowSpec(DescriptionSection.MODEL, T.TARGET_SEQ),
    RowSpec(DescriptionSection.MODEL, T.IMAGES),
    RowSpec(DescriptionSection.MODEL, T.IMAGE_WIDTH),
    RowSpec(DescriptionSection.MODEL, T.IMAGE_HEIGHT),
    RowSpec(DescriptionSection.MODEL, C.VISION_FROZEN),
    RowSpec(DescriptionSection.METHOD, C.METHOD),
    RowSpec(DescriptionSection.METHOD, T.LORA_RANK),
    RowSpec(DescriptionSection.METHOD, C.LORA_TARGETS),
    RowSpec(DescriptionSection.METHOD, T.TRAINABLE_PARAMS),
    RowSpec(DescriptionSection.METHOD, E.LORA_NOTE),
    RowSpec(DescriptionSection.METHOD, C.OPTIMIZER),
    RowSpec(DescriptionSection.METHOD, C.PRECISION),
    RowSpec(DescriptionSection.METHOD, C.FP8),
    RowSpec(DescriptionSection.METHOD, C.MASTER_WEIGHTS),
    RowSpec(DescriptionSection.METHOD, C.ATTENTION),
    RowSpec(DescriptionSection.METHOD, C.FUSED_LOSS),
    RowSpec(DescriptionSection.HARDWARE, C.CARD),
    RowSpec(DescriptionSection.HARDWARE, T.GPU_MEMORY),
    RowSpec(DescriptionSection.HARDWARE, T.GPUS),
    RowSpec(DescriptionSection.HARDWARE, T.NODES),
    RowSpec(DescriptionSection.HARDWARE, T.CPU_MEMORY),
    RowSpec(DescriptionSection.HARDWARE, T.LINK),
    RowSpec(DescriptionSection.HARDWARE, T.NETWORK),
    RowSpec(DescriptionSection.HARDWARE, E.CARD_SPEED),
    RowSpec(DescriptionSection.LAYOUT, T.TENSOR_PARALLEL),
    RowSpec(DescriptionSection.LAYOUT, C.SEQUENCE_PARALLEL),
    RowSpec(DescriptionSection.LAYOUT, C.TP_COMM_OVERLAP),
    RowSpec(DescriptionSection.LAYOUT, T.PIPELINE_STAGES),
    RowSpec(DescriptionSection.LAYOUT, T.VIRTUAL_STAGES),
    RowSpec(DescriptionSection.LAYOUT, T.EXPERT_PARALLEL),
    RowSpec(DescriptionSection.LAYOUT, T.EXPERT_TENSOR_PARALLEL),
    RowSpec(DescriptionSection.LAYOUT, T.CONTEXT_PARALLEL),
    RowSpec(DescriptionSection.LAYOUT, C.FRAMEWORK),
    RowSpec(DescriptionSection.LAYOUT, C.GRAD_REDUCE_BF16),
    RowSpec(DescriptionSection.LAYOUT, C.ZERO),
    RowSpec(DescriptionSection.LAYOUT, C.OFFLOAD),
    RowSpec(DescriptionSection.LAYOUT, C.RECOMPUTE),
    RowSpec(DescriptionSection.BATCH, T.TARGET),
    RowSpec(DescriptionSection.BATCH, C.ROUNDING),
    RowSpec(DescriptionSection.BATCH, T.MICRO_BATCH, beside=C.RECOMMEND),
    RowSpec(DescriptionSection.BATCH, E.BATCH_NOTE),
    RowSpec(DescriptionSection.MEMORY, T.ACTIVATION, beside=E.ACTIVATION_NOTE),
    RowSpec(DescriptionSection.MEMORY, E.ACTIVATION_NOTE),
    RowSpec(DescriptionSection.MEMORY, T.OTHER_MEMORY, beside=E.OTHER_NOTE),
    RowSpec(DescriptionSection.MEMORY, E.OTHER_NOTE),
    RowSpec(DescriptionSection.MEMORY, T.OVERHEAD),
    RowSpec(DescriptionSection.MEMORY, E.USABLE_NOTE),
    RowSpec(DescriptionSection.RUN, T.DATASET),
    RowSpec(DescriptionSection.RUN, T.EPOCHS),
    RowSpec(DescriptionSection.RUN, T.TOKENS),
    RowSpec(DescriptionSection.RUN, T.PRICE),
    RowSpec(DescriptionSection.RUN, T.GOODPUT),
    RowSpec(DescriptionSection.RUN, T.EFFICIENCY),
    RowSpec(DescriptionSection.RUN, E.PROFILE),
)

#: choices shown as a check box on a row of its own (its text is its label)
CHECK_BOXES: frozenset[Choice] = frozenset(
    {
        C.FP8,
        C.VISION_FROZEN,
        C.FUSED_LOSS,
        C.SEQUENCE_PARALLEL,
        C.TP_COMM_OVERLAP,
        C.GRAD_REDUCE_BF16,
    }
)

#: rows shown only when the description has them (the view-model says which)
CONDITIONAL: frozenset[Key] = frozenset(
    {
        C.FAMILY,
        T.SHAPE_HIDDEN,
        T.SHAPE_LAYERS,
        T.SHAPE_HEADS,
        T.SHAPE_KV_HEADS,
        T.SHAPE_INTERMEDIATE,
        T.SHAPE_VOCAB,
        T.SHAPE_POSITIONS,
        T.MODEL_PARAMS,
        T.TARGET_SEQ,
        T.IMAGES,
        T.IMAGE_WIDTH,
        T.IMAGE_HEIGHT,
        C.VISION_FROZEN,
        C.TP_COMM_OVERLAP,
        C.GRAD_REDUCE_BF16,
        T.LORA_RANK,
        C.LORA_TARGETS,
        T.TRAINABLE_PARAMS,
    }
)
