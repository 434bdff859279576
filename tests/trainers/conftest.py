"""The trainer tier: every export read and run by the real frameworks (make test-trainers).

Needs the frameworks (``.venv-trainers``: CPU torch, deepspeed, transformers,
accelerate, lightning, megatron-core); ``make test`` leaves this folder out.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent / "project"

# DeepSpeed on a machine without GPUs: its CPU accelerator (gloo for collectives).
os.environ.setdefault("DS_ACCELERATOR", "cpu")
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in a fresh folder (the exports name their files relative to it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True)
def no_zero3_left_behind() -> Iterator[None]:
    """transformers keeps the last ``TrainingArguments(deepspeed=...)``'s ZeRO config in a
    weak global until the arguments are collected: a ZeRO-3 one would make the next
    test's ``from_config`` build under ``deepspeed.zero.Init``. Unset it after each test."""
    yield
    integration = sys.modules.get("transformers.integrations.deepspeed")
    if integration is not None:
        integration.unset_hf_deepspeed_config()
