"""Writing the user's files so that a failed save never loses the previous one.

``QSaveFile`` writes into a temporary file beside the target and renames it over
the old file only once every byte is written: a full disk, a file-size limit, a
folder that vanished or a path that cannot be a file leave the previous file as
it was. Two traps are handled here: a buffered ``QSaveFile`` reports a write cut
short by the system only at ``commit()``, as "Unknown error"; and a short write
is not an error to it at all — committing after one would replace the old file
with a truncated copy. So the file is unbuffered and written until every byte is
in, and the first write that makes no progress gives the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QIODevice, QSaveFile


def _reason(file: QSaveFile) -> str:
    reason = file.errorString().strip()
    return reason or file.error().name


def write_file_atomically(path: Path | str, data: bytes) -> str | None:
    """Replace the file at ``path`` with ``data``, all or nothing.

    Returns ``None`` once the file holds ``data``; otherwise why it could not be
    written (the system's or Qt's words, untranslated), and the file that was at
    ``path``, if any, is untouched.
    """
    file = QSaveFile(str(path))
    if not file.open(QIODevice.OpenModeFlag.WriteOnly | QIODevice.OpenModeFlag.Unbuffered):
        return _reason(file)
    written = 0
    while written < len(data):
        count = file.write(data[written:])
        if count <= 0:  # the system said no (a partial write only says "not all")
            reason = _reason(file)
            file.cancelWriting()
            file.commit()  # discards the temporary file
            return reason
        written += count
    if not file.commit():
        return _reason(file)
    return None


@dataclass(frozen=True)
class Outcome:
    """What an action on a file did: whether it worked, and one line saying so."""

    ok: bool
    message: str
