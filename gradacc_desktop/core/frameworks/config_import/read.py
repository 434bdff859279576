"""``read_config``: a path or text, parsed, recognised and read by its framework's
reader."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...text import trans_late
from .accelerate import read_accelerate
from .axolotl import read_axolotl
from .deepspeed import deepspeed_unknown_keys, read_deepspeed
from .files import A_FOLDER, NO_SUCH_FILE, detect_kind, parse_text, read_file
from .imported import ImportedConfig
from .llama_factory import read_llama_factory
from .model import ConfigImportError, ConfigKind
from .neox import read_neox
from .reader import Reader, clean
from .torchtune import read_torchtune
from .trainer import read_trainer

_READERS: dict[ConfigKind, Callable[[dict[Any, Any], Reader], None]] = {
    ConfigKind.DEEPSPEED: read_deepspeed,
    ConfigKind.ACCELERATE: read_accelerate,
    ConfigKind.AXOLOTL: read_axolotl,
    ConfigKind.TRAINER: read_trainer,
    ConfigKind.LLAMA_FACTORY: read_llama_factory,
    ConfigKind.TORCHTUNE: read_torchtune,
    ConfigKind.NEOX: read_neox,
}


def read_config(
    path_or_text: str | os.PathLike[str],
    name: str | None = None,
    *,
    folder: str | os.PathLike[str] | None = None,
) -> ImportedConfig:
    """Read a DeepSpeed JSON, an accelerate YAML or an axolotl YAML.

    ``path_or_text`` is a path (a ``PathLike``, or a one-line string naming an existing
    file) or the config's text; without ``name``, a one-line string that cannot be a
    config (no ``:``, ``{`` or ``[``) is taken for a missing file. ``name`` is what
    messages call it (the path by default). A DeepSpeed JSON the config names is read
    relative to the config's folder, or to ``folder`` when the text is given.

    Raises ``ConfigImportError`` (a ``ValueError``) with one English line when the
    source cannot be read, is neither JSON nor YAML, holds no mapping, or is of no
    recognised kind. Keys that are present but unusable never raise: they are listed
    in ``unread``.
    """
    base = None if folder is None else Path(folder)
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str)
        and "\n" not in path_or_text
        and path_or_text.strip()
        and os.path.isfile(path_or_text)
    ):
        path = Path(path_or_text)
        source = clean(name or str(path), 300)
        text = read_file(path, source)
        if base is None:
            base = path.parent
    elif isinstance(path_or_text, str):
        text = path_or_text
        source = name or "config"
        one_line = "\n" not in text.strip()
        looks_like_path = not any(c in text for c in "{[:#")
        if name is None and one_line and text.strip() and looks_like_path:
            shown = clean(text.strip(), 300)
            if os.path.isdir(text.strip()):
                raise ConfigImportError(A_FOLDER.format(name=shown))
            raise ConfigImportError(NO_SUCH_FILE.format(name=shown))
    else:
        raise TypeError(f"read_config needs a path or text, got {type(path_or_text).__name__}")
    source = clean(source, 300)
    data, is_json = parse_text(text, source)
    if data is None:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: the file is empty").format(name=source)
        )
    if not isinstance(data, dict):
        holds = (
            trans_late("ConfigImport", "{name}: holds a list, not a mapping of config keys")
            if isinstance(data, list)
            else trans_late(
                "ConfigImport", "{name}: holds a single value, not a mapping of config keys"
            )
        )
        raise ConfigImportError(holds.format(name=source))
    kind = detect_kind(data, is_json, source)
    reader = Reader(base)
    reader.scan(data)
    if kind is ConfigKind.TRAINER:
        # TRL's TrlParser reads only YAML recipes: a JSON is TrainingArguments' own
        read_trainer(data, reader, is_json=is_json)
    else:
        _READERS[kind](data, reader)
    if kind is ConfigKind.DEEPSPEED:
        deepspeed_unknown_keys(data, reader, top_level=is_json)
    return reader.build(kind, source)
