"""The "Treino" tab: the planner's configuration as each framework's own files.

Left: the training setup (nodes, tensor and pipeline parallelism, ZeRO, precision,
offload), what the time per step is estimated from, the configuration being exported
and "check my config"; right: the export (format, a tab per file, the
file's text, copy and save). Everything reads and writes the planner's view-model,
so the planner, its scenarios and this tab always agree."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from gradacc_desktop.ui.planner.pairs import WrappedLabel
from gradacc_desktop.ui.planner.view import ScrollArea
from gradacc_desktop.ui.trainer.check import CheckPanel
from gradacc_desktop.ui.trainer.export import ExportPanel
from gradacc_desktop.ui.trainer.setup import SetupPanel, TimeSetupPanel
from gradacc_desktop.viewmodels.planner import PlannerState, PlannerViewModel
from gradacc_desktop.viewmodels.settings import Settings


class TrainerPage(QWidget):
    statusMessage = Signal(str)

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trainer_page")
        self.vm = vm
        # the main window hands over its settings: file dialogs start in the last folder
        self.settings: Settings | None = None
        self.summary = WrappedLabel(self)
        self.summary.setObjectName("trainer_summary")
        self.setup = SetupPanel(vm, self)
        self.time = TimeSetupPanel(vm, self, settings=lambda: self.settings)
        self.check = CheckPanel(vm, self, settings=lambda: self.settings)
        self.export = ExportPanel(vm, self, settings=lambda: self.settings)
        # the setup, the time inputs and the check scroll together in a small window
        column = QWidget(self)
        left = QVBoxLayout(column)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.summary)
        left.addWidget(self.setup)
        left.addWidget(self.time)
        left.addWidget(self.check)
        left.addStretch(1)
        self.left_area = ScrollArea(column, self, focusable=False)
        self.left_area.setObjectName("trainer_left_area")
        self.left_area.setMinimumWidth(
            column.minimumSizeHint().width() + self.left_area.verticalScrollBar().sizeHint().width()
        )
        layout = QHBoxLayout(self)
        layout.addWidget(self.left_area, 2)
        layout.addWidget(self.export, 3)
        self.export.statusMessage.connect(self.statusMessage)
        self.check.statusMessage.connect(self.statusMessage)
        self.time.statusMessage.connect(self.statusMessage)
        vm.stateChanged.connect(self._show_summary)
        for first, second in pairwise(self.tab_chain()):
            self.setTabOrder(first, second)
        self._show_summary(vm.state)

    def _show_summary(self, state: PlannerState) -> None:
        config = state.results.configuration if state.results is not None else None
        if config is None:
            text = self.tr("The planner has no configuration yet: fill in “Plan a run”.")
        else:
            # the formula never breaks across lines
            text = self.tr("Exporting the planner’s configuration: {formula}.").format(
                formula=config.formula.replace(" ", "\u00a0")
            )
        self.summary.setText(text)

    def tab_chain(self) -> list[QWidget]:
        return [
            *self.setup.tab_chain(),
            *self.time.tab_chain(),
            self.check.open_button,
            self.export.format,
            self.export.files,
            self.export.preview,
            self.export.copy_button,
            self.export.save_button,
        ]

    def retranslate(self) -> None:
        self.setup.retranslate()
        self.time.retranslate()
        self.check.retranslate()
        self.export.retranslate()
        self._show_summary(self.vm.state)

    def set_language(self, locale: QLocale) -> None:
        self.setup.set_language(locale)
        self.time.set_language(locale)
        self.retranslate()
