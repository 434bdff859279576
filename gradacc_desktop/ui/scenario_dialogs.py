"""Saving and opening scenario files from the window: the file dialogs, the status line
and, when a file is refused, a message box that says why (the view-model's words)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from gradacc_desktop.ui.file_dialogs import ask_open_path, ask_save_path
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel


class ScenarioDialogs(QObject):
    statusMessage = Signal(str)

    def __init__(
        self,
        vm: ScenarioViewModel,
        window: QWidget,
        settings: Callable[[], Settings | None] = lambda: None,
        open_path: Callable[[Path], object] | None = None,
    ) -> None:
        super().__init__(window)
        self.vm = vm
        self._window = window
        self._settings = settings
        # where a picked file goes: the window's (a trainer's config goes to the check)
        self._open_path = self.open if open_path is None else open_path

    def save_dialog(self) -> None:
        if self.vm.unsaved_problems():  # say why before asking where
            self.save(Path())
            return
        path = ask_save_path(
            self._window,
            self.tr("Save scenario"),
            self.tr("scenario.json"),
            self._filter(),
            self._settings(),
            default_suffix="json",
        )
        if path is not None:
            if path.suffix.lower() != ".json":
                path = path.with_name(path.name + ".json")
            self.save(path)

    def open_dialog(self) -> None:
        path = ask_open_path(
            self._window, self.tr("Open scenario"), self._filter(), self._settings()
        )
        if path is not None:
            self._open_path(path)

    def save(self, path: Path) -> bool:
        outcome = self.vm.save(path)
        self._report(outcome.ok, outcome.message, self.tr("Save scenario"))
        return outcome.ok

    def open(self, path: Path) -> bool:
        outcome = self.vm.open(path)
        self._report(outcome.ok, outcome.message, self.tr("Open scenario"))
        return outcome.ok

    def _report(self, ok: bool, message: str, title: str) -> None:
        self.statusMessage.emit(message)
        if not ok:
            box = QMessageBox(QMessageBox.Icon.Warning, title, message, parent=self._window)
            box.setObjectName("scenario_error")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    def _filter(self) -> str:
        return self.tr("Scenarios (*.json)")
