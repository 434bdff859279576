"""What a checked training config (DeepSpeed JSON, accelerate or axolotl YAML) fixes of
the training description: the batch and its setup, and — where the file says — the
method, LoRA's rank and layers, the sequence length and the model."""

from __future__ import annotations

from dataclasses import replace

from ..config_import import Adapter, ImportedConfig
from ..lora import LoraTargets
from ..models import ModelSpec, catalogue
from ..setup import TrainingSetup
from .description import Method, TrainingDescription

__all__ = ["bundled_model_of", "fixed_by"]


def bundled_model_of(base_model: str | None) -> str | None:
    """The bundled model a config's ``base_model`` names (its Hugging Face repository,
    or a catalogue name), or None."""
    if not base_model:
        return None
    wanted = base_model.strip().strip("/").lower()
    for model in catalogue():
        repo = model.source.removeprefix("https://huggingface.co/").split("/blob/")[0].lower()
        if wanted in (repo, model.name.lower()):
            return model.name
    return None


def fixed_by(
    config: ImportedConfig, setup: TrainingSetup, current: TrainingDescription
) -> TrainingDescription:
    """``current`` with what ``config`` fixes (``setup``: its batch and layout)."""
    d = replace(
        current,
        target_batch=setup.effective_batch,
        micro_batch=setup.micro_batch,
        gpus=setup.gpus,
        nodes=setup.nodes,
        zero_stage=setup.zero_stage,
        precision=setup.precision,
        offload=setup.offload,
        tensor_parallel=1,
        pipeline_stages=1,
    )
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
    if config.sequence_length is not None:
        d = replace(d, seq_len=config.sequence_length)
    name = bundled_model_of(config.base_model)
    if name is not None:
        d = replace(d, model=ModelSpec.bundled(name))
    return d
