"""Llama variants (OLMo 2, Cohere, StarCoder2, GLM-4, StableLM, Granite) read from a
config: the estimate against the bytes autograd really saves (random-weight models, CPU,
one sample; equal to the byte) and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

_TOKENS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
_GQA = _TOKENS | {
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 192,
    "vocab_size": 1000,
}
SMALL: dict[str, dict[str, Any]] = {
    # post-norms, q/k RMSNorm over the whole projections, fp32 cos/sin, biases
    "olmo2": _GQA | {"model_type": "olmo2", "attention_bias": True},
    # parallel block, fp32 LayerNorm, per-head q/k norms, multi-query, untied head
    "cohere": _GQA
    | {
        "model_type": "cohere",
        "num_attention_heads": 8,
        "num_key_value_heads": 1,
        "use_qk_norm": True,
        "tie_word_embeddings": False,
    },
    # LayerNorm, plain MLP, biases, a window between the two sequence lengths
    "starcoder2": _GQA | {"model_type": "starcoder2", "sliding_window": 64},
    # four norms, fused gate/up, per-layer cos/sin, an odd partial rotary width (5 -> 6)
    "glm4": _GQA | {"model_type": "glm4", "head_dim": 20, "partial_rotary_factor": 0.25},
    # per-head q/k LayerNorm and the parallel residual
    "stablelm-qk-parallel": _GQA
    | {"model_type": "stablelm", "qk_layernorm": True, "use_parallel_residual": True},
    # every head its own K/V, q/k/v biases, half the head rotated
    "stablelm-mha": _TOKENS
    | {
        "model_type": "stablelm",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "num_key_value_heads": 3,
        "intermediate_size": 200,
        "vocab_size": 1500,
        "use_qkv_bias": True,
        "partial_rotary_factor": 0.5,
    },
    # the four multipliers of Granite 3.0, biases, tied embeddings
    "granite": _GQA
    | {
        "model_type": "granite",
        "num_attention_heads": 8,
        "embedding_multiplier": 12.0,
        "residual_multiplier": 0.22,
        "attention_multiplier": 0.015625,
        "logits_scaling": 8.0,
        "attention_bias": True,
        "mlp_bias": True,
        "tie_word_embeddings": True,
    },
}

PUBLISHED = (
    "allenai__OLMo-2-1124-13B.json",
    "CohereForAI__c4ai-command-r-08-2024.json",
    "bigcode__starcoder2-3b.json",
    "ccui46__hazardworld_per_chunk_act_glm_tokfix_diffPrompt_2000.json",
    "stabilityai__stablelm-2-zephyr-1_6b.json",
    "stabilityai__stablelm-2-12b.json",
    "ibm-granite__granite-3.0-2b-instruct.json",
)


def _check(config: dict[str, Any], seq: int, **options: Any) -> None:
    c = compare(config, seq, **options)
    assert c.estimated == c.measured, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [48, 160])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, padded: bool
) -> None:
    _check(SMALL[name], seq, attention=attention, padded=padded)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_full_recomputation_keeps_each_layers_input(name: str, attention: str) -> None:
    _check(SMALL[name], 48, attention=attention, checkpointing=True, padded=True)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_dropout_on_cpu(name: str, attention: str) -> None:
    # attention dropout everywhere; StarCoder2's residual and embedding dropout,
    # StableLM's hidden dropout; on CPU SDPA with dropout is the fp32 math path
    _check(SMALL[name], 48, attention=attention, dropout=True)


@pytest.mark.parametrize("seq", [63, 64])
def test_sdpa_takes_a_mask_from_a_sequence_as_long_as_the_window(seq: int) -> None:
    _check(SMALL["starcoder2"], seq, attention="sdpa")


def test_head_sizes_above_256_repeat_k_and_v() -> None:
    # transformers hands SDPA enable_gqa only up to a head size of 256
    config = SMALL["glm4"] | {"hidden_size": 64, "head_dim": 264, "intermediate_size": 96}
    _check(config, 40, attention="sdpa")


@pytest.mark.parametrize(("name", "dtype"), [("cohere", "fp32"), ("olmo2", "fp16")])
def test_other_dtypes(name: str, dtype: str) -> None:
    """Cohere's LayerNorm casts its weight to fp32 (a copy unless the model is fp32);
    OLMo 2's norms and cos/sin are fp32 whatever the dtype."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    config = SMALL[name]
    model = build_model(dict(config), dtype=dtype, attention="sdpa", dropout=False)
    measured = measure_saved(model, random_batch(model, 40, 1)).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=40, dtype=Precision(dtype), attention=Attention.SDPA, device=Device.CPU
    )
    assert estimate(inputs).saved_bytes == measured


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
