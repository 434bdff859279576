"""Reading a scenario file: ``load`` parses the JSON defensively (size, depth, duplicate
keys, number literals) and validates every key of the format ``core.scenario``
describes; it returns a whole ``Scenario`` or raises ``ScenarioError``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NoReturn, TypeVar

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.recompute import Recompute

from ..attention import AttentionKernel
from ..batch.planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
    Rounding,
)
from ..calculator import LIMITS, BatchInputs, Field, normalize
from ..limits import EntryProblem, Limits, check
from ..memory.activation import SHAPE_LIMITS, Family
from ..memory.families import ModelConfigError, parse_model_config_text
from ..memory.lora import LORA_RANK_LIMITS, LoraTargets
from ..memory.models import ModelSource, ModelSpec, TypedShape
from ..memory.setup import Offload, Precision, ZeroStage
from ..precision import MasterWeights
from ..time.compute import (
    BANDWIDTH_LIMITS,
    EFFICIENCY_PERCENT_LIMITS,
    EPOCHS_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TOKENS_LIMITS,
)
from ..time.gpus import SPEED_LIMITS
from ..time.layout import LAYOUT_LIMITS
from ..training.description import Method, Optimizer
from .settings import (
    CPU_MEMORY_LIMITS,
    FORMAT,
    GOODPUT_PERCENT_LIMITS,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    NODES_LIMITS,
    READABLE_VERSIONS,
    SPEED_KEYS,
    ZERO_LIMITS,
    PlanSettings,
    ReadProblem,
    Scenario,
    ScenarioError,
)

_DECIMAL_TEXT = re.compile(r"-?\d{1,20}(\.\d{1,20})?")
_CARD_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class _Rejected(Exception):
    def __init__(self, reason: ReadProblem, detail: str = "") -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Rejected(ReadProblem.DUPLICATE_KEY, key)
        result[key] = value
    return result


def _no_constants(name: str) -> NoReturn:
    raise _Rejected(ReadProblem.NOT_A_NUMBER, name)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Rejected(ReadProblem.NUMBER_TOO_LARGE, text[:24] + "…")
    return int(text)


def _depth(text: str) -> int:
    """Deepest bracket nesting, ignoring brackets inside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _parse(data: bytes) -> Any:
    if len(data) > MAX_BYTES:
        raise ScenarioError(ReadProblem.TOO_LARGE, detail=f"{len(data)} bytes > {MAX_BYTES}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(ReadProblem.NOT_UTF8, detail=str(exc)) from None
    if _depth(text) > MAX_DEPTH:
        raise ScenarioError(ReadProblem.TOO_DEEP, detail=f"more than {MAX_DEPTH} levels")
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constants,
            parse_int=_bounded_int,
            parse_float=Decimal,
        )
    except _Rejected as exc:
        raise ScenarioError(exc.reason, detail=exc.detail) from None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise ScenarioError(ReadProblem.BAD_JSON, detail=str(exc)) from None


def _object(value: Any, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(ReadProblem.NOT_AN_OBJECT, path)
    for key in keys:
        if key not in value:
            raise ScenarioError(ReadProblem.MISSING_KEY, f"{path}.{key}" if path else key)
    for key in value:
        if key not in keys:
            raise ScenarioError(ReadProblem.UNKNOWN_KEY, f"{path}.{key}" if path else key)
    return value


_PROBLEM_REASONS = {
    EntryProblem.NOT_A_NUMBER: ReadProblem.NOT_A_NUMBER,
    EntryProblem.NOT_AN_INTEGER: ReadProblem.NOT_AN_INTEGER,
    EntryProblem.TOO_SMALL: ReadProblem.OUT_OF_RANGE,
    EntryProblem.TOO_LARGE: ReadProblem.OUT_OF_RANGE,
    EntryProblem.TOO_PRECISE: ReadProblem.TOO_PRECISE,
    EntryProblem.MISSING: ReadProblem.MISSING_KEY,
}


def _int(section: dict[str, Any], key: str, path: str, limits: Limits) -> int:
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(ReadProblem.WRONG_TYPE, f"{path}.{key}", "expected an integer")
    problem = check(limits, value)
    if problem is not None:
        raise ScenarioError(_PROBLEM_REASONS[problem], f"{path}.{key}", str(value), limits)
    return value


def _decimal(section: dict[str, Any], key: str, path: str, limits: Limits) -> Decimal:
    value = section[key]
    if not isinstance(value, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, f"{path}.{key}", 'expected a string like "0.5"')
    if not _DECIMAL_TEXT.fullmatch(value):
        raise ScenarioError(ReadProblem.NOT_A_NUMBER, f"{path}.{key}", value[:24])
    problem = check(limits, value)
    if problem is not None:
        raise ScenarioError(_PROBLEM_REASONS[problem], f"{path}.{key}", value, limits)
    return normalize(Decimal(value))


_T = TypeVar("_T")


def _optional(
    read: Callable[[dict[str, Any], str, str, Limits], _T],
    section: dict[str, Any],
    key: str,
    path: str,
    limits: Limits,
) -> _T | None:
    return None if section[key] is None else read(section, key, path, limits)


_CALC_KEYS = ("micro_batch", "accumulation_steps", "gpus", "activation_gb")
_PLAN_KEYS = (
    "target_batch",
    "micro_batch",
    "gpus",
    "rounding",
    "gpu_card",
    "gpu_memory_gb",
    "other_memory_gb",
    "activation_gb",
    "seq_len",
    "dataset_samples",
)
_SETUP_KEYS = ("nodes", "zero_stage", "precision", "offload")
_TIME_KEYS = (
    "tensor_parallel",
    "pipeline_stages",
    "recompute",
    "model",
    "efficiency_percent",
    "price_per_gpu_hour",
    "training_tokens",
    "epochs",
    *SPEED_KEYS,
)


_DESCRIPTION_KEYS = (
    "method",
    "lora_rank",
    "lora_targets",
    "trainable_params",
    "optimizer",
    "target_seq",
    "overhead_gb",
)
_SPEED_MODEL_KEYS = (
    "virtual_stages",
    "expert_parallel",
    "context_parallel",
    "fp8",
    "attention",
    "link_gbps",
    "network_gbps",
    "goodput_percent",
)
_VISION_KEYS = ("images", "image_width", "image_height", "vision_frozen")
_FRAMEWORK_KEYS = ("framework", "sequence_parallel")
_NODE_KEYS = ("cpu_memory_gb",)
_LOSS_KEYS = ("fused_loss",)
_MASTER_KEYS = ("master_weights",)
_EXPERT_TENSOR_KEYS = ("expert_tensor_parallel",)
_MEGATRON_KEYS = ("tp_comm_overlap", "grad_reduce_bf16")
_SHAPE_KEYS = ("family", "hidden", "layers", "heads", "kv_heads", "intermediate", "vocab",
               "max_positions")  # fmt: skip
_TARGET_NAMES = re.compile(r"[A-Za-z0-9_.-]{1,64}(,[A-Za-z0-9_.-]{1,64}){0,31}")


def _calculator(raw: Any) -> BatchInputs:
    c = _object(raw, "calculator", _CALC_KEYS)
    return BatchInputs(
        micro_batch=_int(c, "micro_batch", "calculator", LIMITS[Field.MICRO_BATCH]),
        accumulation_steps=_int(
            c, "accumulation_steps", "calculator", LIMITS[Field.ACCUMULATION_STEPS]
        ),
        gpus=_int(c, "gpus", "calculator", LIMITS[Field.GPUS]),
        activation_gb=_decimal(c, "activation_gb", "calculator", LIMITS[Field.ACTIVATION_GB]),
    )


def _choice(section: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    value = section[key]
    if not isinstance(value, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, f"plan.{key}", "expected a string")
    if value not in choices:
        raise ScenarioError(ReadProblem.BAD_CHOICE, f"plan.{key}", value[:24])
    return value


def _plan(raw: Any, version: int) -> PlanSettings:
    keys = _PLAN_KEYS + (_SETUP_KEYS if version >= 2 else ()) + (_TIME_KEYS if version >= 3 else ())
    if version == 3:
        keys += ("model_params",)
    if version >= 4:
        keys += _DESCRIPTION_KEYS
    if version >= 5:
        keys += _SPEED_MODEL_KEYS
        if isinstance(raw, dict) and "context_parallel" not in raw:
            # version 5 files written before context parallelism: none
            raw = {**raw, "context_parallel": 1}
    if version >= 6:
        keys += _VISION_KEYS
    if version >= 7:
        keys += _FRAMEWORK_KEYS
    if version >= 8:
        keys += _NODE_KEYS
    if version >= 9:
        keys += _LOSS_KEYS
    if version >= 10:
        keys += _MASTER_KEYS
    if version >= 11:
        keys += _EXPERT_TENSOR_KEYS
    if version >= 12:
        keys += _MEGATRON_KEYS
    p = _object(raw, "plan", keys)
    rounding = p["rounding"]
    if not isinstance(rounding, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.rounding", "expected a string")
    if rounding not in {r.value for r in Rounding}:
        raise ScenarioError(ReadProblem.BAD_CHOICE, "plan.rounding", rounding[:24])
    card = p["gpu_card"]
    if not isinstance(card, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.gpu_card", "expected a string")
    if not _CARD_ID.fullmatch(card):
        raise ScenarioError(ReadProblem.BAD_CHOICE, "plan.gpu_card", card[:24])
    return PlanSettings(
        target_batch=_int(p, "target_batch", "plan", TARGET_LIMITS),
        micro_batch=_optional(_int, p, "micro_batch", "plan", LIMITS[Field.MICRO_BATCH]),
        gpus=_int(p, "gpus", "plan", LIMITS[Field.GPUS]),
        rounding=Rounding(rounding),
        gpu_card=card,
        gpu_memory_gb=_optional(_decimal, p, "gpu_memory_gb", "plan", GPU_MEMORY_LIMITS),
        other_memory_gb=_optional(_decimal, p, "other_memory_gb", "plan", OTHER_MEMORY_LIMITS),
        activation_gb=_optional(_decimal, p, "activation_gb", "plan", LIMITS[Field.ACTIVATION_GB]),
        seq_len=_optional(_int, p, "seq_len", "plan", SEQ_LEN_LIMITS),
        dataset_samples=_optional(_int, p, "dataset_samples", "plan", DATASET_LIMITS),
        **_settings(p, version),
    )


def _settings(p: dict[str, Any], version: int) -> dict[str, Any]:
    """The keys of the versions after the first (later ones win)."""
    found: dict[str, Any] = {}
    if version >= 2:
        found.update(_setup(p))
    if version >= 3:
        found.update(_time(p, version))
    if version >= 4:
        found.update(_description(p))
    if version >= 5:
        found.update(_speed_model(p))
    if version >= 6:
        found.update(_vision(p))
    if version >= 7:
        found.update(_framework(p))
    if version >= 8:
        found["cpu_memory_gb"] = _optional(_int, p, "cpu_memory_gb", "plan", CPU_MEMORY_LIMITS)
    if version >= 9:
        fused = p["fused_loss"]
        if not isinstance(fused, bool):
            raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.fused_loss", "expected true or false")
        found["fused_loss"] = fused
    if version >= 10:
        master = _choice(p, "master_weights", tuple(m.value for m in MasterWeights))
        found["master_weights"] = MasterWeights(master)
    if version >= 11:
        found["expert_tensor_parallel"] = _optional(
            _int, p, "expert_tensor_parallel", "plan", LAYOUT_LIMITS
        )
    if version >= 12:
        for key in _MEGATRON_KEYS:
            if not isinstance(p[key], bool):
                raise ScenarioError(ReadProblem.WRONG_TYPE, f"plan.{key}", "expected true or false")
            found[key] = p[key]
    return found


def _framework(p: dict[str, Any]) -> dict[str, Any]:
    sequence_parallel = p["sequence_parallel"]
    if not isinstance(sequence_parallel, bool):
        raise ScenarioError(
            ReadProblem.WRONG_TYPE, "plan.sequence_parallel", "expected true or false"
        )
    return {
        "framework": Framework(_choice(p, "framework", tuple(x.value for x in Framework))),
        "sequence_parallel": sequence_parallel,
    }


def _vision(p: dict[str, Any]) -> dict[str, Any]:
    frozen = p["vision_frozen"]
    if not isinstance(frozen, bool):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.vision_frozen", "expected true or false")
    return {
        "images": _optional(_int, p, "images", "plan", SHAPE_LIMITS["images"]),
        "image_width": _optional(_int, p, "image_width", "plan", SHAPE_LIMITS["image_width"]),
        "image_height": _optional(_int, p, "image_height", "plan", SHAPE_LIMITS["image_height"]),
        "vision_frozen": frozen,
    }


def _bundled(name: Any, path: str) -> ModelSpec:
    if not isinstance(name, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, path, "expected a string")
    if not _MODEL_NAME.fullmatch(name):
        raise ScenarioError(ReadProblem.BAD_CHOICE, path, name[:24])
    # kept even when this build lacks it: the plan says so
    return ModelSpec(ModelSource.BUNDLED, name=name)


def _model_v3(p: dict[str, Any]) -> ModelSpec | None:
    model = p["model"]
    if model is not None:
        if not isinstance(model, str):
            raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.model", "expected a string or null")
        return _bundled(model, "plan.model")
    params = _optional(_int, p, "model_params", "plan", PARAMS_LIMITS)
    return None if params is None else ModelSpec.typed_params(params)


def _model_v4(raw: Any) -> ModelSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ScenarioError(ReadProblem.NOT_AN_OBJECT, "plan.model")
    kind = next(iter(raw))
    path = f"plan.model.{kind}"
    if kind == "bundled":
        return _bundled(raw[kind], path)
    if kind == "params":
        return ModelSpec.typed_params(_int(raw, "params", "plan.model", PARAMS_LIMITS))
    if kind == "config":
        c = _object(raw[kind], path, ("file_name", "text"))
        name, text = c["file_name"], c["text"]
        if not isinstance(name, str) or not isinstance(text, str) or len(name) > 255:
            raise ScenarioError(ReadProblem.WRONG_TYPE, path, "expected a file name and its text")
        try:
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            raise ScenarioError(ReadProblem.BAD_CHOICE, f"{path}.text", exc.detail[:80]) from None
        return ModelSpec.config(arch, name, text)
    if kind == "shape":
        shape = _object(raw[kind], path, _SHAPE_KEYS)
        family = shape["family"]
        if family not in (Family.LLAMA.value, Family.GPT2.value):
            raise ScenarioError(ReadProblem.BAD_CHOICE, f"{path}.family", str(family)[:24])
        sizes = {
            key: _int(shape, key, path, SHAPE_LIMITS["seq" if key == "max_positions" else key])
            for key in _SHAPE_KEYS[1:]
        }
        typed = TypedShape(Family(family), **sizes)
        try:
            typed.model_shape()
        except ValueError as exc:
            raise ScenarioError(ReadProblem.BAD_CHOICE, path, str(exc)[:80]) from None
        return ModelSpec.typed_shape(typed)
    raise ScenarioError(ReadProblem.UNKNOWN_KEY, path)


def _description(p: dict[str, Any]) -> dict[str, Any]:
    targets = p["lora_targets"]
    if not isinstance(targets, str):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.lora_targets", "expected a string")
    chosen: LoraTargets | tuple[str, ...]
    if targets in {t.value for t in LoraTargets}:
        chosen = LoraTargets(targets)
    elif _TARGET_NAMES.fullmatch(targets):
        chosen = tuple(targets.split(","))
    else:
        raise ScenarioError(ReadProblem.BAD_CHOICE, "plan.lora_targets", targets[:24])
    return {
        "model": _model_v4(p["model"]),
        "method": Method(_choice(p, "method", tuple(x.value for x in Method))),
        "lora_rank": _int(p, "lora_rank", "plan", LORA_RANK_LIMITS),
        "lora_targets": chosen,
        "trainable_params": _optional(_int, p, "trainable_params", "plan", PARAMS_LIMITS),
        "optimizer": Optimizer(_choice(p, "optimizer", tuple(x.value for x in Optimizer))),
        "target_seq": _optional(_int, p, "target_seq", "plan", SEQ_LEN_LIMITS),
        "overhead_gb": _decimal(p, "overhead_gb", "plan", OTHER_MEMORY_LIMITS),
    }


def _speed_model(p: dict[str, Any]) -> dict[str, Any]:
    fp8 = p["fp8"]
    if not isinstance(fp8, bool):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "plan.fp8", "expected true or false")
    return {
        "virtual_stages": _int(p, "virtual_stages", "plan", LAYOUT_LIMITS),
        "expert_parallel": _int(p, "expert_parallel", "plan", LAYOUT_LIMITS),
        "context_parallel": _int(p, "context_parallel", "plan", LAYOUT_LIMITS),
        "fp8": fp8,
        "attention": AttentionKernel(
            _choice(p, "attention", tuple(x.value for x in AttentionKernel))
        ),
        "link_gbps": _optional(_decimal, p, "link_gbps", "plan", BANDWIDTH_LIMITS),
        "network_gbps": _optional(_decimal, p, "network_gbps", "plan", BANDWIDTH_LIMITS),
        "goodput_percent": _optional(
            _decimal, p, "goodput_percent", "plan", GOODPUT_PERCENT_LIMITS
        ),
    }


def _time(p: dict[str, Any], version: int) -> dict[str, Any]:
    return {
        "tensor_parallel": _int(p, "tensor_parallel", "plan", LAYOUT_LIMITS),
        "pipeline_stages": _int(p, "pipeline_stages", "plan", LAYOUT_LIMITS),
        "recompute": Recompute(_choice(p, "recompute", tuple(x.value for x in Recompute))),
        "model": _model_v3(p) if version == 3 else None,
        "efficiency_percent": _optional(
            _decimal, p, "efficiency_percent", "plan", EFFICIENCY_PERCENT_LIMITS
        ),
        "price_per_gpu_hour": _optional(_decimal, p, "price_per_gpu_hour", "plan", PRICE_LIMITS),
        "training_tokens": _optional(_int, p, "training_tokens", "plan", TOKENS_LIMITS),
        "epochs": _optional(_int, p, "epochs", "plan", EPOCHS_LIMITS),
        **{key: _optional(_decimal, p, key, "plan", SPEED_LIMITS) for key in SPEED_KEYS},
    }


def _setup(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodes": _int(p, "nodes", "plan", NODES_LIMITS),
        "zero_stage": ZeroStage(_int(p, "zero_stage", "plan", ZERO_LIMITS)),
        "precision": Precision(_choice(p, "precision", tuple(x.value for x in Precision))),
        "offload": Offload(_choice(p, "offload", tuple(x.value for x in Offload))),
    }


def load(data: bytes) -> Scenario:
    """Parse and validate a scenario file; raises ``ScenarioError`` on any defect."""
    if not isinstance(data, bytes | bytearray):
        raise TypeError("load() takes bytes")
    root = _parse(bytes(data))
    if not isinstance(root, dict):
        raise ScenarioError(ReadProblem.NOT_AN_OBJECT)
    if "format" not in root:
        raise ScenarioError(ReadProblem.MISSING_KEY, "format")
    if root["format"] != FORMAT:
        raise ScenarioError(ReadProblem.WRONG_FORMAT, "format")
    if "version" not in root:
        raise ScenarioError(ReadProblem.MISSING_KEY, "version")
    version = root["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise ScenarioError(ReadProblem.WRONG_TYPE, "version", "expected an integer")
    if version not in READABLE_VERSIONS:
        raise ScenarioError(ReadProblem.UNSUPPORTED_VERSION, "version", str(version))
    top = _object(root, "", ("format", "version", "calculator", "plan"))
    return Scenario(calculator=_calculator(top["calculator"]), plan=_plan(top["plan"], version))
