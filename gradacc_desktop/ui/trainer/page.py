"""The "Configurações de treino" tab: the training description's configuration as each
framework's own files, and "check my config". Its setup is the description's, in the
panel beside it, so the plan, the exports and the scenario files always agree."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gradacc_desktop.ui.planner.pairs import WrappedLabel
from gradacc_desktop.ui.scroll_area import ScrollArea
from gradacc_desktop.ui.trainer.check import CheckPanel
from gradacc_desktop.ui.trainer.export import ExportPanel
from gradacc_desktop.viewmodels.config_check import CheckViewModel
from gradacc_desktop.viewmodels.exports import ExportViewModel
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.model import TrainingState


class TrainerPage(QWidget):
    statusMessage = Signal(str)

    def __init__(
        self, vm: ExportViewModel, check: CheckViewModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trainer_page")
        self.vm = vm
        # the main window hands over its settings: file dialogs start in the last folder
        self.settings: Settings | None = None
        self.summary = WrappedLabel(self)
        self.summary.setObjectName("trainer_summary")
        self.check = CheckPanel(check, self, settings=lambda: self.settings)
        self.export = ExportPanel(vm, self, settings=lambda: self.settings)
        # the files take the room; what is exported above them, the check below, its
        # report scrolling (a long report never makes the window taller than the screen)
        self.check_area = ScrollArea(self.check, self, focusable=True)
        self.check_area.setObjectName("trainer_check_area")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.export, 3)
        layout.addWidget(self.check_area, 2)
        self.export.statusMessage.connect(self.statusMessage)
        self.check.statusMessage.connect(self.statusMessage)
        vm.stateChanged.connect(self._show_summary)
        for first, second in pairwise(self.tab_chain()):
            self.setTabOrder(first, second)
        self._show_summary(vm.state)

    def _show_summary(self, _state: TrainingState) -> None:
        self.summary.setText(self.vm.summary())

    def tab_chain(self) -> list[QWidget]:
        return [
            self.export.format,
            self.export.files,
            self.export.preview,
            self.export.copy_button,
            self.export.save_button,
            self.check.open_button,
        ]

    def retranslate(self) -> None:
        self.check.retranslate()
        self.export.retranslate()
        self._show_summary(self.vm.state)

    def set_language(self, _locale: QLocale) -> None:
        self.retranslate()
