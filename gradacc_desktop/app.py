"""Start-up: QApplication, names, logging, crash handler, settings, translators, window,
flags.

What the first paint waits for is only what the calculator tab needs (docs/PERFORMANCE.md
has the measurements): the other tabs, their view-models and the core modules behind
them are imported on first use; the log file is opened and the window icon set once the
window is painted.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace, TracebackType

from PySide6.QtWidgets import QApplication


def skip_pyside_source_scan() -> None:
    """PySide6 looks for ``from __feature__ import …`` in every module imported after it
    by reading the module's whole source (``inspect.getsource``), which also leaves it
    all in ``linecache``: about 12 ms and 2.6 MiB of this app's start-up. The app uses
    no ``__feature__``; every module gets the default selection that scan would give a
    module naming PySide6 (PySide6 6.11; a release without the hook is left alone)."""
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = lambda _module: True  # type: ignore[attr-defined]


skip_pyside_source_scan()  # before the app's own modules are imported

from gradacc_desktop import (  # noqa: E402
    APP_NAME,
    ORGANIZATION_DOMAIN,
    ORGANIZATION_NAME,
    __version__,
)
from gradacc_desktop.logs import hold_records, holding_records, setup_logging  # noqa: E402
from gradacc_desktop.paths import resource_path  # noqa: E402
from gradacc_desktop.ui.main_window import MainWindow  # noqa: E402
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel  # noqa: E402
from gradacc_desktop.viewmodels.language import LanguageController  # noqa: E402
from gradacc_desktop.viewmodels.settings import LANGUAGE, LANGUAGES, Settings  # noqa: E402

_log = logging.getLogger(__name__)


def parse_args(argv: Sequence[str]) -> tuple[SimpleNamespace, list[str]]:
    if not argv:  # a double-click: no flags, and no need to load argparse
        return SimpleNamespace(lang=None, reset_settings=False, self_test=False), []
    import argparse

    parser = argparse.ArgumentParser(
        prog=APP_NAME, description="Gradient accumulation memory calculator."
    )
    parser.add_argument("--version", action="version", version=f"{APP_NAME} {__version__}")
    parser.add_argument("--lang", choices=LANGUAGES, help="interface language for this session")
    parser.add_argument(
        "--reset-settings", action="store_true", help="forget remembered inputs and window state"
    )
    parser.add_argument("--self-test", action="store_true", help="check the app works, then exit")
    args, rest = parser.parse_known_args(list(argv))
    return SimpleNamespace(**vars(args)), rest


def configure_application(app: QApplication) -> None:
    app.setOrganizationName(ORGANIZATION_NAME)
    app.setOrganizationDomain(ORGANIZATION_DOMAIN)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)


# Rendered sizes of resources/icons/gradacc.svg (scripts/make_icons.py). PNGs need no
# SVG library; Qt picks the closest size for each use.
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def set_app_icon(app: QApplication) -> None:
    """The windows' icon. On X11 a shown window hands the window manager every size at
    once, decoding each PNG (a few ms): start-up sets it once the window is painted."""
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for size in ICON_SIZES:
        path = resource_path("icons", "hicolor", f"{size}x{size}", "apps", f"{APP_NAME}.png")
        if path.exists():  # with its size: Qt reads the file when it draws it, not now
            icon.addFile(str(path), QSize(size, size))
    app.setWindowIcon(icon)


def install_crash_handler() -> None:
    """Unhandled exceptions go to the crash handler (gradacc_desktop/crash.py), whose
    module and dialog class are loaded at the first one, not at start-up."""

    def first_crash(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        from gradacc_desktop.crash import CrashHandler

        handler = CrashHandler()
        handler.install()
        handler(exc_type, exc, tb)

    sys.excepthook = first_crash


def create_window(
    app: QApplication, settings: Settings | None = None, language: str | None = None
) -> MainWindow:
    """Build the whole app around an existing QApplication (used by main, tests, self-test)."""
    settings = settings if settings is not None else Settings()
    controller = LanguageController(app)
    controller.set_language(language or settings.get(LANGUAGE))
    vm = CalculatorViewModel(controller.locale(), inputs=settings.inputs())
    window = MainWindow(vm, controller, settings)
    # the translators live as long as the window that shows their words
    controller.setParent(window)
    return window


def main(argv: Sequence[str] | None = None) -> int:
    args, qt_args = parse_args(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    assert isinstance(app, QApplication)
    configure_application(app)  # the names also name the log folder
    if args.self_test:
        setup_logging()
    else:  # the file is opened once the window is painted: its records wait till then
        hold_records()
    _log.info("%s %s starting on %s", APP_NAME, __version__, app.platformName())
    install_crash_handler()
    settings = Settings()
    if args.reset_settings:
        settings.store.clear()
    if args.self_test:
        from gradacc_desktop.selftest import run_self_test

        set_app_icon(app)
        return run_self_test(app, create_window)
    window = create_window(app, settings, args.lang)
    # Everything built so far lives as long as the app: keep it out of the cyclic
    # garbage collector's way, so its passes stay short while the user types.
    gc.freeze()
    gc.enable()  # the entry scripts turn it off for start-up (gradacc_desktop/__main__.py)
    from gradacc_desktop import startup_probe

    def after_first_paint() -> None:
        set_app_icon(app)
        setup_logging()

    startup_probe.after_first_paint(window, after_first_paint)
    probe_file = os.environ.get(startup_probe.ENV)
    if probe_file:
        startup_probe.stamp_first_paint(app, window, probe_file)
    window.show()
    code = app.exec()
    if holding_records():  # closed before the deferred set-up ran: write what was held
        setup_logging()
    # Destroy the window (and QtCharts' objects with it) now, while the application
    # is intact: left to interpreter shutdown, QtCharts has crashed the exit.
    # deleteLater() would not run once the event loop has stopped.
    import shiboken6

    shiboken6.delete(window)
    return int(code)
