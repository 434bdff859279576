"""The random batch a measurement runs: token ids and labels shaped for the model's head,
a task head's labels, Whisper's log-mel features, and images (``pixel_values`` and what
each vision model needs with them); the vision tower ``--freeze-vision`` freezes.
``torch`` is imported only inside the functions."""

from __future__ import annotations

import math
from typing import Any

from gradacc_desktop.core.memory.families.heads import DEFAULT_CHOICES

from .errors import MeasureError
from .heads import (
    CAUSAL_LM,
    IMAGE_HEADS,
    MASKED_LM,
    MULTIPLE_CHOICE,
    QUESTION_ANSWERING,
    SEQ2SEQ_LM,
    SEQUENCE_CLASSIFICATION,
    SPEECH_SEQ2SEQ,
    TASK_BATCH_HEADS,
    TOKEN_CLASSIFICATION,
    head_of_class,
)


def _model_head(model: Any) -> str:
    image = IMAGE_HEADS.get(type(model).__name__)
    if image is not None:
        return image
    if getattr(model.config, "is_encoder_decoder", False):
        return SEQ2SEQ_LM
    return head_of_class(type(model).__name__) or CAUSAL_LM


def make_batch(
    model: Any,
    head: str,
    seq: int,
    micro_batch: int,
    seed: int,
    target_seq: int | None,
    images: int = 0,
    image_size: tuple[int, int] | None = None,
) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if type(model).__name__ in IMAGE_HEADS:
        return _image_batch(model, seq, micro_batch, gen, images, image_size)
    vocab = int(model.config.vocab_size)
    if type(model).__name__ in SPEECH_SEQ2SEQ.values():
        # 30 s of audio: num_mel_bins x 2·max_source_positions log-mel frames, the only
        # length transformers takes (``seq`` is not used); ``target_seq`` label tokens
        cfg = model.config
        shape = (micro_batch, cfg.num_mel_bins, 2 * cfg.max_source_positions)
        features = torch.randn(shape, generator=gen).to(model.dtype)
        labels = torch.randint(0, vocab, (micro_batch, target_seq or seq), generator=gen)
        return {"input_features": features, "labels": labels}
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    if head == SEQ2SEQ_LM:
        labels = torch.randint(0, vocab, (micro_batch, target_seq or seq), generator=gen)
        return {"input_ids": ids, "labels": labels}
    batch = {"input_ids": ids, "labels": ids.clone()}
    if head in TASK_BATCH_HEADS:
        return _task_batch(model, head, ids, gen)
    if head == MASKED_LM and getattr(model.config, "type_vocab_size", None):
        batch["token_type_ids"] = torch.zeros_like(ids)
    return batch


def _task_batch(model: Any, head: str, ids: Any, gen: Any) -> dict[str, Any]:
    """A fine-tuning head's inputs: class labels (one per sample or per token), answer
    spans, or ``DEFAULT_CHOICES`` candidate sequences per sample; the bare model none."""
    import torch

    b, s = ids.shape
    labels = int(getattr(model.config, "num_labels", 2) or 2)
    if head == MULTIPLE_CHOICE:
        ids = ids.unsqueeze(1).repeat(1, DEFAULT_CHOICES, 1)
    batch: dict[str, Any] = {"input_ids": ids}
    if head == SEQUENCE_CLASSIFICATION:
        batch["labels"] = torch.randint(0, labels, (b,), generator=gen)
    elif head == TOKEN_CLASSIFICATION:
        batch["labels"] = torch.randint(0, labels, (b, s), generator=gen)
    elif head == QUESTION_ANSWERING:
        batch["start_positions"] = torch.randint(0, s, (b,), generator=gen)
        batch["end_positions"] = torch.randint(0, s, (b,), generator=gen)
    elif head == MULTIPLE_CHOICE:
        batch["labels"] = torch.randint(0, DEFAULT_CHOICES, (b,), generator=gen)
    if getattr(model.config, "type_vocab_size", None):
        batch["token_type_ids"] = torch.zeros_like(ids)
    return batch


def random_batch(
    model: Any,
    seq: int,
    micro_batch: int = 1,
    seed: int = 0,
    *,
    target_seq: int | None = None,
    images: int = 0,
    image_size: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Random token ids for ``model(**batch)`` with labels, shaped for the model's head.

    Causal LM: ``input_ids`` and ``labels`` (the same ids). Masked LM: the same, every
    position labelled, plus zero ``token_type_ids`` when the config has
    ``type_vocab_size``. Seq2seq LM: ``input_ids`` of ``seq`` tokens and ``labels`` of
    ``target_seq`` tokens (default ``seq``); Whisper: ``input_features`` of 30 s of audio
    (``num_mel_bins`` x 2·``max_source_positions`` log-mel frames, whatever ``seq``).

    Images (``_image_batch``): an image encoder gets one random image per sample
    (``pixel_values``; ViT a class label, CLIP/SigLIP a caption of ``seq`` tokens and
    ``return_loss``); a language model with a vision tower gets ``images`` images per
    sample, their placeholder tokens inside the ``seq`` tokens. ``image_size`` is
    (width, height) in pixels (None: the model's own size; Qwen2-VL 448×448).
    """
    return make_batch(
        model, _model_head(model), seq, micro_batch, seed, target_seq, images, image_size
    )


#: Qwen2-VL has no native size: the size its processor keeps (448² is 16×16 tokens)
QWEN2_VL_IMAGE = 448


def vision_tower(model: Any) -> Any:
    """The image tower of ``model`` (what ``--freeze-vision`` freezes), or None."""
    if type(model).__name__ == "ViTModel":
        return model
    for path in ("vit", "vision_model", "model.vision_tower", "model.visual"):
        module = model
        for name in path.split("."):
            module = getattr(module, name, None)
        if module is not None:
            return module
    return None


def freeze_vision_tower(model: Any) -> int:
    """Freeze the image tower (``requires_grad_(False)``) as fine-tuning recipes do: the
    projector (Qwen2-VL's ``visual.merger``) keeps training. Returns the parameters
    frozen (0: the model has no tower)."""
    tower = vision_tower(model)
    if tower is None:
        return 0
    tower.requires_grad_(False)
    merger = getattr(tower, "merger", None)
    if merger is not None:
        merger.requires_grad_(True)
    return sum(p.numel() for p in tower.parameters() if not p.requires_grad)


def _native_image(model: Any) -> tuple[int, int]:
    """(width, height) of an image at the model's own size."""
    config = getattr(model.config, "vision_config", model.config)
    size = getattr(config, "image_size", None)
    if size is None:  # Qwen2-VL / Qwen2.5-VL: dynamic resolution
        return QWEN2_VL_IMAGE, QWEN2_VL_IMAGE
    if isinstance(size, list | tuple):
        return int(size[1]), int(size[0])
    return int(size), int(size)


def _smart_resize(width: int, height: int, factor: int) -> tuple[int, int]:
    """Qwen2-VL's image processor: both sides a multiple of ``factor`` (patch × merge),
    between 56×56 and 28×28×1280 pixels, the aspect ratio kept (``smart_resize``)."""
    min_pixels, max_pixels = 56 * 56, 28 * 28 * 1280
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return w_bar, h_bar


def _image_batch(
    model: Any,
    seq: int,
    micro_batch: int,
    gen: Any,
    images: int,
    image_size: tuple[int, int] | None,
) -> dict[str, Any]:
    import torch

    config = model.config
    name = type(model).__name__
    width, height = image_size or _native_image(model)
    if name in ("ViTForImageClassification", "ViTModel", "CLIPModel", "SiglipModel"):
        vision = getattr(config, "vision_config", config)
        pixels = torch.randn(micro_batch, vision.num_channels, height, width, generator=gen)
        batch: dict[str, Any] = {"pixel_values": pixels}
        if (width, height) != _native_image(model):
            batch["interpolate_pos_encoding"] = True
        if name == "ViTForImageClassification":
            batch["labels"] = torch.randint(0, config.num_labels, (micro_batch,), generator=gen)
        elif name != "ViTModel":
            vocab = int(config.text_config.vocab_size)
            batch["input_ids"] = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
            batch["return_loss"] = True
        return batch
    text = config.get_text_config()
    vocab = int(text.vocab_size)
    image_token = int(config.image_token_id)
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    ids[ids == image_token] = 0
    vision = config.vision_config
    batch = {}
    if name.startswith("Qwen2"):
        merge = int(vision.spatial_merge_size)
        patch = int(vision.patch_size)
        temporal = int(vision.temporal_patch_size)
        w, h = _smart_resize(width, height, patch * merge)
        grid = (1, h // patch, w // patch)
        per_image = grid[1] * grid[2] // merge**2
        ids[ids == int(config.vision_start_token_id)] = 0
        ids[ids == int(config.video_token_id)] = 0
    elif name.startswith("Gemma3"):
        per_image = int(config.mm_tokens_per_image)
    else:  # LLaVA: the patches, and the class token with the "full" strategy
        per_image = (int(vision.image_size) // int(vision.patch_size)) ** 2
        if config.vision_feature_select_strategy == "full":
            per_image += 1
    # Qwen2-VL wraps each image in <|vision_start|> ... <|vision_end|>
    span = images * (per_image + (2 if name.startswith("Qwen2") else 0))
    if images and span + 1 > seq:
        raise MeasureError(
            f"--seq {seq} cannot hold {images} image(s) of {per_image} tokens and a text token"
        )
    labels = ids.clone()
    if images:
        if name.startswith("Qwen2"):
            # <|vision_start|> <|image_pad|>×n <|vision_end|>, one block per image
            start = 0
            for _ in range(images):
                ids[:, start] = int(config.vision_start_token_id)
                ids[:, start + 1 : start + 1 + per_image] = image_token
                start += per_image + 2
            count = micro_batch * images
            batch["pixel_values"] = torch.randn(
                count * grid[0] * grid[1] * grid[2],
                int(vision.in_channels) * temporal * patch * patch,
                generator=gen,
            )
            batch["image_grid_thw"] = torch.tensor([grid] * count)
        else:
            ids[:, 1 : 1 + span] = image_token
            channels = int(vision.num_channels)
            size = int(vision.image_size)
            batch["pixel_values"] = torch.randn(
                micro_batch * images, channels, size, size, generator=gen
            )
        labels[ids == image_token] = -100
    batch["input_ids"] = ids
    batch["labels"] = labels
    if name.startswith("Qwen2"):
        batch["mm_token_type_ids"] = (ids == image_token).int()
    elif name.startswith("Gemma3"):
        batch["token_type_ids"] = (ids == image_token).long()
    return batch


def to_device(device: str, batch: dict[str, Any]) -> dict[str, Any]:
    if device == "cpu":
        return batch
    return {key: value.to(device) for key, value in batch.items()}
