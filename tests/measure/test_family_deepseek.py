"""DeepSeek-V2 and DeepSeek-V3 (multi-head latent attention, experts with shared experts)
read from a config: the estimate against the bytes autograd really saves, and the exact
parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # V2-Lite's layout: no query latent, greedy softmax routing, a dense first layer
    "v2": {
        "model_type": "deepseek_v2",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "moe_intermediate_size": 32,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_shared_experts": 2,
        "first_k_dense_replace": 1,
        "q_lora_rank": None,
        "kv_lora_rank": 40,
        "qk_nope_head_dim": 24,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "vocab_size": 500,
    },
    # a query latent, group_limited_greedy (its mask), top-3, MLP and attention biases,
    # tied embeddings, YaRN, two dense layers of three
    "v2-grouped": {
        "model_type": "deepseek_v2",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "moe_intermediate_size": 32,
        "n_routed_experts": 8,
        "num_experts_per_tok": 3,
        "n_shared_experts": 2,
        "first_k_dense_replace": 2,
        "topk_method": "group_limited_greedy",
        "n_group": 4,
        "topk_group": 2,
        "q_lora_rank": 24,
        "kv_lora_rank": 40,
        "qk_nope_head_dim": 24,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "mlp_bias": True,
        "attention_bias": True,
        "tie_word_embeddings": True,
        "rope_scaling": {
            "type": "yarn",
            "factor": 4,
            "original_max_position_embeddings": 64,
            "mscale": 0.707,
            "mscale_all_dim": 0.707,
            "beta_fast": 32,
            "beta_slow": 1,
        },
        "max_position_embeddings": 256,
        "vocab_size": 500,
    },
    # V3's layout: query latent, sigmoid routing in groups, renormalised top-k
    "v3": {
        "model_type": "deepseek_v3",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 96,
        "moe_intermediate_size": 32,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_shared_experts": 1,
        "n_group": 2,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 48,
        "kv_lora_rank": 40,
        "qk_nope_head_dim": 24,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "vocab_size": 500,
    },
    # no query latent, no renormalisation, rotary not interleaved, every layer sparse,
    # GELU, attention biases, YaRN with mscale_all_dim (the softmax scale changes)
    "v3-plain": {
        "model_type": "deepseek_v3",
        "hidden_size": 48,
        "num_hidden_layers": 2,
        "num_attention_heads": 6,
        "num_key_value_heads": 6,
        "intermediate_size": 80,
        "moe_intermediate_size": 24,
        "n_routed_experts": 6,
        "num_experts_per_tok": 3,
        "n_shared_experts": 1,
        "n_group": 1,
        "topk_group": 1,
        "first_k_dense_replace": 0,
        "norm_topk_prob": False,
        "rope_interleave": False,
        "routed_scaling_factor": 1.5,
        "q_lora_rank": None,
        "kv_lora_rank": 32,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 12,
        "hidden_act": "gelu",
        "attention_bias": True,
        "rope_scaling": {
            "type": "yarn",
            "factor": 40,
            "original_max_position_embeddings": 64,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "beta_fast": 32,
            "beta_slow": 1,
        },
        "max_position_embeddings": 2560,
        "vocab_size": 400,
    },
    # query/key heads as wide as the value heads: SDPA runs the CPU flash kernel
    "v3-flash": {
        "model_type": "deepseek_v3",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 96,
        "moe_intermediate_size": 32,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_shared_experts": 2,
        "n_group": 2,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 48,
        "kv_lora_rank": 40,
        "qk_nope_head_dim": 8,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "vocab_size": 500,
    },
}

SEQ = {"v2": 72, "v2-grouped": 40, "v3": 56, "v3-plain": 48, "v3-flash": 64}


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
    assert c.measured == c.estimated
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["v2-grouped", "v3", "v3-flash"])
def test_with_attention_dropout_on_a_cpu(name: str, attention: str) -> None:
    c = compare(SMALL[name], 32, attention=attention, dropout=True)
    assert c.measured == c.estimated


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["v2-grouped", "v3-flash"])
def test_other_data_types(name: str, dtype: str) -> None:
    """fp32: the router's and kv_a_layernorm's casts are no-ops (shared storages)."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    for attention in ("eager", "sdpa"):
        model = build_model(dict(SMALL[name]), dtype=dtype, attention=attention, dropout=False)
        measured = measure_saved(model, random_batch(model, 40, 1)).saved_bytes
        inputs = parse_model_config(SMALL[name]).inputs(
            seq=40, dtype=Precision(dtype), attention=Attention(attention), device=Device.CPU
        )
        assert estimate(inputs).saved_bytes == measured


def test_the_bytes_do_not_depend_on_the_routing() -> None:
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(SMALL["v3"]), attention="sdpa", dropout=False)
    batch = random_batch(model, 64, 1)
    saved = [measure_saved(model, batch).saved_bytes]
    sparse = [layer.mlp for layer in model.model.layers if hasattr(layer.mlp, "gate")]
    with torch.no_grad():
        for mlp in sparse:
            mlp.gate.weight.zero_()  # every token: the same experts
    saved.append(measure_saved(model, batch).saved_bytes)
    with torch.no_grad():
        for mlp in sparse:
            mlp.gate.weight.normal_(0.0, 10.0)  # tokens spread over the experts
            mlp.gate.e_score_correction_bias.normal_(0.0, 1.0)
    saved.append(measure_saved(model, batch).saved_bytes)
    assert saved[0] == saved[1] == saved[2]


PUBLISHED = ("deepseek-ai__DeepSeek-V2-Lite.json", "deepseek-ai__DeepSeek-V3.json")


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert type(model).__name__ == raw["architectures"][0]
    # DeepSeek-V3's multi-token prediction layer (num_nextn_predict_layers) is not built
    assert len(model.model.layers) == raw["num_hidden_layers"]
    assert parameters(arch) == model.num_parameters()
