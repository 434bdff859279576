"""The estimator's last setup, as plain strings in the settings store and back.

A stored setup may have been edited or damaged: ``read_setup`` keeps only what is
valid (a known choice, a whole number in its field's range) and leaves the rest
as it is now.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeVar

from gradacc_desktop.core.limits import check
from gradacc_desktop.core.memory import (
    Accounting,
    Attention,
    ConfigPreset,
    Family,
    Precision,
    Preset,
    Recompute,
)
from gradacc_desktop.core.memory.families import ModelConfigError, parse_model_config_text
from gradacc_desktop.viewmodels.activation.fields import (
    FIELD_LIMITS,
    FILE_KEY,
    ActivationField,
    Options,
)
from gradacc_desktop.viewmodels.activation.inputs import find_named
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel

_E = TypeVar("_E", bound=enum.Enum)


def setup_snapshot(
    preset: Preset | None,
    values: Mapping[ActivationField, int | None],
    options: Options,
    model: LoadedModel | None = None,
) -> dict[str, str]:
    """The setup as plain strings ("" for no preset; fields without a value left out);
    a model from a config.json stands for the preset (an opened file with its text)."""
    saved = {"preset": preset.name if preset is not None else ""}
    if model is not None:
        saved["preset"] = model.key
        if model.key == FILE_KEY:
            saved["model_config"] = model.text
            saved["model_file"] = model.file_name
            saved["model_path"] = model.source
    saved.update({f.value: str(v) for f, v in values.items() if v is not None})
    for key, member in (
        ("family", options.family),
        ("dtype", options.dtype),
        ("attention", options.attention),
        ("recompute", options.recompute),
        ("profile", options.profile),
    ):
        saved[key] = member.value
    saved["sequence_parallel"] = "true" if options.sequence_parallel else "false"
    saved["dropout"] = "true" if options.dropout else "false"
    saved["padded"] = "true" if options.padded else "false"
    saved["use_cache"] = "true" if options.use_cache else "false"
    saved["vision_frozen"] = "true" if options.vision_frozen else "false"
    saved["fused_loss"] = "true" if options.fused_loss else "false"
    return saved


@dataclass(frozen=True)
class RememberedSetup:
    #: the stored preset name; "" means custom sizes, ``None`` that none was stored
    preset: str | None
    options: Options
    #: the fields whose stored value is valid
    values: dict[ActivationField, Decimal] = field(default_factory=dict)


def read_setup(saved: Mapping[str, object], current: Options) -> RememberedSetup:
    """What of ``saved`` is valid; every option that is not keeps ``current``'s."""

    def text(key: str) -> str | None:
        raw = saved.get(key)
        return raw.strip() if isinstance(raw, str) else None

    def member(key: str, enum_type: type[_E], default: _E) -> _E:
        raw = text(key)
        try:
            return enum_type(raw) if raw is not None else default
        except ValueError:
            return default

    def flag(key: str, default: bool) -> bool:
        return {"true": True, "false": False}.get(text(key) or "", default)

    options = Options(
        family=member("family", Family, current.family),
        dtype=member("dtype", Precision, current.dtype),
        attention=member("attention", Attention, current.attention),
        recompute=member("recompute", Recompute, current.recompute),
        sequence_parallel=flag("sequence_parallel", current.sequence_parallel),
        dropout=flag("dropout", current.dropout),
        profile=member("profile", Accounting, current.profile),
        padded=flag("padded", current.padded),
        use_cache=flag("use_cache", current.use_cache),
        vision_frozen=flag("vision_frozen", current.vision_frozen),
        fused_loss=flag("fused_loss", current.fused_loss),
    )
    values: dict[ActivationField, Decimal] = {}
    for f in ActivationField:
        raw = text(f.value)
        whole = raw is not None and raw.isascii() and raw.isdigit()
        if whole and raw is not None and check(FIELD_LIMITS[f], raw) is None:
            values[f] = Decimal(int(raw))
    return RememberedSetup(text("preset"), options, values)


def remembered_model(
    saved: Mapping[str, object],
    key: str | None,
    config_presets: tuple[ConfigPreset, ...],
    file_label: Callable[[str, str], str],
) -> LoadedModel | None:
    """The model from a config.json that ``saved`` names: a config preset, or the
    file it keeps the text of (``None``: a sized preset, custom sizes, or a damaged
    store)."""
    if key is None:
        return None
    config = find_named(config_presets, key)
    if config is not None:
        return LoadedModel(config.arch, config.label, config.source, config.name)
    text, name, path = (saved.get(k) for k in ("model_config", "model_file", "model_path"))
    if key != FILE_KEY or not isinstance(text, str) or not isinstance(name, str):
        return None
    try:
        arch = parse_model_config_text(text)
    except ModelConfigError:  # a damaged store: the model stays as it is
        return None
    source = path if isinstance(path, str) and path else name
    label = file_label(name, arch.architecture)
    return LoadedModel(arch, label, source, FILE_KEY, file_name=name, text=text)
