"""Llama variants read from their published config.json files (OLMo 2, Command-R,
StarCoder2, GLM-4, StableLM 2, Granite): shape, exact parameter counts, the details each
type adds to the Llama layer, and refusals."""

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
from gradacc_desktop.core.memory.families.llama_variants import lora_naming
from tests.configs import breakdown_parts, config_path, raw_config

OLMO2 = "allenai__OLMo-2-1124-13B.json"
COMMAND_R = "CohereForAI__c4ai-command-r-08-2024.json"
STARCODER2 = "bigcode__starcoder2-3b.json"
GLM4 = "ccui46__hazardworld_per_chunk_act_glm_tokfix_diffPrompt_2000.json"
STABLELM = "stabilityai__stablelm-2-zephyr-1_6b.json"
STABLELM_12B = "stabilityai__stablelm-2-12b.json"
GRANITE = "ibm-granite__granite-3.0-2b-instruct.json"

# model type, architectures[0], num_parameters() of the model transformers 5.24 builds
# (meta device), equal to the published totals: OLMo 2 13B 13,716,198,400 (its fp32
# safetensors hold 54,864,793,600 bytes), Command R 08-2024 32.3B, StarCoder2 3B 3.03B,
# GLM-4 0414 9.4B, StableLM 2 1.6B 1,644,515,328 (fp16 checkpoint 3.29 GB), StableLM 2
# 12B 12.1B (transformers adds LayerNorm biases the file's use_norm_bias=false checkpoint
# does not hold: 209,920 more than the checkpoint), Granite 3.0 2B 2.53B
PUBLISHED: dict[str, tuple[str, str, int]] = {
    OLMO2: ("olmo2", "Olmo2ForCausalLM", 13_716_198_400),
    COMMAND_R: ("cohere", "CohereForCausalLM", 32_296_476_672),
    STARCODER2: ("starcoder2", "Starcoder2ForCausalLM", 3_030_371_328),
    GLM4: ("glm4", "Glm4ForCausalLM", 9_400_279_040),
    STABLELM: ("stablelm", "StableLmForCausalLM", 1_644_515_328),
    STABLELM_12B: ("stablelm", "StableLmForCausalLM", 12_143_185_920),
    GRANITE: ("granite", "GraniteForCausalLM", 2_533_531_648),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, architecture, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (
        model_type,
        Family.LLAMA_VARIANT,
        Head.CAUSAL_LM,
    )
    assert arch.architecture == architecture
    assert parameters(arch) == count


def test_olmo2_normalises_after_the_blocks_and_over_whole_q_and_k() -> None:
    arch = read_model_config(config_path(OLMO2))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        5120,
        40,
        40,
        40,
        128,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (13824, 100352, 4096)
    spec = arch.spec
    assert spec.qk_norm and not spec.parallel and not spec.tie_embeddings
    assert spec.rotary_dim == 128 and not spec.qkv_bias
    s, h, a, d, i = 1024, 5120, 40, 128, 13824
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    norm = 8 * s * h + 4 * s  # fp32 input and normalised tensor, fp32 rsqrt
    qk_norms = 2 * (8 * s * a * d + 4 * s)
    attention = 2 * s * h + qk_norms + 2 * s * 3 * a * d + 4 * a * s + 2 * s * a * d
    mlp = 2 * s * h + 3 * 2 * s * i + 2 * s * i
    assert result.per_layer_bytes == attention + mlp + 2 * norm == 344_113_152
    parts = breakdown_parts(result)
    assert Part.ATTN_NORM not in parts and Part.MLP_NORM not in parts
    assert parts[Part.ATTN_POST_NORM] == parts[Part.MLP_POST_NORM] == norm
    # cos and sin are fp32 whatever the model's dtype
    assert breakdown_parts(result, per_layer=False)[Part.ROTARY] == 2 * 4 * s * d


def test_command_r_feeds_attention_and_mlp_from_one_fp32_layernorm() -> None:
    arch = read_model_config(config_path(COMMAND_R))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        8192,
        40,
        64,
        8,
        128,
    )
    spec = arch.spec
    assert spec.parallel and spec.tie_embeddings and not spec.qk_norm
    assert spec.logit_scale == 0.0625 and arch.max_positions == 131072
    s, h, a, k, d, i = 512, 8192, 64, 8, 128, 24576
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    norm = 12 * s * h + 4 * s + 4 * h  # x - mean twice, normalised, rsqrt, fp32 weight
    attention = 2 * s * (a + 2 * k) * d + 4 * a * s + 2 * s * a * d
    expected = norm + 2 * s * h + attention + 3 * 2 * s * i + 2 * s * i
    assert result.per_layer_bytes == expected
    parts = breakdown_parts(result)
    assert Part.MLP_NORM not in parts and Part.MLP_IN_PROJ_INPUT not in parts
    # with an fp32 model the weight is used as it is: no copy
    fp32 = breakdown_parts(estimate(arch.inputs(seq=s, dtype=Precision.FP32)))
    assert fp32[Part.ATTN_NORM] == 12 * s * h + 4 * s


def test_cohere_qk_norm_is_per_head() -> None:
    raw = raw_config(COMMAND_R) | {"use_qk_norm": True}
    arch = parse_model_config(raw)
    assert arch.spec.qk_norm
    assert parameters(arch) == PUBLISHED[COMMAND_R][2] + 40 * (64 + 8) * 128
    s, a, k, d = 256, 64, 8, 128
    parts = breakdown_parts(estimate(arch.inputs(seq=s)))
    per_head = 12 * s * d + 4 * s + 4 * d
    assert parts[Part.ATTN_QK_NORM] == (a + k) * per_head


def test_starcoder2_layernorm_plain_mlp_biases_and_window() -> None:
    arch = read_model_config(config_path(STARCODER2))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        3072,
        30,
        24,
        2,
        128,
    )
    spec = arch.spec
    assert spec.qkv_bias and spec.o_bias and spec.mlp_bias and spec.tie_embeddings
    assert (spec.activation, spec.sliding_window) == ("gelu_pytorch_tanh", 4096)
    s, h, i = 512, 3072, 12288
    parts = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CPU)))
    assert parts[Part.ATTN_NORM] == parts[Part.MLP_NORM] == 2 * s * h + 2 * 2 * s
    # c_fc's output (the tanh GELU's input) and c_proj's input
    assert parts[Part.MLP_ACTIVATION] == parts[Part.MLP_OUT_PROJ_INPUT] == 2 * s * i
    # the window adds a mask from a sequence as long as the window on
    shorter = breakdown_parts(estimate(arch.inputs(seq=4095)))
    equal = breakdown_parts(estimate(arch.inputs(seq=4096)))
    assert Part.ATTN_MASK not in shorter and equal[Part.ATTN_MASK] == 2 * 4096 * 4096


def test_starcoder2_dropout_masks_and_embedding_dropout() -> None:
    arch = read_model_config(config_path(STARCODER2))
    s, h = 256, 3072
    for device, mask in ((Device.CUDA, 1), (Device.CPU, 2)):
        on = layout(arch, arch.inputs(seq=s, device=device, dropout=True))
        parts = on.stacks[0].parts
        assert parts[Part.ATTN_RESID_DROPOUT] == parts[Part.MLP_RESID_DROPOUT] == mask * s * h
        assert on.outside[Part.EMBEDDINGS] == 8 * s + mask * s * h
    off = layout(arch, arch.inputs(seq=s))
    assert Part.ATTN_RESID_DROPOUT not in off.stacks[0].parts
    assert off.outside[Part.EMBEDDINGS] == 8 * s


def test_glm4_keeps_cos_and_sin_in_every_layer_and_the_kernel_output() -> None:
    arch = read_model_config(config_path(GLM4))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4096,
        40,
        32,
        2,
        128,
    )
    spec = arch.spec
    assert spec.rotary_dim == 64 and spec.qkv_bias and not spec.o_bias
    s, h, a, k, d, i = 1024, 4096, 32, 2, 128, 13696
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    norm = 4 * s * h + 4 * s + 2 * s * h
    attention = 2 * s * (a + 2 * k) * d + 4 * a * s + 2 * s * a * d + 2 * s * a * d
    expected = 4 * norm + 2 * 2 * s * h + attention + 2 * 2 * s * 64 + 3 * 2 * s * i + 2 * s * i
    assert result.per_layer_bytes == expected
    parts = breakdown_parts(result)
    assert parts[Part.ATTN_ROTARY] == 2 * 2 * s * 64
    assert parts[Part.ATTN_KERNEL_OUTPUT] == 2 * s * a * d
    assert Part.ROTARY not in breakdown_parts(result, per_layer=False)
    # eager attention copies the output itself: no kernel output
    eager = breakdown_parts(estimate(arch.inputs(seq=s, attention=Attention.EAGER)))
    assert Part.ATTN_KERNEL_OUTPUT not in eager


def test_glm4_defaults_to_half_rotary_and_any_width() -> None:
    arch = parse_model_config({"model_type": "glm4"})
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4096,
        40,
        32,
        2,
        128,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (13696, 151552, 131072)
    assert arch.spec.rotary_dim == 64 and arch.spec.qkv_bias
    # int(20 * 0.25) = 5 -> inv_freq of 3, cos and sin 6 wide
    odd = parse_model_config({"model_type": "glm4", "head_dim": 20, "partial_rotary_factor": 0.25})
    assert odd.spec.rotary_dim == 6


def test_stablelm_partial_rotary_biases_and_kernel_output() -> None:
    arch = read_model_config(config_path(STABLELM))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2048,
        24,
        32,
        32,
        64,
    )
    spec = arch.spec
    assert spec.rotary_dim == 16 and spec.qkv_bias and not spec.o_bias
    assert not spec.qk_norm and not spec.parallel and not spec.tie_embeddings
    s = 512
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    parts = breakdown_parts(result)
    assert parts[Part.ATTN_NORM] == parts[Part.MLP_NORM] == 2 * s * 2048 + 2 * 2 * s
    assert parts[Part.ATTN_KERNEL_OUTPUT] == 2 * s * 2048
    assert breakdown_parts(result, per_layer=False)[Part.ROTARY] == 2 * 2 * s * 16


def test_stablelm_12b_qk_layernorm_and_parallel_residual() -> None:
    arch = read_model_config(config_path(STABLELM_12B))
    assert (arch.hidden, arch.heads, arch.kv_heads, arch.head_dim) == (5120, 32, 8, 160)
    spec = arch.spec
    assert spec.qk_norm and spec.parallel and not spec.qkv_bias and spec.rotary_dim == 40
    s, a, k, d = 512, 32, 8, 160
    parts = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CPU)))
    # the whole Q and K projection outputs, a mean and an rstd per head and token
    assert parts[Part.ATTN_QK_NORM] == 2 * s * (a + k) * d + 2 * 2 * s * (a + k)
    assert Part.MLP_NORM not in parts and Part.MLP_IN_PROJ_INPUT not in parts
    on_cuda = breakdown_parts(estimate(arch.inputs(seq=s, device=Device.CUDA)))
    assert on_cuda[Part.ATTN_QK_NORM] == 2 * s * (a + k) * d + 2 * 4 * s * (a + k)


def test_stablelm_hidden_dropout_is_on_the_mlp_only() -> None:
    arch = read_model_config(config_path(STABLELM))
    parts = layout(arch, arch.inputs(seq=128, dropout=True)).stacks[0].parts
    assert parts[Part.MLP_RESID_DROPOUT] == 128 * 2048
    assert Part.ATTN_RESID_DROPOUT not in parts


def test_granite_multipliers_keep_nothing_the_llama_layer() -> None:
    arch = read_model_config(config_path(GRANITE))
    spec = arch.spec
    assert (spec.embedding_multiplier, spec.residual_multiplier) == (12.0, 0.22)
    assert (spec.attention_multiplier, spec.logits_scaling) == (0.015625, 8.0)
    assert spec.tie_embeddings and not spec.qkv_bias and not spec.mlp_bias
    llama_raw = {
        key: value
        for key, value in raw_config(GRANITE).items()
        if not key.endswith(("multiplier", "scaling"))
    } | {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    llama = parse_model_config(llama_raw)
    assert parameters(arch) == parameters(llama)
    for options in (
        {},
        {"attention": Attention.EAGER},
        {"padded": True},
        {"dropout": True, "device": Device.CPU},
        {"recompute": Recompute.FULL},
    ):
        ours = estimate(arch.inputs(seq=1024, **options))
        theirs = estimate(llama.inputs(seq=1024, **options))
        assert ours.saved_bytes == theirs.saved_bytes
        assert ours.peak_bytes == theirs.peak_bytes


def test_granite_biases_count_like_transformers() -> None:
    arch = parse_model_config(raw_config(GRANITE) | {"attention_bias": True, "mlp_bias": True})
    h, k, d, i = 2048, 8, 64, 8192
    biases = 2 * h + 2 * k * d + 2 * i + h
    assert parameters(arch) == PUBLISHED[GRANITE][2] + 40 * biases


@pytest.mark.parametrize(
    ("model_type", "sizes"),
    [
        ("olmo2", (4096, 32, 32, 32, 11008, 50304, 2048)),
        ("cohere", (8192, 40, 64, 64, 22528, 256000, 8192)),
        ("starcoder2", (3072, 30, 24, 2, 12288, 49152, 4096)),
        ("glm4", (4096, 40, 32, 2, 13696, 151552, 131072)),
        ("stablelm", (2560, 32, 32, 32, 6912, 50304, 4096)),
        ("granite", (4096, 32, 32, 32, 11008, 32000, 2048)),
    ],
)
def test_defaults_of_the_configuration_classes_fill_absent_keys(
    model_type: str, sizes: tuple[int, ...]
) -> None:
    arch = parse_model_config({"model_type": model_type, "hidden_size": None})
    assert (
        arch.hidden,
        arch.layers,
        arch.heads,
        arch.kv_heads,
        arch.intermediate,
        arch.vocab,
        arch.max_positions,
    ) == sizes
    spec = arch.spec
    assert spec.tie_embeddings is (model_type in ("cohere", "starcoder2"))
    assert spec.activation == ("gelu_pytorch_tanh" if model_type == "starcoder2" else "silu")
    assert spec.rotary_dim == {"glm4": 64, "stablelm": 20}.get(model_type, arch.head_dim)


def test_the_rope_dict_wins_over_the_top_level_partial_factor() -> None:
    raw = raw_config(STABLELM) | {"rope_parameters": {"partial_rotary_factor": 0.5}}
    assert parse_model_config(raw).spec.rotary_dim == 32


def test_head_sizes_above_256_repeat_k_and_v_even_without_a_mask() -> None:
    raw = {"model_type": "glm4", "hidden_size": 64, "num_attention_heads": 4}
    s, a, d = 128, 4, 264
    wide = parse_model_config(raw | {"num_key_value_heads": 2, "head_dim": d})
    parts = layout(wide, wide.inputs(seq=s)).stacks[0].parts
    assert parts[Part.ATTN_QKV] == 2 * s * 3 * a * d
    assert Part.ATTN_MASK not in parts
    narrow = parse_model_config(raw | {"num_key_value_heads": 2, "head_dim": 128})
    parts = layout(narrow, narrow.inputs(seq=s)).stacks[0].parts
    assert parts[Part.ATTN_QKV] == 2 * s * (a + 2 * 2) * 128


@pytest.mark.parametrize(
    ("name", "change", "key", "problem"),
    [
        (OLMO2, {"hidden_size": -1}, "hidden_size", ConfigProblem.BAD_VALUE),
        (OLMO2, {"num_key_value_heads": 7}, "num_key_value_heads", ConfigProblem.UNSUPPORTED),
        (OLMO2, {"hidden_size": 5100}, "hidden_size", ConfigProblem.UNSUPPORTED),
        (OLMO2, {"hidden_act": "gelu_new"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        (COMMAND_R, {"use_qk_norm": "yes"}, "use_qk_norm", ConfigProblem.BAD_VALUE),
        (COMMAND_R, {"logit_scale": "big"}, "logit_scale", ConfigProblem.BAD_VALUE),
        (STARCODER2, {"sliding_window": 0}, "sliding_window", ConfigProblem.BAD_VALUE),
        (STARCODER2, {"hidden_act": "swiglu"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        (STARCODER2, {"use_bias": 1}, "use_bias", ConfigProblem.BAD_VALUE),
        (
            GLM4,
            {"partial_rotary_factor": 1.5, "rope_parameters": None},
            "partial_rotary_factor",
            ConfigProblem.UNSUPPORTED,
        ),
        (
            GLM4,
            {"rope_parameters": {"partial_rotary_factor": "half"}},
            "partial_rotary_factor",
            ConfigProblem.BAD_VALUE,
        ),
        (
            STABLELM,
            {"partial_rotary_factor": 0.3},
            "partial_rotary_factor",
            ConfigProblem.UNSUPPORTED,
        ),
        (STABLELM, {"head_dim": 128}, "head_dim", ConfigProblem.UNSUPPORTED),
        (STABLELM, {"qk_layernorm": "no"}, "qk_layernorm", ConfigProblem.BAD_VALUE),
        (GRANITE, {"embedding_multiplier": "12"}, "embedding_multiplier", ConfigProblem.BAD_VALUE),
        (GRANITE, {"tie_word_embeddings": "no"}, "tie_word_embeddings", ConfigProblem.BAD_VALUE),
    ],
)
def test_bad_values_are_refused_naming_the_key(
    name: str, change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(name) | change)
    assert info.value.key == key
    assert info.value.problem is problem
    assert key in str(info.value)


@pytest.mark.parametrize("auto_map", [False, True])
def test_internlm2_is_refused_as_remote_code(auto_map: bool) -> None:
    raw: dict[str, Any] = {"model_type": "internlm2", "hidden_size": 4096}
    if auto_map:
        raw["auto_map"] = {"AutoConfig": "configuration_internlm2.InternLM2Config"}
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw)
    assert info.value.key == "model_type"
    assert "remote code" in info.value.detail


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_monotonic_in_seq_and_recomputation_saves(name: str, attention: Attention) -> None:
    arch = read_model_config(config_path(name))
    sizes = [
        estimate(arch.inputs(seq=s, attention=attention)).saved_bytes
        for s in (128, 512, 2048, 4095, 4096)
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    by = {
        r: estimate(arch.inputs(seq=2048, attention=attention, recompute=r))
        for r in (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    }
    assert by[Recompute.FULL].saved_bytes < by[Recompute.SELECTIVE].saved_bytes
    assert by[Recompute.SELECTIVE].saved_bytes <= by[Recompute.NONE].saved_bytes
    full = {i.key: i for i in by[Recompute.FULL].breakdown}
    assert full[Part.LAYER_CHECKPOINT].bytes == 2 * 2048 * arch.hidden
    assert Part.ROTARY not in full and Part.ATTN_ROTARY not in full


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_notes_say_what_the_type_assumes(name: str) -> None:
    arch = read_model_config(config_path(name))
    notes = estimate(arch.inputs(seq=512)).notes
    assert notes and all(isinstance(n, str) and n for n in notes)
    word = {
        "olmo2": "OLMo 2",
        "cohere": "Command-R",
        "starcoder2": "StarCoder2",
        "glm4": "GLM-4",
        "stablelm": "StableLM",
        "granite": "Granite",
    }[arch.model_type]
    assert any(word in n for n in notes)


def test_lora_naming_follows_the_projection_names() -> None:
    names = {
        name: lora_naming(read_model_config(config_path(name)))
        for name in (OLMO2, COMMAND_R, STARCODER2, GLM4, STABLELM, GRANITE)
    }
    assert names[STARCODER2] is None and names[GLM4] is None
    assert {names[n] for n in (OLMO2, COMMAND_R, STABLELM, GRANITE)} == {"llama"}
