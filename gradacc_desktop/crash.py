"""Unhandled exceptions: write a log file and tell the user, instead of a silent exit."""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QStandardPaths
from PySide6.QtWidgets import QApplication, QMessageBox

from gradacc_desktop import __version__

LOG_NAME = "gradacc-desktop.log"
MAX_LOG_BYTES = 512 * 1024


def log_dir() -> Path:
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location) if location else Path.home() / ".gradacc-desktop"


def log_path() -> Path:
    return log_dir() / LOG_NAME


def write_log(text: str) -> Path | None:
    """Append ``text`` to the log file (trimmed when it grows large); ``None`` if impossible."""
    import datetime  # only when something is logged: keeps start-up lean

    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            path.replace(path.with_suffix(".log.1"))
        stamp = datetime.datetime.now().isoformat(timespec="seconds")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"[{stamp}] gradacc-desktop {__version__}\n{text}\n")
    except OSError:
        return None
    return path


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
        path = write_log(report)
        if sys.stderr is not None:
            sys.stderr.write(report)
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
