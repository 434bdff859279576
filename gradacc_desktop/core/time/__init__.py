"""The time per step: FLOPs per token, the card catalogue, the kernel model, the parallel
layout, communication, the workload and the step model with its results.

The names other layers use; the modules inside import one another directly."""

from __future__ import annotations

from gradacc_desktop.core.recompute import Recompute

from .compute import (
    BANDWIDTH_LIMITS,
    EFFICIENCY_PERCENT_LIMITS,
    EPOCHS_LIMITS,
    GOODPUT_LIMITS,
    GPU_COUNT_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TERA,
    TFLOPS_LIMITS,
    TOKENS_LIMITS,
    UTILISATION_LIMITS,
    TokenCost,
    TrainingTime,
    significant,
    to_decimal,
    token_cost,
    training_time,
)
from .gpus import (
    CUSTOM_ID,
    SPEED_LIMITS,
    Generation,
    GpuCard,
    GpuTable,
    GpuTableError,
    custom_card,
    custom_performance,
    load_gpu_table,
)
from .kernels import FITTED, fitted_like
from .layout import LAYOUT_LIMITS
from .profile import (
    MISMATCH_TEXT,
    Mismatch,
    ProfileError,
    SpeedProfile,
    load_profile,
    parse_profile,
    profile_mismatches,
    profile_to_json,
)
from .step_results import PART_NAMES, RunTotals, StepTime
from .steptime import StepModel
from .workload import Uncounted

__all__ = [
    "BANDWIDTH_LIMITS",
    "CUSTOM_ID",
    "EFFICIENCY_PERCENT_LIMITS",
    "EPOCHS_LIMITS",
    "FITTED",
    "GOODPUT_LIMITS",
    "GPU_COUNT_LIMITS",
    "LAYOUT_LIMITS",
    "MISMATCH_TEXT",
    "PARAMS_LIMITS",
    "PART_NAMES",
    "PRICE_LIMITS",
    "SPEED_LIMITS",
    "TERA",
    "TFLOPS_LIMITS",
    "TOKENS_LIMITS",
    "UTILISATION_LIMITS",
    "Generation",
    "GpuCard",
    "GpuTable",
    "GpuTableError",
    "Mismatch",
    "ProfileError",
    "Recompute",
    "RunTotals",
    "SpeedProfile",
    "StepModel",
    "StepTime",
    "TokenCost",
    "TrainingTime",
    "Uncounted",
    "custom_card",
    "custom_performance",
    "fitted_like",
    "load_gpu_table",
    "load_profile",
    "parse_profile",
    "profile_mismatches",
    "profile_to_json",
    "significant",
    "to_decimal",
    "token_cost",
    "training_time",
]
