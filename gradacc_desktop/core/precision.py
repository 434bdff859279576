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

__all__ = ["FP8", "Precision"]

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
