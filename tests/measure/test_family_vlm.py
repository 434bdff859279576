"""LLaVA, Qwen2-VL, Qwen2.5-VL and Gemma 3 with their vision towers: the estimate against
the bytes autograd really saves (random-weight models, bf16, CPU), to the byte, and the
exact parameter count; with images and without, frozen towers, checkpointing, padding
and dropout."""

from __future__ import annotations

from typing import Any

import pytest

from tests.configs import config_path, raw_config

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.image_harness import compare_images  # noqa: E402

_GEMMA_TEXT = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 32,
    "intermediate_size": 96,
    "vocab_size": 400,
    "sliding_window": 512,
    "sliding_window_pattern": 2,
}
_SIGLIP = {
    "model_type": "siglip_vision_model",
    "hidden_size": 48,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 80,
    "image_size": 32,
    "patch_size": 4,
    "vision_use_head": False,
}
_LLAMA = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 96,
    "vocab_size": 400,
}
_CLIP = {
    "model_type": "clip_vision_model",
    "hidden_size": 48,
    "num_hidden_layers": 3,
    "num_attention_heads": 4,
    "intermediate_size": 80,
    "image_size": 16,
    "patch_size": 4,
}
_QWEN_TEXT = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 96,
    "vocab_size": 400,
}
_MROPE = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}
_QWEN_MROPE = _QWEN_TEXT | {"rope_parameters": _MROPE}
_QWEN_IDS = {
    "image_token_id": 300,
    "video_token_id": 301,
    "vision_start_token_id": 302,
    "vision_end_token_id": 303,
}

# name -> (config, sequence, image size (width, height) or None for the tower's own)
SMALL: dict[str, tuple[dict[str, Any], int, tuple[int, int] | None]] = {
    # Gemma 3: 8×8 patches pooled 2×2 into 16 tokens an image; sliding and full layers
    "gemma3": ({"model_type": "gemma3", "text_config": _GEMMA_TEXT, "vision_config": _SIGLIP,
                "mm_tokens_per_image": 16, "image_token_index": 300,
                "boi_token_index": 301, "eoi_token_index": 302}, 48, None),
    # LLaVA: 16 patch tokens an image (the class token cropped), hidden state -2
    "llava": ({"model_type": "llava", "text_config": _LLAMA, "vision_config": _CLIP,
               "image_token_index": 300}, 48, None),
    # the last layer's output with the class token, a Mistral language model
    "llava-full-mistral": ({"model_type": "llava", "vision_config": _CLIP,
                            "text_config": _LLAMA | {"model_type": "mistral",
                                                     "sliding_window": None},
                            "image_token_index": 300, "vision_feature_layer": -1,
                            "vision_feature_select_strategy": "full"}, 48, None),
    # two hidden states concatenated
    "llava-two-layers": ({"model_type": "llava", "text_config": _LLAMA, "vision_config": _CLIP,
                          "image_token_index": 300, "vision_feature_layer": [-3, -1]}, 48,
                         None),
    # 56×84 pixels: 4×6 patches, 6 tokens
    "qwen2_vl": ({"model_type": "qwen2_vl", "text_config": _QWEN_MROPE,
                  "vision_config": {"depth": 2, "embed_dim": 32, "num_heads": 4,
                                    "hidden_size": 64, "mlp_ratio": 2}, **_QWEN_IDS},
                 60, (56, 84)),
    # a flat file (the text keys at the top), tied embeddings
    "qwen2_vl-flat": ({"model_type": "qwen2_vl", **_QWEN_TEXT, "tie_word_embeddings": True,
                       "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
                       "vision_config": {"depth": 2, "embed_dim": 32, "num_heads": 4,
                                         "hidden_size": 64, "mlp_ratio": 2}, **_QWEN_IDS},
                      60, (56, 84)),
    # windows of 56 pixels (2×2 merged tokens), block 1 attends to the whole image
    "qwen2_5_vl": ({"model_type": "qwen2_5_vl", "text_config": _QWEN_MROPE,
                    "vision_config": {"depth": 3, "hidden_size": 32, "num_heads": 4,
                                      "out_hidden_size": 64, "intermediate_size": 48,
                                      "fullatt_block_indexes": [1], "window_size": 56},
                    **_QWEN_IDS}, 60, (84, 112)),
}  # fmt: skip

CASES = [
    (name, attention, checkpointing)
    for name in sorted(SMALL)
    for attention in ("eager", "sdpa")
    for checkpointing in (False, True)
]


def _check(name: str, **options: Any) -> None:
    config, seq, size = SMALL[name]
    options.setdefault("image_size", size)
    options.setdefault("images", 1)
    c = compare_images(config, options.pop("seq", seq), **options)
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize(("name", "attention", "checkpointing"), CASES)
def test_one_image_trained_and_frozen(name: str, attention: str, checkpointing: bool) -> None:
    _check(name, attention=attention, checkpointing=checkpointing)
    # a frozen tower keeps nothing; under checkpointing its hooked patch embedding makes
    # it build a graph again (the layers keep their inputs)
    _check(name, attention=attention, checkpointing=checkpointing, frozen=True)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_no_image_two_images_padding_and_dropout(name: str) -> None:
    _check(name, images=0, image_size=None)
    _check(name, attention="eager", images=2, seq=90)
    _check(name, padded=True)
    _check(name, dropout=True)


@pytest.mark.parametrize("name", ["qwen2_vl", "qwen2_5_vl"])
def test_qwen_images_of_other_sizes(name: str) -> None:
    # 112×140: 8×10 patches (windows of 4 and 2 columns); 60×90 resized to 56×84
    _check(name, attention="eager", image_size=(112, 140), seq=90)
    _check(name, image_size=(60, 90))


PUBLISHED = (
    "llava-hf__llava-1.5-7b-hf.json",
    "Qwen__Qwen2-VL-2B-Instruct.json",
    "Qwen__Qwen2.5-VL-3B-Instruct.json",
    "google__gemma-3-4b-it.json",
    "google__gemma-3-27b-it.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    import transformers
    from transformers import AutoConfig

    from gradacc_desktop.core.memory.families import parameters, read_model_config
    from gradacc_desktop.measure import IMAGE_MODELS

    raw = raw_config(name)
    cls = getattr(transformers, IMAGE_MODELS[raw["model_type"]][0])
    with torch.device("meta"):
        model = cls(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
