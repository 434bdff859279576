"""LLaVA, Qwen2-VL, Qwen2.5-VL and Gemma 3 with their vision towers, read from the
published config.json files (no torch here)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Family,
    InvalidActivationInputs,
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
from gradacc_desktop.core.memory.families import gemma as gemma_family
from gradacc_desktop.core.memory.families import llama as llama_family
from gradacc_desktop.core.memory.families.vision_facts import summary
from gradacc_desktop.core.memory.families.vlm_qwen import smart_resize
from tests.configs import config_path, raw_config

# num_parameters() of the whole ...ForConditionalGeneration transformers 5.24 builds: the
# published totals (the Hub's safetensors metadata)
PUBLISHED = {
    "llava-hf__llava-1.5-7b-hf.json": ("llava", 7_063_427_072),
    "Qwen__Qwen2-VL-2B-Instruct.json": ("qwen2_vl", 2_208_985_600),
    "Qwen__Qwen2.5-VL-3B-Instruct.json": ("qwen2_5_vl", 3_754_622_976),
    "google__gemma-3-4b-it.json": ("gemma3", 4_300_079_472),
    "google__gemma-3-27b-it.json": ("gemma3", 27_432_406_640),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.VLM, Head.CAUSAL_LM)
    assert parameters(arch) == count


def test_gemma3_reuses_the_gemma_text_model() -> None:
    arch = read_model_config(config_path("google__gemma-3-4b-it.json"))
    text = arch.spec.text
    assert text.model_type == "gemma3_text" and text.family is Family.GEMMA
    # the text model alone is Gemma3ForCausalLM's count (what was estimated before)
    assert gemma_family.parameters(text) == 3_880_263_168
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2560,
        34,
        8,
        4,
        256,
    )
    tower = arch.spec.tower
    assert (tower.image_size, tower.patch_size, tower.tokens()) == ((896, 896), 14, 4096)
    assert not tower.pooling_head and arch.spec.mm_tokens == 256
    big = read_model_config(config_path("google__gemma-3-27b-it.json"))
    assert gemma_family.parameters(big.spec.text) == 27_009_346_304


def test_llava_reuses_the_llama_text_model_and_576_tokens_an_image() -> None:
    arch = read_model_config(config_path("llava-hf__llava-1.5-7b-hf.json"))
    text = arch.spec.text
    assert text.model_type == "llama" and text.vocab == 32064
    assert not text.spec.tie_embeddings
    assert arch.spec.feature_layers == (23,) and not arch.spec.full_strategy
    assert arch.spec.tokens_per_image(None, None) == 576
    assert llama_family.parameters(text) + 303_507_456 + 20_979_712 == parameters(arch)


def test_qwen2_vl_flat_file_and_dynamic_resolution() -> None:
    arch = read_model_config(config_path("Qwen__Qwen2-VL-2B-Instruct.json"))
    assert arch.spec.text.model_type == "qwen2" and arch.spec.text.spec.tie_embeddings
    tower = arch.spec.qwen
    assert (tower.hidden, tower.layers, tower.intermediate, tower.out_hidden) == (
        1280,
        32,
        5120,
        1536,
    )
    # 448² (no size given): 32×32 patches, 256 tokens; 1024×768: 74×54 patches, 999 tokens
    assert arch.spec.tokens_per_image(None, None) == 256
    assert tower.grid(1024, 768) == (54, 74)
    assert arch.spec.tokens_per_image(1024, 768) == 999
    assert smart_resize(50, 20, 28) == (112, 56)  # below min_pixels: scaled up


def test_qwen2_5_vl_windows() -> None:
    arch = read_model_config(config_path("Qwen__Qwen2.5-VL-3B-Instruct.json"))
    tower = arch.spec.qwen
    assert tower.full_blocks == (7, 15, 23, 31) and tower.window == 112
    # 448²: 16×16 merged tokens in windows of 4×4 merged tokens = 64 patches
    assert tower.windows(32, 32) == [64] * 16
    # 10×6 merged tokens: windows of 4, 4 and 2 rows by 4 and 2 columns
    assert sorted(tower.windows(20, 12)) == sorted([64, 32, 64, 32, 32, 16])
    result = estimate(arch.inputs(seq=1024, images=1, attention=Attention.EAGER))
    kinds = {i.stack for i in result.breakdown if i.stack is not None}
    assert {StackKind.VISION, StackKind.VISION_WINDOW} <= kinds


def test_the_sequence_counts_the_image_tokens() -> None:
    arch = read_model_config(config_path("llava-hf__llava-1.5-7b-hf.json"))
    one = estimate(arch.inputs(seq=1024, images=1))
    none = estimate(arch.inputs(seq=1024))
    text_stack = [i for i in one.breakdown if i.stack is StackKind.LAYERS]
    assert text_stack == [i for i in none.breakdown if i.stack is StackKind.LAYERS]
    facts = summary(one)
    assert facts is not None
    assert facts.images * facts.tokens_per_image == 576
    assert facts.tower_parameters == 303_507_456 and 0 < facts.share < 1
    with pytest.raises(InvalidActivationInputs):
        estimate(arch.inputs(seq=576, images=1))


def test_a_frozen_tower_keeps_only_the_projector_input() -> None:
    arch = read_model_config(config_path("llava-hf__llava-1.5-7b-hf.json"))
    frozen = estimate(arch.inputs(seq=2048, images=2, vision_frozen=True))
    assert not [i for i in frozen.breakdown if i.stack is StackKind.VISION]
    projector = {i.key: i.bytes for i in frozen.breakdown}[Part.VISION_PROJECTOR]
    # the cropped features (a copy: 2 images), GELU input, linear_2 input, the mask
    assert projector == 2 * (2 * 576 * 1024 + 2 * 2 * 576 * 4096) + 2048
    trained = estimate(arch.inputs(seq=2048, images=2))
    assert frozen.saved_bytes < trained.saved_bytes


def test_gemma3_always_has_an_explicit_mask() -> None:
    arch = read_model_config(config_path("google__gemma-3-4b-it.json"))
    result = estimate(arch.inputs(seq=2048, images=1))
    masks = [i for i in result.breakdown if i.key is Part.ATTN_MASK]
    assert {i.stack for i in masks} == {StackKind.SLIDING, StackKind.GLOBAL}
    assert all(i.bytes == 2 * 2048 * 2048 for i in masks)


def test_checkpointing_keeps_the_tower_layer_inputs() -> None:
    arch = read_model_config(config_path("google__gemma-3-4b-it.json"))
    for frozen in (False, True):
        result = estimate(
            arch.inputs(seq=1024, images=2, recompute=Recompute.FULL, vision_frozen=frozen)
        )
        vision = [i for i in result.breakdown if i.stack is StackKind.VISION]
        assert [(i.key, i.bytes, i.count) for i in vision] == [
            (Part.LAYER_CHECKPOINT, 2 * 2 * 4096 * 1152, 27)
        ]


def test_defaults_fill_absent_keys() -> None:
    gemma3 = parse_model_config({"model_type": "gemma3"})
    assert gemma3.spec.text.vocab == 262208 and gemma3.spec.tower.image_size == (224, 224)
    # SigLIP's default 14×14 patches cannot be pooled into 16×16 tokens: no image runs
    estimate(gemma3.inputs(seq=512))
    with pytest.raises(InvalidActivationInputs):
        estimate(gemma3.inputs(seq=512, images=1))
    llava = parse_model_config({"model_type": "llava"})
    assert llava.spec.tower.image_size == (336, 336) and llava.spec.tower.layers == 24
    qwen = parse_model_config({"model_type": "qwen2_vl", "vision_config": {"hidden_size": 8192}})
    assert qwen.hidden == 8192 and qwen.kv_heads == 8


@pytest.mark.parametrize(
    ("base", "change", "key"),
    [
        ("google__gemma-3-4b-it.json", {"text_config": [1, 2]}, "text_config"),
        ("google__gemma-3-4b-it.json", {"vision_config": {"model_type": "clip_vision_model"}},
         "vision_config.model_type"),
        ("llava-hf__llava-1.5-7b-hf.json", {"vision_feature_layer": 40}, "vision_feature_layer"),
        ("llava-hf__llava-1.5-7b-hf.json", {"vision_feature_select_strategy": "cls"},
         "vision_feature_select_strategy"),
        ("llava-hf__llava-1.5-7b-hf.json", {"text_config": {"model_type": "gpt2"}},
         "text_config.model_type"),
        ("Qwen__Qwen2-VL-2B-Instruct.json", {"vision_config": {"hidden_size": 1024}},
         "vision_config.hidden_size"),
        ("Qwen__Qwen2.5-VL-3B-Instruct.json", {"vision_config": {"hidden_act": "mish"}},
         "vision_config.hidden_act"),
    ],
)  # fmt: skip
def test_bad_values_are_refused_naming_the_key(base: str, change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(base) | change)
    assert info.value.key == key


def test_a_bad_text_config_value_names_its_nested_key() -> None:
    raw = raw_config("google__gemma-3-4b-it.json")
    raw["text_config"] = raw["text_config"] | {"num_hidden_layers": -2}
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw)
    assert info.value.key == "text_config.num_hidden_layers"
    assert info.value.problem is ConfigProblem.BAD_VALUE
