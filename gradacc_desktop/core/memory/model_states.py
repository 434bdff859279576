"""Model-state memory as DeepSpeed computes it: bytes per GPU and per node's CPU.

The figures equal DeepSpeed's own estimators (deepspeed 0.19.8,
``deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs`` and
``deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs``, with their
defaults ``additional_buffer_factor=1.5`` and ``zero_init=True``), evaluated in exact
arithmetic and rounded down to whole bytes as DeepSpeed's ``int()`` does. With ``P``
parameters, ``L`` in the largest layer, ``N`` GPUs in all, ``n`` nodes of ``m`` GPUs:

============  ======================  ==================================
ZeRO          GPU bytes (each)        CPU bytes (each node)
============  ======================  ==================================
2             2P + 18P/N              1.5 · 4P · m
2 + offload   2P                      1.5 · P · max(4N, 16)
3             4L + 18P/N              1.5 · 4L · m
3 + opt. off  4L + 2P/N               1.5 · 16P/n
3 + all off   4L                      1.5 · 18P/n
============  ======================  ==================================

18 = 2 (16-bit gradients) + 4 (fp32 gradients) + 4 (fp32 master weights) + 8 (Adam's
momentum and variance); 4L holds the largest layer's gathered 16-bit weights and
gradients. ZeRO stages 0 and 1 are not covered by DeepSpeed's estimators; they follow
the ZeRO paper (Rajbhandari et al. 2020, §5.1) with the fp32 gradients counted the
same way: 20P (stage 0) and 2P + 2P + 16P/N (stage 1: only the optimizer side is
partitioned), CPU as for stage 2. With offload at stage 1 the 16-bit weights and
gradients stay whole on each GPU (4P).

fp32 training (no 16-bit copies) is not what the estimators assume; the same layout
is used with 4-byte weights and gradients, no master copy and no separate fp32
gradient: stage 0 16P, stage 1 8P + 8P/N, stage 2 4P + 12P/N, stage 3 8L + 16P/N.

A 16-bit training whose master copy is not fp32 (``MasterWeights``) keeps the same
layout with other bytes: a bf16 master copy (DeepSpeed's
``bf16_master_weights_and_grads`` with ``bf16_optimizer_states``) has 2-byte master
weights and gradients and Adam's moments in 4 bytes, 18 becoming 10 (the 12 bytes per
parameter DeepSpeedExamples' bf16_master_weight README counts beside the 16-bit
weights); pure bf16 has no master copy and no second gradient, 18 becoming 6.

Expert parallelism (DeepSpeed-MoE's ``ep_size``, Megatron's
``--expert-model-parallel-size``) spreads a mixture of experts' ``E`` routed-expert
parameters over ``EP`` GPUs of the data-parallel group: a GPU holds the dense ``P − E``
and ``E/EP`` of the experts, and ZeRO partitions each part over its own replicas — the
dense part over the ``N`` data-parallel GPUs, the experts over the ``N/EP`` that hold the
same ones (DeepSpeed's expert data-parallel group). A partition is then
``(P − E)/N + (E/EP)/(N/EP) = P/N`` as before; what a GPU holds whole (the weights below
ZeRO-3, the gradients below ZeRO-2, everything at stage 0, each process's fp32 model on
the CPU) counts ``P − E + E/EP``, and ZeRO-3's largest layer is the caller's (the fused
experts shrink by ``EP``). With ``EP = 1`` every figure is DeepSpeed's.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction

from ..limits import whole
from ..precision import MasterWeights, bf16_master, sixteen_bit_state_bytes
from ..text import trans_late
from .setup import Offload, Precision
from .zero import ZeroStage

__all__ = [
    "BUFFER_FACTOR",
    "Component",
    "ModelStates",
    "StatePart",
    "model_states",
]

# DeepSpeed's additional_buffer_factor default: CPU memory is padded by half.
BUFFER_FACTOR = Fraction(3, 2)
LARGEST_LAYER_LIMITS = whole(0, 10**13)

SOURCE_DEEPSPEED = trans_late(
    "ModelStates",
    "DeepSpeed's estimate_zero{stage}_model_states_mem_needs (deepspeed 0.19.8)",
)
SOURCE_PAPER = trans_late(
    "ModelStates",
    "ZeRO paper (Rajbhandari et al. 2020, §5.1), fp32 gradients counted as DeepSpeed does",
)
SOURCE_FP32 = trans_late(
    "ModelStates",
    "DeepSpeed's estimator layout with fp32 weights and gradients and no master copy",
)
SOURCE_BF16_MASTER = trans_late(
    "ModelStates",
    "DeepSpeed's estimator layout with a bf16 master copy, bf16 gradients for it and bf16 "
    "optimizer states (bf16_master_weights_and_grads, bf16_optimizer_states)",
)
SOURCE_PURE_BF16 = trans_late(
    "ModelStates",
    "DeepSpeed's estimator layout in pure bf16: the optimizer updates the bf16 weights and "
    "keeps its states in bf16 (no master copy)",
)


class StatePart(enum.Enum):
    WEIGHTS = "weights"  # the training copy (16-bit, or fp32 in fp32 training)
    GRADIENTS = "gradients"  # the training copy's gradients
    FP32_GRADIENTS = "fp32_gradients"  # mixed precision: the optimizer's fp32 gradients
    MASTER_WEIGHTS = "master_weights"  # mixed precision: fp32 master copy
    OPTIMIZER_STATES = "optimizer_states"  # Adam's momentum and variance (fp32)
    LARGEST_LAYER = "largest_layer"  # ZeRO-3: one layer's gathered weights and gradients
    CPU_MODEL = "cpu_model"  # each process's fp32 model while it is loaded (CPU)
    CPU_OFFLOAD = "cpu_offload"  # offloaded optimizer (and parameters) (CPU)
    CPU_BUFFER = "cpu_buffer"  # DeepSpeed's 1.5x buffer on the CPU figures


@dataclass(frozen=True)
class Component:
    part: StatePart
    # "gpu" (bytes on each GPU) or "cpu" (bytes on each node)
    where: str
    # bytes, exact (a sharded share can be a fraction of a byte)
    bytes: Fraction


@dataclass(frozen=True)
class ModelStates:
    parameters: int
    largest_layer: int
    trainable: int
    optimizer_state_bytes: int
    gpus: int
    nodes: int
    zero_stage: ZeroStage
    precision: Precision
    offload: Offload
    # bytes per GPU and per node, rounded down to whole bytes as DeepSpeed does
    gpu_bytes: int
    cpu_bytes: int
    components: tuple[Component, ...]
    # English, marked for translation in context "ModelStates" (``{stage}`` filled)
    source: str
    # the figures are DeepSpeed's own estimators' (ZeRO-2/3, 16-bit training)
    from_deepspeed: bool
    # GPUs one replica spans (tensor parallel x pipeline stages); the counts are a shard's
    model_parallel: int = 1
    # the routed experts among ``parameters`` and how many times further than the shard
    # they are spread (the expert-parallel GPUs; a fraction with expert tensor parallelism)
    experts: int = 0
    expert_parallel: int | Fraction = 1
    # GPUs each sequence is split over: ZeRO partitions over ``gpus · context_parallel``
    context_parallel: int = 1
    # what a 16-bit training's optimizer updates (fp32 training: FP32)
    master: MasterWeights = MasterWeights.FP32


def _bytes(
    precision: Precision, states: int, master: MasterWeights
) -> tuple[int, int, int, int, int]:
    """weights, gradients, master gradients, master weights, optimizer states per param."""
    if precision is Precision.FP32:
        return 4, 4, 0, 0, states
    if master is MasterWeights.BF16:
        return 2, 2, 2, 2, sixteen_bit_state_bytes(states)
    if master is MasterWeights.NONE:
        return 2, 2, 0, 0, sixteen_bit_state_bytes(states)
    return 2, 2, 4, 4, states


def model_states(
    parameters: int,
    gpus: int,
    zero_stage: ZeroStage,
    offload: Offload = Offload.NONE,
    precision: Precision = Precision.BF16,
    nodes: int = 1,
    largest_layer: int = 0,
    optimizer_state_bytes: int = 8,
    trainable: int | None = None,
    frozen_weight_bytes: Fraction | None = None,
    model_parallel: int = 1,
    experts: int = 0,
    expert_parallel: int | Fraction = 1,
    context_parallel: int = 1,
    master: MasterWeights = MasterWeights.FP32,
) -> ModelStates:
    """Bytes of weights, gradients and optimizer states per GPU and per node's CPU.

    ``gpus`` counts every data-parallel GPU, split evenly over ``nodes``;
    ``largest_layer`` (parameters of the largest layer) only matters for ZeRO-3.
    Offload needs ZeRO >= 1 and parameter offload ZeRO-3 (``ValueError`` otherwise).

    ``optimizer_state_bytes`` is 8 for Adam (DeepSpeed's estimators), 4 for SGD with
    momentum, 2 for 8-bit Adam. ``trainable`` parameters (all by default) carry
    gradients and optimizer states; the others are frozen weights only, at the
    training precision's bytes unless ``frozen_weight_bytes`` gives their total (a
    4-bit QLoRA base: ``LoraLayout.frozen_bytes``).

    ``model_parallel`` (tensor-parallel size × pipeline stages) splits every replica over
    that many GPUs: ``parameters``, ``trainable``, ``largest_layer`` and
    ``frozen_weight_bytes`` are then one GPU's shard, ZeRO shards it over the ``gpus``
    data-parallel replicas, the world of ``gpus · model_parallel`` GPUs is split over
    ``nodes``, and each node's CPU holds its processes' shares (the same rules applied
    to each shard; 1 gives DeepSpeed's figures exactly).

    ``experts`` of the ``parameters`` (one GPU's shard, as they are) are a mixture of
    experts' routed experts, spread ``expert_parallel`` times further than that shard
    (EP GPUs of the data-parallel replicas; with Megatron's expert tensor parallelism,
    EP × its size over the tensor-parallel size, a fraction): each GPU holds
    ``1/expert_parallel`` of them, and ZeRO partitions them over the replicas that hold
    the same ones (see the module's docstring). They train when every parameter
    does; with adapters they are part of the frozen base (``frozen_weight_bytes`` at one
    rate per frozen weight). ``largest_layer`` is what one GPU gathers, already
    shrunk.

    ``context_parallel`` GPUs of each replica split its sequences and hold the same
    weights: the world is ``gpus · context_parallel · model_parallel`` and ZeRO
    partitions over the ``gpus · context_parallel`` ranks (megatron-core builds its
    distributed optimizer and gradient reduction on the data-parallel group "with
    context parallel", ``parallel_state.get_data_parallel_group(with_context_parallel=
    True)``; its expert data-parallel group likewise folds the context-parallel ranks).

    ``master`` says what a 16-bit training's optimizer updates (see the module's
    docstring); ``optimizer_state_bytes`` is then the fp32 optimizer's, halved for bf16
    states (``sixteen_bit_state_bytes``).
    """
    for name, value in (
        ("parameters", parameters),
        ("gpus", gpus),
        ("nodes", nodes),
        ("model_parallel", model_parallel),
        ("context_parallel", context_parallel),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if isinstance(largest_layer, bool) or not isinstance(largest_layer, int) or largest_layer < 0:
        raise ValueError(f"largest_layer must be an integer >= 0, got {largest_layer!r}")
    if (
        isinstance(expert_parallel, bool)
        or not isinstance(expert_parallel, int | Fraction)
        or expert_parallel <= 0
    ):
        raise ValueError(f"expert_parallel must be a number > 0, got {expert_parallel!r}")
    if isinstance(experts, bool) or not isinstance(experts, int) or not 0 <= experts <= parameters:
        raise ValueError(f"experts must be an integer in 0..parameters, got {experts!r}")
    # the ranks ZeRO partitions over and that reduce the gradients: dp · cp
    ranks = gpus * context_parallel
    world = ranks * model_parallel
    if world % nodes:
        raise ValueError(f"{world} GPUs cannot be split evenly over {nodes} nodes")
    stage, offload, precision = ZeroStage(zero_stage), Offload(offload), Precision(precision)
    if offload is not Offload.NONE and stage is ZeroStage.NONE:
        raise ValueError("offload needs ZeRO stage 1, 2 or 3")
    if offload is Offload.ALL and stage is not ZeroStage.WEIGHTS:
        raise ValueError("parameter offload needs ZeRO stage 3")

    if trainable is None:
        trainable = parameters
    if (
        isinstance(trainable, bool)
        or not isinstance(trainable, int)
        or not 0 < trainable <= parameters
    ):
        raise ValueError(f"trainable must be an integer in 1..parameters, got {trainable!r}")
    if optimizer_state_bytes not in (2, 4, 8):
        raise ValueError("optimizer_state_bytes must be 2, 4 or 8")
    p, layer, per_node = Fraction(parameters), Fraction(largest_layer), world // nodes
    # offloaded states: every shard's, spread over the nodes
    shards = model_parallel
    t = Fraction(trainable)
    master = bf16_master(precision, MasterWeights(master))
    w, g, g32, master_bytes, states = _bytes(precision, optimizer_state_bytes, master)
    if frozen_weight_bytes is not None and (
        not isinstance(frozen_weight_bytes, Fraction | int) or frozen_weight_bytes < 0
    ):
        raise ValueError("frozen_weight_bytes must be a non-negative number of bytes")
    # bytes of every weight: the trained ones at w, the frozen ones as given
    all_weights = w * p if frozen_weight_bytes is None else Fraction(frozen_weight_bytes) + w * t
    optimizer_side = g32 + master_bytes + states  # what ZeRO-1 partitions and offload moves
    # what one GPU holds whole: without the routed experts other GPUs hold (expert
    # parallelism); ZeRO's partitions are P/N either way (see the module's docstring)
    elsewhere = experts * Fraction(expert_parallel - 1, expert_parallel)
    p_held = p - elsewhere
    experts_train = trainable == parameters
    t_held = t - elsewhere if experts_train else t
    held_weights = all_weights - elsewhere * w
    if frozen_weight_bytes is not None and not experts_train and elsewhere:
        # frozen experts at the frozen weights' one rate
        rate = Fraction(frozen_weight_bytes) / (p - t)
        held_weights = all_weights - elsewhere * rate
    gpu: list[tuple[StatePart, Fraction]] = []
    cpu: list[tuple[StatePart, Fraction]] = []
    # DeepSpeed floors the sharded sum once: int(18 * P / N); the whole parts are exact.
    sharded: list[tuple[StatePart, Fraction]] = []

    def opt_parts(scale: Fraction) -> list[tuple[StatePart, Fraction]]:
        parts = [
            (StatePart.FP32_GRADIENTS, g32 * scale),
            (StatePart.MASTER_WEIGHTS, master_bytes * scale),
            (StatePart.OPTIMIZER_STATES, states * scale),
        ]
        return [(part, value) for part, value in parts if value]

    if stage is ZeroStage.WEIGHTS:
        gpu.append((StatePart.LARGEST_LAYER, (w + g) * layer))
        if offload is Offload.NONE:
            sharded += [(StatePart.WEIGHTS, all_weights / ranks), *opt_parts(t / ranks)]
            if not g32:  # the optimizer reads the training copy's gradients
                sharded.append((StatePart.GRADIENTS, g * t / ranks))
            cpu.append((StatePart.CPU_MODEL, 4 * layer * per_node))
        elif offload is Offload.OPTIMIZER:
            sharded.append((StatePart.WEIGHTS, all_weights / ranks))
            cpu_opt = optimizer_side + (0 if g32 else g)
            cpu.append((StatePart.CPU_OFFLOAD, shards * cpu_opt * t / nodes))
        else:
            cpu_opt = optimizer_side + (0 if g32 else g)
            cpu.append((StatePart.CPU_OFFLOAD, shards * (cpu_opt * t + all_weights) / nodes))
    else:
        gpu.append((StatePart.WEIGHTS, held_weights))
        if offload is Offload.NONE:
            if stage is ZeroStage.NONE:
                gpu.append((StatePart.GRADIENTS, g * t_held))
                gpu += opt_parts(t_held)
            elif stage is ZeroStage.OPTIMIZER:
                gpu.append((StatePart.GRADIENTS, g * t_held))
                sharded += opt_parts(t / ranks)
            else:
                sharded += [(StatePart.GRADIENTS, g * t / ranks), *opt_parts(t / ranks)]
            cpu.append((StatePart.CPU_MODEL, 4 * p_held * per_node))
        else:
            if stage is ZeroStage.OPTIMIZER:
                gpu.append((StatePart.GRADIENTS, g * t_held))
            cpu_opt = optimizer_side + (0 if g32 else g)
            cpu.append((StatePart.CPU_OFFLOAD, max(4 * world * p_held, shards * cpu_opt * t)))

    gpu_total = sum((v for _, v in gpu), Fraction(0)) + math.floor(
        sum((v for _, v in sharded), Fraction(0))
    )
    cpu_raw = sum((v for _, v in cpu), Fraction(0))
    cpu_total = cpu_raw * BUFFER_FACTOR
    components = tuple(
        [Component(part, "gpu", value) for part, value in gpu + sharded]
        + [Component(part, "cpu", value) for part, value in cpu]
        + [Component(StatePart.CPU_BUFFER, "cpu", cpu_total - cpu_raw)]
    )
    mixed = precision is not Precision.FP32 and master is MasterWeights.FP32
    from_deepspeed = (
        mixed
        and stage >= ZeroStage.GRADIENTS
        and optimizer_state_bytes == 8
        and trainable == parameters
        and frozen_weight_bytes is None
    )
    if precision is Precision.FP32:
        source = SOURCE_FP32
    elif master is MasterWeights.BF16:
        source = SOURCE_BF16_MASTER
    elif master is MasterWeights.NONE:
        source = SOURCE_PURE_BF16
    else:
        source = SOURCE_DEEPSPEED if from_deepspeed else SOURCE_PAPER
    return ModelStates(
        parameters=parameters,
        largest_layer=largest_layer,
        trainable=trainable,
        optimizer_state_bytes=optimizer_state_bytes,
        gpus=gpus,
        nodes=nodes,
        zero_stage=stage,
        precision=precision,
        offload=offload,
        gpu_bytes=math.floor(gpu_total),
        cpu_bytes=math.floor(cpu_total),
        components=components,
        source=source,
        from_deepspeed=(
            from_deepspeed and model_parallel == 1 and context_parallel == 1 and not elsewhere
        ),
        model_parallel=model_parallel,
        experts=experts,
        expert_parallel=expert_parallel,
        context_parallel=context_parallel,
        master=master,
    )
