"""Batch: the accumulation plan for a target batch, the pairs that reach it and the
memory-against-batch trade-off.

The names other layers use; the modules inside import one another directly."""

from __future__ import annotations

from .planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    LR_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
    AccumulationPlan,
    DeepSpeedReason,
    Rounding,
    deepspeed_check,
    lr_linear,
    lr_sqrt,
    steps_per_epoch,
    tokens_per_step,
)
from .tradeoff import AxisScale, Point, Tradeoff, available_for_activations, axis_scales, tradeoff

__all__ = [
    "DATASET_LIMITS",
    "GPU_MEMORY_LIMITS",
    "LR_LIMITS",
    "OTHER_MEMORY_LIMITS",
    "SEQ_LEN_LIMITS",
    "TARGET_LIMITS",
    "AccumulationPlan",
    "AxisScale",
    "DeepSpeedReason",
    "Point",
    "Rounding",
    "Tradeoff",
    "available_for_activations",
    "axis_scales",
    "deepspeed_check",
    "lr_linear",
    "lr_sqrt",
    "steps_per_epoch",
    "tokens_per_step",
    "tradeoff",
]
