"""Transformers models built from the config.json files the app reads (no weights, no
network): the bundled models on the ``meta`` device (shapes only, any size in no time),
tiny ones on the CPU for real forward and backward passes."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from tests.configs import ROOT, config_path, raw_config

os.environ.setdefault("HF_HUB_OFFLINE", "1")

INDEX = ROOT / "resources" / "data" / "models" / "index.json"


def bundled_file(name: str) -> str:
    """The config.json file of the bundled model ``name`` (resources/data/models)."""
    index = json.loads(INDEX.read_text(encoding="utf-8"))
    return next(m["file"] for m in index["models"] if m["name"] == name)


def model_class(model_type: str) -> Any:
    """The head the app counts: a masked LM for encoders, a seq2seq LM for T5, a causal
    LM for every decoder."""
    import transformers

    if model_type in ("bert", "roberta"):
        return transformers.AutoModelForMaskedLM
    if model_type == "t5":
        return transformers.AutoModelForSeq2SeqLM
    return transformers.AutoModelForCausalLM


def hf_config(data: dict[str, Any]) -> Any:
    import transformers

    return transformers.CONFIG_MAPPING[data["model_type"]].from_dict(data)


def build(data: dict[str, Any], *, meta: bool) -> Any:
    """The model of a decoded config.json: on the meta device, or materialised (CPU)."""
    import torch

    config = hf_config(data)
    cls = model_class(data["model_type"])
    if not meta:
        torch.manual_seed(0)
        return cls.from_config(config)
    with torch.device("meta"):
        return cls.from_config(config)


@cache
def meta_model(name: str) -> Any:
    """The bundled model ``name`` as transformers builds it, on the meta device."""
    path = config_path(bundled_file(name))
    return build(json.loads(path.read_text(encoding="utf-8")), meta=True)


def parameter_counts(model: Any) -> tuple[int, int]:
    """(every parameter, the largest layer) as DeepSpeed's ``model_to_params`` counts
    them for ZeRO-3: its own largest-layer loop; the total over ``model.parameters()``,
    which lists a tied weight once (DeepSpeed keys the same sum by ``data_ptr()``, which
    is 0 for every meta tensor; ``test_plan_memory`` checks the two agree on a real
    model)."""
    from deepspeed.runtime.zero.stage3 import model_to_params

    _, largest = model_to_params(model)
    return sum(p.numel() for p in model.parameters()), largest


def write_config(data: dict[str, Any], folder: Path) -> Path:
    """``folder/config.json`` (what ``--model-config`` and ``from_pretrained`` read)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


#: tiny versions of published configs: every key of the file, smaller sizes (the app's
#: parser and transformers both read them; token ids inside the small vocabulary)
TINY: dict[str, tuple[str, dict[str, Any]]] = {
    # Llama 3.1: untied LM head, grouped-query attention
    "llama": (
        "meta-llama__Llama-3.1-8B.json",
        {"hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512},
    ),
    # Qwen2.5: tied embeddings, q/k/v biases
    "qwen2": (
        "Qwen__Qwen2.5-0.5B-Instruct.json",
        {"hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512},
    ),
    # Gemma 2: heads x head_dim (64) is not the hidden size (48)
    "gemma2": (
        "google__gemma-2-2b.json",
        {"hidden_size": 48, "head_dim": 16, "intermediate_size": 96, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 384},
    ),
    # GPT-2: Conv1D projections, fused c_attn, learned positions
    "gpt2": (
        "openai-community__gpt2.json",
        {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 128, "n_ctx": 128,
         "vocab_size": 500},
    ),
}  # fmt: skip


def tiny_config(kind: str) -> dict[str, Any]:
    """The decoded tiny config.json of ``kind`` (a key of ``TINY``)."""
    file, sizes = TINY[kind]
    data = {**raw_config(file), **sizes}
    for key in ("bos_token_id", "eos_token_id", "pad_token_id"):
        if isinstance(data.get(key), int):
            data[key] = 1
    return data
