"""The training description panel as a table: its sections, top to bottom, and in each
the rows — a number field (``TrainingField``), a choice (``Choice``: a combo box, or a
check box in ``CHECK_BOXES``) or one of the panel's own widgets (``Extra``) — with what
stands beside a row."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField


class Section(enum.Enum):
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


Key = TrainingField | Choice | Extra


@dataclass(frozen=True)
class RowSpec:
    section: Section
    key: Key
    #: a widget beside the row's own (the recommend box, "use the derived value")
    beside: Choice | Extra | None = None

    @property
    def object_name(self) -> str:
        return f"training_{self.key.value}"


T, C, E = TrainingField, Choice, Extra
ROWS: tuple[RowSpec, ...] = (
    RowSpec(Section.MODEL, C.MODEL),
    RowSpec(Section.MODEL, E.OPEN_CONFIG),
    RowSpec(Section.MODEL, C.FAMILY),
    RowSpec(Section.MODEL, T.SHAPE_HIDDEN),
    RowSpec(Section.MODEL, T.SHAPE_LAYERS),
    RowSpec(Section.MODEL, T.SHAPE_HEADS),
    RowSpec(Section.MODEL, T.SHAPE_KV_HEADS),
    RowSpec(Section.MODEL, T.SHAPE_INTERMEDIATE),
    RowSpec(Section.MODEL, T.SHAPE_VOCAB),
    RowSpec(Section.MODEL, T.SHAPE_POSITIONS),
    RowSpec(Section.MODEL, T.MODEL_PARAMS),
    RowSpec(Section.MODEL, E.MODEL_NOTE),
    RowSpec(Section.MODEL, T.SEQ_LEN),
    RowSpec(Section.MODEL, T.TARGET_SEQ),
    RowSpec(Section.MODEL, T.IMAGES),
    RowSpec(Section.MODEL, T.IMAGE_WIDTH),
    RowSpec(Section.MODEL, T.IMAGE_HEIGHT),
    RowSpec(Section.MODEL, C.VISION_FROZEN),
    RowSpec(Section.METHOD, C.METHOD),
    RowSpec(Section.METHOD, T.LORA_RANK),
    RowSpec(Section.METHOD, C.LORA_TARGETS),
    RowSpec(Section.METHOD, T.TRAINABLE_PARAMS),
    RowSpec(Section.METHOD, E.LORA_NOTE),
    RowSpec(Section.METHOD, C.OPTIMIZER),
    RowSpec(Section.METHOD, C.PRECISION),
    RowSpec(Section.METHOD, C.FP8),
    RowSpec(Section.METHOD, C.ATTENTION),
    RowSpec(Section.HARDWARE, C.CARD),
    RowSpec(Section.HARDWARE, T.GPU_MEMORY),
    RowSpec(Section.HARDWARE, T.GPUS),
    RowSpec(Section.HARDWARE, T.NODES),
    RowSpec(Section.HARDWARE, T.LINK),
    RowSpec(Section.HARDWARE, T.NETWORK),
    RowSpec(Section.HARDWARE, E.CARD_SPEED),
    RowSpec(Section.LAYOUT, T.TENSOR_PARALLEL),
    RowSpec(Section.LAYOUT, C.SEQUENCE_PARALLEL),
    RowSpec(Section.LAYOUT, T.PIPELINE_STAGES),
    RowSpec(Section.LAYOUT, T.VIRTUAL_STAGES),
    RowSpec(Section.LAYOUT, T.EXPERT_PARALLEL),
    RowSpec(Section.LAYOUT, T.CONTEXT_PARALLEL),
    RowSpec(Section.LAYOUT, C.FRAMEWORK),
    RowSpec(Section.LAYOUT, C.ZERO),
    RowSpec(Section.LAYOUT, C.OFFLOAD),
    RowSpec(Section.LAYOUT, C.RECOMPUTE),
    RowSpec(Section.BATCH, T.TARGET),
    RowSpec(Section.BATCH, C.ROUNDING),
    RowSpec(Section.BATCH, T.MICRO_BATCH, beside=C.RECOMMEND),
    RowSpec(Section.MEMORY, T.ACTIVATION, beside=E.ACTIVATION_NOTE),
    RowSpec(Section.MEMORY, E.ACTIVATION_NOTE),
    RowSpec(Section.MEMORY, T.OTHER_MEMORY, beside=E.OTHER_NOTE),
    RowSpec(Section.MEMORY, E.OTHER_NOTE),
    RowSpec(Section.MEMORY, T.OVERHEAD),
    RowSpec(Section.MEMORY, E.USABLE_NOTE),
    RowSpec(Section.RUN, T.DATASET),
    RowSpec(Section.RUN, T.EPOCHS),
    RowSpec(Section.RUN, T.TOKENS),
    RowSpec(Section.RUN, T.PRICE),
    RowSpec(Section.RUN, T.GOODPUT),
    RowSpec(Section.RUN, T.EFFICIENCY),
    RowSpec(Section.RUN, E.PROFILE),
)

#: choices shown as a check box on a row of its own (its text is its label)
CHECK_BOXES: frozenset[Choice] = frozenset({C.FP8, C.VISION_FROZEN, C.SEQUENCE_PARALLEL})

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
        T.LORA_RANK,
        C.LORA_TARGETS,
        T.TRAINABLE_PARAMS,
    }
)
