"""The one place that knows where bundled resources live.

In development (and editable installs) ``resources/`` sits beside the package;
in a PyInstaller bundle it is unpacked under ``sys._MEIPASS``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root is not None:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    """Path of a file under ``resources/`` (it may not exist; callers check)."""
    return resources_dir().joinpath(*parts)
