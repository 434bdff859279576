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

The package: ``model`` (the values and errors), ``reader`` (collecting what one file
gives), ``deepspeed``, ``accelerate`` and ``axolotl`` (each framework's keys and reading),
``follow`` (a DeepSpeed JSON a config names), ``files`` (reading, parsing and recognising
a file), ``derive`` (resolving the batch values, GPUs and parallel sizes) and ``read``
(``read_config``).
"""

from __future__ import annotations

from .derive import deepspeed_text
from .model import (
    FRAMEWORKS,
    MAX_CONFIG_BYTES,
    MISSING_NAMES,
    Adapter,
    ConfigImportError,
    ConfigKind,
    Derived,
    ImportedConfig,
    ResolvedFile,
    UnknownKey,
    Unread,
)
from .model import (
    KIND_NAMES as KIND_NAMES,
)
from .read import read_config
from .verdict import Verdict, described_setup, unknown_text, unread_text, verdict

__all__ = [
    "FRAMEWORKS",
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
    "Verdict",
    "deepspeed_text",
    "described_setup",
    "read_config",
    "unknown_text",
    "unread_text",
    "verdict",
]
