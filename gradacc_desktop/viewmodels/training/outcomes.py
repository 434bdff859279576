"""What the training view-model's own actions come to, worded: a model's config.json or
a measured speed profile read (or why not), the profile in use, typed sizes refused.

The sentences keep the translation context they were first written in, the
view-model's ("TrainingViewModel"), so their translations stay where they are."""

from __future__ import annotations

from pathlib import Path
from typing import final

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.memory import Family
from gradacc_desktop.core.memory.families import (
    ModelConfigError,
    file_name,
    parse_model_config_text,
    read_model_config_text,
)
from gradacc_desktop.core.time import ProfileError, SpeedProfile, load_profile
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.shared_texts import NOT_OPENED, say
from gradacc_desktop.viewmodels.training.build import OpenedConfig


@final
class TrainingOutcomes:
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    # -- a model's config.json ------------------------------------------------------------
    def read_config(self, path: str | Path) -> OpenedConfig | str:
        """The local ``config.json`` at ``path`` (never a download), or why it was not
        opened."""
        name = file_name(str(path))
        try:
            text = read_model_config_text(path)
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            return say(NOT_OPENED).format(file=name, reason=self._formats.said(exc.detail))
        return OpenedConfig(arch, name, text)

    def config_read(self, config: OpenedConfig) -> str:
        arch = config.arch
        return QCoreApplication.translate(
            "TrainingViewModel", "Model read from {file}: {model}."
        ).format(file=config.file_name, model=arch.architecture or arch.model_type)

    # -- the speed profile ----------------------------------------------------------------
    def read_profile(self, path: Path) -> SpeedProfile | str:
        """The speed profile at ``path``, or why it cannot be used."""
        try:
            return load_profile(path)
        except ProfileError as exc:
            return self.profile_refused(path.name, exc.message)

    def profile_in_use(self, name: str) -> str:
        return QCoreApplication.translate(
            "TrainingViewModel", "Speed profile “{name}” in use."
        ).format(name=name)

    def profile_refused(self, name: str, detail: str) -> str:
        return QCoreApplication.translate(
            "TrainingViewModel", "“{name}” is not a speed profile this app can read: {detail}"
        ).format(name=name, detail=self._formats.said(detail))

    def profile_summary(self, profile: SpeedProfile | None) -> str:
        if profile is None:
            return QCoreApplication.translate(
                "TrainingViewModel",
                "Micro-steps: estimated by the efficiency model (no measured profile).",
            )
        f = self._formats.format
        return QCoreApplication.translate(
            "TrainingViewModel",
            "Micro-steps measured on {device}: {model}, sequence {seq}, "
            "micro-batches {low}–{high}.",
        ).format(
            device=profile.device,
            model=profile.model,
            seq=f(profile.seq_len),
            low=f(profile.smallest),
            high=f(profile.largest),
        )

    # -- typed sizes ----------------------------------------------------------------------
    def shape_problem(self, family: Family, hidden: int, heads: int, kv_heads: int) -> str:
        """Why typed sizes describe no model ("" when they do)."""
        if hidden % heads:
            return QCoreApplication.translate(
                "TrainingViewModel",
                "Typed sizes: the hidden size must divide by the attention heads.",
            )
        if heads % kv_heads:
            return QCoreApplication.translate(
                "TrainingViewModel",
                "Typed sizes: the attention heads must divide by the key/value heads.",
            )
        if family is Family.GPT2 and kv_heads != heads:
            return QCoreApplication.translate(
                "TrainingViewModel",
                "Typed sizes: GPT-2 has as many key/value heads as attention heads.",
            )
        return ""
