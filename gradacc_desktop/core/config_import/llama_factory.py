"""Reading a LLaMA-Factory YAML (``llamafactory-cli train``)."""

from __future__ import annotations

from typing import Any

from .reader import _Reader


def _read_llama_factory(data: dict[Any, Any], r: _Reader) -> None:
    del data, r  # filled in by the next change
