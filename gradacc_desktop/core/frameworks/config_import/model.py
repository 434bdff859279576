"""The values a config import gives: the kinds, the errors, the pieces of what was
read (``Unread``, ``UnknownKey``, ``ResolvedFile``) and what follows from it
(``Derived``). ``ImportedConfig`` itself, which derives, lives in ``imported``."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from dataclasses import field as dc_field

from ...batch.planning import DeepSpeedCheck
from ...text import Message, trans_late
from ..verdicts import MegatronCheck

# Config files are a few kilobytes; anything larger is not one.
MAX_CONFIG_BYTES = 2_000_000


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
    # Hugging Face TrainingArguments (a JSON) or a TRL / alignment-handbook recipe YAML
    # (TrainingArguments' keys with TRL's ModelConfig and script arguments)
    TRAINER = "transformers"
    LLAMA_FACTORY = "llama-factory"
    TORCHTUNE = "torchtune"
    # GPT-NeoX's YAML: DeepSpeed's batch keys with Megatron's parallel sizes
    NEOX = "gpt-neox"

    @property
    def deepspeed_batch(self) -> bool:
        """The file gives DeepSpeed's batch triple, derived and checked as DeepSpeed
        does (a DeepSpeed JSON, GPT-NeoX's YAML)."""
        return self in (ConfigKind.DEEPSPEED, ConfigKind.NEOX)


KIND_NAMES = {
    ConfigKind.DEEPSPEED: "DeepSpeed config",
    ConfigKind.ACCELERATE: "accelerate config",
    ConfigKind.AXOLOTL: "axolotl config",
    ConfigKind.TRAINER: "Hugging Face Trainer arguments (transformers / TRL)",
    ConfigKind.LLAMA_FACTORY: "LLaMA-Factory config",
    ConfigKind.TORCHTUNE: "torchtune config",
    ConfigKind.NEOX: "GPT-NeoX config",
}


#: the program that reads each kind of file (proper names: not translated)
FRAMEWORKS = {
    ConfigKind.DEEPSPEED: "DeepSpeed",
    ConfigKind.ACCELERATE: "accelerate",
    ConfigKind.AXOLOTL: "axolotl",
    ConfigKind.TRAINER: "transformers",
    ConfigKind.LLAMA_FACTORY: "LLaMA-Factory",
    ConfigKind.TORCHTUNE: "torchtune",
    ConfigKind.NEOX: "GPT-NeoX",
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
    # config), "parent folder" (a folder above the config, where a repository's
    # examples are launched from) or "absolute"; None when not found
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
BATCH_FIELDS = ("micro_batch", "accumulation_steps", "train_batch_size")
CHECK_NAMES = {
    "micro_batch": "micro_batch",
    "grad_acc": "accumulation_steps",
    "train_batch_size": "train_batch_size",
}

AXOLOTL_BATCH_KEYS = ("micro_batch_size", "gradient_accumulation_steps", "batch_size")


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
