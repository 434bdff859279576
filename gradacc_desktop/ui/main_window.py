"""The main window: composes the parts, owns menus, clipboard and the status bar."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMimeData, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop import __version__
from gradacc_desktop.ui.details_panel import DetailsPanel
from gradacc_desktop.ui.header import Header
from gradacc_desktop.ui.inputs_panel import InputsPanel
from gradacc_desktop.ui.results_panel import ResultsPanel
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.language import LANGUAGE_NAMES, LanguageController
from gradacc_desktop.viewmodels.settings import DETAILS_OPEN, GEOMETRY, LANGUAGE, Settings

STATUS_TIMEOUT_MS = 5000


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

        self.header = Header(self)
        self.inputs = InputsPanel(vm, self)
        self.results = ResultsPanel(vm, self)
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("copy_button")
        self.details = DetailsPanel(vm, self)

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 8)
        layout.setSpacing(12)
        layout.addWidget(self.header)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addWidget(self.inputs, 4)
        results_column = QVBoxLayout()
        results_column.addWidget(self.results, 1)
        copy_row = QHBoxLayout()
        copy_row.addStretch(1)
        copy_row.addWidget(self.copy_button)
        results_column.addLayout(copy_row)
        body.addLayout(results_column, 5)
        layout.addLayout(body)
        layout.addWidget(self.details, 1)
        self._bottom_stretch = layout.count()
        layout.addStretch(0)
        self._layout = layout
        self.setCentralWidget(central)

        self._build_actions()
        self._build_menus()
        self.copy_button.clicked.connect(self.copy_results)
        self.inputs.copyRequested.connect(self.copy_results)
        self.details.toggled.connect(self._on_details_toggled)
        language.languageChanged.connect(self._on_language_changed)

        # Tab order follows the layout: inputs top to bottom, copy, details.
        boxes = list(self.inputs.boxes.values())
        for first, second in zip(boxes, [*boxes[1:], self.copy_button], strict=True):
            self.setTabOrder(first, second)
        self.setTabOrder(self.copy_button, self.details.toggle)
        self.setTabOrder(self.details.toggle, self.details.browser)

        self.retranslate()
        self._restore()
        self.statusBar()

    # -- construction -------------------------------------------------------
    def _build_actions(self) -> None:
        self.copy_action = QAction(self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.triggered.connect(self.copy_results)
        self.restore_action = QAction(self)
        self.restore_action.triggered.connect(self.restore_defaults)
        self.quit_action = QAction(self)
        self.quit_action.setShortcuts(
            [*QKeySequence.keyBindings(QKeySequence.StandardKey.Quit), QKeySequence("Ctrl+Q")]
        )
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        self.details_action = QAction(self)
        self.details_action.setShortcut(QKeySequence.StandardKey.HelpContents)
        self.details_action.triggered.connect(self._open_details)
        self.about_action = QAction(self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.about_qt_action = QAction(self)
        self.about_qt_action.setMenuRole(QAction.MenuRole.AboutQtRole)
        self.about_qt_action.triggered.connect(QApplication.aboutQt)
        self.language_group = QActionGroup(self)
        self.language_group.setExclusive(True)
        self.language_actions: dict[str, QAction] = {}
        for code, name in LANGUAGE_NAMES.items():
            action = QAction(name, self.language_group)
            action.setCheckable(True)
            action.setChecked(code == self.language.language)
            action.triggered.connect(lambda _checked=False, c=code: self.set_language(c))
            self.language_actions[code] = action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.file_menu.addAction(self.copy_action)
        self.file_menu.addAction(self.restore_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.language_menu = bar.addMenu("")
        for action in self.language_actions.values():
            self.language_menu.addAction(action)
        self.help_menu = bar.addMenu("")
        self.help_menu.addAction(self.details_action)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)
        self.help_menu.addAction(self.about_qt_action)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Gradient Accumulation Memory Calculator"))
        self.file_menu.setTitle(self.tr("&File"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.copy_action.setText(self.tr("&Copy results"))
        self.restore_action.setText(self.tr("&Restore defaults"))
        self.quit_action.setText(self.tr("&Quit"))
        self.details_action.setText(self.tr("&Details"))
        self.about_action.setText(self.tr("&About"))
        self.about_qt_action.setText(self.tr("About &Qt"))
        self.copy_button.setText(self.tr("&Copy results"))
        shortcut = self.copy_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.copy_button.setToolTip(
            self.tr("Copy inputs and results to the clipboard ({shortcut})").format(
                shortcut=shortcut
            )
        )
        self.header.retranslate()
        self.inputs.retranslate()
        self.results.retranslate()
        self.details.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.vm.retranslate()
            self.retranslate()
        super().changeEvent(event)

    # -- behaviour ----------------------------------------------------------
    def set_language(self, code: str) -> None:
        self.language.set_language(code)
        self.settings.set(LANGUAGE, self.language.language)

    def _on_language_changed(self, code: str) -> None:
        locale = self.language.locale()
        self.setLocale(locale)
        self.vm.set_locale(locale)
        self.inputs.set_locale(locale)
        for c, action in self.language_actions.items():
            action.setChecked(c == code)
        self.retranslate()

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

    def restore_defaults(self) -> None:
        self.vm.restore_defaults()
        self.statusBar().showMessage(self.tr("Default values restored."), STATUS_TIMEOUT_MS)

    def _open_details(self) -> None:
        self.details.set_open(True)
        self.details.browser.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_details_toggled(self, opened: bool) -> None:
        self._layout.setStretch(self._bottom_stretch, 0 if opened else 1)
        self.settings.set(DETAILS_OPEN, opened)
        if opened and self.height() < 640:
            self.resize(self.width(), 720)

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
            self.resize(920, 560)
        self.details.set_open(self.settings.get(DETAILS_OPEN))

    def save_state(self) -> None:
        self.settings.set_inputs(self.vm.last_valid_inputs)
        self.settings.set(GEOMETRY, self.saveGeometry())
        self.settings.set(DETAILS_OPEN, self.details.is_open())
        self.settings.set(LANGUAGE, self.language.language)
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
