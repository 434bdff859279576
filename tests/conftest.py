"""Test configuration: offscreen Qt, isolated settings, a fresh window per test."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication

from gradacc_desktop.app import configure_application, create_window
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.settings import Settings

QStandardPaths.setTestModeEnabled(True)


@pytest.fixture
def settings_path(tmp_path: Path) -> Path:
    return tmp_path / "settings.ini"


@pytest.fixture
def settings(settings_path: Path) -> Settings:
    return Settings(QSettings(str(settings_path), QSettings.Format.IniFormat))


@pytest.fixture
def make_window(qapp: QApplication, qtbot, settings: Settings) -> Iterator:  # type: ignore[no-untyped-def]
    configure_application(qapp)
    made: list[MainWindow] = []

    def make(settings_: Settings | None = None, language: str | None = None) -> MainWindow:
        window = create_window(qapp, settings_ or settings, language)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        # focus, Tab and editingFinished need an active window, as on a desktop
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        made.append(window)
        return window

    yield make
    for window in made:
        window.language.uninstall()


@pytest.fixture
def window(make_window) -> MainWindow:  # type: ignore[no-untyped-def]
    return make_window()


@pytest.fixture
def catalogue(qapp: QApplication) -> Iterator:  # type: ignore[no-untyped-def]
    """Install the app's catalogue for a language, as the running app does."""
    from gradacc_desktop.viewmodels.language import LanguageController

    controllers: list[LanguageController] = []

    def install(language: str) -> LanguageController:
        controller = LanguageController(qapp)
        controller.set_language(language)
        controllers.append(controller)
        return controller

    yield install
    for controller in controllers:
        controller.uninstall()
