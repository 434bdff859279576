"""DeepSeek-V2 and DeepSeek-V3 (multi-head latent attention, mixture of experts with
shared experts) read from their published config.json files."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Assumption,
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
from gradacc_desktop.core.memory.families.deepseek import idle_parameters, routed_experts
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import breakdown_parts, config_path, raw_config

V2_LITE = "deepseek-ai__DeepSeek-V2-Lite.json"
V3 = "deepseek-ai__DeepSeek-V3.json"

# num_parameters() of the models transformers 5.24 builds (meta device) = the published
# totals: DeepSeek-V2-Lite 15.7B, DeepSeek-V3 671B (without its multi-token prediction
# layer, which transformers does not build)
PUBLISHED = {
    V2_LITE: ("deepseek_v2", 15_706_484_224),
    V3: ("deepseek_v3", 671_026_404_352),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (
        model_type,
        Family.DEEPSEEK,
        Head.CAUSAL_LM,
    )
    assert parameters(arch) == count


def test_v2_lite_shape() -> None:
    arch = read_model_config(config_path(V2_LITE))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.vocab) == (
        2048,
        27,
        16,
        16,
        102400,
    )
    spec = arch.spec
    # no query latent (a plain q_proj), a 512 key/value latent, 128 + 64 query/key heads
    assert spec.q_lora_rank is None and spec.kv_lora_rank == 512
    assert (spec.qk_nope_head_dim, spec.qk_rope_head_dim, spec.v_head_dim) == (128, 64, 128)
    # the time model's head size: (192 + 128) / 2
    assert arch.head_dim == 160
    assert (spec.experts, spec.top_k, spec.expert_intermediate, spec.shared_experts) == (
        64,
        6,
        1408,
        2,
    )
    assert spec.shared_intermediate == 2816
    assert (spec.dense_layers, arch.intermediate, spec.routing, spec.norm_topk) == (
        1,
        10944,
        "greedy",
        False,
    )
    assert spec.rope_type == "yarn" and not spec.tie_embeddings and spec.mtp_layers == 0


def test_v3_shape() -> None:
    arch = read_model_config(config_path(V3))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.vocab) == (
        7168,
        61,
        128,
        128,
        129280,
    )
    spec = arch.spec
    assert (spec.q_lora_rank, spec.kv_lora_rank, spec.qk_head_dim, spec.v_head_dim) == (
        1536,
        512,
        192,
        128,
    )
    assert (spec.experts, spec.top_k, spec.expert_intermediate, spec.shared_experts) == (
        256,
        8,
        2048,
        1,
    )
    assert (spec.routing, spec.n_group, spec.topk_group, spec.norm_topk) == ("sigmoid", 8, 4, True)
    assert spec.dense_layers == 3 and arch.intermediate == 18432
    # the MTP layer of the checkpoint is not built; the FP8 quantization_config is ignored
    assert spec.mtp_layers == 1 and spec.quantized


def test_active_parameters_are_the_published_active_counts() -> None:
    # V3: 37B activated (36.6B without the input embedding, as the model card counts
    # them: 0.9B of the output head included); V2-Lite 2.4B
    v3 = read_model_config(config_path(V3))
    assert parameters(v3) - idle_parameters(v3) == 37_552_282_624
    assert size_of("v3", v3).compute_params == 37_552_282_624 - 129280 * 7168
    lite = read_model_config(config_path(V2_LITE))
    assert parameters(lite) - idle_parameters(lite) == 2_661_150_208
    assert size_of("lite", lite).compute_params == 2_451_435_008
    # 12·L·a·head_dim: the two attention products over qk = 192 and v = 128
    assert size_of("lite", lite).shape.head_dim * 2 == 192 + 128


def test_the_routed_experts_are_what_expert_parallelism_spreads() -> None:
    lite = read_model_config(config_path(V2_LITE))
    assert routed_experts(lite) == (64, 6, 26, 64 * 3 * 2048 * 1408)
    model = facts(ModelSpec.bundled("deepseek-v2-lite"))
    assert model.params == 15_706_484_224
    assert model.experts is not None and model.experts.sparse_layers == 26
    assert model.largest_layer == 64 * 3 * 2048 * 1408  # one layer's routed experts
    assert model.lora is None  # MLA's projections are not modelled for LoRA
    assert family_module(lite) is family_module("deepseek_v3")


def test_hand_computed_v2_lite_layers() -> None:
    """DeepSeek-V2-Lite, s = 1024, bf16, SDPA on CUDA (the memory-efficient kernel)."""
    arch = read_model_config(config_path(V2_LITE))
    result = estimate(arch.inputs(seq=1024))
    s, h, a, p = 1024, 2048, 16, 2
    qk, v, c, r = 192, 128, 512, 64
    layer = {i.key: i.bytes for i in result.breakdown if i.stack is StackKind.SPARSE}
    dense = {i.key: i.bytes for i in result.breakdown if i.stack is StackKind.DENSE}
    # q_proj / kv_a_proj_with_mqa input, kv_b_proj input
    assert layer[Part.QKV_PROJ_INPUT] == p * s * h + p * s * c
    # kv_a_layernorm: fp32 input, fp32 rsqrt, normalised latent in the dtype
    assert layer[Part.ATTN_QK_NORM] == 4 * s * c + 4 * s + p * s * c
    # Q and K (a·qk each), the kv_b_proj output V is a view of (a·(n + v))
    assert layer[Part.ATTN_QKV] == 2 * p * a * s * qk + p * s * a * (128 + v)
    assert layer[Part.ATTN_FUSED] == 4 * a * s and Part.ATTN_SOFTMAX not in layer
    assert layer[Part.ATTN_OUT_PROJ_INPUT] == p * s * a * v
    e, k, m = 64, 6, 1408
    pairs = k * s
    # fp32 router input and weight copy, softmax, int64 top-k indices
    assert layer[Part.ROUTER] == 4 * s * h + 4 * e * h + 4 * s * e + 8 * pairs
    assert layer[Part.EXPERT_DISPATCH] == 24 * pairs + 4 * e + p * pairs * h + 4 * pairs
    assert layer[Part.EXPERT_MLP] == p * pairs * 4 * m + p * pairs * h
    # the two shared experts as one SwiGLU of 2816 on the norm output
    assert layer[Part.SHARED_EXPERT] == 4 * p * s * 2816 + p * s * h
    assert Part.MLP_ACTIVATION not in layer
    assert dense[Part.MLP_ACTIVATION] == 3 * p * s * 10944
    assert dense[Part.MLP_OUT_PROJ_INPUT] == p * s * 10944
    assert Part.ROUTER not in dense
    # V2 rotates through complex64 freqs_cis (s × r/2), once per model
    outside = breakdown_parts(result, per_layer=False)
    assert outside[Part.ROTARY] == 4 * s * r
    assert {(i.stack, i.count) for i in result.breakdown if i.stack} == {
        (StackKind.DENSE, 1),
        (StackKind.SPARSE, 26),
    }


def test_hand_computed_v3_attention_and_router() -> None:
    """DeepSeek-V3, s = 512, bf16, on a CPU: SDPA takes the fp32 math path (192 ≠ 128)."""
    arch = read_model_config(config_path(V3))
    s, h, a, p = 512, 7168, 128, 2
    qk, v, c, q = 192, 128, 512, 1536
    cpu = estimate(arch.inputs(seq=s, device=Device.CPU))
    layer = {i.key: i.bytes for i in cpu.breakdown if i.stack is StackKind.SPARSE}
    assert layer[Part.QKV_PROJ_INPUT] == p * s * (h + c + q)
    assert layer[Part.ATTN_QK_NORM] == (4 + p) * s * (c + q) + 2 * 4 * s
    # fp32 Q, K and V copies and the fp32 softmax
    assert layer[Part.ATTN_QKV] == 4 * a * s * (2 * qk + v)
    assert layer[Part.ATTN_SOFTMAX] == 4 * a * s * s
    assert Part.ATTN_FUSED not in layer and Part.ATTN_MASK not in layer
    e, pairs = 256, 8 * s
    # sigmoid scores, gathered indices, the renormalisation's divisor and weights
    assert layer[Part.ROUTER] == 4 * s * h + 4 * e * h + 4 * s * e + 8 * pairs + 4 * s + 4 * pairs
    assert breakdown_parts(cpu, per_layer=False)[Part.ROTARY] == 2 * p * s * 64  # cos, sin
    # eager: Q and K in the dtype, the kv_b_proj output, fp32 softmax and its cast
    eager = estimate(arch.inputs(seq=s, device=Device.CPU, attention=Attention.EAGER))
    layer = {i.key: i.bytes for i in eager.breakdown if i.stack is StackKind.SPARSE}
    assert layer[Part.ATTN_QKV] == 2 * p * a * s * qk + p * s * a * (128 + v)
    assert layer[Part.ATTN_SOFTMAX] == (4 + p) * a * s * s


def test_the_cpu_math_path_keeps_no_mask_but_fused_kernels_do() -> None:
    arch = read_model_config(config_path(V3))
    plain = estimate(arch.inputs(seq=256, device=Device.CPU))
    padded = estimate(arch.inputs(seq=256, device=Device.CPU, padded=True))
    assert padded.saved_bytes == plain.saved_bytes  # the mask is added in place
    cuda = estimate(arch.inputs(seq=256, padded=True))
    masks = [i for i in cuda.breakdown if i.key is Part.ATTN_MASK]
    assert {(i.bytes, i.count) for i in masks} == {(2 * 256 * 256, 3), (2 * 256 * 256, 58)}
    # query/key heads as wide as the value heads: the CPU flash kernel, with its output
    raw = raw_config(V3) | {"qk_nope_head_dim": 64, "qk_rope_head_dim": 64}
    flash = estimate(parse_model_config(raw).inputs(seq=256, device=Device.CPU))
    layer = breakdown_parts(flash)
    assert layer[Part.ATTN_KERNEL_OUTPUT] == 2 * 256 * 128 * 128
    assert Part.ATTN_SOFTMAX not in layer


def test_estimate_grows_with_the_sequence_and_recomputation_helps() -> None:
    for name in PUBLISHED:
        arch = read_model_config(config_path(name))
        saved = [estimate(arch.inputs(seq=s)).saved_bytes for s in (256, 512, 1024, 2048)]
        assert saved == sorted(saved) and len(set(saved)) == 4
        none = estimate(arch.inputs(seq=1024, attention=Attention.EAGER)).saved_bytes
        selective = estimate(
            arch.inputs(seq=1024, attention=Attention.EAGER, recompute=Recompute.SELECTIVE)
        ).saved_bytes
        full = estimate(arch.inputs(seq=1024, recompute=Recompute.FULL))
        assert full.saved_bytes < selective < none
        layer = {i.key for i in full.breakdown if i.stack is not None}
        assert layer == {Part.LAYER_CHECKPOINT}
        assert Part.ROTARY not in breakdown_parts(full, per_layer=False)


def test_fp32_keeps_the_router_input_once_and_copies_no_weight() -> None:
    arch = read_model_config(config_path(V2_LITE))
    s, h, e, c, r = 128, 2048, 64, 512, 64
    fp32 = estimate(arch.inputs(seq=s, dtype=Precision.FP32, device=Device.CPU))
    layer = {i.key: i.bytes for i in fp32.breakdown if i.stack is StackKind.SPARSE}
    pairs = 6 * s
    assert layer[Part.ROUTER] == 4 * s * h + 4 * s * e + 8 * pairs
    assert layer[Part.SHARED_EXPERT] == 4 * 4 * s * 2816  # its input is the router's
    # kv_a_layernorm keeps the whole kv_a_proj_with_mqa output through its view
    assert layer[Part.ATTN_QK_NORM] == 4 * s * (c + r) + 4 * s + 4 * s * c
    # V is a view of the kv_b_proj output (no fp32 copy)
    assert layer[Part.ATTN_QKV] == 4 * 16 * s * 2 * 192 + 4 * s * 16 * 256


def test_dropout_adds_the_attention_dropout_only() -> None:
    arch = read_model_config(config_path(V2_LITE))
    s, a, p = 256, 16, 2
    cpu = {"device": Device.CPU, "attention": Attention.EAGER}
    plain = estimate(arch.inputs(seq=s, **cpu))
    drop = estimate(arch.inputs(seq=s, dropout=True, **cpu))
    # the cast of the softmax is replaced by the dropout noise and output (dtype, CPU)
    assert drop.saved_bytes - plain.saved_bytes == 27 * p * a * s * s


def test_notes_say_what_the_estimate_assumes() -> None:
    v3 = estimate(read_model_config(config_path(V3)).inputs(seq=512, device=Device.CPU)).notes
    assert any("latent" in n for n in v3)
    assert any("math path" in n for n in v3)
    assert any("fp32 copy" in n for n in v3)
    assert any("sigmoid" in n for n in v3)
    assert any("multi-token prediction" in n for n in v3)
    assert any("quantization_config" in n for n in v3)
    assert any("mscale" in n for n in v3)
    lite = estimate(read_model_config(config_path(V2_LITE)).inputs(seq=512)).notes
    assert any("softmax scores" in n for n in lite)
    assert any("shared experts" in n for n in lite)
    assert not any("multi-token" in n for n in lite)


def test_defaults_of_the_configuration_classes_fill_absent_keys() -> None:
    # DeepseekV3Config's defaults are DeepSeek-V3's sizes (same parameter count)
    default = parse_model_config({"model_type": "deepseek_v3"})
    assert parameters(default) == PUBLISHED[V3][1]
    assert default.spec.mtp_layers == 1 and default.spec.rope_type == "default"
    # DeepseekV2Config: 64 experts of 1407, two shared, no dense layer, a query latent
    v2 = parse_model_config({"model_type": "deepseek_v2", "num_experts_per_tok": 6})
    assert (v2.hidden, v2.layers, v2.heads, v2.vocab) == (4096, 32, 32, 102400)
    spec = v2.spec
    assert (spec.experts, spec.expert_intermediate, spec.shared_experts) == (64, 1407, 2)
    assert (spec.dense_layers, spec.q_lora_rank, spec.kv_lora_rank) == (0, 1536, 512)
    stacks = {i.stack for i in estimate(v2.inputs(seq=128)).breakdown if i.stack}
    assert stacks == {StackKind.LAYERS}
    # the aliases the configuration classes map onto n_routed_experts
    assert (
        parse_model_config({"model_type": "deepseek_v3", "num_local_experts": 64}).spec.experts
        == 64
    )
    alias = parse_model_config(
        {"model_type": "deepseek_v2", "num_experts": 8, "num_experts_per_tok": 2}
    )
    assert alias.spec.experts == 8
    # V2's group_limited_greedy keeps a bool mask of the group choice (s·E)
    raw = raw_config(V2_LITE) | {
        "topk_method": "group_limited_greedy",
        "n_group": 8,
        "topk_group": 3,
    }
    grouped = estimate(parse_model_config(raw).inputs(seq=100)).saved_bytes
    greedy = estimate(read_model_config(config_path(V2_LITE)).inputs(seq=100)).saved_bytes
    assert grouped - greedy == 26 * 100 * 64


def test_v2_mlp_biases_and_tied_embeddings_count() -> None:
    base = parameters(read_model_config(config_path(V2_LITE)))
    biased = parse_model_config(raw_config(V2_LITE) | {"mlp_bias": True})
    # dense MLP (2·10944 + 2048) and 26 shared MLPs (2·2816 + 2048)
    assert parameters(biased) - base == (2 * 10944 + 2048) + 26 * (2 * 2816 + 2048)
    tied = parse_model_config(raw_config(V2_LITE) | {"tie_word_embeddings": True})
    assert base - parameters(tied) == 102400 * 2048
    # attention biases on kv_a_proj_with_mqa (576) and o_proj (2048); q_proj has none
    attn = parse_model_config(raw_config(V2_LITE) | {"attention_bias": True})
    assert parameters(attn) - base == 27 * (576 + 2048)


@pytest.mark.parametrize(
    ("name", "change", "key"),
    [
        (V3, {"num_key_value_heads": 8}, "num_key_value_heads"),
        (V3, {"moe_layer_freq": 2}, "moe_layer_freq"),
        (V3, {"first_k_dense_replace": None}, "first_k_dense_replace"),
        (V3, {"v_head_dim": None}, "v_head_dim"),
        (V3, {"num_experts_per_tok": None}, "num_experts_per_tok"),
        (V3, {"num_experts_per_tok": 300}, "num_experts_per_tok"),
        (V3, {"n_group": 7}, "n_group"),
        (V3, {"n_group": 256, "topk_group": 4}, "n_group"),
        (V3, {"topk_group": 9}, "topk_group"),
        (V3, {"scoring_func": "softmax"}, "scoring_func"),
        (V3, {"qk_rope_head_dim": 63}, "qk_rope_head_dim"),
        (V3, {"hidden_act": "gelu_new"}, "hidden_act"),
        (V3, {"kv_lora_rank": 0}, "kv_lora_rank"),
        (V3, {"q_lora_rank": "1536"}, "q_lora_rank"),
        (V3, {"rope_scaling": "yarn"}, "rope_scaling"),
        (V2_LITE, {"num_experts_per_tok": None}, "num_experts_per_tok"),
        (V2_LITE, {"topk_method": "noaux_tc"}, "topk_method"),
        (V2_LITE, {"topk_method": "group_limited_greedy", "n_group": None}, "n_group"),
        (V2_LITE, {"scoring_func": "sigmoid"}, "scoring_func"),
        (V2_LITE, {"hidden_size": 2050}, "hidden_size"),
        (V2_LITE, {"n_shared_experts": -1}, "n_shared_experts"),
        (V2_LITE, {"mlp_bias": "no"}, "mlp_bias"),
    ],
)
def test_bad_values_are_refused_naming_the_key(name: str, change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(name) | change)
    assert info.value.key == key
    assert key in str(info.value)
    assert info.value.problem in (ConfigProblem.BAD_VALUE, ConfigProblem.UNSUPPORTED)


def test_a_checkpoint_without_its_prediction_layer_has_no_note_about_it() -> None:
    # bf16 conversions often set num_nextn_predict_layers to 0 (no MTP weights)
    arch = parse_model_config(raw_config(V3) | {"num_nextn_predict_layers": 0})
    assert arch.spec.mtp_layers == 0 and parameters(arch) == PUBLISHED[V3][1]
    assert not any("multi-token" in n for n in estimate(arch.inputs(seq=64)).notes)
    assert (
        parse_model_config({"model_type": "deepseek_v3", "num_mtp_layers": 2}).spec.mtp_layers == 2
    )


def test_a_missing_top_k_says_what_is_missing() -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config({"model_type": "deepseek_v2"})
    assert info.value.key == "num_experts_per_tok"
    assert "num_experts_per_tok must be a number" in info.value.detail


def test_megatron_s_fused_softmax_keeps_its_output_in_the_data_type_only() -> None:
    """Megatron's unfused attention scales, masks and normalises the scores in one kernel
    (FusedScaleMaskSoftmax) that keeps its bf16 output: a·s² values, Korthikanti et al.'s
    2as² bytes, where the modules keep an fp32 softmax and its cast. Nothing else of the
    layer changes, and fused attention has no softmax to keep."""
    arch = read_model_config(config_path(V2_LITE))
    s, a = 512, arch.heads
    eager = estimate(arch.inputs(seq=s, attention=Attention.EAGER))
    fused = estimate(arch.inputs(seq=s, attention=Attention.EAGER, fused_softmax=True))
    for stack in (StackKind.DENSE, StackKind.SPARSE):
        before = {i.key: i.bytes for i in eager.breakdown if i.stack is stack}
        after = {i.key: i.bytes for i in fused.breakdown if i.stack is stack}
        assert before[Part.ATTN_SOFTMAX] == (4 + 2) * a * s * s
        assert after[Part.ATTN_SOFTMAX] == 2 * a * s * s
        assert {k: n for k, n in after.items() if k is not Part.ATTN_SOFTMAX} == {
            k: n for k, n in before.items() if k is not Part.ATTN_SOFTMAX
        }
    assert eager.saved_bytes - fused.saved_bytes == 4 * a * s * s * arch.layers
    assert Assumption.FUSED_SOFTMAX in fused.assumptions
    assert Assumption.FUSED_SOFTMAX not in eager.assumptions
    sdpa = estimate(arch.inputs(seq=s, fused_softmax=True))
    assert sdpa.saved_bytes == estimate(arch.inputs(seq=s)).saved_bytes
