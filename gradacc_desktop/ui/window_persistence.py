"""What the main window remembers between sessions: geometry, the tab, the Details and
description panels, the inputs, and the state of the views built in this session.

``WindowPersistence`` is a part of ``MainWindow`` (a mix-in). Restoring reads only the
few settings the first window shows; what the other views keep is read when they are
first built (``WindowViews``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

from gradacc_desktop.ui.screen_fit import fit_to_screen
from gradacc_desktop.viewmodels.settings import (
    DESCRIPTION_SHOWN,
    DETAILS_OPEN,
    EXPORT_FORMAT,
    GEOMETRY,
    LANGUAGE,
    PLANNER,
    REFERENCE_BATCH,
    REFERENCE_LR,
    SPEED_PROFILE,
    TAB,
    Settings,
)

if TYPE_CHECKING:
    from gradacc_desktop.ui.details_panel import DetailsPanel
    from gradacc_desktop.ui.lazy_page import LazyPage
    from gradacc_desktop.ui.main_tabs import MainTabs
    from gradacc_desktop.ui.trainer import TrainerPage
    from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
    from gradacc_desktop.viewmodels.language import LanguageController
    from gradacc_desktop.viewmodels.planner import PlannerViewModel
    from gradacc_desktop.viewmodels.training.model import TrainingViewModel
    from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel

#: the window's size when nothing (readable) is remembered
DEFAULT_SIZE = (1100, 780)


class WindowPersistence:
    """Restore and save the main window's state (see the module's docstring)."""

    vm: CalculatorViewModel
    language: LanguageController
    settings: Settings
    tabs: MainTabs
    trainer_page: LazyPage[TrainerPage]
    _training_vm: TrainingViewModel | None
    _scenario_vm: ScenarioViewModel | None
    _planner_vm: PlannerViewModel | None

    if TYPE_CHECKING:

        @property
        def details(self) -> DetailsPanel: ...

    def restore_state(self) -> None:
        assert isinstance(self, QMainWindow)
        geometry = self.settings.get(GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(*DEFAULT_SIZE)
        # inside the screen it opens on (a remembered size from a larger screen too)
        fit_to_screen(self, self.width(), self.height())
        self.details.set_open(self.settings.get(DETAILS_OPEN))
        self.tabs.set_side_wanted(self.settings.get(DESCRIPTION_SHOWN))
        self.tabs.setCurrentIndex(self.settings.get(TAB))

    def save_state(self) -> None:
        assert isinstance(self, QMainWindow)
        self.settings.set_inputs(self.vm.last_valid_inputs)
        self.settings.set(GEOMETRY, self.saveGeometry())
        self.settings.set(DETAILS_OPEN, self.details.is_open())
        self.settings.set(LANGUAGE, self.language.language)
        self.settings.set(TAB, self.tabs.currentIndex())
        if self._scenario_vm is not None and self._training_vm is not None:
            self.settings.set(PLANNER, self._scenario_vm.remembered())
            self.settings.set(SPEED_PROFILE, self._training_vm.remembered_profile())
        if self._planner_vm is not None:
            lr, batch = self._planner_vm.reference()
            self.settings.set(REFERENCE_LR, lr)
            self.settings.set(REFERENCE_BATCH, batch)
        trainer = self.trainer_page.built
        if trainer is not None:
            self.settings.set(EXPORT_FORMAT, trainer.export.current_format())
        self.settings.sync()
