"""Memory: the activation estimator and its families, the model states (ZeRO, LoRA), the
model catalogue and its presets.

The names other layers use; the modules inside import one another directly."""

from __future__ import annotations

from ..precision import Precision
from .activation import (
    ASSUMPTION_TEXT,
    GB,
    PART_TEXT,
    SHAPE_LIMITS,
    STACK_TEXT,
    Accounting,
    Assumption,
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Item,
    Part,
    Problem,
    Recompute,
    Result,
    StackKind,
    estimate,
    validate,
)
from .lora import LORA_RANK_LIMITS, LoraTargets, ModelShape, total_parameters
from .model_states import LARGEST_LAYER_LIMITS, ModelStates, StatePart, model_states
from .models import (
    ModelFacts,
    ModelSource,
    ModelSpec,
    TypedShape,
    UnknownModelError,
    catalogue,
    facts,
    find_model,
    known_models,
    typed_shape,
)
from .presets import ConfigPreset, Preset, PresetError, load_config_presets, load_presets
from .setup import PROBLEM_TEXT, Offload, TrainingSetup, problem_text, setup_problem
from .zero import DEFAULT_OVERHEAD_GB, PARAMETERS_LIMITS, Recipe, ZeroStage

__all__ = [
    "ASSUMPTION_TEXT",
    "DEFAULT_OVERHEAD_GB",
    "GB",
    "LARGEST_LAYER_LIMITS",
    "LORA_RANK_LIMITS",
    "PARAMETERS_LIMITS",
    "PART_TEXT",
    "PROBLEM_TEXT",
    "SHAPE_LIMITS",
    "STACK_TEXT",
    "Accounting",
    "Assumption",
    "Attention",
    "ConfigPreset",
    "Device",
    "Family",
    "Inputs",
    "InvalidActivationInputs",
    "Item",
    "LoraTargets",
    "ModelFacts",
    "ModelShape",
    "ModelSource",
    "ModelSpec",
    "ModelStates",
    "Offload",
    "Part",
    "Precision",
    "Preset",
    "PresetError",
    "Problem",
    "Recipe",
    "Recompute",
    "Result",
    "StackKind",
    "StatePart",
    "TrainingSetup",
    "TypedShape",
    "UnknownModelError",
    "ZeroStage",
    "catalogue",
    "estimate",
    "facts",
    "find_model",
    "known_models",
    "load_config_presets",
    "load_presets",
    "model_states",
    "problem_text",
    "setup_problem",
    "total_parameters",
    "typed_shape",
    "validate",
]
