"""Scenario dialogs start in the documents folder, then where the user last went."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from gradacc_desktop.ui.file_dialogs import documents_folder, start_folder
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.settings import LAST_FOLDER, Settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder of our own (Qt reads $HOME each time) and Qt's widget dialogs."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    was = QCoreApplication.testAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs)
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, True)
    yield folder
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, was)


def _in_dialog(open_it: Callable[[], object], act: Callable[[QFileDialog], None]) -> str:
    """Run a blocking file dialog; return the folder it opened in after ``act`` ends it."""
    started: list[str] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(10, look)
            return
        try:
            started.append(dialog.directory().absolutePath())
            act(dialog)
        finally:  # never leave the test blocked in the dialog's event loop
            if dialog.isVisible():
                dialog.reject()

    QTimer.singleShot(0, look)
    open_it()
    assert started, "no file dialog showed"
    return started[0]


def _choose(path: Path) -> Callable[[QFileDialog], None]:
    def act(dialog: QFileDialog) -> None:
        dialog.selectFile(str(path))
        dialog.accept()

    return act


def _cancel(dialog: QFileDialog) -> None:
    dialog.reject()


def test_scenario_dialogs_start_in_documents_then_remember(
    window: MainWindow, settings: Settings, home: Path
) -> None:
    documents = home / "Documents"
    documents.mkdir()
    projects = home / "projetos"
    projects.mkdir()
    scenarios = window.scenarios
    assert settings.get(LAST_FOLDER) == ""

    # cancelling remembers nothing
    assert _in_dialog(scenarios.save_dialog, _cancel) == str(documents)
    assert settings.get(LAST_FOLDER) == ""

    # saving remembers the folder of the file ("plano" gets its .json)
    started = _in_dialog(scenarios.save_dialog, _choose(projects / "plano"))
    assert started == str(documents)
    saved = projects / "plano.json"
    assert json.loads(saved.read_text(encoding="utf-8"))
    assert settings.get(LAST_FOLDER) == str(projects)

    # the next dialog, open or save, starts there
    assert _in_dialog(scenarios.open_dialog, _choose(saved)) == str(projects)
    assert _in_dialog(scenarios.save_dialog, _cancel) == str(projects)


def test_opening_remembers_the_folder_too(
    window: MainWindow, settings: Settings, home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "cenarios"
    elsewhere.mkdir()
    scenarios = window.scenarios
    assert _in_dialog(scenarios.save_dialog, _choose(elsewhere / "a.json")) == str(home)
    other = tmp_path / "outros"
    other.mkdir()
    moved = other / "b.json"
    (elsewhere / "a.json").rename(moved)
    _in_dialog(scenarios.open_dialog, _choose(moved))
    assert settings.get(LAST_FOLDER) == str(other)


def test_start_folder_falls_back(home: Path, settings: Settings, tmp_path: Path) -> None:
    # no Documents folder: home
    assert documents_folder() == str(home)
    assert start_folder(None) == str(home)
    (home / "Documents").mkdir()
    assert start_folder(settings) == str(home / "Documents")
    # a remembered folder that was removed since: documents again
    gone = tmp_path / "gone"
    gone.mkdir()
    settings.set(LAST_FOLDER, str(gone))
    assert start_folder(settings) == str(gone)
    gone.rmdir()
    assert start_folder(settings) == str(home / "Documents")


@pytest.mark.parametrize(
    "stored",
    ["", "relative/folder", "file.json", 42, True, None, "/no/such/folder", "/tmp/\0bad"],
)
def test_last_folder_setting_accepts_only_an_existing_directory(
    settings: Settings, tmp_path: Path, stored: object
) -> None:
    if stored == "file.json":
        (tmp_path / "file.json").write_text("{}", encoding="utf-8")
        stored = str(tmp_path / "file.json")
    settings.store.setValue(LAST_FOLDER.key, stored)
    assert settings.get(LAST_FOLDER) == ""
    settings.store.setValue(LAST_FOLDER.key, str(tmp_path))
    assert settings.get(LAST_FOLDER) == str(tmp_path)
