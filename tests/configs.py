"""Where the published config.json files the tests read live: the ones the app ships
as presets in ``resources/data/models``, the others in ``tests/data/configs``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "tests" / "data" / "configs", ROOT / "resources" / "data" / "models")


def bundled_preset(name: str) -> Any:
    """The bundled typed-size preset ``name`` (case aside), as the app lists it."""
    from gradacc_desktop.core.memory.presets import load_presets

    return next(p for p in load_presets() if p.name.lower() == name.lower())


def config_path(name: str) -> Path:
    for folder in FOLDERS:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(name)


def raw_config(name: str) -> dict[str, Any]:
    """The decoded file (to change a key or two before parsing it)."""
    data: dict[str, Any] = json.loads(config_path(name).read_text(encoding="utf-8"))
    return data


def breakdown_parts(result: Any, *, per_layer: bool = True) -> dict[Any, int]:
    """An estimate's per-layer items (bytes of one layer) or its once-per-model ones."""
    return {i.key: i.bytes for i in result.breakdown if (i.stack is not None) == per_layer}
