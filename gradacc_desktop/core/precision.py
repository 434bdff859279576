"""The one precision of a training: the number format it runs in.

``Precision`` is what the training description, the memory rules, the activation
estimator and the time model all read: bf16 or fp16 mixed precision (16-bit weights,
gradients and saved activations, with an fp32 master copy and fp32 optimizer states),
or fp32 throughout. FP8 is not a precision of its own: it is the format of the matrix
products only (Transformer Engine keeps 16-bit values around them), a flag beside
the precision where a card's peak is looked up (``core.time``).
"""

from __future__ import annotations

import enum

__all__ = ["FP8", "MasterWeights", "Precision", "bf16_master", "sixteen_bit_state_bytes"]

#: FP8 matrix products where a precision is named (the command line's --precision fp8, the
#: messages): beside a 16-bit precision, never one of its own
FP8 = "fp8"


class Precision(enum.Enum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"

    @property
    def bytes(self) -> int:
        """Bytes of one 16- or 32-bit value: a weight, a gradient, a saved activation."""
        return 4 if self is Precision.FP32 else 2


class MasterWeights(enum.Enum):
    """What a 16-bit training's optimizer updates, and in what format it keeps its states.

    ``FP32`` is mixed precision (the default everywhere): an fp32 master copy of the
    weights, fp32 gradients for it and fp32 optimizer states. ``BF16`` keeps that master
    copy, its gradients and the optimizer states in bf16 (DeepSpeed's
    ``bf16_master_weights_and_grads`` with ``bf16_optimizer_states``). ``NONE`` is pure
    bf16: the optimizer updates the bf16 weights themselves and keeps its states in
    their format (torchtune's ``dtype: bf16``, LLaMA-Factory's ``pure_bf16``, FSDP2
    without a mixed-precision policy). fp32 training has no master copy either way."""

    FP32 = "fp32"
    BF16 = "bf16"
    NONE = "none"


def bf16_master(precision: Precision, master: MasterWeights) -> MasterWeights:
    """``master`` where the training is bf16; the fp32 copy otherwise (fp32 training's
    weights are their own fp32 copy, fp16 keeps an fp32 one: a bf16 copy or none belongs
    to bf16 training)."""
    return master if precision is Precision.BF16 else MasterWeights.FP32


def sixteen_bit_state_bytes(optimizer_state_bytes: int) -> int:
    """An optimizer's state bytes per parameter with its states in bf16: Adam's two fp32
    moments (8) become 4, SGD's momentum (4) 2; 8-bit Adam's two bytes stay two."""
    return max(2, optimizer_state_bytes // 2)
