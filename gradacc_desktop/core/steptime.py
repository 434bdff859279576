"""Time of one optimizer step for a (micro-batch, accumulation) pair, and of a whole run.

Pure Python, exact (``Fraction`` seconds; round only to show). A step is

    (a + p − 1) · micro-step + exposed data-parallel communication + optimizer step

* **One micro-step** on one GPU is a roofline (Williams et al. 2009): the larger of its
  FLOPs over ``peak · efficiency`` and the bytes it must move over the memory bandwidth
  — the weights read by the forward and again by the backward, the gradient buffer read
  and written, the activations written and read back — so tiny micro-batches come out
  memory-bound, as they are. Tensor-parallel all-reduces and pipeline sends are added
  (they sit on the critical path); data-parallel collectives that run on every
  micro-step (ZeRO-2's reduce-scatter, ZeRO-3's gathers) overlap the micro-step's
  compute and only their excess shows.
* **Pipeline**: ``a`` micro-batches flow through ``p`` stages with the 1F1B schedule; the
  step takes ``a + p − 1`` micro-step times, ``p − 1`` of them idle (the bubble).
* **Once per step**: the gradient reduction of DDP/ZeRO-1 overlaps the last micro-step's
  backward (PyTorch DDP's bucketed all-reduce), the weight all-gather of ZeRO-1/2 does
  not, and the optimizer (Adam) reads and writes its states once — memory-bound.

See :mod:`gradacc_desktop.core.communication` for which collectives run when, and
:mod:`gradacc_desktop.core.layout` for the layout and the bubble.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property

from .communication import Collective, What, When, data_parallel, pipeline, tensor_parallel
from .compute import SECONDS_PER_HOUR, TERA, Recompute, TokenCost, require_price
from .gpus import GpuCard, TrainingPrecision
from .layout import ParallelLayout
from .limits import require_positive_int
from .memory import ZeroStage
from .profile import SpeedProfile
from .setup import Offload

GIGA = 10**9

#: bytes of one weight, gradient or activation value in transit, per training precision
VALUE_BYTES = {TrainingPrecision.BF16: 2, TrainingPrecision.FP16: 2, TrainingPrecision.FP32: 4}

#: bytes Adam reads and writes per trained parameter in one update: mixed precision reads
#: the fp32 master weight, gradient and both moments (16) and writes the three states
#: and the 16-bit copy back (14, rounded up to 16); fp32 reads 16 and writes 12.
OPTIMIZER_BYTES = {
    TrainingPrecision.BF16: 32,
    TrainingPrecision.FP16: 32,
    TrainingPrecision.FP32: 28,
}

#: what ZeRO-Offload moves between a GPU and its host, per direction: PCIe 4.0 x16
HOST_LINK_BYTES_PER_SECOND = 25 * 10**9
#: a node's CPU memory bandwidth, shared by its GPUs' CPU optimizers (a two-socket server)
HOST_MEMORY_BYTES_PER_SECOND = 100 * 10**9

#: the backward's share of one micro-step's FLOPs: 4 of 6 (N) without recomputation,
#: 6 of 8 with full recomputation (the repeated forward runs inside the backward)
BACKWARD_SHARE = {Recompute.NONE: Fraction(2, 3), Recompute.FULL: Fraction(3, 4)}


class NoSpeedError(ValueError):
    """The card has no speed figures, or cannot compute in the chosen precision."""


def _rate(name: str, value: Fraction) -> Fraction:
    if not isinstance(value, Fraction) or value <= 0:
        raise ValueError(f"{name} must be a positive Fraction, got {value!r}")
    return value


@dataclass(frozen=True)
class Hardware:
    """What the time model needs of one GPU and its links (FLOP/s, bytes/s)."""

    peak_flops: Fraction
    efficiency: Fraction
    memory_bandwidth: Fraction
    #: per direction, between GPUs of one node
    link_bandwidth: Fraction
    #: per direction, per GPU, between nodes
    network_bandwidth: Fraction
    gpus_per_node: int

    def __post_init__(self) -> None:
        for name in ("peak_flops", "memory_bandwidth", "link_bandwidth", "network_bandwidth"):
            _rate(name, getattr(self, name))
        if not isinstance(self.efficiency, Fraction) or not 0 < self.efficiency <= 1:
            raise ValueError(f"efficiency must be in (0, 1], got {self.efficiency!r}")
        require_positive_int("gpus_per_node", self.gpus_per_node)

    @property
    def compute_rate(self) -> Fraction:
        """FLOP/s a training kernel reaches: peak · efficiency."""
        return self.peak_flops * self.efficiency


def hardware(
    card: GpuCard,
    precision: TrainingPrecision,
    gpus_per_node: int,
    efficiency: Decimal | None = None,
) -> Hardware:
    """The card's figures for ``precision`` (``efficiency`` overrides the card's)."""
    perf = card.performance
    if perf is None:
        raise NoSpeedError(f"{card.name} has no speed figures")
    peak = perf.peak_tflops(precision)
    if peak is None:
        raise NoSpeedError(f"{card.name} cannot compute in {precision.value}")
    chosen = perf.efficiency if efficiency is None else efficiency
    return Hardware(
        peak_flops=Fraction(peak) * TERA,
        efficiency=Fraction(chosen),
        memory_bandwidth=Fraction(perf.memory_bandwidth_gbps) * GIGA,
        link_bandwidth=Fraction(perf.link_gbps) * GIGA,
        network_bandwidth=Fraction(perf.inter_node_gbps) * GIGA,
        gpus_per_node=gpus_per_node,
    )


@dataclass(frozen=True)
class Workload:
    """The training job, independent of the pair: model, sequence, layout, sharding."""

    cost: TokenCost
    seq_len: int
    layout: ParallelLayout = field(default_factory=ParallelLayout)
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: TrainingPrecision = TrainingPrecision.BF16
    #: hidden size and layers: the tensor- and pipeline-parallel traffic needs them
    hidden: int | None = None
    layers: int | None = None
    #: activation bytes one sample keeps for the whole model on one GPU (None: not counted)
    activation_bytes_per_sample: int | None = None
    #: ZeRO-Offload: the optimizer (and with ALL the parameters) in CPU memory
    offload: Offload = Offload.NONE
    #: bytes of one frozen base weight (QLoRA's 4-bit NF4: about half a byte; None:
    #: the training precision's)
    frozen_value_bytes: Fraction | None = None

    def __post_init__(self) -> None:
        require_positive_int("seq_len", self.seq_len)
        if (self.hidden is None) != (self.layers is None):
            raise ValueError("hidden and layers go together")

    @property
    def value_bytes(self) -> int:
        return VALUE_BYTES[self.precision]

    @property
    def params_per_gpu(self) -> Fraction:
        """Parameters one GPU computes with: N / (tp · pp)."""
        return Fraction(self.cost.params, self.layout.model_shards)

    @property
    def trained_per_gpu(self) -> Fraction:
        """Parameters one GPU trains: every one, or its share of the adapters."""
        trained = self.cost.trained
        if trained is None:
            return self.params_per_gpu
        return Fraction(trained, self.layout.model_shards)

    @property
    def weight_bytes_per_gpu(self) -> Fraction:
        """Bytes of the weights one GPU computes with (a frozen base at its own rate)."""
        if self.cost.trained is None:
            return self.params_per_gpu * self.value_bytes
        base = self.value_bytes if self.frozen_value_bytes is None else self.frozen_value_bytes
        return self.params_per_gpu * base + self.trained_per_gpu * self.value_bytes

    @property
    def counts_model_traffic(self) -> bool:
        """Whether tensor-/pipeline-parallel traffic is counted (it needs the shape)."""
        return self.hidden is not None or self.layout.model_shards == 1


@dataclass(frozen=True)
class StepTime:
    micro_batch: int
    accumulation_steps: int
    effective_batch: int
    tokens_per_step: int
    world: int
    #: one micro-step's FLOPs over peak · efficiency
    compute_seconds: Fraction
    #: one micro-step's bytes over the memory bandwidth
    memory_seconds: Fraction
    #: one micro-step with its exposed traffic (a pipeline slot)
    micro_step_seconds: Fraction
    #: exposed communication in one optimizer step
    communication_seconds: Fraction
    #: idle pipeline time in one optimizer step
    bubble_seconds: Fraction
    optimizer_seconds: Fraction
    step_seconds: Fraction
    model_flops_per_token: int
    hardware_flops_per_token: Fraction
    peak_flops: Fraction
    #: the micro-step's busy time came from a measured speed profile
    measured: bool = False

    @property
    def memory_bound(self) -> bool:
        """The roofline's verdict (never said of a measured micro-step)."""
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
        on one device, used for a micro-step in place of the roofline (divided by
        ``tp · pp``: each GPU of a replica does that share of the work)."""
        self.workload = workload
        self.hardware = hw
        self.profile = profile
        layout = workload.layout
        cost = workload.cost
        nbytes = workload.value_bytes
        shards = layout.model_shards
        seq = workload.seq_len

        # roofline of one micro-step on one GPU, per sample and fixed
        self._compute_per_sample = cost.hardware * seq / shards / hw.compute_rate
        weight_bytes = workload.weight_bytes_per_gpu
        trained_bytes = workload.trained_per_gpu * nbytes
        # weights read twice, gradient buffer read and written
        self._memory_fixed = (2 * weight_bytes + 2 * trained_bytes) / hw.memory_bandwidth
        self._memory_per_sample = Fraction(0)
        if workload.activation_bytes_per_sample is not None:
            activation = Fraction(workload.activation_bytes_per_sample, shards)
            self._memory_per_sample = 2 * activation / hw.memory_bandwidth

        # communication
        one_node = layout.world <= hw.gpus_per_node
        dp_bandwidth = hw.link_bandwidth if one_node else hw.network_bandwidth
        self._data_parallel = data_parallel(
            workload.zero_stage,
            math.ceil(weight_bytes),
            layout.data,
            dp_bandwidth,
            one_node,
            None if workload.cost.trained is None else math.ceil(trained_bytes),
        )
        self._dp_micro = _seconds(self._data_parallel, When.MICRO_STEP)
        self._grad_step = _seconds(self._data_parallel, When.OPTIMIZER_STEP, What.GRADIENTS)
        self._gather_step = _seconds(self._data_parallel, When.OPTIMIZER_STEP, What.WEIGHTS)
        self._model_traffic_per_sample = _seconds(self.model_collectives(1), When.MICRO_STEP)
        self._backward_share = BACKWARD_SHARE[cost.recompute]

        # optimizer
        updated = workload.trained_per_gpu
        if workload.zero_stage is not ZeroStage.NONE:
            updated /= layout.data
        self._optimizer = updated * OPTIMIZER_BYTES[workload.precision] / hw.memory_bandwidth
        if workload.offload is not Offload.NONE:
            # ZeRO-Offload: the shard's gradients go down to the host and its updated
            # weights come back over PCIe; the CPU optimizer runs at the node's memory
            # bandwidth shared by its GPUs (Ren et al. 2021, ZeRO-Offload)
            host_memory = Fraction(HOST_MEMORY_BYTES_PER_SECOND, hw.gpus_per_node)
            self._optimizer = (
                updated * 2 * nbytes / HOST_LINK_BYTES_PER_SECOND
                + updated * OPTIMIZER_BYTES[workload.precision] / host_memory
            )
        if workload.offload is Offload.ALL:
            # ZeRO-Infinity: the forward and the backward fetch the GPU's shard of the
            # weights from the host on every micro-step (hidden behind compute if it can)
            self._dp_micro += 2 * weight_bytes / layout.data / HOST_LINK_BYTES_PER_SECOND

    def model_collectives(self, micro_batch: int) -> tuple[Collective, ...]:
        """The tensor-parallel all-reduces and pipeline sends of one micro-step (none
        without the model's shape)."""
        w, hw = self.workload, self.hardware
        if w.hidden is None or w.layers is None:
            return ()
        tp, pp = w.layout.tensor, w.layout.pipeline
        activation = micro_batch * w.seq_len * w.hidden * w.value_bytes
        tp_inside = w.layout.fits_in_node(hw.gpus_per_node)
        stage_inside = hw.gpus_per_node % (tp * pp) == 0
        return tensor_parallel(
            math.ceil(Fraction(w.layers, pp)),
            activation,
            tp,
            hw.link_bandwidth if tp_inside else hw.network_bandwidth,
            tp_inside,
            w.cost.recompute is Recompute.FULL,
        ) + pipeline(
            pp,
            Fraction(activation, tp),
            hw.link_bandwidth if stage_inside else hw.network_bandwidth,
            stage_inside,
        )

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
        pp, dp = w.layout.pipeline, w.layout.data
        compute = b * self._compute_per_sample
        memory = self._memory_fixed + b * self._memory_per_sample
        busy = compute if compute >= memory else memory
        if self.profile is not None:
            busy = self.profile.micro_step_seconds(b) / w.layout.model_shards
        exposed_micro = b * self._model_traffic_per_sample
        if self._dp_micro > busy:  # per-micro-step collectives overlap the compute
            exposed_micro += self._dp_micro - busy
        micro_step = busy + exposed_micro
        exposed_step = self._gather_step
        hidden_by_backward = busy * self._backward_share
        if self._grad_step > hidden_by_backward:
            exposed_step += self._grad_step - hidden_by_backward
        step = (a + pp - 1) * micro_step + exposed_step + self._optimizer
        return StepTime(
            micro_batch=b,
            accumulation_steps=a,
            effective_batch=b * a * dp,
            tokens_per_step=b * a * dp * w.seq_len,
            world=w.layout.world,
            compute_seconds=compute,
            memory_seconds=memory,
            micro_step_seconds=micro_step,
            communication_seconds=a * exposed_micro + exposed_step,
            bubble_seconds=(pp - 1) * micro_step,
            optimizer_seconds=self._optimizer,
            step_seconds=step,
            model_flops_per_token=w.cost.model,
            hardware_flops_per_token=w.cost.hardware,
            peak_flops=self.hardware.peak_flops,
            measured=self.profile is not None,
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
) -> RunTotals:
    """Steps, wall-clock time, GPU-hours and cost of a run of ``tokens`` (the last step
    may be partial and is counted whole) or of ``steps`` optimizer steps."""
    if (tokens is None) == (steps is None):
        raise ValueError("give tokens or steps")
    if tokens is not None:
        require_positive_int("tokens", tokens)
        steps = -(-tokens // step.tokens_per_step)
    assert steps is not None
    require_positive_int("steps", steps)
    require_price(price_per_gpu_hour)
    seconds = steps * step.step_seconds
    gpu_hours = seconds * step.world / SECONDS_PER_HOUR
    cost = None if price_per_gpu_hour is None else gpu_hours * Fraction(price_per_gpu_hour)
    return RunTotals(steps, seconds, gpu_hours, cost)


def fastest(times: list[StepTime] | tuple[StepTime, ...]) -> StepTime | None:
    """The pair with the most tokens per second (ties: the larger micro-batch)."""
    if not times:
        return None
    return max(times, key=lambda t: (t.tokens_per_second, t.micro_batch))
