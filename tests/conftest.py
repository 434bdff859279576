"""Test configuration: offscreen Qt, isolated settings, a fresh window per test, and
nothing of a test's Qt objects left behind it."""

from __future__ import annotations

import os

# offscreen, on a 1920 x 1080 desktop (the plugin's default screen is 800 x 800, smaller
# than the window's first size; the windows fit whatever screen they open on)
os.environ.setdefault(
    "QT_QPA_PLATFORM",
    "offscreen:configfile="
    + os.path.join(os.path.dirname(os.path.abspath(__file__)), "offscreen_screen.json"),
)

from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication, QWidget

from gradacc_desktop.app import configure_application, create_window
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.language import LanguageController
from gradacc_desktop.viewmodels.settings import Settings
from tests.ui.helpers import dispose, flush_deletions

QStandardPaths.setTestModeEnabled(True)

# One string of each catalogue a language switch installs (the app's, Qt's qtbase and
# the app's supplement to it), as (context, source): while none is installed each one
# translates to itself.
_CATALOGUE_PROBES = (
    ("MainWindow", "Calculator"),
    ("QPlatformTheme", "Cancel"),
    ("QFileDialog", "&Look in:"),
)


def _address(widget: QWidget) -> int:
    return shiboken6.getCppPointer(widget)[0]


def _describe(widget: QWidget) -> str:
    name = type(widget).__name__
    if widget.objectName():
        name += f" {widget.objectName()!r}"
    if widget.windowTitle():
        name += f" titled {widget.windowTitle()!r}"
    parent = widget.parentWidget()
    if parent is not None:
        name += f" (child of {type(parent).__name__})"
    return name


def _translations() -> list[str]:
    return [QCoreApplication.translate(context, source) for context, source in _CATALOGUE_PROBES]


@pytest.fixture(autouse=True)
def nothing_outlives_the_test() -> Iterator[None]:
    """Fail a test that leaves a top-level widget, a language controller or an
    installed catalogue behind once its fixtures are torn down.

    A leftover window stays alive for the rest of the run, and every later language
    switch retranslates it (64 main windows, 19 planners and 256 menus did, and the
    suite took three times as long). Deferred deletions are run first: a widget
    already closed and handed to ``deleteLater`` has been let go. Nothing is ignored:
    every top-level widget Qt makes for its own use (a menu, a combo box's popup, a
    tool tip) has a parent that goes with the window, and the offscreen platform makes
    no hidden window of its own.
    """
    app = QApplication.instance()
    if app is not None:
        flush_deletions()
    before = {_address(w) for w in QApplication.topLevelWidgets()} if app else set()
    controllers = len(app.findChildren(LanguageController)) if app else 0
    translations = _translations()
    yield
    app = QApplication.instance()
    if app is None:
        return
    flush_deletions()
    left = [w for w in QApplication.topLevelWidgets() if _address(w) not in before]
    problems = []
    if left:
        problems.append(
            f"{len(left)} top-level widget(s) outlived the test: "
            + "; ".join(_describe(w) for w in left)
            + " (close() and deleteLater() them in the fixture that made them, "
            "or qtbot.addWidget them)"
        )
        dispose(*(w for w in left if w.parentWidget() is None))  # spare the next test
    kept = app.findChildren(LanguageController)
    if len(kept) > controllers:
        problems.append(f"{len(kept) - controllers} language controller(s) outlived the test")
    if _translations() != translations:
        problems.append(
            "a catalogue is still installed after the test: "
            f"{_translations()} instead of {translations} (uninstall its LanguageController)"
        )
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def app_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's logging set up as at start-up, into ``tmp_path/logs``; the log file."""
    from gradacc_desktop import logs

    monkeypatch.setattr(logs, "log_dir", lambda: tmp_path / "logs")
    path = logs.setup_logging()
    assert path is not None
    yield path
    logs.reset_logging()


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
    controllers: list[LanguageController] = []

    def make(settings_: Settings | None = None, language: str | None = None) -> MainWindow:
        window = create_window(qapp, settings_ or settings, language)
        made.append(window)
        controllers.append(window.language)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        # focus, Tab and editingFinished need an active window, as on a desktop
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        return window

    yield make
    # Each window takes its language controller (and the translators) with it.
    dispose(*made)
    assert not any(shiboken6.isValid(c) for c in controllers), "a controller outlived its window"


@pytest.fixture
def window(make_window) -> MainWindow:  # type: ignore[no-untyped-def]
    return make_window()


@pytest.fixture
def catalogue(qapp: QApplication) -> Iterator:  # type: ignore[no-untyped-def]
    """Install the app's catalogue for a language, as the running app does."""
    controllers: list[LanguageController] = []

    def install(language: str) -> LanguageController:
        controller = LanguageController(qapp)
        controller.set_language(language)
        controllers.append(controller)
        return controller

    yield install
    for controller in controllers:
        controller.uninstall()
    dispose(*controllers)
