"""Dropping one file on a window: which drags to accept and the file they carry."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent


def accept_file_drag(event: QDragEnterEvent) -> None:
    """Accept a drag that carries exactly one local file."""
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    if len(urls) == 1 and urls[0].isLocalFile():
        event.acceptProposedAction()
    else:
        event.ignore()


def dropped_file(event: QDropEvent) -> Path | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    if len(urls) == 1 and urls[0].isLocalFile():
        event.acceptProposedAction()
        return Path(urls[0].toLocalFile())
    return None
