"""The estimator's inputs: its number fields with their ranges, its other controls,
the options they set, and the first values (GPT-2 small without a preset file)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.memory import (
    SHAPE_LIMITS,
    Accounting,
    Attention,
    Family,
    Precision,
    Recompute,
)

#: the paper behind the PAPER profile (a title: not translated)
PAPER_CITATION = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
    "Table 2"
)
PAPER_URL = "https://arxiv.org/abs/2205.05198"
DEFAULT_PRESET = "gpt2"
#: the example the measuring tool documents, completed from the dialog's options
MEASURE_COMMAND = "python -m gradacc_desktop.measure --model-config config.json"


class ActivationField(enum.Enum):
    """The integer inputs; values are the names of ``core.memory.activation.Inputs`` fields."""

    HIDDEN = "hidden"
    LAYERS = "layers"
    HEADS = "heads"
    KV_HEADS = "kv_heads"
    INTERMEDIATE = "intermediate"
    VOCAB = "vocab"
    SEQ = "seq"
    #: encoder-decoders only: the target (decoder) length
    TARGET_SEQ = "target_seq"
    TENSOR_PARALLEL = "tensor_parallel"
    #: models with a vision tower only: images per sample and their pixels
    IMAGES = "images"
    IMAGE_WIDTH = "image_width"
    IMAGE_HEIGHT = "image_height"


#: the fields a preset fills and compares against (with the family)
SHAPE_FIELDS = (
    ActivationField.HIDDEN,
    ActivationField.LAYERS,
    ActivationField.HEADS,
    ActivationField.KV_HEADS,
    ActivationField.INTERMEDIATE,
    ActivationField.VOCAB,
)

#: accepted ranges (the core's)
FIELD_LIMITS: dict[ActivationField, Limits] = {f: SHAPE_LIMITS[f.value] for f in ActivationField}


class Option(enum.Enum):
    """The other labelled controls of the dialog."""

    PRESET = "preset"
    FAMILY = "family"
    DTYPE = "dtype"
    ATTENTION = "attention"
    RECOMPUTE = "recompute"
    SEQUENCE_PARALLEL = "sequence_parallel"
    DROPOUT = "dropout"
    PADDED = "padded"
    USE_CACHE = "use_cache"
    FUSED_LOSS = "fused_loss"
    VISION_FROZEN = "vision_frozen"
    PROFILE = "profile"


Control = ActivationField | Option


@dataclass(frozen=True)
class Options:
    family: Family = Family.GPT2
    dtype: Precision = Precision.BF16
    attention: Attention = Attention.SDPA
    recompute: Recompute = Recompute.NONE
    sequence_parallel: bool = False
    dropout: bool = False
    profile: Accounting = Accounting.HF
    #: batches padded to a common length (an attention mask is passed)
    padded: bool = False
    #: the model's use_cache in training (a config file sets it; off for typed sizes)
    use_cache: bool = False
    #: the vision tower is frozen (requires_grad_(False))
    vision_frozen: bool = False
    #: the head and the loss fused over chunks (Liger): a causal LM's logits not kept
    fused_loss: bool = False


#: the dialog's check boxes: each sets the ``Options`` field of its value's name
FLAGS = (
    Option.SEQUENCE_PARALLEL,
    Option.DROPOUT,
    Option.PADDED,
    Option.USE_CACHE,
    Option.FUSED_LOSS,
    Option.VISION_FROZEN,
)

#: the options the view-model's ``set_option`` takes, with the type of each one's value
OPTION_KINDS: dict[Option, Any] = {
    Option.DTYPE: Precision,
    Option.ATTENTION: Attention,
    Option.RECOMPUTE: Recompute,
    Option.PROFILE: Accounting,
    **dict.fromkeys(FLAGS, bool),
}


#: sizes used when no preset file can be read (GPT-2 small)
FALLBACK_VALUES: dict[ActivationField, int] = {
    ActivationField.HIDDEN: 768,
    ActivationField.LAYERS: 12,
    ActivationField.HEADS: 12,
    ActivationField.KV_HEADS: 12,
    ActivationField.INTERMEDIATE: 3072,
    ActivationField.VOCAB: 50257,
    ActivationField.SEQ: 1024,
    ActivationField.TARGET_SEQ: 512,
    ActivationField.TENSOR_PARALLEL: 1,
    ActivationField.IMAGES: 1,
    ActivationField.IMAGE_WIDTH: 224,
    ActivationField.IMAGE_HEIGHT: 224,
}

#: the fields only a model with a vision tower reads
IMAGE_FIELDS = (ActivationField.IMAGES, ActivationField.IMAGE_WIDTH, ActivationField.IMAGE_HEIGHT)

#: the key of a config.json the user opened, among the preset choices
FILE_KEY = "@file"
