"""The training recipes and ZeRO stages the memory figures are counted for.

The bytes per parameter live in :mod:`.model_states`. Mixed-precision Adam follows
the ZeRO paper (Rajbhandari et al. 2020, "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", §3.1): 2Ψ fp16 weights +
2Ψ fp16 gradients + KΨ optimizer states with K = 12 (fp32 master weights, momentum
and variance), 16Ψ in all. ZeRO stage 1 partitions the optimizer states (here: Adam
moments and master weights) over the data-parallel GPUs, stage 2 also the gradients,
stage 3 also the weights (§5.1).
"""

from __future__ import annotations

import enum
from decimal import Decimal

# Default framework overhead per GPU: CUDA context plus caching-allocator slack.
# A CUDA context alone takes roughly 0.3-1 GB depending on GPU and libraries
# loaded (cuBLAS, cuDNN, NCCL); 1 GB is a round, deliberately cautious figure.
DEFAULT_OVERHEAD_GB = Decimal(1)


class Recipe(enum.Enum):
    ADAM_MIXED = "adam_mixed"
    ADAM_8BIT = "adam_8bit"
    SGD_MOMENTUM = "sgd_momentum"
    LORA = "lora"
    ADAM_FP32 = "adam_fp32"


class ZeroStage(enum.IntEnum):
    NONE = 0
    OPTIMIZER = 1  # ZeRO-1: optimizer states (incl. master weights) sharded
    GRADIENTS = 2  # ZeRO-2: + gradients
    WEIGHTS = 3  # ZeRO-3: + weights
