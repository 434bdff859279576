"""OPT read from its published config.json files (no torch): shape, parameters, what
the layout keeps."""

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
    Head,
    ModelConfigError,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import breakdown_parts, config_path, raw_config

OPT_125M = "facebook__opt-125m.json"
OPT_350M = "facebook__opt-350m.json"

# num_parameters() of the published models (transformers, tied embeddings once)
PUBLISHED = {OPT_125M: 125_239_296, OPT_350M: 331_196_416}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("opt", Family.OPT, Head.CAUSAL_LM)
    assert arch.architecture == "OPTForCausalLM"
    assert parameters(arch) == PUBLISHED[name]


def test_shapes_and_spec_of_the_published_files() -> None:
    small = read_model_config(config_path(OPT_125M))
    assert (small.hidden, small.layers, small.heads, small.kv_heads, small.head_dim) == (
        768,
        12,
        12,
        12,
        64,
    )
    assert (small.intermediate, small.vocab, small.max_positions) == (3072, 50272, 2048)
    assert small.spec.norm_before and small.spec.final_norm and small.spec.embed_dim == 768
    assert small.spec.activation == "relu" and small.spec.bias and small.spec.tie_embeddings
    post = read_model_config(config_path(OPT_350M))
    assert (post.hidden, post.layers, post.heads, post.intermediate) == (1024, 24, 16, 4096)
    assert not post.spec.norm_before and not post.spec.final_norm
    assert post.spec.embed_dim == 512


def test_parameters_by_hand() -> None:
    # OPT-350m: 512-wide token embeddings, positions 2048 + 2, project_in/out (no bias),
    # 24 layers of q/k/v/out + fc1/fc2 with biases and two LayerNorms, no final norm,
    # LM head tied to the token embeddings
    h, i, v, e = 1024, 4096, 50272, 512
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h
    total = v * e + 2050 * h + 2 * e * h + 24 * layer
    assert parameters(read_model_config(config_path(OPT_350M))) == total
    raw = raw_config(OPT_350M) | {
        "enable_bias": False,
        "layer_norm_elementwise_affine": False,
        "tie_word_embeddings": False,
    }
    bare = 4 * h * h + 2 * h * i
    assert parameters(parse_model_config(raw)) == v * e + 2050 * h + 2 * e * h + 24 * bare + e * v


def test_opt_125m_layer_by_hand_eager_on_cpu() -> None:
    arch = read_model_config(config_path(OPT_125M))
    s, h, a, i = 1000, 768, 12, 3072
    result = estimate(arch.inputs(seq=s, attention=Attention.EAGER, device=Device.CPU))
    parts = breakdown_parts(result)
    assert parts[Part.ATTN_NORM] == 2 * s * h + 2 * 2 * s  # input + bf16 mean/rstd (CPU)
    assert parts[Part.QKV_PROJ_INPUT] == 2 * s * h
    assert parts[Part.ATTN_QKV] == 3 * 2 * s * h  # scaled Q, K, V
    # softmax(dtype=float32) output, and its bf16 cast kept by the product with V
    assert parts[Part.ATTN_SOFTMAX] == 4 * a * s * s + 2 * a * s * s
    assert parts[Part.ATTN_OUT_PROJ_INPUT] == 2 * s * h
    assert parts[Part.MLP_NORM] == 2 * s * h + 2 * 2 * s
    assert parts[Part.MLP_IN_PROJ_INPUT] == 2 * s * h
    assert Part.MLP_ACTIVATION not in parts  # ReLU keeps its output: the fc2 input
    assert parts[Part.MLP_OUT_PROJ_INPUT] == 2 * s * i
    outside = breakdown_parts(result, per_layer=False)
    assert outside[Part.EMBEDDINGS] == 16 * s  # int64 token ids and position ids
    assert outside[Part.FINAL_NORM] == 2 * s * h + 2 * 2 * s
    assert outside[Part.LM_HEAD_INPUT] == 2 * s * h
    assert result.saved_bytes == 12 * sum(parts.values()) + sum(outside.values())


def test_sdpa_keeps_no_scores_unless_padded() -> None:
    arch = read_model_config(config_path(OPT_125M))
    s, a = 2048, 12
    plain = estimate(arch.inputs(seq=s, device=Device.CPU))
    parts = breakdown_parts(plain)
    assert parts[Part.ATTN_FUSED] == 4 * a * s
    assert Part.ATTN_SOFTMAX not in parts and Part.ATTN_MASK not in parts
    padded = estimate(arch.inputs(seq=s, device=Device.CPU, padded=True))
    assert breakdown_parts(padded)[Part.ATTN_MASK] == 2 * s * s
    assert padded.saved_bytes - plain.saved_bytes == 12 * 2 * s * s
    full = estimate(arch.inputs(seq=s, device=Device.CPU, padded=True, recompute=Recompute.FULL))
    assert breakdown_parts(full) == {Part.LAYER_CHECKPOINT: 2 * s * 768}


def test_opt_350m_projections_are_kept_outside_the_layers() -> None:
    arch = read_model_config(config_path(OPT_350M))
    s = 512
    outside = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CPU)), per_layer=False)
    assert outside[Part.EMBEDDINGS] == 16 * s + 2 * s * 512  # ids + project_in input
    assert outside[Part.EMBEDDING_PROJECTION] == 2 * s * 1024  # project_out input
    assert outside[Part.LM_HEAD_INPUT] == 2 * s * 512
    assert Part.FINAL_NORM not in outside  # post-LN: no final LayerNorm


def test_dropout_on_cpu_sends_sdpa_to_the_fp32_math_path() -> None:
    arch = read_model_config(config_path(OPT_125M))
    s, h, a = 256, 768, 12
    cpu = breakdown_parts(estimate(arch.inputs(seq=s, dropout=True, device=Device.CPU)))
    assert cpu[Part.ATTN_QKV] == 3 * 4 * s * h
    assert cpu[Part.ATTN_SOFTMAX] == 4 * a * s * s
    assert cpu[Part.ATTN_DROPOUT] == 2 * 4 * a * s * s  # fp32 noise and output
    assert cpu[Part.ATTN_RESID_DROPOUT] == cpu[Part.MLP_RESID_DROPOUT] == 2 * s * h
    cuda = breakdown_parts(estimate(arch.inputs(seq=s, dropout=True, device=Device.CUDA)))
    assert Part.ATTN_SOFTMAX not in cuda and cuda[Part.MLP_RESID_DROPOUT] == s * h


def test_fp32_eager_keeps_the_softmax_once() -> None:
    arch = read_model_config(config_path(OPT_125M))
    s, a = 128, 12
    parts = breakdown_parts(
        estimate(arch.inputs(seq=s, attention=Attention.EAGER, dtype=Precision.FP32))
    )
    assert parts[Part.ATTN_SOFTMAX] == 4 * a * s * s


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_estimate_grows_with_seq_and_full_recomputation_keeps_less(name: str) -> None:
    arch = read_model_config(config_path(name))
    for attention in Attention:
        sizes = [
            estimate(arch.inputs(seq=s, attention=attention)).saved_bytes for s in (128, 512, 2048)
        ]
        assert sizes == sorted(sizes) and len(set(sizes)) == 3
        none = estimate(arch.inputs(seq=1024, attention=attention))
        full = estimate(arch.inputs(seq=1024, attention=attention, recompute=Recompute.FULL))
        assert full.saved_bytes < none.saved_bytes
        assert full.peak_bytes < none.peak_bytes


def test_layerdrop_is_noted_as_an_upper_bound() -> None:
    arch = parse_model_config(raw_config(OPT_125M) | {"layerdrop": 0.1})
    notes = estimate(arch.inputs(seq=64)).notes
    assert any("LayerDrop" in n for n in notes)
    plain = read_model_config(config_path(OPT_125M))
    assert not any("LayerDrop" in n for n in estimate(plain.inputs(seq=64)).notes)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"hidden_size": -1}, "hidden_size"),
        ({"hidden_size": True}, "hidden_size"),
        ({"num_hidden_layers": "12"}, "num_hidden_layers"),
        ({"ffn_dim": 0}, "ffn_dim"),
        ({"hidden_size": 770}, "hidden_size"),  # not a multiple of the heads
        ({"num_attention_heads": 7}, "hidden_size"),  # 768 does not divide by 7
        ({"do_layer_norm_before": "true"}, "do_layer_norm_before"),
        ({"activation_function": "mish"}, "activation_function"),
        ({"layerdrop": 1.5}, "layerdrop"),
        ({"layerdrop": "none"}, "layerdrop"),
        ({"word_embed_proj_dim": 0}, "word_embed_proj_dim"),
    ],
)
def test_bad_values_are_refused_naming_the_key(change: dict, key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(OPT_125M) | change)
    assert info.value.key == key
    assert key in str(info.value)


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    # OPTConfig defaults are OPT-125m's sizes; the embeddings are hidden_size wide
    arch = parse_model_config({"model_type": "opt"})
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate, arch.vocab) == (
        768,
        12,
        12,
        3072,
        50272,
    )
    assert parameters(arch) == PUBLISHED[OPT_125M]
