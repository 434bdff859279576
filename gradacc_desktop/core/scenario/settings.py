"""A scenario's contents: the calculator's inputs and the plan's settings, the limits
a file is read with, and why a file is refused (``ReadProblem``, ``ScenarioError``).
``core.scenario`` describes the file format."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.recompute import Recompute

from ..attention import AttentionKernel
from ..batch.planning import Rounding
from ..calculator import DEFAULTS, LIMITS, BatchInputs, Field
from ..limits import Limits
from ..memory.lora import LoraTargets
from ..memory.models import ModelSpec
from ..memory.setup import Offload, Precision, ZeroStage
from ..memory.zero import DEFAULT_OVERHEAD_GB
from ..precision import MasterWeights
from ..training.description import CPU_MEMORY_LIMITS as CPU_MEMORY_LIMITS
from ..training.description import Method, Optimizer

FORMAT = "gradacc-scenario"
VERSION = 12
#: Versions ``load`` reads.
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
NODES_LIMITS = LIMITS[Field.GPUS]
#: the share of the wall-clock time spent training, as the window asks it: in percent
#: (``compute.GOODPUT_LIMITS`` times 100)
GOODPUT_PERCENT_LIMITS = Limits(Decimal(1), Decimal(100), integer=False, decimals=2)
#: Largest file accepted (bytes): room for a model's config.json (at most 2 MB read,
#: real ones well under 20 kB) in version 4.
MAX_BYTES = 256 * 1024
#: Deepest nesting accepted (the schema needs 2).
MAX_DEPTH = 8
#: Longest JSON integer literal accepted (digits); real values have at most 16.
MAX_INT_DIGITS = 20

ZERO_LIMITS = Limits(Decimal(0), Decimal(3), integer=True)


#: the custom card's speed, typed over the table's (decimals)
SPEED_KEYS = (
    "custom_tflops",
    "custom_memory_bandwidth_gbps",
    "custom_link_gbps",
    "custom_network_gbps",
)


class ReadProblem(enum.Enum):
    TOO_LARGE = "too_large"  #: file over MAX_BYTES
    NOT_UTF8 = "not_utf8"
    BAD_JSON = "bad_json"  #: syntax error or empty file
    TOO_DEEP = "too_deep"
    DUPLICATE_KEY = "duplicate_key"
    NOT_AN_OBJECT = "not_an_object"  #: root (or a section) is not a JSON object
    WRONG_FORMAT = "wrong_format"  #: "format" is not "gradacc-scenario"
    UNSUPPORTED_VERSION = "unsupported_version"
    MISSING_KEY = "missing_key"
    UNKNOWN_KEY = "unknown_key"
    WRONG_TYPE = "wrong_type"  #: e.g. string for an int, 4.0 for an int, true for an int
    NOT_A_NUMBER = "not_a_number"  #: NaN, Infinity, "abc" for a decimal
    NUMBER_TOO_LARGE = "number_too_large"  #: integer literal with too many digits
    NOT_AN_INTEGER = "not_an_integer"
    OUT_OF_RANGE = "out_of_range"
    TOO_PRECISE = "too_precise"  #: more than 3 decimals
    BAD_CHOICE = "bad_choice"  #: unknown rounding mode or malformed card id


class ScenarioError(ValueError):
    """The file cannot be loaded. ``path`` names the offending key ("plan.gpus")."""

    def __init__(
        self, reason: ReadProblem, path: str = "", detail: str = "", limits: Limits | None = None
    ) -> None:
        where = f" at {path}" if path else ""
        super().__init__(f"{reason.value}{where}: {detail}" if detail else f"{reason.value}{where}")
        self.reason = reason
        self.path = path
        self.detail = detail
        # the limits a number broke (out of range, too precise), for the message
        self.limits = limits


@dataclass(frozen=True)
class PlanSettings:
    target_batch: int = 32
    #: None: let the planner recommend one
    micro_batch: int | None = None
    gpus: int = 1
    rounding: Rounding = Rounding.CEIL
    #: "custom" or an id from the GPU table
    gpu_card: str = "custom"
    gpu_memory_gb: Decimal | None = None
    other_memory_gb: Decimal | None = None
    activation_gb: Decimal | None = None
    seq_len: int | None = None
    dataset_samples: int | None = None
    # the training setup of the exports (version 2)
    nodes: int = 1
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: Precision = Precision.BF16
    offload: Offload = Offload.NONE
    # the time model (version 3)
    tensor_parallel: int = 1
    pipeline_stages: int = 1
    recompute: Recompute = Recompute.NONE
    #: the model (a bundled name the app lacks is kept, and said, by the UI), or None
    model: ModelSpec | None = None
    #: None: the efficiency model (one share of the peak only when typed)
    efficiency_percent: Decimal | None = None
    price_per_gpu_hour: Decimal | None = None
    training_tokens: int | None = None
    epochs: int | None = None
    custom_tflops: Decimal | None = None
    custom_memory_bandwidth_gbps: Decimal | None = None
    custom_link_gbps: Decimal | None = None
    custom_network_gbps: Decimal | None = None
    # the training description (version 4)
    method: Method = Method.FULL
    lora_rank: int = 16
    #: a choice, or PEFT target_modules names
    lora_targets: LoraTargets | tuple[str, ...] = LoraTargets.QUERY_VALUE
    trainable_params: int | None = None
    optimizer: Optimizer = Optimizer.ADAM
    target_seq: int | None = None
    overhead_gb: Decimal = DEFAULT_OVERHEAD_GB
    # the time model's newer inputs (version 5)
    #: interleaved 1F1B: model chunks per GPU (ignored without pipeline stages)
    virtual_stages: int = 1
    #: GPUs a mixture of experts' routed experts are spread over (1: every GPU holds all)
    expert_parallel: int = 1
    #: GPUs each sequence is split over (context parallelism; adds GPUs)
    context_parallel: int = 1
    #: FP8 matrix products around 16-bit training
    fp8: bool = False
    # a vision tower's inputs (version 6; None: one image at the model's own size)
    images: int | None = None
    image_width: int | None = None
    image_height: int | None = None
    vision_frozen: bool = False
    attention: AttentionKernel = AttentionKernel.SDPA
    #: GB/s per GPU and direction, between the GPUs of a node / between nodes (None:
    #: the card's)
    link_gbps: Decimal | None = None
    network_gbps: Decimal | None = None
    #: share of the wall-clock time spent training, in percent (None: 100)
    goodput_percent: Decimal | None = None
    # what runs the step (version 7)
    #: how memory is counted and gradients travel
    framework: Framework = Framework.DEEPSPEED
    #: Megatron's sequence parallelism beside tensor parallelism
    sequence_parallel: bool = False
    # the node's memory (version 8)
    #: each node's CPU memory, whole GB of 10⁹ bytes (None: not known)
    cpu_memory_gb: int | None = None
    # the loss (version 9)
    #: the head and the loss fused over chunks of tokens (Liger)
    fused_loss: bool = False
    # the master copy (version 10)
    #: what a bf16 training's optimizer updates
    master_weights: MasterWeights = MasterWeights.FP32
    # Megatron's expert tensor parallelism (version 11)
    #: GPUs each routed expert is split over (None: the tensor-parallel size)
    expert_tensor_parallel: int | None = None
    # Megatron's tensor-parallel communication overlap and bf16 gradients (version 12)
    #: --tp-comm-overlap: sequence parallelism's collectives inside the products
    tp_comm_overlap: bool = False
    #: --grad-reduce-in-bf16: Megatron's gradient buffer and its reduction in bf16
    grad_reduce_bf16: bool = False


@dataclass(frozen=True)
class Scenario:
    calculator: BatchInputs = DEFAULTS
    plan: PlanSettings = field(default_factory=PlanSettings)
