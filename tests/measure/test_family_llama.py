"""Llama-like (Llama, Mistral, Qwen2, Qwen3) and GPT-2 read from a config: the estimate
against the bytes autograd really saves, and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

from tests.configs import config_path, raw_config

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.harness import TOLERANCE, compare  # noqa: E402

_BASE = {
    "hidden_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 3000,
}
SMALL: dict[str, dict[str, Any]] = {
    "llama": _BASE | {"model_type": "llama"},
    "llama-biases-tied": _BASE
    | {
        "model_type": "llama",
        "attention_bias": True,
        "mlp_bias": True,
        "tie_word_embeddings": True,
        "num_hidden_layers": 3,
        "num_key_value_heads": 8,
    },
    "mistral-window": _BASE | {"model_type": "mistral", "sliding_window": 64},
    "qwen2-some-sliding": _BASE
    | {
        "model_type": "qwen2",
        "use_sliding_window": True,
        "sliding_window": 64,
        "max_window_layers": 1,
        "tie_word_embeddings": True,
    },
    "qwen3-head-dim": _BASE | {"model_type": "qwen3", "head_dim": 48, "num_hidden_layers": 3},
    # one key/value head: repeat_kv's expand-and-reshape is a view, not a copy
    "llama-one-kv-head": _BASE | {"model_type": "llama", "num_key_value_heads": 1},
    # a window as long as the shorter sequence: transformers masks from seq >= window
    "mistral-window-48": _BASE | {"model_type": "mistral", "sliding_window": 48},
    "gpt2": {"model_type": "gpt2", "n_embd": 128, "n_layer": 2, "n_head": 4, "vocab_size": 2000},
    "gpt2-relu": {
        "model_type": "gpt2",
        "n_embd": 96,
        "n_layer": 3,
        "n_head": 3,
        "n_inner": 200,
        "vocab_size": 1500,
        "activation_function": "relu",
        "tie_word_embeddings": False,
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [48, 160])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(SMALL[name], seq, attention=attention, checkpointing=checkpointing, padded=padded)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


PUBLISHED = (
    "openai-community__gpt2.json",
    "meta-llama__Llama-3.1-8B.json",
    "mistralai__Mistral-7B-v0.1.json",
    "Qwen__Qwen2.5-0.5B-Instruct.json",
    "Qwen__Qwen3-0.6B.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_llama_like_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
