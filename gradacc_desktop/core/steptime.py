"""Time of one optimizer step for a (micro-batch, accumulation) pair, and of a whole run.

Pure Python, exact (``Fraction`` seconds; round only to show). A step is

    (a + (p − 1)/v) · micro-step + exposed once-per-step communication + optimizer step

* **One micro-step** on one GPU runs its kernels one after another
  (:mod:`gradacc_desktop.core.kernels`): the matrix products at the share of the peak
  their width and token count reach (never faster than reading the weights), the flash
  attention at its own share, the element-wise work at the memory bandwidth, and the
  launch gaps of each layer. A typed efficiency replaces that model with one share of
  the peak (a roofline: FLOPs over ``peak · efficiency`` or the bytes over the memory
  bandwidth, whichever is slower), and a measured speed profile replaces both.
  Tensor-parallel all-reduces, pipeline sends and MoE all-to-alls are added (they sit on
  the critical path); data-parallel collectives that run on every micro-step (ZeRO-2's
  reduce-scatter, ZeRO-3's gathers) are prefetched one layer ahead and hide behind the
  compute of the phase they belong to only as far as it lasts.
* **Pipeline**: ``a`` micro-batches flow through ``p`` stages with the 1F1B schedule,
  interleaved over ``v`` virtual stages per GPU; the bubble is ``(p − 1)/v``
  micro-step times.
* **Once per step**: the gradient reduction of DDP/ZeRO-1 overlaps the last micro-step's
  backward (bucketed, as DDP does), the weight all-gather of ZeRO-1/2 does not, and
  the optimizer (Adam) reads and writes its states once — memory-bound.

Collectives run at ``BUS_EFFICIENCY`` of the link's rate. See
:mod:`gradacc_desktop.core.communication` for which collectives run when, and
:mod:`gradacc_desktop.core.layout` for the layout and the bubble.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property

from .communication import (
    Collective,
    Kind,
    What,
    When,
    all_to_all,
    data_parallel,
    pipeline,
    tensor_parallel,
)
from .compute import SECONDS_PER_HOUR, TERA, Recompute, TokenCost, require_price
from .gpus import GpuCard, TrainingPrecision
from .kernels import KernelModel, kernel_model
from .layout import ParallelLayout
from .limits import require_positive_int
from .memory import ZeroStage
from .profile import SpeedProfile
from .setup import Offload

GIGA = 10**9

#: what ZeRO-Offload moves between a GPU and its host, per direction: PCIe 4.0 x16
HOST_LINK_BYTES_PER_SECOND = 25 * 10**9
#: a node's CPU memory bandwidth, shared by its GPUs' CPU optimizers (a two-socket server)
HOST_MEMORY_BYTES_PER_SECOND = 100 * 10**9

#: the share of a link's rate NCCL's collectives reach on large messages (its "bus
#: bandwidth", nccl-tests/doc/PERFORMANCE.md; 230–240 of 300 GB/s on DGX A100's NVLink)
BUS_EFFICIENCY = Fraction(8, 10)

#: the backward's share of one micro-step's FLOPs: 4 of 6 (N) without recomputation,
#: 6 of 8 with full recomputation (the repeated forward runs inside the backward)
BACKWARD_SHARE = {Recompute.NONE: Fraction(2, 3), Recompute.FULL: Fraction(3, 4)}
#: passes over each layer per micro-step in forward units: 3 (forward + backward), 4
#: with the forward recomputed
PASSES = {Recompute.NONE: Fraction(1), Recompute.FULL: Fraction(4, 3)}


def value_bytes(precision: TrainingPrecision) -> int:
    """Bytes of one weight, gradient or activation value in transit (FP8 trains with
    16-bit weights, gradients and activations around its FP8 products)."""
    return 4 if precision is TrainingPrecision.FP32 else 2


def optimizer_bytes(precision: TrainingPrecision) -> int:
    """Bytes Adam reads and writes per trained parameter in one update: mixed precision
    reads the fp32 master weight, gradient and both moments (16) and writes the three
    states and the 16-bit copy back (14, rounded up to 16); fp32 reads 16, writes 12."""
    return 28 if precision is TrainingPrecision.FP32 else 32


class NoSpeedError(ValueError):
    """The card has no speed figures, or cannot compute in the chosen precision."""


class Uncounted(enum.Enum):
    """Terms the time model could not count for lack of the model's shape."""

    ATTENTION = "attention"  # PaLM's 12·L·H·Q·T FLOPs
    KERNEL_SHAPES = "kernel_shapes"  # products' width, element-wise work, launch gaps
    TENSOR_PARALLEL = "tensor_parallel_traffic"
    PIPELINE = "pipeline_traffic"
    LAYER_OVERLAP = "layer_overlap"  # how much per-layer prefetching can hide


def _rate(name: str, value: Fraction) -> Fraction:
    if not isinstance(value, Fraction) or value <= 0:
        raise ValueError(f"{name} must be a positive Fraction, got {value!r}")
    return value


@dataclass(frozen=True)
class Hardware:
    """What the time model needs of one GPU and its links (FLOP/s, bytes/s): the kernel
    efficiency model of its generation, or one typed share of the peak."""

    peak_flops: Fraction
    memory_bandwidth: Fraction
    #: per direction, between GPUs of one node
    link_bandwidth: Fraction
    #: per direction, per GPU, between nodes
    network_bandwidth: Fraction
    gpus_per_node: int
    #: one typed share of the peak for every kernel (None: ``kernels``)
    efficiency: Fraction | None = None
    kernels: KernelModel | None = None
    #: the products run in FP8 (``peak_flops`` is the FP8 peak); attention runs at
    #: ``attention_peak_flops``, the 16-bit peak (None: ``peak_flops``)
    fp8: bool = False
    attention_peak_flops: Fraction | None = None

    def __post_init__(self) -> None:
        for name in ("peak_flops", "memory_bandwidth", "link_bandwidth", "network_bandwidth"):
            _rate(name, getattr(self, name))
        if (self.efficiency is None) == (self.kernels is None):
            raise ValueError("give a typed efficiency or a kernel model, one of them")
        if self.efficiency is not None and (
            not isinstance(self.efficiency, Fraction) or not 0 < self.efficiency <= 1
        ):
            raise ValueError(f"efficiency must be in (0, 1], got {self.efficiency!r}")
        require_positive_int("gpus_per_node", self.gpus_per_node)

    @property
    def typed(self) -> bool:
        return self.efficiency is not None

    @property
    def compute_rate(self) -> Fraction:
        """FLOP/s the widest products reach: peak · efficiency (typed or modelled)."""
        if self.efficiency is not None:
            return self.peak_flops * self.efficiency
        assert self.kernels is not None
        return self.peak_flops * self.kernels.matmul


def hardware(
    card: GpuCard,
    precision: TrainingPrecision,
    gpus_per_node: int,
    efficiency: Decimal | None = None,
    *,
    link_gbps: Decimal | None = None,
    network_gbps: Decimal | None = None,
) -> Hardware:
    """The card's figures for ``precision``; ``efficiency`` replaces the kernel model,
    ``link_gbps``/``network_gbps`` the card's links (GB/s per GPU per direction)."""
    perf = card.performance
    if perf is None:
        raise NoSpeedError(f"{card.name} has no speed figures")
    peak = perf.peak_tflops(precision)
    if peak is None:
        raise NoSpeedError(f"{card.name} cannot compute in {precision.value}")
    link = perf.link_gbps if link_gbps is None else link_gbps
    network = perf.inter_node_gbps if network_gbps is None else network_gbps
    fp8 = precision is TrainingPrecision.FP8
    attention_peak = None
    if fp8:
        sixteen = perf.peak_tflops(TrainingPrecision.BF16) or perf.fp16_tflops
        attention_peak = Fraction(sixteen) * TERA
    return Hardware(
        peak_flops=Fraction(peak) * TERA,
        memory_bandwidth=Fraction(perf.memory_bandwidth_gbps) * GIGA,
        link_bandwidth=Fraction(link) * GIGA,
        network_bandwidth=Fraction(network) * GIGA,
        gpus_per_node=gpus_per_node,
        efficiency=None if efficiency is None else Fraction(efficiency),
        kernels=kernel_model(perf.generation) if efficiency is None else None,
        fp8=fp8,
        attention_peak_flops=attention_peak,
    )


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
    precision: TrainingPrecision = TrainingPrecision.BF16
    #: hidden size and layers: the kernels' widths, the tensor- and pipeline-parallel
    #: traffic and the layer-by-layer overlap need them
    hidden: int | None = None
    layers: int | None = None
    #: the output layer's vocabulary (the loss's logits; None: not counted)
    vocab: int | None = None
    #: attention heads (eager attention's scores; None: not counted)
    heads: int | None = None
    #: a fused (flash/SDPA) attention kernel; False: eager, scores written out
    flash_attention: bool = True
    #: activation bytes one sample keeps for the whole model on one GPU (None: not counted)
    activation_bytes_per_sample: int | None = None
    #: ZeRO-Offload: the optimizer (and with ALL the parameters) in CPU memory
    offload: Offload = Offload.NONE
    #: bytes of one frozen base weight (QLoRA's 4-bit NF4: about half a byte; None:
    #: the training precision's)
    frozen_value_bytes: Fraction | None = None
    #: a mixture of experts' routing (None: dense)
    experts: Experts | None = None

    def __post_init__(self) -> None:
        require_positive_int("seq_len", self.seq_len)
        if (self.hidden is None) != (self.layers is None):
            raise ValueError("hidden and layers go together")
        if self.experts is not None and self.layout.data % self.experts.parallel:
            raise ValueError(
                f"the expert-parallel size {self.experts.parallel} must divide the "
                f"{self.layout.data} data-parallel GPUs"
            )

    @property
    def value_bytes(self) -> int:
        return value_bytes(self.precision)

    @property
    def expert_parallel(self) -> int:
        """GPUs each sparse layer's routed experts are spread over (1: dense, or held
        whole by every GPU)."""
        return 1 if self.experts is None else self.experts.parallel

    @property
    def expert_params_per_gpu(self) -> Fraction:
        """The routed experts' parameters one GPU holds: ``1/EP`` of them, split
        ``tp · pp`` ways (0 for a dense model, or experts not told apart)."""
        e = self.experts
        if e is None or not e.params:
            return Fraction(0)
        return Fraction(e.params, e.parallel * self.layout.model_shards)

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
        same experts: ``dense/dp + experts·EP/dp``."""
        return (dense + experts * self.expert_parallel) / self.layout.data

    @property
    def counts_model_traffic(self) -> bool:
        """Whether tensor-/pipeline-parallel traffic is counted (it needs the shape)."""
        return self.hidden is not None or self.layout.model_shards == 1

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
        if self.layout.data > 1:
            missing.append(Uncounted.LAYER_OVERLAP)
        return tuple(missing)


@dataclass(frozen=True)
class TimeParts:
    """Where one optimizer step's time goes, in seconds; the parts add up to the step.

    Kernel parts count the ``a`` micro-steps' busy time; the bubble counts the idle
    pipeline slots whatever fills them."""

    #: matrix products (with a typed efficiency: every FLOP)
    matmul: Fraction = Fraction(0)
    attention: Fraction = Fraction(0)
    #: element-wise work, and reading the weights where products cannot hide it
    memory: Fraction = Fraction(0)
    #: launch gaps between kernels
    overhead: Fraction = Fraction(0)
    #: a measured speed profile's forward and backward
    measured: Fraction = Fraction(0)
    tensor_parallel: Fraction = Fraction(0)
    pipeline: Fraction = Fraction(0)
    expert_parallel: Fraction = Fraction(0)
    #: exposed data-parallel collectives (gradients and weights)
    data_parallel: Fraction = Fraction(0)
    #: exposed weight fetches from the host (ZeRO-Infinity)
    offload: Fraction = Fraction(0)
    bubble: Fraction = Fraction(0)
    optimizer: Fraction = Fraction(0)

    @property
    def total(self) -> Fraction:
        return sum((getattr(self, name) for name in PART_NAMES), Fraction(0))

    @property
    def communication(self) -> Fraction:
        return (
            self.tensor_parallel
            + self.pipeline
            + self.expert_parallel
            + self.data_parallel
            + self.offload
        )


#: the parts in the order the window lists them
PART_NAMES = (
    "matmul",
    "attention",
    "memory",
    "overhead",
    "measured",
    "tensor_parallel",
    "pipeline",
    "expert_parallel",
    "data_parallel",
    "offload",
    "bubble",
    "optimizer",
)


@dataclass(frozen=True)
class StepTime:
    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    tokens_per_step: int
    world: int
    #: one micro-step's FLOPs at the kernels' rates
    compute_seconds: Fraction
    #: one micro-step's memory-bound time (weights read, element-wise work)
    memory_seconds: Fraction
    #: one micro-step with its exposed traffic (a pipeline slot)
    micro_step_seconds: Fraction
    #: idle pipeline time in one optimizer step
    bubble_seconds: Fraction
    optimizer_seconds: Fraction
    step_seconds: Fraction
    model_flops_per_token: int
    hardware_flops_per_token: Fraction
    peak_flops: Fraction
    #: the micro-step's busy time came from a measured speed profile
    measured: bool = False
    #: one micro-step's parts (``_Slot``) and the once-per-step data-parallel time:
    #: ``parts`` is made of them when asked (timing every pair needs only the step)
    slot: tuple[Fraction, ...] = ()
    data_step_seconds: Fraction = Fraction(0)

    @cached_property
    def parts(self) -> TimeParts:
        """Where the step's time goes (see ``TimeParts``)."""
        if not self.slot:
            return TimeParts(bubble=self.bubble_seconds, optimizer=self.optimizer_seconds)
        a = self.accumulation_steps
        products, attention, memory, overhead, measured, tensor, sends, experts, data, host = (
            self.slot
        )
        return TimeParts(
            matmul=a * products,
            attention=a * attention,
            memory=a * memory,
            overhead=a * overhead,
            measured=a * measured,
            tensor_parallel=a * tensor,
            pipeline=a * sends,
            expert_parallel=a * experts,
            data_parallel=a * data + self.data_step_seconds,
            offload=a * host,
            bubble=self.bubble_seconds,
            optimizer=self.optimizer_seconds,
        )

    @cached_property
    def communication_seconds(self) -> Fraction:
        """Exposed communication in one optimizer step."""
        return self.parts.communication

    @property
    def memory_bound(self) -> bool:
        """Whether memory traffic, not FLOPs, sets the micro-step (never said of a
        measured one)."""
        return not self.measured and self.memory_seconds > self.compute_seconds

    @cached_property
    def tokens_per_second(self) -> Fraction:
        return self.tokens_per_step / self.step_seconds

    @cached_property
    def tokens_per_second_per_gpu(self) -> Fraction:
        return self.tokens_per_second / self.world

    @cached_property
    def mfu(self) -> Fraction:
        return self.model_flops_per_token * self.tokens_per_second_per_gpu / self.peak_flops

    @cached_property
    def hfu(self) -> Fraction:
        return self.hardware_flops_per_token * self.tokens_per_second_per_gpu / self.peak_flops

    @cached_property
    def bubble_fraction(self) -> Fraction:
        return self.bubble_seconds / self.step_seconds

    @cached_property
    def communication_fraction(self) -> Fraction:
        return self.communication_seconds / self.step_seconds


def _seconds(collectives: tuple[Collective, ...], when: When, what: What | None = None) -> Fraction:
    return sum(
        (c.seconds for c in collectives if c.when is when and (what is None or c.what is what)),
        Fraction(0),
    )


def _kind(collectives: tuple[Collective, ...], kind: Kind) -> Fraction:
    return sum((c.seconds for c in collectives if c.kind is kind), Fraction(0))


def exposed(communication: Fraction, compute: Fraction, pieces: int | None) -> Fraction:
    """What of ``communication`` shows when it is cut in ``pieces`` equal parts (one per
    layer), each fetched while the previous part's ``compute`` runs (prefetch depth
    one): the first part never hides, and a part longer than the compute it hides
    behind shows its excess. ``pieces`` None: as finely cut as needed (only the excess
    over the compute shows)."""
    if communication <= 0:
        return Fraction(0)
    if pieces is None:
        return max(Fraction(0), communication - compute)
    piece, work = communication / pieces, compute / pieces
    if piece <= work:
        return piece
    return communication - compute + work


@dataclass(frozen=True)
class _Busy:
    """One micro-step's kernels on one GPU: ``fixed + b · per_sample`` each."""

    matmul: tuple[Fraction, Fraction]
    weights: Fraction
    attention: Fraction
    memory: Fraction
    overhead: Fraction

    def at(self, b: int) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """(matmul, attention, memory, overhead) seconds at micro-batch ``b``."""
        fixed, per_sample = self.matmul
        products = fixed + b * per_sample
        memory = b * self.memory
        if self.weights > products:  # reading the weights takes longer than the products
            memory += self.weights - products
        return products, b * self.attention, memory, self.overhead


class StepModel:
    """One workload on one kind of GPU: what does not depend on the pair is computed
    once, so timing every candidate pair after a keystroke costs a few operations each.

    Everything that grows with the micro-batch grows linearly in it (FLOPs, activation
    bytes, tensor- and pipeline-parallel traffic); the weights, the data-parallel
    collectives and the optimizer do not depend on it."""

    def __init__(
        self, workload: Workload, hw: Hardware, profile: SpeedProfile | None = None
    ) -> None:
        """``profile``: measured seconds of one forward and backward of the whole model
        on one device, used for a micro-step in place of the kernel model (divided by
        ``tp · pp``: each GPU of a replica does that share of the work)."""
        self.workload = workload
        self.hardware = hw
        self.profile = profile
        layout = workload.layout
        cost = workload.cost
        nbytes = workload.value_bytes
        shards = layout.model_shards
        seq = workload.seq_len
        passes = PASSES[cost.recompute]
        stage_layers = None if workload.layers is None else Fraction(workload.layers, shards)
        self._layers = (
            None if workload.layers is None else max(1, workload.layers // layout.pipeline)
        )

        weight_bytes = workload.weight_bytes_per_gpu
        trained_bytes = workload.trained_per_gpu * nbytes
        # weights read by the forward and the backward, gradient buffer read and written
        weights = (2 * weight_bytes + 2 * trained_bytes) / hw.memory_bandwidth
        dense = cost.dense * passes * seq / shards  # per sample, FLOPs
        attention = cost.attention * passes * seq / shards
        if hw.kernels is None:  # a typed efficiency: a roofline
            assert hw.efficiency is not None
            rate = hw.peak_flops * hw.efficiency
            activation = Fraction(0)
            if workload.activation_bytes_per_sample is not None:
                activation = Fraction(workload.activation_bytes_per_sample, shards)
            self._busy = _Busy(
                matmul=(Fraction(0), dense / rate),
                weights=weights,
                attention=attention / rate,
                memory=2 * activation / hw.memory_bandwidth,
                overhead=Fraction(0),
            )
            self._roofline = True
        else:
            k = hw.kernels
            width = None if workload.hidden is None else workload.hidden // layout.tensor
            sixteen_bit = hw.attention_peak_flops or hw.peak_flops
            rate = sixteen_bit * k.matmul_share(width) * (k.fp8_gain if hw.fp8 else 1)
            attention_peak = sixteen_bit
            per_sample = dense / rate
            memory = Fraction(0)
            overhead = Fraction(0)
            if workload.hidden is not None and stage_layers is not None:
                values = k.elementwise_values * workload.hidden * seq * stage_layers * passes
                memory = values * nbytes / layout.tensor / hw.memory_bandwidth
                # the loss: fp32 logits of the vocabulary, on the last stage
                if workload.vocab is not None:
                    logits = Fraction(k.logit_values * 4 * workload.vocab * seq, layout.tensor)
                    memory += logits / hw.memory_bandwidth
                overhead = k.layer_seconds * passes * math.ceil(stage_layers * layout.tensor)
            if workload.flash_attention:
                attention_time = attention / (attention_peak * k.attention_share(seq))
            else:  # two batched products, and the scores through memory
                attention_time = attention / rate
                if workload.heads is not None and stage_layers is not None:
                    scores = Fraction(workload.heads, layout.tensor) * seq * seq
                    traffic = k.score_values * nbytes * scores * stage_layers * passes
                    attention_time += traffic / hw.memory_bandwidth
            self._busy = _Busy(
                matmul=(per_sample * Fraction(k.tokens_half, seq), per_sample),
                weights=weights,
                attention=attention_time,
                memory=memory,
                overhead=overhead,
            )
            self._roofline = False

        # communication
        one_node = layout.world <= hw.gpus_per_node
        dp_bandwidth = (hw.link_bandwidth if one_node else hw.network_bandwidth) * BUS_EFFICIENCY
        adapters = workload.cost.trained is not None
        ep = workload.expert_parallel
        expert_weights = workload.expert_weight_bytes_per_gpu if ep > 1 else Fraction(0)
        expert_trained = workload.expert_trained_per_gpu * nbytes if ep > 1 else Fraction(0)
        # the dense weights over every replica; with expert parallelism each GPU's
        # experts over the dp/EP replicas that hold the same ones (DeepSpeed-MoE's
        # expert data-parallel group, Megatron's expert_data_parallel_size)
        self._data_parallel = data_parallel(
            workload.zero_stage,
            math.ceil(weight_bytes - expert_weights),
            layout.data,
            dp_bandwidth,
            one_node,
            math.ceil(trained_bytes - expert_trained) if adapters else None,
        )
        if ep > 1:
            self._data_parallel += data_parallel(
                workload.zero_stage,
                math.ceil(expert_weights),
                layout.data // ep,
                dp_bandwidth,
                one_node,
                math.ceil(expert_trained) if adapters else None,
            )
        micro = When.MICRO_STEP
        grads, gathers = What.GRADIENTS, What.WEIGHTS
        self._gather_micro = _seconds(self._data_parallel, micro, gathers)
        self._reduce_micro = _seconds(self._data_parallel, micro, grads)
        self._grad_step = _seconds(self._data_parallel, When.OPTIMIZER_STEP, grads)
        self._gather_step = _seconds(self._data_parallel, When.OPTIMIZER_STEP, gathers)
        model = self.model_collectives(1)
        self._tensor_per_sample = _kind(model, Kind.ALL_REDUCE)
        self._pipeline_per_sample = _kind(model, Kind.SEND_RECV)
        self._experts_per_sample = _kind(model, Kind.ALL_TO_ALL)
        self._backward_share = BACKWARD_SHARE[cost.recompute]
        self._contention = Fraction(0) if hw.kernels is None else hw.kernels.contention
        self._bubble_slots = Fraction(layout.pipeline - 1, layout.virtual)

        # optimizer
        updated = workload.trained_per_gpu
        if workload.zero_stage is not ZeroStage.NONE:
            experts_trained = workload.expert_trained_per_gpu
            updated = workload.data_shard(updated - experts_trained, experts_trained)
        self._optimizer = updated * optimizer_bytes(workload.precision) / hw.memory_bandwidth
        if workload.offload is not Offload.NONE:
            # ZeRO-Offload: the shard's gradients go down to the host and its updated
            # weights come back over PCIe; the CPU optimizer runs at the node's memory
            # bandwidth shared by its GPUs (Ren et al. 2021, ZeRO-Offload)
            host_memory = Fraction(HOST_MEMORY_BYTES_PER_SECOND, hw.gpus_per_node)
            self._optimizer = (
                updated * 2 * nbytes / HOST_LINK_BYTES_PER_SECOND
                + updated * optimizer_bytes(workload.precision) / host_memory
            )
        self._host_fetch = Fraction(0)
        if workload.offload is Offload.ALL:
            # ZeRO-Infinity: the forward and the backward fetch the GPU's shard of the
            # weights from the host on every micro-step (hidden behind compute if it can)
            shard = workload.data_shard(
                weight_bytes - workload.expert_weight_bytes_per_gpu,
                workload.expert_weight_bytes_per_gpu,
            )
            self._host_fetch = 2 * shard / HOST_LINK_BYTES_PER_SECOND

    def model_collectives(self, micro_batch: int) -> tuple[Collective, ...]:
        """The tensor-parallel all-reduces, pipeline sends and expert all-to-alls of one
        micro-step (none without the model's shape)."""
        w, hw = self.workload, self.hardware
        if w.hidden is None or w.layers is None:
            return ()
        layout = w.layout
        tp, pp = layout.tensor, layout.pipeline
        activation = micro_batch * w.seq_len * w.hidden * w.value_bytes
        tp_inside = layout.fits_in_node(hw.gpus_per_node)
        stage_inside = hw.gpus_per_node % (tp * pp) == 0
        link = hw.link_bandwidth * BUS_EFFICIENCY
        network = hw.network_bandwidth * BUS_EFFICIENCY
        found = tensor_parallel(
            math.ceil(Fraction(w.layers, pp)),
            activation,
            tp,
            link if tp_inside else network,
            tp_inside,
            w.cost.recompute is Recompute.FULL,
        ) + pipeline(
            pp,
            Fraction(activation, tp),
            link if stage_inside else network,
            stage_inside,
            layout.virtual,
        )
        if w.experts is not None and w.experts.parallel > 1:
            e = w.experts
            inside = hw.gpus_per_node % (e.parallel * tp) == 0
            found += all_to_all(
                math.ceil(Fraction(e.layers, pp)),
                Fraction(activation * e.top_k, tp),
                e.parallel,
                link if inside else network,
                inside,
                w.cost.recompute is Recompute.FULL,
            )
        return found

    def collectives(self, micro_batch: int) -> tuple[Collective, ...]:
        """Every collective of one optimizer step with this micro-batch."""
        return self._data_parallel + self.model_collectives(micro_batch)

    def time(self, micro_batch: int, accumulation_steps: int) -> StepTime:
        """Time of one optimizer step with ``micro_batch`` samples per GPU and
        ``accumulation_steps`` micro-batches (the pipeline's ``m``)."""
        require_positive_int("micro_batch", micro_batch)
        require_positive_int("accumulation_steps", accumulation_steps)
        w = self.workload
        b, a = micro_batch, accumulation_steps
        layout = w.layout
        dp = layout.data
        products, attention, memory, overhead = self._busy.at(b)
        compute = products + attention
        if self._roofline:  # a typed efficiency: FLOPs or bytes, whichever is slower
            memory_total = memory + min(products, self._busy.weights)
            busy = max(compute, memory_total)
            memory = busy - compute
        else:
            memory_total = memory + min(products, self._busy.weights)
            busy = compute + memory + overhead
        measured = Fraction(0)
        if self.profile is not None:
            measured = self.profile.micro_step_seconds(b) / layout.model_shards
            busy = measured
            products = attention = memory = overhead = Fraction(0)
        backward = busy * self._backward_share
        forward = busy - backward
        pieces = self._layers
        contention = self._contention
        data_micro = Fraction(0)
        if self._gather_micro or self._reduce_micro:
            data_micro = exposed(self._gather_micro / 2, forward, pieces) + exposed(
                self._gather_micro / 2 + self._reduce_micro, backward, pieces
            )
            if contention:  # the hidden part slows the kernels beside it
                data_micro += contention * (self._gather_micro + self._reduce_micro - data_micro)
        tensor = b * self._tensor_per_sample
        sends = b * self._pipeline_per_sample
        experts = b * self._experts_per_sample
        host = exposed(self._host_fetch, busy, None) if self._host_fetch else Fraction(0)
        micro_step = busy + tensor + sends + experts + data_micro + host
        if self._grad_step:
            grad_step = exposed(self._grad_step, backward, pieces)
            data_step = self._gather_step + grad_step + contention * (self._grad_step - grad_step)
        else:
            data_step = self._gather_step
        bubble = self._bubble_slots * micro_step if self._bubble_slots else Fraction(0)
        step = a * micro_step + bubble + data_step + self._optimizer
        return StepTime(
            micro_batch=b,
            accumulation_steps=a,
            effective_batch=b * a * dp,
            tokens_per_step=b * a * dp * w.seq_len,
            world=layout.world,
            compute_seconds=compute,
            memory_seconds=memory_total,
            micro_step_seconds=micro_step,
            bubble_seconds=bubble,
            optimizer_seconds=self._optimizer,
            step_seconds=step,
            model_flops_per_token=w.cost.model,
            hardware_flops_per_token=w.cost.hardware,
            peak_flops=self.hardware.peak_flops,
            measured=self.profile is not None,
            slot=(
                products,
                attention,
                memory,
                overhead,
                measured,
                tensor,
                sends,
                experts,
                data_micro,
                host,
            ),
            data_step_seconds=data_step,
        )


def step_time(
    workload: Workload, hw: Hardware, micro_batch: int, accumulation_steps: int
) -> StepTime:
    """Time of one optimizer step (see ``StepModel``; build one to time many pairs)."""
    return StepModel(workload, hw).time(micro_batch, accumulation_steps)


@dataclass(frozen=True)
class RunTotals:
    steps: int
    seconds: Fraction
    gpu_hours: Fraction
    #: None without a price
    cost: Fraction | None

    @property
    def days(self) -> Fraction:
        return self.seconds / 86_400


def run_totals(
    step: StepTime,
    *,
    tokens: int | None = None,
    steps: int | None = None,
    price_per_gpu_hour: Decimal | None = None,
    goodput: Decimal | None = None,
) -> RunTotals:
    """Steps, wall-clock time, GPU-hours and cost of a run of ``tokens`` (the last step
    may be partial and is counted whole) or of ``steps`` optimizer steps; ``goodput``:
    the share of the wall-clock time spent training (restarts, checkpoints and lost
    work take the rest), which stretches the time, GPU-hours and cost."""
    if (tokens is None) == (steps is None):
        raise ValueError("give tokens or steps")
    if tokens is not None:
        require_positive_int("tokens", tokens)
        steps = -(-tokens // step.tokens_per_step)
    assert steps is not None
    require_positive_int("steps", steps)
    require_price(price_per_gpu_hour)
    seconds = steps * step.step_seconds / require_goodput(goodput)
    gpu_hours = seconds * step.world / SECONDS_PER_HOUR
    cost = None if price_per_gpu_hour is None else gpu_hours * Fraction(price_per_gpu_hour)
    return RunTotals(steps, seconds, gpu_hours, cost)


def require_goodput(goodput: Decimal | None) -> Fraction:
    """``goodput`` as a Fraction in (0, 1] (None: 1); ``ValueError`` otherwise."""
    if goodput is None:
        return Fraction(1)
    if not isinstance(goodput, Decimal) or not goodput.is_finite() or not 0 < goodput <= 1:
        raise ValueError(f"goodput must be in (0, 1], got {goodput!r}")
    return Fraction(goodput)


def fastest(times: list[StepTime] | tuple[StepTime, ...]) -> StepTime | None:
    """The pair with the most tokens per second (ties: the larger micro-batch)."""
    if not times:
        return None
    return max(times, key=lambda t: (t.tokens_per_second, t.micro_batch))
