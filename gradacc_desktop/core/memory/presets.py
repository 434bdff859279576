"""Model presets: architecture sizes of well-known models.

Two kinds. *Sized* presets (GPT-2 and Llama families) live in
``resources/data/model_presets.json`` (each entry names the Hugging Face
``config.json`` it was taken from); ``load_presets`` validates the file strictly and
returns frozen ``Preset`` objects; ``Preset.inputs`` turns one into
``activation.Inputs``. *Config* presets are the published ``config.json`` files of
popular models of every family, in ``resources/data/models`` with an ``index.json``
naming each one's label and source (a model published with the shapes of another names
it in ``shapes_of`` and reads its file); ``load_config_presets`` reads them through
``core.memory.families``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradacc_desktop.core.memory.activation import Family, Inputs, validate
from gradacc_desktop.core.memory.families import Architecture, ModelConfigError, read_model_config
from gradacc_desktop.paths import resource_path

PRESETS_FILE = ("data", "model_presets.json")
FORMAT = 1

_INT_FIELDS = (
    "hidden",
    "layers",
    "heads",
    "kv_heads",
    "intermediate",
    "vocab",
    "max_position_embeddings",
    "default_seq",
)


class PresetError(ValueError):
    """The presets file is missing, not JSON or does not match the expected schema."""


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    family: Family
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    max_position_embeddings: int
    default_seq: int
    source: str
    note: str = ""

    def inputs(self, seq: int | None = None, **options: Any) -> Inputs:
        """``activation.Inputs`` for this model; ``options`` are the other Inputs fields."""
        return Inputs(
            family=self.family,
            hidden=self.hidden,
            layers=self.layers,
            heads=self.heads,
            kv_heads=self.kv_heads,
            intermediate=self.intermediate,
            vocab=self.vocab,
            seq=self.default_seq if seq is None else seq,
            **options,
        )


def _preset(raw: Any, where: str) -> Preset:
    if not isinstance(raw, dict):
        raise PresetError(f"{where}: not an object")
    known = {"name", "label", "family", "source", "note", *_INT_FIELDS}
    unknown = set(raw) - known
    if unknown:
        raise PresetError(f"{where}: unknown keys {sorted(unknown)}")
    for key in ("name", "label", "family", "source"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise PresetError(f"{where}: '{key}' must be a non-empty string")
    if not isinstance(raw.get("note", ""), str):
        raise PresetError(f"{where}: 'note' must be a string")
    for key in _INT_FIELDS:
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise PresetError(f"{where}: '{key}' must be a positive integer")
    if not raw["source"].startswith("https://huggingface.co/"):
        raise PresetError(f"{where}: 'source' must be a https://huggingface.co/ URL")
    try:
        family = Family(raw["family"])
    except ValueError:
        raise PresetError(f"{where}: unknown family {raw['family']!r}") from None
    if raw["default_seq"] > raw["max_position_embeddings"]:
        raise PresetError(f"{where}: default_seq exceeds max_position_embeddings")
    preset = Preset(
        name=raw["name"],
        label=raw["label"],
        family=family,
        hidden=raw["hidden"],
        layers=raw["layers"],
        heads=raw["heads"],
        kv_heads=raw["kv_heads"],
        intermediate=raw["intermediate"],
        vocab=raw["vocab"],
        max_position_embeddings=raw["max_position_embeddings"],
        default_seq=raw["default_seq"],
        source=raw["source"],
        note=raw.get("note", ""),
    )
    try:
        validate(preset.inputs())
    except ValueError as exc:
        raise PresetError(f"{where}: {exc}") from None
    return preset


def parse_presets(data: Any) -> tuple[Preset, ...]:
    """Validate decoded JSON; raise ``PresetError`` describing the first problem."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PresetError(f'presets: expected an object with "format": {FORMAT}')
    entries = data.get("presets")
    if not isinstance(entries, list) or not entries:
        raise PresetError("presets: 'presets' must be a non-empty list")
    presets = tuple(_preset(raw, f"presets[{n}]") for n, raw in enumerate(entries))
    names = [p.name for p in presets]
    if len(set(names)) != len(names):
        raise PresetError("presets: duplicate names")
    return presets


def load_presets(path: Path | None = None) -> tuple[Preset, ...]:
    """Read and validate the bundled presets file (or ``path``)."""
    file = path if path is not None else resource_path(*PRESETS_FILE)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise PresetError(f"presets: cannot read {file}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PresetError(f"presets: {file} is not valid JSON: {exc.msg}") from None
    return parse_presets(data)


# --------------------------------------------------------------------------- config presets

MODELS_DIR = ("data", "models")
MODELS_INDEX = "index.json"


@dataclass(frozen=True)
class ConfigPreset:
    """A popular model whose published ``config.json`` ships with the app."""

    name: str
    label: str
    source: str
    arch: Architecture


def parse_config_presets(data: Any, folder: Path) -> tuple[ConfigPreset, ...]:
    """Validate the index (decoded JSON) and read every config it names from ``folder``."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PresetError(f'models: expected an object with "format": {FORMAT}')
    entries = data.get("models")
    if not isinstance(entries, list) or not entries:
        raise PresetError("models: 'models' must be a non-empty list")
    presets: list[ConfigPreset] = []
    read: dict[str, str] = {}  # name -> file
    for n, raw in enumerate(entries):
        where = f"models[{n}]"
        keys = {"name", "label", "file", "source"}
        if not isinstance(raw, dict) or set(raw) - {"shapes_of"} != keys:
            raise PresetError(f"{where}: expected name, label, file and source")
        if not all(isinstance(v, str) and v for v in raw.values()):
            raise PresetError(f"{where}: every value must be a non-empty string")
        if not raw["source"].startswith("https://huggingface.co/"):
            raise PresetError(f"{where}: 'source' must be a https://huggingface.co/ URL")
        if "/" in raw["file"] or "\\" in raw["file"]:
            raise PresetError(f"{where}: 'file' must be a file name")
        # a model published with another's shapes (a fine-tune, its base) reads its file
        if "shapes_of" in raw and read.get(raw["shapes_of"]) != raw["file"]:
            raise PresetError(f"{where}: 'shapes_of' must name an earlier model with its file")
        read[raw["name"]] = raw["file"]
        try:
            arch = read_model_config(folder / raw["file"])
        except ModelConfigError as exc:
            raise PresetError(f"{where}: {raw['file']}: {exc.detail}") from None
        presets.append(ConfigPreset(raw["name"], raw["label"], raw["source"], arch))
    names = [p.name.lower() for p in presets]
    if len(set(names)) != len(names):
        raise PresetError("models: duplicate names")
    return tuple(presets)


def load_config_presets(folder: Path | None = None) -> tuple[ConfigPreset, ...]:
    """The bundled published configs (``resources/data/models``), in the index's order."""
    where = folder if folder is not None else resource_path(*MODELS_DIR)
    index = where / MODELS_INDEX
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PresetError(f"models: cannot read {index}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise PresetError(f"models: {index} is not valid JSON: {exc.msg}") from None
    return parse_config_presets(data, where)
