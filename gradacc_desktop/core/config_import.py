"""Read an existing training config and say what it sets: "check my config".

``read_config(path_or_text)`` recognises, by content rather than by file name:

* a DeepSpeed JSON (``ds_config.json``): the batch triple, ``zero_optimization`` (stage
  and offload devices) and ``bf16`` / ``fp16``;
* an ``accelerate config`` YAML: processes, machines, ``mixed_precision``,
  ``distributed_type`` and ``deepspeed_config`` (following its
  ``deepspeed_config_file`` when that file is there);
* an axolotl YAML: micro-batch, accumulation steps, precision, LoRA / QLoRA settings,
  sequence length, base model and the DeepSpeed JSON named by ``deepspeed``.

Every value it reads is an ``int``, an enum, a string or ``None`` when the file does not
give it; a key set to ``"auto"`` (the trainer fills it) is listed in ``auto_keys``, and a
key it found but could not use (wrong type, out of range, unknown device, a file it
could not follow, a value conflicting with another file) is listed in ``unread`` with
the reason. ``derived(gpus)`` replays DeepSpeed's own derivation of a missing batch value
(``planning.deepspeed_check``) and Megatron's rule, and ``setup(gpus)`` gives the
``TrainingSetup`` once enough is known, or names what is missing.

Pure Python (no Qt); the parser is PyYAML's ``safe_load`` (JSON is read by ``json``).
Messages are English ``Message`` strings (``core.text``): the command line prints them
as they are, the window translates them (context "ConfigImport").
"""

from __future__ import annotations

import difflib
import enum
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from .calculator import LIMITS, Field
from .frameworks import MegatronCheck, megatron_check
from .memory import ZeroStage
from .planning import (
    MAX_TARGET_BATCH,
    SEQ_LEN_LIMITS,
    DeepSpeedCheck,
    DeepSpeedReason,
    deepspeed_check,
)
from .setup import Offload, Precision, TrainingSetup, problem_text, setup_problem
from .text import Message, trans_late

__all__ = [
    "MAX_CONFIG_BYTES",
    "MISSING_NAMES",
    "Adapter",
    "ConfigImportError",
    "ConfigKind",
    "Derived",
    "ImportedConfig",
    "ResolvedFile",
    "UnknownKey",
    "Unread",
    "deepspeed_text",
    "read_config",
]

# Config files are a few kilobytes; anything larger is not one.
MAX_CONFIG_BYTES = 2_000_000
# How deep and how many "auto" keys are listed.
_MAX_DEPTH = 16
_MAX_AUTO_KEYS = 500

_MAX_MICRO = int(LIMITS[Field.MICRO_BATCH].maximum)
_MAX_STEPS = int(LIMITS[Field.ACCUMULATION_STEPS].maximum)
_MAX_GPUS = int(LIMITS[Field.GPUS].maximum)
_MAX_NODES = 1_000_000
_MAX_RANK = 1_000_000
_MAX_SEQ = int(SEQ_LEN_LIMITS.maximum)


class ConfigImportError(ValueError):
    """The file cannot be read, is not JSON or YAML, or is of no recognised kind.

    ``message`` is the English ``Message`` (``str(error)`` is its text)."""

    def __init__(self, message: Message) -> None:
        super().__init__(message)
        self.message = message


class ConfigKind(enum.Enum):
    DEEPSPEED = "deepspeed"
    ACCELERATE = "accelerate"
    AXOLOTL = "axolotl"


KIND_NAMES = {
    ConfigKind.DEEPSPEED: "DeepSpeed config",
    ConfigKind.ACCELERATE: "accelerate config",
    ConfigKind.AXOLOTL: "axolotl config",
}


class Adapter(enum.Enum):
    LORA = "lora"
    QLORA = "qlora"


@dataclass(frozen=True)
class Unread:
    """A key that was found but could not be used."""

    key: str
    # the value as found, shortened ("nvme", -1, "a list of 3 items")
    value: str
    # why (an English ``Message``)
    reason: str
    # the framework itself refuses the value (wrong type, zero or negative), rather
    # than gradacc not modelling it
    refused: bool = dc_field(default=False, compare=False)


@dataclass(frozen=True)
class UnknownKey:
    """A key the framework reading it does not know."""

    key: str
    # the known key it is closest to ("zero_optimization"), or None
    suggestion: str | None
    # the framework refuses the file for it (accelerate's config loader, DeepSpeed's
    # ZeRO settings), rather than ignoring it (DeepSpeed's top-level keys)
    refused: bool
    # what the framework does with it (an English ``Message``)
    reason: str


@dataclass(frozen=True)
class ResolvedFile:
    """A file the config names (axolotl's ``deepspeed``, accelerate's
    ``deepspeed_config_file``) and where it was found."""

    key: str
    # the reference as written
    reference: str
    # the file read, or None when it was not found
    path: str | None
    # "launch folder" (the current working directory), "config folder" (next to the
    # config) or "absolute"; None when not found
    where: str | None


# What ``setup`` and ``derived`` call each value when it is missing.
MISSING_NAMES = {
    "micro_batch": trans_late("ConfigImport", "micro-batch"),
    "accumulation_steps": trans_late("ConfigImport", "accumulation steps"),
    "train_batch_size": trans_late("ConfigImport", "train batch size"),
    "gpus": trans_late("ConfigImport", "GPU count"),
    "nodes": trans_late("ConfigImport", "node count"),
    "zero_stage": trans_late("ConfigImport", "ZeRO stage"),
    "precision": trans_late("ConfigImport", "precision"),
    "offload": trans_late("ConfigImport", "offload"),
    "data_parallel": trans_late("ConfigImport", "data-parallel size"),
}

# The batch values, as DeepSpeed names them in its check.
_BATCH_FIELDS = ("micro_batch", "accumulation_steps", "train_batch_size")
_CHECK_NAMES = {
    "micro_batch": "micro_batch",
    "grad_acc": "accumulation_steps",
    "train_batch_size": "train_batch_size",
}


@dataclass(frozen=True)
class Derived:
    """The batch values once the GPU count is known, as the frameworks resolve them."""

    micro_batch: int | None
    accumulation_steps: int | None
    train_batch_size: int | None
    gpus: int | None
    # "argument" (given by the caller), "file", "derived" (train / (micro x steps)) or None
    gpus_from: str | None
    # values the file does not give, taken from DeepSpeed's derivation or the
    # framework's default (field names, e.g. "accumulation_steps", "gpus")
    derived: tuple[str, ...]
    # one English sentence per derived value
    notes: tuple[str, ...]
    # DeepSpeed's resolution of the batch values (None until they and the GPUs are known)
    deepspeed: DeepSpeedCheck | None
    # Megatron given the train batch as --global-batch-size and the micro-batch
    megatron: MegatronCheck | None
    # micro x steps x GPUs, when known and accepted
    effective_batch: int | None
    # English names of the batch values still missing (MISSING_NAMES)
    missing: tuple[str, ...]
    # why these values cannot run at all (one English sentence), or None
    problem: str | None
    # data-parallel replicas: GPUs / (tensor x pipeline x context), or the sharded and
    # replicated sizes (None until the GPUs are known or when the sizes do not fit)
    data_parallel: int | None = None
    # the parallel sizes the framework uses, ("tensor", 2), ("pipeline", 4), ...
    parallel: tuple[tuple[str, int], ...] = ()
    # the framework's warnings about values it runs anyway (English sentences)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportedConfig:
    kind: ConfigKind
    # what messages call the file (its path, or the name the caller gave)
    source: str = "config"
    micro_batch: int | None = None
    accumulation_steps: int | None = None
    # DeepSpeed's train_batch_size (micro x steps x GPUs)
    train_batch_size: int | None = None
    # axolotl's batch_size: micro-batch x accumulation steps on one GPU
    batch_per_gpu: int | None = None
    # processes in all (accelerate's num_processes)
    gpus: int | None = None
    nodes: int | None = None
    zero_stage: ZeroStage | None = None
    precision: Precision | None = None
    offload: Offload | None = None
    # accelerate's distributed_type (NO, MULTI_GPU, DEEPSPEED, FSDP, ...)
    distributed_type: str | None = None
    adapter: Adapter | None = None
    lora_rank: int | None = None
    lora_targets: tuple[str, ...] | None = None
    # the frozen base model loaded in 4 bits (QLoRA)
    base_4bit: bool | None = None
    # the frozen base model loaded in 8 bits (axolotl's load_in_8bit)
    base_8bit: bool | None = None
    sequence_length: int | None = None
    base_model: str | None = None
    # keys set to "auto", which the trainer fills
    auto_keys: tuple[str, ...] = ()
    # keys found but not used, each with its reason
    unread: tuple[Unread, ...] = ()
    # fields whose key is present but "auto" or unread: no framework default stands in
    unresolved: tuple[str, ...] = ()
    # the subset of ``unresolved`` that is "auto"
    auto_fields: tuple[str, ...] = ()
    # the key each value was read from (field name, key), in reading order
    keys: tuple[tuple[str, str], ...] = ()
    # other files read on the way (DeepSpeed JSONs named by the config)
    followed: tuple[str, ...] = ()
    # parallel sizes as read: (name, size, key); names "tensor", "pipeline", "context",
    # "shard", "replicate", "sequence"
    parallel: tuple[tuple[str, int, str], ...] = ()
    # axolotl's fsdp / fsdp_config is set (its dp_shard_size needs it)
    uses_fsdp: bool = False
    # keys the framework does not know, with the nearest known key
    unknown_keys: tuple[UnknownKey, ...] = ()
    # the files the config names and where each was found (or not)
    resolved_files: tuple[ResolvedFile, ...] = ()
    # axolotl: which of micro_batch_size, gradient_accumulation_steps and batch_size
    # are set to a value axolotl counts as set (not empty, 0 or false)
    batch_keys_set: tuple[str, ...] = ()

    # ------------------------------------------------------------------ reading out

    def key_of(self, field: str) -> str | None:
        """The key ``field`` was read from ("micro_batch_size"), or None."""
        for name, key in self.keys:
            if name == field:
                return key
        return None

    def values(self) -> dict[str, Any]:
        """Every value as read (JSON types: ints, strings, booleans, lists, None)."""
        out: dict[str, Any] = {}
        for name in _VALUE_FIELDS:
            value = getattr(self, name)
            if isinstance(value, ZeroStage):
                value = int(value)
            elif isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out

    # ------------------------------------------------------------------ resolving

    def derived(self, gpus: int | None = None) -> Derived:
        """The batch values with ``gpus`` GPUs (None: the file's count, or the count the
        DeepSpeed triple implies), resolved as the framework that reads them would.

        * a DeepSpeed JSON alone: DeepSpeed derives a missing batch value from the two
          others (``planning.deepspeed_check``) and refuses values that do not agree;
        * axolotl: a missing ``gradient_accumulation_steps`` is ``batch_size //
          micro_batch_size``, or 1 without ``batch_size``;
        * accelerate: the micro-batch (and, without DeepSpeed, the accumulation steps)
          are given to the script, not the config file: they stay missing unless a
          followed DeepSpeed JSON gives them.

        A value set to "auto" is not derived (the trainer fills it from its own
        arguments), except ``train_batch_size`` next to an explicit micro-batch and
        accumulation steps: the trainer computes it as DeepSpeed would.
        """
        if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1):
            raise ValueError(f"gpus must be an integer >= 1, got {gpus!r}")
        return _resolve(self, gpus)

    def missing(self, gpus: int | None = None) -> list[str]:
        """English names of what ``setup(gpus)`` still needs (empty when nothing is)."""
        names = list(self.derived(gpus).missing)
        for name in ("nodes", "zero_stage", "precision", "offload"):
            if name in self.unresolved:
                names.append(MISSING_NAMES[name])
        return names

    def setup(self, gpus: int | None = None) -> tuple[TrainingSetup | None, list[str]]:
        """The training setup this config describes on ``gpus`` GPUs (see ``derived``).

        Returns ``(setup, [])`` when enough is known. Otherwise ``(None, reasons)``:
        the English names of the missing values (``MISSING_NAMES``), or, when every
        value is known but they cannot run, the one sentence saying why (DeepSpeed
        refuses the batch values, GPUs not split evenly over the nodes, ...).

        A key the file does not have takes the framework's default: one node, no ZeRO,
        no offload, fp32 (DeepSpeed without ``bf16``/``fp16`` sections, accelerate
        without ``mixed_precision``, axolotl without ``bf16``/``fp16``). A key set to
        "auto" or unreadable has no default: it is missing.
        """
        d = self.derived(gpus)
        if d.problem is not None:
            return None, [d.problem]
        missing = self.missing(gpus)
        if missing:
            return None, missing
        assert d.micro_batch is not None and d.accumulation_steps is not None
        assert d.gpus is not None and d.data_parallel is not None
        sizes = dict(d.parallel)
        setup = TrainingSetup(
            micro_batch=d.micro_batch,
            accumulation_steps=d.accumulation_steps,
            gpus=d.data_parallel,
            tensor_parallel=sizes.get("tensor", 1),
            pipeline_stages=sizes.get("pipeline", 1),
            context_parallel=sizes.get("context", 1),
            nodes=self.nodes or 1,
            zero_stage=ZeroStage.NONE if self.zero_stage is None else self.zero_stage,
            precision=self.precision or Precision.FP32,
            offload=self.offload or Offload.NONE,
        )
        problem = setup_problem(setup)
        if problem is not None:
            return None, [problem_text(problem, setup)]
        return setup, []


_VALUE_FIELDS = tuple(
    f.name
    for f in fields(ImportedConfig)
    if f.name
    not in {
        "kind",
        "source",
        "auto_keys",
        "unread",
        "unresolved",
        "auto_fields",
        "keys",
        "followed",
        "parallel",
        "uses_fsdp",
        "unknown_keys",
        "resolved_files",
        "batch_keys_set",
    }
)


# --------------------------------------------------------------------------- resolving


def deepspeed_text(check: DeepSpeedCheck) -> str:
    """DeepSpeed's verdict on the batch values, as one English sentence."""
    t, b, a, g = check.train_batch_size, check.micro_batch, check.grad_acc, check.world_size
    r = DeepSpeedReason
    if check.reason is r.OK:
        return trans_late(
            "ConfigImport", "DeepSpeed accepts train_batch_size {t} = {b} x {a} x {g} GPU(s)."
        ).format(t=t, b=b, a=a, g=g)
    if check.reason is r.MISSING_BATCH_SIZE:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses it: neither train_batch_size nor train_micro_batch_size_per_gpu.",
        ).format()
    if check.reason is r.NON_POSITIVE:
        return trans_late(
            "ConfigImport", "DeepSpeed refuses a batch value that is zero or negative."
        ).format()
    if check.reason is r.PRODUCT_MISMATCH:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t}: {b} (micro-batch) x {a} (accumulation "
            "steps) x {g} GPU(s) = {product}.",
        ).format(t=t, b=b, a=a, g=g, product=check.product)
    if check.reason is r.NOT_DIVISIBLE:
        names = [MISSING_NAMES[_CHECK_NAMES[n]] for n in check.derived]
        both = (
            names[0]
            if len(names) == 1
            else trans_late("ConfigImport", "{first} and {second}").format(
                first=names[0], second=names[1]
            )
        )
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it derives the {names} "
            "by whole division, and {b} x {a} x {g} = {product}, not {t}.",
        ).format(t=t, g=g, names=both, b=b, a=a, product=check.product)
    if check.reason is r.DERIVED_ZERO_STEPS:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than "
            "micro-batch x GPUs ({b} x {g}), so the derived accumulation steps are 0.",
        ).format(t=t, g=g, b=b)
    return trans_late(
        "ConfigImport",
        "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than "
        "accumulation steps x GPUs ({a} x {g}), so the derived micro-batch is 0.",
    ).format(t=t, g=g, a=a)


def _resolve(config: ImportedConfig, gpus: int | None) -> Derived:
    b, a, t = config.micro_batch, config.accumulation_steps, config.train_batch_size
    unresolved = set(config.unresolved)
    derived: list[str] = []
    notes: list[str] = []
    missing: list[str] = []
    problem: str | None = None
    ds_check: DeepSpeedCheck | None = None
    mg_check: MegatronCheck | None = None
    effective: int | None = None

    # A train_batch_size left "auto" next to an explicit micro-batch and steps is what
    # DeepSpeed would derive without it: the trainer computes micro x steps x GPUs.
    blocked = [f for f in _BATCH_FIELDS if f in unresolved]
    if (
        blocked == ["train_batch_size"]
        and "train_batch_size" in config.auto_fields
        and b is not None
        and a is not None
    ):
        blocked = []

    warnings: list[str] = []
    if config.kind is ConfigKind.AXOLOTL:
        problem = _axolotl_batch_problem(config)
        if config.batch_per_gpu is not None and problem is None:
            # axolotl, src/axolotl/utils/schemas/config.py, AxolotlInputConfig
            # field_validator("batch_size") hint_batch_size_set(): any batch_size logs
            # "batch_size is not recommended. Please use gradient_accumulation_steps
            # instead. To calculate the equivalent gradient_accumulation_steps, divide
            # batch_size / micro_batch_size / number of gpus." (the old, global meaning)
            warnings.append(
                trans_late(
                    "ConfigImport",
                    "axolotl warns that batch_size is not recommended: it reads batch_size "
                    "{batch} as micro_batch_size x gradient_accumulation_steps on one GPU; a "
                    "batch_size meant as the global batch gives the accumulation steps as "
                    "batch_size / micro_batch_size / GPUs instead. Set "
                    "gradient_accumulation_steps.",
                ).format(batch=config.batch_per_gpu)
            )

    # axolotl's derivation of the accumulation steps
    if (
        config.kind is ConfigKind.AXOLOTL
        and problem is None
        and a is None
        and b is not None
        and "accumulation_steps" not in blocked
        and config.batch_per_gpu is not None
    ):
        # axolotl, src/axolotl/utils/config/__init__.py normalize_config():
        # gradient_accumulation_steps = gradient_accumulation_steps or
        # (batch_size // micro_batch_size)
        a = config.batch_per_gpu // b
        derived.append("accumulation_steps")
        notes.append(
            trans_late(
                "ConfigImport",
                "accumulation steps = batch_size // micro_batch_size = "
                "{batch} // {b} = {a} (axolotl's rule)",
            ).format(batch=config.batch_per_gpu, b=b, a=a)
        )
        if a == 0:
            problem = trans_late(
                "ConfigImport",
                "batch_size {batch} is smaller than micro_batch_size {b}: "
                "axolotl derives 0 accumulation steps.",
            ).format(batch=config.batch_per_gpu, b=b)
            a = None

    # the GPU count: the caller's, the file's, or what DeepSpeed's triple implies
    g: int | None = None
    gpus_from: str | None = None
    if gpus is not None:
        g, gpus_from = gpus, "argument"
    elif config.gpus is not None:
        g, gpus_from = config.gpus, "file"
    elif t is not None and b is not None and a is not None and not blocked:
        if t % (b * a) == 0:
            # the triple gives the data-parallel replicas; each holds tensor x
            # pipeline x context GPUs
            g, gpus_from = t // (b * a) * _model_parallel(config), "derived"
            derived.append("gpus")
            notes.append(
                trans_late(
                    "ConfigImport",
                    "GPUs = train_batch_size / (micro-batch x accumulation steps) = "
                    "{t} / ({b} x {a}) = {g}",
                ).format(t=t, b=b, a=a, g=t // (b * a))
                if g == t // (b * a)
                else trans_late(
                    "ConfigImport",
                    "GPUs = train_batch_size / (micro-batch x accumulation steps) x model "
                    "parallel = {t} / ({b} x {a}) x {mp} = {g}",
                ).format(t=t, b=b, a=a, mp=_model_parallel(config), g=g)
            )
        elif problem is None:
            problem = trans_late(
                "ConfigImport",
                "train_batch_size {t} is not a multiple of micro-batch x accumulation "
                "steps ({b} x {a} = {product}): DeepSpeed refuses it on any number of GPUs.",
            ).format(t=t, b=b, a=a, product=b * a)

    # the data-parallel replicas the framework makes of the GPUs
    dp: int | None = None
    sizes: tuple[tuple[str, int], ...] = ()
    if g is not None:
        dp, sizes, par_problem = _replicas(config, g)
        if par_problem is not None and problem is None:
            problem = par_problem
    real_g = g
    if g is not None:
        g = dp  # the batch counts replicas, not GPUs
        if dp is None and problem is None:
            missing.append(MISSING_NAMES["data_parallel"])

    deepspeed_reads = config.kind is ConfigKind.DEEPSPEED
    if blocked:
        # no derivation through a value the trainer fills or that could not be read
        if b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if a is None:
            missing.append(MISSING_NAMES["accumulation_steps"])
        if "train_batch_size" in blocked and "train_batch_size" not in config.auto_fields:
            missing.append(MISSING_NAMES["train_batch_size"])
        if real_g is None and problem is None:
            missing.append(MISSING_NAMES["gpus"])
    elif deepspeed_reads:
        if t is None and b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if g is None:
            if problem is None and real_g is None:
                missing.append(MISSING_NAMES["gpus"])
        elif t is not None or b is not None:
            ds_check = deepspeed_check(t, b, a, g)
            if ds_check.ok:
                assert ds_check.micro_batch is not None and ds_check.grad_acc is not None
                for name in ds_check.derived:
                    field = _CHECK_NAMES[name]
                    derived.append(field)
                    value = {
                        "micro_batch": ds_check.micro_batch,
                        "accumulation_steps": ds_check.grad_acc,
                        "train_batch_size": ds_check.train_batch_size,
                    }[field]
                    notes.append(
                        trans_late(
                            "ConfigImport", "{name} = {value} (DeepSpeed's derivation)"
                        ).format(name=MISSING_NAMES[field], value=value)
                    )
                b, a, t = ds_check.micro_batch, ds_check.grad_acc, ds_check.train_batch_size
                effective = t
            else:
                problem = deepspeed_text(ds_check)
    else:
        if b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if a is None and problem is None:
            missing.append(MISSING_NAMES["accumulation_steps"])
        if real_g is None and problem is None:
            missing.append(MISSING_NAMES["gpus"])
        if b is not None and a is not None and g is not None and problem is None:
            ds_check = deepspeed_check(t, b, a, g)
            if ds_check.ok:
                if t is None:
                    derived.append("train_batch_size")
                t = effective = b * a * g
            else:
                problem = trans_late(
                    "ConfigImport",
                    "train_batch_size {t} in the DeepSpeed config is not {b} (micro-batch) "
                    "x {a} (accumulation steps) x {g} GPU(s) = {product}: the trainer "
                    "refuses the mismatch.",
                ).format(t=t, b=b, a=a, g=g, product=b * a * g)
    if b is not None and g is not None and t is not None and min(b, g, t) >= 1 and not blocked:
        mg_check = megatron_check(t, b, g)
    return Derived(
        micro_batch=b,
        accumulation_steps=a,
        train_batch_size=t,
        gpus=real_g,
        gpus_from=gpus_from,
        derived=tuple(derived),
        notes=tuple(notes),
        deepspeed=ds_check,
        megatron=mg_check,
        effective_batch=effective if problem is None else None,
        missing=tuple(dict.fromkeys(missing)),
        problem=problem,
        data_parallel=dp if problem is None or dp is not None else None,
        parallel=sizes,
        warnings=tuple(warnings),
    )


_AXOLOTL_BATCH_KEYS = ("micro_batch_size", "gradient_accumulation_steps", "batch_size")


def _axolotl_batch_problem(config: ImportedConfig) -> str | None:
    """Why axolotl refuses the batch keys as set, or None."""
    given = set(config.batch_keys_set)
    # axolotl, src/axolotl/utils/schemas/validation.py TrainingValidationMixin
    # (src/axolotl/utils/schemas/config.py AxolotlInputConfig in older releases),
    # model_validator check_batch_size_fields(): counts the fields with
    # data.get(field) truthy and raises ValueError("At least two of
    # micro_batch_size, gradient_accumulation_steps, batch_size must be set") below 2
    if len(given) < 2:
        return trans_late(
            "ConfigImport",
            "axolotl refuses it: at least two of micro_batch_size, "
            "gradient_accumulation_steps and batch_size must be set, and the file sets "
            "{given}.",
        ).format(
            given=", ".join(k for k in _AXOLOTL_BATCH_KEYS if k in given)
            or trans_late("ConfigImport", "none of them").format()
        )
    # the same mixin, model_validator check_gas_bsz(): gradient_accumulation_steps and
    # batch_size both truthy raise ValueError("please set only one of
    # gradient_accumulation_steps or batch_size")
    if "gradient_accumulation_steps" in given and "batch_size" in given:
        return trans_late(
            "ConfigImport",
            "axolotl refuses gradient_accumulation_steps together with batch_size: "
            "set only one of them.",
        ).format()
    return None


def _size(config: ImportedConfig, name: str) -> int | None:
    for n, size, _key in config.parallel:
        if n == name:
            return size
    return None


def _model_parallel(config: ImportedConfig) -> int:
    """GPUs in one data-parallel replica for the kinds whose rule is GPUs / (tp x pp x cp)."""
    if config.kind is ConfigKind.DEEPSPEED:
        autotp = _size(config, "autotp")
        product = 1
        for name in ("tensor", "pipeline", "context"):
            size = _size(config, name)
            if name == "tensor" and autotp is not None and autotp > 1:
                size = autotp
            product *= size if size is not None and size >= 1 else 1
        return product
    return 1


_NOT_DIVISIBLE = trans_late(
    "ConfigImport",
    "{what} = {product} does not divide the {g} GPU(s): {framework} refuses it.",
)


def _replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    """Data-parallel replicas on ``g`` GPUs, the sizes used, and why the framework refuses
    them (or None), each rule as the framework's own code has it."""
    if config.kind is ConfigKind.DEEPSPEED:
        sizes: list[tuple[str, int]] = []
        names: list[str] = []
        # GPT-NeoX, megatron/neox_arguments/arguments.py, NeoXArgs.calculate_derived():
        # pp_size = pipe_parallel_size if >= 1 else 1, mp_size likewise with
        # model_parallel_size (cp_size with context_parallel_size), and
        # dp_world_size = (global_num_gpus / pp_size) / (mp_size * cp_size), which must be
        # a whole number (AssertionError otherwise); train_batch_size = micro x GA x dp.
        for name, key in (
            ("pipeline", "pipe_parallel_size"),
            ("tensor", "model_parallel_size"),
            ("context", "context_parallel_size"),
        ):
            size = _size(config, name)
            if size is not None:
                sizes.append((name, size if size >= 1 else 1))
                names.append(key)
        # DeepSpeed, deepspeed/utils/groups.py _init_tp_mesh_device(): with
        # tensor_parallel.autotp_size > 0 (deepspeed/__init__.py initialize) the mesh is
        # (world_size // tp_size, tp_size), ("data_parallel", "tensor_parallel"); a world
        # size it does not divide cannot be laid out as that mesh
        # (torch init_device_mesh refuses it). DeepSpeedConfig's batch world_size is then
        # the data-parallel group (mpu.get_data_parallel_world_size(),
        # deepspeed/runtime/config.py DeepSpeedConfig.__init__).
        autotp = _size(config, "autotp")
        if autotp is not None and autotp > 1:
            sizes = [(n, s) for n, s in sizes if n != "tensor"] + [("tensor", autotp)]
            names.append("tensor_parallel.autotp_size")
        product = 1
        for _name, size in sizes:
            product *= size
        if g % product:
            return (
                None,
                tuple(sizes),
                _NOT_DIVISIBLE.format(
                    what=" x ".join(names),
                    product=product,
                    g=g,
                    framework="DeepSpeed" if autotp is not None and autotp > 1 else "GPT-NeoX",
                ),
            )
        return g // product, tuple(s for s in sizes if s[1] > 1), None
    if config.kind is ConfigKind.AXOLOTL:
        return _axolotl_replicas(config, g)
    return _accelerate_replicas(config, g)


def _axolotl_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    # axolotl, src/axolotl/utils/distributed.py _get_parallel_config_kwargs(), called by
    # build_parallelism_config() with the world size, tensor_parallel_size,
    # context_parallel_size, dp_shard_size, dp_replicate_size and bool(fsdp or
    # fsdp_config), replayed step by step; its result goes to accelerate's
    # ParallelismConfig (see _accelerate_total below).
    if not any(n in ("tensor", "context", "shard", "replicate") for n, _s, _k in config.parallel):
        return g, (), None  # no parallel sizes: plain data parallelism over the GPUs
    tp = _size(config, "tensor")
    cp = _size(config, "context")
    shard = _size(config, "shard")
    replicate = _size(config, "replicate")
    kwargs: dict[str, int] = {}
    remaining = g
    if tp and tp > 1:
        kwargs["tensor"] = tp
        remaining //= tp
    if cp and cp > 1:
        kwargs["context"] = cp
        remaining //= cp
    if shard is None and replicate in (None, 1) and remaining > 1:
        kwargs["shard"] = remaining
        remaining = 1
    if replicate and replicate > 1:
        kwargs["replicate"] = replicate
        remaining //= replicate
    if remaining > 1 and shard and shard > 1:
        if not config.uses_fsdp:
            return (
                None,
                tuple(kwargs.items()),
                trans_late(
                    "ConfigImport",
                    "dp_shard_size {shard} without fsdp or fsdp_config: axolotl refuses it.",
                ).format(shard=shard),
            )
        kwargs["shard"] = shard
        remaining //= shard
        if remaining > 1 and "replicate" not in kwargs:
            kwargs["replicate"] = remaining
            remaining = 1
    if remaining > 1 and "shard" not in kwargs and config.uses_fsdp:
        kwargs["shard"] = remaining
        remaining = 1
    if remaining > 1:
        return (
            None,
            tuple(kwargs.items()),
            trans_late(
                "ConfigImport",
                "the parallel sizes do not use all {g} GPU(s) ({left} left over): axolotl "
                "refuses them.",
            ).format(g=g, left=remaining),
        )
    return _accelerate_total(kwargs, g, "axolotl")


def _accelerate_total(
    kwargs: dict[str, int], g: int, framework: str
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    # accelerate, accelerate/parallelism_config.py ParallelismConfig: sizes default to 1
    # (__post_init__ raises ValueError below 1); _validate_accelerator(): total_size ==
    # 1 becomes plain data parallelism (dp_replicate_size = num_processes), otherwise
    # total_size = dp_replicate x dp_shard x tp x cp (x sp) must equal num_processes
    # (ValueError); data_parallel_size = dp_replicate_size x dp_shard_size.
    sizes = {name: size for name, size in kwargs.items() if size >= 1}
    total = 1
    for size in sizes.values():
        total *= size
    shown = tuple((n, s) for n, s in sizes.items() if s > 1)
    if total == 1:
        return g, shown, None
    if total != g:
        return (
            None,
            shown,
            trans_late(
                "ConfigImport",
                "the parallel sizes multiply to {total}, not the {g} GPU(s): {framework} "
                "refuses them.",
            ).format(total=total, g=g, framework=framework),
        )
    return sizes.get("replicate", 1) * sizes.get("shard", 1), shown, None


def _accelerate_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    kwargs = {name: size for name, size, _key in config.parallel}
    if "sequence" in kwargs:
        # DeepSpeed sequence parallelism skips the total check: not modelled
        return None, (), None
    for name, size in kwargs.items():
        if size < 1:
            return (
                None,
                (),
                trans_late(
                    "ConfigImport",
                    "{key} must be at least 1: accelerate refuses {size}.",
                ).format(key=_parallel_key(config, name), size=size),
            )
    return _accelerate_total(kwargs, g, "accelerate")


def _parallel_key(config: ImportedConfig, name: str) -> str:
    for n, _found, key in config.parallel:
        if n == name:
            return key
    return name


# --------------------------------------------------------------------------- showing


def _clean(text: str, limit: int = 200) -> str:
    """``text`` shortened to ``limit`` characters, control characters escaped."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _show(value: Any) -> str:
    """A short text of any parsed value (never the repr of a whole structure)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 64:
            return trans_late("ConfigImport", "an integer of about {digits} digits").format(
                digits=int(value.bit_length() * 0.30103) + 1
            )
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + _clean(value, 60) + '"'
    if isinstance(value, dict):
        return trans_late("ConfigImport", "a mapping of {count} key(s)").format(count=len(value))
    if isinstance(value, list):
        return trans_late("ConfigImport", "a list of {count} item(s)").format(count=len(value))
    return trans_late("ConfigImport", "a value of type {type}").format(type=type(value).__name__)


def _show_field(value: Any) -> str:
    if isinstance(value, ZeroStage):
        return str(int(value))
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ", ".join(value)
    return _show(value)


# --------------------------------------------------------------------------- reading

_TRUE_FALSE_AUTO = trans_late("ConfigImport", 'must be true, false or "auto"')


_LEGACY_BF16_AUTO = trans_late(
    "ConfigImport",
    'the Trainer fills only bf16.enabled, and DeepSpeed drops this leftover "auto": bf16 '
    "stays off (name the section bf16)",
)


class _Bad:
    """A value that was present but unreadable (already reported)."""


_BAD = _Bad()


class _Reader:
    """Collects values, "auto" keys and unread keys; ``prefix`` names a followed file."""

    def __init__(self, folder: Path | None, prefix: str = "") -> None:
        self.folder = folder
        self.prefix = prefix
        self.values: dict[str, Any] = {}
        self.keys: dict[str, str] = {}
        self.auto: list[str] = []
        self.unread: list[Unread] = []
        self.unresolved: set[str] = set()
        self.auto_fields: set[str] = set()
        self.followed: list[str] = []
        self.parallel: dict[str, tuple[int, str]] = {}
        self.uses_fsdp = False
        self.unknown: list[UnknownKey] = []
        self.resolved: list[ResolvedFile] = []
        self.batch_keys_set: tuple[str, ...] = ()

    def name(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def set(self, field: str, key: str, value: Any) -> None:
        self.values[field] = value
        self.keys[field] = self.name(key)

    def refuse(
        self, key: str, value: Any, reason: str, *affected: str, refused: bool = False
    ) -> _Bad:
        self.unread.append(Unread(self.name(key), _show(value), reason, refused))
        self.unresolved.update(affected)
        return _BAD

    def mark_auto(self, key: str, *affected: str) -> None:
        """``key`` is "auto" (``scan`` lists it): the fields it sets stay open."""
        del key
        self.unresolved.update(affected)
        self.auto_fields.update(affected)

    def scan(self, data: dict[Any, Any]) -> None:
        """List every key set to "auto", in file order (dotted paths through mappings)."""
        stack: list[tuple[str, Iterator[tuple[Any, Any]]]] = [("", iter(data.items()))]
        seen = {id(data)}
        while stack and len(self.auto) < _MAX_AUTO_KEYS:
            path, items = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                continue
            key, value = item
            name = f"{path}{_clean(str(key), 80)}"
            if isinstance(value, str) and value == "auto":
                self.auto.append(self.name(name))
            elif isinstance(value, dict) and id(value) not in seen and len(stack) < _MAX_DEPTH:
                seen.add(id(value))
                stack.append((f"{name}.", iter(value.items())))

    def mapping(self, key: str, value: Any, *affected: str) -> dict[Any, Any] | None:
        """``value`` when it is a mapping; None when absent; reported otherwise."""
        if value is None:
            return None
        if isinstance(value, dict):
            return value
        self.refuse(
            key, value, trans_late("ConfigImport", "must be a mapping of keys").format(), *affected
        )
        return None

    def integer(
        self, field: str, key: str, value: Any, low: int, high: int, *, auto: bool = True
    ) -> None:
        if value is None:
            return
        if auto and isinstance(value, str) and value == "auto":
            self.mark_auto(key, field)
            return
        if isinstance(value, bool) or not isinstance(value, int):
            reason = (
                trans_late("ConfigImport", 'must be a whole number or "auto"')
                if auto
                else trans_late("ConfigImport", "must be a whole number")
            )
            # DeepSpeed compares the batch values with 0 and multiplies them
            # (runtime/config.py _batch_assertion): text, lists and mappings fail there,
            # and axolotl's and accelerate's typed settings refuse them too; a number
            # written as text ("8") is left open (pydantic reads it as 8)
            refused = field in _FRAMEWORK_CHECKED and not isinstance(value, (bool, float))
            if isinstance(value, str) and value.strip().isdigit():
                refused = False
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 1:
                refused = field in _FRAMEWORK_CHECKED
            self.refuse(key, value, reason.format(), field, refused=refused)
            return
        if not low <= value <= high:
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be between {low} and {high}").format(
                    low=low, high=high
                ),
                field,
                # zero or negative: DeepSpeed's _batch_assertion asserts > 0
                refused=field in _FRAMEWORK_CHECKED and value < 1,
            )
            return
        self.set(field, key, value)

    def parallel_size(self, name: str, key: str, value: Any) -> None:
        """A parallel size: kept as written (each framework's rule reads it); a value
        that is not a whole number is refused (the frameworks' typed settings)."""
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int):
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be a whole number").format(),
                refused=True,
            )
            return
        self.parallel[name] = (value, self.name(key))

    def text(self, field: str, key: str, value: Any, what: str) -> None:
        if value is None:
            return
        if not isinstance(value, str) or not value.strip():
            self.refuse(key, value, what, field)
            return
        self.set(field, key, _clean(value.strip(), 500))

    def boolean(self, field: str, key: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, bool):
            self.refuse(
                key, value, trans_late("ConfigImport", "must be true or false").format(), field
            )
            return
        self.set(field, key, value)

    def zero_stage(self, key: str, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be 0, 1, 2 or 3").format(),
                "zero_stage",
            )
            return
        self.set("zero_stage", key, ZeroStage(value))

    def offload(self, keys: tuple[str, str], devices: tuple[Any, Any]) -> None:
        """Combine the optimizer's and the parameters' offload devices ("none", "cpu")."""
        opt, param = devices
        if opt is _BAD or param is _BAD:
            self.unresolved.add("offload")
            return
        if opt is None and param is None:
            return
        if param == "cpu" and opt != "cpu":
            self.refuse(
                keys[1],
                param,
                trans_late(
                    "ConfigImport",
                    "parameters offloaded without the optimizer are not modelled "
                    "(gradacc models no offload, the optimizer, or the optimizer and parameters)",
                ).format(),
                "offload",
            )
            return
        value = (
            Offload.ALL if param == "cpu" else Offload.OPTIMIZER if opt == "cpu" else Offload.NONE
        )
        key = keys[1] if value is Offload.ALL else keys[0]
        self.set("offload", key, value)

    def device(self, key: str, value: Any, known: str) -> str | _Bad | None:
        """An offload device: "none", "cpu", None when absent, _BAD when unusable."""
        if value is None:
            return None
        if isinstance(value, str) and value in ("none", "cpu"):
            return value
        if isinstance(value, str) and value == "nvme":
            return self.refuse(
                key,
                value,
                trans_late(
                    "ConfigImport", "NVMe offload is not modelled (only none and cpu)"
                ).format(),
                "offload",
            )
        return self.refuse(
            key,
            value,
            trans_late("ConfigImport", "unknown device: {known}").format(known=known),
            "offload",
        )

    def precision(self, states: list[tuple[str, Any]]) -> None:
        """Combine ``(key, enabled)`` of bf16 then fp16: True, False, "auto" or _BAD."""
        if any(state is _BAD for _, state in states):
            self.unresolved.add("precision")
            return
        on = [key for key, state in states if state is True]
        if len(on) > 1:
            self.refuse(
                on[1],
                True,
                trans_late(
                    "ConfigImport", "enabled together with {other}: bf16 and fp16 cannot both be on"
                ).format(other=on[0]),
                "precision",
            )
            return
        if on:
            bf16 = on[0].startswith(("bf16", "bfloat16"))
            self.set("precision", on[0], Precision.BF16 if bf16 else Precision.FP16)
            return
        if any(state == "auto" for _, state in states):
            return  # marked "auto" already
        if states:
            self.set("precision", "/".join(key for key, _ in states), Precision.FP32)

    def unknown_key(
        self, key: str, known: frozenset[str], refused: bool, reason: str, under: str = ""
    ) -> None:
        """``key`` (in the section ``under``, "zero_optimization.") is not one of
        ``known``: name it with the nearest known key (difflib)."""
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
        self.unknown.append(
            UnknownKey(
                self.name(under + _clean(key, 80)), close[0] if close else None, refused, reason
            )
        )

    def follow(self, key: str, ref: Any, *, launch_folder_first: bool = False) -> None:
        """Read the DeepSpeed JSON ``ref`` names: relative to the config's folder, or, with
        ``launch_folder_first``, to the current working directory first (axolotl).

        When it cannot be read, the ZeRO stage and offload it would set stay missing
        (no default ZeRO-0 stands in for a file that is not there)."""
        if not isinstance(ref, str) or not ref.strip():
            self.refuse(
                key,
                ref,
                trans_late("ConfigImport", "must be the path of a DeepSpeed JSON").format(),
                "zero_stage",
                "offload",
            )
            return
        written = os.path.expanduser(ref.strip())
        candidates: list[tuple[Path, str]] = []
        if self.folder is None and not launch_folder_first:
            written = ""  # given as text: not followed
        if not written:
            pass
        elif os.path.isabs(written):
            candidates.append((Path(written), "absolute"))
        else:
            if launch_folder_first:
                candidates.append((Path.cwd() / written, "launch folder"))
            if self.folder is not None:
                candidates.append((self.folder / written, "config folder"))
        if not candidates:
            self.resolved.append(ResolvedFile(self.name(key), _clean(ref.strip(), 300), None, None))
            self.refuse(
                key,
                ref,
                trans_late(
                    "ConfigImport", "not followed: the config was given as text, not as a file"
                ).format(),
                "zero_stage",
                "offload",
            )
            return
        found = next(((p, w) for p, w in candidates if p.is_file()), None)
        if found is None:
            self.resolved.append(ResolvedFile(self.name(key), _clean(ref.strip(), 300), None, None))
            shown = " ; ".join(_clean(str(p), 300) for p, _w in candidates)
            self.refuse(
                key,
                ref,
                trans_late("ConfigImport", "file not found: {path}").format(path=shown),
                "zero_stage",
                "offload",
            )
            return
        path, where = found
        shown = _clean(str(path), 300)
        self.resolved.append(ResolvedFile(self.name(key), _clean(ref.strip(), 300), shown, where))
        try:
            text = _read_file(path, shown)
            data, is_json = _parse(text, shown)
        except ConfigImportError as exc:
            self.refuse(key, ref, exc.message, "zero_stage", "offload")
            return
        if not isinstance(data, dict):
            self.refuse(
                key,
                ref,
                trans_late(
                    "ConfigImport", "{path} does not hold a mapping of DeepSpeed keys"
                ).format(path=shown),
            )
            return
        inner = _Reader(None, prefix=f"{_clean(ref.strip())}:")
        inner.scan(data)
        _read_deepspeed(data, inner)
        _deepspeed_unknown_keys(data, inner, top_level=is_json)
        self.followed.append(shown)
        self.merge(inner)

    def merge(self, inner: _Reader) -> None:
        """Take the followed file's values where this file has none; report conflicts."""
        self.auto += inner.auto
        self.unread += inner.unread
        self.unknown += inner.unknown
        for field, value in inner.values.items():
            mine = self.values.get(field)
            if mine is None:
                self.values[field] = value
                self.keys[field] = inner.keys[field]
            elif mine != value:
                self.unread.append(
                    Unread(
                        inner.keys[field],
                        _show_field(value),
                        trans_late("ConfigImport", "conflicts with {key} ({value})").format(
                            key=self.keys[field], value=_show_field(mine)
                        ),
                    )
                )
        self.unresolved |= inner.unresolved
        self.auto_fields |= inner.auto_fields
        for name, found in inner.parallel.items():
            self.parallel.setdefault(name, found)

    def build(self, kind: ConfigKind, source: str) -> ImportedConfig:
        unresolved = {f for f in self.unresolved if self.values.get(f) is None}
        return ImportedConfig(
            kind=kind,
            source=source,
            **{f: v for f, v in self.values.items() if v is not None},
            auto_keys=tuple(dict.fromkeys(self.auto)),
            unread=tuple(self.unread),
            unresolved=tuple(sorted(unresolved)),
            auto_fields=tuple(sorted(unresolved & self.auto_fields)),
            keys=tuple((f, k) for f, k in self.keys.items() if self.values.get(f) is not None),
            followed=tuple(self.followed),
            parallel=tuple((n, size, key) for n, (size, key) in self.parallel.items()),
            uses_fsdp=self.uses_fsdp,
            unknown_keys=tuple(self.unknown),
            resolved_files=tuple(self.resolved),
            batch_keys_set=self.batch_keys_set,
        )


# the values the frameworks check themselves (a wrong type or a value below 1 is refused)
_FRAMEWORK_CHECKED = frozenset(
    {"micro_batch", "accumulation_steps", "train_batch_size", "gpus", "nodes", "batch_per_gpu"}
)


_DEVICES_DEEPSPEED = trans_late(
    "ConfigImport", 'DeepSpeed accepts "none", "cpu" or "nvme"'
).format()


# accelerate, accelerate/commands/config/config_args.py: the dataclass fields of
# ClusterConfig (BaseConfig's and its own) and of SageMakerConfig (accelerate 1.16)
_ACCELERATE_BASE_FIELDS = frozenset(
    {"compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug"}
)
_ACCELERATE_CLUSTER_FIELDS = _ACCELERATE_BASE_FIELDS | frozenset(
    {
        "command_file",
        "commands",
        "deepspeed_config",
        "downcast_bf16",
        "dynamo_config",
        "enable_cpu_affinity",
        "fp8_config",
        "fsdp_config",
        "gpu_ids",
        "machine_rank",
        "main_process_ip",
        "main_process_port",
        "main_training_function",
        "megatron_lm_config",
        "mpirun_config",
        "num_machines",
        "num_processes",
        "parallelism_config",
        "rdzv_backend",
        "same_network",
        "tpu_env",
        "tpu_name",
        "tpu_use_cluster",
        "tpu_use_sudo",
        "tpu_vm",
        "tpu_zone",
    }
)
_ACCELERATE_SAGEMAKER_FIELDS = _ACCELERATE_BASE_FIELDS | frozenset(
    {
        "additional_args",
        "base_job_name",
        "dynamo_config",
        "ec2_instance_type",
        "enable_cpu_affinity",
        "gpu_ids",
        "iam_role_name",
        "image_uri",
        "num_machines",
        "profile",
        "py_version",
        "pytorch_version",
        "region",
        "sagemaker_inputs_file",
        "sagemaker_metrics_file",
        "transformers_version",
    }
)

# DeepSpeed 0.19, deepspeed/runtime/config.py DeepSpeedConfig._initialize_params() and
# the get_* helpers it calls: the top-level keys DeepSpeed reads (plus
# sequence_parallel_size, read in DeepSpeedConfig.__init__, and autotuning, read by the
# launcher). Other top-level keys are ignored: nothing checks them.
_DS_TOP_KEYS = frozenset(
    {
        "activation_checkpointing",
        "aio",
        "autotuning",
        "bf16",
        "bfloat16",
        "checkpoint",
        "comet",
        "comms_logger",
        "communication_data_type",
        "compile",
        "csv_monitor",
        "data_efficiency",
        "data_types",
        "dataloader_drop_last",
        "datastates_ckpt",
        "disable_allgather",
        "disable_python_gc",
        "dump_state",
        "expert_parallel",
        "flops_profiler",
        "fp16",
        "gradient_accumulation_steps",
        "gradient_allreduce_op",
        "gradient_clipping",
        "gradient_predivide_factor",
        "hybrid_engine",
        "log_level",
        "managed_gradient_accumulation",
        "memory_breakdown",
        "optimizer",
        "pipeline",
        "prescale_gradients",
        "scheduler",
        "seq_parallel_communication_data_type",
        "sequence_parallel_size",
        "steps_per_print",
        "tensor_parallel",
        "tensorboard",
        "timers",
        "torch_autocast",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "use_data_before_expert_parallelism",
        "wall_clock_breakdown",
        "wandb",
        "weight_quantization",
        "zero_allow_untested_optimizer",
        "zero_force_ds_cpu_optimizer",
        "zero_optimization",
    }
)
# deepspeed/runtime/config.py _REMOVED_TOP_LEVEL_CONFIG_KEYS and
# _REMOVED_ZERO_CONFIG_KEYS: _reject_removed_config_keys() raises DeepSpeedConfigError
_DS_REMOVED_TOP_KEYS = frozenset(
    {
        "nebula",
        "compression_training",
        "amp",
        "quantize_training",
        "sparse_gradients",
        "eigenvalue",
        "sparse_attention",
        "elasticity",
        "graph_harvesting",
        "curriculum_learning",
        "progressive_layer_drop",
    }
)
_DS_REMOVED_ZERO_KEYS = frozenset(
    {"mics_shard_size", "mics_hierarchical_params_gather", "zeropp_loco_param"}
)
# deepspeed/runtime/zero/config.py DeepSpeedZeroConfig: its fields and their aliases;
# the model is a DeepSpeedConfigModel (deepspeed/runtime/config_utils.py), whose
# model_config has extra="forbid", so get_zero_config() raises a pydantic
# ValidationError on any other key
_DS_ZERO_KEYS = frozenset(
    {
        "allgather_bucket_size",
        "allgather_partitions",
        "allgather_sequential",
        "compute_grad_norm",
        "contiguous_gradients",
        "cpu_offload",
        "cpu_offload_param",
        "cpu_offload_use_pin_memory",
        "elastic_checkpoint",
        "enable_sanity_checks",
        "gather_16bit_weights_on_model_save",
        "ignore_unused_parameters",
        "leaf_module",
        "legacy_stage1",
        "load_from_fp32_weights",
        "log_trace_cache_warnings",
        "max_live_parameters",
        "max_reuse_distance",
        "memory_efficient_linear",
        "model_persistence_threshold",
        "module_granularity_threshold",
        "offload_optimizer",
        "offload_param",
        "overlap_comm",
        "override_module_apply",
        "param_persistence_threshold",
        "parameter_alignment",
        "pipeline_loading_checkpoint",
        "prefetch_bucket_size",
        "reduce_bucket_size",
        "reduce_scatter",
        "round_robin_gradients",
        "save_muon_momentum_buffer_in_memory",
        "stage",
        "stage3_allgather_sequential",
        "stage3_gather_16bit_weights_on_model_save",
        "stage3_gather_fp16_weights_on_model_save",
        "stage3_max_live_parameters",
        "stage3_max_reuse_distance",
        "stage3_model_persistence_threshold",
        "stage3_module_granularity_threshold",
        "stage3_param_persistence_threshold",
        "stage3_prefetch_bucket_size",
        "stage3_use_all_reduce_for_fetch_params",
        "sub_group_size",
        "use_all_reduce_for_fetch_params",
        "use_multi_rank_bucket_allreduce",
        "zenflow",
        "zero_hpz_partition_size",
        "zero_quantized_gradients",
        "zero_quantized_nontrainable_weights",
        "zero_quantized_weights",
    }
)
# deepspeed/runtime/zero/offload_config.py DeepSpeedZeroOffloadParamConfig and
# DeepSpeedZeroOffloadOptimizerConfig (DeepSpeedConfigModel: extra="forbid")
_DS_OFFLOAD_KEYS = {
    "offload_param": frozenset(
        {"buffer_count", "buffer_size", "device", "max_in_cpu", "nvme_path", "pin_memory"}
    ),
    "offload_optimizer": frozenset(
        {
            "buffer_count",
            "cpuadam_cores_perc",
            "device",
            "fast_init",
            "nvme_path",
            "pin_memory",
            "pipeline_read",
            "pipeline_write",
            "ratio",
            "super_offload",
        }
    ),
}


def _deepspeed_unknown_keys(data: dict[Any, Any], r: _Reader, *, top_level: bool) -> None:
    """Name the keys DeepSpeed does not know: a note at the top level (DeepSpeed ignores
    them; only for a JSON, as GPT-NeoX's YAML has keys of its own), a refusal inside
    ``zero_optimization`` and its offload sections (pydantic, extra="forbid") and for
    the keys DeepSpeed has removed (DeepSpeedConfigError)."""
    ignored = trans_late("ConfigImport", "DeepSpeed ignores keys it does not know").format()
    removed = trans_late(
        "ConfigImport", "DeepSpeed refuses it: the feature has been removed"
    ).format()
    forbidden = trans_late(
        "ConfigImport", "DeepSpeed refuses keys its ZeRO settings do not define"
    ).format()
    for key in data:
        name = str(key)
        if name in _DS_REMOVED_TOP_KEYS:
            r.unknown_key(name, _DS_TOP_KEYS, True, removed)
        elif top_level and name not in _DS_TOP_KEYS:
            r.unknown_key(name, _DS_TOP_KEYS, False, ignored)
    zero = data.get("zero_optimization")
    if not isinstance(zero, dict):
        return
    for key, value in zero.items():
        name = str(key)
        dotted = f"zero_optimization.{name}"
        if name in _DS_REMOVED_ZERO_KEYS:
            r.unknown_key(name, frozenset(), True, removed, "zero_optimization.")
        elif name not in _DS_ZERO_KEYS:
            r.unknown_key(name, _DS_ZERO_KEYS, True, forbidden, "zero_optimization.")
        elif name in _DS_OFFLOAD_KEYS and isinstance(value, dict):
            for sub in value:
                if str(sub) not in _DS_OFFLOAD_KEYS[name]:
                    r.unknown_key(str(sub), _DS_OFFLOAD_KEYS[name], True, forbidden, f"{dotted}.")


def _read_deepspeed(data: dict[Any, Any], r: _Reader) -> None:
    r.integer(
        "train_batch_size", "train_batch_size", data.get("train_batch_size"), 1, MAX_TARGET_BATCH
    )
    r.integer(
        "micro_batch",
        "train_micro_batch_size_per_gpu",
        data.get("train_micro_batch_size_per_gpu"),
        1,
        _MAX_MICRO,
    )
    r.integer(
        "accumulation_steps",
        "gradient_accumulation_steps",
        data.get("gradient_accumulation_steps"),
        1,
        _MAX_STEPS,
    )
    _read_zero(data, r)
    tp = r.mapping("tensor_parallel", data.get("tensor_parallel"))
    if tp is not None:
        r.parallel_size("autotp", "tensor_parallel.autotp_size", tp.get("autotp_size"))
    # GPT-NeoX's YAML (read as a DeepSpeed config: the same batch keys)
    for size_name, size_key in (
        ("pipeline", "pipe_parallel_size"),
        ("tensor", "model_parallel_size"),
        ("context", "context_parallel_size"),
    ):
        r.parallel_size(size_name, size_key, data.get(size_key))
    # GPT-NeoX's sequence length (megatron/neox_arguments/neox_args.py seq_length)
    r.integer("sequence_length", "seq_length", data.get("seq_length"), 1, _MAX_SEQ, auto=False)
    states: list[tuple[str, Any]] = []
    for names in (("bf16", "bfloat16"), ("fp16",)):
        name = next((n for n in names if data.get(n) is not None), None)
        if name is None:
            continue
        section = r.mapping(name, data[name], "precision")
        if section is None:
            states.append((f"{name}.enabled", _BAD))
            continue
        key = f"{name}.enabled"
        enabled = section.get("enabled", False)  # DeepSpeed's default
        if enabled is None or isinstance(enabled, bool):
            states.append((key, bool(enabled)))
        elif isinstance(enabled, str) and enabled == "auto" and name == "bfloat16":
            # the old section name: transformers' integration fills only bf16.enabled
            # (integrations/deepspeed.py trainer_config_process), and DeepSpeed's config
            # model drops a leftover "auto" (runtime/config_utils.py): bf16 stays off
            r.unread.append(Unread(r.name(key), "auto", _LEGACY_BF16_AUTO.format()))
            if r.name(key) in r.auto:  # not an "auto" anyone fills
                r.auto.remove(r.name(key))
            states.append((key, False))
        elif isinstance(enabled, str) and enabled == "auto":
            r.mark_auto(key, "precision")
            states.append((key, "auto"))
        else:
            states.append((key, r.refuse(key, enabled, _TRUE_FALSE_AUTO.format(), "precision")))
    r.precision(states)


def _read_zero(data: dict[Any, Any], r: _Reader) -> None:
    value = data.get("zero_optimization")
    if value is None:
        return
    if isinstance(value, bool):  # DeepSpeed's old form: true is stage 1
        r.set("zero_stage", "zero_optimization", ZeroStage(1 if value else 0))
        return
    zero = r.mapping("zero_optimization", value, "zero_stage", "offload")
    if zero is None:
        return
    r.zero_stage("zero_optimization.stage", zero.get("stage"))
    devices: list[Any] = []
    for part, legacy in (
        ("offload_optimizer", "cpu_offload"),
        ("offload_param", "cpu_offload_param"),
    ):
        key = f"zero_optimization.{part}"
        section = zero.get(part)
        if section is not None:
            sub = r.mapping(key, section, "offload")
            if sub is None:
                devices.append(_BAD)
            else:
                device = sub.get("device")
                # a section without a device is DeepSpeed's default, "none"
                devices.append(
                    "none"
                    if device is None
                    else r.device(f"{key}.device", device, _DEVICES_DEEPSPEED)
                )
        elif zero.get(legacy) is not None:  # DeepSpeed's deprecated booleans
            flag = zero[legacy]
            if isinstance(flag, bool):
                devices.append("cpu" if flag else "none")
            else:
                devices.append(
                    r.refuse(
                        f"zero_optimization.{legacy}",
                        flag,
                        trans_late("ConfigImport", "must be true or false").format(),
                        "offload",
                    )
                )
        else:
            devices.append(None)
    keys = (
        "zero_optimization.offload_optimizer.device",
        "zero_optimization.offload_param.device",
    )
    r.offload(keys, (devices[0], devices[1]))


# accelerate's DistributedType names
_DISTRIBUTED_TYPES = frozenset(
    {
        "NO",
        "MULTI_CPU",
        "MULTI_GPU",
        "MULTI_NPU",
        "MULTI_MLU",
        "MULTI_SDAA",
        "MULTI_MUSA",
        "MULTI_XPU",
        "MULTI_HPU",
        "DEEPSPEED",
        "FSDP",
        "XLA",
        "TPU",
        "MEGATRON_LM",
    }
)
_DEVICES_ACCELERATE = trans_late(
    "ConfigImport", 'accelerate accepts "none", "cpu" or "nvme"'
).format()


def _read_accelerate(data: dict[Any, Any], r: _Reader) -> None:
    # accelerate, accelerate/commands/config/config_args.py BaseConfig.from_yaml_file()
    # (and from_json_file()): after process_config() (which converts the old fp16 and
    # dynamo_backend keys), any key that is not a field of ClusterConfig (or of
    # SageMakerConfig when compute_environment is AMAZON_SAGEMAKER) raises ValueError
    # "The config file at ... had unknown keys"; accelerate launch loads the file so
    known = (
        _ACCELERATE_SAGEMAKER_FIELDS
        if data.get("compute_environment") == "AMAZON_SAGEMAKER"
        else _ACCELERATE_CLUSTER_FIELDS
    )
    for key in data:
        if isinstance(key, str) and key not in known and key not in ("fp16", "dynamo_backend"):
            r.unknown_key(
                key,
                known,
                True,
                trans_late(
                    "ConfigImport", "accelerate refuses a config file with unknown keys"
                ).format(),
            )
        elif not isinstance(key, str):
            r.unknown_key(
                str(key),
                known,
                True,
                trans_late(
                    "ConfigImport", "accelerate refuses a config file with unknown keys"
                ).format(),
            )
    r.integer("gpus", "num_processes", data.get("num_processes"), 1, _MAX_GPUS, auto=False)
    if "num_processes" not in data and data.get("distributed_type") == "NO":
        # from_yaml_file(): no num_processes with distributed_type NO is one process
        r.set("gpus", "distributed_type", 1)
    r.integer("nodes", "num_machines", data.get("num_machines"), 1, _MAX_NODES, auto=False)
    mixed = data.get("mixed_precision")
    if mixed is False or mixed == "no":  # YAML reads an unquoted no as false
        r.set("precision", "mixed_precision", Precision.FP32)
    elif isinstance(mixed, str) and mixed in ("bf16", "fp16"):
        r.set("precision", "mixed_precision", Precision(mixed))
    elif isinstance(mixed, str) and mixed == "fp8":
        r.refuse(
            "mixed_precision",
            mixed,
            trans_late("ConfigImport", "fp8 is not modelled (only no, fp16 and bf16)").format(),
            "precision",
        )
    elif mixed is not None:
        r.refuse(
            "mixed_precision",
            mixed,
            trans_late("ConfigImport", 'must be "no", "fp16", "bf16" or "fp8"').format(),
            "precision",
        )

    kind = data.get("distributed_type")
    if kind is not None:
        if isinstance(kind, str) and kind in _DISTRIBUTED_TYPES:
            r.set("distributed_type", "distributed_type", kind)
        else:
            r.refuse(
                "distributed_type",
                kind,
                trans_late("ConfigImport", "unknown distributed type").format(),
            )
    distributed = r.values.get("distributed_type")

    ds = r.mapping("deepspeed_config", data.get("deepspeed_config"), "zero_stage", "offload")
    if ds and distributed is not None and distributed != "DEEPSPEED":
        for key in sorted(str(k) for k in ds if isinstance(k, str)):
            if key in _ACCELERATE_DS_KEYS and ds[key] is not None:
                r.refuse(
                    f"deepspeed_config.{key}",
                    ds[key],
                    trans_late(
                        "ConfigImport", "ignored: distributed_type is {kind}, not DEEPSPEED"
                    ).format(kind=distributed),
                )
    elif ds is not None:
        r.integer(
            "accumulation_steps",
            "deepspeed_config.gradient_accumulation_steps",
            ds.get("gradient_accumulation_steps"),
            1,
            _MAX_STEPS,
        )
        r.zero_stage("deepspeed_config.zero_stage", ds.get("zero_stage"))
        keys = (
            "deepspeed_config.offload_optimizer_device",
            "deepspeed_config.offload_param_device",
        )
        devices = tuple(r.device(k, ds.get(k.split(".")[1]), _DEVICES_ACCELERATE) for k in keys)
        r.offload(keys, (devices[0], devices[1]))
        if ds.get("deepspeed_config_file") is not None:
            r.follow("deepspeed_config.deepspeed_config_file", ds["deepspeed_config_file"])
    if distributed == "DEEPSPEED" and r.values.get("zero_stage") is None:
        # accelerate's own default stage comes from its environment, not the file
        r.unresolved.add("zero_stage")
    if distributed == "FSDP":
        _fsdp(data.get("fsdp_config"), "fsdp_config", r)
    # accelerate config's parallelism_config section (commands/config/cluster.py writes
    # parallelism_config_<dim>_size keys; launch passes them to ParallelismConfig)
    pc = r.mapping("parallelism_config", data.get("parallelism_config"))
    if pc:
        for name, dim in (
            ("replicate", "dp_replicate"),
            ("shard", "dp_shard"),
            ("tensor", "tp"),
            ("context", "cp"),
        ):
            key = f"parallelism_config_{dim}_size"
            r.parallel_size(name, f"parallelism_config.{key}", pc.get(key))
        sp = pc.get("parallelism_config_sp_size")
        if sp is not None and sp != 1:
            r.refuse(
                "parallelism_config.parallelism_config_sp_size",
                sp,
                trans_late("ConfigImport", "sequence parallelism is not modelled").format(),
            )
            r.parallel["sequence"] = (0, r.name("parallelism_config.parallelism_config_sp_size"))


_ACCELERATE_DS_KEYS = frozenset(
    {
        "gradient_accumulation_steps",
        "zero_stage",
        "offload_optimizer_device",
        "offload_param_device",
        "deepspeed_config_file",
    }
)


def _fsdp(value: Any, key: str, r: _Reader) -> None:
    """FSDP shards like ZeRO but its settings are not read: stage and offload stay open."""
    r.unresolved.update(("zero_stage", "offload"))
    if value:
        r.refuse(
            key,
            value,
            trans_late(
                "ConfigImport",
                "FSDP settings are not read (gradacc reads DeepSpeed's ZeRO settings)",
            ).format(),
        )


def _read_axolotl(data: dict[Any, Any], r: _Reader) -> None:
    # axolotl counts a batch key as set when data.get(key) is truthy
    # (check_batch_size_fields, check_gas_bsz; see _axolotl_batch_problem)
    r.batch_keys_set = tuple(k for k in _AXOLOTL_BATCH_KEYS if data.get(k))
    r.integer(
        "micro_batch", "micro_batch_size", data.get("micro_batch_size"), 1, _MAX_MICRO, auto=False
    )
    r.integer(
        "accumulation_steps",
        "gradient_accumulation_steps",
        data.get("gradient_accumulation_steps"),
        1,
        _MAX_STEPS,
        auto=False,
    )
    r.integer(
        "batch_per_gpu", "batch_size", data.get("batch_size"), 1, MAX_TARGET_BATCH, auto=False
    )
    states: list[tuple[str, Any]] = []
    for key in ("bf16", "fp16"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool):
            states.append((key, value))
        elif isinstance(value, str) and value == "auto":
            # axolotl: bf16 when the GPU supports it, else fp16
            r.mark_auto(key, "precision")
            states.append((key, "auto"))
        else:
            states.append((key, r.refuse(key, value, _TRUE_FALSE_AUTO.format(), "precision")))
    r.precision(states)

    adapter = data.get("adapter")
    if isinstance(adapter, str) and adapter in ("lora", "qlora"):
        r.set("adapter", "adapter", Adapter(adapter))
    elif adapter is not None and adapter != "":
        r.refuse(
            "adapter",
            adapter,
            trans_late(
                "ConfigImport", 'unknown adapter: gradacc reads "lora" and "qlora"'
            ).format(),
        )
    r.integer("lora_rank", "lora_r", data.get("lora_r"), 1, _MAX_RANK, auto=False)
    targets = data.get("lora_target_modules")
    if isinstance(targets, str) and targets.strip():
        r.set("lora_targets", "lora_target_modules", (_clean(targets.strip()),))
    elif isinstance(targets, list) and all(isinstance(t, str) and t.strip() for t in targets):
        r.set("lora_targets", "lora_target_modules", tuple(_clean(t.strip()) for t in targets))
    elif targets is not None:
        r.refuse(
            "lora_target_modules",
            targets,
            trans_late("ConfigImport", "must be a list of module names").format(),
        )
    # axolotl's lora_target_linear adapts every linear layer of the blocks (PEFT's
    # "all-linear"), whatever lora_target_modules adds to them
    linear = data.get("lora_target_linear")
    if linear is True:
        r.set("lora_targets", "lora_target_linear", ("all-linear",))
    elif linear is not None and linear is not False:
        r.refuse(
            "lora_target_linear",
            linear,
            trans_late("ConfigImport", "must be true or false").format(),
            "lora_targets",
        )
    r.boolean("base_4bit", "load_in_4bit", data.get("load_in_4bit"))
    # axolotl's load_in_8bit: the frozen base model in 8 bits (bitsandbytes LLM.int8)
    r.boolean("base_8bit", "load_in_8bit", data.get("load_in_8bit"))
    r.text(
        "base_model",
        "base_model",
        data.get("base_model"),
        trans_late("ConfigImport", "must be a model name or path").format(),
    )
    r.integer("sequence_length", "sequence_len", data.get("sequence_len"), 1, _MAX_SEQ, auto=False)
    for name, key in (
        ("tensor", "tensor_parallel_size"),
        ("context", "context_parallel_size"),
        ("shard", "dp_shard_size"),
        ("replicate", "dp_replicate_size"),
    ):
        r.parallel_size(name, key, data.get(key))
    r.uses_fsdp = bool(data.get("fsdp") or data.get("fsdp_config"))
    if data.get("deepspeed") is not None:
        # axolotl, src/axolotl/utils/config/__init__.py normalize_config(): "if
        # isinstance(cfg.deepspeed, str) and os.path.exists(cfg.deepspeed)" opens the
        # path as given, that is relative to the folder axolotl is launched in (the
        # current working directory); next to the YAML is tried after it
        r.follow("deepspeed", data["deepspeed"], launch_folder_first=True)
    elif data.get("fsdp") or data.get("fsdp_config"):
        key = "fsdp_config" if data.get("fsdp_config") else "fsdp"
        _fsdp(data[key], key, r)


_READERS: dict[ConfigKind, Callable[[dict[Any, Any], _Reader], None]] = {
    ConfigKind.DEEPSPEED: _read_deepspeed,
    ConfigKind.ACCELERATE: _read_accelerate,
    ConfigKind.AXOLOTL: _read_axolotl,
}


# --------------------------------------------------------------------------- recognising

_DEEPSPEED_KEYS = frozenset(
    {
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "zero_optimization",
        "gradient_clipping",
        "steps_per_print",
        "wall_clock_breakdown",
        "zero_allow_untested_optimizer",
        "bfloat16",
        "amp",
        "activation_checkpointing",
        "flops_profiler",
        "prescale_gradients",
        "communication_data_type",
        "zero_force_ds_cpu_optimizer",
        "tensor_parallel",
        # GPT-NeoX's YAML keys (its batch keys are DeepSpeed's)
        "pipe_parallel_size",
        "model_parallel_size",
    }
)
# DeepSpeed's only when they are sections (axolotl's bf16/fp16 are booleans, its
# optimizer a name)
_DEEPSPEED_SECTIONS = frozenset({"bf16", "fp16", "optimizer", "scheduler"})
_ACCELERATE_KEYS = frozenset(
    {
        "compute_environment",
        "distributed_type",
        "num_processes",
        "num_machines",
        "machine_rank",
        "mixed_precision",
        "use_cpu",
        "main_training_function",
        "deepspeed_config",
        "fsdp_config",
        "parallelism_config",
        "downcast_bf16",
        "rdzv_backend",
        "same_network",
        "main_process_ip",
        "main_process_port",
        "gpu_ids",
        "tpu_env",
        "dynamo_config",
        "megatron_lm_config",
        "enable_cpu_affinity",
    }
)
_AXOLOTL_KEYS = frozenset(
    {
        "base_model",
        "base_model_config",
        "micro_batch_size",
        "sequence_len",
        "adapter",
        "lora_r",
        "lora_alpha",
        "lora_dropout",
        "lora_target_modules",
        "lora_target_linear",
        "load_in_4bit",
        "load_in_8bit",
        "datasets",
        "dataset_prepared_path",
        "num_epochs",
        "sample_packing",
        "model_type",
        "tokenizer_type",
        "val_set_size",
        "deepspeed",
        "flash_attention",
        "special_tokens",
        "lr_scheduler",
        "wandb_project",
    }
)


def _detect(data: dict[Any, Any], is_json: bool, name: str) -> ConfigKind:
    keys = {k for k in data if isinstance(k, str)}
    scores = {
        ConfigKind.DEEPSPEED: len(keys & _DEEPSPEED_KEYS)
        + sum(1 for k in keys & _DEEPSPEED_SECTIONS if isinstance(data[k], dict)),
        ConfigKind.ACCELERATE: len(keys & _ACCELERATE_KEYS),
        ConfigKind.AXOLOTL: len(keys & _AXOLOTL_KEYS),
    }
    order = (
        [ConfigKind.DEEPSPEED, ConfigKind.ACCELERATE, ConfigKind.AXOLOTL]
        if is_json
        else [ConfigKind.AXOLOTL, ConfigKind.ACCELERATE, ConfigKind.DEEPSPEED]
    )
    best = max(order, key=lambda k: scores[k])  # the first of equals
    if scores[best] > 0:
        return best
    if "gradient_accumulation_steps" in keys:  # shared by DeepSpeed and axolotl
        return ConfigKind.DEEPSPEED if is_json else ConfigKind.AXOLOTL
    raise ConfigImportError(
        trans_late(
            "ConfigImport",
            "{name}: not a DeepSpeed, accelerate or axolotl config (none of their keys, "
            "such as train_batch_size, distributed_type or micro_batch_size)",
        ).format(name=name)
    )


# --------------------------------------------------------------------------- parsing

_NO_SUCH_FILE = trans_late("ConfigImport", "{name}: no such file")
_A_FOLDER = trans_late("ConfigImport", "{name}: is a folder, not a file")
_AT_LINE = trans_late("ConfigImport", "{what} at line {line}, column {column}")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _read_file(path: Path, name: str) -> str:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigImportError(_NO_SUCH_FILE.format(name=name)) from None
    except IsADirectoryError:
        raise ConfigImportError(_A_FOLDER.format(name=name)) from None
    except OSError as exc:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it: {why}").format(
                name=name, why=exc.strerror or str(exc)
            )
        ) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigImportError(
            trans_late(
                "ConfigImport", "{name}: too large for a config file (over {megabytes} MB)"
            ).format(name=name, megabytes=MAX_CONFIG_BYTES // 1_000_000)
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not a text file (not UTF-8)").format(name=name)
        ) from None


def _parse(text: str, name: str) -> tuple[Any, bool]:
    """The parsed content and whether it was JSON."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: too large for a config file").format(name=name)
        )
    try:
        return json.loads(text), True
    except json.JSONDecodeError as exc:
        # json's messages such as "Unterminated string starting at" end in "at": the
        # position follows them once, not "at at line"
        what = exc.msg.removesuffix(" at").rstrip(":")
        json_error = _AT_LINE.format(what=what, line=exc.lineno, column=exc.colno)
    except (ValueError, RecursionError) as exc:  # integers too long, nesting too deep
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it as JSON: {why}").format(
                name=name, why=_why(exc)
            )
        ) from None
    if text.lstrip().startswith(("{", "[")):
        # meant as JSON (DeepSpeed reads it with json.load): no YAML leniency
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not valid JSON: {why}").format(
                name=name, why=json_error
            )
        )
    # imported here: the app pays for the YAML parser only when a config is checked
    import yaml  # type: ignore[import-untyped, unused-ignore]

    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        problem: str = _one_line(exc.problem or exc.context or "syntax error")
        mark = exc.problem_mark
        if mark is not None:
            problem = _AT_LINE.format(what=problem, line=mark.line + 1, column=mark.column + 1)
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not valid YAML: {why}").format(
                name=name, why=problem
            )
        ) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError) as exc:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it as YAML: {why}").format(
                name=name, why=_why(exc)
            )
        ) from None
    return data, False


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return trans_late("ConfigImport", "nested too deeply").format()
    if "integer string conversion" in str(exc):
        return trans_late("ConfigImport", "a number has too many digits").format()
    return _one_line(str(exc))[:200] or type(exc).__name__


def read_config(
    path_or_text: str | os.PathLike[str],
    name: str | None = None,
    *,
    folder: str | os.PathLike[str] | None = None,
) -> ImportedConfig:
    """Read a DeepSpeed JSON, an accelerate YAML or an axolotl YAML.

    ``path_or_text`` is a path (a ``PathLike``, or a one-line string naming an existing
    file) or the config's text; without ``name``, a one-line string that cannot be a
    config (no ``:``, ``{`` or ``[``) is taken for a missing file. ``name`` is what
    messages call it (the path by default). A DeepSpeed JSON the config names is read
    relative to the config's folder, or to ``folder`` when the text is given.

    Raises ``ConfigImportError`` (a ``ValueError``) with one English line when the
    source cannot be read, is neither JSON nor YAML, holds no mapping, or is of no
    recognised kind. Keys that are present but unusable never raise: they are listed
    in ``unread``.
    """
    base = None if folder is None else Path(folder)
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str)
        and "\n" not in path_or_text
        and path_or_text.strip()
        and os.path.isfile(path_or_text)
    ):
        path = Path(path_or_text)
        source = _clean(name or str(path), 300)
        text = _read_file(path, source)
        if base is None:
            base = path.parent
    elif isinstance(path_or_text, str):
        text = path_or_text
        source = name or "config"
        one_line = "\n" not in text.strip()
        looks_like_path = not any(c in text for c in "{[:#")
        if name is None and one_line and text.strip() and looks_like_path:
            shown = _clean(text.strip(), 300)
            if os.path.isdir(text.strip()):
                raise ConfigImportError(_A_FOLDER.format(name=shown))
            raise ConfigImportError(_NO_SUCH_FILE.format(name=shown))
    else:
        raise TypeError(f"read_config needs a path or text, got {type(path_or_text).__name__}")
    source = _clean(source, 300)
    data, is_json = _parse(text, source)
    if data is None:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: the file is empty").format(name=source)
        )
    if not isinstance(data, dict):
        holds = (
            trans_late("ConfigImport", "{name}: holds a list, not a mapping of config keys")
            if isinstance(data, list)
            else trans_late(
                "ConfigImport", "{name}: holds a single value, not a mapping of config keys"
            )
        )
        raise ConfigImportError(holds.format(name=source))
    kind = _detect(data, is_json, source)
    reader = _Reader(base)
    reader.scan(data)
    _READERS[kind](data, reader)
    if kind is ConfigKind.DEEPSPEED:
        _deepspeed_unknown_keys(data, reader, top_level=is_json)
    return reader.build(kind, source)
