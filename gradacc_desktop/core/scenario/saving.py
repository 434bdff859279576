"""Writing a scenario: ``to_dict`` and ``save`` (UTF-8 JSON, the format
``core.scenario`` describes)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ..calculator import normalize
from ..memory.lora import LoraTargets
from ..memory.models import ModelSource, ModelSpec
from .settings import FORMAT, SPEED_KEYS, VERSION, Scenario


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
            **{key: _dec(getattr(p, key)) for key in SPEED_KEYS},
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
            "framework": p.framework.value,
            "sequence_parallel": p.sequence_parallel,
            "cpu_memory_gb": p.cpu_memory_gb,
            "fused_loss": p.fused_loss,
            "master_weights": p.master_weights.value,
            "expert_tensor_parallel": p.expert_tensor_parallel,
            "tp_comm_overlap": p.tp_comm_overlap,
            "grad_reduce_bf16": p.grad_reduce_bf16,
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
