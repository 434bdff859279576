"""Model states as Megatron and FSDP2 keep them: bytes per GPU.

DeepSpeed's own rules are in :mod:`gradacc_desktop.core.memory.model_states` (its
estimators, to the byte). The other frameworks keep the same weights, gradients and
optimizer states in other places (``P``: one GPU's shard of the parameters, ``T`` the
trained ones, ``R`` the data-parallel ranks, ``dp · cp``; mixed precision):

==============================  ==============================================
Megatron, no ZeRO               2P weights + 4T fp32 gradients + 12T (fp32 master
                                and Adam's two moments)
Megatron, ZeRO-1 (distributed   2P + 4T + 12T/R: the optimizer's states shard, the
optimizer)                      fp32 gradient buffer stays whole
Megatron-FSDP, ZeRO-2 / 3       as FSDP2 below
FSDP2, ZeRO-3 (FULL_SHARD,      4P/R fp32 sharded parameters + 4T/R fp32 sharded
``reshard_after_forward``)      gradients + 8T/R Adam + the largest layer's 16-bit
                                weights and gradients gathered (4L)
FSDP2, ZeRO-2 (SHARD_GRAD_OP,   as ZeRO-3, with every 16-bit weight kept gathered
no resharding)                  between the forward and the backward and the 16-bit
                                gradients unsharded until the step (+2P + 2T)
==============================  ==============================================

Megatron keeps its gradient buffer in fp32 with bf16 (``--accumulate-allreduce-grads-
in-fp32``, forced on for bf16 by ``megatron/training/arguments.py``; fp16 keeps 16-bit
gradients unless asked), its bf16 weights in a contiguous buffer, and with the
distributed optimizer (``megatron/core/optimizer/distrib_optimizer.py``) the fp32 main
parameters and Adam's moments for its shard only. FSDP2's ``fully_shard`` keeps each
parameter's shard in fp32 (the mixed-precision policy casts the gathered copy to bf16)
and reduce-scatters the gradients into fp32 shards (torchtitan's
``mixed_precision_reduce``). ZeRO stages 0 and 1 under FSDP (``NO_SHARD``) keep what
DDP keeps, DeepSpeed's rules; so does any CPU offload (the offloads DeepSpeed's
estimators describe).

Without an fp32 master copy (``MasterWeights.NONE``, pure bf16) FSDP2's shards are the
bf16 weights and the gradients are reduced into bf16 shards, with the optimizer's states
in bf16: ``2P/R + 2T/R + 4T/R`` and the gathered layer. Megatron keeps its fp32 main
parameters and gradient buffer whatever is asked (its precision-aware optimizer is not
described), and FSDP2 has no separate master copy to keep in bf16: a description asking
for those says so (``core.training.problems``) and is counted with the fp32 master.

A mixture of experts' routed experts spread over ``EP`` GPUs: each GPU holds the dense
part and ``1/EP`` of the experts, and the shards run over the replicas that hold the
same ones (a shard is ``P/R`` either way), as DeepSpeed's rules do.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..framework import Framework
from ..precision import MasterWeights, sixteen_bit_state_bytes
from ..text import trans_late
from .model_states import Component, ModelStates, StatePart, model_states
from .setup import Offload, Precision
from .zero import ZeroStage

__all__ = ["framework_states"]

SOURCE_MEGATRON = trans_late(
    "ModelStates",
    "Megatron's fp32 gradient buffer and distributed optimizer "
    "(megatron-core 0.16, distrib_optimizer.py)",
)
SOURCE_FSDP = trans_late(
    "ModelStates",
    "FSDP2's per-parameter sharding: fp32 shards, fp32 gradients (torchtitan's defaults)",
)
SOURCE_FSDP_BF16 = trans_late(
    "ModelStates",
    "FSDP2's per-parameter sharding in pure bf16: bf16 shards, bf16 gradients and optimizer "
    "states (torchtune's defaults)",
)


def framework_states(
    framework: Framework,
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
    bf16_gradients: bool = False,
) -> ModelStates:
    """One GPU's model states under ``framework`` (the arguments as ``model_states``'s):
    DeepSpeed's rules for DeepSpeed, for any offload, and for FSDP below ZeRO-2. The
    ``master`` copy is counted as asked where the framework keeps it so
    (``Framework.keeps``), with the fp32 one elsewhere."""
    master = framework.counted(Precision(precision), MasterWeights(master))
    deepspeed = model_states(
        parameters,
        gpus,
        zero_stage,
        offload,
        precision,
        nodes=nodes,
        largest_layer=largest_layer,
        optimizer_state_bytes=optimizer_state_bytes,
        trainable=trainable,
        frozen_weight_bytes=frozen_weight_bytes,
        model_parallel=model_parallel,
        experts=experts,
        expert_parallel=expert_parallel,
        context_parallel=context_parallel,
        master=master,
    )
    stage = ZeroStage(zero_stage)
    if framework is Framework.DEEPSPEED or offload is not Offload.NONE:
        return deepspeed
    sharded = stage >= ZeroStage.GRADIENTS
    if framework is Framework.FSDP and not sharded:
        return deepspeed
    p = Fraction(parameters)
    t = Fraction(deepspeed.trainable)
    ranks = gpus * context_parallel
    # what one GPU holds whole: without the routed experts other GPUs hold
    elsewhere = experts * Fraction(expert_parallel - 1, expert_parallel)
    experts_train = deepspeed.trainable == parameters
    t_held = t - elsewhere if experts_train else t
    mixed = precision is not Precision.FP32
    w = precision.bytes
    if frozen_weight_bytes is None:
        held_weights = w * (p - elsewhere)
    else:
        frozen = Fraction(frozen_weight_bytes)
        held_weights = frozen + w * t
        if elsewhere and not experts_train:
            held_weights -= elsewhere * frozen / (p - t)
    grad = framework.gradient_bytes(precision, master, bf16_gradients)
    gpu: list[tuple[StatePart, Fraction]] = []
    if not sharded:  # Megatron, no ZeRO or its distributed optimizer
        gpu.append((StatePart.WEIGHTS, held_weights))
        gpu.append((StatePart.FP32_GRADIENTS if grad == 4 else StatePart.GRADIENTS, grad * t_held))
        share = t / ranks if stage is ZeroStage.OPTIMIZER else t_held
        if mixed:
            gpu.append((StatePart.MASTER_WEIGHTS, 4 * share))
        gpu.append((StatePart.OPTIMIZER_STATES, optimizer_state_bytes * share))
        source = SOURCE_MEGATRON
    elif mixed and master is MasterWeights.NONE:  # FSDP2 in pure bf16: bf16 shards
        trained = p if frozen_weight_bytes is None else t
        frozen = Fraction(0) if frozen_weight_bytes is None else Fraction(frozen_weight_bytes)
        weights, gradients = (w * trained + frozen) / ranks, w * t / ranks
        if stage is ZeroStage.GRADIENTS:
            # beside their shards, the weights stay gathered after the forward and the
            # gradients accumulate unsharded until the step (one row each)
            weights, gradients = weights + held_weights, gradients + w * t_held
        states = sixteen_bit_state_bytes(optimizer_state_bytes)
        gpu += [
            (StatePart.WEIGHTS, weights),
            (StatePart.GRADIENTS, gradients),
            (StatePart.OPTIMIZER_STATES, states * t / ranks),
            (StatePart.LARGEST_LAYER, (w + w) * Fraction(largest_layer)),
        ]
        source = SOURCE_FSDP_BF16
    else:  # FSDP2 (and Megatron-FSDP): every state sharded per parameter
        # the fp32 shard is the training copy (the gathered one is cast to 16 bits)
        gpu.append(
            (StatePart.MASTER_WEIGHTS, 4 * (p if frozen_weight_bytes is None else t) / ranks)
        )
        if frozen_weight_bytes is not None:
            gpu.append((StatePart.WEIGHTS, Fraction(frozen_weight_bytes) / ranks))
        gpu.append((StatePart.FP32_GRADIENTS, 4 * t / ranks))
        gpu.append((StatePart.OPTIMIZER_STATES, optimizer_state_bytes * t / ranks))
        gpu.append((StatePart.LARGEST_LAYER, (w + w) * Fraction(largest_layer)))
        if stage is ZeroStage.GRADIENTS:
            # no resharding after the forward: the 16-bit weights stay gathered, and the
            # gradients accumulate unsharded until the step's reduce-scatter
            gpu.append((StatePart.WEIGHTS, held_weights))
            gpu.append((StatePart.GRADIENTS, w * t_held))
        source = SOURCE_MEGATRON if framework is Framework.MEGATRON else SOURCE_FSDP
    total = sum((v for _, v in gpu), Fraction(0))
    cpu = [c for c in deepspeed.components if c.where == "cpu"]
    return ModelStates(
        parameters=deepspeed.parameters,
        largest_layer=deepspeed.largest_layer,
        trainable=deepspeed.trainable,
        optimizer_state_bytes=optimizer_state_bytes,
        gpus=gpus,
        nodes=nodes,
        zero_stage=stage,
        precision=precision,
        offload=offload,
        gpu_bytes=math.floor(total),
        cpu_bytes=deepspeed.cpu_bytes,
        components=tuple(Component(part, "gpu", value) for part, value in gpu) + tuple(cpu),
        source=source,
        from_deepspeed=False,
        model_parallel=model_parallel,
        experts=experts,
        expert_parallel=expert_parallel,
        context_parallel=context_parallel,
        master=master,
    )
