"""What one config file gives (``ImportedConfig``): the values as read, and, through
``derive``, the batch values, GPUs and training setup they resolve to."""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Any

from ...attention import AttentionKernel
from ...memory.setup import Offload, Precision, TrainingSetup, problem_text, setup_problem
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from .derive import resolve_derived
from .model import (
    MISSING_NAMES,
    Adapter,
    ConfigKind,
    Derived,
    ResolvedFile,
    UnknownKey,
    Unread,
)


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
    # activation (gradient) checkpointing on or off
    checkpointing: bool | None = None
    # the attention kernel the model is loaded with (None: the file does not say)
    attention: AttentionKernel | None = None
    # Liger's fused linear cross-entropy on or off (None: the file cannot say)
    fused_loss: bool | None = None
    # what a bf16 training's optimizer updates (DeepSpeed's bf16 master copy; none: pure
    # bf16 — torchtune's dtype bf16, LLaMA-Factory's pure_bf16)
    master_weights: MasterWeights | None = None
    # samples packed into full sequences (axolotl's sample_packing, TRL's and
    # LLaMA-Factory's packing, torchtune's dataset.packed): the tokens per step are then
    # the effective batch x sequence length; otherwise at most that
    packing: bool | None = None
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
    # axolotl's deepspeed is set (its context_parallel_size is then DeepSpeed's Ulysses
    # sequence parallelism)
    uses_deepspeed: bool = False
    # keys the framework does not know, with the nearest known key
    unknown_keys: tuple[UnknownKey, ...] = ()
    # the files the config names and where each was found (or not)
    resolved_files: tuple[ResolvedFile, ...] = ()
    # axolotl: which of micro_batch_size, gradient_accumulation_steps and batch_size
    # are set to a value axolotl counts as set (not empty, 0 or false)
    batch_keys_set: tuple[str, ...] = ()
    # values the file does not give that the framework's own default fills, each with
    # one English sentence saying so: (field, note)
    defaults: tuple[tuple[str, str], ...] = ()
    # accelerate launch: the processes it starts in all, (num_processes //
    # num_machines) x num_machines, when that is not ``gpus``; None otherwise
    started_gpus: int | None = None
    # how values were read, for the report (English sentences: FSDP's sharding
    # strategy read as a ZeRO stage, ...); ``derived`` gives them as notes
    notes: tuple[str, ...] = ()
    # the framework's warnings about values it runs anyway (English sentences);
    # ``derived`` gives them as warnings
    warnings: tuple[str, ...] = ()

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
        return resolve_derived(self, gpus)

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
        "uses_deepspeed",
        "unknown_keys",
        "resolved_files",
        "batch_keys_set",
        "defaults",
        "started_gpus",
        "notes",
        "warnings",
    }
)
