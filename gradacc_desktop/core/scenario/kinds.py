"""What a file opened or dropped on the window is: a scenario, a trainer's config
(DeepSpeed, accelerate, axolotl, ...), a model's ``config.json``, or none of them."""

from __future__ import annotations

import enum
import json
import os
from pathlib import Path

from ..frameworks.config_import import ConfigImportError, read_config
from ..memory.families import ModelConfigError, parse_model_config_text, read_model_config_text
from .settings import FORMAT, MAX_BYTES


class FileKind(enum.Enum):
    SCENARIO = "scenario"
    TRAINING_CONFIG = "training_config"
    MODEL_CONFIG = "model_config"
    #: unreadable, or none of the above (opened as a scenario, which says why not)
    OTHER = "other"


def file_kind(path: str | os.PathLike[str]) -> FileKind:
    """Which of the window's files ``path`` is: a JSON object whose ``format`` is the
    scenario's, a model's config.json, a config ``read_config`` recognises, or other."""
    path = Path(path)
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError:
        return FileKind.OTHER
    try:
        root = json.loads(data)
    except (ValueError, RecursionError):
        root = None
    if isinstance(root, dict) and root.get("format") == FORMAT:
        return FileKind.SCENARIO
    try:
        parse_model_config_text(read_model_config_text(path))
    except ModelConfigError:
        pass
    else:
        return FileKind.MODEL_CONFIG
    try:
        read_config(path)
    except ConfigImportError:
        return FileKind.OTHER
    return FileKind.TRAINING_CONFIG
