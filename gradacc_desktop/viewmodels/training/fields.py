"""The training description's inputs: its number fields (ranges, steps, first values)
and its choices, in the order the description panel shows them."""

from __future__ import annotations

import enum
from decimal import Decimal

from gradacc_desktop.core.batch import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    LR_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
)
from gradacc_desktop.core.calculator import LIMITS, Field
from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.memory import DEFAULT_OVERHEAD_GB, LORA_RANK_LIMITS, SHAPE_LIMITS
from gradacc_desktop.core.scenario import (
    CPU_MEMORY_LIMITS,
    GOODPUT_PERCENT_LIMITS,
    NODES_LIMITS,
)
from gradacc_desktop.core.time import (
    BANDWIDTH_LIMITS,
    EFFICIENCY_PERCENT_LIMITS,
    EPOCHS_LIMITS,
    LAYOUT_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    SPEED_LIMITS,
    TOKENS_LIMITS,
)
from gradacc_desktop.viewmodels.entries import FieldRules


class TrainingField(enum.Enum):
    """The description's number fields (and the planner's learning-rate reference)."""

    # the model
    MODEL_PARAMS = "model_params"  # a parameter count alone
    SHAPE_HIDDEN = "shape_hidden"  # a typed GPT-2 or Llama shape
    SHAPE_LAYERS = "shape_layers"
    SHAPE_HEADS = "shape_heads"
    SHAPE_KV_HEADS = "shape_kv_heads"
    SHAPE_INTERMEDIATE = "shape_intermediate"
    SHAPE_VOCAB = "shape_vocab"
    SHAPE_POSITIONS = "shape_positions"
    # the method
    LORA_RANK = "lora_rank"
    TRAINABLE_PARAMS = "trainable_params"
    # sequences
    SEQ_LEN = "seq_len"
    TARGET_SEQ = "target_seq"
    # a model with a vision tower (empty: one image at the model's own size)
    IMAGES = "images"
    IMAGE_WIDTH = "image_width"
    IMAGE_HEIGHT = "image_height"
    # the cards
    GPU_MEMORY = "gpu_memory_gb"  # the custom card's usable memory
    GPUS = "gpus"
    NODES = "nodes"
    CPU_MEMORY = "cpu_memory_gb"  # each node's CPU memory (empty: not given)
    # the links, typed over the card's (empty: the card's)
    LINK = "link_gbps"
    NETWORK = "network_gbps"
    # the layout
    TENSOR_PARALLEL = "tensor_parallel"
    PIPELINE_STAGES = "pipeline_stages"
    VIRTUAL_STAGES = "virtual_stages"  # read only with pipeline stages
    EXPERT_PARALLEL = "expert_parallel"  # read only for a mixture of experts
    # Megatron's, for a mixture of experts (empty: the tensor-parallel size)
    EXPERT_TENSOR_PARALLEL = "expert_tensor_parallel"
    CONTEXT_PARALLEL = "context_parallel"  # GPUs each sequence is split over
    # the batch
    TARGET = "target_batch"
    MICRO_BATCH = "micro_batch"
    # memory per GPU typed over the derived figures
    ACTIVATION = "activation_gb"
    OTHER_MEMORY = "other_memory_gb"
    OVERHEAD = "overhead_gb"
    # the run
    DATASET = "dataset_samples"
    EPOCHS = "epochs"
    TOKENS = "training_tokens"
    PRICE = "price_per_gpu_hour"
    GOODPUT = "goodput_percent"  # empty: 100 %
    EFFICIENCY = "efficiency_percent"  # empty: the efficiency model
    # the custom card's speed (a catalogue card shows its own, read-only)
    CUSTOM_TFLOPS = "custom_tflops"
    CUSTOM_BANDWIDTH = "custom_memory_bandwidth_gbps"
    CUSTOM_LINK = "custom_link_gbps"
    CUSTOM_NETWORK = "custom_network_gbps"
    # the planner's learning-rate reference (not part of the description)
    REFERENCE_LR = "reference_lr"
    REFERENCE_BATCH = "reference_batch"


class Choice(enum.Enum):
    """The description's choices (combo boxes and the recommend check box)."""

    MODEL = "model"
    FAMILY = "family"  # of a typed shape
    METHOD = "method"
    LORA_TARGETS = "lora_targets"
    OPTIMIZER = "optimizer"
    PRECISION = "precision"
    #: what a bf16 training's optimizer updates: an fp32 master copy, a bf16 one, none
    MASTER_WEIGHTS = "master_weights"
    FP8 = "fp8"  # a check box: FP8 matrix products around 16-bit training
    VISION_FROZEN = "vision_frozen"  # a check box: the vision tower does not train
    ATTENTION = "attention"
    #: a check box: the head and the loss fused over chunks (Liger; not under Megatron)
    FUSED_LOSS = "fused_loss"
    CARD = "card"
    #: a check box: Megatron's sequence parallelism (only with tensor parallelism)
    SEQUENCE_PARALLEL = "sequence_parallel"
    #: a check box: Megatron's --tp-comm-overlap (with sequence parallelism)
    TP_COMM_OVERLAP = "tp_comm_overlap"
    #: a check box: Megatron's --grad-reduce-in-bf16 (in bf16 training)
    GRAD_REDUCE_BF16 = "grad_reduce_bf16"
    FRAMEWORK = "framework"  # what runs the step: how memory is counted
    ZERO = "zero"
    OFFLOAD = "offload"
    RECOMPUTE = "recompute"
    ROUNDING = "rounding"
    RECOMMEND = "recommend"


SHAPE_FIELDS = (
    TrainingField.SHAPE_HIDDEN,
    TrainingField.SHAPE_LAYERS,
    TrainingField.SHAPE_HEADS,
    TrainingField.SHAPE_KV_HEADS,
    TrainingField.SHAPE_INTERMEDIATE,
    TrainingField.SHAPE_VOCAB,
    TrainingField.SHAPE_POSITIONS,
)
#: a model with a vision tower's inputs (shown only for one)
IMAGE_FIELDS = (TrainingField.IMAGES, TrainingField.IMAGE_WIDTH, TrainingField.IMAGE_HEIGHT)
SPEED_FIELDS = (
    TrainingField.CUSTOM_TFLOPS,
    TrainingField.CUSTOM_BANDWIDTH,
    TrainingField.CUSTOM_LINK,
    TrainingField.CUSTOM_NETWORK,
)
#: optional inputs of the run and the hardware (the links, a node's memory): a refused one
#: leaves the plan, and stops only what needs it
RUN_FIELDS = (
    TrainingField.DATASET,
    TrainingField.EPOCHS,
    TrainingField.TOKENS,
    TrainingField.PRICE,
    TrainingField.GOODPUT,
    TrainingField.EFFICIENCY,
    TrainingField.CPU_MEMORY,
    TrainingField.LINK,
    TrainingField.NETWORK,
    *SPEED_FIELDS,
    TrainingField.REFERENCE_LR,
    TrainingField.REFERENCE_BATCH,
)

LIMITS_BY_FIELD: dict[TrainingField, Limits] = {
    TrainingField.MODEL_PARAMS: PARAMS_LIMITS,
    TrainingField.SHAPE_HIDDEN: SHAPE_LIMITS["hidden"],
    TrainingField.SHAPE_LAYERS: SHAPE_LIMITS["layers"],
    TrainingField.SHAPE_HEADS: SHAPE_LIMITS["heads"],
    TrainingField.SHAPE_KV_HEADS: SHAPE_LIMITS["kv_heads"],
    TrainingField.SHAPE_INTERMEDIATE: SHAPE_LIMITS["intermediate"],
    TrainingField.SHAPE_VOCAB: SHAPE_LIMITS["vocab"],
    TrainingField.SHAPE_POSITIONS: SHAPE_LIMITS["seq"],
    TrainingField.LORA_RANK: LORA_RANK_LIMITS,
    TrainingField.TRAINABLE_PARAMS: PARAMS_LIMITS,
    TrainingField.SEQ_LEN: SEQ_LEN_LIMITS,
    TrainingField.TARGET_SEQ: SEQ_LEN_LIMITS,
    TrainingField.IMAGES: SHAPE_LIMITS["images"],
    TrainingField.IMAGE_WIDTH: SHAPE_LIMITS["image_width"],
    TrainingField.IMAGE_HEIGHT: SHAPE_LIMITS["image_height"],
    TrainingField.GPU_MEMORY: GPU_MEMORY_LIMITS,
    TrainingField.GPUS: LIMITS[Field.GPUS],
    TrainingField.NODES: NODES_LIMITS,
    TrainingField.CPU_MEMORY: CPU_MEMORY_LIMITS,
    TrainingField.TENSOR_PARALLEL: LAYOUT_LIMITS,
    TrainingField.PIPELINE_STAGES: LAYOUT_LIMITS,
    TrainingField.VIRTUAL_STAGES: LAYOUT_LIMITS,
    TrainingField.EXPERT_PARALLEL: LAYOUT_LIMITS,
    TrainingField.EXPERT_TENSOR_PARALLEL: LAYOUT_LIMITS,
    TrainingField.CONTEXT_PARALLEL: LAYOUT_LIMITS,
    TrainingField.LINK: BANDWIDTH_LIMITS,
    TrainingField.NETWORK: BANDWIDTH_LIMITS,
    TrainingField.TARGET: TARGET_LIMITS,
    TrainingField.MICRO_BATCH: LIMITS[Field.MICRO_BATCH],
    TrainingField.ACTIVATION: LIMITS[Field.ACTIVATION_GB],
    TrainingField.OTHER_MEMORY: OTHER_MEMORY_LIMITS,
    TrainingField.OVERHEAD: OTHER_MEMORY_LIMITS,
    TrainingField.DATASET: DATASET_LIMITS,
    TrainingField.EPOCHS: EPOCHS_LIMITS,
    TrainingField.TOKENS: TOKENS_LIMITS,
    TrainingField.PRICE: PRICE_LIMITS,
    TrainingField.GOODPUT: GOODPUT_PERCENT_LIMITS,
    TrainingField.EFFICIENCY: EFFICIENCY_PERCENT_LIMITS,
    **dict.fromkeys(SPEED_FIELDS, SPEED_LIMITS),
    TrainingField.REFERENCE_LR: LR_LIMITS,
    TrainingField.REFERENCE_BATCH: TARGET_LIMITS,
}

RULES = FieldRules(
    limits=LIMITS_BY_FIELD,
    steps={
        TrainingField.ACTIVATION: Decimal("0.1"),
        TrainingField.OTHER_MEMORY: Decimal(1),
        TrainingField.OVERHEAD: Decimal("0.5"),
        TrainingField.LORA_RANK: Decimal(8),
        TrainingField.SEQ_LEN: Decimal(512),
        TrainingField.TARGET_SEQ: Decimal(64),
        TrainingField.EFFICIENCY: Decimal(5),
        TrainingField.GOODPUT: Decimal(5),
        TrainingField.LINK: Decimal(25),
        TrainingField.NETWORK: Decimal(5),
        TrainingField.CPU_MEMORY: Decimal(64),
        TrainingField.PRICE: Decimal("0.1"),
        TrainingField.REFERENCE_LR: Decimal("0.0001"),
        TrainingField.MODEL_PARAMS: Decimal(10**9),
        TrainingField.TRAINABLE_PARAMS: Decimal(10**6),
    },
    gb_fields=frozenset(
        {
            TrainingField.GPU_MEMORY,
            TrainingField.ACTIVATION,
            TrainingField.OTHER_MEMORY,
            TrainingField.OVERHEAD,
        }
    ),
    # may stay empty (the others must hold a number when they are in use)
    optional=frozenset(
        {
            TrainingField.TRAINABLE_PARAMS,
            TrainingField.SEQ_LEN,
            TrainingField.TARGET_SEQ,
            *IMAGE_FIELDS,
            TrainingField.ACTIVATION,
            TrainingField.OTHER_MEMORY,
            # empty: the fewest nodes of at most 8 GPUs that split the world
            TrainingField.NODES,
            # empty: the tensor-parallel size (Megatron's default)
            TrainingField.EXPERT_TENSOR_PARALLEL,
            *RUN_FIELDS,
        }
    ),
)

# First values: a target of 32 on one GPU, one node, no model yet.
DEFAULT_TARGET = Decimal(32)
DEFAULT_CARD = "a100-80gb"
DEFAULT_CUSTOM_GB = Decimal(24)
FIRST_VALUES = {
    TrainingField.TARGET: DEFAULT_TARGET,
    TrainingField.GPUS: Decimal(1),
    TrainingField.TENSOR_PARALLEL: Decimal(1),
    TrainingField.PIPELINE_STAGES: Decimal(1),
    TrainingField.VIRTUAL_STAGES: Decimal(1),
    TrainingField.EXPERT_PARALLEL: Decimal(1),
    TrainingField.CONTEXT_PARALLEL: Decimal(1),
    TrainingField.MICRO_BATCH: Decimal(4),
    TrainingField.GPU_MEMORY: DEFAULT_CUSTOM_GB,
    TrainingField.OVERHEAD: DEFAULT_OVERHEAD_GB,
    TrainingField.LORA_RANK: Decimal(16),
    TrainingField.MODEL_PARAMS: Decimal(7_000_000_000),
    # Llama 2 7B's sizes, a starting point for a typed shape
    TrainingField.SHAPE_HIDDEN: Decimal(4096),
    TrainingField.SHAPE_LAYERS: Decimal(32),
    TrainingField.SHAPE_HEADS: Decimal(32),
    TrainingField.SHAPE_KV_HEADS: Decimal(32),
    TrainingField.SHAPE_INTERMEDIATE: Decimal(11008),
    TrainingField.SHAPE_VOCAB: Decimal(32000),
    TrainingField.SHAPE_POSITIONS: Decimal(4096),
}

# What the view can be told to re-read after a programmatic change (``inputsReplaced``)
# besides the fields: every choice.
CHOICES = "choices"
#: fields whose text or state follows the choices
SHOWN_BY_CHOICES = frozenset(
    {
        TrainingField.GPU_MEMORY,
        TrainingField.MICRO_BATCH,
        TrainingField.MODEL_PARAMS,
        TrainingField.EFFICIENCY,
        TrainingField.LINK,
        TrainingField.NETWORK,
    }
)
#: fields whose text follows the plan (while the user does not type them)
FOLLOW_THE_PLAN = frozenset({TrainingField.MICRO_BATCH, TrainingField.MODEL_PARAMS})

# The model choice's keys besides a bundled model's name.
NO_MODEL = ""
CONFIG_MODEL = "@config"
SHAPE_MODEL = "@shape"
PARAMS_MODEL = "@params"
