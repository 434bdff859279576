"""Reading a torchtune recipe config YAML (``tune run``)."""

from __future__ import annotations

from typing import Any

from .model import ImportedConfig
from .reader import _Reader


def _read_torchtune(data: dict[Any, Any], r: _Reader) -> None:
    del data, r  # filled in by the next change


def torchtune_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    """Data-parallel replicas on ``g`` GPUs, the sizes used, and why torchtune refuses
    them (or None)."""
    del config
    return g, (), None
