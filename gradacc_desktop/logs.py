"""Where the app leaves a trace: one log folder, one rotating log file.

``log_dir`` is the only place that knows the folder (the crash handler, the
self-test and start-up all use it). ``setup_logging`` runs once, after the
application's names are set (they name the folder); if the folder cannot be
written, messages go to standard error only and the app starts anyway.

Start-up keeps the file off its critical path: ``hold_records`` (cheap) keeps the
package's records in memory until the window has been painted, then
``setup_logging`` opens the file and writes the held records first, in order. The
file rotates as ``logging.handlers.RotatingFileHandler`` would (``LogFile``): that
module imports socket, pickle, selectors and queue, a megabyte the app never uses.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOG_NAME = "gradacc-desktop.log"
# Small: a few crashes and warnings, never a disk filler (current file + 3 old ones).
MAX_LOG_BYTES = 256 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_dir() -> Path:
    """The user's folder for the app's logs (the app-data folder Qt names)."""
    from PySide6.QtCore import QStandardPaths  # here: the file opens after the first paint

    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location) if location else Path.home() / ".gradacc-desktop"


def log_path() -> Path:
    return log_dir() / LOG_NAME


#: at most this many records are held before the file is opened (the oldest are dropped)
MAX_HELD = 1000


class _HeldRecords(logging.Handler):
    """Keeps records in memory until ``setup_logging`` hands them to the real handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) >= MAX_HELD:
            del self.records[0]
        self.records.append(record)


def hold_records(level: int = logging.INFO) -> None:
    """Keep the package's records (from ``level``) in memory until ``setup_logging``."""
    reset_logging()
    logger = logging.getLogger("gradacc_desktop")
    logger.setLevel(level)
    logger.addHandler(_HeldRecords())


def holding_records() -> bool:
    """Whether records are being held for a log file not set up yet."""
    logger = logging.getLogger("gradacc_desktop")
    return any(isinstance(h, _HeldRecords) for h in logger.handlers)


def _held() -> list[logging.LogRecord]:
    logger = logging.getLogger("gradacc_desktop")
    return [r for h in logger.handlers if isinstance(h, _HeldRecords) for r in h.records]


def setup_logging(level: int = logging.INFO) -> Path | None:
    """Send the package's log records to the rotating log file (and warnings to
    standard error), starting with those ``hold_records`` kept. Returns the file, or
    ``None`` when it cannot be written."""
    held = _held()
    reset_logging()  # set up again (tests): no duplicate handlers
    logger = logging.getLogger("gradacc_desktop")
    logger.setLevel(level)
    try:
        return _add_handlers(logger)
    finally:
        for record in held:
            if record.levelno >= level:
                for handler in logger.handlers:
                    if record.levelno >= handler.level:
                        handler.handle(record)


class LogFile(logging.FileHandler):
    """The log file, at most ``MAX_LOG_BYTES``: a record that would pass it first moves
    the file to ``<name>.1`` (``.1`` to ``.2`` …, the oldest of ``BACKUPS`` dropped)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.stream is not None:
                line = f"{self.format(record)}{self.terminator}"
                end = self.stream.seek(0, 2)  # where appending writes (Windows: not tell())
                if end + len(line.encode(self.encoding or "utf-8")) > MAX_LOG_BYTES:
                    self._rotate()
        except (OSError, ValueError):
            self.handleError(record)
            return
        super().emit(record)

    def _rotate(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.stream = None
        base = Path(self.baseFilename)
        for n in range(BACKUPS - 1, 0, -1):
            older = base.with_name(f"{base.name}.{n}")
            if older.exists():
                older.replace(base.with_name(f"{base.name}.{n + 1}"))
        if base.exists():
            base.replace(base.with_name(f"{base.name}.1"))
        self.stream = self._open()


def _add_handlers(logger: logging.Logger) -> Path | None:
    if sys.stderr is not None:  # a windowed app on Windows has no standard error
        console = logging.StreamHandler()
        console.setLevel(logging.WARNING)
        console.setFormatter(logging.Formatter(FORMAT))
        logger.addHandler(console)
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # opened now: a folder that cannot be written shows here, not at the first record
        handler = LogFile(path, encoding="utf-8")
    except OSError as exc:
        logger.warning("log file %s cannot be written: %s", path, exc)
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    return path


def reset_logging() -> None:
    """Undo ``setup_logging``: close and remove its handlers, drop its level."""
    logger = logging.getLogger("gradacc_desktop")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    logger.setLevel(logging.NOTSET)


def current_log_file() -> Path | None:
    """The file the package's records go to, or ``None`` when there is none."""
    for handler in logging.getLogger("gradacc_desktop").handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None
