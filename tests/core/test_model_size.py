"""Named models for the time model: parameters, active parameters and shape."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.compute import Shape
from gradacc_desktop.core.model_size import UnknownModelError, known_models, model_size


def test_mixture_of_experts_computes_with_its_routed_experts() -> None:
    # Mixtral of Experts (Jiang et al. 2024): "47B parameters, but only uses 13B active
    # parameters during inference"; Qwen3-30B-A3B: 30.5B total, 3.3B activated.
    mixtral = model_size("mixtral-8x7b")
    assert round(mixtral.params / 1e9, 1) == 46.7
    assert round(mixtral.compute_params / 1e9, 1) == 12.9
    qwen = model_size("Qwen3-30B-A3B")
    assert round(qwen.params / 1e9, 1) == 30.5
    assert round(qwen.compute_params / 1e9, 1) == 3.4  # 3.35B with the routers


def test_dense_models() -> None:
    llama = model_size("llama-3.1-8b")
    assert llama.params == llama.compute_params == 8_030_261_248
    assert llama.shape == Shape(32, 32, 128) and llama.hidden == 4096 and llama.layers == 32
    gpt2 = model_size("gpt2")  # a sized preset
    assert gpt2.params == 124_439_808 and gpt2.shape == Shape(12, 12, 64)
    t5 = model_size("t5-base")  # encoder and decoder layers both attend
    assert t5.layers == 24


def test_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(UnknownModelError) as info:
        model_size("gpt-9")
    assert "llama-3.1-8b" in str(info.value)
    assert "gpt2" in known_models() and "mixtral-8x7b" in known_models()
