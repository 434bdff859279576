"""Time of one optimizer step for a (micro-batch, accumulation) pair, and of a whole run.

Pure Python, exact (``Fraction`` seconds; round only to show). A step is

    (a + (p − 1)/v) · micro-step + exposed once-per-step communication + optimizer step

* **One micro-step** on one GPU runs its kernels one after another
  (:mod:`gradacc_desktop.core.time.kernels`): the matrix products at the share of the peak
  their width and token count reach (never faster than reading the weights), the flash
  attention at its own share, the element-wise work at the memory bandwidth, and the
  launch gaps of each layer. A typed efficiency replaces that model with one share of
  the peak (a roofline: FLOPs over ``peak · efficiency`` or the bytes over the memory
  bandwidth, whichever is slower), and a measured speed profile replaces both.
  Tensor-parallel all-reduces, pipeline sends and MoE all-to-alls are added (they sit on
  the critical path); context parallelism's ring attention passes keys and values
  around the group behind the attention of the blocks already received, and only what
  exceeds that attention shows; data-parallel collectives that run on every micro-step (ZeRO-2's
  reduce-scatter, ZeRO-3's gathers) are prefetched one layer ahead and hide behind the
  compute of the phase they belong to only as far as it lasts.
* **Pipeline**: ``a`` micro-batches flow through ``p`` stages with the 1F1B schedule,
  interleaved over ``v`` virtual stages per GPU; the bubble is ``(p − 1)/v``
  micro-step times.
* **Once per step**: the gradient reduction of DDP/ZeRO-1 overlaps the last micro-step's
  backward (bucketed, as DDP does), the weight all-gather of ZeRO-1/2 does not, and
  the optimizer (Adam) reads and writes its states once — memory-bound.

Collectives run at ``BUS_EFFICIENCY`` of the link's rate. See
:mod:`gradacc_desktop.core.time.communication` for which collectives run when, and
:mod:`gradacc_desktop.core.time.layout` for the layout and the bubble.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..limits import require_positive_int
from ..memory.setup import Offload
from ..memory.zero import ZeroStage
from .communication import (
    Collective,
    Kind,
    What,
    When,
    all_to_all,
    data_parallel,
    pipeline,
    ring_attention,
    tensor_parallel,
)
from .compute import attention_factor, dense_factor
from .hardware import Hardware
from .profile import SpeedProfile
from .step_results import StepTime, TimeParts
from .workload import Workload, optimizer_bytes

#: what ZeRO-Offload moves between a GPU and its host, per direction: PCIe 4.0 x16
HOST_LINK_BYTES_PER_SECOND = 25 * 10**9
#: a node's CPU memory bandwidth, shared by its GPUs' CPU optimizers (a two-socket server)
HOST_MEMORY_BYTES_PER_SECOND = 100 * 10**9

#: the share of a link's rate NCCL's collectives reach on large messages (its "bus
#: bandwidth", nccl-tests/doc/PERFORMANCE.md; 230–240 of 300 GB/s on DGX A100's NVLink)
BUS_EFFICIENCY = Fraction(8, 10)

ZERO = Fraction(0)


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
        ``tp · pp · cp``: each GPU of a replica does that share of the work)."""
        self.workload = workload
        self.hardware = hw
        self.profile = profile
        layout = workload.layout
        cost = workload.cost
        nbytes = workload.value_bytes
        shards = layout.model_shards
        seq = workload.seq_len
        # context parallelism: each GPU runs s/cp tokens of every sequence through its
        # layers (dense FLOPs and element-wise work divide by cp) and, with Megatron's
        # load-balanced causal split (chunks r and 2cp − 1 − r), 1/cp of the attention
        cp = layout.context
        tokens = Fraction(seq, cp)
        # the work done again, over the work without recomputation: the layers' products,
        # element-wise work and kernel launches with full recomputation (passes over each
        # layer: 4 forward units, not 3), the attention core with selective too
        passes = dense_factor(cost.recompute)
        attention_passes = attention_factor(cost.recompute)
        stage_layers = None if workload.layers is None else Fraction(workload.layers, shards)
        self._layers = (
            None if workload.layers is None else max(1, workload.layers // layout.pipeline)
        )

        weight_bytes = workload.weight_bytes_per_gpu
        trained_bytes = workload.trained_per_gpu * nbytes
        # weights read by the forward and the backward, gradient buffer read and written
        weights = (2 * weight_bytes + 2 * trained_bytes) / hw.memory_bandwidth
        dense = cost.dense * passes * tokens / shards  # per sample, FLOPs
        attention = cost.attention * attention_passes * tokens / shards
        if hw.kernels is None:  # a typed efficiency: a roofline
            assert hw.efficiency is not None
            rate = hw.peak_flops * hw.efficiency
            activation = Fraction(0)
            if workload.activation_bytes_per_sample is not None:
                activation = Fraction(workload.activation_bytes_per_sample, shards * cp)
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
                values = k.elementwise_values * workload.hidden * tokens * stage_layers * passes
                memory = values * nbytes / layout.tensor / hw.memory_bandwidth
                # the loss: fp32 logits of the vocabulary, on the last stage
                if workload.vocab is not None:
                    logits = k.logit_values * 4 * workload.vocab * tokens / layout.tensor
                    memory += logits / hw.memory_bandwidth
                overhead = k.layer_seconds * passes * math.ceil(stage_layers * layout.tensor)
            if workload.flash_attention:
                # each GPU's kernels run on its s/cp-token blocks
                share = k.attention_share(max(1, seq // cp))
                attention_time = attention / (attention_peak * share)
            else:  # two batched products, and the scores through memory
                attention_time = attention / rate
                if workload.heads is not None and stage_layers is not None:
                    scores = Fraction(workload.heads, layout.tensor) * seq * tokens
                    traffic = k.score_values * nbytes * scores * stage_layers * attention_passes
                    attention_time += traffic / hw.memory_bandwidth
            self._busy = _Busy(
                matmul=(per_sample * k.tokens_half / tokens, per_sample),
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
        # the gradients are reduced (and ZeRO partitions) over dp · cp ranks: each
        # context-parallel GPU holds the same weights (megatron-core's data-parallel
        # group "with context parallel")
        ranks = layout.gradient_ranks
        expert_weights = workload.expert_weight_bytes_per_gpu if ep > 1 else Fraction(0)
        expert_trained = workload.expert_trained_per_gpu * nbytes if ep > 1 else Fraction(0)
        # the dense weights over every replica; with expert parallelism each GPU's
        # experts over the dp/EP replicas that hold the same ones (DeepSpeed-MoE's
        # expert data-parallel group, Megatron's expert_data_parallel_size)
        self._data_parallel = data_parallel(
            workload.zero_stage,
            math.ceil(weight_bytes - expert_weights),
            ranks,
            dp_bandwidth,
            one_node,
            math.ceil(trained_bytes - expert_trained) if adapters else None,
        )
        if ep > 1:
            self._data_parallel += data_parallel(
                workload.zero_stage,
                math.ceil(expert_weights),
                ranks // ep,
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
        # ring attention's sends are point-to-point too: they hide behind the attention
        self._ring_per_sample = _seconds(model, When.MICRO_STEP, What.KEYS_VALUES)
        self._pipeline_per_sample -= self._ring_per_sample
        self._model_per_sample = (
            self._tensor_per_sample + self._pipeline_per_sample + self._experts_per_sample
        )
        # the backward's share of a micro-step's FLOPs: everything but the forward (a third
        # of the model FLOPs): 4 of 6 (N) without recomputation, 6 of 8 with full
        # recomputation (the repeated forward runs inside the backward)
        self._backward_share = 1 - Fraction(cost.model, 3) / cost.hardware
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
        """The tensor-parallel all-reduces, pipeline sends, expert all-to-alls and ring
        attention sends of one micro-step (none without the model's shape)."""
        w, hw = self.workload, self.hardware
        if w.hidden is None or w.layers is None:
            return ()
        layout = w.layout
        tp, pp, cp = layout.tensor, layout.pipeline, layout.context
        # a GPU's tokens: s/cp of each sequence with context parallelism
        activation = Fraction(micro_batch * w.seq_len * w.hidden * w.value_bytes, cp)
        tp_inside = layout.fits_in_node(hw.gpus_per_node)
        stage_inside = hw.gpus_per_node % (tp * cp * pp) == 0
        link = hw.link_bandwidth * BUS_EFFICIENCY
        network = hw.network_bandwidth * BUS_EFFICIENCY
        found = tensor_parallel(
            math.ceil(Fraction(w.layers, pp)),
            activation,
            tp,
            link if tp_inside else network,
            tp_inside,
            w.cost.recompute.repeats_layers,
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
                w.cost.recompute.repeats_layers,
            )
        if cp > 1 and w.kv_width is not None:
            # megatron-core orders the ranks tp-cp-ep-dp-pp: the ring stays in a node
            # when tp · cp divides its GPUs
            inside = hw.gpus_per_node % (tp * cp) == 0
            block = Fraction(2 * micro_batch * w.seq_len * w.kv_width * w.value_bytes, cp * tp)
            found += ring_attention(
                math.ceil(Fraction(w.layers, pp)),
                block,
                cp,
                link if inside else network,
                inside,
                w.cost.recompute.repeats_attention,
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
        weights = self._busy.weights
        memory_total = memory + (products if products < weights else weights)
        if self._roofline:  # a typed efficiency: FLOPs or bytes, whichever is slower
            busy = compute if compute >= memory_total else memory_total
            memory = busy - compute
        else:
            busy = compute + memory
            if overhead:
                busy += overhead
        measured = ZERO
        if self.profile is not None:
            measured = self.profile.micro_step_seconds(b) / (layout.model_shards * layout.context)
            busy = measured
            products = attention = memory = overhead = ZERO
        contention = self._contention
        pieces = self._layers
        micro_step = busy
        if self._model_per_sample:  # tensor-parallel, pipeline and expert traffic
            micro_step += b * self._model_per_sample
        ring = ZERO
        if self._ring_per_sample:
            # ring attention: each send overlaps the attention of the block already
            # there; only what exceeds the attention's time shows
            ring = exposed(b * self._ring_per_sample, attention, None)
            micro_step += ring
        data_micro = ZERO
        backward = ZERO
        if self._gather_micro or self._reduce_micro or self._grad_step:
            backward = busy * self._backward_share
        if self._gather_micro or self._reduce_micro:
            data_micro = exposed(self._gather_micro / 2, busy - backward, pieces) + exposed(
                self._gather_micro / 2 + self._reduce_micro, backward, pieces
            )
            if contention:  # the hidden part slows the kernels beside it
                data_micro += contention * (self._gather_micro + self._reduce_micro - data_micro)
            micro_step += data_micro
        host = ZERO
        if self._host_fetch:
            host = exposed(self._host_fetch, busy, None)
            micro_step += host
        data_step = self._gather_step
        if self._grad_step:
            grad_step = exposed(self._grad_step, backward, pieces)
            data_step += grad_step + contention * (self._grad_step - grad_step)
        bubble = self._bubble_slots * micro_step if self._bubble_slots else ZERO
        step = a * micro_step + bubble + data_step + self._optimizer

        def explain() -> TimeParts:
            return TimeParts(
                matmul=products,
                attention=attention,
                memory=memory,
                overhead=overhead,
                measured=measured,
                tensor_parallel=b * self._tensor_per_sample,
                pipeline=b * self._pipeline_per_sample,
                expert_parallel=b * self._experts_per_sample,
                context_parallel=ring,
                data_parallel=data_micro,
                offload=host,
            )

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
            explain=explain,
            data_step_seconds=data_step,
        )


def step_time(
    workload: Workload, hw: Hardware, micro_batch: int, accumulation_steps: int
) -> StepTime:
    """Time of one optimizer step (see ``StepModel``; build one to time many pairs)."""
    return StepModel(workload, hw).time(micro_batch, accumulation_steps)
