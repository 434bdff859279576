"""The main window's views built on first use: the training description and its
view-models, the planner, trainer and chart tabs, the dialogs they open, help and the
estimator.

``WindowViews`` is a part of ``MainWindow`` (a mix-in: it names what it uses of the
window below, and the window sets those up before anything here runs). Start-up pays
for none of it: each import below runs the first time its view is needed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from gradacc_desktop.ui.lazy_page import LazyPage
from gradacc_desktop.viewmodels.settings import (
    EXPORT_FORMAT,
    PLANNER,
    REFERENCE_BATCH,
    REFERENCE_LR,
    SPEED_PROFILE,
    Settings,
)

_log = logging.getLogger(__name__)

if TYPE_CHECKING:  # imported lazily at run time (or only named in annotations)
    from gradacc_desktop.ui.activation_dialog import ActivationDialog
    from gradacc_desktop.ui.calculator_page import CalculatorPage
    from gradacc_desktop.ui.help_dialog import HelpDialog
    from gradacc_desktop.ui.main_tabs import MainTabs
    from gradacc_desktop.ui.pair_chart import ChartsPage, PairChart
    from gradacc_desktop.ui.planner.view import PlannerView
    from gradacc_desktop.ui.scenario_dialogs import ScenarioDialogs
    from gradacc_desktop.ui.tradeoff_chart import TradeoffChart
    from gradacc_desktop.ui.trainer import TrainerPage
    from gradacc_desktop.ui.training.dialogs import CardSpeedDialog, ModelStatesDialog
    from gradacc_desktop.ui.training.panel import TrainingPanel
    from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
    from gradacc_desktop.viewmodels.language import LanguageController
    from gradacc_desktop.viewmodels.pair_chart import PairChartViewModel
    from gradacc_desktop.viewmodels.planner import PlannerViewModel
    from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel
    from gradacc_desktop.viewmodels.training.model import TrainingViewModel
    from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel


class WindowViews:
    """The lazily built views of ``MainWindow`` (see the module's docstring)."""

    # -- what the window provides ---------------------------------------------------
    vm: CalculatorViewModel
    language: LanguageController
    settings: Settings
    calculator: CalculatorPage
    tabs: MainTabs
    planner_page: LazyPage[PlannerView]
    trainer_page: LazyPage[TrainerPage]
    chart_page: LazyPage[ChartsPage]

    if TYPE_CHECKING:  # the window's own methods

        def copy_current(self) -> None: ...
        def open_details(self) -> None: ...
        def _show_status(self, message: str) -> None: ...

    # -- built here, on first use ------------------------------------------------------
    def _init_views(self) -> None:
        """Nothing built yet (called first thing by the window, before its tabs)."""
        assert isinstance(self, QWidget)
        self.tradeoff_vm: TradeoffViewModel | None = None  # with the chart
        self.pair_chart_vm: PairChartViewModel | None = None  # with the chart
        self.help_dialog: HelpDialog | None = None  # on the first F1 outside the calculator
        self._training_vm: TrainingViewModel | None = None
        self._planner_vm: PlannerViewModel | None = None
        self._scenarios: ScenarioDialogs | None = None
        self._scenario_vm: ScenarioViewModel | None = None
        self.card_speed_dialog: CardSpeedDialog | None = None
        self.model_states_dialog: ModelStatesDialog | None = None
        self.planner_page = LazyPage(self._make_planner, "planner_page", self)
        self.trainer_page = LazyPage(self._make_trainer, "trainer_page", self)
        self.chart_page = LazyPage(self._make_chart, "chart_page", self)

    def _parent(self) -> QWidget:
        """The window itself, as the Qt parent of what is built here."""
        assert isinstance(self, QWidget)
        return self

    def show_help(self) -> None:
        """F1: help for the current tab, on screen (the calculator's is its Details)."""
        current = self.tabs.currentWidget()
        if current is self.calculator:
            self.open_details()
            return
        from gradacc_desktop.ui.help_dialog import HelpDialog
        from gradacc_desktop.viewmodels.help import HelpTopic

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self._parent())
        topic = {
            self.planner_page: HelpTopic.PLANNER,
            self.trainer_page: HelpTopic.TRAINER,
        }.get(current, HelpTopic.CHART)
        self.help_dialog.show_topic(topic)

    def open_activation_estimator(self) -> ActivationDialog:
        from gradacc_desktop.ui.activation_dialog import open_activation_dialog

        described = None if self._training_vm is None else self._training_vm.description
        return open_activation_dialog(self.vm, self._parent(), self.settings, described)

    # -- the tabs ----------------------------------------------------------------------
    @property
    def planner(self) -> PlannerView:
        """The planner (built on first use: its tab, a scenario action or the chart)."""
        return self.planner_page.content()

    @property
    def chart(self) -> TradeoffChart | None:
        """The trade-off chart, if the chart tab is built."""
        charts = self.chart_page.built
        return None if charts is None else charts.tradeoff

    def show_chart(self) -> TradeoffChart:
        """Switch to the chart tab and its trade-off chart, building them on first use."""
        self.tabs.setCurrentWidget(self.chart_page)
        charts = self.chart_page.content()
        charts.show_pairs(False)
        return charts.tradeoff

    def show_pair_chart(self) -> PairChart:
        """Switch to the chart tab and its pairs chart, building them on first use."""
        self.tabs.setCurrentWidget(self.chart_page)
        charts = self.chart_page.content()
        charts.show_pairs()
        return charts.pairs

    # -- the training description and its views ----------------------------------------
    @property
    def training_vm(self) -> TrainingViewModel:
        """The training description (built on first use, with what the settings keep)."""
        if self._training_vm is None:
            from gradacc_desktop.viewmodels.training.model import TrainingViewModel
            from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel

            training = TrainingViewModel(self.language.locale(), self._parent())
            self._training_vm = training
            self._scenario_vm = ScenarioViewModel(training, self.vm, self._parent())
            remembered = self.settings.get(PLANNER)
            if remembered is not None and not self._scenario_vm.restore_remembered(remembered):
                _log.warning("the remembered training description is not readable: ignored")
            profile = self.settings.get(SPEED_PROFILE)
            if profile is not None and not training.restore_profile(profile):
                _log.warning("the remembered speed profile is not readable: ignored")
        return self._training_vm

    @property
    def planner_vm(self) -> PlannerViewModel:
        if self._planner_vm is None:
            from gradacc_desktop.viewmodels.planner import PlannerViewModel

            self._planner_vm = PlannerViewModel(
                self.training_vm, self.vm, self._parent(), settings=self.settings
            )
            self._planner_vm.set_reference(
                self.settings.get(REFERENCE_LR), self.settings.get(REFERENCE_BATCH)
            )
        return self._planner_vm

    @property
    def scenarios(self) -> ScenarioDialogs:
        """Scenario files: the description and the calculator's inputs (their dialogs)."""
        if self._scenarios is None:
            from gradacc_desktop.ui.scenario_dialogs import ScenarioDialogs

            self.training_vm  # noqa: B018 - built (and restored) before its scenarios
            assert self._scenario_vm is not None
            self._scenarios = ScenarioDialogs(
                self._scenario_vm,
                self._parent(),
                settings=lambda: self.settings,
                open_path=self.open_file,
            )
            self._scenarios.statusMessage.connect(self._show_status)
        return self._scenarios

    @property
    def description(self) -> TrainingPanel:
        """The training description panel (built on first use)."""
        panel = self.tabs.side_panel()
        from gradacc_desktop.ui.training.panel import TrainingPanel

        assert isinstance(panel, TrainingPanel)
        return panel

    def _make_description(self, parent: QWidget) -> TrainingPanel:
        from gradacc_desktop.ui.training.panel import TrainingPanel

        panel = TrainingPanel(self.training_vm, parent, settings=lambda: self.settings)
        panel.statusMessage.connect(self._show_status)
        panel.copyRequested.connect(self.copy_current)
        panel.modelStatesRequested.connect(self.open_model_states)
        panel.cardSpeedRequested.connect(self.open_card_speed)
        return panel

    def check_training_config(self, path: Path) -> bool:
        """Read a trainer's config: the trainer tab shows the report and the description
        takes what the file sets."""
        self.tabs.setCurrentWidget(self.trainer_page)
        return self.trainer.check.check(path)

    def open_training_config(self) -> None:
        """File → Open training config… (Ctrl+O): the trainer tab's check asks for it."""
        self.tabs.setCurrentWidget(self.trainer_page)
        self.trainer.check.open_dialog()

    def open_file(self, path: Path) -> bool:
        """A file opened or dropped anywhere on the window goes where it belongs: a
        trainer's config to the check and the description, a model's config.json to the
        description's model, anything else is opened as a scenario (which says why it
        is not one)."""
        from gradacc_desktop.core.scenario import FileKind, file_kind

        kind = file_kind(path)
        if kind is FileKind.TRAINING_CONFIG:
            return self.check_training_config(path)
        if kind is FileKind.MODEL_CONFIG:
            if self.tabs.currentWidget() is self.calculator:
                self.tabs.setCurrentWidget(self.planner_page)
            self.tabs.toggle.setChecked(True)  # the model is shown where it went
            return self.description.open_config_file(path)
        return self.scenarios.open(path)

    def open_model_states(self) -> ModelStatesDialog:
        """The model states behind the other memory, component by component."""
        from gradacc_desktop.ui.training.dialogs import ModelStatesDialog
        from gradacc_desktop.viewmodels.model_states import ModelStatesViewModel

        if self.model_states_dialog is None:
            vm = ModelStatesViewModel(self.training_vm, self._parent())
            self.model_states_dialog = ModelStatesDialog(vm, self._parent())
        self.model_states_dialog.show()
        self.model_states_dialog.raise_()
        self.model_states_dialog.activateWindow()
        return self.model_states_dialog

    def open_card_speed(self) -> CardSpeedDialog:
        """The card's speed (the custom card's is typed in there)."""
        from gradacc_desktop.ui.training.dialogs import CardSpeedDialog

        if self.card_speed_dialog is None:
            self.card_speed_dialog = CardSpeedDialog(self.training_vm, self._parent())
        self.card_speed_dialog.show()
        self.card_speed_dialog.raise_()
        self.card_speed_dialog.activateWindow()
        return self.card_speed_dialog

    def _make_planner(self, parent: QWidget) -> PlannerView:
        from gradacc_desktop.ui.planner.view import PlannerView
        from gradacc_desktop.viewmodels.search import SearchViewModel

        search = SearchViewModel(self.training_vm, self._parent())
        planner = PlannerView(self.planner_vm, search, parent)
        planner.statusMessage.connect(self._show_status)
        planner.copyRequested.connect(self.copy_current)
        planner.useConfigurationRequested.connect(
            lambda: self.tabs.setCurrentWidget(self.calculator)
        )
        planner.retranslate()
        return planner

    @property
    def trainer(self) -> TrainerPage:
        """The trainer configs tab (built on first use)."""
        return self.trainer_page.content()

    def _make_trainer(self, parent: QWidget) -> TrainerPage:
        from gradacc_desktop.ui.trainer import TrainerPage
        from gradacc_desktop.viewmodels.config_check import CheckViewModel
        from gradacc_desktop.viewmodels.exports import ExportViewModel

        training = self.training_vm
        page = TrainerPage(
            ExportViewModel(training, self._parent()),
            CheckViewModel(training, self._parent()),
            parent,
        )
        page.settings = self.settings
        if (export_format := self.settings.get(EXPORT_FORMAT)) is not None:
            page.export.set_format(export_format)
        page.statusMessage.connect(self._show_status)
        return page

    def _make_chart(self, parent: QWidget) -> ChartsPage:
        from gradacc_desktop.ui.pair_chart import ChartsPage, PairChart
        from gradacc_desktop.ui.tradeoff_chart import TradeoffChart
        from gradacc_desktop.viewmodels.pair_chart import PairChartViewModel
        from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel

        # both charts follow the training description's plan
        self.tradeoff_vm = TradeoffViewModel(self.training_vm, self._parent())
        self.pair_chart_vm = PairChartViewModel(self.planner_vm, self._parent())
        charts = ChartsPage(TradeoffChart(self.tradeoff_vm), PairChart(self.pair_chart_vm), parent)
        charts.set_locale(self.language.locale())  # before their first views are drawn
        return charts
