"""Estimate "other memory" per GPU: weights, gradients, optimizer states, overhead.

Everything here is bytes per model parameter (Ψ) and decimal GB (10^9 bytes).
Activations are not included: they are ``b · A`` in the planner.

Mixed-precision Adam follows the ZeRO paper (Rajbhandari et al. 2020, "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", §3.1): 2Ψ fp16 weights +
2Ψ fp16 gradients + KΨ optimizer states with K = 12 (fp32 master weights, momentum
and variance), 16Ψ in all. ZeRO stage 1 partitions the optimizer states (here: Adam
moments and master weights) over the data-parallel GPUs, stage 2 also the gradients,
stage 3 also the weights (§5.1).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, localcontext

from ..calculator import ACTIVATION_DECIMALS, normalize
from ..limits import Limits, whole
from ..text import trans_late

# Default framework overhead per GPU: CUDA context plus caching-allocator slack.
# A CUDA context alone takes roughly 0.3-1 GB depending on GPU and libraries
# loaded (cuBLAS, cuDNN, NCCL); 1 GB is a round, deliberately cautious figure.
DEFAULT_OVERHEAD_GB = Decimal(1)

_BYTES_PER_GB = Decimal(10**9)
_GB_QUANTUM = Decimal(1).scaleb(-ACTIVATION_DECIMALS)


# What the "other memory" helper accepts: up to 10 trillion parameters; LoRA's
# trainable fraction from 0.001 (0.1 %) to 1.
PARAMETERS_LIMITS = whole(1, 10**13)
TRAINABLE_FRACTION_LIMITS = Limits(Decimal("0.001"), Decimal(1), integer=False)


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


@dataclass(frozen=True)
class RecipeRule:
    """Bytes per *trained* parameter, per component, and where the numbers come from."""

    weights: Decimal
    gradients: Decimal
    optimizer_states: Decimal
    master_weights: Decimal
    # where the numbers come from: English text with "{zero}" for ZERO_SOURCE
    source: str

    @property
    def total(self) -> Decimal:
        return self.weights + self.gradients + self.optimizer_states + self.master_weights


# Where each recipe's bytes come from, in English; "{zero}" stands for ZERO_SOURCE.
# Marked for translation here, translated by the view-model that shows them.
ZERO_SOURCE = trans_late("Recipes", "Rajbhandari et al. 2020, ZeRO, §3.1: 2Ψ + 2Ψ + KΨ with K = 12")

RECIPES: dict[Recipe, RecipeRule] = {
    Recipe.ADAM_MIXED: RecipeRule(Decimal(2), Decimal(2), Decimal(8), Decimal(4), "{zero}"),
    Recipe.ADAM_8BIT: RecipeRule(
        Decimal(2),
        Decimal(2),
        Decimal(2),
        Decimal(4),
        trans_late(
            "Recipes",
            "bitsandbytes 8-bit Adam (Dettmers et al. 2022): two 1-byte states instead of "
            "two fp32 states; fp32 master weights kept as in {zero}",
        ),
    ),
    Recipe.SGD_MOMENTUM: RecipeRule(
        Decimal(2),
        Decimal(2),
        Decimal(4),
        Decimal(4),
        trans_late(
            "Recipes",
            "Mixed-precision SGD with momentum: one fp32 momentum buffer (K = 8 in ZeRO's terms)",
        ),
    ),
    Recipe.LORA: RecipeRule(
        Decimal(2),
        Decimal(2),
        Decimal(8),
        Decimal(4),
        trans_late(
            "Recipes",
            "LoRA (Hu et al. 2021): frozen base in 16-bit (2 bytes/param); adapters trained "
            "with mixed-precision Adam (16 bytes per trainable param, {zero})",
        ),
    ),
    Recipe.ADAM_FP32: RecipeRule(
        Decimal(4),
        Decimal(4),
        Decimal(8),
        Decimal(0),
        trans_late(
            "Recipes",
            "fp32 Adam: 4 weights + 4 gradients + 8 momentum and variance; no master copy",
        ),
    ),
}

# Bytes per parameter of LoRA's frozen base weights (16-bit).
LORA_BASE_BYTES = Decimal(2)


@dataclass(frozen=True)
class OtherMemoryEstimate:
    recipe: Recipe
    parameters: int
    gpus: int
    zero_stage: ZeroStage
    trainable_fraction: Decimal
    rule: RecipeRule
    # bytes per model parameter on one GPU, after ZeRO sharding (exact unless g
    # does not divide evenly; then 40 significant digits)
    weights_bytes_per_param: Decimal
    gradients_bytes_per_param: Decimal
    optimizer_bytes_per_param: Decimal
    master_bytes_per_param: Decimal
    # sum of the four above
    bytes_per_param: Decimal
    # parameters · bytes_per_param / 10^9
    states_gb: Decimal
    overhead_gb: Decimal
    # states + overhead, rounded *up* to 0.001 GB (ready for ``fit``)
    total_gb: Decimal


def _shard(value: Decimal, sharded: bool, gpus: int) -> Decimal:
    return value / gpus if sharded else value


def estimate_other_memory(
    parameters: int,
    recipe: Recipe,
    gpus: int = 1,
    zero_stage: ZeroStage = ZeroStage.NONE,
    trainable_fraction: Decimal = Decimal(1),
    overhead_gb: Decimal = DEFAULT_OVERHEAD_GB,
) -> OtherMemoryEstimate:
    """Memory per GPU for everything but activations.

    ``trainable_fraction`` (0 < f <= 1) is only used by LoRA: adapters hold ``f·Ψ``
    trainable parameters on top of the frozen base.
    """
    for name, value in (("parameters", parameters), ("gpus", gpus)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if not trainable_fraction.is_finite() or not 0 < trainable_fraction <= 1:
        raise ValueError("trainable_fraction must be in (0, 1]")
    if not overhead_gb.is_finite() or overhead_gb < 0:
        raise ValueError("overhead_gb must be >= 0")
    rule = RECIPES[recipe]
    fraction = trainable_fraction if recipe is Recipe.LORA else Decimal(1)
    base = LORA_BASE_BYTES if recipe is Recipe.LORA else Decimal(0)
    stage = ZeroStage(zero_stage)
    # Divisions by g can repeat forever; 40 digits keep the sum far below 1 byte off.
    with localcontext() as ctx:
        ctx.prec = 40
        weights = _shard(base + rule.weights * fraction, stage >= ZeroStage.WEIGHTS, gpus)
        grads = _shard(rule.gradients * fraction, stage >= ZeroStage.GRADIENTS, gpus)
        optim = _shard(rule.optimizer_states * fraction, stage >= ZeroStage.OPTIMIZER, gpus)
        master = _shard(rule.master_weights * fraction, stage >= ZeroStage.OPTIMIZER, gpus)
        per_param = weights + grads + optim + master
        states_gb = parameters * per_param / _BYTES_PER_GB
        total = (states_gb + overhead_gb).quantize(_GB_QUANTUM, rounding=ROUND_CEILING)
    return OtherMemoryEstimate(
        recipe=recipe,
        parameters=parameters,
        gpus=gpus,
        zero_stage=stage,
        trainable_fraction=fraction,
        rule=rule,
        weights_bytes_per_param=normalize(weights),
        gradients_bytes_per_param=normalize(grads),
        optimizer_bytes_per_param=normalize(optim),
        master_bytes_per_param=normalize(master),
        bytes_per_param=normalize(per_param),
        states_gb=normalize(states_gb),
        overhead_gb=overhead_gb,
        total_gb=normalize(total),
    )
