"""Collective communication: which collectives a step runs, and how long each takes.

Pure Python, exact. Times follow the bus-bandwidth convention of NCCL's performance
notes (``nccl-tests/doc/PERFORMANCE.md``): on ``n`` ranks a ring all-reduce of ``S``
bytes moves ``2(n − 1)/n · S`` bytes through each rank's link, a reduce-scatter or an
all-gather ``(n − 1)/n · S``; the time is that volume over the per-direction bandwidth.

When gradients and weights travel (data parallelism, ``ψ`` = the bytes of one copy of
the weights or gradients a replica holds):

* **DDP with** ``no_sync`` (ZeRO-0): one all-reduce of the gradients per optimizer step,
  after the last micro-step's backward; the earlier micro-steps accumulate locally
  (PyTorch ``DistributedDataParallel.no_sync``). Accumulation amortises it.
* **ZeRO-1**: the gradients are reduce-scattered once per optimizer step and the updated
  weights all-gathered (Rajbhandari et al. 2020, section 7.2.1: 2ψ, as DDP).
* **ZeRO-2** (DeepSpeed; FSDP ``SHARD_GRAD_OP``): each rank keeps only its gradient
  partition, so gradients are reduce-scattered on *every* micro-step (DeepSpeed's
  ``engine.py``: "ZeRO stage >= 2 communicates during non gradient accumulation
  boundaries as well"; deepspeedai/DeepSpeed#2252); the weights are all-gathered once
  per optimizer step.
* **ZeRO-3 / FSDP** ``FULL_SHARD``: every micro-step all-gathers the weights for the
  forward, again for the backward, and reduce-scatters the gradients (section 7.2.2:
  3ψ per micro-step).

With expert parallelism the data-parallel collectives run twice: once for the dense
weights over every replica, once for the routed experts a GPU holds over the ``dp/EP``
replicas that hold the same ones (DeepSpeed-MoE's expert data-parallel group; the step
model calls ``data_parallel`` for each part).

Tensor parallelism (Megatron-LM, Shoeybi et al. 2019 section 3): two all-reduces of the
layer's output (``b·s·h`` values) in the forward and two in the backward of every layer,
two more when the forward is recomputed. Pipeline stages send one ``b·s·h`` activation
forward and its gradient back per micro-step (Narayanan et al. 2021 section 4.1).

Context parallelism (Megatron's ``--context-parallel-size`` with its default ``p2p``
``cp_comm_type``, Transformer Engine's ``AttnFuncWithCPAndKVP2P``; ring attention, Liu et
al. 2023): every layer passes each GPU's block of keys and values (``2 · b · s/cp ·
kv_heads · head_dim`` values, a tensor-parallel rank its ``1/tp`` of the heads) around
the ``cp`` GPUs of the group, ``cp − 1`` point-to-point sends in the forward; the
backward sends the keys and values again and their gradients (``2(cp − 1)`` sends), and
a recomputed forward sends them once more. The data-parallel collectives then run over
``dp · cp`` ranks: each context-parallel GPU holds the same weights and computes the
gradients of its share of the tokens (megatron-core's data-parallel group "with context
parallel").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from ..limits import require_positive_int
from ..memory.zero import ZeroStage


class CollectiveKind(enum.Enum):
    ALL_REDUCE = "all_reduce"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_GATHER = "all_gather"
    SEND_RECV = "send_recv"
    ALL_TO_ALL = "all_to_all"


class When(enum.Enum):
    MICRO_STEP = "micro_step"
    OPTIMIZER_STEP = "optimizer_step"


class What(enum.Enum):
    GRADIENTS = "gradients"
    WEIGHTS = "weights"
    ACTIVATIONS = "activations"
    #: ring attention's keys and values (and their gradients) with context parallelism
    KEYS_VALUES = "keys_values"


def volume_factor(kind: CollectiveKind, ranks: int) -> Fraction:
    """Bytes through each rank's link per byte of the buffer: 2(n−1)/n for an all-reduce,
    (n−1)/n for a reduce-scatter, an all-gather or an all-to-all (each rank keeps its own
    share and sends the rest), 1 for a point-to-point send."""
    require_positive_int("ranks", ranks)
    if kind is CollectiveKind.SEND_RECV:
        return Fraction(1)
    share = Fraction(ranks - 1, ranks)
    return 2 * share if kind is CollectiveKind.ALL_REDUCE else share


@dataclass(frozen=True)
class Collective:
    kind: CollectiveKind
    what: What
    when: When
    #: size of the whole buffer (bytes; a share of one may be fractional)
    size: int | Fraction
    ranks: int
    #: per-direction bandwidth of the slowest link in the group (bytes/s)
    bandwidth: Fraction
    #: how many times it runs at ``when``
    count: int = 1
    #: whether it runs inside one node
    intra_node: bool = True
    #: fixed time of each run (launch, synchronisation, the ring's first hop), seconds
    latency: Fraction = Fraction(0)

    @property
    def volume(self) -> Fraction:
        """Bytes each rank sends, all runs together."""
        return self.count * self.size * volume_factor(self.kind, self.ranks)

    @property
    def seconds(self) -> Fraction:
        if self.ranks == 1 and self.kind is not CollectiveKind.SEND_RECV:
            return Fraction(0)
        return self.count * self.latency + self.volume / self.bandwidth


def data_parallel(
    stage: ZeroStage,
    size: int,
    ranks: int,
    bandwidth: Fraction,
    intra_node: bool,
    trained: int | None = None,
    *,
    gradient_scale: Fraction = Fraction(1),
    latency: Fraction = Fraction(0),
) -> tuple[Collective, ...]:
    """The data-parallel collectives of one optimizer step for ``size`` bytes of weights
    on ``ranks`` replicas; none for one replica. ``trained``: the bytes of the weights
    that train (LoRA's adapters; None: all of them) — only their gradients are reduced
    and only they change, so ZeRO-1/2 gather only them back after the update; ZeRO-3
    still gathers every weight, frozen or not, on every micro-step. ``gradient_scale``:
    bytes of a gradient in transit over bytes of a weight (2 when 16-bit weights'
    gradients are reduced in fp32, as Megatron and FSDP do)."""
    if ranks == 1:
        return ()
    updated = size if trained is None else trained
    gradients = updated * gradient_scale

    def c(
        kind: CollectiveKind, what: What, when: When, nbytes: int | Fraction, count: int = 1
    ) -> Collective:
        return Collective(kind, what, when, nbytes, ranks, bandwidth, count, intra_node, latency)

    grad, weights = What.GRADIENTS, What.WEIGHTS
    micro, step = When.MICRO_STEP, When.OPTIMIZER_STEP
    if stage is ZeroStage.NONE:
        return (c(CollectiveKind.ALL_REDUCE, grad, step, gradients),)
    if stage is ZeroStage.OPTIMIZER:
        return (
            c(CollectiveKind.REDUCE_SCATTER, grad, step, gradients),
            c(CollectiveKind.ALL_GATHER, weights, step, updated),
        )
    if stage is ZeroStage.GRADIENTS:
        return (
            c(CollectiveKind.REDUCE_SCATTER, grad, micro, gradients),
            c(CollectiveKind.ALL_GATHER, weights, step, updated),
        )
    return (
        c(CollectiveKind.ALL_GATHER, weights, micro, size, 2),
        c(CollectiveKind.REDUCE_SCATTER, grad, micro, gradients),
    )


def tensor_parallel(
    layers: int,
    activation_size: int | Fraction,
    ranks: int,
    bandwidth: Fraction,
    intra_node: bool,
    recompute: bool,
    latency: Fraction = Fraction(0),
) -> tuple[Collective, ...]:
    """Megatron's per-micro-step all-reduces of ``activation_size`` bytes (``b·s·h``
    values) for ``layers`` layers on one stage: 4 per layer, 6 with recomputation."""
    if ranks == 1:
        return ()
    per_layer = 6 if recompute else 4
    return (
        Collective(
            CollectiveKind.ALL_REDUCE,
            What.ACTIVATIONS,
            When.MICRO_STEP,
            activation_size,
            ranks,
            bandwidth,
            per_layer * layers,
            intra_node,
            latency,
        ),
    )


def pipeline(
    stages: int,
    activation_size: int | Fraction,
    bandwidth: Fraction,
    intra_node: bool,
    virtual: int = 1,
    latency: Fraction = Fraction(0),
) -> tuple[Collective, ...]:
    """A stage's point-to-point traffic per micro-step: the activation forward and its
    gradient back (``activation_size`` bytes each; a tensor-parallel rank sends its
    share), once per model chunk: ``virtual`` times with interleaved 1F1B."""
    if stages == 1:
        return ()
    require_positive_int("virtual", virtual)
    return (
        Collective(
            CollectiveKind.SEND_RECV,
            What.ACTIVATIONS,
            When.MICRO_STEP,
            activation_size,
            2,
            bandwidth,
            2 * virtual,
            intra_node,
            latency,
        ),
    )


def all_to_all(
    layers: int,
    routed_size: int | Fraction,
    ranks: int,
    bandwidth: Fraction,
    intra_node: bool,
    recompute: bool,
    latency: Fraction = Fraction(0),
) -> tuple[Collective, ...]:
    """A mixture of experts' token exchange per micro-step on ``layers`` sparse layers
    of one stage: each layer sends its tokens' ``top_k`` copies (``routed_size`` bytes)
    to the experts' GPUs and gets them back, in the forward and again in the backward
    (GShard, Lepikhin et al. 2020; Megatron's ``--expert-model-parallel-size``): 4
    all-to-alls per layer, 6 with the forward recomputed."""
    if ranks == 1:
        return ()
    return (
        Collective(
            CollectiveKind.ALL_TO_ALL,
            What.ACTIVATIONS,
            When.MICRO_STEP,
            routed_size,
            ranks,
            bandwidth,
            (6 if recompute else 4) * layers,
            intra_node,
            latency,
        ),
    )


def spread_bandwidth(ranks: int, nodes: int, link: Fraction, network: Fraction) -> Fraction:
    """The bandwidth (bytes/s of ``volume_factor``'s bytes) of an all-to-all whose
    ``ranks`` GPUs lie evenly on ``nodes`` nodes: what each rank sends to its peers on
    other nodes, (k−1)/k of its tokens, goes over the ``network``; what it sends to the
    peers on its own node, (n/k − 1)/n, over the ``link`` at the same time (NCCL's
    all-to-all is one send and one receive per peer, all in flight together); the
    slower of the two sets the time. One node: the ``link``."""
    require_positive_int("ranks", ranks)
    require_positive_int("nodes", nodes)
    if nodes == 1:
        return link
    remote = Fraction(nodes - 1, nodes)
    local = Fraction(ranks // nodes - 1, ranks) if ranks > nodes else Fraction(0)
    seconds = max(remote / network, local / link)
    return volume_factor(CollectiveKind.ALL_TO_ALL, ranks) / seconds


def ring_attention(
    layers: int,
    block_size: int | Fraction,
    ranks: int,
    bandwidth: Fraction,
    intra_node: bool,
    recompute: bool,
    latency: Fraction = Fraction(0),
) -> tuple[Collective, ...]:
    """Context parallelism's ring attention per micro-step on ``layers`` layers of one
    stage: each layer sends its block of keys and values (``block_size`` bytes) to the
    next GPU of the ``ranks``-GPU ring ``ranks − 1`` times in the forward, and the keys
    and values again with their gradients in the backward (``2 · (ranks − 1)``); a
    recomputed forward sends them once more (Megatron's ``p2p`` ``cp_comm_type``). These
    sends overlap the attention of the blocks already received (the step model shows
    only what exceeds the attention's time)."""
    if ranks == 1:
        return ()
    passes = 4 if recompute else 3
    return (
        Collective(
            CollectiveKind.SEND_RECV,
            What.KEYS_VALUES,
            When.MICRO_STEP,
            block_size,
            ranks,
            bandwidth,
            passes * (ranks - 1) * layers,
            intra_node,
            latency,
        ),
    )


def seconds_at(
    collectives: tuple[Collective, ...], when: When, what: What | None = None
) -> Fraction:
    """The seconds of ``collectives`` that run at ``when`` (carrying ``what``: any)."""
    return sum(
        (c.seconds for c in collectives if c.when is when and (what is None or c.what is what)),
        Fraction(0),
    )


def seconds_by_kind(
    collectives: tuple[Collective, ...],
) -> dict[tuple[CollectiveKind, What], Fraction]:
    """The seconds of ``collectives`` summed by kind and what they carry."""
    sums: dict[tuple[CollectiveKind, What], Fraction] = {}
    for c in collectives:
        key = (c.kind, c.what)
        sums[key] = sums[key] + c.seconds if key in sums else c.seconds
    return sums


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
