"""Falcon read from its published config.json files (no torch): shape, parameters,
what the layout keeps."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Precision,
    Recompute,
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
from gradacc_desktop.core.memory.families.falcon import Norms
from tests.configs import breakdown_parts, config_path, raw_config

FALCON_7B = "tiiuae__falcon-7b-instruct.json"
FALCON_40B = "tiiuae__falcon-40b-instruct.json"

# num_parameters() of the models transformers 5.24 builds from these files (meta device)
PUBLISHED = {FALCON_7B: 6_921_720_704, FALCON_40B: 41_303_293_952}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("falcon", Family.FALCON, Head.CAUSAL_LM)
    assert arch.architecture == "FalconForCausalLM"
    assert parameters(arch) == PUBLISHED[name]


def test_falcon_7b_is_multi_query_with_one_shared_norm() -> None:
    arch = read_model_config(config_path(FALCON_7B))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4544,
        32,
        71,
        1,  # multi_query: the file's num_kv_heads (71) is not used
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (4 * 4544, 65024, 2048)
    spec = arch.spec
    assert spec.multi_query and not spec.new_architecture and not spec.alibi
    assert spec.norms is Norms.SHARED and spec.tie_embeddings and not spec.bias
    assert spec.activation == "gelu"


def test_falcon_40b_has_kv_groups_and_two_norms() -> None:
    arch = read_model_config(config_path(FALCON_40B))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        8192,
        60,
        128,
        8,
        64,
    )
    assert arch.spec.new_architecture and not arch.spec.multi_query
    assert arch.spec.norms is Norms.TWO


def test_parameters_by_hand() -> None:
    # Falcon-7B: fused QKV (71 + 2 heads of 64), dense, 4h MLP, one LayerNorm per layer,
    # final LayerNorm, tied embeddings, no biases
    h, i, v = 4544, 4 * 4544, 65024
    layer = h * (71 + 2) * 64 + h * h + 2 * h * i + 2 * h
    assert parameters(read_model_config(config_path(FALCON_7B))) == v * h + 32 * layer + 2 * h
    untied = parse_model_config(
        raw_config(FALCON_7B) | {"tie_word_embeddings": False, "bias": True}
    )
    biases = (71 + 2) * 64 + h + i + h
    assert parameters(untied) == v * h + 32 * (layer + biases) + 2 * h + v * h


def test_falcon_7b_layer_by_hand_sdpa_on_cpu() -> None:
    # one K/V head without enable_gqa: SDPA's math path in fp32
    arch = read_model_config(config_path(FALCON_7B))
    s, h, a, d, i = 1000, 4544, 71, 64, 4 * 4544
    result = estimate(arch.inputs(seq=s, dtype=Precision.BF16, device=Device.CPU))
    parts = breakdown_parts(result)
    assert parts[Part.ATTN_NORM] == 2 * s * h + 2 * 2 * s  # input + bf16 mean/rstd (CPU)
    assert parts[Part.QKV_PROJ_INPUT] == 2 * s * h  # shared by the MLP: no MLP_NORM
    assert Part.MLP_NORM not in parts and Part.MLP_IN_PROJ_INPUT not in parts
    assert parts[Part.ATTN_QKV] == 4 * s * a * d + 2 * 4 * s * d  # fp32 Q, K, V
    assert parts[Part.ATTN_SOFTMAX] == 4 * a * s * s  # fp32 softmax
    assert parts[Part.ATTN_OUT_PROJ_INPUT] == 2 * s * h
    assert parts[Part.MLP_ACTIVATION] == 2 * s * i  # GELU input
    assert parts[Part.MLP_OUT_PROJ_INPUT] == 2 * s * i
    assert parts[Part.OTHER_LAYER] == 16  # int64 indices picking K and V
    layer = sum(parts.values())
    outside = breakdown_parts(result, per_layer=False)
    assert outside[Part.ROTARY] == 2 * 2 * s * d  # cos and sin
    assert outside[Part.LOSS] == 4 * s * 65024 + 8 * (s + 1) + 4
    assert result.saved_bytes == 32 * layer + sum(outside.values())


def test_falcon_7b_eager_keeps_one_kv_head_and_the_bf16_softmax() -> None:
    arch = read_model_config(config_path(FALCON_7B))
    s, a, d = 512, 71, 64
    parts = breakdown_parts(
        estimate(arch.inputs(seq=s, attention=Attention.EAGER, device=Device.CPU))
    )
    assert parts[Part.ATTN_QKV] == 2 * s * a * d + 2 * (2 * s * d)  # rotated Q, K; V
    assert parts[Part.ATTN_SOFTMAX] == 2 * a * s * s


def test_falcon_40b_sdpa_keeps_its_mask_copy_and_broadcast_kv() -> None:
    arch = read_model_config(config_path(FALCON_40B))
    s, h, a, d = 2048, 8192, 128, 64
    parts = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CUDA)))
    # rotated Q and K, V broadcast from its group to every head (copies)
    assert parts[Part.ATTN_QKV] == 3 * 2 * s * a * d
    assert parts[Part.ATTN_MASK] == 2 * s * s  # padded or not: Falcon always masks
    assert parts[Part.ATTN_FUSED] == 4 * a * s
    # ln_mlp reads the input ln_attn keeps: only its fp32 (CUDA) statistics
    assert parts[Part.MLP_NORM] == 2 * 4 * s
    assert parts[Part.MLP_IN_PROJ_INPUT] == 2 * s * h
    padded = estimate(arch.inputs(seq=s, device=Device.CUDA, padded=True))
    assert padded.saved_bytes == estimate(arch.inputs(seq=s, device=Device.CUDA)).saved_bytes


def test_alibi_keeps_one_mask_for_all_layers_under_sdpa() -> None:
    raw = raw_config(FALCON_7B) | {"alibi": True, "multi_query": False, "parallel_attn": False}
    arch = parse_model_config(raw)
    s, a, h = 256, 71, 4544
    sdpa = estimate(arch.inputs(seq=s, device=Device.CPU))
    outside = breakdown_parts(sdpa, per_layer=False)
    assert outside[Part.SHARED_POSITION_BIAS] == 2 * a * s * s and Part.ROTARY not in outside
    layer = breakdown_parts(sdpa)
    assert layer[Part.ATTN_QKV] == 2 * s * 3 * h  # Q, K, V: views of the fused output
    assert Part.ATTN_MASK not in layer
    eager = estimate(arch.inputs(seq=s, attention=Attention.EAGER, device=Device.CPU))
    assert Part.SHARED_POSITION_BIAS not in breakdown_parts(eager, per_layer=False)
    full = estimate(arch.inputs(seq=s, recompute=Recompute.FULL, device=Device.CPU))
    assert Part.SHARED_POSITION_BIAS not in breakdown_parts(full, per_layer=False)


def test_dropout_masks_follow_the_device() -> None:
    arch = read_model_config(config_path(FALCON_7B))
    s, h = 128, 4544
    cpu = breakdown_parts(estimate(arch.inputs(seq=s, dropout=True, device=Device.CPU)))
    cuda = breakdown_parts(estimate(arch.inputs(seq=s, dropout=True, device=Device.CUDA)))
    assert cpu[Part.MLP_RESID_DROPOUT] == 2 * s * h and cuda[Part.MLP_RESID_DROPOUT] == s * h
    # parallel attention: one dropout_add per layer; rotary attention drops nothing
    assert Part.ATTN_RESID_DROPOUT not in cpu and Part.ATTN_DROPOUT not in cpu


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_estimate_grows_with_seq_and_full_recomputation_keeps_less(name: str) -> None:
    arch = read_model_config(config_path(name))
    for attention in Attention:
        sizes = [
            estimate(arch.inputs(seq=s, attention=attention)).saved_bytes for s in (128, 512, 2048)
        ]
        assert sizes == sorted(sizes) and len(set(sizes)) == 3
        none = estimate(arch.inputs(seq=1024, attention=attention))
        selective = estimate(
            arch.inputs(seq=1024, attention=attention, recompute=Recompute.SELECTIVE)
        )
        full = estimate(arch.inputs(seq=1024, attention=attention, recompute=Recompute.FULL))
        assert full.saved_bytes < selective.saved_bytes < none.saved_bytes
        # full recomputation: each layer's input (bf16), plus what is once per model
        assert breakdown_parts(full) == {Part.LAYER_CHECKPOINT: 2 * 1024 * arch.hidden}


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"hidden_size": -1}, "hidden_size"),
        ({"hidden_size": True}, "hidden_size"),
        ({"num_hidden_layers": "32"}, "num_hidden_layers"),
        ({"num_attention_heads": 0}, "num_attention_heads"),
        ({"hidden_size": 4545}, "hidden_size"),  # not a multiple of the heads
        ({"multi_query": "yes"}, "multi_query"),
        ({"alibi": 1}, "alibi"),
        ({"activation": "mish"}, "activation"),
        ({"ffn_hidden_size": 1.5}, "ffn_hidden_size"),
        ({"new_decoder_architecture": True, "num_kv_heads": 5}, "num_kv_heads"),
        ({"multi_query": False, "num_kv_heads": 1}, "num_kv_heads"),
        ({"num_ln_in_parallel_attn": 2}, "num_ln_in_parallel_attn"),
        ({"new_decoder_architecture": True, "parallel_attn": False}, "parallel_attn"),
        (
            {"new_decoder_architecture": True, "num_ln_in_parallel_attn": 3},
            "num_ln_in_parallel_attn",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_key(change: dict, key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(FALCON_7B) | change)
    assert info.value.key == key
    assert key in str(info.value)


def test_old_refinedweb_keys_are_refused_not_silently_ignored() -> None:
    raw = {"model_type": "falcon", "n_embed": 64, "n_head": 4, "n_layer": 2}
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw)
    assert info.value.problem is ConfigProblem.UNSUPPORTED and info.value.key == "n_head"
    # transformers reads n_embed (over hidden_size): so does the parser
    arch = parse_model_config(
        {"model_type": "falcon", "n_embed": 64, "hidden_size": 128, "num_attention_heads": 4}
    )
    assert (arch.hidden, arch.intermediate) == (64, 256)


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    # FalconConfig: 4544 hidden, 71 heads, 32 layers, multi-query, parallel, rotary
    arch = parse_model_config({"model_type": "falcon"})
    assert (arch.hidden, arch.heads, arch.kv_heads, arch.layers, arch.vocab) == (
        4544,
        71,
        1,
        32,
        65024,
    )
    assert parameters(arch) == PUBLISHED[FALCON_7B]
    new = parse_model_config({"model_type": "falcon", "new_decoder_architecture": True})
    assert new.kv_heads == 71 and new.spec.norms is Norms.TWO  # num_kv_heads = heads
