"""ViT, CLIP and SigLIP read from their published config.json files (no torch here)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    InvalidActivationInputs,
    Part,
    Recompute,
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
from gradacc_desktop.core.memory.families.vision_facts import summary
from tests.configs import breakdown_parts, config_path, raw_config

# num_parameters() of the model transformers 5.24 builds from the file; the published
# totals: ViT-B/16 86.6M, CLIP ViT-B/32 151,277,313, SigLIP base 203,156,230 counted with
# its two int64 position_ids buffers (64 + 196), 203,155,970 parameters
PUBLISHED = {
    "google__vit-base-patch16-224.json": ("vit", Head.IMAGE_CLASSIFICATION, 86_567_656),
    "openai__clip-vit-base-patch32.json": ("clip", Head.CONTRASTIVE, 151_277_313),
    "google__siglip-base-patch16-224.json": ("siglip", Head.CONTRASTIVE, 203_155_970),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_count_like_transformers(name: str) -> None:
    model_type, head, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.VISION, head)
    assert parameters(arch) == count


def test_vit_base_is_196_patches_and_a_class_token() -> None:
    arch = read_model_config(config_path("google__vit-base-patch16-224.json"))
    tower = arch.spec.vision
    assert (tower.image_size, tower.patch_size, tower.native_patches) == ((224, 224), 16, 196)
    assert tower.tokens() == 197 and arch.spec.labels == 1000
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate) == (768, 12, 12, 3072)


def test_clip_reads_both_towers_and_the_projection() -> None:
    arch = read_model_config(config_path("openai__clip-vit-base-patch32.json"))
    spec = arch.spec
    assert spec.vision.patch_size == 32 and spec.vision.tokens() == 50
    assert spec.vision.activation == spec.text.activation == "quick_gelu"
    assert (spec.text.hidden, spec.text.layers, spec.text.positions) == (512, 12, 77)
    assert spec.projection == 512 and arch.max_positions == 77 and arch.default_seq == 77


def test_siglip_fills_its_defaults() -> None:
    arch = read_model_config(config_path("google__siglip-base-patch16-224.json"))
    spec = arch.spec
    assert spec.vision.tokens() == 196 and spec.vision.pooling_head
    assert spec.text.positions == 64 and spec.text.projection == 768


def _vit(**change: Any) -> Any:
    return parse_model_config(raw_config("google__vit-base-patch16-224.json") | change)


def test_a_vit_layer_by_hand_on_cpu() -> None:
    arch = _vit()
    s, h, a, i, p = 197, 768, 12, 3072, 2
    result = estimate(arch.inputs(device=Device.CPU))
    layer = breakdown_parts(result)
    ln = p * s * h + 2 * p * s  # input, mean and rstd in the dtype on CPU
    assert layer[Part.ATTN_NORM] == layer[Part.MLP_NORM] == ln
    assert layer[Part.ATTN_QKV] == 3 * p * s * h
    assert layer[Part.ATTN_FUSED] == 4 * a * s
    assert layer[Part.MLP_ACTIVATION] == p * s * i  # exact GELU keeps its input
    outside = breakdown_parts(result, per_layer=False)
    assert outside[Part.VISION_EMBEDDINGS] == p * 3 * 224 * 224
    assert outside[Part.LM_HEAD_INPUT] == p * s * h  # the class token is a view
    assert outside[Part.LOSS] == p * 1000 + 8 + p


def test_eager_keeps_the_fp32_softmax_and_its_cast() -> None:
    arch = _vit()
    eager = breakdown_parts(estimate(arch.inputs(attention=Attention.EAGER)))
    assert eager[Part.ATTN_SOFTMAX] == (4 + 2) * 12 * 197 * 197


def test_a_larger_image_interpolates_the_positions() -> None:
    arch = _vit()
    result = estimate(arch.inputs(image_width=384, image_height=384))
    assert summary(result).tokens_per_image == 24 * 24 + 1  # type: ignore[union-attr]
    assert any("interpolated" in n for n in result.notes)
    bigger = estimate(arch.inputs(image_width=448, image_height=224))
    assert summary(bigger).tokens_per_image == 28 * 14 + 1  # type: ignore[union-attr]


def test_a_frozen_tower_keeps_only_what_the_classifier_reads() -> None:
    arch = _vit()
    for recompute in (Recompute.NONE, Recompute.FULL):
        result = estimate(arch.inputs(vision_frozen=True, recompute=recompute))
        assert {i.key for i in result.breakdown} == {Part.LM_HEAD_INPUT, Part.LOSS}
        facts = summary(result)
        assert facts is not None and facts.tower_bytes == 0


def test_clip_frozen_under_checkpointing_still_builds_the_tower_graph() -> None:
    # enable_input_require_grads hooks CLIP's patch embedding: the layers keep their inputs
    arch = read_model_config(config_path("openai__clip-vit-base-patch32.json"))
    plain = estimate(arch.inputs(vision_frozen=True))
    assert not [i for i in plain.breakdown if i.stack is StackKind.VISION]
    ckpt = estimate(arch.inputs(vision_frozen=True, recompute=Recompute.FULL))
    assert [i.bytes for i in ckpt.breakdown if i.stack is StackKind.VISION] == [2 * 50 * 768]


def test_vit_model_counts_its_pooler_and_no_loss() -> None:
    arch = _vit(architectures=["ViTModel"])
    assert arch.head is Head.IMAGE_FEATURES and arch.task.value == "lm"
    assert parameters(arch) == 86_567_656 - (768 * 1000 + 1000) + 768 * 768 + 768
    parts = breakdown_parts(estimate(arch.inputs()), per_layer=False)
    assert Part.LOSS not in parts


def test_the_tower_share_of_clip() -> None:
    arch = read_model_config(config_path("openai__clip-vit-base-patch32.json"))
    result = estimate(arch.inputs(seq=77))
    facts = summary(result)
    assert facts is not None
    assert facts.tower_parameters == 87_456_000 and facts.tokens_per_image == 50
    vision = sum(i.total for i in result.breakdown if i.stack is StackKind.VISION)
    assert vision < facts.tower_bytes < result.saved_bytes


@pytest.mark.parametrize(
    ("base", "change", "key"),
    [
        ("google__vit-base-patch16-224.json", {"num_labels": 1}, "num_labels"),
        ("google__vit-base-patch16-224.json", {"problem_type": "regression"}, "problem_type"),
        ("google__vit-base-patch16-224.json", {"hidden_act": "mish"}, "hidden_act"),
        ("google__vit-base-patch16-224.json", {"patch_size": [16, 8]}, "patch_size"),
        ("google__vit-base-patch16-224.json", {"num_attention_heads": 7}, "num_attention_heads"),
        ("google__siglip-base-patch16-224.json", {"vision_config": {"vision_use_head": False}},
         "vision_config.vision_use_head"),
        ("google__siglip-base-patch16-224.json", {"text_config": {"projection_size": 5}},
         "text_config.projection_size"),
        ("openai__clip-vit-base-patch32.json", {"vision_config": [1]}, "vision_config"),
    ],
)  # fmt: skip
def test_what_is_not_modelled_is_refused_naming_the_key(
    base: str, change: dict[str, Any], key: str
) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(base) | change)
    assert info.value.key == key


def test_more_than_one_image_or_a_tiny_one_is_refused() -> None:
    arch = _vit()
    with pytest.raises(InvalidActivationInputs):
        estimate(arch.inputs(images=2))
    with pytest.raises(InvalidActivationInputs):
        estimate(arch.inputs(image_width=8, image_height=224))


def test_images_on_a_text_model_are_refused() -> None:
    llama = read_model_config(config_path("meta-llama__Llama-3.1-8B.json"))
    with pytest.raises(InvalidActivationInputs):
        estimate(llama.inputs(seq=64, images=1))
