"""Jamba read from a config: the estimate against the bytes autograd really saves
(transformers' PyTorch scan: no mamba-ssm kernels on a CPU), and the exact parameter
count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # Mamba layers 0, 1, 3 and an attention layer 2 (grouped-query); experts on 1 and 3
    "jamba": {
        "model_type": "jamba",
        "hidden_size": 64,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 96,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "attn_layer_period": 4,
        "attn_layer_offset": 2,
        "expert_layer_period": 2,
        "expert_layer_offset": 1,
        "mamba_d_state": 8,
        "vocab_size": 500,
    },
    # an attention layer first (multi-head), experts on layer 1 with top-1 and the
    # load-balancing loss; mixer biases in the projections, none in the convolution, a
    # kernel of 3, expand 3, an explicit dt rank; tied embeddings
    "jamba-aux-mha": {
        "model_type": "jamba",
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "num_key_value_heads": 3,
        "intermediate_size": 80,
        "num_experts": 3,
        "num_experts_per_tok": 1,
        "attn_layer_period": 3,
        "attn_layer_offset": 0,
        "expert_layer_period": 3,
        "expert_layer_offset": 1,
        "mamba_d_state": 4,
        "mamba_expand": 3,
        "mamba_dt_rank": 6,
        "mamba_proj_bias": True,
        "mamba_conv_bias": False,
        "mamba_d_conv": 3,
        "output_router_logits": True,
        "tie_word_embeddings": True,
        "vocab_size": 400,
    },
}

SEQ = {"jamba": 40, "jamba-aux-mha": 24}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(
        SMALL[name], SEQ[name], attention=attention, checkpointing=checkpointing, padded=padded
    )
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_second_length_with_attention_dropout(name: str, attention: str) -> None:
    # attention_dropout 0.1 (eager: mask and dropped weights; SDPA on a CPU: the fp32
    # math path)
    c = compare(SMALL[name], 16, attention=attention, dropout=True)
    assert c.measured == c.estimated, (c.measured, c.estimated)


def test_fp32_weights() -> None:
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    config = SMALL["jamba"]
    model = build_model(dict(config), dtype="fp32", attention="sdpa", dropout=False)
    measured = measure_saved(model, random_batch(model, 16, 1)).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=16, dtype=Precision.FP32, attention=Attention.SDPA, device=Device.CPU
    )
    assert estimate(inputs).saved_bytes == measured


def test_published_config_counts_like_transformers() -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    name = "ai21labs__AI21-Jamba-1.5-Mini.json"
    arch = read_model_config(config_path(name))
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw_config(name)))
    assert parameters(arch) == model.num_parameters()
