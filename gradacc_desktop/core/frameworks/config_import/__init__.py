"""Read an existing training config as its framework reads it: "check my config".

``read_config(path_or_text)`` recognises, by content rather than by file name:

* a DeepSpeed JSON (``ds_config.json``): the batch triple, ``zero_optimization`` (stage
  and offload devices), ``bf16`` / ``fp16``, ``tensor_parallel``;
* an ``accelerate config`` YAML: processes (split over the machines as ``accelerate
  launch`` does), machines, ``mixed_precision``, ``distributed_type``, its DeepSpeed
  section (following ``deepspeed_config_file``), ``fsdp_config`` and
  ``parallelism_config``;
* an axolotl YAML: batch keys with axolotl's own rules, precision, LoRA / QLoRA,
  sequence length, checkpointing, parallel sizes, FSDP and the DeepSpeed JSON named by
  ``deepspeed``, unknown keys against axolotl's schema;
* Hugging Face ``TrainingArguments`` (JSON) and TRL / alignment-handbook recipes (YAML);
* a LLaMA-Factory YAML, a torchtune YAML and a GPT-NeoX YAML.

Every value it reads is an ``int``, an enum, a string or ``None`` when the file does not
give it; a key set to ``"auto"`` (the trainer fills it) is listed in ``auto_keys``; a
value the framework's default fills is listed in ``defaults`` with a note; a key it
found but could not use is listed in ``unread`` with the reason (``refused`` when the
framework itself refuses it), and a key the framework does not know in
``unknown_keys``. ``derived(gpus)`` replays each framework's derivation of the batch
values and of the data-parallel replicas, ``setup(gpus)`` gives the ``TrainingSetup``
once enough is known, and ``verdict(config, gpus)`` (``verdict.py``) says whether the
framework runs the file, the reasons first: the one reading ``gradacc check`` and the
window show.

Pure Python (no Qt); the parser is PyYAML's ``safe_load`` (JSON is read by ``json``).
Messages are English ``Message`` strings (``core.text``): the command line prints them
as they are, the window translates them (context "ConfigImport").

The package: ``model`` (the values and errors), ``imported`` (``ImportedConfig``),
``reader`` (collecting what one file gives), one module per framework (``deepspeed``,
``accelerate``, ``fsdp``, ``axolotl`` with ``axolotl_keys``, ``trainer`` with
``trainer_keys``, ``llama_factory``, ``torchtune`` with ``torchtune_keys``, ``neox`` with
``neox_keys``), ``follow`` (a DeepSpeed JSON a config
names), ``files`` (reading, parsing and recognising a file), ``derive`` (the batch
values, GPUs and parallel sizes) with ``derive_rules`` (GPT-NeoX's and torchtune's own
rules, apart from their readers), ``verdict`` and ``read`` (``read_config``).
"""

from __future__ import annotations

from .derive import deepspeed_text
from .imported import ImportedConfig
from .model import (
    FRAMEWORKS,
    MAX_CONFIG_BYTES,
    MISSING_NAMES,
    Adapter,
    ConfigImportError,
    ConfigKind,
    Derived,
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
