"""Unhandled exceptions: write a log file and tell the user, instead of a silent exit."""

from __future__ import annotations

import logging
import sys
from types import TracebackType

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from gradacc_desktop import __version__
from gradacc_desktop.logs import current_log_file

_log = logging.getLogger(__name__)


class CrashHandler:
    """Installed as ``sys.excepthook``: logs, then shows a dialog; the app keeps running."""

    def __init__(self) -> None:
        self._showing = False
        self.last_report: str | None = None

    def install(self) -> None:
        sys.excepthook = self

    def __call__(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QCoreApplication.quit()
            return
        import traceback

        report = "".join(traceback.format_exception(exc_type, exc, tb))
        self.last_report = report
        # the log file (set up at start-up) and standard error
        _log.error("unhandled exception (version %s)\n%s", __version__, report.rstrip())
        path = current_log_file()
        if self._showing or QApplication.instance() is None:
            return
        self._showing = True
        try:
            box = QMessageBox(QApplication.activeWindow())
            box.setIcon(QMessageBox.Icon.Critical)
            box.setWindowTitle(QCoreApplication.translate("CrashHandler", "Unexpected error"))
            box.setText(
                QCoreApplication.translate(
                    "CrashHandler",
                    "Something went wrong. Your inputs are kept and you can go on working.",
                )
            )
            where = (
                QCoreApplication.translate("CrashHandler", "Details were saved to {path}.").format(
                    path=path
                )
                if path
                else QCoreApplication.translate(
                    "CrashHandler", "The log file could not be written."
                )
            )
            box.setInformativeText(f"{exc_type.__name__}: {exc}\n\n{where}")
            box.setDetailedText(report)
            box.exec()
        finally:
            self._showing = False
