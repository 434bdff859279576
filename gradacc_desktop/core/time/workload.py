"""The training job the time model times, independent of the (micro-batch,
accumulation) pair: FLOPs per token, sequence length, layout, sharding, the model's
shape where it is known, the routing of a mixture of experts — and what a bare
parameter count leaves uncounted.

Pure Python, exact (``Fraction``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction

from ..framework import Framework
from ..limits import require_positive_int
from ..memory.setup import Offload
from ..memory.zero import ZeroStage
from ..precision import MasterWeights, Precision
from .compute import TokenCost
from .layout import ParallelLayout


def value_bytes(precision: Precision) -> int:
    """Bytes of one weight, gradient or activation value in transit (FP8 products
    keep 16-bit weights, gradients and activations around them)."""
    return precision.bytes


def optimizer_bytes(precision: Precision, master: MasterWeights = MasterWeights.FP32) -> int:
    """Bytes Adam reads and writes per trained parameter in one update: mixed precision
    reads the fp32 master weight, gradient and both moments (16) and writes the three
    states and the 16-bit copy back (14, rounded up to 16); fp32 reads 16, writes 12; a
    bf16 master copy reads its weight, gradient and moments (8) and writes them and the
    training copy (8); pure bf16 reads the weight, gradient and moments (8) and writes
    three (6)."""
    if precision is Precision.FP32:
        return 28
    if master is MasterWeights.BF16:
        return 16
    if master is MasterWeights.NONE:
        return 14
    return 32


class Uncounted(enum.Enum):
    """Terms the time model could not count for lack of the model's shape."""

    ATTENTION = "attention"  # PaLM's 12·L·H·Q·T FLOPs
    KERNEL_SHAPES = "kernel_shapes"  # products' width, element-wise work, host work
    TENSOR_PARALLEL = "tensor_parallel_traffic"
    PIPELINE = "pipeline_traffic"
    CONTEXT_PARALLEL = "context_parallel_traffic"  # ring attention's keys and values
    LAYER_OVERLAP = "layer_overlap"  # how much per-layer prefetching can hide


@dataclass(frozen=True)
class Experts:
    """A mixture of experts' routing: what its all-to-alls move, and which of its weights
    a GPU holds."""

    #: routed experts per sparse layer
    experts: int
    #: experts each token is sent to
    top_k: int
    #: sparse layers
    layers: int
    #: GPUs of the data-parallel group the experts are spread over (expert parallelism;
    #: 1: every GPU holds every expert, no all-to-all)
    parallel: int = 1
    #: the routed experts' parameters, every expert of every sparse layer (0: not told
    #: apart: the cost's N, with its ``top_k`` experts per layer, stands for the weights)
    params: int = 0
    #: how many times further than the dense weights a GPU's experts are split (None:
    #: ``parallel``; Megatron's expert tensor parallelism: EP × its size / tp)
    spread: Fraction | None = None

    @property
    def share(self) -> Fraction:
        """The experts' split over the dense weights' (``spread``, else ``parallel``)."""
        return Fraction(self.parallel) if self.spread is None else self.spread

    def __post_init__(self) -> None:
        for name in ("experts", "top_k", "layers", "parallel"):
            require_positive_int(name, getattr(self, name))
        if isinstance(self.params, bool) or not isinstance(self.params, int) or self.params < 0:
            raise ValueError(f"params must be an integer >= 0, got {self.params!r}")
        if self.top_k > self.experts:
            raise ValueError(f"top_k ({self.top_k}) must be at most the experts ({self.experts})")
        if self.experts % self.parallel:
            raise ValueError(
                f"the expert-parallel size {self.parallel} must divide the {self.experts} experts"
            )

    @property
    def active_params(self) -> Fraction:
        """The routed experts' parameters one token computes with (``top_k`` per layer)."""
        return Fraction(self.params * self.top_k, self.experts)


@dataclass(frozen=True)
class Workload:
    """The training job, independent of the pair: model, sequence, layout, sharding."""

    cost: TokenCost
    seq_len: int
    layout: ParallelLayout = field(default_factory=ParallelLayout)
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: Precision = Precision.BF16
    #: what a 16-bit training's optimizer updates (its bytes; how gradients travel)
    master: MasterWeights = MasterWeights.FP32
    #: hidden size and layers: the kernels' widths, the tensor- and pipeline-parallel
    #: traffic and the layer-by-layer overlap need them
    hidden: int | None = None
    layers: int | None = None
    #: the output layer's vocabulary (the loss's logits; None: not counted)
    vocab: int | None = None
    #: attention heads (eager attention's scores; None: not counted)
    heads: int | None = None
    #: key/value values per token and layer, kv_heads · head_dim (ring attention's
    #: traffic with context parallelism; None: not counted)
    kv_width: int | None = None
    #: a fused (flash/SDPA) attention kernel; False: eager, scores written out
    flash_attention: bool = True
    #: the fused kernel is the flash-attn packages' own for the card (FlashAttention 3
    #: on Hopper, 4 on Blackwell: ``core.attention``), at its own fitted speed
    flash_kernel: bool = False
    #: Megatron's --tp-comm-overlap: the tensor-parallel collectives run inside the
    #: matrix products (Transformer Engine's userbuffers); only their excess shows
    tp_overlap: bool = False
    #: Megatron's --grad-reduce-in-bf16: the gradients reduced in bf16, not fp32
    bf16_gradients: bool = False
    #: activation bytes one sample keeps for the whole model on one GPU (None: not counted)
    activation_bytes_per_sample: int | None = None
    #: ZeRO-Offload: the optimizer (and with ALL the parameters) in CPU memory
    offload: Offload = Offload.NONE
    #: bytes of one frozen base weight (QLoRA's 4-bit NF4: about half a byte; None:
    #: the training precision's)
    frozen_value_bytes: Fraction | None = None
    #: a mixture of experts' routing (None: dense)
    experts: Experts | None = None
    #: what runs the step: how gradients travel (precision, overlap)
    framework: Framework = Framework.DEEPSPEED
    #: Megatron's sequence parallelism: the layer norms, dropouts and residuals of a
    #: tensor-parallel group run on 1/tp of the tokens each (without it every rank
    #: repeats them on all tokens)
    sequence_parallel: bool = True

    def __post_init__(self) -> None:
        require_positive_int("seq_len", self.seq_len)
        if (self.hidden is None) != (self.layers is None):
            raise ValueError("hidden and layers go together")
        e = self.experts
        if e is not None and e.spread is None and self.layout.data % e.parallel:
            raise ValueError(
                f"the expert-parallel size {e.parallel} must divide the "
                f"{self.layout.data} data-parallel GPUs"
            )

    @property
    def value_bytes(self) -> int:
        return value_bytes(self.precision)

    @property
    def head_params(self) -> int:
        """The output layer's parameters, ``vocab · hidden`` (the logits' products, run
        once per token on the last pipeline stage; 0 when not known)."""
        if self.vocab is None or self.hidden is None:
            return 0
        return min(self.vocab * self.hidden, self.cost.params)

    @property
    def gradient_scale(self) -> Fraction:
        """Bytes of a gradient as the data-parallel reduction moves it, over a weight's."""
        grad = self.framework.gradient_bytes(self.precision, self.master, self.bf16_gradients)
        return Fraction(grad, self.value_bytes)

    @property
    def expert_params_per_gpu(self) -> Fraction:
        """The routed experts' parameters one GPU holds: ``1/EP`` of them, split
        ``tp · pp`` ways — ``expert tp · pp`` with Megatron's expert tensor parallelism
        (0 for a dense model, or experts not told apart)."""
        e = self.experts
        if e is None or not e.params:
            return Fraction(0)
        return Fraction(e.params) / (e.share * self.layout.model_shards)

    @property
    def params_per_gpu(self) -> Fraction:
        """Parameters one GPU holds and computes with: N / (tp · pp). A mixture of experts
        reads every routed expert it holds (a micro-batch's tokens reach them all), not
        only the ``top_k`` of N: its dense weights and ``1/EP`` of the experts."""
        shards = self.layout.model_shards
        params = Fraction(self.cost.params, shards)
        e = self.experts
        if e is None or not e.params:
            return params
        return params - e.active_params / shards + self.expert_params_per_gpu

    @property
    def trained_per_gpu(self) -> Fraction:
        """Parameters one GPU trains: every one it holds, or its share of the adapters
        (adapters train beside the routed experts, never in them)."""
        trained = self.cost.trained
        if trained is None:
            return self.params_per_gpu
        return Fraction(trained, self.layout.model_shards)

    @property
    def expert_trained_per_gpu(self) -> Fraction:
        """The routed experts' parameters one GPU trains (none when adapters train)."""
        return self.expert_params_per_gpu if self.cost.trained is None else Fraction(0)

    @property
    def _weight_rate(self) -> Fraction:
        """Bytes of one weight a GPU holds whole: the training precision's, or the frozen
        base's when adapters train."""
        if self.cost.trained is None or self.frozen_value_bytes is None:
            return Fraction(self.value_bytes)
        return self.frozen_value_bytes

    @property
    def weight_bytes_per_gpu(self) -> Fraction:
        """Bytes of the weights one GPU computes with (a frozen base at its own rate)."""
        if self.cost.trained is None:
            return self.params_per_gpu * self.value_bytes
        return self.params_per_gpu * self._weight_rate + self.trained_per_gpu * self.value_bytes

    @property
    def expert_weight_bytes_per_gpu(self) -> Fraction:
        """Bytes of the routed experts' weights one GPU holds (part of
        ``weight_bytes_per_gpu``)."""
        return self.expert_params_per_gpu * self._weight_rate

    def data_shard(self, dense: Fraction, experts: Fraction = Fraction(0)) -> Fraction:
        """One GPU's ZeRO partition of ``dense`` bytes (or parameters) held by every
        data-parallel replica and of ``experts`` held by the ``dp/EP`` replicas with the
        same experts: ``dense/dp + experts·EP/dp``; with context parallelism over
        ``dp · cp`` ranks (``ParallelLayout.gradient_ranks``)."""
        share = 1 if self.experts is None else self.experts.share
        return (dense + experts * share) / self.layout.gradient_ranks

    @property
    def uncounted(self) -> tuple[Uncounted, ...]:
        """What the time leaves out for lack of the model's shape."""
        if self.hidden is not None:
            return ()
        missing = [Uncounted.ATTENTION, Uncounted.KERNEL_SHAPES]
        if self.layout.tensor > 1:
            missing.append(Uncounted.TENSOR_PARALLEL)
        if self.layout.pipeline > 1:
            missing.append(Uncounted.PIPELINE)
        if self.layout.context > 1:
            missing.append(Uncounted.CONTEXT_PARALLEL)
        if self.layout.data > 1:
            missing.append(Uncounted.LAYER_OVERLAP)
        return tuple(missing)
