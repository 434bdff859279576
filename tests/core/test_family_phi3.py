"""Phi-3 read from its published config.json files: shape, exact parameter counts, and
what its fused projections keep for backward."""

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
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    layout,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

MINI = "microsoft__Phi-3-mini-4k-instruct.json"
MEDIUM = "microsoft__Phi-3-medium-4k-instruct.json"

# num_parameters(): Phi-3-mini 3,821,079,552 (3.8B, also KerasHub's preset count);
# Phi-3-medium 14B; both equal to the transformers 5.24 count on the meta device
PUBLISHED = {MINI: 3_821_079_552, MEDIUM: 13_960_238_080}

# Phi-4-mini-instruct (model_type phi3) from its model card's values: 24 query and 8
# key/value heads of 128, a 0.75 partial rotary factor, tied 200 064-token embeddings
PHI4_MINI: dict[str, Any] = {
    "model_type": "phi3",
    "hidden_size": 3072,
    "num_attention_heads": 24,
    "num_key_value_heads": 8,
    "intermediate_size": 8192,
    "num_hidden_layers": 32,
    "vocab_size": 200064,
    "max_position_embeddings": 131072,
    "partial_rotary_factor": 0.75,
    "tie_word_embeddings": True,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("phi3", Family.PHI3, Head.CAUSAL_LM)
    assert arch.architecture == "Phi3ForCausalLM"
    assert parameters(arch) == PUBLISHED[name]


def test_phi3_mini_shape_and_spec() -> None:
    arch = read_model_config(config_path(MINI))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        3072,
        32,
        32,
        32,
        96,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (8192, 32064, 4096)
    spec = arch.spec
    assert spec.sliding_window == 2047 and spec.rotary_dim == 96
    assert not spec.tie_embeddings and spec.partial_rotary_factor == 1.0


def test_phi3_medium_has_grouped_query_attention() -> None:
    arch = read_model_config(config_path(MEDIUM))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        5120,
        40,
        40,
        10,
        128,
    )


def test_phi4_mini_partial_rotary_and_tied_embeddings() -> None:
    arch = parse_model_config(PHI4_MINI)
    assert arch.spec.rotary_dim == 96  # int(128 · 0.75)
    assert arch.spec.tie_embeddings and arch.spec.sliding_window is None
    assert parameters(arch) == 3_836_021_760  # the transformers count (3.84B)
    # the RoPE dict's factor wins over the top-level key, as in Phi3Config
    nested = PHI4_MINI | {"rope_scaling": {"type": "longrope", "partial_rotary_factor": 0.5}}
    assert parse_model_config(nested).spec.rotary_dim == 64


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    arch = parse_model_config({"model_type": "phi3", "hidden_size": None})
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads) == (3072, 32, 32, 32)
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (8192, 32064, 4096)
    assert arch.spec.sliding_window is None and arch.spec.activation == "silu"


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"hidden_size": -1}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"hidden_size": True}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"num_hidden_layers": "32"}, "num_hidden_layers", ConfigProblem.BAD_VALUE),
        ({"num_key_value_heads": 5}, "num_key_value_heads", ConfigProblem.UNSUPPORTED),
        ({"hidden_size": 3000}, "hidden_size", ConfigProblem.UNSUPPORTED),
        ({"sliding_window": 0}, "sliding_window", ConfigProblem.BAD_VALUE),
        ({"tie_word_embeddings": "no"}, "tie_word_embeddings", ConfigProblem.BAD_VALUE),
        ({"hidden_act": "gelu_new"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        ({"partial_rotary_factor": "half"}, "partial_rotary_factor", ConfigProblem.BAD_VALUE),
        ({"partial_rotary_factor": 1.5}, "partial_rotary_factor", ConfigProblem.UNSUPPORTED),
        ({"partial_rotary_factor": 0.001}, "partial_rotary_factor", ConfigProblem.UNSUPPORTED),
        ({"head_dim": 0}, "head_dim", ConfigProblem.BAD_VALUE),
        (
            {"rope_scaling": {"partial_rotary_factor": "x"}},
            "partial_rotary_factor",
            ConfigProblem.BAD_VALUE,
        ),
        ({"rope_scaling": "longrope"}, "rope_scaling", ConfigProblem.BAD_VALUE),
    ],
)
def test_bad_values_are_refused_naming_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(MINI) | change)
    assert info.value.key == key
    assert info.value.problem is problem
    assert key in str(info.value)


def _sdpa_layer_bytes(s: int, h: int, a: int, k: int, d: int, i: int) -> int:
    """One Phi-3 layer, bf16, SDPA without a mask, written out term by term."""
    p = 2
    norms = 2 * (4 * s * h + 4 * s + p * s * h)  # fp32 input, fp32 rsqrt, bf16 output
    projection_inputs = 2 * p * s * h  # qkv_proj and gate_up_proj
    rotated_q_k = p * s * (a + k) * d
    fused_qkv = p * s * (a + 2 * k) * d  # V is a view of it
    kernel = 4 * a * s + p * s * a * d  # log-sum-exp and the kernel's own output
    o_proj_input = p * s * a * d
    mlp = p * s * 2 * i + p * s * i + p * s * i  # gate_up output, SiLU output, product
    return norms + projection_inputs + rotated_q_k + fused_qkv + kernel + o_proj_input + mlp


def test_hand_computed_phi3_mini_layer() -> None:
    arch = read_model_config(config_path(MINI))
    s = 1024
    # without the key/value cache (the file says use_cache true: see the next test)
    result = estimate(arch.inputs(seq=s, device=Device.CPU, use_cache=False))
    expected = _sdpa_layer_bytes(s, 3072, 32, 32, 96, 8192)
    assert result.per_layer_bytes == expected == 161_619_968
    # outside: ids, cos and sin, final RMSNorm, LM head input, fp32 loss
    outside = (
        8 * s
        + 2 * 2 * s * 96
        + (4 * s * 3072 + 4 * s + 2 * s * 3072)
        + 2 * s * 3072
        + (4 * s * 32064 + 8 * (s + 1) + 4)
    )
    assert result.saved_bytes == 32 * expected + outside


def test_eager_keeps_the_fp32_softmax_and_its_cast() -> None:
    arch = read_model_config(config_path(MINI))
    s, a, d = 1024, 32, 96
    sdpa = estimate(arch.inputs(seq=s, device=Device.CPU))
    eager = estimate(arch.inputs(seq=s, device=Device.CPU, attention=Attention.EAGER))
    per_layer = (4 + 2) * a * s * s - (4 * a * s + 2 * s * a * d)
    assert eager.saved_bytes - sdpa.saved_bytes == 32 * per_layer


def test_sliding_window_mask_from_a_sequence_as_long_as_the_window() -> None:
    arch = read_model_config(config_path(MINI))  # sliding_window 2047
    shorter = estimate(arch.inputs(seq=2046))
    equal = estimate(arch.inputs(seq=2047))
    assert Part.ATTN_MASK not in {i.key for i in shorter.breakdown}
    mask = next(i for i in equal.breakdown if i.key is Part.ATTN_MASK)
    assert (mask.bytes, mask.count) == (2 * 2047 * 2047, 32)
    # eager never keeps the mask
    eager = estimate(arch.inputs(seq=4096, attention=Attention.EAGER))
    assert Part.ATTN_MASK not in {i.key for i in eager.breakdown}


def test_the_files_key_value_cache_copies_v_out_of_the_fused_output() -> None:
    arch = read_model_config(config_path(MINI))
    assert arch.use_cache
    s, h = 1024, 3072
    cached = estimate(arch.inputs(seq=s, device=Device.CPU))
    plain = estimate(arch.inputs(seq=s, device=Device.CPU, use_cache=False))
    # a = k = 32: V's copy (p·s·h) instead of the fused qkv_proj output (3·p·s·h)
    assert plain.per_layer_bytes - cached.per_layer_bytes == 2 * 2 * s * h
    assert any("use_cache is on" in n for n in cached.notes)
    # full recomputation turns the cache off
    full = dict(device=Device.CPU, recompute=Recompute.FULL)
    assert (
        estimate(arch.inputs(seq=s, **full)).saved_bytes
        == estimate(arch.inputs(seq=s, use_cache=False, **full)).saved_bytes
    )


def test_a_padded_batch_repeats_k_and_v_only_with_grouped_heads() -> None:
    s = 512
    medium = read_model_config(config_path(MEDIUM))  # 40 query, 10 key/value heads of 128
    plain = layout(medium, medium.inputs(seq=s, use_cache=False))
    padded = layout(medium, medium.inputs(seq=s, padded=True, use_cache=False))
    a, k, d = 40, 10, 128
    assert plain.stacks[0].parts[Part.ATTN_QKV] == 2 * s * (a + k) * d + 2 * s * (a + 2 * k) * d
    assert padded.stacks[0].parts[Part.ATTN_QKV] == 3 * 2 * s * a * d
    assert padded.stacks[0].parts[Part.ATTN_MASK] == 2 * s * s
    mini = read_model_config(config_path(MINI))  # k = a: nothing to repeat
    plain = layout(mini, mini.inputs(seq=s))
    padded = layout(mini, mini.inputs(seq=s, padded=True))
    assert plain.stacks[0].parts[Part.ATTN_QKV] == padded.stacks[0].parts[Part.ATTN_QKV]


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_monotonic_in_seq_and_recomputation_saves(name: str, attention: Attention) -> None:
    arch = read_model_config(config_path(name))
    sizes = [
        estimate(arch.inputs(seq=s, attention=attention)).saved_bytes
        for s in (128, 512, 2046, 2047, 4096)
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    by = {
        r: estimate(arch.inputs(seq=2048, attention=attention, recompute=r))
        for r in (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    }
    assert by[Recompute.FULL].saved_bytes < by[Recompute.NONE].saved_bytes
    assert by[Recompute.SELECTIVE].saved_bytes <= by[Recompute.NONE].saved_bytes
    assert by[Recompute.FULL].saved_bytes < by[Recompute.SELECTIVE].saved_bytes
    # full recomputation: each layer keeps its input; cos and sin are recomputed
    full = {i.key: i for i in by[Recompute.FULL].breakdown}
    assert full[Part.LAYER_CHECKPOINT].bytes == 2 * 2048 * arch.hidden
    assert Part.ROTARY not in full


def test_dropout_masks_are_one_byte_on_cuda_and_the_dtype_on_cpu() -> None:
    arch = read_model_config(config_path(MINI))
    s, h = 256, 3072
    for device, mask in ((Device.CUDA, 1), (Device.CPU, 2)):
        on = layout(arch, arch.inputs(seq=s, device=device, dropout=True))
        parts = on.stacks[0].parts
        assert parts[Part.ATTN_RESID_DROPOUT] == parts[Part.MLP_RESID_DROPOUT] == mask * s * h
    # Phi-3 has no embedding dropout
    on = layout(arch, arch.inputs(seq=s, dropout=True))
    assert on.outside[Part.EMBEDDINGS] == 8 * s


def test_fp32_keeps_the_softmax_once() -> None:
    arch = read_model_config(config_path(MINI))
    s, a = 256, 32
    parts = layout(arch, arch.inputs(seq=s, dtype=Precision.FP32, attention=Attention.EAGER))
    assert parts.stacks[0].parts[Part.ATTN_SOFTMAX] == 4 * a * s * s


def test_notes_say_what_the_family_assumes() -> None:
    arch = read_model_config(config_path(MINI))
    notes = estimate(arch.inputs(seq=512)).notes
    assert any("fuses Q, K and V" in n for n in notes)
    assert any("Sliding window" in n for n in notes)
    assert all(isinstance(n, str) and n for n in notes)
