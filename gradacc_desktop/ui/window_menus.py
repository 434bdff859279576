"""The main window's actions and menus: File, Language, Help, and the window-wide
shortcuts (copy, quit, help, tab switching)."""

from __future__ import annotations

from typing import Protocol, final

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow

from gradacc_desktop.viewmodels.formatting import Translating
from gradacc_desktop.viewmodels.language import LANGUAGE_NAMES


class FileDialogs(Protocol):
    def save_dialog(self) -> object: ...
    def open_dialog(self) -> object: ...


class WindowCommands(Protocol):
    """What the menus and shortcuts run: the main window's commands (named here, so
    that the menus need not import the window that builds them)."""

    @property
    def current_language(self) -> str: ...
    @property
    def scenarios(self) -> FileDialogs: ...
    def copy_current(self) -> None: ...
    def restore_defaults(self) -> None: ...
    def show_help(self) -> None: ...
    def open_details(self) -> None: ...
    def open_activation_estimator(self) -> object: ...
    def open_training_config(self) -> None: ...
    def step_tab(self, step: int) -> None: ...
    def show_about(self) -> None: ...
    def set_language(self, code: str) -> None: ...


@final
class WindowMenus(Translating):
    """Built once on the window; ``retranslate`` renames everything (context
    "WindowMenus", as lupdate files this class's ``self.tr``). The actions belong to
    ``window`` and run ``commands`` (the window itself)."""

    def __init__(self, window: QMainWindow, commands: WindowCommands) -> None:
        self._build_actions(window, commands)
        self._build_menus(window)

    def _build_actions(self, window: QMainWindow, commands: WindowCommands) -> None:
        self.copy_action = QAction(window)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        # the selection where text is selected, else the current tab's results
        self.copy_action.triggered.connect(commands.copy_current)
        self.restore_action = QAction(window)
        self.restore_action.triggered.connect(commands.restore_defaults)
        self.quit_action = QAction(window)
        # One binding per shortcut: Quit already is Ctrl+Q where the platform has it
        # (adding it again makes an ambiguous shortcut that never fires); Windows has
        # none, so Ctrl+Q is added only there.
        quit_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)
        self.quit_action.setShortcuts(quit_keys or [QKeySequence("Ctrl+Q")])
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(window.close)
        self.help_action = QAction(window)
        self.help_action.setShortcut(QKeySequence.StandardKey.HelpContents)
        self.help_action.triggered.connect(commands.show_help)
        self.details_action = QAction(window)
        self.details_action.triggered.connect(commands.open_details)
        self.estimate_action = QAction(window)
        self.estimate_action.triggered.connect(commands.open_activation_estimator)
        self.save_scenario_action = QAction(window)
        self.save_scenario_action.setShortcut(QKeySequence.StandardKey.Save)
        self.save_scenario_action.triggered.connect(lambda: commands.scenarios.save_dialog())
        # Ctrl+O opens what people have most: a trainer's config (DeepSpeed, accelerate,
        # axolotl, ...); a scenario of this app is Ctrl+Shift+O (either file goes where it
        # belongs, whichever action picked it)
        self.open_config_action = QAction(window)
        self.open_config_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_config_action.triggered.connect(commands.open_training_config)
        self.open_scenario_action = QAction(window)
        self.open_scenario_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.open_scenario_action.triggered.connect(lambda: commands.scenarios.open_dialog())
        # Ctrl+Tab / Ctrl+Shift+Tab and Ctrl+PgDown / Ctrl+PgUp walk the tabs from
        # anywhere in the window (a number field would otherwise take the page keys as
        # "step by ten"; the tabs are a bar over a stack, not a QTabWidget, which would
        # have handled Ctrl+Tab itself).
        self.next_tab_action = QAction(window)
        self.next_tab_action.setShortcuts([QKeySequence("Ctrl+PgDown"), QKeySequence("Ctrl+Tab")])
        self.next_tab_action.triggered.connect(lambda: commands.step_tab(1))
        self.previous_tab_action = QAction(window)
        self.previous_tab_action.setShortcuts(
            [
                QKeySequence("Ctrl+PgUp"),
                QKeySequence("Ctrl+Shift+Tab"),
                QKeySequence("Ctrl+Backtab"),
                QKeySequence("Ctrl+Shift+Backtab"),
            ]
        )
        self.previous_tab_action.triggered.connect(lambda: commands.step_tab(-1))
        window.addActions([self.next_tab_action, self.previous_tab_action])
        self.about_action = QAction(window)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(commands.show_about)
        self.about_qt_action = QAction(window)
        self.about_qt_action.setMenuRole(QAction.MenuRole.AboutQtRole)
        self.about_qt_action.triggered.connect(QApplication.aboutQt)
        self.language_group = QActionGroup(window)
        self.language_group.setExclusive(True)
        self.language_actions: dict[str, QAction] = {}
        for code, name in LANGUAGE_NAMES.items():
            # each language's own name, with its first letter as the mnemonic (P, E)
            action = QAction("&" + name, self.language_group)
            action.setCheckable(True)
            action.setChecked(code == commands.current_language)
            action.triggered.connect(lambda _checked=False, c=code: commands.set_language(c))
            self.language_actions[code] = action

    def _build_menus(self, window: QMainWindow) -> None:
        bar = window.menuBar()
        self.file_menu = bar.addMenu("")
        self.file_menu.addAction(self.open_config_action)
        self.file_menu.addAction(self.open_scenario_action)
        self.file_menu.addAction(self.save_scenario_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.copy_action)
        self.file_menu.addAction(self.estimate_action)
        self.file_menu.addAction(self.restore_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.language_menu = bar.addMenu("")
        for action in self.language_actions.values():
            self.language_menu.addAction(action)
        self.help_menu = bar.addMenu("")
        self.help_menu.addAction(self.help_action)
        self.help_menu.addAction(self.details_action)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)
        self.help_menu.addAction(self.about_qt_action)

    def retranslate(self) -> None:
        self.file_menu.setTitle(self.tr("&File"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.copy_action.setText(self.tr("&Copy results"))
        self.estimate_action.setText(self.tr("&Estimate activation from the model…"))
        self.open_config_action.setText(self.tr("&Open training config…"))
        self.open_scenario_action.setText(self.tr("Open sce&nario…"))
        self.save_scenario_action.setText(self.tr("Sa&ve scenario…"))
        self.restore_action.setText(self.tr("&Restore defaults"))
        self.quit_action.setText(self.tr("&Quit"))
        self.help_action.setText(self.tr("&Help for this tab"))
        self.details_action.setText(self.tr("&Details"))
        self.about_action.setText(self.tr("&About"))
        self.about_qt_action.setText(self.tr("About &Qt"))
