"""The estimator's inputs from what its fields and options hold, without Qt: the model
choices, what a model from a config.json puts in the fields and options, which image
fields it reads, the images the measuring command takes, the core's ``Inputs``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from gradacc_desktop.core.memory import (
    Accounting,
    ConfigPreset,
    Family,
    Inputs,
    Preset,
    PresetError,
    load_config_presets,
    load_presets,
)
from gradacc_desktop.core.memory.families.vision_facts import DEFAULT_IMAGES, default_image_size
from gradacc_desktop.core.memory.families.vision_facts import resizable as image_resizable
from gradacc_desktop.viewmodels.activation.fields import SHAPE_FIELDS, ActivationField, Options
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel

_log = logging.getLogger(__name__)


def model_choices(
    presets: tuple[Preset, ...] | None, config_presets: tuple[ConfigPreset, ...] | None
) -> tuple[tuple[Preset, ...], tuple[ConfigPreset, ...]]:
    """The sized presets and the config presets offered (the bundled ones unless
    given); a config preset replaces a same-named sized preset."""
    if presets is None:
        try:
            presets = load_presets()
        except PresetError as exc:  # the fields start from GPT-2 small instead
            _log.warning("presets not loaded: %s", exc)
            presets = ()
    if config_presets is None:
        try:
            config_presets = load_config_presets()
        except PresetError as exc:  # the sized presets and files still work
            _log.warning("model configs not loaded: %s", exc)
            config_presets = ()
    shadowed = {c.name.lower() for c in config_presets}
    # a published config.json is more exact than sizes: it replaces a same-named preset
    return tuple(p for p in presets if p.name.lower() not in shadowed), config_presets


def model_setup(
    model: LoadedModel, options: Options
) -> tuple[Options, dict[ActivationField, Decimal]]:
    """The options and field values a model from a config.json sets: its sizes, the
    sequence at its context length (at most 4 096), one image at its processor's size."""
    arch = model.arch
    values: dict[ActivationField, Decimal] = {}
    # the file's use_cache, as transformers reads it
    options = replace(options, family=arch.family, use_cache=arch.use_cache)
    if not arch.family.typed_sizes:
        # what only GPT-2 and Llama model: the paper profile, tensor parallelism
        options = replace(options, profile=Accounting.HF, sequence_parallel=False)
        values[ActivationField.TENSOR_PARALLEL] = Decimal(1)
    for field in SHAPE_FIELDS:
        values[field] = Decimal(getattr(arch, field.value))
    values[ActivationField.SEQ] = Decimal(arch.default_seq)
    values[ActivationField.TARGET_SEQ] = Decimal(arch.default_target_seq)
    size = default_image_size(arch)
    if size is not None:
        # one image per sample, at the size the model's processor gives it
        values[ActivationField.IMAGES] = Decimal(DEFAULT_IMAGES)
        values[ActivationField.IMAGE_WIDTH] = Decimal(size[0])
        values[ActivationField.IMAGE_HEIGHT] = Decimal(size[1])
    return options, values


def preset_values(preset: Preset) -> dict[ActivationField, Decimal]:
    """The sizes and the sequence length a sized preset fills in."""
    return {
        field: Decimal(
            preset.default_seq if field is ActivationField.SEQ else getattr(preset, field.value)
        )
        for field in (*SHAPE_FIELDS, ActivationField.SEQ)
    }


class _HasName(Protocol):
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=_HasName)


def find_named(items: tuple[_Named, ...], name: str | None) -> _Named | None:
    """The item (a preset, a config preset) called ``name``, whatever its case."""
    if name is None:
        return None
    for item in items:
        if item.name.lower() == name.lower():
            return item
    return None


def has_tower(model: LoadedModel | None) -> bool:
    """Whether the loaded model has a vision tower."""
    return model is not None and default_image_size(model.arch) is not None


def image_fields(model: LoadedModel | None) -> tuple[ActivationField, ...]:
    """The image fields the loaded model reads: images per sample (a language model
    with a vision tower), the image size (where it changes the estimate)."""
    if model is None or default_image_size(model.arch) is None:
        return ()
    arch = model.arch
    fields: tuple[ActivationField, ...] = ()
    if arch.family is Family.VLM:
        fields += (ActivationField.IMAGES,)
    if image_resizable(arch):
        fields += (ActivationField.IMAGE_WIDTH, ActivationField.IMAGE_HEIGHT)
    return fields


def measured_images(
    model: LoadedModel | None, value: Callable[[ActivationField], int | None]
) -> tuple[int | None, tuple[int, int] | None]:
    """(images, image size) the measuring command takes for this model (None, None
    without a vision tower)."""
    fields = image_fields(model)
    if not fields and not has_tower(model):
        return None, None
    images = value(ActivationField.IMAGES) if ActivationField.IMAGES in fields else 0
    width = value(ActivationField.IMAGE_WIDTH)
    height = value(ActivationField.IMAGE_HEIGHT)
    if ActivationField.IMAGE_WIDTH not in fields or width is None or height is None:
        return images or 0, None
    return images or 0, (width, height)


def estimator_inputs(
    model: LoadedModel | None, o: Options, values: Mapping[ActivationField, int]
) -> Inputs:
    """The core's inputs: the loaded model's with the step's options, else the typed
    sizes'."""
    if model is not None:
        arch = model.arch
        images: dict[str, Any] = {}
        shown = image_fields(model)
        if shown:
            images["vision_frozen"] = o.vision_frozen
        if ActivationField.IMAGES in shown:
            images["images"] = values[ActivationField.IMAGES]
        if ActivationField.IMAGE_WIDTH in shown:
            images["image_width"] = values[ActivationField.IMAGE_WIDTH]
            images["image_height"] = values[ActivationField.IMAGE_HEIGHT]
        return arch.inputs(
            **images,
            seq=values[ActivationField.SEQ],
            target_seq=values.get(ActivationField.TARGET_SEQ) if arch.encoder_decoder else None,
            dtype=o.dtype,
            dropout=o.dropout,
            attention=o.attention,
            recompute=o.recompute,
            tensor_parallel=values[ActivationField.TENSOR_PARALLEL],
            sequence_parallel=o.sequence_parallel,
            profile=o.profile,
            padded=o.padded,
            use_cache=o.use_cache,
            fused_loss=o.fused_loss,
        )
    return Inputs(
        family=o.family,
        hidden=values[ActivationField.HIDDEN],
        layers=values[ActivationField.LAYERS],
        heads=values[ActivationField.HEADS],
        kv_heads=values[ActivationField.KV_HEADS],
        intermediate=values[ActivationField.INTERMEDIATE],
        vocab=values[ActivationField.VOCAB],
        seq=values[ActivationField.SEQ],
        dtype=o.dtype,
        dropout=o.dropout,
        attention=o.attention,
        recompute=o.recompute,
        tensor_parallel=values[ActivationField.TENSOR_PARALLEL],
        sequence_parallel=o.sequence_parallel,
        profile=o.profile,
        padded=o.padded,
        fused_loss=o.fused_loss,
        # typed sizes: off unless asked (the core's default for them)
        use_cache=True if o.use_cache else None,
    )
