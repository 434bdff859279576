"""Save and load a scenario: the calculator's inputs plus the training description.

File format (UTF-8 JSON, version 6)::

    {
      "format": "gradacc-scenario",
      "version": 6,
      "calculator": {"micro_batch": 4, "accumulation_steps": 8, "gpus": 1,
                     "activation_gb": "0.5"},
      "plan": {"target_batch": 32, "micro_batch": null, "gpus": 1, "rounding": "ceil",
               "gpu_card": "custom", "gpu_memory_gb": null, "other_memory_gb": null,
               "activation_gb": null, "seq_len": null, "dataset_samples": null,
               "nodes": 1, "zero_stage": 0, "precision": "bf16", "offload": "none",
               "tensor_parallel": 1, "pipeline_stages": 1, "recompute": "none",
               "model": null, "efficiency_percent": null,
               "price_per_gpu_hour": null, "training_tokens": null, "epochs": null,
               "custom_tflops": null, "custom_memory_bandwidth_gbps": null,
               "custom_link_gbps": null, "custom_network_gbps": null,
               "method": "full", "lora_rank": 16, "lora_targets": "query_value",
               "trainable_params": null, "optimizer": "adam", "target_seq": null,
               "overhead_gb": "1", "virtual_stages": 1, "expert_parallel": 1,
               "context_parallel": 1, "fp8": false,
               "attention": "sdpa", "link_gbps": null, "network_gbps": null,
               "goodput_percent": null, "images": null, "image_width": null,
               "image_height": null, "vision_frozen": false}
    }

Version 6 adds a vision tower's inputs: images per sample (null: one, for a language
model reading images), their width and height in pixels (null: the model's own size)
and whether the tower is frozen. Files of versions 1 to 5 open with those defaults.

Version 5 adds the time model's newer inputs: the interleaved pipeline's virtual stages
(ignored without pipeline stages), the expert-parallel GPUs of a mixture of experts
(ignored for a dense model), the context-parallel GPUs each sequence is split over
(they add GPUs; a version 5 file without the key has none), FP8 matrix products
around 16-bit training, the attention kernel (``sdpa``: fused/flash, ``eager``), the
links typed over the card's (GB/s per GPU and direction between the GPUs of a node
and between nodes; null: the card's) and the goodput in percent (the share of the
wall-clock time spent training; null: 100). Files of versions 1 to 4 open with one
virtual stage, no expert or context parallelism, no FP8, the fused kernel, the card's
links and a goodput of 100 %; ``efficiency_percent`` null now means
the efficiency model, not the card's one figure.

Version 4 is the training description: ``model`` is an object with one key — a bundled
model (``{"bundled": "llama-3.1-8b"}``), a config.json's name and text (``{"config":
{"file_name": …, "text": …}}``), typed sizes (``{"shape": {"family": "llama", "hidden":
…, "layers": …, "heads": …, "kv_heads": …, "intermediate": …, "vocab": …,
"max_positions": …}}``) or a parameter count (``{"params": …}``) — or null; the method
(``full``/``lora``/``qlora``) with the LoRA rank, the adapted layers (a choice, or PEFT
names separated by commas) and the adapters' parameters when typed; the optimizer; an
encoder-decoder's target length; the framework overhead of the derived other memory.
``activation_gb`` and ``other_memory_gb`` are values typed over the derived figures
(null: derived). Files of versions 1 to 3 open with the figures they give as typed
values, their model (a bundled name, or ``model_params``) and full fine-tuning with Adam.

Version 3 added the time model's inputs: the parallel layout (tensor-parallel size,
pipeline stages), recomputation, the model (a bundled model's name, or its parameters
typed in), the card's efficiency in percent (null: the card's own), a price per
GPU-hour, a token budget, the epochs over the dataset and the custom card's speed
(dense TFLOPS, memory bandwidth, link and network in GB/s). Version 2 files open with
one of each, no recomputation and nothing else.

Version 2 added the training setup the exports describe (``nodes`` over which the
GPUs are split, ZeRO stage, precision, CPU offload). Version 1 files (without those
four keys) still open, with one node, no ZeRO, bf16 and no offload.

Integers are JSON integers; decimals (GB) are strings such as ``"0.5"`` so they stay
exact. Every key is required, no other key is allowed, ``null`` only where shown as
optional in ``PlanSettings``. ``load`` either returns a whole ``Scenario`` or raises
``ScenarioError``: nothing is ever half-applied. ``gpu_card`` is only checked for
shape (``custom`` or a table id); the UI falls back to "custom" for ids it lacks.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NoReturn, TypeVar

from .activation import SHAPE_LIMITS, Attention, Family
from .calculator import DEFAULTS, LIMITS, Field, Inputs, normalize
from .compute import (
    BANDWIDTH_LIMITS,
    EFFICIENCY_PERCENT_LIMITS,
    EPOCHS_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TOKENS_LIMITS,
    Recompute,
)
from .families import ModelConfigError, parse_model_config_text
from .gpus import SPEED_LIMITS
from .layout import LAYOUT_LIMITS
from .limits import Limits, Problem, check
from .lora import LORA_RANK_LIMITS, LoraTargets
from .memory import DEFAULT_OVERHEAD_GB
from .models import ModelSource, ModelSpec, TypedShape
from .planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
    Rounding,
)
from .setup import Offload, Precision, ZeroStage
from .training.description import Method, Optimizer

FORMAT = "gradacc-scenario"
VERSION = 6
#: Versions ``load`` reads.
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
NODES_LIMITS = LIMITS[Field.GPUS]
#: the share of the wall-clock time spent training, as the window asks it: in percent
#: (``compute.GOODPUT_LIMITS`` times 100)
GOODPUT_PERCENT_LIMITS = Limits(Decimal(1), Decimal(100), integer=False, decimals=2)
#: Largest file accepted (bytes): room for a model's config.json (at most 2 MB read,
#: real ones well under 20 kB) in version 4.
MAX_BYTES = 256 * 1024
#: Deepest nesting accepted (the schema needs 2).
MAX_DEPTH = 8
#: Longest JSON integer literal accepted (digits); real values have at most 16.
MAX_INT_DIGITS = 20

_DECIMAL_TEXT = re.compile(r"-?\d{1,20}(\.\d{1,20})?")
_CARD_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class Reason(enum.Enum):
    TOO_LARGE = "too_large"  #: file over MAX_BYTES
    NOT_UTF8 = "not_utf8"
    BAD_JSON = "bad_json"  #: syntax error or empty file
    TOO_DEEP = "too_deep"
    DUPLICATE_KEY = "duplicate_key"
    NOT_AN_OBJECT = "not_an_object"  #: root (or a section) is not a JSON object
    WRONG_FORMAT = "wrong_format"  #: "format" is not "gradacc-scenario"
    UNSUPPORTED_VERSION = "unsupported_version"
    MISSING_KEY = "missing_key"
    UNKNOWN_KEY = "unknown_key"
    WRONG_TYPE = "wrong_type"  #: e.g. string for an int, 4.0 for an int, true for an int
    NOT_A_NUMBER = "not_a_number"  #: NaN, Infinity, "abc" for a decimal
    NUMBER_TOO_LARGE = "number_too_large"  #: integer literal with too many digits
    NOT_AN_INTEGER = "not_an_integer"
    OUT_OF_RANGE = "out_of_range"
    TOO_PRECISE = "too_precise"  #: more than 3 decimals
    BAD_CHOICE = "bad_choice"  #: unknown rounding mode or malformed card id


class ScenarioError(ValueError):
    """The file cannot be loaded. ``path`` names the offending key ("plan.gpus")."""

    def __init__(
        self, reason: Reason, path: str = "", detail: str = "", limits: Limits | None = None
    ) -> None:
        where = f" at {path}" if path else ""
        super().__init__(f"{reason.value}{where}: {detail}" if detail else f"{reason.value}{where}")
        self.reason = reason
        self.path = path
        self.detail = detail
        # the limits a number broke (out of range, too precise), for the message
        self.limits = limits


@dataclass(frozen=True)
class PlanSettings:
    target_batch: int = 32
    #: None: let the planner recommend one
    micro_batch: int | None = None
    gpus: int = 1
    rounding: Rounding = Rounding.CEIL
    #: "custom" or an id from the GPU table
    gpu_card: str = "custom"
    gpu_memory_gb: Decimal | None = None
    other_memory_gb: Decimal | None = None
    activation_gb: Decimal | None = None
    seq_len: int | None = None
    dataset_samples: int | None = None
    # the training setup of the exports (version 2)
    nodes: int = 1
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: Precision = Precision.BF16
    offload: Offload = Offload.NONE
    # the time model (version 3)
    tensor_parallel: int = 1
    pipeline_stages: int = 1
    recompute: Recompute = Recompute.NONE
    #: the model (a bundled name the app lacks is kept, and said, by the UI), or None
    model: ModelSpec | None = None
    #: None: the efficiency model (one share of the peak only when typed)
    efficiency_percent: Decimal | None = None
    price_per_gpu_hour: Decimal | None = None
    training_tokens: int | None = None
    epochs: int | None = None
    custom_tflops: Decimal | None = None
    custom_memory_bandwidth_gbps: Decimal | None = None
    custom_link_gbps: Decimal | None = None
    custom_network_gbps: Decimal | None = None
    # the training description (version 4)
    method: Method = Method.FULL
    lora_rank: int = 16
    #: a choice, or PEFT target_modules names
    lora_targets: LoraTargets | tuple[str, ...] = LoraTargets.QUERY_VALUE
    trainable_params: int | None = None
    optimizer: Optimizer = Optimizer.ADAM
    target_seq: int | None = None
    overhead_gb: Decimal = DEFAULT_OVERHEAD_GB
    # the time model's newer inputs (version 5)
    #: interleaved 1F1B: model chunks per GPU (ignored without pipeline stages)
    virtual_stages: int = 1
    #: GPUs a mixture of experts' routed experts are spread over (1: every GPU holds all)
    expert_parallel: int = 1
    #: GPUs each sequence is split over (context parallelism; adds GPUs)
    context_parallel: int = 1
    #: FP8 matrix products around 16-bit training
    fp8: bool = False
    # a vision tower's inputs (version 6; None: one image at the model's own size)
    images: int | None = None
    image_width: int | None = None
    image_height: int | None = None
    vision_frozen: bool = False
    attention: Attention = Attention.SDPA
    #: GB/s per GPU and direction, between the GPUs of a node / between nodes (None:
    #: the card's)
    link_gbps: Decimal | None = None
    network_gbps: Decimal | None = None
    #: share of the wall-clock time spent training, in percent (None: 100)
    goodput_percent: Decimal | None = None


@dataclass(frozen=True)
class Scenario:
    calculator: Inputs = DEFAULTS
    plan: PlanSettings = field(default_factory=PlanSettings)


# --------------------------------------------------------------------------- saving


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format(normalize(value), "f")


def to_dict(scenario: Scenario) -> dict[str, Any]:
    c, p = scenario.calculator, scenario.plan
    return {
        "format": FORMAT,
        "version": VERSION,
        "calculator": {
            "micro_batch": c.micro_batch,
            "accumulation_steps": c.accumulation_steps,
            "gpus": c.gpus,
            "activation_gb": _dec(c.activation_gb),
        },
        "plan": {
            "target_batch": p.target_batch,
            "micro_batch": p.micro_batch,
            "gpus": p.gpus,
            "rounding": p.rounding.value,
            "gpu_card": p.gpu_card,
            "gpu_memory_gb": _dec(p.gpu_memory_gb),
            "other_memory_gb": _dec(p.other_memory_gb),
            "activation_gb": _dec(p.activation_gb),
            "seq_len": p.seq_len,
            "dataset_samples": p.dataset_samples,
            "nodes": p.nodes,
            "zero_stage": int(p.zero_stage),
            "precision": p.precision.value,
            "offload": p.offload.value,
            "tensor_parallel": p.tensor_parallel,
            "pipeline_stages": p.pipeline_stages,
            "recompute": p.recompute.value,
            "model": _model_dict(p.model),
            "efficiency_percent": _dec(p.efficiency_percent),
            "price_per_gpu_hour": _dec(p.price_per_gpu_hour),
            "training_tokens": p.training_tokens,
            "epochs": p.epochs,
            **{key: _dec(getattr(p, key)) for key in _SPEED_KEYS},
            "method": p.method.value,
            "lora_rank": p.lora_rank,
            "lora_targets": (
                p.lora_targets.value
                if isinstance(p.lora_targets, LoraTargets)
                else ",".join(p.lora_targets)
            ),
            "trainable_params": p.trainable_params,
            "optimizer": p.optimizer.value,
            "target_seq": p.target_seq,
            "overhead_gb": _dec(p.overhead_gb),
            "virtual_stages": p.virtual_stages,
            "expert_parallel": p.expert_parallel,
            "context_parallel": p.context_parallel,
            "fp8": p.fp8,
            "attention": p.attention.value,
            "link_gbps": _dec(p.link_gbps),
            "network_gbps": _dec(p.network_gbps),
            "goodput_percent": _dec(p.goodput_percent),
            "images": p.images,
            "image_width": p.image_width,
            "image_height": p.image_height,
            "vision_frozen": p.vision_frozen,
        },
    }


def _model_dict(model: ModelSpec | None) -> dict[str, Any] | None:
    if model is None:
        return None
    if model.source is ModelSource.BUNDLED:
        return {"bundled": model.name}
    if model.source is ModelSource.PARAMS:
        return {"params": model.params}
    if model.source is ModelSource.CONFIG:
        return {"config": {"file_name": model.file_name, "text": model.text}}
    shape = model.shape
    assert shape is not None
    return {
        "shape": {
            "family": shape.family.value,
            "hidden": shape.hidden,
            "layers": shape.layers,
            "heads": shape.heads,
            "kv_heads": shape.kv_heads,
            "intermediate": shape.intermediate,
            "vocab": shape.vocab,
            "max_positions": shape.max_positions,
        }
    }


def save(scenario: Scenario) -> bytes:
    """The scenario as UTF-8 JSON bytes (indented, trailing newline)."""
    return (json.dumps(to_dict(scenario), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- loading


class _Rejected(Exception):
    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Rejected(Reason.DUPLICATE_KEY, key)
        result[key] = value
    return result


def _no_constants(name: str) -> NoReturn:
    raise _Rejected(Reason.NOT_A_NUMBER, name)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Rejected(Reason.NUMBER_TOO_LARGE, text[:24] + "…")
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
        raise ScenarioError(Reason.TOO_LARGE, detail=f"{len(data)} bytes > {MAX_BYTES}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(Reason.NOT_UTF8, detail=str(exc)) from None
    if _depth(text) > MAX_DEPTH:
        raise ScenarioError(Reason.TOO_DEEP, detail=f"more than {MAX_DEPTH} levels")
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
        raise ScenarioError(Reason.BAD_JSON, detail=str(exc)) from None


def _object(value: Any, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(Reason.NOT_AN_OBJECT, path)
    for key in keys:
        if key not in value:
            raise ScenarioError(Reason.MISSING_KEY, f"{path}.{key}" if path else key)
    for key in value:
        if key not in keys:
            raise ScenarioError(Reason.UNKNOWN_KEY, f"{path}.{key}" if path else key)
    return value


_PROBLEM_REASONS = {
    Problem.NOT_A_NUMBER: Reason.NOT_A_NUMBER,
    Problem.NOT_AN_INTEGER: Reason.NOT_AN_INTEGER,
    Problem.TOO_SMALL: Reason.OUT_OF_RANGE,
    Problem.TOO_LARGE: Reason.OUT_OF_RANGE,
    Problem.TOO_PRECISE: Reason.TOO_PRECISE,
    Problem.MISSING: Reason.MISSING_KEY,
}


def _int(section: dict[str, Any], key: str, path: str, limits: Limits) -> int:
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(Reason.WRONG_TYPE, f"{path}.{key}", "expected an integer")
    problem = check(limits, value)
    if problem is not None:
        raise ScenarioError(_PROBLEM_REASONS[problem], f"{path}.{key}", str(value), limits)
    return value


def _decimal(section: dict[str, Any], key: str, path: str, limits: Limits) -> Decimal:
    value = section[key]
    if not isinstance(value, str):
        raise ScenarioError(Reason.WRONG_TYPE, f"{path}.{key}", 'expected a string like "0.5"')
    if not _DECIMAL_TEXT.fullmatch(value):
        raise ScenarioError(Reason.NOT_A_NUMBER, f"{path}.{key}", value[:24])
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
_SPEED_KEYS = (
    "custom_tflops",
    "custom_memory_bandwidth_gbps",
    "custom_link_gbps",
    "custom_network_gbps",
)
_TIME_KEYS = (
    "tensor_parallel",
    "pipeline_stages",
    "recompute",
    "model",
    "efficiency_percent",
    "price_per_gpu_hour",
    "training_tokens",
    "epochs",
    *_SPEED_KEYS,
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
_SHAPE_KEYS = ("family", "hidden", "layers", "heads", "kv_heads", "intermediate", "vocab",
               "max_positions")  # fmt: skip
_TARGET_NAMES = re.compile(r"[A-Za-z0-9_.-]{1,64}(,[A-Za-z0-9_.-]{1,64}){0,31}")


def _calculator(raw: Any) -> Inputs:
    c = _object(raw, "calculator", _CALC_KEYS)
    return Inputs(
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
        raise ScenarioError(Reason.WRONG_TYPE, f"plan.{key}", "expected a string")
    if value not in choices:
        raise ScenarioError(Reason.BAD_CHOICE, f"plan.{key}", value[:24])
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
    p = _object(raw, "plan", keys)
    rounding = p["rounding"]
    if not isinstance(rounding, str):
        raise ScenarioError(Reason.WRONG_TYPE, "plan.rounding", "expected a string")
    if rounding not in {r.value for r in Rounding}:
        raise ScenarioError(Reason.BAD_CHOICE, "plan.rounding", rounding[:24])
    card = p["gpu_card"]
    if not isinstance(card, str):
        raise ScenarioError(Reason.WRONG_TYPE, "plan.gpu_card", "expected a string")
    if not _CARD_ID.fullmatch(card):
        raise ScenarioError(Reason.BAD_CHOICE, "plan.gpu_card", card[:24])
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
    return found


def _vision(p: dict[str, Any]) -> dict[str, Any]:
    frozen = p["vision_frozen"]
    if not isinstance(frozen, bool):
        raise ScenarioError(Reason.WRONG_TYPE, "plan.vision_frozen", "expected true or false")
    return {
        "images": _optional(_int, p, "images", "plan", SHAPE_LIMITS["images"]),
        "image_width": _optional(_int, p, "image_width", "plan", SHAPE_LIMITS["image_width"]),
        "image_height": _optional(_int, p, "image_height", "plan", SHAPE_LIMITS["image_height"]),
        "vision_frozen": frozen,
    }


def _bundled(name: Any, path: str) -> ModelSpec:
    if not isinstance(name, str):
        raise ScenarioError(Reason.WRONG_TYPE, path, "expected a string")
    if not _MODEL_NAME.fullmatch(name):
        raise ScenarioError(Reason.BAD_CHOICE, path, name[:24])
    # kept even when this build lacks it: the plan says so
    return ModelSpec(ModelSource.BUNDLED, name=name)


def _model_v3(p: dict[str, Any]) -> ModelSpec | None:
    model = p["model"]
    if model is not None:
        if not isinstance(model, str):
            raise ScenarioError(Reason.WRONG_TYPE, "plan.model", "expected a string or null")
        return _bundled(model, "plan.model")
    params = _optional(_int, p, "model_params", "plan", PARAMS_LIMITS)
    return None if params is None else ModelSpec.typed_params(params)


def _model_v4(raw: Any) -> ModelSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ScenarioError(Reason.NOT_AN_OBJECT, "plan.model")
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
            raise ScenarioError(Reason.WRONG_TYPE, path, "expected a file name and its text")
        try:
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            raise ScenarioError(Reason.BAD_CHOICE, f"{path}.text", exc.detail[:80]) from None
        return ModelSpec.config(arch, name, text)
    if kind == "shape":
        shape = _object(raw[kind], path, _SHAPE_KEYS)
        family = shape["family"]
        if family not in (Family.LLAMA.value, Family.GPT2.value):
            raise ScenarioError(Reason.BAD_CHOICE, f"{path}.family", str(family)[:24])
        sizes = {
            key: _int(shape, key, path, SHAPE_LIMITS["seq" if key == "max_positions" else key])
            for key in _SHAPE_KEYS[1:]
        }
        typed = TypedShape(Family(family), **sizes)
        try:
            typed.model_shape()
        except ValueError as exc:
            raise ScenarioError(Reason.BAD_CHOICE, path, str(exc)[:80]) from None
        return ModelSpec.typed_shape(typed)
    raise ScenarioError(Reason.UNKNOWN_KEY, path)


def _description(p: dict[str, Any]) -> dict[str, Any]:
    targets = p["lora_targets"]
    if not isinstance(targets, str):
        raise ScenarioError(Reason.WRONG_TYPE, "plan.lora_targets", "expected a string")
    chosen: LoraTargets | tuple[str, ...]
    if targets in {t.value for t in LoraTargets}:
        chosen = LoraTargets(targets)
    elif _TARGET_NAMES.fullmatch(targets):
        chosen = tuple(targets.split(","))
    else:
        raise ScenarioError(Reason.BAD_CHOICE, "plan.lora_targets", targets[:24])
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
        raise ScenarioError(Reason.WRONG_TYPE, "plan.fp8", "expected true or false")
    return {
        "virtual_stages": _int(p, "virtual_stages", "plan", LAYOUT_LIMITS),
        "expert_parallel": _int(p, "expert_parallel", "plan", LAYOUT_LIMITS),
        "context_parallel": _int(p, "context_parallel", "plan", LAYOUT_LIMITS),
        "fp8": fp8,
        "attention": Attention(_choice(p, "attention", tuple(x.value for x in Attention))),
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
        **{key: _optional(_decimal, p, key, "plan", SPEED_LIMITS) for key in _SPEED_KEYS},
    }


def _setup(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodes": _int(p, "nodes", "plan", NODES_LIMITS),
        "zero_stage": ZeroStage(_int(p, "zero_stage", "plan", ZERO_LIMITS)),
        "precision": Precision(_choice(p, "precision", tuple(x.value for x in Precision))),
        "offload": Offload(_choice(p, "offload", tuple(x.value for x in Offload))),
    }


ZERO_LIMITS = Limits(Decimal(0), Decimal(3), integer=True)


def load(data: bytes) -> Scenario:
    """Parse and validate a scenario file; raises ``ScenarioError`` on any defect."""
    if not isinstance(data, bytes | bytearray):
        raise TypeError("load() takes bytes")
    root = _parse(bytes(data))
    if not isinstance(root, dict):
        raise ScenarioError(Reason.NOT_AN_OBJECT)
    if "format" not in root:
        raise ScenarioError(Reason.MISSING_KEY, "format")
    if root["format"] != FORMAT:
        raise ScenarioError(Reason.WRONG_FORMAT, "format")
    if "version" not in root:
        raise ScenarioError(Reason.MISSING_KEY, "version")
    version = root["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise ScenarioError(Reason.WRONG_TYPE, "version", "expected an integer")
    if version not in READABLE_VERSIONS:
        raise ScenarioError(Reason.UNSUPPORTED_VERSION, "version", str(version))
    top = _object(root, "", ("format", "version", "calculator", "plan"))
    return Scenario(calculator=_calculator(top["calculator"]), plan=_plan(top["plan"], version))
