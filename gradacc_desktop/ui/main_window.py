"""The main window: composes the parts, owns the status bar, clipboard and language.

Its parts: the calculator page, the tabs (``MainTabs``), the menus (``WindowMenus``),
the views built on first use (``WindowViews``: the description, planner, trainer,
chart, dialogs), what it remembers (``WindowPersistence``) and Ctrl+Shift+Tab
(``PreviousTabKey``). Start-up builds only the calculator tab.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, Qt, QTimer
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import QApplication, QMainWindow, QVBoxLayout, QWidget

from gradacc_desktop import __version__
from gradacc_desktop.ui.calculator_page import CalculatorPage
from gradacc_desktop.ui.drops import accept_file_drag, dropped_file
from gradacc_desktop.ui.main_tabs import MainTabs
from gradacc_desktop.ui.screen_fit import fit_to_screen
from gradacc_desktop.ui.window_menus import WindowMenus
from gradacc_desktop.ui.window_persistence import WindowPersistence
from gradacc_desktop.ui.window_tab_keys import PreviousTabKey
from gradacc_desktop.ui.window_views import WindowViews
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.language import LanguageController
from gradacc_desktop.viewmodels.settings import DESCRIPTION_SHOWN, DETAILS_OPEN, LANGUAGE, Settings

if TYPE_CHECKING:  # imported lazily at run time (or only named in annotations)
    from PySide6.QtWidgets import QPushButton

    from gradacc_desktop.ui.activation_dialog import ActivationDialog
    from gradacc_desktop.ui.details_panel import DetailsPanel
    from gradacc_desktop.ui.inputs_panel import InputsPanel
    from gradacc_desktop.ui.results_panel import ResultsPanel

STATUS_TIMEOUT_MS = 5000


class MainWindow(WindowViews, WindowPersistence, QMainWindow):
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
        self._init_views()  # the other tabs' pages, empty until first shown
        self.tabs = MainTabs(self._make_description, self)
        self.tabs.setObjectName("main_tabs")
        self.tabs.addTab(self.calculator, "")
        self.tabs.addTab(self.planner_page, "", described=True)
        self.tabs.addTab(self.trainer_page, "", described=True)
        self.tabs.addTab(self.chart_page, "", described=True)
        # a shortcut of its own: the button's would be replaced by its text's mnemonic
        self.description_shortcut = QShortcut(QKeySequence("F9"), self)
        self.description_shortcut.activated.connect(self.tabs.toggle_side)
        self.previous_tab_key = PreviousTabKey(self, lambda: self.step_tab(-1))
        self.tabs.sideToggled.connect(lambda shown: self.settings.set(DESCRIPTION_SHOWN, shown))

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 8)
        layout.setSpacing(10)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.menus = WindowMenus(self, self)
        self.copy_button.clicked.connect(self.copy_results)
        self.inputs.copyRequested.connect(self.copy_current)
        self.inputs.estimateRequested.connect(self.open_activation_estimator)
        self.details.toggled.connect(self._on_details_toggled)
        language.languageChanged.connect(self._on_language_changed)

        # a file dropped anywhere on the window goes where it belongs (``open_file``)
        self.setAcceptDrops(True)
        self.retranslate()
        self.restore_state()
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

    @property
    def current_language(self) -> str:
        return self.language.language

    # -- construction -------------------------------------------------------
    def retranslate(self) -> None:
        self.setWindowTitle(self.vm.title())
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

    def copy_current(self) -> None:
        """Copy (Ctrl+C): the selection where text is selected, else the current tab's
        results — the calculator's, the planner's plan with its pairs, the export file
        shown, the chart's data."""
        from gradacc_desktop.ui.clipboard import copy_selection

        if copy_selection(QApplication.focusWidget()):
            self.statusBar().showMessage(self.tr("Selection copied."), STATUS_TIMEOUT_MS)
            return
        current = self.tabs.currentWidget()
        if current is self.planner_page:
            pairs = self.planner.pairs
            if pairs.table.hasFocus() and pairs.selected_text() is not None:
                pairs.copy_selection()  # the cells, and the status bar says so
                return
            self._copy_text(
                self.planner_vm.clipboard_text(), self.tr("Plan copied to the clipboard.")
            )
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
        self.calculator.copied.say(self.tr("Copied"))

    def _show_status(self, message: str) -> None:
        self.statusBar().showMessage(message, STATUS_TIMEOUT_MS)

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
        from PySide6.QtWidgets import QMessageBox  # its Python class costs start-up 2 ms

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

    def resizeEvent(self, event: QResizeEvent) -> None:
        # a page built on its first show, or the search page, may ask for more room
        # while it is laid out, and Qt grows the window to give it: once the layout has
        # settled the window is put back inside the screen (the pages scroll)
        super().resizeEvent(event)
        QTimer.singleShot(50, self.keep_on_screen)

    def keep_on_screen(self, tries: int = 5) -> None:
        """Back inside the screen's available geometry if the window grew past it (again
        a little later while a layout still holds the minimum that made it grow)."""
        screen = self.screen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        area = screen.availableGeometry()
        frame = self.frameGeometry()
        if frame.height() > area.height() or frame.width() > area.width():
            fit_to_screen(self, self.width(), self.height())
            if tries > 1 and self.frameGeometry().height() > area.height():
                QTimer.singleShot(200, lambda: self.keep_on_screen(tries - 1))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        accept_file_drag(event)

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_file(event)
        if path is not None:
            self.open_file(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
