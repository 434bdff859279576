"""Gemma 1, 2 and 3 read from their published config.json files (no torch here)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Item,
    Part,
    Recompute,
    Result,
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    Head,
    ModelConfigError,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

# num_parameters() of the model transformers builds: the published totals (model cards
# and the Hub's safetensors metadata); the multimodal Gemma 3 files (vision tower and
# projector included) are core.memory.families.vlm's: tests/core/test_family_vlm.py
PUBLISHED = {
    "google__gemma-2b.json": ("gemma", 2_506_172_416),
    "google__gemma-2-2b.json": ("gemma2", 2_614_341_888),
    "google__gemma-2-9b.json": ("gemma2", 9_241_705_984),
    "google__gemma-3-1b-it.json": ("gemma3_text", 999_885_952),
}


def _items(result: Result, part: Part) -> list[Item]:
    return [i for i in result.breakdown if i.key is part]


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.GEMMA, Head.CAUSAL_LM)
    assert parameters(arch) == count


def test_gemma_2b_is_multi_query_with_a_head_dim_of_its_own() -> None:
    arch = read_model_config(config_path("google__gemma-2b.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2048,
        18,
        8,
        1,
        256,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (16384, 256000, 8192)
    spec = arch.spec
    # the legacy "gelu" of the file is the tanh GELU transformers builds
    assert spec.activation == "gelu_pytorch_tanh" and spec.tie_embeddings
    assert not spec.sandwich_norms and not spec.qk_norm and spec.sliding_window is None
    assert spec.attn_softcap is None and spec.final_softcap is None


def test_gemma2_alternates_sliding_layers_and_soft_caps() -> None:
    arch = read_model_config(config_path("google__gemma-2-9b.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        3584,
        42,
        16,
        8,
        256,
    )
    spec = arch.spec
    assert (spec.sliding_window, spec.sliding_layers) == (4096, 21)
    assert (spec.attn_softcap, spec.final_softcap) == (50.0, 30.0)
    assert spec.sandwich_norms and spec.eager_only and not spec.qk_norm


def test_gemma3_text_five_sliding_layers_to_one_global() -> None:
    arch = read_model_config(config_path("google__gemma-3-1b-it.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        1152,
        26,
        4,
        1,
        256,
    )
    spec = arch.spec
    # layers 6, 12, 18 and 24 (1-based) are global
    assert (spec.sliding_window, spec.sliding_layers) == (512, 22)
    assert spec.qk_norm and spec.sandwich_norms and spec.rotary_tables == 2
    assert spec.final_softcap is None


def test_defaults_of_the_configuration_classes_fill_absent_keys() -> None:
    gemma = parse_model_config({"model_type": "gemma"})
    assert (gemma.hidden, gemma.layers, gemma.heads, gemma.kv_heads, gemma.head_dim) == (
        3072,
        28,
        16,
        16,
        256,
    )
    gemma2 = parse_model_config({"model_type": "gemma2"})
    assert (gemma2.hidden, gemma2.layers, gemma2.kv_heads, gemma2.vocab) == (2304, 26, 4, 256000)
    assert (gemma2.spec.attn_softcap, gemma2.spec.final_softcap) == (50.0, 30.0)
    assert gemma2.spec.sliding_layers == 13
    text = parse_model_config({"model_type": "gemma3_text"})
    assert (text.vocab, text.max_positions, text.spec.sliding_window) == (262208, 131072, 4096)
    assert text.spec.sliding_layers == 26 - 4
    assert parameters(text) == 2_628_658_432


def test_explicit_nulls_turn_gemma2_soft_capping_off() -> None:
    raw = raw_config("google__gemma-2-2b.json") | {
        "attn_logit_softcapping": None,
        "final_logit_softcapping": None,
    }
    arch = parse_model_config(raw)
    assert arch.spec.attn_softcap is None and arch.spec.final_softcap is None
    result = estimate(arch.inputs(seq=256, attention=Attention.EAGER))
    assert not _items(result, Part.ATTN_SOFTCAP) and not _items(result, Part.LOGIT_SOFTCAP)


def test_layer_types_win_over_the_pattern() -> None:
    raw = raw_config("google__gemma-3-1b-it.json") | {
        "num_hidden_layers": 3,
        "layer_types": ["full_attention"] * 3,
    }
    arch = parse_model_config(raw)
    assert arch.spec.sliding_layers == 0 and arch.spec.sliding_window is None
    assert arch.spec.rotary_tables == 1
    result = estimate(arch.inputs(seq=4096))
    assert {i.stack for i in result.breakdown if i.count > 1} == {StackKind.LAYERS}


# ----------------------------------------------------------------------- hand-computed


def test_gemma_2b_layer_by_hand() -> None:
    """Gemma 2B, s = 1024, bf16, SDPA, CUDA, no padding: one layer keeps

    2 norms   2 · (8sh + 4s + 4h)                      = 2 · 16 789 504
    inputs    2 · 2sh (q/k/v, gate/up)                 = 2 ·  4 194 304
    Q, K, V   2s(a + 2k)d = 2 · 1024 · 10 · 256         =      5 242 880
    lse       4as                                      =         32 768
    output    2sad                                     =      4 194 304
    MLP       4 · 2si (gate, GELU out, up, product)    =    134 217 728
                                                         -------------
                                                         185 655 296
    """
    arch = read_model_config(config_path("google__gemma-2b.json"))
    s, h, a, i = 1024, 2048, 8, 16384
    norm = 8 * s * h + 4 * s + 4 * h
    assert norm == 16_789_504
    layer = 2 * norm + 2 * 2 * s * h + 2 * s * 10 * 256 + 4 * a * s + 2 * s * a * 256 + 8 * s * i
    result = estimate(arch.inputs(seq=s))
    assert result.per_layer_bytes == layer == 185_655_296
    outside = 8 * s + 2 * 2 * s * 256 + norm + 2 * s * h + (4 * s * 256000 + 8 * (s + 1) + 4)
    assert result.saved_bytes == 18 * layer + outside


def test_one_key_value_head_is_not_copied_by_eager_attention() -> None:
    arch = read_model_config(config_path("google__gemma-2b.json"))
    s, a, d = 512, 8, 256
    result = estimate(arch.inputs(seq=s, attention=Attention.EAGER))
    # repeat_kv of a single head is a view: Q for 8 heads, K and V for one
    assert _items(result, Part.ATTN_QKV)[0].bytes == 2 * s * a * d + 2 * 2 * s * d
    padded = estimate(arch.inputs(seq=s, attention=Attention.SDPA, padded=True))
    assert _items(padded, Part.ATTN_QKV)[0].bytes == 2 * s * a * d + 2 * 2 * s * d
    assert _items(padded, Part.ATTN_MASK)[0].bytes == 2 * s * s


def test_gemma2_soft_capping_by_hand() -> None:
    arch = read_model_config(config_path("google__gemma-2-2b.json"))
    s, a, v = 1024, 8, 256000
    result = estimate(arch.inputs(seq=s, attention=Attention.EAGER))
    softcap = _items(result, Part.ATTN_SOFTCAP)
    # tanh keeps its bf16 output: a·s² per layer, in the 13 sliding and 13 global layers
    assert [(i.bytes, i.count) for i in softcap] == [(2 * a * s * s, 13)] * 2
    assert _items(result, Part.LOGIT_SOFTCAP)[0].bytes == 2 * s * v
    # four norms a layer
    norms = {i.key for i in result.breakdown if i.stack is StackKind.GLOBAL} & {
        Part.ATTN_NORM,
        Part.ATTN_POST_NORM,
        Part.MLP_NORM,
        Part.MLP_POST_NORM,
    }
    assert len(norms) == 4


def test_gemma2_sdpa_is_estimated_as_the_eager_run() -> None:
    arch = read_model_config(config_path("google__gemma-2-2b.json"))
    sdpa = estimate(arch.inputs(seq=2048, attention=Attention.SDPA))
    eager = estimate(arch.inputs(seq=2048, attention=Attention.EAGER))
    assert sdpa.saved_bytes == eager.saved_bytes
    assert any("eager" in note for note in sdpa.notes)
    assert not any("eager attention only" in note for note in eager.notes)


def test_gemma3_sliding_layers_take_a_mask_from_a_sequence_as_long_as_the_window() -> None:
    arch = read_model_config(config_path("google__gemma-3-1b-it.json"))
    short = estimate(arch.inputs(seq=511))
    assert not _items(short, Part.ATTN_MASK)
    at_window = estimate(arch.inputs(seq=512))
    masks = _items(at_window, Part.ATTN_MASK)
    assert [(m.bytes, m.count, m.stack) for m in masks] == [(2 * 512 * 512, 22, StackKind.SLIDING)]
    # eager attention only adds the mask
    eager = estimate(arch.inputs(seq=1024, attention=Attention.EAGER, padded=True))
    assert not _items(eager, Part.ATTN_MASK)


def test_gemma3_q_k_norms_and_two_rotary_tables_by_hand() -> None:
    arch = read_model_config(config_path("google__gemma-3-1b-it.json"))
    s, a, k, d = 1000, 4, 1, 256
    result = estimate(arch.inputs(seq=s))

    def norm(groups: int) -> int:
        return 8 * s * groups * d + 4 * s * groups + 4 * d

    qk = _items(result, Part.ATTN_QK_NORM)
    assert {i.bytes for i in qk} == {norm(a) + norm(k)}
    assert sum(i.count for i in qk) == 26
    # cos and sin for the local and the global rotary embeddings
    assert _items(result, Part.ROTARY)[0].bytes == 2 * 2 * 2 * s * d


def test_dropout_masks_follow_the_device() -> None:
    arch = read_model_config(config_path("google__gemma-3-1b-it.json"))
    s, a = 256, 4
    cuda = estimate(arch.inputs(seq=s, attention=Attention.EAGER, dropout=True))
    cpu = estimate(arch.inputs(seq=s, attention=Attention.EAGER, dropout=True, device=Device.CPU))
    assert _items(cuda, Part.ATTN_DROPOUT)[0].bytes == a * s * s + 2 * a * s * s
    assert _items(cpu, Part.ATTN_DROPOUT)[0].bytes == 2 * a * s * s + 2 * a * s * s


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_estimate_grows_with_the_sequence_and_recomputation_saves(name: str) -> None:
    arch = read_model_config(config_path(name))
    for attention in Attention:
        sizes = [
            estimate(arch.inputs(seq=s, attention=attention)).saved_bytes
            for s in (128, 511, 512, 1024, 4096)
        ]
        assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
        none = estimate(arch.inputs(seq=2048, attention=attention))
        selective = estimate(
            arch.inputs(seq=2048, attention=attention, recompute=Recompute.SELECTIVE)
        )
        full = estimate(arch.inputs(seq=2048, attention=attention, recompute=Recompute.FULL))
        assert full.saved_bytes < selective.saved_bytes <= none.saved_bytes
        # full recomputation keeps each layer's input only
        kept = [i for i in full.breakdown if i.stack is not None]
        assert {i.key for i in kept} == {Part.LAYER_CHECKPOINT}
        assert sum(i.count for i in kept) == arch.layers


# ----------------------------------------------------------------------- refused


@pytest.mark.parametrize(
    ("base", "change", "key"),
    [
        ("google__gemma-2b.json", {"hidden_size": -1}, "hidden_size"),
        ("google__gemma-2b.json", {"num_hidden_layers": True}, "num_hidden_layers"),
        ("google__gemma-2b.json", {"head_dim": "256"}, "head_dim"),
        ("google__gemma-2b.json", {"num_key_value_heads": 3}, "num_key_value_heads"),
        ("google__gemma-2b.json", {"hidden_act": "gelu_new"}, "hidden_act"),
        ("google__gemma-2b.json", {"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ("google__gemma-2b.json", {"use_bidirectional_attention": True}, ""),
        ("google__gemma-2-2b.json", {"hidden_size": 2300}, "hidden_size"),
        ("google__gemma-2-2b.json", {"sliding_window": None}, "sliding_window"),
        ("google__gemma-2-2b.json", {"sliding_window": 0}, "sliding_window"),
        ("google__gemma-2-2b.json", {"attn_logit_softcapping": "50"}, "attn_logit_softcapping"),
        ("google__gemma-2-2b.json", {"final_logit_softcapping": -30.0}, ""),
        ("google__gemma-2-2b.json", {"hidden_activation": "mish"}, "hidden_activation"),
        ("google__gemma-2-2b.json", {"layer_types": ["full_attention"]}, "layer_types"),
        ("google__gemma-3-1b-it.json", {"sliding_window_pattern": 0}, ""),
        ("google__gemma-3-1b-it.json", {"layer_types": ["chunked_attention"] * 26}, ""),
    ],
)
def test_bad_values_are_refused_naming_the_key(base: str, change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(base) | change)
    if key:
        assert info.value.key == key
        assert key in str(info.value)
