"""One training, described once: the model, the method, the numbers it trains in, the
sequences, the cards and how the work is split, and the batch the recipe asks for.

Every figure the app and the command line show — activation per sample, model states
per GPU, usable memory, the plan, its time and cost, the exports and the chart — is
derived from a ``TrainingDescription`` by ``core.training.plan``. A derived memory
figure can be typed over (``activation_gb``, ``other_memory_gb``); the plan then uses
the typed value and still reports the derived one beside it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.recompute import Recompute

from ..batch.planning import Rounding
from ..limits import whole
from ..memory.lora import BaseFormat, LoraTargets
from ..memory.models import ModelFacts, ModelSpec
from ..memory.setup import SERVER_GPUS, Offload, Precision, TrainingSetup
from ..memory.zero import DEFAULT_OVERHEAD_GB, Recipe, ZeroStage
from ..precision import MasterWeights
from ..time.gpus import GpuCard
from ..time.layout import ParallelLayout
from ..time.profile import SpeedProfile

#: each node's CPU memory, in whole GB of 10⁹ bytes (a node's memory is whole GB; a
#: whole-number field also reads Portuguese "2.048" as 2048, never as two gigabytes)
CPU_MEMORY_LIMITS = whole(1, 100_000)


def default_nodes(world: int) -> int:
    """The nodes ``world`` GPUs take when nobody says: the fewest nodes of at most
    ``SERVER_GPUS`` GPUs each that split the world evenly (16 GPUs: 2 nodes of 8; 12:
    2 of 6; 4: one)."""
    nodes = -(-world // SERVER_GPUS)
    while world % nodes:
        nodes += 1
    return nodes


def nodes_of(
    nodes: int | None, gpus: int, tensor_parallel: int, pipeline_stages: int, context: int
) -> int:
    """``nodes`` as given, or ``default_nodes`` of the world the data-parallel ``gpus``
    and the model-parallel sizes make."""
    if nodes is not None:
        return nodes
    return default_nodes(gpus * tensor_parallel * pipeline_stages * context)


__all__ = [
    "CPU_MEMORY_LIMITS",
    "OPTIMIZER_STATE_BYTES",
    "RECIPE_OPTIMIZER",
    "ContextProblem",
    "ExpertProblem",
    "Method",
    "Optimizer",
    "RunBudget",
    "TrainingDescription",
    "context_problem",
    "default_nodes",
    "expert_problem",
    "nodes_of",
]


class Method(enum.Enum):
    """What is trained."""

    FULL = "full"  # every parameter
    LORA = "lora"  # low-rank adapters on a frozen 16-bit (or fp32) base
    QLORA = "qlora"  # adapters on a frozen 4-bit NF4 base (double quantization)

    @property
    def adapters(self) -> bool:
        return self is not Method.FULL


class Optimizer(enum.Enum):
    ADAM = "adam"  # Adam / AdamW: momentum and variance in fp32
    ADAM_8BIT = "adam_8bit"  # bitsandbytes 8-bit Adam: two 1-byte states
    SGD_MOMENTUM = "sgd_momentum"  # one fp32 momentum buffer


#: bytes of optimizer state per trained parameter (DeepSpeed's estimators assume Adam's 8)
OPTIMIZER_STATE_BYTES = {Optimizer.ADAM: 8, Optimizer.ADAM_8BIT: 2, Optimizer.SGD_MOMENTUM: 4}

#: the optimizer of each of ``gradacc memory``'s recipes
RECIPE_OPTIMIZER = {
    Recipe.ADAM_MIXED: Optimizer.ADAM,
    Recipe.ADAM_FP32: Optimizer.ADAM,
    Recipe.LORA: Optimizer.ADAM,
    Recipe.ADAM_8BIT: Optimizer.ADAM_8BIT,
    Recipe.SGD_MOMENTUM: Optimizer.SGD_MOMENTUM,
}


@dataclass(frozen=True)
class RunBudget:
    """How much is trained, and at what price (all optional)."""

    dataset_samples: int | None = None
    #: passes over the dataset (None: one)
    epochs: int | None = None
    tokens: int | None = None
    price_per_gpu_hour: Decimal | None = None
    #: share of the wall-clock time spent training (restarts, checkpoints; None: all)
    goodput: Decimal | None = None


@dataclass(frozen=True)
class TrainingDescription:
    """The whole training. ``gpus`` is the data-parallel size (the seed's g): the world
    is ``gpus · tensor_parallel · pipeline_stages · context_parallel`` GPUs, split
    evenly over ``nodes``."""

    #: None: no model chosen yet (nothing about memory or time can be derived)
    model: ModelSpec | None = None
    method: Method = Method.FULL
    lora_rank: int = 16
    #: a choice, or PEFT ``target_modules`` names
    lora_targets: LoraTargets | tuple[str, ...] = LoraTargets.QUERY_VALUE
    #: the adapters' parameters, typed when the model's projections are not known
    trainable_params: int | None = None
    precision: Precision = Precision.BF16
    #: FP8 matrix products (Transformer Engine) around the 16-bit weights, gradients
    #: and activations: the card's FP8 peak, the memory of 16-bit training
    fp8: bool = False
    optimizer: Optimizer = Optimizer.ADAM
    #: what a bf16 training's optimizer updates: an fp32 master copy (mixed precision), a
    #: bf16 one (DeepSpeed's bf16_master_weights_and_grads) or none (pure bf16)
    master_weights: MasterWeights = MasterWeights.FP32
    #: None: not given (nothing that depends on it is derived)
    seq_len: int | None = None
    #: encoder-decoders: the target (decoder) length (None: ``seq_len``)
    target_seq: int | None = None
    #: the attention kernel: fused (SDPA, FlashAttention: no s² scores kept) or eager
    #: (``core.attention``)
    attention: AttentionKernel = AttentionKernel.SDPA
    #: the head and the loss fused over chunks of tokens (Liger's fused linear
    #: cross-entropy: use_liger_kernel): a causal LM's whole logits are never kept.
    #: Hugging Face modules only (Megatron's own kernels are not Liger's)
    fused_loss: bool = False
    #: models with a vision tower: images per sample (None: one, for a language model
    #: reading images), their pixels (None: the model's own size), the tower frozen
    images: int | None = None
    image_width: int | None = None
    image_height: int | None = None
    vision_frozen: bool = False
    #: a catalogue card or a custom one (None: a custom card without its memory)
    card: GpuCard | None = None
    gpus: int = 1
    nodes: int = 1
    tensor_parallel: int = 1
    pipeline_stages: int = 1
    #: interleaved 1F1B: model chunks per GPU (1: plain 1F1B; ignored without stages)
    virtual_stages: int = 1
    #: a mixture of experts: the GPUs of the data-parallel group each sparse layer's
    #: routed experts are spread over (Megatron's --expert-model-parallel-size,
    #: DeepSpeed-MoE's ep_size); each holds experts/EP of them. It must divide ``gpus``
    #: and the experts (``expert_problem``); 1: every GPU holds every expert
    expert_parallel: int = 1
    #: Megatron's --expert-tensor-parallel-size: GPUs each routed expert is split over,
    #: its expert groups (EP × this) folded into a stage's tensor × context × data GPUs
    #: (MoE parallel folding); None: the tensor-parallel size, Megatron's default and
    #: the only one the other frameworks run (a problem says so)
    expert_tensor_parallel: int | None = None
    #: GPUs each sequence is split over (Megatron's --context-parallel-size, Llama 3's
    #: CP): each keeps s/CP tokens of every layer and passes its keys and values around
    #: the group (ring attention). Adds GPUs: the world is dp · tp · pp · cp. The
    #: sequence must split into 2·CP equal chunks (``context_problem``)
    context_parallel: int = 1
    zero_stage: ZeroStage = ZeroStage.NONE
    offload: Offload = Offload.NONE
    recompute: Recompute = Recompute.NONE
    #: what runs the step: how it counts memory and moves gradients
    framework: Framework = Framework.DEEPSPEED
    #: Megatron's sequence parallelism beside tensor parallelism: the layer norms,
    #: dropouts and residuals of each tensor-parallel group run on 1/tp of the tokens
    sequence_parallel: bool = False
    #: Megatron's --tp-comm-overlap: Transformer Engine runs sequence parallelism's
    #: all-gathers and reduce-scatters inside the matrix products they feed
    tp_comm_overlap: bool = False
    #: Megatron's --grad-reduce-in-bf16: its gradient buffer, and the data-parallel
    #: reduction of it, in bf16 instead of fp32 (Megatron-Bridge's performance recipes)
    grad_reduce_bf16: bool = False
    target_batch: int = 32
    rounding: Rounding = Rounding.CEIL
    #: None: the plan recommends one
    micro_batch: int | None = None
    #: typed over the estimate: one sample of the whole model on one GPU (GB)
    activation_gb: Decimal | None = None
    #: typed over model states + overhead: everything but activations, per GPU (GB)
    other_memory_gb: Decimal | None = None
    #: CUDA context and allocator slack per GPU, part of the derived other memory
    overhead_gb: Decimal = DEFAULT_OVERHEAD_GB
    #: share of the card's peak its kernels reach (None: the efficiency model's)
    efficiency: Decimal | None = None
    #: per GPU, per direction, GB/s: between GPUs of a node, and between nodes (None:
    #: the card's)
    link_gbps: Decimal | None = None
    network_gbps: Decimal | None = None
    #: each node's CPU memory, decimal GB (None: not known; nothing is said of whether
    #: the model states a node holds fit it)
    cpu_memory_gb: Decimal | None = None
    #: measured micro-step times replacing the roofline (None: estimated)
    profile: SpeedProfile | None = None
    run: RunBudget = field(default_factory=RunBudget)

    # -- derived views ----------------------------------------------------------
    @property
    def layout(self) -> ParallelLayout:
        virtual = self.virtual_stages if self.pipeline_stages > 1 else 1
        return ParallelLayout(
            self.gpus, self.tensor_parallel, self.pipeline_stages, virtual, self.context_parallel
        )

    @property
    def model_parallel(self) -> int:
        return self.tensor_parallel * self.pipeline_stages

    @property
    def world(self) -> int:
        return self.gpus * self.model_parallel * self.context_parallel

    @property
    def fp8_products(self) -> bool:
        """The matrix products run in FP8 (the card's FP8 peak): asked for, beside a
        16-bit precision (fp32 training has no FP8 products)."""
        return self.fp8 and self.precision is not Precision.FP32

    @property
    def master(self) -> MasterWeights:
        """The master copy the plan counts: the one asked for, in bf16 training under a
        framework that keeps it so (``Framework.keeps``); the fp32 one otherwise (a
        problem says why)."""
        return self.framework.counted(self.precision, self.master_weights)

    @property
    def recomputed(self) -> Recompute:
        """The recomputation the plan counts: the one asked for, but per-op selective
        recomputation under a framework that does not offer it (torchtitan's, FSDP2),
        which runs none (a problem says why)."""
        offered = self.recompute in self.framework.recomputations
        if self.recompute is Recompute.SELECTIVE_OP and not offered:
            return Recompute.NONE
        return self.recompute

    @property
    def tp_overlapped(self) -> bool:
        """The overlap the plan counts: asked for, under Megatron, with sequence
        parallelism over two or more tensor-parallel GPUs (a problem says why not)."""
        return self.tp_comm_overlap and self.framework.overlaps_tensor_parallel(
            self.sequence_parallel, self.tensor_parallel
        )

    @property
    def bf16_gradients(self) -> bool:
        """The bf16 gradient buffer the plan counts: asked for, under Megatron, in bf16
        training (a problem says why not)."""
        return self.grad_reduce_bf16 and self.framework.reduces_bf16_gradients(self.precision)

    @property
    def loss_fused(self) -> bool:
        """The fused loss the plan counts: asked for, and not under Megatron, which runs
        its own head and loss (a problem says so)."""
        return self.fused_loss and self.framework is not Framework.MEGATRON

    @property
    def base_format(self) -> BaseFormat:
        """How the frozen base of an adapter method is stored."""
        if self.method is Method.QLORA:
            return BaseFormat.NF4
        return BaseFormat.FP32 if self.precision is Precision.FP32 else BaseFormat.BF16

    def setup(self, micro_batch: int, accumulation_steps: int) -> TrainingSetup:
        """The setup the exports describe, with this pair."""
        return TrainingSetup(
            micro_batch,
            accumulation_steps,
            self.gpus,
            nodes=self.nodes,
            zero_stage=self.zero_stage,
            precision=self.precision,
            offload=self.offload,
            tensor_parallel=self.tensor_parallel,
            pipeline_stages=self.pipeline_stages,
            virtual_stages=self.layout.virtual,
            expert_parallel=self.expert_parallel,
            context_parallel=self.context_parallel,
            # Megatron's, as asked; the others split the experts as the tensor-parallel
            # size does (0 in a setup; a problem says so when another was asked)
            expert_tensor_parallel=(
                (self.expert_tensor_parallel or 0) if self.framework is Framework.MEGATRON else 0
            ),
            master=self.master,
            framework=self.framework,
        )

    @cached_property
    def shape(self) -> TrainingSetup:
        """The setup with one sample in one micro-batch: the layout, precision and
        framework the setup's rules and notes read (worked out once per description)."""
        return self.setup(1, 1)

    @property
    def experts_tile(self) -> bool:
        """Whether the expert groups tile the GPUs they are spread over (the setup's
        rule, ``SetupProblem.EXPERT_PARALLEL_DATA`` and ``EXPERT_MESH``)."""
        setup = self.shape
        return setup.expert_span % setup.expert_group == 0

    def expert_problem(self, model: ModelFacts | None) -> ExpertProblem | None:
        """Why ``expert_parallel`` cannot spread ``model``'s experts (None: it can, or it
        is 1). Whether it divides the data-parallel GPUs is the setup's rule
        (``SetupProblem.EXPERT_PARALLEL_DATA``)."""
        return expert_problem(self.expert_parallel, model)

    def context_problem(self) -> ContextProblem | None:
        """Why ``context_parallel`` cannot split the sequence (None: it can, it is 1, or
        there is no sequence length yet)."""
        return context_problem(self.context_parallel, self.seq_len)


class ExpertProblem(enum.Enum):
    """Why a description's expert-parallel size does not fit its model."""

    #: the model has no routed experts to spread
    NOT_MOE = "not_moe"
    #: the size does not divide each sparse layer's routed experts
    EXPERTS = "experts"


def expert_problem(expert_parallel: int, model: ModelFacts | None) -> ExpertProblem | None:
    """Why ``expert_parallel`` GPUs cannot share ``model``'s routed experts (None: they
    can, the size is 1, or there is no model yet)."""
    if expert_parallel == 1 or model is None:
        return None
    if model.experts is None:
        return ExpertProblem.NOT_MOE
    if model.experts.experts % expert_parallel:
        return ExpertProblem.EXPERTS
    return None


class ContextProblem(enum.Enum):
    """Why a description's context-parallel size does not fit its sequence."""

    #: the sequence does not split into 2·CP equal chunks
    SEQUENCE = "sequence"


def context_problem(context_parallel: int, seq_len: int | None) -> ContextProblem | None:
    """Why ``context_parallel`` GPUs cannot split a sequence of ``seq_len`` tokens (None:
    they can, the size is 1, or there is no length yet). Megatron's load-balanced causal
    split cuts each sequence into ``2·CP`` chunks and gives rank ``r`` chunks ``r`` and
    ``2·CP − 1 − r`` (megatron-core ``get_batch_on_this_cp_rank``), so it needs the length
    divisible by ``2·CP``."""
    if context_parallel == 1 or seq_len is None:
        return None
    if seq_len % (2 * context_parallel):
        return ContextProblem.SEQUENCE
    return None
