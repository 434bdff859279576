"""gpt-oss (openai/gpt-oss-20b, openai/gpt-oss-120b) read from its published config.json."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Precision,
    Recompute,
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.families.gpt_oss import idle_parameters, routed_experts
from gradacc_desktop.core.memory.model_size import size_of
from tests.configs import breakdown_parts, config_path, raw_config

# num_parameters() of the model transformers 5.24 builds from each file on the meta device
# = OpenAI's model card: 20.91B and 116.83B total, 3.61B and 5.13B active (the active
# count leaves out the input embedding, a lookup)
PUBLISHED = {
    "openai__gpt-oss-20b.json": (20_914_757_184, 3_608_307_264),
    "openai__gpt-oss-120b.json": (116_829_156_672, 5_132_849_472),
}
TWENTY = "openai__gpt-oss-20b.json"


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_counts(name: str) -> None:
    total, active = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("gpt_oss", Family.GPT_OSS, Head.CAUSAL_LM)
    assert arch.architecture == "GptOssForCausalLM"
    assert parameters(arch) == total
    assert size_of(name, arch).compute_params == active


def test_gpt_oss_20b_shape() -> None:
    arch = read_model_config(config_path(TWENTY))
    # head_dim 64 with hidden 2880: a·d = 4096 ≠ h
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2880,
        24,
        64,
        8,
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions, arch.default_seq) == (
        2880,
        201088,
        131072,
        4096,
    )
    spec = arch.spec
    assert (spec.experts, spec.top_k, spec.expert_intermediate) == (32, 4, 2880)
    assert spec.attention_bias and not spec.tie_embeddings and not spec.aux_loss
    # sliding window of 128 on every other layer, from the first
    assert spec.sliding_window == 128 and spec.sliding_layers == 12
    assert spec.sliding[:4] == (True, False, True, False)
    assert (spec.rope_type, spec.rope_factor) == ("yarn", 32.0)
    assert (spec.swiglu_alpha, spec.swiglu_limit) == (1.702, 7.0)
    assert spec.quant_method == "mxfp4"
    big = read_model_config(config_path("openai__gpt-oss-120b.json"))
    assert (big.layers, big.spec.experts, big.spec.sliding_layers) == (36, 128, 18)


def test_parameters_by_hand() -> None:
    arch = read_model_config(config_path(TWENTY))
    h, a, k, d, m, e, v, layers = 2880, 64, 8, 64, 2880, 32, 201088, 24
    # q/k/v/o with biases, one sink per head
    attention = (h * a * d + a * d) + 2 * (h * k * d + k * d) + (a * d * h + h) + a
    expert = h * 2 * m + 2 * m + m * h + h  # gate/up and down, with biases
    layer = attention + 2 * h + (h * e + e) + e * expert
    assert parameters(arch) == 2 * v * h + layers * layer + h
    # the routed experts a token is not sent to; ExpertFacts' module per layer
    assert idle_parameters(arch) == layers * (e - 4) * expert
    assert routed_experts(arch) == (32, 4, 24, e * expert)


def test_expert_facts_include_the_expert_biases() -> None:
    from gradacc_desktop.core.memory.models import ModelSpec, facts

    model = facts(ModelSpec.bundled("gpt-oss-20b"))
    assert model.params == 20_914_757_184 and model.compute_params == 3_608_307_264
    assert model.experts is not None
    assert (model.experts.experts, model.experts.top_k, model.experts.sparse_layers) == (32, 4, 24)
    # GptOssExperts: 32 × (2880 × 5760 + 5760 + 2880 × 2880 + 2880) parameters
    assert model.experts.layer_params == 796_538_880
    assert model.largest_layer == 796_538_880
    assert model.experts.largest_layer(expert_parallel=8) == 201088 * 2880  # the embedding
    assert model.lora is None  # the experts are 3-D parameters, not q/k/v/gate/up/down


def test_hand_computed_layer() -> None:
    """gpt-oss-20b, s = 1024, bf16, a CPU: S = k·s = 4096 routed pairs, E = 32."""
    arch = read_model_config(config_path(TWENTY))
    result = estimate(arch.inputs(seq=1024, attention=Attention.EAGER, device=Device.CPU))
    parts = breakdown_parts(result)
    s, h, a, d, m, e, p = 1024, 2880, 64, 64, 2880, 32, 2
    pairs = 4 * s
    # fp32 input, fp32 rsqrt, fp32 normalised tensor (the weight multiplies in fp32)
    assert parts[Part.ATTN_NORM] == parts[Part.MLP_NORM] == 8 * s * h + 4 * s
    # rotated Q, K and V repeated to the 64 heads
    assert parts[Part.ATTN_QKV] == p * s * 3 * a * d
    # the softmax over s keys and the sink in bf16; int64 indices of the row maximum
    assert parts[Part.ATTN_SOFTMAX] == p * a * s * (s + 1) + 8 * a * s == 134_873_088
    assert parts[Part.ATTN_OUT_PROJ_INPUT] == p * s * a * d
    assert parts[Part.ROUTER] == p * s * h + 8 * pairs + p * pairs
    # four int64 index tensors (token gather, weight gather, bias gathers, inverse sort),
    # int32 offsets, the gathered tokens, the bf16 sorted weights
    assert parts[Part.EXPERT_DISPATCH] == 32 * pairs + 4 * e + p * pairs * h + p * pairs
    # gate/up output (2m), clamped gate, sigmoid, up + 1, glu, product; the down output
    assert parts[Part.EXPERT_MLP] == 7 * p * pairs * m + p * pairs * h == 188_743_680
    assert Part.MLP_ACTIVATION not in parts and Part.ATTN_DROPOUT not in parts
    assert {i.stack for i in result.breakdown if i.stack} == {StackKind.LAYERS}
    outside = breakdown_parts(result, per_layer=False)
    assert outside[Part.ROTARY] == p * s * d  # cos and sin, s × d/2 each
    assert outside[Part.FINAL_NORM] == 8 * s * h + 4 * s
    assert outside[Part.LOSS] == 4 * s * 201088 + 8 * (s + 1) + 4


def test_sdpa_is_estimated_as_eager() -> None:
    arch = read_model_config(config_path(TWENTY))
    eager = estimate(arch.inputs(seq=2048, attention=Attention.EAGER))
    sdpa = estimate(arch.inputs(seq=2048, attention=Attention.SDPA, padded=True))
    assert sdpa.saved_bytes == eager.saved_bytes  # padding adds no mask to eager layers
    assert any("eager" in n for n in sdpa.notes)
    assert not any("SDPA cannot" in n for n in eager.notes)


def test_dropout_recomputation_and_data_types() -> None:
    arch = read_model_config(config_path(TWENTY))
    s, a = 512, 64
    plain = estimate(arch.inputs(seq=s)).saved_bytes
    cpu = estimate(arch.inputs(seq=s, dropout=True, device=Device.CPU)).saved_bytes
    cuda = estimate(arch.inputs(seq=s, dropout=True, device=Device.CUDA)).saved_bytes
    # the dropout keeps its mask (bf16 noise on a CPU, bool on CUDA) and its output
    assert cpu - plain == 24 * (2 + 2) * a * s * s
    assert cuda - plain == 24 * (1 + 2) * a * s * s
    full = estimate(arch.inputs(seq=s, recompute=Recompute.FULL))
    assert {i.key: i.bytes for i in full.breakdown if i.count == 24} == {
        Part.LAYER_CHECKPOINT: 2 * s * 2880
    }
    assert Part.ROTARY not in breakdown_parts(full, per_layer=False)
    selective = estimate(arch.inputs(seq=s, recompute=Recompute.SELECTIVE)).saved_bytes
    assert full.saved_bytes < selective < plain
    fp32 = estimate(arch.inputs(seq=s, dtype=Precision.FP32)).saved_bytes
    assert plain < fp32 < 2 * plain


def test_the_load_balancing_loss() -> None:
    raw = raw_config(TWENTY)
    plain = estimate(parse_model_config(raw).inputs(seq=1000)).saved_bytes
    aux_arch = parse_model_config(raw | {"output_router_logits": True})
    assert aux_arch.spec.aux_loss
    aux = estimate(aux_arch.inputs(seq=1000))
    s, e, layers, p = 1000, 32, 24, 2
    assert aux.saved_bytes - plain == layers * p * s * e + 4 * e
    padded = estimate(aux_arch.inputs(seq=1000, padded=True)).saved_bytes
    assert padded - aux.saved_bytes == 4 * s + 4
    assert any("load-balancing" in n for n in aux.notes)


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    # GptOssConfig: the 120b's sizes, head_dim 64, sliding/full alternating, YaRN
    arch = parse_model_config({"model_type": "gpt_oss"})
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2880,
        36,
        64,
        8,
        64,
    )
    spec = arch.spec
    assert (spec.experts, spec.top_k, spec.sliding_window, spec.sliding_layers) == (128, 4, 128, 18)
    assert spec.attention_bias and not spec.tie_embeddings and spec.rope_type == "yarn"
    assert spec.quant_method == ""
    # = transformers' count of GptOssForCausalLM(GptOssConfig()) (the 120b without its file)
    assert parameters(arch) == 116_829_156_672
    # head_dim stays 64 whatever hidden / heads is
    assert parse_model_config({"model_type": "gpt_oss", "hidden_size": 512}).head_dim == 64
    # num_experts is an alias; GptOssConfig lets it win over num_local_experts
    both = {"model_type": "gpt_oss", "num_experts": 6, "num_local_experts": 5}
    assert parse_model_config(both).spec.experts == 6
    assert parse_model_config({"model_type": "gpt_oss", "num_local_experts": 16}).spec.experts == 16
    # a rope type other than YaRN keeps the same tensors
    other = parse_model_config(raw_config(TWENTY) | {"rope_scaling": {"rope_type": "linear"}})
    assert (other.spec.rope_type, other.spec.rope_factor) == ("linear", None)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"hidden_size": -1}, "hidden_size"),
        ({"head_dim": None}, "head_dim"),
        ({"num_key_value_heads": None}, "num_key_value_heads"),
        ({"num_key_value_heads": 7}, "num_key_value_heads"),
        ({"sliding_window": None}, "sliding_window"),
        ({"num_local_experts": 0}, "num_local_experts"),
        ({"num_local_experts": True}, "num_local_experts"),
        ({"num_experts_per_tok": 33}, "num_experts_per_tok"),
        ({"layer_types": ["full_attention"]}, "layer_types"),
        ({"layer_types": ["chunked_attention"] * 24}, "layer_types"),
        ({"attention_bias": "yes"}, "attention_bias"),
        ({"output_router_logits": 1}, "output_router_logits"),
        ({"swiglu_limit": "7"}, "swiglu_limit"),
        ({"partial_rotary_factor": 0.5}, "partial_rotary_factor"),
        (
            {"rope_scaling": {"rope_type": "yarn", "factor": 32.0, "partial_rotary_factor": 0.5}},
            "partial_rotary_factor",
        ),
        ({"rope_parameters": "yarn"}, "rope_parameters"),
    ],
)
def test_bad_values_are_refused_naming_the_key(change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(TWENTY) | change)
    assert info.value.key == key
    assert info.value.problem in (ConfigProblem.BAD_VALUE, ConfigProblem.UNSUPPORTED)
    if info.value.problem is ConfigProblem.BAD_VALUE:
        assert key in str(info.value)


def test_notes_say_what_the_estimate_assumes() -> None:
    arch = read_model_config(config_path(TWENTY))
    notes = estimate(arch.inputs(seq=512, attention=Attention.EAGER)).notes
    assert any("sink" in n for n in notes)
    assert any("grouped" in n and "SwiGLU" in n for n in notes)
    assert any("MXFP4" in n for n in notes)
    assert any("fp32" in n for n in notes)
    gptq = parse_model_config(raw_config(TWENTY) | {"quantization_config": {"quant_method": "x"}})
    assert any("quantization_config (x)" in n for n in estimate(gptq.inputs(seq=64)).notes)
