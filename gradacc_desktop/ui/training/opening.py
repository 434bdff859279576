"""The files the training description panel opens: a model's config.json (asked for or
dropped) and a measured speed profile, each said in the status bar; a refused profile
also in a message box.

The profile dialog's words keep the translation context they were first written in,
the panel's ("TrainingPanel")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from gradacc_desktop.ui.file_dialogs import ask_open_path
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


def ask_config(parent: QWidget, vm: TrainingViewModel, settings: Settings | None) -> Path | None:
    """The model's config.json the user picked (None: cancelled)."""
    texts = vm.texts
    return ask_open_path(parent, texts.open_config_title(), texts.config_filter(), settings)


def ask_profile(
    parent: QWidget, vm: TrainingViewModel, settings: Settings | None, say: Callable[[str], None]
) -> None:
    """Ask for a measured speed profile and use it; what came of it goes to ``say``, and a
    refusal also to a message box (it stays until read, not five seconds)."""
    title = QCoreApplication.translate("TrainingPanel", "Load a measured speed profile")
    path = ask_open_path(
        parent,
        title,
        QCoreApplication.translate("TrainingPanel", "Speed profiles (*.json);;All files (*)"),
        settings,
    )
    if path is None:
        return
    outcome = vm.load_profile(path)
    say(outcome.message)
    if not outcome.ok:
        box = QMessageBox(QMessageBox.Icon.Warning, title, outcome.message, parent=parent)
        box.setObjectName("profile_error")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
