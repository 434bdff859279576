"""Llama-like and GPT-2 models read from their published config.json files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
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

# num_parameters() of the published models (model cards and the transformers count)
PUBLISHED = {
    "openai-community__gpt2.json": ("gpt2", Family.GPT2, 124_439_808),
    "meta-llama__Llama-3.1-8B.json": ("llama", Family.LLAMA, 8_030_261_248),
    "mistralai__Mistral-7B-v0.1.json": ("mistral", Family.LLAMA, 7_241_732_096),
    "Qwen__Qwen2.5-0.5B-Instruct.json": ("qwen2", Family.LLAMA, 494_032_768),
    "Qwen__Qwen3-0.6B.json": ("qwen3", Family.LLAMA, 596_049_920),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, family, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, family, Head.CAUSAL_LM)
    assert parameters(arch) == count


def test_qwen3_head_dim_is_the_files_not_hidden_over_heads() -> None:
    arch = read_model_config(config_path("Qwen__Qwen3-0.6B.json"))
    assert (arch.hidden, arch.heads, arch.kv_heads, arch.head_dim) == (1024, 16, 8, 128)
    assert arch.spec.qk_norm and arch.spec.tie_embeddings
    assert arch.spec.sliding_window is None


def test_mistral_slides_every_layer_and_qwen2_only_when_asked() -> None:
    mistral = read_model_config(config_path("mistralai__Mistral-7B-v0.1.json"))
    assert (mistral.spec.sliding_window, mistral.spec.sliding_layers) == (4096, 32)
    qwen = read_model_config(config_path("Qwen__Qwen2.5-0.5B-Instruct.json"))
    assert qwen.spec.sliding_window is None and qwen.spec.sliding_layers == 0
    on = parse_model_config(
        raw_config("Qwen__Qwen2.5-0.5B-Instruct.json") | {"use_sliding_window": True}
    )
    # layers from max_window_layers (21) on slide: 3 of 24
    assert (on.spec.sliding_window, on.spec.sliding_layers) == (32768, 3)


def test_a_sequence_as_long_as_the_window_adds_a_mask_per_layer_under_sdpa() -> None:
    mistral = read_model_config(config_path("mistralai__Mistral-7B-v0.1.json"))
    # transformers masks from kv_length >= window on: 4 095 tokens take is_causal
    short = estimate(mistral.inputs(seq=4095, attention=Attention.SDPA))
    long = estimate(mistral.inputs(seq=8192, attention=Attention.SDPA))
    assert Part.ATTN_MASK in {i.key for i in estimate(mistral.inputs(seq=4096)).breakdown}
    assert Part.ATTN_MASK not in {i.key for i in short.breakdown}
    masks = [i for i in long.breakdown if i.key is Part.ATTN_MASK]
    assert masks == [masks[0]] and masks[0].count == 32
    assert masks[0].bytes == 2 * 8192 * 8192


def test_a_padded_batch_makes_sdpa_keep_a_mask_and_repeated_kv() -> None:
    arch = read_model_config(config_path("meta-llama__Llama-3.1-8B.json"))
    plain = estimate(arch.inputs(seq=1024, device=Device.CPU))
    padded = estimate(arch.inputs(seq=1024, device=Device.CPU, padded=True))
    s, a, k, d = 1024, 32, 8, 128
    per_layer = 2 * s * s + 2 * (2 * s * (a - k) * d)  # mask + K and V for every head
    assert padded.saved_bytes - plain.saved_bytes == 32 * per_layer
    eager = estimate(arch.inputs(seq=1024, attention=Attention.EAGER))
    eager_padded = estimate(arch.inputs(seq=1024, attention=Attention.EAGER, padded=True))
    assert eager.saved_bytes == eager_padded.saved_bytes  # the mask is only added


def test_two_kinds_of_layers_are_two_stacks_in_the_breakdown() -> None:
    raw = raw_config("Qwen__Qwen2.5-0.5B-Instruct.json") | {
        "use_sliding_window": True,
        "sliding_window": 1024,
    }
    result = estimate(parse_model_config(raw).inputs(seq=2048))
    stacks = {(i.stack, i.count) for i in result.breakdown if i.count > 1}
    assert stacks == {(StackKind.GLOBAL, 21), (StackKind.SLIDING, 3)}


def test_llama_from_config_equals_llama_typed_as_sizes() -> None:
    arch = read_model_config(config_path("meta-llama__Llama-3.1-8B.json"))
    for recompute in Recompute:
        from_config = estimate(arch.inputs(seq=2048, recompute=recompute))
        typed = estimate(
            arch.inputs(seq=2048, recompute=recompute).__class__(
                Family.LLAMA, 4096, 32, 32, 8, 14336, 128256, 2048, recompute=recompute
            )
        )
        assert from_config.saved_bytes == typed.saved_bytes
        assert from_config.peak_bytes == typed.peak_bytes


def test_qwen3_q_and_k_norms_are_counted_per_head() -> None:
    arch = read_model_config(config_path("Qwen__Qwen3-0.6B.json"))
    result = estimate(arch.inputs(seq=1000))
    norms = next(i for i in result.breakdown if i.key is Part.ATTN_QK_NORM)
    s, d = 1000, 128
    # fp32 input + fp32 rsqrt per head + bf16 normalised, for 16 query and 8 key heads
    assert norms.bytes == (4 * s * d + 4 * s + 2 * s * d) * (16 + 8)
    assert norms.count == 28


def test_gpt2_from_config_keeps_the_typed_profile() -> None:
    arch = read_model_config(config_path("openai-community__gpt2.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate) == (768, 12, 12, 3072)
    assert arch.use_cache  # the published file's
    result = estimate(arch.inputs(seq=1024, attention=Attention.EAGER))
    sizes = (Family.GPT2, 768, 12, 12, 12, 3072, 50257, 1024)
    typed = estimate(result.inputs.__class__(*sizes, attention=Attention.EAGER, use_cache=True))
    assert result.saved_bytes == typed.saved_bytes
    # use_cache on: the cache's copies of K and V come beside c_attn's output, 2·p·s·h
    # in each of the 12 layers
    off = estimate(arch.inputs(seq=1024, attention=Attention.EAGER, use_cache=False))
    assert result.saved_bytes - off.saved_bytes == 12 * 2 * 2 * 1024 * 768


def test_relu_keeps_no_tensor_of_its_own() -> None:
    raw = raw_config("openai-community__gpt2.json") | {"activation_function": "relu"}
    relu = estimate(parse_model_config(raw).inputs(seq=256))
    gelu = estimate(read_model_config(config_path("openai-community__gpt2.json")).inputs(seq=256))
    act = {r.key: r.bytes for r in relu.breakdown}.get(Part.MLP_ACTIVATION, 0)
    assert act == 0
    assert gelu.saved_bytes - relu.saved_bytes == 12 * 4 * 2 * 256 * 3072


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"hidden_size": -1}, "hidden_size"),
        ({"hidden_size": True}, "hidden_size"),
        ({"num_hidden_layers": "32"}, "num_hidden_layers"),
        ({"num_key_value_heads": 5}, "num_key_value_heads"),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ({"hidden_act": "mish"}, "hidden_act"),
        ({"layer_types": ["full_attention"]}, ""),
    ],
)
def test_bad_values_are_refused_naming_the_key(change: dict, key: str) -> None:
    base = raw_config("Qwen__Qwen2.5-0.5B-Instruct.json")
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(base | change)
    if key:
        assert info.value.key == key
        assert key in str(info.value)


def test_unknown_and_missing_model_types_name_the_supported_ones() -> None:
    for raw in ({"model_type": "rwkv"}, {"hidden_size": 4}):
        with pytest.raises(ModelConfigError) as info:
            parse_model_config(raw)
        assert "llama" in info.value.detail and "gpt2" in info.value.detail
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(["not", "an", "object"])
    assert info.value.problem is ConfigProblem.NOT_OBJECT


def test_files_that_are_not_configs(tmp_path: Path) -> None:
    cases = {
        "broken.json": ("{ not json", ConfigProblem.NOT_JSON),
        "list.json": ("[1, 2]", ConfigProblem.NOT_OBJECT),
        "deep.json": ("[" * 100_000 + "]" * 100_000, ConfigProblem.NOT_JSON),
        "huge.json": (" " * 2_000_001, ConfigProblem.TOO_LARGE),
    }
    for name, (text, problem) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ModelConfigError) as info:
            read_model_config(path)
        assert info.value.problem is problem, name
    with pytest.raises(ModelConfigError) as info:
        read_model_config(tmp_path / "missing.json")
    assert info.value.problem is ConfigProblem.UNREADABLE
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ModelConfigError):
        read_model_config(tmp_path / "bytes.json")


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    # transformers' Qwen3Config defaults: head_dim 128, hidden 4096, 32 layers, 32 heads
    arch = parse_model_config({"model_type": "qwen3"})
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4096,
        32,
        32,
        32,
        128,
    )
    mistral = parse_model_config({"model_type": "mistral"})
    assert (mistral.kv_heads, mistral.spec.sliding_window) == (8, 4096)
