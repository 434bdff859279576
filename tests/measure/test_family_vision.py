"""ViT, CLIP and SigLIP read from a config: the estimate against the bytes autograd
really saves (random-weight models, bf16, CPU), to the byte, and the exact parameter
count; every case also frozen, checkpointed, with dropout and at another image size."""

from __future__ import annotations

from typing import Any

import pytest

from tests.configs import config_path, raw_config

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.image_harness import compare_images  # noqa: E402

_VIT = {
    "model_type": "vit",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 96,
    "image_size": 32,
    "patch_size": 8,
    "num_labels": 10,
}
_TEXT = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 96,
    "vocab_size": 500,
    "max_position_embeddings": 20,
}
_VISION = {
    "hidden_size": 48,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 80,
    "image_size": 32,
    "patch_size": 8,
}
SMALL: dict[str, dict[str, Any]] = {
    "vit": _VIT,
    # a rectangular image, no q/k/v bias, the tanh GELU in Python, 7 labels from id2label
    "vit-rect": {k: v for k, v in _VIT.items() if k != "num_labels"}
    | {"hidden_size": 48, "num_hidden_layers": 3, "num_attention_heads": 3,
                        "image_size": [40, 24], "qkv_bias": False, "hidden_act": "gelu_new",
                        "id2label": {str(i): str(i) for i in range(7)}},
    "vit-model": _VIT | {"architectures": ["ViTModel"], "pooler_output_size": 40},
    "clip": {"model_type": "clip", "text_config": _TEXT, "vision_config": _VISION,
             "projection_dim": 40},
    "siglip": {"model_type": "siglip", "text_config": _TEXT | {"projection_size": 48},
               "vision_config": _VISION},
    "siglip-3-heads": {"model_type": "siglip",
                       "text_config": _TEXT | {"hidden_size": 48, "num_attention_heads": 3},
                       "vision_config": _VISION | {"num_attention_heads": 3,
                                                   "hidden_act": "gelu"}},
}  # fmt: skip
_TEXT_TOWER = ("clip", "siglip", "siglip-3-heads")

CASES = [
    (name, attention, checkpointing, padded)
    for name in sorted(SMALL)
    for attention in ("eager", "sdpa")
    for checkpointing in (False, True)
    for padded in ((False, True) if name in _TEXT_TOWER else (False,))
]


def _check(name: str, **options: Any) -> None:
    c = compare_images(SMALL[name], 12, **options)
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize(("name", "attention", "checkpointing", "padded"), CASES)
def test_estimate_equals_what_autograd_saves(
    name: str, attention: str, checkpointing: bool, padded: bool
) -> None:
    _check(name, attention=attention, checkpointing=checkpointing, padded=padded)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_dropout_a_frozen_tower_and_another_image_size(name: str, attention: str) -> None:
    _check(name, attention=attention, dropout=True)
    _check(name, attention=attention, frozen=True)
    # checkpointing hooks CLIP's / SigLIP's patch embedding: a frozen tower then builds a
    # graph (ViT's main input is pixel_values: no hook)
    _check(name, attention=attention, frozen=True, checkpointing=True)
    if name != "vit-rect":  # a rectangular position grid cannot be interpolated
        _check(name, attention=attention, image_size=(48, 40))


PUBLISHED = (
    "google__vit-base-patch16-224.json",
    "openai__clip-vit-base-patch32.json",
    "google__siglip-base-patch16-224.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    import transformers
    from transformers import AutoConfig

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    raw = raw_config(name)
    cls = {"vit": "ViTForImageClassification", "clip": "CLIPModel", "siglip": "SiglipModel"}
    with torch.device("meta"):
        model = getattr(transformers, cls[raw["model_type"]])(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
