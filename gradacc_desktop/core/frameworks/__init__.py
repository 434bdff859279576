"""Frameworks: their batch verdicts (DeepSpeed, Megatron); the exports to each framework
(``export``) and the reading of their config files (``config_import``) are packages of
their own.

The names other layers use; the modules inside import one another directly."""

from __future__ import annotations

from .verdicts import BatchVerdicts, batch_verdicts, megatron_check, megatron_text

__all__ = [
    "BatchVerdicts",
    "batch_verdicts",
    "megatron_check",
    "megatron_text",
]
