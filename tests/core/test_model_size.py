"""Named models for the time model: parameters, active parameters and shape."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.memory.models import (
    ModelSize,
    ModelSpec,
    UnknownModelError,
    facts,
    known_models,
)
from gradacc_desktop.core.time.compute import Shape


def model_size(name: str) -> ModelSize:
    """The time model's view of the bundled model ``name``, as the plan reads it."""
    size = facts(ModelSpec.bundled(name)).size
    assert size is not None
    return size


def test_mixture_of_experts_computes_with_its_routed_experts() -> None:
    # Mixtral of Experts (Jiang et al. 2024): "47B parameters, but only uses 13B active
    # parameters during inference"; Qwen3-30B-A3B: 30.5B total, 3.3B activated.
    # Its untied input embedding (32000 x 4096) is a lookup, not a matrix product.
    mixtral = model_size("mixtral-8x7b")
    assert round(mixtral.params / 1e9, 1) == 46.7
    assert mixtral.compute_params + 32000 * 4096 == 12_879_925_248  # 12.9B active
    qwen = model_size("Qwen3-30B-A3B")
    assert round(qwen.params / 1e9, 1) == 30.5
    assert qwen.compute_params + 151936 * 2048 == 3_353_032_704  # 3.35B with the routers


def test_dense_models() -> None:
    # the N of 6N: every weight a matrix product uses, not the embedding lookups
    llama = model_size("llama-3.1-8b")
    assert llama.params == 8_030_261_248
    assert llama.compute_params == 8_030_261_248 - 128256 * 4096  # untied input embedding
    assert llama.shape == Shape(32, 32, 128) and llama.hidden == 4096 and llama.layers == 32
    assert model_size("llama-3-8b").compute_params == llama.compute_params  # sized preset
    gpt2 = model_size("gpt2")  # tied: the embedding is the LM head; positions are a lookup
    assert gpt2.params == 124_439_808 and gpt2.shape == Shape(12, 12, 64)
    assert gpt2.compute_params == 124_439_808 - 1024 * 768
    qwen = model_size("qwen2.5-0.5b")  # tied
    assert qwen.compute_params == qwen.params
    t5 = model_size("t5-base")  # encoder and decoder layers both attend
    assert t5.layers == 24


def test_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(UnknownModelError) as info:
        model_size("gpt-9")
    assert "llama-3.1-8b" in str(info.value)
    assert "gpt2" in known_models() and "mixtral-8x7b" in known_models()
