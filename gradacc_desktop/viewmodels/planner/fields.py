"""The planner's inputs: which fields there are, their ranges, steps and first values."""

from __future__ import annotations

import enum
from decimal import Decimal

from gradacc_desktop.core.calculator import LIMITS, Field
from gradacc_desktop.core.compute import (
    EFFICIENCY_PERCENT_LIMITS,
    EPOCHS_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TOKENS_LIMITS,
)
from gradacc_desktop.core.gpus import SPEED_LIMITS
from gradacc_desktop.core.layout import LAYOUT_LIMITS
from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    LR_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
)
from gradacc_desktop.core.scenario import NODES_LIMITS


class PlanField(enum.Enum):
    """The planner's typed inputs, in the order the view shows them."""

    TARGET = "target_batch"
    GPUS = "gpus"
    MICRO_BATCH = "micro_batch"
    GPU_MEMORY = "gpu_memory_gb"  # the custom card's capacity
    OTHER_MEMORY = "other_memory_gb"
    ACTIVATION = "activation_gb"  # shared with the calculator
    SEQ_LEN = "seq_len"
    DATASET = "dataset_samples"
    REFERENCE_LR = "reference_lr"
    REFERENCE_BATCH = "reference_batch"
    NODES = "nodes"  # the GPUs split over nodes (for the exports)
    # the parallel layout (the training setup's) and the time model's inputs
    TENSOR_PARALLEL = "tensor_parallel"
    PIPELINE_STAGES = "pipeline_stages"
    MODEL_PARAMS = "model_params"  # typed in when no bundled model is chosen
    EFFICIENCY = "efficiency_percent"  # empty: the card's own
    PRICE = "price_per_gpu_hour"
    TOKENS = "training_tokens"
    EPOCHS = "epochs"  # over the dataset (empty: one)
    # the custom card's speed (a catalogue card shows its own, read-only)
    CUSTOM_TFLOPS = "custom_tflops"
    CUSTOM_BANDWIDTH = "custom_memory_bandwidth_gbps"
    CUSTOM_LINK = "custom_link_gbps"
    CUSTOM_NETWORK = "custom_network_gbps"


OPTIONAL_FIELDS = frozenset(
    {
        PlanField.SEQ_LEN,
        PlanField.DATASET,
        PlanField.REFERENCE_LR,
        PlanField.REFERENCE_BATCH,
        PlanField.MODEL_PARAMS,
        PlanField.EFFICIENCY,
        PlanField.PRICE,
        PlanField.TOKENS,
        PlanField.EPOCHS,
        PlanField.CUSTOM_TFLOPS,
        PlanField.CUSTOM_BANDWIDTH,
        PlanField.CUSTOM_LINK,
        PlanField.CUSTOM_NETWORK,
    }
)
# The custom card's speed, in the order its dialog shows it.
SPEED_FIELDS = (
    PlanField.CUSTOM_TFLOPS,
    PlanField.CUSTOM_BANDWIDTH,
    PlanField.CUSTOM_LINK,
    PlanField.CUSTOM_NETWORK,
)
# The time model's optional inputs (they never stop the plan; a refused one stops the time).
TIME_FIELDS = (
    PlanField.MODEL_PARAMS,
    PlanField.EFFICIENCY,
    PlanField.PRICE,
    PlanField.TOKENS,
    PlanField.EPOCHS,
    *SPEED_FIELDS,
)

FIELD_LIMITS: dict[PlanField, Limits] = {
    PlanField.TARGET: TARGET_LIMITS,
    PlanField.GPUS: LIMITS[Field.GPUS],
    PlanField.MICRO_BATCH: LIMITS[Field.MICRO_BATCH],
    PlanField.GPU_MEMORY: GPU_MEMORY_LIMITS,
    PlanField.OTHER_MEMORY: OTHER_MEMORY_LIMITS,
    PlanField.ACTIVATION: LIMITS[Field.ACTIVATION_GB],
    PlanField.SEQ_LEN: SEQ_LEN_LIMITS,
    PlanField.DATASET: DATASET_LIMITS,
    PlanField.REFERENCE_LR: LR_LIMITS,
    PlanField.REFERENCE_BATCH: TARGET_LIMITS,
    PlanField.NODES: NODES_LIMITS,
    PlanField.TENSOR_PARALLEL: LAYOUT_LIMITS,
    PlanField.PIPELINE_STAGES: LAYOUT_LIMITS,
    PlanField.MODEL_PARAMS: PARAMS_LIMITS,
    PlanField.EFFICIENCY: EFFICIENCY_PERCENT_LIMITS,
    PlanField.PRICE: PRICE_LIMITS,
    PlanField.TOKENS: TOKENS_LIMITS,
    PlanField.EPOCHS: EPOCHS_LIMITS,
    **dict.fromkeys(SPEED_FIELDS, SPEED_LIMITS),
}

# Fields measured in gigabytes (they show and accept the unit).
GB_FIELDS = frozenset({PlanField.GPU_MEMORY, PlanField.OTHER_MEMORY, PlanField.ACTIVATION})

# One press of an arrow key (1 where not listed).
FIELD_STEPS: dict[PlanField, Decimal] = {
    PlanField.ACTIVATION: Decimal("0.1"),
    PlanField.REFERENCE_LR: Decimal("0.0001"),
    PlanField.EFFICIENCY: Decimal(5),
    PlanField.PRICE: Decimal("0.1"),
}

# Besides the fields, what the view can be told to re-read after a programmatic
# change (``inputsReplaced``): the recommend check box, the rounding and the card.
CHOICES = "choices"

# First values: a target of 32 on one GPU.
DEFAULT_TARGET = Decimal(32)
DEFAULT_GPUS = Decimal(1)
DEFAULT_NODES = Decimal(1)
DEFAULT_LAYOUT = Decimal(1)
# Card chosen on first start (falls back to the first card, then to "custom").
DEFAULT_CARD = "a100-80gb"
DEFAULT_CUSTOM_GB = Decimal(24)
# Model size the "other memory" helper starts from (1B parameters, mixed-precision Adam).
DEFAULT_PARAMETERS = 1_000_000_000
