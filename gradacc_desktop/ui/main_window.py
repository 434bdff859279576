"""The main window: composes the parts, owns menus, clipboard and the status bar."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop import __version__
from gradacc_desktop.ui.calculator_page import CalculatorPage
from gradacc_desktop.ui.clipboard import copy_selection
from gradacc_desktop.ui.lazy_page import LazyPage
from gradacc_desktop.ui.main_tabs import MainTabs
from gradacc_desktop.ui.window_menus import WindowMenus
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.language import LanguageController
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

_log = logging.getLogger(__name__)

if TYPE_CHECKING:  # imported lazily at run time (or only named in annotations)
    from PySide6.QtWidgets import QPushButton

    from gradacc_desktop.ui.activation_dialog import ActivationDialog
    from gradacc_desktop.ui.details_panel import DetailsPanel
    from gradacc_desktop.ui.help_dialog import HelpDialog
    from gradacc_desktop.ui.inputs_panel import InputsPanel
    from gradacc_desktop.ui.pair_chart import ChartsPage, PairChart
    from gradacc_desktop.ui.planner.view import PlannerView
    from gradacc_desktop.ui.results_panel import ResultsPanel
    from gradacc_desktop.ui.scenario_dialogs import ScenarioDialogs
    from gradacc_desktop.ui.tradeoff_chart import TradeoffChart
    from gradacc_desktop.ui.trainer import TrainerPage
    from gradacc_desktop.ui.training.dialogs import CardSpeedDialog, ModelStatesDialog
    from gradacc_desktop.ui.training.panel import TrainingPanel
    from gradacc_desktop.viewmodels.pair_chart import PairChartViewModel
    from gradacc_desktop.viewmodels.planner import PlannerViewModel
    from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel
    from gradacc_desktop.viewmodels.training.model import TrainingViewModel
    from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel

STATUS_TIMEOUT_MS = 5000


CTRL = Qt.KeyboardModifier.ControlModifier


class MainWindow(QMainWindow):
    def __init__(
        self,
        vm: CalculatorViewModel,
        language: LanguageController,
        settings: Settings,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = vm
        self.language = language
        self.settings = settings
        self.setObjectName("main_window")

        self.calculator = CalculatorPage(vm, self)
        self.header = self.calculator.header
        self.tradeoff_vm: TradeoffViewModel | None = None  # with the chart
        self.pair_chart_vm: PairChartViewModel | None = None  # with the chart
        self.help_dialog: HelpDialog | None = None  # on the first F1 outside the calculator
        # The training description and its views are built when first needed (start-up
        # pays only for the calculator).
        self._training_vm: TrainingViewModel | None = None
        self._planner_vm: PlannerViewModel | None = None
        self._scenarios: ScenarioDialogs | None = None
        self._scenario_vm: ScenarioViewModel | None = None
        self.card_speed_dialog: CardSpeedDialog | None = None
        self.model_states_dialog: ModelStatesDialog | None = None
        self.planner_page: LazyPage[PlannerView] = LazyPage(
            self._make_planner, "planner_page", self
        )
        self.trainer_page: LazyPage[TrainerPage] = LazyPage(
            self._make_trainer, "trainer_page", self
        )
        self.chart_page: LazyPage[ChartsPage] = LazyPage(self._make_chart, "chart_page", self)
        self.tabs = MainTabs(self._make_description, self)
        self.tabs.setObjectName("main_tabs")
        self.tabs.addTab(self.calculator, "")
        self.tabs.addTab(self.planner_page, "", described=True)
        self.tabs.addTab(self.trainer_page, "", described=True)
        self.tabs.addTab(self.chart_page, "", described=True)
        # a shortcut of its own: the button's would be replaced by its text's mnemonic
        self.description_shortcut = QShortcut(QKeySequence("F9"), self)
        self.description_shortcut.activated.connect(self.tabs.toggle_side)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        self.tabs.sideToggled.connect(lambda shown: self.settings.set(DESCRIPTION_SHOWN, shown))

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 8)
        layout.setSpacing(10)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.menus = WindowMenus(self)
        self.copy_button.clicked.connect(self.copy_results)
        self.inputs.copyRequested.connect(self.copy_current)
        self.inputs.estimateRequested.connect(self.open_activation_estimator)
        self.details.toggled.connect(self._on_details_toggled)
        language.languageChanged.connect(self._on_language_changed)

        self.retranslate()
        self._restore()
        self.statusBar()

    # -- the calculator tab's parts ------------------------------------------
    @property
    def inputs(self) -> InputsPanel:
        return self.calculator.inputs

    @property
    def results(self) -> ResultsPanel:
        return self.calculator.results

    @property
    def copy_button(self) -> QPushButton:
        return self.calculator.copy_button

    @property
    def details(self) -> DetailsPanel:
        return self.calculator.details

    # -- construction -------------------------------------------------------
    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Gradient Accumulation Memory Calculator"))
        self.menus.retranslate()
        self.tabs.setTabText(0, self.tr("Calculator"))
        self.tabs.setTabText(1, self.tr("Plan a run"))
        self.tabs.setTabText(2, self.tr("Trainer configs"))
        self.tabs.setTabText(3, self.tr("Trade-off chart"))
        self.tabs.toggle.setText(self.tr("Training description"))
        self.tabs.toggle.setToolTip(self.tr("Show or hide the training description (F9)"))
        self.copy_button.setText(self.tr("&Copy results"))
        shortcut = self.menus.copy_action.shortcut().toString(
            QKeySequence.SequenceFormat.NativeText
        )
        self.copy_button.setToolTip(
            self.tr("Copy inputs and results to the clipboard ({shortcut})").format(
                shortcut=shortcut
            )
        )
        self.calculator.retranslate()

    # -- behaviour ----------------------------------------------------------
    def set_language(self, code: str) -> None:
        self.language.set_language(code)
        self.settings.set(LANGUAGE, self.language.language)

    def _on_language_changed(self, code: str) -> None:
        """The one route of a language switch (the new translators are installed):
        each part is told once. Widgets do not also react to Qt's LanguageChange."""
        locale = self.language.locale()
        self.setLocale(locale)
        charts = self.chart_page.built
        if charts is not None:  # their axes' numbers, before the views they are sent
            charts.set_locale(locale)
            charts.retranslate()
        # one new calculator state; the trade-off chart's view-model follows it (the pairs
        # chart's follows the planner's, below)
        self.vm.set_language(locale)
        self.inputs.set_locale(locale)
        for c, action in self.menus.language_actions.items():
            action.setChecked(c == code)
        self.retranslate()
        if self._training_vm is not None:  # one new description state, then its views
            self._training_vm.set_language(locale)
        side = self.tabs.side
        if side is not None:
            self.description.set_language(locale)
        if self.planner_page.built is not None:
            self.planner_page.built.set_language(locale)
        if self.trainer_page.built is not None:
            self.trainer_page.built.set_language(locale)
        if self.card_speed_dialog is not None:
            self.card_speed_dialog.set_language(locale)
        if self.model_states_dialog is not None:
            self.model_states_dialog.retranslate()
        if self.help_dialog is not None:
            self.help_dialog.retranslate()
        for dialog in self._activation_dialogs():
            dialog.set_language(locale)

    def _activation_dialogs(self) -> list[ActivationDialog]:
        """The estimator dialogs open over this window (none, and their module not even
        imported, before the first one)."""
        if "gradacc_desktop.ui.activation_dialog" not in sys.modules:
            return []
        from gradacc_desktop.ui.activation_dialog import ActivationDialog

        return self.findChildren(ActivationDialog)

    def step_tab(self, step: int) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Ctrl+Shift+Tab comes from X as Ctrl+Shift+Backtab, which no key sequence of the
        # previous-tab action matches and no widget handles: take it before the focused
        # field does (the tabs are a bar over a stack, not a QTabWidget)
        # (X sends no key press for it, only the shortcut override, once to the widget)
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Backtab
            and event.modifiers() & CTRL
            and isinstance(watched, QWidget)
            and watched.window() is self
        ):
            event.accept()
            self.step_tab(-1)
            return True
        return super().eventFilter(watched, event)

    def copy_current(self) -> None:
        """Copy (Ctrl+C): the selection where text is selected, else the current tab's
        results — the calculator's, the planner's plan with its pairs, the export file
        shown, the chart's data."""
        if copy_selection(QApplication.focusWidget()):
            self.statusBar().showMessage(self.tr("Selection copied."), STATUS_TIMEOUT_MS)
            return
        current = self.tabs.currentWidget()
        if current is self.planner_page:
            planner = self.planner
            text = planner.pairs.selected_text() if planner.pairs.table.hasFocus() else None
            if text is None:
                text = self.planner_vm.clipboard_text()
            self._copy_text(text, self.tr("Plan copied to the clipboard."))
        elif current is self.trainer_page:
            self.trainer.export.copy()
        elif current is self.chart_page:
            self._copy_chart()
        else:
            self.copy_results()

    def _copy_chart(self) -> None:
        """The data of the chart shown: the trade-off's curves or the pairs' table (or,
        when the pairs chart has no time to draw, why, in the status bar)."""
        charts = self.chart_page.content()
        assert self.tradeoff_vm is not None and self.pair_chart_vm is not None
        if charts.showing_pairs():
            text = self.pair_chart_vm.clipboard_text()
            if text is None:
                self.statusBar().showMessage(self.pair_chart_vm.empty_text(), STATUS_TIMEOUT_MS)
                return
        else:
            text = self.tradeoff_vm.clipboard_text()
        self._copy_text(text, self.tr("Chart data copied to the clipboard."))

    def _copy_text(self, text: str | None, done: str) -> None:
        if text is None:
            self.statusBar().showMessage(
                self.tr("Nothing copied: enter a value to see the results."), STATUS_TIMEOUT_MS
            )
            return
        QApplication.clipboard().setText(text)
        self.statusBar().showMessage(done, STATUS_TIMEOUT_MS)

    def show_help(self) -> None:
        """F1: help for the current tab, on screen (the calculator's is its Details)."""
        current = self.tabs.currentWidget()
        if current is self.calculator:
            self.open_details()
            return
        from gradacc_desktop.ui.help_dialog import HelpDialog
        from gradacc_desktop.viewmodels.help import HelpTopic

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self)
        topic = {
            self.planner_page: HelpTopic.PLANNER,
            self.trainer_page: HelpTopic.TRAINER,
        }.get(current, HelpTopic.CHART)
        self.help_dialog.show_topic(topic)

    def copy_results(self) -> None:
        text = self.vm.clipboard_text()
        html = self.vm.clipboard_html()
        if text is None or html is None:
            self.statusBar().showMessage(
                self.tr("Nothing copied: enter a value to see the results."), STATUS_TIMEOUT_MS
            )
            return
        mime = QMimeData()
        mime.setText(text)
        mime.setHtml(html)
        QApplication.clipboard().setMimeData(mime)
        self.statusBar().showMessage(self.tr("Results copied to the clipboard."), STATUS_TIMEOUT_MS)

    def _show_status(self, message: str) -> None:
        self.statusBar().showMessage(message, STATUS_TIMEOUT_MS)

    def open_activation_estimator(self) -> ActivationDialog:
        from gradacc_desktop.ui.activation_dialog import open_activation_dialog

        return open_activation_dialog(self.vm, self, self.settings)

    # -- lazily built tabs ------------------------------------------------------
    @property
    def planner(self) -> PlannerView:
        """The planner (built on first use: its tab, a scenario action or the chart)."""
        return self.planner_page.content()

    @property
    def chart(self) -> TradeoffChart | None:
        """The trade-off chart, if the chart tab is built."""
        charts = self.chart_page.built
        return None if charts is None else charts.tradeoff

    @property
    def pair_chart(self) -> PairChart | None:
        """The pairs chart (time against memory), if the chart tab is built."""
        charts = self.chart_page.built
        return None if charts is None else charts.pairs

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

            training = TrainingViewModel(self.language.locale(), self)
            self._training_vm = training
            self._scenario_vm = ScenarioViewModel(training, self.vm, self)
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

            self._planner_vm = PlannerViewModel(self.training_vm, self.vm, self)
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
                self._scenario_vm, self, settings=lambda: self.settings
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
        panel.trainingConfigDropped.connect(self.check_training_config)
        return panel

    def check_training_config(self, path: Path) -> bool:
        """Read a trainer's config (opened or dropped anywhere it is accepted): the
        trainer tab shows the report and the description takes what the file sets."""
        self.tabs.setCurrentWidget(self.trainer_page)
        return self.trainer.check.check(path)

    def open_model_states(self) -> ModelStatesDialog:
        """The model states behind the other memory, component by component."""
        from gradacc_desktop.ui.training.dialogs import ModelStatesDialog
        from gradacc_desktop.viewmodels.model_states import ModelStatesViewModel

        if self.model_states_dialog is None:
            vm = ModelStatesViewModel(self.training_vm, self)
            self.model_states_dialog = ModelStatesDialog(vm, self)
        self.model_states_dialog.show()
        self.model_states_dialog.raise_()
        self.model_states_dialog.activateWindow()
        return self.model_states_dialog

    def open_card_speed(self) -> CardSpeedDialog:
        """The card's speed (the custom card's is typed in there)."""
        from gradacc_desktop.ui.training.dialogs import CardSpeedDialog

        if self.card_speed_dialog is None:
            self.card_speed_dialog = CardSpeedDialog(self.training_vm, self)
        self.card_speed_dialog.show()
        self.card_speed_dialog.raise_()
        self.card_speed_dialog.activateWindow()
        return self.card_speed_dialog

    def _make_planner(self, parent: QWidget) -> PlannerView:
        from gradacc_desktop.ui.planner.view import PlannerView
        from gradacc_desktop.viewmodels.search import SearchViewModel

        search = SearchViewModel(self.training_vm, self)
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
        page = TrainerPage(ExportViewModel(training, self), CheckViewModel(training, self), parent)
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
        self.tradeoff_vm = TradeoffViewModel(self.training_vm, self)
        self.pair_chart_vm = PairChartViewModel(self.planner_vm, self)
        charts = ChartsPage(TradeoffChart(self.tradeoff_vm), PairChart(self.pair_chart_vm), parent)
        charts.set_locale(self.language.locale())  # before their first views are drawn
        return charts

    def restore_defaults(self) -> None:
        self.vm.restore_defaults()
        self.statusBar().showMessage(self.tr("Default values restored."), STATUS_TIMEOUT_MS)

    def open_details(self) -> None:
        self.tabs.setCurrentWidget(self.calculator)
        self.details.set_open(True)
        self.details.browser.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_details_toggled(self, opened: bool) -> None:
        self.settings.set(DETAILS_OPEN, opened)

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About {app}").format(app=self.windowTitle()),
            self.tr(
                "<h3>{app}</h3><p>Version {version}</p>"
                "<p>Effective batch size and activation memory per GPU for gradient "
                "accumulation.</p><p>Works offline: the app never connects to the network.</p>"
                "<p>Free software under the MIT license.</p>"
            ).format(app=self.windowTitle(), version=__version__),
        )

    # -- persistence --------------------------------------------------------
    def _restore(self) -> None:
        geometry = self.settings.get(GEOMETRY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1100, 780)
        self.details.set_open(self.settings.get(DETAILS_OPEN))
        self.tabs.set_side_wanted(self.settings.get(DESCRIPTION_SHOWN))
        self.tabs.setCurrentIndex(self.settings.get(TAB))

    def save_state(self) -> None:
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

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
