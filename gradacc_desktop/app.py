"""Start-up: QApplication, names, translators, settings, crash handler, flags."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from gradacc_desktop import APP_NAME, ORGANIZATION_DOMAIN, ORGANIZATION_NAME, __version__
from gradacc_desktop.crash import CrashHandler
from gradacc_desktop.paths import resource_path
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.language import LanguageController
from gradacc_desktop.viewmodels.settings import LANGUAGE, LANGUAGES, Settings


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        prog=APP_NAME, description="Gradient accumulation memory calculator."
    )
    parser.add_argument("--version", action="version", version=f"{APP_NAME} {__version__}")
    parser.add_argument("--lang", choices=LANGUAGES, help="interface language for this session")
    parser.add_argument(
        "--reset-settings", action="store_true", help="forget remembered inputs and window state"
    )
    parser.add_argument("--self-test", action="store_true", help="check the app works, then exit")
    return parser.parse_known_args(list(argv))


def configure_application(app: QApplication) -> None:
    app.setOrganizationName(ORGANIZATION_NAME)
    app.setOrganizationDomain(ORGANIZATION_DOMAIN)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)
    icon_path = resource_path("icons", "gradacc.svg")
    if icon_path.exists():
        app.setWindowIcon(QIcon(str(icon_path)))


def create_window(
    app: QApplication, settings: Settings | None = None, language: str | None = None
) -> MainWindow:
    """Build the whole app around an existing QApplication (used by main, tests, self-test)."""
    settings = settings if settings is not None else Settings()
    controller = LanguageController(app, app)
    controller.set_language(language or settings.get(LANGUAGE))
    vm = CalculatorViewModel(controller.locale(), inputs=settings.inputs())
    return MainWindow(vm, controller, settings)


def main(argv: Sequence[str] | None = None) -> int:
    args, qt_args = parse_args(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    assert isinstance(app, QApplication)
    configure_application(app)
    CrashHandler().install()
    settings = Settings()
    if args.reset_settings:
        settings.store.clear()
    if args.self_test:
        from gradacc_desktop.selftest import run_self_test

        return run_self_test(app)
    window = create_window(app, settings, args.lang)
    probe_file = os.environ.get("GRADACC_BENCH_PAINT_FILE")
    if probe_file:
        from gradacc_desktop import startup_probe

        startup_probe.install(app, window, probe_file)
    window.show()
    code = app.exec()
    window.deleteLater()
    app.processEvents()
    return int(code)
