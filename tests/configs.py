"""Where the published config.json files the tests read live: the ones the app ships
as presets in ``resources/data/models``, the others in ``tests/data/configs``."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "tests" / "data" / "configs", ROOT / "resources" / "data" / "models")


def config_path(name: str) -> Path:
    for folder in FOLDERS:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(name)
