"""DeBERTa-v2 and DeBERTa-v3 (``model_type`` deberta-v2) read from their published
config.json files (masked-LM training, eager disentangled attention)."""

from __future__ import annotations

from dataclasses import replace
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
    family_module,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.families import deberta as deberta_family
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import breakdown_parts, config_path, raw_config

V3_BASE = "microsoft__deberta-v3-base.json"
V3_LARGE = "microsoft__deberta-v3-large.json"
V2_XLARGE = "microsoft__deberta-v2-xlarge.json"

# DebertaV2ForMaskedLM.num_parameters() in transformers 5.24 (legacy head, decoder tied to
# the word embeddings). The model cards: v3-base 86M backbone + 98M embedding, v3-large
# 304M + 131M, v2-xlarge 900M in all.
PUBLISHED = {
    V3_BASE: 184_551_780,
    V3_LARGE: 435_191_908,
    V2_XLARGE: 887_085_156,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_transformers_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (
        "deberta-v2",
        Family.DEBERTA,
        Head.MASKED_LM,
    )
    assert parameters(arch) == PUBLISHED[name]
    assert family_module(arch) is deberta_family


def test_v3_base_sizes_and_spec() -> None:
    arch = read_model_config(config_path(V3_BASE))
    assert (arch.hidden, arch.layers, arch.heads, arch.head_dim, arch.intermediate) == (
        768,
        12,
        12,
        64,
        3072,
    )
    assert (arch.vocab, arch.max_positions) == (128100, 512)
    spec = arch.spec
    # 256 position buckets: a table of 512 rows; no absolute positions, no token types
    assert spec.relative and spec.relative_rows == 512
    assert (spec.c2p, spec.p2c, spec.share_att_key, spec.norm_relative) == (True,) * 4
    assert (spec.position_embeddings, spec.type_vocab, spec.conv_kernel) == (0, 0, 0)
    assert spec.legacy_head and spec.tie_embeddings
    assert spec.position_kinds == 2


def test_v2_xlarge_has_the_convolution() -> None:
    spec = read_model_config(config_path(V2_XLARGE)).spec
    assert (spec.conv_kernel, spec.conv_groups, spec.conv_act) == (3, 1, "gelu")
    # conv: weight h·h·k + bias h, its LayerNorm 2h
    h = 1536
    without = parse_model_config(raw_config(V2_XLARGE) | {"conv_kernel_size": 0})
    assert PUBLISHED[V2_XLARGE] - parameters(without) == h * h * 3 + h + 2 * h


def test_defaults_are_the_configuration_class_defaults() -> None:
    # DebertaV2Config(): the xlarge sizes, absolute positions, no relative attention
    arch = parse_model_config({"model_type": "deberta-v2"})
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate) == (1536, 24, 24, 6144)
    spec = arch.spec
    assert not spec.relative and spec.position_embeddings == 512 and spec.position_kinds == 0
    assert parameters(arch) == 879_999_588  # transformers 5.24 on the meta device


def test_relative_table_size_and_attention_type_forms() -> None:
    raw = raw_config(V3_BASE)
    # without buckets: 2 × max_relative_positions (-1: max_position_embeddings)
    assert parse_model_config(raw | {"position_buckets": -1}).spec.relative_rows == 1024
    no_buckets = raw | {"position_buckets": -1, "max_relative_positions": 128}
    assert parse_model_config(no_buckets).spec.relative_rows == 256
    listed = parse_model_config(raw | {"pos_att_type": ["p2c", "c2p"]})
    assert listed == read_model_config(config_path(V3_BASE))
    c2p = parse_model_config(raw | {"pos_att_type": "c2p"}).spec
    assert (c2p.c2p, c2p.p2c, c2p.position_kinds) == (True, False, 1)


def test_head_and_projection_variants_count_like_transformers() -> None:
    raw = raw_config(V3_BASE)
    h, v = 768, 128100
    base = PUBLISHED[V3_BASE]
    # pos_key_proj and pos_query_proj of their own in every layer
    own = parse_model_config(raw | {"share_att_key": False})
    assert parameters(own) - base == 12 * 2 * (h * h + h)
    # lm_predictions multiplies by the word embeddings: the same count
    assert parameters(parse_model_config(raw | {"legacy": False})) == base
    # an untied legacy decoder: its own weight and bias
    untied = parse_model_config(raw | {"tie_word_embeddings": False})
    assert parameters(untied) - base == v * h + v
    absolute = parse_model_config(raw | {"position_biased_input": True, "type_vocab_size": 2})
    assert parameters(absolute) - base == (512 + 2) * h


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"hidden_size": -768}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"relative_attention": "yes"}, "relative_attention", ConfigProblem.BAD_VALUE),
        ({"pos_att_type": 3}, "pos_att_type", ConfigProblem.BAD_VALUE),
        ({"hidden_dropout_prob": -0.1}, "hidden_dropout_prob", ConfigProblem.BAD_VALUE),
        ({"num_attention_heads": 10}, "num_attention_heads", ConfigProblem.UNSUPPORTED),
        ({"attention_head_size": 32}, "attention_head_size", ConfigProblem.UNSUPPORTED),
        ({"embedding_size": 128}, "embedding_size", ConfigProblem.UNSUPPORTED),
        ({"hidden_act": "swiglu"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        ({"conv_kernel_size": 3, "conv_act": "mish"}, "conv_act", ConfigProblem.UNSUPPORTED),
        ({"conv_kernel_size": 4}, "conv_kernel_size", ConfigProblem.UNSUPPORTED),
        ({"conv_kernel_size": 3, "conv_groups": 5}, "conv_groups", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(V3_BASE) | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail


def test_attention_is_eager_whatever_is_asked() -> None:
    arch = read_model_config(config_path(V3_BASE))
    sdpa = estimate(arch.inputs(seq=256, attention=Attention.SDPA))
    eager = estimate(arch.inputs(seq=256, attention=Attention.EAGER))
    assert sdpa.saved_bytes == eager.saved_bytes
    assert any("eager attention only" in n for n in sdpa.notes)
    assert not any("eager attention only" in n for n in eager.notes)


def test_v3_base_bytes_by_hand_cpu() -> None:
    # bf16 (p = 2), CPU (LayerNorm statistics in the dtype), R = 512 relative rows
    arch = read_model_config(config_path(V3_BASE))
    p, s, h, i, a, r, v = 2, 512, 768, 3072, 12, 512, 128100
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    parts = breakdown_parts(result)
    assert parts == {
        Part.QKV_PROJ_INPUT: p * s * h,
        # Q, K / scale, V, K (p2c) and the 0-dim scale
        Part.ATTN_QKV: 4 * p * s * h + p,
        # per kind: the repeated projected table, the gathered scores, the int64 index,
        # the scale
        Part.ATTN_POSITION_BIAS: 2 * (p * r * h + p * a * s * r + 8 * s * s + p),
        Part.ATTN_MASK: s * s,
        Part.ATTN_SOFTMAX: p * a * s * s,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.ATTN_POST_NORM: p * s * h + 2 * p * s,
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
        Part.MLP_POST_NORM: p * s * h + 2 * p * s,
    }
    assert all(item.count == 12 for item in result.breakdown if item.stack is StackKind.LAYERS)
    assert breakdown_parts(result, per_layer=False) == {
        # word ids, LayerNorm, the padding mask multiplied in the dtype
        Part.EMBEDDINGS: 8 * s + p * s * h + 2 * p * s + p * s,
        # the normalised table (read by every layer) and its statistics
        Part.SHARED_POSITION_BIAS: p * r * h + 2 * p * r,
        Part.MLM_HEAD: 3 * p * s * h + 2 * p * s,
        Part.LM_HEAD_INPUT: p * s * h,
        Part.LOSS: p * s * v + 8 * s + p,
    }


def test_full_recomputation_keeps_the_mask_and_the_table_statistics() -> None:
    arch = read_model_config(config_path(V3_BASE))
    s, r = 512, 512
    full = arch.inputs(seq=s, recompute=Recompute.FULL, device=Device.CPU)
    outside = breakdown_parts(estimate(full), per_layer=False)
    # float32 ones built by the model; a tokenizer's int64 mask when padded
    assert outside[Part.SHARED_MASK] == 4 * s * s
    padded = breakdown_parts(estimate(replace(full, padded=True)), per_layer=False)
    assert padded[Part.SHARED_MASK] == 8 * s * s
    assert outside[Part.SHARED_POSITION_BIAS] == 2 * 2 * r
    assert breakdown_parts(estimate(full)) == {Part.LAYER_CHECKPOINT: 2 * s * 768}


def test_padding_changes_nothing_without_recomputation() -> None:
    # the encoder builds an s × s mask (of ones without padding) and every layer keeps it
    arch = read_model_config(config_path(V3_LARGE))
    inputs = arch.inputs(seq=384)
    assert estimate(inputs).saved_bytes == estimate(replace(inputs, padded=True)).saved_bytes


def test_dropout_adds_the_table_dropout_in_every_layer() -> None:
    arch = read_model_config(config_path(V3_BASE))
    s, h, r, a = 128, 768, 512, 12
    plain = estimate(arch.inputs(seq=s, dropout=True))  # CUDA: one-byte masks
    parts = breakdown_parts(plain)
    no_drop = breakdown_parts(estimate(arch.inputs(seq=s)))
    assert parts[Part.ATTN_POSITION_BIAS] - no_drop[Part.ATTN_POSITION_BIAS] == r * h + 2 * r * h
    assert parts[Part.ATTN_DROPOUT] == a * s * s + 2 * a * s * s
    # the normalised table is read by the dropouts, not kept: only its statistics
    shared = breakdown_parts(plain, per_layer=False)[Part.SHARED_POSITION_BIAS]
    assert shared == 2 * 4 * r


def test_dropout_follows_the_file() -> None:
    raw = raw_config(V3_BASE)
    s = 128
    hidden_only = parse_model_config(raw | {"attention_probs_dropout_prob": 0.0})
    parts = breakdown_parts(estimate(hidden_only.inputs(seq=s, dropout=True)))
    assert Part.ATTN_DROPOUT not in parts and Part.ATTN_RESID_DROPOUT in parts
    attention_only = parse_model_config(raw | {"hidden_dropout_prob": 0})
    result = estimate(attention_only.inputs(seq=s, dropout=True))
    parts = breakdown_parts(result)
    assert Part.ATTN_DROPOUT in parts and Part.MLP_RESID_DROPOUT not in parts
    # the table is not dropped out: the projections read its normalised output
    assert breakdown_parts(result, per_layer=False)[Part.SHARED_POSITION_BIAS] == (
        2 * 512 * 768 + 2 * 4 * 512
    )


def test_the_convolution_is_counted_once() -> None:
    arch = read_model_config(config_path(V2_XLARGE))
    p, s, h = 2, 256, 1536
    outside = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CPU)), per_layer=False)
    # transposed input, bool mask, GELU input, LayerNorm, the mask in the dtype
    assert outside[Part.OTHER] == p * s * h + s + p * s * h + p * s * h + 2 * p * s + p * s
    fp32 = arch.inputs(seq=s, device=Device.CPU, dtype=Precision.FP32)
    conv = breakdown_parts(estimate(fp32), per_layer=False)[Part.OTHER]
    # fp32 without a mask: the model's own float32 ones, already kept by the embeddings
    assert conv == 3 * 4 * s * h + s + 2 * 4 * s
    padded = breakdown_parts(estimate(replace(fp32, padded=True)), per_layer=False)
    assert padded[Part.OTHER] == conv + 4 * s


def test_lookup_tables_are_not_compute_parameters() -> None:
    arch = read_model_config(config_path(V3_BASE))
    # the relative table is projected once per layer, not multiplied by every token
    assert size_of("d", arch).compute_params == PUBLISHED[V3_BASE] - 512 * 768
    known = facts(ModelSpec.bundled("deberta-v3-base"))
    assert (known.params, known.learned_positions, known.context) == (
        PUBLISHED[V3_BASE],
        None,
        512,
    )


def test_a_classification_file_gets_its_own_head() -> None:
    raw = raw_config(V3_BASE) | {"architectures": ["DebertaV2ForSequenceClassification"]}
    arch = parse_model_config(raw)
    assert arch.head is Head.MASKED_LM and arch.task_modelled
    notes = estimate(arch.inputs(seq=128)).notes
    assert notes[0].startswith("Sequence classification (DebertaV2ForSequenceClassification")
    assert not any("not modelled for this family" in n for n in notes)
    # DebertaV2ForSequenceClassification(deberta-v3-base, 2 labels).num_parameters():
    # the masked-LM head gives way to the ContextPooler's dense layer and the classifier
    assert parameters(arch) == 184_423_682
