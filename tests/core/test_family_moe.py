"""Mixture-of-experts models (Mixtral, Qwen2-MoE, Qwen3-MoE) read from their published
config.json files."""

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
from tests.configs import config_path, raw_config

# num_parameters() of the published models: the model cards' totals (Mixtral 8x7B
# 46.7B, 8x22B 141B, Qwen1.5-MoE 14.3B, Qwen3-30B-A3B 30.5B), exactly as transformers
# 5.24 counts them on the meta device
PUBLISHED = {
    "mistralai__Mixtral-8x7B-v0.1.json": ("mixtral", 46_702_792_704),
    "mistralai__Mixtral-8x22B-v0.1.json": ("mixtral", 140_620_634_112),
    "Qwen__Qwen1.5-MoE-A2.7B-Chat.json": ("qwen2_moe", 14_315_784_192),
    "Qwen__Qwen3-30B-A3B.json": ("qwen3_moe", 30_532_122_624),
    "Qwen__Qwen3-30B-A3B-Instruct-2507.json": ("qwen3_moe", 30_532_122_624),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.MOE, Head.CAUSAL_LM)
    assert parameters(arch) == count


def test_mixtral_8x7b_shape() -> None:
    arch = read_model_config(config_path("mistralai__Mixtral-8x7B-v0.1.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4096,
        32,
        32,
        8,
        128,
    )
    spec = arch.spec
    assert (spec.experts, spec.top_k, spec.expert_intermediate, spec.shared_intermediate) == (
        8,
        2,
        14336,
        0,
    )
    # the top-2 weights are always renormalised and stay fp32
    assert spec.norm_topk and spec.fp32_routing_weights
    assert spec.sliding_window is None and spec.sparse_layers == 32
    assert not spec.aux_loss and not spec.tie_embeddings


def test_qwen_moe_shapes() -> None:
    qwen15 = read_model_config(config_path("Qwen__Qwen1.5-MoE-A2.7B-Chat.json"))
    assert (qwen15.hidden, qwen15.layers, qwen15.heads, qwen15.kv_heads) == (2048, 24, 16, 16)
    spec = qwen15.spec
    assert (spec.experts, spec.top_k, spec.expert_intermediate, spec.shared_intermediate) == (
        60,
        4,
        1408,
        5632,
    )
    assert spec.qkv_bias and not spec.norm_topk and not spec.fp32_routing_weights
    assert spec.sliding_window is None and spec.dense_layers == 0

    qwen3 = read_model_config(config_path("Qwen__Qwen3-30B-A3B.json"))
    # head_dim 128 from the file, not hidden / heads = 64
    assert (qwen3.hidden, qwen3.layers, qwen3.heads, qwen3.kv_heads, qwen3.head_dim) == (
        2048,
        48,
        32,
        4,
        128,
    )
    assert (qwen3.spec.experts, qwen3.spec.top_k, qwen3.spec.expert_intermediate) == (128, 8, 768)
    assert qwen3.spec.qk_norm and qwen3.spec.norm_topk and qwen3.spec.shared_intermediate == 0
    assert qwen3.intermediate == 6144  # the dense MLP size, unused without dense layers


def test_hand_computed_mixtral_layer() -> None:
    """Mixtral 8x7B, s = 1024, bf16: S = k·s = 2048 routed pairs, E = 8, m = 14336."""
    arch = read_model_config(config_path("mistralai__Mixtral-8x7B-v0.1.json"))
    result = estimate(arch.inputs(seq=1024, device=Device.CPU))
    parts = {i.key: i.bytes for i in result.breakdown if i.count == 32}
    s, h, e, k, m, p = 1024, 4096, 8, 2, 14336, 2
    pairs = k * s
    # gate input p·s·h, fp32 softmax 4·s·E, int64 top-k indices 8·S, the in-place
    # renormalisation's fp32 divisor 4·s and fp32 weights 4·S
    assert parts[Part.ROUTER] == p * s * h + 4 * s * e + 8 * pairs + 4 * s + 4 * pairs
    assert parts[Part.ROUTER] == 8_450_048
    # three int64 index tensors (token gather, weight gather, inverse sort), int32
    # offsets, the gathered tokens, the fp32 sorted weights
    assert parts[Part.EXPERT_DISPATCH] == 3 * 8 * pairs + 4 * e + p * pairs * h + 4 * pairs
    assert parts[Part.EXPERT_DISPATCH] == 16_834_592
    # gate/up output (2m), SiLU output, product (m each), the down output (h)
    assert parts[Part.EXPERT_MLP] == p * pairs * 4 * m + p * pairs * h == 251_658_240
    assert Part.MLP_ACTIVATION not in parts and Part.SHARED_EXPERT not in parts


def test_hand_computed_qwen_shared_expert() -> None:
    """Qwen1.5-MoE: the shared expert is a SwiGLU of 5632 gated by a sigmoid."""
    arch = read_model_config(config_path("Qwen__Qwen1.5-MoE-A2.7B-Chat.json"))
    result = estimate(arch.inputs(seq=512))
    parts = {i.key: i.bytes for i in result.breakdown if i.count == 24}
    s, h, si, p = 512, 2048, 5632, 2
    # gate output, SiLU output, up output, product; sigmoid output; shared output
    assert parts[Part.SHARED_EXPERT] == 4 * p * s * si + p * s + p * s * h
    # Qwen casts the routing weights to the dtype and does not renormalise (p·S)
    pairs, e = 4 * s, 60
    assert parts[Part.ROUTER] == p * s * h + 4 * s * e + 8 * pairs
    assert parts[Part.EXPERT_DISPATCH] == 24 * pairs + 4 * e + p * pairs * h + p * pairs


def test_estimate_grows_with_the_sequence_and_recomputation_helps() -> None:
    for name in PUBLISHED:
        arch = read_model_config(config_path(name))
        saved = [estimate(arch.inputs(seq=s)).saved_bytes for s in (256, 512, 1024, 2048)]
        assert saved == sorted(saved) and len(set(saved)) == 4
        none = estimate(arch.inputs(seq=1024)).saved_bytes
        selective = estimate(arch.inputs(seq=1024, recompute=Recompute.SELECTIVE)).saved_bytes
        full = estimate(arch.inputs(seq=1024, recompute=Recompute.FULL))
        assert full.saved_bytes < selective <= none
        # full recomputation: each layer keeps its input only
        layer = {i.key: i.bytes for i in full.breakdown if i.count == arch.layers}
        assert layer == {Part.LAYER_CHECKPOINT: 2 * 1024 * arch.hidden}


def test_dense_and_sparse_layers_are_two_stacks() -> None:
    raw = raw_config("Qwen__Qwen1.5-MoE-A2.7B-Chat.json") | {"mlp_only_layers": [0, 1, 2]}
    arch = parse_model_config(raw)
    assert (arch.spec.dense_layers, arch.spec.sparse_layers) == (3, 21)
    result = estimate(arch.inputs(seq=1024))
    stacks = {(i.stack, i.count) for i in result.breakdown if i.stack is not None}
    assert stacks == {(StackKind.DENSE, 3), (StackKind.SPARSE, 21)}
    dense = {i.key for i in result.breakdown if i.stack is StackKind.DENSE}
    assert Part.MLP_ACTIVATION in dense and Part.ROUTER not in dense
    # fewer parameters: three dense MLPs of 5632 instead of 60 experts + shared expert
    h = 2048
    sparse_mlp = 60 * h + 60 * 3 * h * 1408 + 3 * h * 5632 + h
    assert parameters(arch) == 14_315_784_192 - 3 * (sparse_mlp - 3 * h * 5632)
    # decoder_sparse_step 2: every second layer is sparse
    step = parse_model_config(raw_config("Qwen__Qwen3-30B-A3B.json") | {"decoder_sparse_step": 2})
    assert [sparse for sparse, _ in step.spec.layer_kinds[:4]] == [False, True, False, True]
    # no experts at all: every layer is dense
    none = parse_model_config(raw_config("Qwen__Qwen1.5-MoE-A2.7B-Chat.json") | {"num_experts": 0})
    assert none.spec.sparse_layers == 0


def test_sliding_windows_follow_each_configuration_class() -> None:
    # Qwen2MoeConfig: every other layer below max_window_layers slides
    qwen2 = parse_model_config(
        raw_config("Qwen__Qwen1.5-MoE-A2.7B-Chat.json")
        | {"use_sliding_window": True, "sliding_window": 1024}
    )
    sliding = [i for i, (_, s) in enumerate(qwen2.spec.layer_kinds) if s]
    assert sliding == [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    result = estimate(qwen2.inputs(seq=2048, attention=Attention.SDPA))
    masks = [i for i in result.breakdown if i.key is Part.ATTN_MASK]
    assert [(m.stack, m.count, m.bytes) for m in masks] == [
        (StackKind.SLIDING, 11, 2 * 2048 * 2048)
    ]
    # a window longer than the sequence changes nothing: one stack (transformers masks
    # from kv_length >= window on)
    short = estimate(qwen2.inputs(seq=1023, attention=Attention.SDPA))
    assert {i.stack for i in short.breakdown if i.stack} == {StackKind.LAYERS}
    # Qwen3MoeConfig: a window only with use_sliding_window, then on every layer
    qwen3 = read_model_config(config_path("Qwen__Qwen3-30B-A3B.json"))
    assert qwen3.spec.sliding_window is None
    raw = raw_config("Qwen__Qwen3-30B-A3B.json") | {"use_sliding_window": True}
    assert parse_model_config(raw).spec.sliding_window is None  # the file's null
    del raw["sliding_window"]
    on = parse_model_config(raw)  # the class default
    assert on.spec.sliding_window == 4096 and on.spec.sliding_layers == 48
    # MixtralConfig: the window of the file, on every layer
    mixtral = parse_model_config(
        raw_config("mistralai__Mixtral-8x7B-v0.1.json") | {"sliding_window": 512}
    )
    assert mixtral.spec.sliding_layers == 32


def test_the_load_balancing_loss_keeps_a_softmax_per_sparse_layer() -> None:
    raw = raw_config("Qwen__Qwen3-30B-A3B.json")
    plain = estimate(parse_model_config(raw).inputs(seq=1000))
    aux_arch = parse_model_config(raw | {"output_router_logits": True})
    aux = estimate(aux_arch.inputs(seq=1000))
    s, e, layers, p = 1000, 128, 48, 2
    # per layer: softmax in the dtype (p·s·E); the fp32 token counts per expert once.
    # topk's int64 indices (8·k·s) die with the discarded top-k values: not kept
    expected = layers * p * s * e + 4 * e
    assert aux.saved_bytes - plain.saved_bytes == expected
    padded = estimate(aux_arch.inputs(seq=1000, padded=True, attention=Attention.EAGER))
    unpadded = estimate(aux_arch.inputs(seq=1000, attention=Attention.EAGER))
    assert padded.saved_bytes - unpadded.saved_bytes == 4 * s + 4  # fp32 mask, row count


def test_mixtral_router_noise_only_counts_with_dropout() -> None:
    raw = raw_config("mistralai__Mixtral-8x7B-v0.1.json") | {"router_jitter_noise": 0.01}
    arch = parse_model_config(raw)
    base = read_model_config(config_path("mistralai__Mixtral-8x7B-v0.1.json"))
    assert estimate(arch.inputs(seq=512)).saved_bytes == estimate(base.inputs(seq=512)).saved_bytes
    with_noise = estimate(arch.inputs(seq=512, dropout=True)).saved_bytes
    without = estimate(base.inputs(seq=512, dropout=True)).saved_bytes
    assert with_noise - without == 32 * 2 * 512 * 4096  # one noise tensor per layer


def test_other_data_types_scale_the_dtype_tensors_only() -> None:
    arch = read_model_config(config_path("mistralai__Mixtral-8x7B-v0.1.json"))
    bf16 = estimate(arch.inputs(seq=256, dtype=Precision.BF16)).saved_bytes
    fp32 = estimate(arch.inputs(seq=256, dtype=Precision.FP32)).saved_bytes
    assert bf16 < fp32 < 2 * bf16


@pytest.mark.parametrize(
    ("name", "change", "key"),
    [
        ("mistralai__Mixtral-8x7B-v0.1.json", {"hidden_size": -1}, "hidden_size"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"num_local_experts": True}, "num_local_experts"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"num_local_experts": 0}, "num_local_experts"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"num_experts_per_tok": 9}, "num_experts_per_tok"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"router_jitter_noise": -0.1}, "router_jitter_noise"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"hidden_act": "gelu_new"}, "hidden_act"),
        ("mistralai__Mixtral-8x7B-v0.1.json", {"num_key_value_heads": 5}, "num_key_value_heads"),
        ("Qwen__Qwen3-30B-A3B.json", {"num_experts_per_tok": "8"}, "num_experts_per_tok"),
        ("Qwen__Qwen3-30B-A3B.json", {"num_experts": -1}, "num_experts"),
        ("Qwen__Qwen3-30B-A3B.json", {"moe_intermediate_size": 0}, "moe_intermediate_size"),
        ("Qwen__Qwen3-30B-A3B.json", {"mlp_only_layers": "0"}, "mlp_only_layers"),
        ("Qwen__Qwen3-30B-A3B.json", {"mlp_only_layers": [-1]}, "mlp_only_layers"),
        ("Qwen__Qwen3-30B-A3B.json", {"mlp_only_layers": [True]}, "mlp_only_layers"),
        ("Qwen__Qwen3-30B-A3B.json", {"decoder_sparse_step": 0}, "decoder_sparse_step"),
        ("Qwen__Qwen3-30B-A3B.json", {"norm_topk_prob": 1}, "norm_topk_prob"),
        ("Qwen__Qwen3-30B-A3B.json", {"num_key_value_heads": None}, "num_key_value_heads"),
        (
            "Qwen__Qwen1.5-MoE-A2.7B-Chat.json",
            {"shared_expert_intermediate_size": 1.5},
            "shared_expert_intermediate_size",
        ),
        ("Qwen__Qwen1.5-MoE-A2.7B-Chat.json", {"layer_types": ["full_attention"]}, "layer_types"),
        (
            "Qwen__Qwen1.5-MoE-A2.7B-Chat.json",
            {"layer_types": ["sliding_attention"] * 24},
            "layer_types",
        ),
        (
            "Qwen__Qwen1.5-MoE-A2.7B-Chat.json",
            {"use_sliding_window": True, "sliding_window": None},
            "sliding_window",
        ),
        (
            "Qwen__Qwen1.5-MoE-A2.7B-Chat.json",
            {"output_router_logits": "no"},
            "output_router_logits",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_key(name: str, change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(name) | change)
    assert info.value.key == key
    assert key in str(info.value)
    assert info.value.problem in (ConfigProblem.BAD_VALUE, ConfigProblem.UNSUPPORTED)


def test_defaults_of_the_configuration_classes_fill_absent_keys() -> None:
    # MixtralConfig: 4096 hidden, 32 layers, 32 heads, 8 kv heads, 8 experts, top-2
    mixtral = parse_model_config({"model_type": "mixtral"})
    assert (mixtral.hidden, mixtral.layers, mixtral.heads, mixtral.kv_heads) == (4096, 32, 32, 8)
    assert (mixtral.spec.experts, mixtral.spec.top_k, mixtral.vocab) == (8, 2, 32000)
    assert parse_model_config({"model_type": "mixtral", "num_key_value_heads": None}).kv_heads == 32
    # Qwen2MoeConfig: 60 experts, top-4, 1408 and a 5632 shared expert, q/k/v biases
    qwen2 = parse_model_config({"model_type": "qwen2_moe"})
    assert (qwen2.hidden, qwen2.layers, qwen2.heads, qwen2.kv_heads) == (2048, 24, 16, 16)
    assert (qwen2.spec.experts, qwen2.spec.top_k, qwen2.spec.expert_intermediate) == (60, 4, 1408)
    assert qwen2.spec.shared_intermediate == 5632 and qwen2.spec.qkv_bias
    # Qwen3MoeConfig: 128 experts, top-8, 768; head_dim hidden / heads = 64 without the key
    qwen3 = parse_model_config({"model_type": "qwen3_moe"})
    assert (qwen3.heads, qwen3.kv_heads, qwen3.head_dim) == (32, 4, 64)
    assert (qwen3.spec.experts, qwen3.spec.top_k, qwen3.spec.expert_intermediate) == (128, 8, 768)
    # the aliases the configuration classes map
    assert parse_model_config({"model_type": "mixtral", "num_experts": 4}).spec.experts == 4
    assert (
        parse_model_config({"model_type": "qwen3_moe", "num_local_experts": 16}).spec.experts == 16
    )


def test_notes_say_what_the_estimate_assumes() -> None:
    arch = read_model_config(config_path("Qwen__Qwen1.5-MoE-A2.7B-Chat.json"))
    notes = estimate(arch.inputs(seq=512)).notes
    assert any("grouped" in n for n in notes)
    assert any("shared expert" in n for n in notes)
