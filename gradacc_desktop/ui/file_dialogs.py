"""Open and save dialogs that start where the user last opened or saved a file.

The first time (or when that folder is gone) they start in the user's documents
folder, or in the home folder when there is none. Native dialogs are used where
the platform has them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QDir, QStandardPaths
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from gradacc_desktop.viewmodels.settings import LAST_FOLDER, Settings


def documents_folder() -> str:
    """The user's documents folder if it exists, else the home folder."""
    location = QStandardPaths.StandardLocation.DocumentsLocation
    documents = QStandardPaths.writableLocation(location)
    if documents and Path(documents).is_dir():
        return documents
    return QDir.homePath()


def start_folder(settings: Settings | None) -> str:
    """Where a file dialog opens: the remembered folder, else the documents folder."""
    remembered = settings.get(LAST_FOLDER) if settings is not None else ""
    return remembered or documents_folder()


def remember_folder(settings: Settings | None, chosen: Path) -> None:
    if settings is not None:
        folder = chosen.parent
        if folder.is_dir():
            settings.set(LAST_FOLDER, str(folder))


def _run(dialog: QFileDialog, settings: Settings | None, is_folder: bool = False) -> Path | None:
    """Show ``dialog``; the chosen path, remembering its folder (or itself, for a
    folder picker) for the next dialog."""
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        files = dialog.selectedFiles()
    finally:
        dialog.deleteLater()
    if not files or not files[0]:
        return None
    chosen = Path(files[0])
    if is_folder:
        if settings is not None and chosen.is_dir():
            settings.set(LAST_FOLDER, str(chosen))
    else:
        remember_folder(settings, chosen)
    return chosen


def ask_open_path(
    parent: QWidget | None, title: str, name_filter: str, settings: Settings | None
) -> Path | None:
    """An existing file the user picked, or None when they cancelled."""
    dialog = QFileDialog(parent, title, start_folder(settings), name_filter)
    dialog.setObjectName("open_file_dialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    return _run(dialog, settings)


def ask_save_path(
    parent: QWidget | None,
    title: str,
    file_name: str,
    name_filter: str,
    settings: Settings | None,
    default_suffix: str = "",
) -> Path | None:
    """Where to save (``file_name`` suggested), or None when the user cancelled.

    ``default_suffix`` (without the dot) is added by the dialog to a name typed
    without one, before it asks whether to replace an existing file.
    """
    dialog = QFileDialog(parent, title, start_folder(settings), name_filter)
    dialog.setObjectName("save_file_dialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    if default_suffix:
        dialog.setDefaultSuffix(default_suffix)
    if file_name:
        dialog.selectFile(file_name)
    return _run(dialog, settings)


def ask_folder(parent: QWidget | None, title: str, settings: Settings | None) -> Path | None:
    """A folder the user picked (to save several files into), or None when cancelled."""
    dialog = QFileDialog(parent, title, start_folder(settings))
    dialog.setObjectName("folder_dialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    return _run(dialog, settings, is_folder=True)
