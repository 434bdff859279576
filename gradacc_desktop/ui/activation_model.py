"""The estimator's model source: open (or drop) a config.json, and what was read.

A button opens the file picker; the dialog forwards dropped files here too. The
view-model reads the file; this part only shows its summary (class, profile,
parameters) or why the file was not opened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from gradacc_desktop.ui.file_dialogs import ask_open_path
from gradacc_desktop.ui.planner.pairs import WrappedLabel
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.activation import ActivationState, ActivationViewModel
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.shared_texts import say


class ModelSourcePanel(QWidget):
    def __init__(
        self,
        vm: ActivationViewModel,
        parent: QWidget | None = None,
        settings: Callable[[], Settings | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("activation_model_source")
        self._vm = vm
        self._settings = settings
        self.open_button = QPushButton(self)
        self.open_button.setObjectName("activation_open_config")
        self.open_button.clicked.connect(self.open_dialog)
        self.summary = WrappedLabel(self)
        self.summary.setObjectName("activation_model_summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = WrappedLabel(self)
        self.error.setObjectName("activation_load_error")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.summary)
        layout.addWidget(self.error)

    def retranslate(self) -> None:
        self.open_button.setText(say(shared.OPEN_CONFIG_BUTTON))
        self.open_button.setToolTip(
            self.tr(
                "Read the model's Hugging Face config.json (or drop it on this window): every "
                "size and the family profile come from it. Nothing is downloaded."
            )
        )

    def show_state(self, state: ActivationState) -> None:
        self.summary.setText(state.model_summary)
        self.summary.setVisible(bool(state.model_summary))
        self.error.setText(state.load_error)
        self.error.setVisible(bool(state.load_error))
        self.error.setStyleSheet(f"color: {verdict_colour(self.palette(), ok=False).name()};")

    def open_dialog(self) -> None:
        path = ask_open_path(
            self,
            say(shared.OPEN_CONFIG_TITLE),
            self.tr("Model configuration (*.json);;All files (*)"),
            self._settings(),
        )
        if path is not None:
            self.open(path)

    def open(self, path: Path) -> bool:
        return self._vm.open_config(str(path))
