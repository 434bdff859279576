"""Time of one optimizer step for a (micro-batch, accumulation) pair, and of a whole run.

Pure Python, exact (``Fraction`` seconds; round only to show). A step is

    a · t_max + (Σ t − t_max)/v + exposed once-per-step communication + optimizer
    + the framework's work per step

where ``t`` is one pipeline stage's micro-step (the last stage also runs the output
layer and the loss) and ``v`` the virtual stages: 1F1B takes ``a`` slots of the
slowest stage and the others' fill and drain once (with equal stages, ``(a + (p − 1)/v)
· t``).

* **One micro-step** on one GPU runs its kernels one after another
  (:mod:`gradacc_desktop.core.time.kernels`): the matrix products at the share of the peak
  their width and token count reach (never faster than reading the weights), a mixture
  of experts' grouped products at their own share, the flash attention at its share, the
  element-wise work and the token permutation at the memory bandwidth. Tensor-parallel
  all-reduces, pipeline sends and MoE all-to-alls are added (they sit on the critical
  path; each call pays a latency); context parallelism's ring attention passes keys and
  values around the group behind the attention of the blocks already received, and only
  what exceeds that attention shows. The host's work per layer is a floor: a micro-step
  never ends before the host has launched it. Data-parallel collectives that run on
  every micro-step (ZeRO-2's reduce-scatter, ZeRO-3's gathers) are prefetched one layer
  ahead and hide behind the compute of the phase they belong to only as far as it lasts.
  A typed efficiency replaces that model with one share of the peak (a roofline: FLOPs
  over ``peak · efficiency`` or the bytes over the memory bandwidth, whichever is
  slower), and a measured speed profile replaces both.
* **Once per step**: the gradient reduction and the weights' gather after the update
  overlap the last backward (and the pipeline's drain) and the next forward (and its
  fill) where the framework overlaps them (Megatron, FSDP, DeepSpeed's ZeRO-3), else
  they run in full view; the optimizer (Adam) reads and writes its states once —
  memory-bound; the framework's own work takes a fixed time.

Collectives run at ``BUS_EFFICIENCY`` of an NVLink's rate (the fitted PCIe share on
PCIe boxes). See :mod:`gradacc_desktop.core.time.communication` for which collectives
run when, and :mod:`gradacc_desktop.core.time.layout` for the layout.
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
    CollectiveKind,
    What,
    When,
    all_to_all,
    data_parallel,
    exposed,
    pipeline,
    ring_attention,
    seconds_at,
    seconds_by_kind,
    spread_bandwidth,
    tensor_parallel,
)
from .compute import attention_factor
from .exact import linear_in, nonzero_sum
from .hardware import Hardware
from .kernels import HOST_MEMORY_GBPS
from .profile import SpeedProfile
from .step_results import StepTime, TimeParts
from .workload import Workload, optimizer_bytes

#: what ZeRO-Offload moves between a GPU and its host, per direction: PCIe 4.0 x16
HOST_LINK_BYTES_PER_SECOND = 25 * 10**9

#: the share of a link's rate NCCL's collectives reach on large messages (its "bus
#: bandwidth", nccl-tests/doc/PERFORMANCE.md; 230–240 of 300 GB/s on DGX A100's NVLink)
BUS_EFFICIENCY = Fraction(8, 10)

ZERO = Fraction(0)


@dataclass(frozen=True)
class _Stage:
    """One pipeline stage's micro-step on one GPU: each term ``fixed + b · per_sample``
    (seconds), and the host's floor."""

    #: matrix products (the layers', and the output layer's on the last stage)
    matmul: tuple[Fraction, Fraction]
    #: a mixture of experts' grouped expert products
    expert_matmul: tuple[Fraction, Fraction]
    #: reading the weights (and gradients): a floor under the products
    weights: Fraction
    #: per sample
    attention: Fraction
    #: element-wise work and the loss's logits, per sample
    memory: Fraction
    #: a mixture of experts' token permutation, per sample
    permutation: Fraction
    #: host work per micro-step: the GPU never finishes a micro-step sooner
    host: Fraction
    #: layers whose collectives cut the data-parallel traffic in pieces
    layers: int | None


class StepModel:
    """One workload on one kind of GPU: what does not depend on the pair is computed
    once, so timing every candidate pair after a keystroke costs a few operations each.

    Everything that grows with the micro-batch grows linearly in it (FLOPs, activation
    bytes, tensor- and pipeline-parallel traffic); the weights, the collectives'
    latencies, the host's work per layer, the data-parallel collectives and the
    optimizer do not depend on it.

    The pipeline's stages differ: the last one also runs the output layer (the logits'
    products and the loss); a step takes ``a`` times the slowest stage's micro-step and
    the other stages' fill and drain once (``(Σ t − max t)/v``)."""

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
        tp, pp = layout.tensor, layout.pipeline
        # context parallelism: each GPU runs s/cp tokens of every sequence through its
        # layers (dense FLOPs and element-wise work divide by cp) and, with Megatron's
        # load-balanced causal split (chunks r and 2cp − 1 − r), 1/cp of the attention
        cp = layout.context
        tokens = Fraction(seq, cp)
        passes = cost.dense_passes
        elementwise = cost.elementwise_passes
        attention_passes = attention_factor(cost.recompute)
        stage_layers = None if workload.layers is None else Fraction(workload.layers, pp)
        self._layers = None if workload.layers is None else max(1, workload.layers // pp)
        k = hw.kernels
        self._k = k

        weight_bytes = workload.weight_bytes_per_gpu
        trained_bytes = workload.trained_per_gpu * nbytes
        # weights read by the forward and the backward, gradient buffer read and written
        weights = (2 * weight_bytes + 2 * trained_bytes) / hw.memory_bandwidth
        # the output layer's products run once (never recomputed) on the last stage
        head = workload.head_params
        head_dense = (6 if cost.trained is None else 4) * head
        layer_dense: Fraction = Fraction(cost.dense - head_dense)
        experts = workload.experts
        expert_dense = Fraction(0)
        if experts is not None and experts.params:
            expert_dense = (6 if cost.trained is None else 4) * experts.active_params
            layer_dense -= expert_dense
        # per sample, FLOPs on one GPU of a stage (its layers: 1/pp of them, split tp ways)
        layers_flops = layer_dense * passes * tokens / shards
        experts_flops = expert_dense * passes * tokens / shards
        head_flops = head_dense * tokens / tp
        attention = cost.attention * attention_passes * tokens / shards
        self._roofline = hw.kernels is None
        if k is None:  # a typed efficiency: a roofline
            assert hw.efficiency is not None
            rate = hw.peak_flops * hw.efficiency
            activation = Fraction(0)
            if workload.activation_bytes_per_sample is not None:
                activation = Fraction(workload.activation_bytes_per_sample, shards * cp)
            dense_time = (layers_flops + experts_flops) * pp / rate + head_flops / rate
            # one stage: the products of a replica's share, evenly (no output layer apart)
            self._stages: tuple[tuple[int, _Stage], ...] = (
                (
                    pp,
                    _Stage(
                        matmul=(Fraction(0), dense_time / pp),
                        expert_matmul=(Fraction(0), Fraction(0)),
                        weights=weights,
                        attention=attention / rate,
                        memory=2 * activation / hw.memory_bandwidth,
                        permutation=Fraction(0),
                        host=Fraction(0),
                        layers=self._layers,
                    ),
                ),
            )
        else:
            width = None if workload.hidden is None else workload.hidden // tp
            sixteen_bit = hw.attention_peak_flops or hw.peak_flops
            rate = sixteen_bit * k.matmul_share(width) * (k.fp8_gain if hw.fp8 else 1)
            per_sample = layers_flops / rate
            expert_per_sample = experts_flops / (rate * k.expert_matmul)
            memory = Fraction(0)
            permutation = Fraction(0)
            host = Fraction(0)
            logits = Fraction(0)
            if workload.hidden is not None and stage_layers is not None:
                # element-wise work: split by tp with sequence parallelism, else every
                # tensor-parallel rank repeats it on all of its tokens
                split = tp if workload.sequence_parallel else 1
                values = k.elementwise_values * workload.hidden * tokens * stage_layers
                values *= elementwise
                memory = values * nbytes / split / hw.memory_bandwidth
                # the loss: fp32 logits of the vocabulary, on the last stage
                if workload.vocab is not None:
                    logits = k.logit_values * 4 * workload.vocab * tokens / tp
                    logits /= hw.memory_bandwidth
                host = k.layer_seconds * elementwise * stage_layers
                if experts is not None:
                    sparse = Fraction(experts.layers, pp)
                    routed = experts.top_k * tokens * workload.hidden * nbytes / tp
                    permutation = k.permute_values * routed * sparse * elementwise
                    permutation /= hw.memory_bandwidth
            if workload.flash_attention:
                # each GPU's kernels run on its s/cp-token blocks
                share = k.attention_share(max(1, seq // cp), workload.flash_kernel)
                attention_time = attention / (sixteen_bit * share)
            else:  # two batched products, and the scores through memory
                attention_time = attention / rate
                if workload.heads is not None and stage_layers is not None:
                    scores = Fraction(workload.heads, tp) * seq * tokens
                    traffic = k.score_values * nbytes * scores * stage_layers * attention_passes
                    attention_time += traffic / hw.memory_bandwidth
            head_time = head_flops / rate

            def stage(last: bool) -> _Stage:
                products = per_sample + (head_time if last else 0)
                return _Stage(
                    matmul=(products * k.tokens_half / tokens, products),
                    expert_matmul=(
                        expert_per_sample * k.tokens_half / tokens,
                        expert_per_sample,
                    ),
                    weights=weights,
                    attention=attention_time,
                    memory=memory + (logits if last else 0),
                    permutation=permutation,
                    host=host,
                    layers=self._layers,
                )

            if pp == 1:
                self._stages = ((1, stage(True)),)
            else:
                self._stages = ((pp - 1, stage(False)), (1, stage(True)))

        # communication
        one_node = layout.world <= hw.gpus_per_node
        efficiency = BUS_EFFICIENCY if k is None or not hw.pcie else k.pcie_efficiency
        link_rate = hw.link_bandwidth * efficiency
        dp_bandwidth = link_rate if one_node else hw.network_bandwidth * BUS_EFFICIENCY
        self._link_rate = link_rate
        latency_intra = Fraction(0) if k is None else k.latency_intra
        latency_inter = Fraction(0) if k is None else k.latency_inter
        self._latency = (latency_intra, latency_inter)
        adapters = workload.cost.trained is not None
        # the experts' split over the dense weights' (EP; with Megatron's expert tensor
        # parallelism EP × its size / tp): 1 is the dense weights' own
        share = Fraction(1) if workload.experts is None else workload.experts.share
        # the gradients are reduced (and ZeRO partitions) over dp · cp ranks: each
        # context-parallel GPU holds the same weights (megatron-core's data-parallel
        # group "with context parallel")
        ranks = layout.gradient_ranks
        apart = share != 1
        expert_weights = workload.expert_weight_bytes_per_gpu if apart else Fraction(0)
        expert_trained = workload.expert_trained_per_gpu * nbytes if apart else Fraction(0)
        gradient_scale = workload.gradient_scale
        dp_latency = latency_intra if one_node else latency_inter
        # the dense weights over every replica; with expert parallelism each GPU's
        # experts over the replicas that hold the same ones, dp · cp / share of them
        # (DeepSpeed-MoE's expert data-parallel group, Megatron's
        # expert_data_parallel_size: tp · cp · dp / (EP · expert tp))
        self._data_parallel = data_parallel(
            workload.zero_stage,
            math.ceil(weight_bytes - expert_weights),
            ranks,
            dp_bandwidth,
            one_node,
            math.ceil(trained_bytes - expert_trained) if adapters else None,
            gradient_scale=gradient_scale,
            latency=dp_latency,
        )
        if apart:
            self._data_parallel += data_parallel(
                workload.zero_stage,
                math.ceil(expert_weights),
                max(1, math.floor(ranks / share)),
                dp_bandwidth,
                one_node,
                math.ceil(expert_trained) if adapters else None,
                gradient_scale=gradient_scale,
                latency=dp_latency,
            )
        micro = When.MICRO_STEP
        grads, gathers = What.GRADIENTS, What.WEIGHTS
        self._gather_micro = seconds_at(self._data_parallel, micro, gathers)
        self._reduce_micro = seconds_at(self._data_parallel, micro, grads)
        self._grad_step = seconds_at(self._data_parallel, When.OPTIMIZER_STEP, grads)
        self._gather_step = seconds_at(self._data_parallel, When.OPTIMIZER_STEP, gathers)
        self._overlap = workload.framework.overlaps_gradient_reduction(
            workload.zero_stage is ZeroStage.WEIGHTS
        )
        # each kind of collective's seconds at micro-batches 1 and 2: a line through them
        one = seconds_by_kind(self.model_collectives(1))
        two = seconds_by_kind(self.model_collectives(2))

        def linear(kind: CollectiveKind, what: What | None = None) -> tuple[Fraction, Fraction]:
            a, b = (
                nonzero_sum(v for (k, w), v in found.items() if k is kind and what in (None, w))
                for found in (one, two)
            )
            return 2 * a - b, b - a

        self._tensor = linear(CollectiveKind.ALL_REDUCE)
        self._experts_comm = linear(CollectiveKind.ALL_TO_ALL)
        self._ring = linear(CollectiveKind.SEND_RECV, What.KEYS_VALUES)
        self._pipeline = linear(CollectiveKind.SEND_RECV, What.ACTIVATIONS)
        # the kernel model's micro-step on the GPU, all its linear parts summed once per
        # stage: (fixed, per sample) of everything, and of the products alone (the
        # weights' floor); empty: the parts are added up one by one (``_slot``)
        Line = tuple[Fraction, Fraction]
        self._lines: tuple[tuple[Line, Line], ...] = ()
        # --tp-comm-overlap: the tensor-parallel traffic hides in the products it feeds
        self._tp_overlap = workload.tp_overlap
        if not self._roofline and profile is None:
            lines: tuple[Line, ...] = (self._pipeline, self._experts_comm)
            if not self._tp_overlap:
                lines += (self._tensor,)
            for _, st in self._stages:
                slopes = (st.memory, st.attention, st.permutation)
                every = (st.matmul, st.expert_matmul, *lines, (ZERO, nonzero_sum(slopes)))
                products = (st.matmul[0] + st.expert_matmul[0], st.matmul[1] + st.expert_matmul[1])
                summed = (nonzero_sum(c for c, _ in every), nonzero_sum(k for _, k in every))
                self._lines += ((summed, products),)
        # the backward's share of a micro-step's FLOPs: everything but the forward (a third
        # of the model FLOPs): 4 of 6 (N) without recomputation, 6 of 8 with full
        # recomputation (the repeated forward runs inside the backward)
        self._backward_share = 1 - Fraction(cost.model, 3) / cost.hardware
        self._contention = Fraction(0) if k is None else k.contention
        self._virtual = layout.virtual
        self._step_overhead = Fraction(0) if k is None else k.step_seconds

        # optimizer
        updated = workload.trained_per_gpu
        if workload.zero_stage is not ZeroStage.NONE:
            experts_trained = workload.expert_trained_per_gpu
            updated = workload.data_shard(updated - experts_trained, experts_trained)
        self._optimizer = (
            updated * optimizer_bytes(workload.precision, workload.master) / hw.memory_bandwidth
        )
        if workload.offload is not Offload.NONE:
            # ZeRO-Offload: the shard's gradients go down to the host and its updated
            # weights come back over PCIe; the CPU optimizer runs at the node's memory
            # bandwidth shared by its GPUs (Ren et al. 2021, ZeRO-Offload)
            # a node's CPU memory bandwidth: the fitted one, or a two-socket server's
            gbps = HOST_MEMORY_GBPS if k is None else k.host_memory_gbps
            host_memory = Fraction(gbps * 10**9, hw.gpus_per_node)
            self._optimizer = (
                updated * 2 * nbytes / HOST_LINK_BYTES_PER_SECOND
                + updated * optimizer_bytes(workload.precision, workload.master) / host_memory
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
        link = self._link_rate
        network = hw.network_bandwidth * BUS_EFFICIENCY
        intra, inter = self._latency
        found = tensor_parallel(
            math.ceil(Fraction(w.layers, pp)),
            activation,
            tp,
            link if tp_inside else network,
            tp_inside,
            w.cost.recompute.repeats_layers,
            intra if tp_inside else inter,
        ) + pipeline(
            pp,
            Fraction(activation, tp),
            link if stage_inside else network,
            stage_inside,
            layout.virtual,
            intra if stage_inside else inter,
        )
        if w.experts is not None and w.experts.parallel > 1:
            e = w.experts
            # a group of EP · expert tp consecutive ranks (EP · tp by default)
            inside = hw.gpus_per_node % (e.share * tp) == 0
            nodes = 1 if inside else max(2, math.ceil(e.share * tp / hw.gpus_per_node))
            found += all_to_all(
                math.ceil(Fraction(e.layers, pp)),
                Fraction(activation * e.top_k, tp),
                e.parallel,
                spread_bandwidth(e.parallel, min(nodes, e.parallel), link, network),
                inside,
                w.cost.recompute.repeats_layers,
                intra if inside else inter,
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
                intra if inside else inter,
            )
        return found

    def collectives(self, micro_batch: int) -> tuple[Collective, ...]:
        """Every collective of one optimizer step with this micro-batch."""
        return self._data_parallel + self.model_collectives(micro_batch)

    def _slot(self, stage: _Stage, b: int) -> dict[str, Fraction]:
        """One stage's micro-step with ``b`` samples: its parts (``PART_NAMES`` but the
        step's own bubble, optimizer and framework). (Zero terms are skipped, not added:
        exact fractions cost a gcd per operation, and a planner refresh takes hundreds of
        slots.)"""
        products = linear_in(stage.matmul, b)
        experts = linear_in(stage.expert_matmul, b)
        memory = b * stage.memory if stage.memory else ZERO
        attention = b * stage.attention if stage.attention else ZERO
        permutation = b * stage.permutation if stage.permutation else ZERO
        computed = products + experts if experts else products
        if stage.weights > computed:  # reading the weights is slower
            memory += stage.weights - computed
        measured = ZERO
        if self._roofline:  # a typed efficiency: FLOPs or bytes, whichever is slower
            compute = products + experts + attention
            traffic = b * stage.memory + stage.weights
            busy = compute if compute >= traffic else traffic
            memory = busy - compute
        else:
            busy = nonzero_sum((products, experts, attention, memory, permutation))
        if self.profile is not None:
            layout = self.workload.layout
            measured = self.profile.micro_step_seconds(b) / (layout.model_shards * layout.context)
            busy = measured
            products = experts = attention = memory = permutation = ZERO
        tensor = linear_in(self._tensor, b)
        if self._tp_overlap:
            tensor = exposed(tensor, products, None)
        pipeline = linear_in(self._pipeline, b)
        experts_comm = linear_in(self._experts_comm, b)
        gpu = nonzero_sum((busy, tensor, pipeline, experts_comm))
        ring = ZERO
        if self._ring[1]:
            # ring attention: each send overlaps the attention of the block already
            # there; only what exceeds the attention's time shows
            ring = exposed(self._ring[0] + b * self._ring[1], attention, None)
            gpu += ring
        overhead = ZERO
        if self.profile is None and stage.host > gpu:  # the GPU waits for the host
            overhead = stage.host - gpu
        data_micro, host = self._beside(gpu + overhead, stage.layers)
        return {
            "matmul": products,
            "expert_matmul": experts,
            "attention": attention,
            "memory": memory,
            "permutation": permutation,
            "overhead": overhead,
            "measured": measured,
            "tensor_parallel": tensor,
            "pipeline": pipeline,
            "expert_parallel": experts_comm,
            "context_parallel": ring,
            "data_parallel": data_micro,
            "offload": host,
        }

    def _beside(self, micro_step: Fraction, layers: int | None) -> tuple[Fraction, Fraction]:
        """What shows of a micro-step's data-parallel traffic and of ZeRO-Infinity's
        fetch from the host, beside a micro-step of ``micro_step`` seconds."""
        data_micro = ZERO
        if self._gather_micro or self._reduce_micro:
            backward = micro_step * self._backward_share
            data_micro = exposed(self._gather_micro / 2, micro_step - backward, layers) + exposed(
                self._gather_micro / 2 + self._reduce_micro, backward, layers
            )
            if self._contention:  # the hidden part slows the kernels beside it
                hidden = self._gather_micro + self._reduce_micro - data_micro
                data_micro += self._contention * hidden
        host = ZERO
        if self._host_fetch:
            host = exposed(self._host_fetch, micro_step, None)
        return data_micro, host

    def _slot_seconds(self, index: int, b: int) -> Fraction:
        """The sum of ``_slot``'s parts of stage ``index``, from the summed lines (the
        same exact sum, a few operations instead of one per part)."""
        stage = self._stages[index][1]
        if not self._lines:
            return nonzero_sum(self._slot(stage, b).values())
        line, products = self._lines[index]
        gpu = linear_in(line, b)
        floor = stage.weights - linear_in(products, b)
        if floor > 0:  # reading the weights is slower than the products
            gpu += floor
        if self._ring[1]:
            ring = exposed(self._ring[0] + b * self._ring[1], b * stage.attention, None)
            gpu += ring
        if self._tp_overlap:
            gpu += exposed(linear_in(self._tensor, b), linear_in(stage.matmul, b), None)
        micro_step = gpu if stage.host <= gpu else stage.host
        return nonzero_sum((micro_step, *self._beside(micro_step, stage.layers)))

    def time(self, micro_batch: int, accumulation_steps: int) -> StepTime:
        """Time of one optimizer step with ``micro_batch`` samples per GPU and
        ``accumulation_steps`` micro-batches (the pipeline's ``m``)."""
        require_positive_int("micro_batch", micro_batch)
        require_positive_int("accumulation_steps", accumulation_steps)
        w = self.workload
        b, a = micro_batch, accumulation_steps
        layout = w.layout
        dp = layout.data
        slowest: _Stage | None = None
        slowest_time = ZERO
        total = ZERO
        stages: list[Fraction] = []
        for index, (count, stage) in enumerate(self._stages):
            seconds = self._slot_seconds(index, b)
            stages += [seconds] * count
            total = nonzero_sum((total, count * seconds if count > 1 else seconds))
            if slowest is None or seconds > slowest_time:
                slowest, slowest_time = stage, seconds
        assert slowest is not None
        micro_step = slowest_time
        # 1F1B: a slots of the slowest stage, the others' fill and drain once (over v
        # virtual stages interleaved)
        bubble = ZERO if len(stages) == 1 else (total - micro_step) / self._virtual
        data_step = ZERO
        if self._grad_step or self._gather_step:
            backward = micro_step * self._backward_share
            for seconds, window in (
                # the gradients bucket by bucket beside the last micro-batch's backward
                # and the pipeline's drain (half the bubble); the updated weights beside
                # the next step's first forward and the pipeline's fill (the other half):
                # Megatron's --overlap-grad-reduce and --overlap-param-gather, FSDP's
                # prefetching
                (self._grad_step, backward + bubble / 2),
                (self._gather_step, micro_step - backward + bubble / 2),
            ):
                if not seconds:
                    continue
                if self._overlap:
                    shown = exposed(seconds, window, self._layers)
                    data_step += shown + self._contention * (seconds - shown)
                else:
                    data_step += seconds
        fixed = (self._optimizer, self._step_overhead)
        step = nonzero_sum((a * micro_step, bubble, data_step, *fixed))
        slowest_stage = slowest

        def explain() -> TimeParts:
            return TimeParts(**self._slot(slowest_stage, b))

        return StepTime(
            micro_batch=b,
            accumulation_steps=a,
            effective_batch=b * a * dp,
            tokens_per_step=b * a * dp * w.seq_len,
            world=layout.world,
            weight_seconds=self._stages[-1][1].weights,
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
            framework_seconds=self._step_overhead,
            stage_seconds=tuple(stages),
        )
