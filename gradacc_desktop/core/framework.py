"""The one framework of a training: what runs the step, and how it counts memory.

``Framework`` is what the training description, the memory rules and the time model
read. The three differ in what they keep per GPU and in how they move gradients:

* ``DEEPSPEED`` (the default; DeepSpeed 0.19's engine, Megatron-DeepSpeed, the Hugging
  Face Trainer and accelerate with a DeepSpeed config): model states as DeepSpeed's own
  estimators count them; gradients reduced in the training precision
  (``communication_data_type`` defaults to the model's); below ZeRO-3 the reduction runs
  after the backward (``overlap_comm`` defaults to false), ZeRO-3 overlaps it
  (``overlap_comm`` defaults to true for stage 3: ``deepspeed/runtime/zero/config.py``).
* ``MEGATRON`` (Megatron-LM / megatron-core 0.16, NeMo, Megatron-Bridge): the
  gradients accumulate in an fp32 buffer and are reduced in fp32 with bf16
  (``--accumulate-allreduce-grads-in-fp32``, forced on for bf16 by
  ``megatron/training/arguments.py``); ZeRO-1 is its distributed optimizer
  (``--use-distributed-optimizer``: fp32 master weights and Adam's states sharded over
  the data-parallel ranks, the fp32 gradient buffer reduce-scattered); the reduction
  runs beside the backward and the weights' gather beside the next forward
  (``--overlap-grad-reduce``, ``--overlap-param-gather``: what Megatron-LM's example
  scripts and NeMo's and Megatron-Bridge's recipes set); its fused attention runs
  cuDNN's flash kernel on Hopper and later (``flash_attention``).
* ``FSDP`` (PyTorch FSDP2 ``fully_shard``, torchtitan, accelerate's FSDP plugin,
  Composer): every parameter, gradient and optimizer state sharded per parameter over
  the data-parallel ranks (ZeRO-3's pattern; ``reshard_after_forward=False`` is ZeRO-2's);
  gradients reduce-scattered in fp32 (torchtitan's ``mixed_precision_reduce`` default),
  overlapped with the backward.
"""

from __future__ import annotations

import enum

from .precision import MasterWeights, Precision, bf16_master
from .recompute import Recompute

__all__ = ["Framework"]


class Framework(enum.Enum):
    DEEPSPEED = "deepspeed"
    MEGATRON = "megatron"
    FSDP = "fsdp"

    @property
    def recomputations(self) -> tuple[Recompute, ...]:
        """The recomputations the framework's own configuration offers, least first:
        every one none or full; Megatron also its selective recomputation of the
        attention core (``--recompute-granularity selective``), FSDP torchtitan's per-op
        selective checkpointing (``selective_ac_option = "op"``)."""
        if self is Framework.MEGATRON:
            return (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
        if self is Framework.FSDP:
            return (Recompute.NONE, Recompute.SELECTIVE_OP, Recompute.FULL)
        return (Recompute.NONE, Recompute.FULL)

    @property
    def flash_attention(self) -> bool:
        """Whether its fused attention is a flash kernel of the card's own generation:
        Megatron's is Transformer Engine's ``DotProductAttention``, which prefers cuDNN's
        fused flash attention on Hopper and later (NeMo's *memory optimizations* guide),
        a kernel as fast as FlashAttention 3 there (the FlashAttention-3 paper's H100
        benchmarks, cuDNN beside FA3); the others' is PyTorch's SDPA or FlashAttention 2."""
        return self is Framework.MEGATRON

    def overlaps_tensor_parallel(self, sequence_parallel: bool, tensor_parallel: int) -> bool:
        """Whether ``--tp-comm-overlap`` runs: Megatron, with sequence parallelism over two
        or more tensor-parallel GPUs (Megatron-LM's arguments.py asserts it)."""
        return self is Framework.MEGATRON and sequence_parallel and tensor_parallel > 1

    def reduces_bf16_gradients(self, precision: Precision) -> bool:
        """Whether ``--grad-reduce-in-bf16`` runs: Megatron's fp32 gradient buffer of a
        bf16 training is what it replaces."""
        return self is Framework.MEGATRON and precision is Precision.BF16

    def keeps(self, master: MasterWeights) -> bool:
        """Whether the framework can keep a 16-bit training's ``master`` copy so:
        DeepSpeed an fp32 or a bf16 one (``bf16_master_weights_and_grads``: its ZeRO
        optimizers always keep one), FSDP2 fp32 shards or none (pure bf16: the shards
        are the bf16 weights), Megatron its fp32 main parameters (its precision-aware
        optimizer is not described)."""
        if master is MasterWeights.FP32:
            return True
        if self is Framework.DEEPSPEED:
            return master is MasterWeights.BF16
        return self is Framework.FSDP and master is MasterWeights.NONE

    def counted(self, precision: Precision, master: MasterWeights) -> MasterWeights:
        """The master copy the figures count for ``master`` asked of a ``precision``
        training: the one asked, in bf16 training where the framework keeps it so; the
        fp32 copy otherwise (a problem says why)."""
        kept = bf16_master(precision, master)
        return kept if self.keeps(kept) else MasterWeights.FP32

    def gradient_bytes(
        self,
        precision: Precision,
        master: MasterWeights = MasterWeights.FP32,
        bf16_reduce: bool = False,
    ) -> int:
        """Bytes of one gradient value as the data-parallel reduction moves it (a pure
        bf16 training reduces its bf16 gradients; ``bf16_reduce``: Megatron's
        ``--grad-reduce-in-bf16``, its gradient buffer in bf16)."""
        if precision is Precision.FP32:
            return 4
        if master is MasterWeights.NONE:
            return precision.bytes
        if self is Framework.MEGATRON and precision is Precision.BF16:
            return 2 if bf16_reduce else 4
        if self is Framework.FSDP:
            return 4
        return precision.bytes

    def overlaps_gradient_reduction(self, sharded_weights: bool) -> bool:
        """Whether the gradient reduction runs beside the backward (bucket by bucket)
        and the updated weights' gather beside the next forward, rather than after
        them; ``sharded_weights``: ZeRO-3 (the weights are gathered layer by layer)."""
        if self is Framework.DEEPSPEED:
            return sharded_weights
        return True
