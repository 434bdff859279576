"""Reading Hugging Face ``TrainingArguments`` (a JSON) and TRL / alignment-handbook
recipe YAMLs (``TrainingArguments``' keys with TRL's ``ModelConfig``)."""

from __future__ import annotations

from typing import Any

from .reader import _Reader


def _read_trainer(data: dict[Any, Any], r: _Reader) -> None:
    del data, r  # filled in by the next change
