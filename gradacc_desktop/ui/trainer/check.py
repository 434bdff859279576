""" "Check my config": open (or drop anywhere on the window) an existing training
config (DeepSpeed, accelerate, axolotl, the Hugging Face Trainer or TRL, LLaMA-Factory,
torchtune, GPT-NeoX); the training description takes what it sets and the report, which
follows the description, says whether the framework runs it, what was read, each
verdict, and the memory and time it needs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QPushButton, QVBoxLayout, QWidget

from gradacc_desktop.ui.file_dialogs import ask_open_path
from gradacc_desktop.ui.planner.pairs import WrappedLabel
from gradacc_desktop.viewmodels.config_check import CheckViewModel
from gradacc_desktop.viewmodels.settings import Settings


class CheckPanel(QGroupBox):
    statusMessage = Signal(str)

    def __init__(
        self,
        vm: CheckViewModel,
        parent: QWidget | None = None,
        settings: Callable[[], Settings | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trainer_check")
        self._vm = vm
        self._settings = settings
        self.hint = WrappedLabel(self)
        self.hint.setObjectName("trainer_check_hint")
        self.open_button = QPushButton(self)
        self.open_button.setObjectName("trainer_check_open")
        self.report = WrappedLabel(self)
        self.report.setObjectName("trainer_check_report")
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.open_button)
        layout.addWidget(self.report)
        self.open_button.clicked.connect(self.open_dialog)
        # the report follows the description (its GPUs, model and card) once a file is read
        vm.reportChanged.connect(self.report.setText)
        self.report.setText(vm.report)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Check my config"))
        self.hint.setText(
            self.tr(
                "Open (Ctrl+O) or drop anywhere on the window a training config — DeepSpeed, "
                "accelerate, axolotl, Hugging Face Trainer or TRL, LLaMA-Factory, torchtune or "
                "GPT-NeoX: the description takes what it sets, and the report says whether "
                "that framework would run it and what it needs on your cards."
            )
        )
        self.open_button.setText(self.tr("Check &a file…"))
        self.open_button.setToolTip(self.tr("Read an existing training configuration"))

    def open_dialog(self) -> None:
        path = ask_open_path(
            self,
            self.tr("Open a training config"),
            self.tr("Training configs (*.json *.yaml *.yml);;All files (*)"),
            self._settings(),
        )
        if path is not None:
            self.check(path)

    def check(self, path: Path) -> bool:
        outcome = self._vm.check(path)
        self.report.setText(outcome.report)
        self.statusMessage.emit(outcome.message)
        return outcome.ok
