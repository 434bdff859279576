"""``harness.compare`` for models that read images: the measured model gets
``images`` random images per sample (of ``image_size`` pixels, (width, height)) and,
with ``frozen``, its vision tower frozen as fine-tuning recipes freeze it; the estimate
gets the same ``Inputs``. Every comparison joins ``harness.RECORDED`` (the docs table)."""

from __future__ import annotations

from typing import Any

from gradacc_desktop.core.memory.activation import (
    Accounting,
    Attention,
    Device,
    Precision,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.families import parameters, parse_model_config
from tests.measure.harness import RECORDED, Comparison


def compare_images(
    config: dict[str, Any],
    seq: int,
    *,
    attention: str = "sdpa",
    checkpointing: bool = False,
    padded: bool = False,
    dropout: bool = False,
    images: int = 0,
    image_size: tuple[int, int] | None = None,
    frozen: bool = False,
) -> Comparison:
    import torch

    from gradacc_desktop.measure import (
        build_model,
        freeze_vision_tower,
        measure_saved,
        random_batch,
    )

    model = build_model(
        dict(config), attention=attention, checkpointing=checkpointing, dropout=dropout
    )
    if frozen:
        assert freeze_vision_tower(model) > 0
    batch = random_batch(model, seq, 1, images=images, image_size=image_size)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    measured = measure_saved(model, batch).saved_bytes
    arch = parse_model_config(config)
    width, height = image_size if image_size is not None else (None, None)
    result = estimate(
        arch.inputs(
            seq=seq,
            dtype=Precision.BF16,
            attention=Attention(attention),
            recompute=Recompute.FULL if checkpointing else Recompute.NONE,
            profile=Accounting.HF,
            device=Device.CPU,
            padded=padded,
            dropout=dropout,
            images=images,
            image_width=width,
            image_height=height,
            vision_frozen=frozen,
        )
    )
    comparison = Comparison(
        measured, result.saved_bytes, int(model.num_parameters()), parameters(arch)
    )
    size = "" if image_size is None else f" {image_size[0]}x{image_size[1]}"
    RECORDED.append(
        {
            "model_type": arch.model_type,
            "shape": f"h={arch.hidden} L={arch.layers} a={arch.heads} k={arch.kv_heads} "
            f"d={arch.head_dim} i={arch.intermediate} V={arch.vocab}",
            "seq": f"{seq} img={images}{size}{' frozen' if frozen else ''}",
            "attention": attention,
            "checkpointing": checkpointing,
            "padded": padded,
            "dropout": dropout,
            "head": arch.head.value,
            "use_cache": False,
            "measured": measured,
            "estimated": result.saved_bytes,
            # a frozen bare model saves nothing at all: no relative error to take
            "error": comparison.error if measured else float(result.saved_bytes != 0),
            "params_exact": comparison.params_estimated == comparison.params_measured,
        }
    )
    return comparison
