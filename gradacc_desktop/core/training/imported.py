"""What a checked training config (DeepSpeed JSON, accelerate or axolotl YAML) fixes of
the training description: the batch and its setup, and — where the file says — the
method, LoRA's rank and layers, the sequence length and the model."""

from __future__ import annotations

from dataclasses import dataclass, replace

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.recompute import Recompute

from ..frameworks.config_import import (
    Adapter,
    ConfigKind,
    ImportedConfig,
)
from ..memory.lora import LoraTargets
from ..memory.models import ModelSpec, catalogue
from ..memory.setup import Offload, Precision, TrainingSetup
from ..memory.zero import ZeroStage
from ..precision import MasterWeights
from .description import Method, TrainingDescription

__all__ = ["HeldBatch", "bundled_model_of", "fixed_by", "layout_fixed_by"]


@dataclass(frozen=True)
class HeldBatch:
    """A checked config's own micro-batch and accumulation steps, held by the training
    description while its GPUs change: the framework reads them from the file on however
    many GPUs it is launched (DeepSpeed derives a missing value from the two others,
    ``train_batch_size ÷ (micro-batch × GPUs)``), so the effective batch follows the GPUs
    as the framework would run it (``gradacc check --world-size N``)."""

    config: ImportedConfig
    file_name: str
    micro_batch: int
    accumulation_steps: int

    def on(self, world: int) -> HeldBatch:
        """The pair the file gives on ``world`` GPUs in all; where its framework refuses
        it there (``train_batch_size`` that does not split), the last pair it ran with."""
        d = self.config.derived(world)
        if d.problem is not None or d.micro_batch is None or d.accumulation_steps is None:
            return self
        return replace(self, micro_batch=d.micro_batch, accumulation_steps=d.accumulation_steps)


def bundled_model_of(base_model: str | None) -> str | None:
    """The bundled model a config's ``base_model`` names, or None: its Hugging Face
    repository (an instruction-tuned or chat release counts as its base model: the same
    shapes), a catalogue name, or a torchtune model builder
    (``torchtune.models.llama3_1.lora_llama3_1_8b``)."""
    if not base_model:
        return None
    wanted = _release(base_model.strip().strip("/").lower())
    builder = wanted.rsplit(".", 1)[-1]
    for prefix in ("qlora_", "lora_"):
        builder = builder.removeprefix(prefix)
    if wanted.startswith("torchtune.") and builder in TORCHTUNE_BUILDERS:
        return TORCHTUNE_BUILDERS[builder]
    for model in catalogue():
        repo = model.source.removeprefix("https://huggingface.co/").split("/blob/")[0].lower()
        if wanted in (_release(repo), repo, model.name.lower()):
            return model.name
    return None


def _release(repo: str) -> str:
    """A repository without its instruction-tuned or chat suffix."""
    for suffix in ("-instruct", "-chat", "-it", "-hf"):
        if repo.endswith(suffix):
            return repo.removesuffix(suffix)
    return repo


#: torchtune's model builders (torchtune/models/<family>/_model_builders.py) and the
#: bundled model of the same shapes
TORCHTUNE_BUILDERS = {
    "llama3_1_8b": "llama-3.1-8b",
    "llama3_2_1b": "llama-3.2-1b",
    "llama3_2_3b": "llama-3.2-3b",
    "llama3_8b": "llama-3-8b",
    "llama3_70b": "llama-3-70b",
    "mistral_7b": "mistral-7b",
    "gemma2_2b": "gemma-2-2b",
    "phi3_mini": "phi-3-mini-4k",
    "qwen2_5_0_5b": "qwen2.5-0.5b",
    "qwen2_5_7b_base": "qwen2.5-7b",
    "qwen2_5_7b_instruct": "qwen2.5-7b",
    "qwen3_0_6b_base": "qwen3-0.6b",
    "qwen3_0_6b_instruct": "qwen3-0.6b",
}


def fixed_by(
    config: ImportedConfig, setup: TrainingSetup, current: TrainingDescription
) -> TrainingDescription:
    """``current`` with what ``config`` fixes (``setup``: its batch and layout)."""
    d = replace(
        current,
        target_batch=setup.effective_batch,
        micro_batch=setup.micro_batch,
        gpus=setup.gpus,
        nodes=_nodes(config, setup.world, current),
        zero_stage=setup.zero_stage,
        precision=setup.precision,
        offload=setup.offload,
        tensor_parallel=setup.tensor_parallel,
        pipeline_stages=setup.pipeline_stages,
        context_parallel=setup.context_parallel,
    )
    return _training_fixed_by(config, d)


def layout_fixed_by(
    config: ImportedConfig, current: TrainingDescription, gpus: int | None = None
) -> TrainingDescription | None:
    """``current`` with the layout ``config`` fixes when it gives no batch values (an
    ``accelerate config`` YAML: the training script gives the micro-batch): its GPUs,
    parallel sizes, nodes, ZeRO stage, offload and precision, the description's own
    batch kept. None when the file leaves one of those open or its framework refuses
    them. A precision left "auto" is taken as bf16 (see ``described_setup``)."""
    d = config.derived(gpus)
    if d.problem is not None or d.gpus is None or d.data_parallel is None:
        return None
    if any(name in config.unresolved for name in ("zero_stage", "offload", "nodes")):
        return None
    precision = config.precision
    if precision is None and "precision" in config.auto_fields:
        precision = Precision.BF16
    elif "precision" in config.unresolved:
        return None
    sizes = dict(d.parallel)
    described = replace(
        current,
        gpus=d.data_parallel,
        tensor_parallel=sizes.get("tensor", 1),
        pipeline_stages=sizes.get("pipeline", 1),
        context_parallel=sizes.get("context", 1),
        nodes=_nodes(config, d.gpus, current),
        zero_stage=ZeroStage.NONE if config.zero_stage is None else config.zero_stage,
        precision=precision or Precision.FP32,
        offload=config.offload or Offload.NONE,
    )
    return _training_fixed_by(config, described)


def _nodes(config: ImportedConfig, world: int, current: TrainingDescription) -> int:
    """The file's machines, or — when it does not say (a DeepSpeed JSON, an axolotl
    YAML) — the description's, as long as they split the GPUs evenly (else one)."""
    if config.nodes is not None:
        return config.nodes
    return current.nodes if world % current.nodes == 0 else 1


def _training_fixed_by(config: ImportedConfig, d: TrainingDescription) -> TrainingDescription:
    """``d`` with the method, LoRA, sequence length, recomputation and model ``config``
    names."""
    if config.adapter is not None:
        quantized = config.adapter is Adapter.QLORA or bool(config.base_4bit)
        d = replace(d, method=Method.QLORA if quantized else Method.LORA)
        if config.lora_rank is not None:
            d = replace(d, lora_rank=config.lora_rank)
        if config.lora_targets:
            names = tuple(config.lora_targets)
            d = replace(
                d,
                lora_targets=LoraTargets.ALL_LINEAR if "all-linear" in names else names,
            )
    elif config.kind in _FULL_WITHOUT_ADAPTER or (
        config.kind is ConfigKind.TRAINER and config.base_model is not None
    ):
        # axolotl without ``adapter``, LLaMA-Factory's finetuning_type full/freeze,
        # torchtune's full recipes, GPT-NeoX (pre-training) and a TRL recipe naming its
        # model without use_peft train every parameter
        d = replace(d, method=Method.FULL)
    if config.sequence_length is not None:
        d = replace(d, seq_len=config.sequence_length)
    if config.checkpointing is not None:
        d = replace(d, recompute=Recompute.FULL if config.checkpointing else Recompute.NONE)
    if config.attention is not None:
        d = replace(d, attention=config.attention)
    if config.fused_loss is not None:
        d = replace(d, fused_loss=config.fused_loss)
    if config.master_weights is not None:
        d = replace(d, master_weights=config.master_weights)
    if config.kind is ConfigKind.TORCHTUNE or (
        config.master_weights is MasterWeights.NONE and not _deepspeed_runs(config)
    ):
        # torchtune's recipes shard with FSDP2 (or run on one device); pure bf16 without
        # DeepSpeed is PyTorch's own DDP or FSDP2: the description's FSDP
        d = replace(d, framework=Framework.FSDP)
    name = bundled_model_of(config.base_model)
    if name is not None:
        d = replace(d, model=ModelSpec.bundled(name))
    return d


def _deepspeed_runs(config: ImportedConfig) -> bool:
    """The file's training runs under DeepSpeed: a DeepSpeed JSON, GPT-NeoX, or a file
    naming one (followed, or axolotl's deepspeed)."""
    return config.kind.deepspeed_batch or config.uses_deepspeed or bool(config.followed)


_FULL_WITHOUT_ADAPTER = frozenset(
    {ConfigKind.AXOLOTL, ConfigKind.LLAMA_FACTORY, ConfigKind.TORCHTUNE, ConfigKind.NEOX}
)
