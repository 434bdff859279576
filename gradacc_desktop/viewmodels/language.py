"""Switches the interface language at run time: the app's catalogue, Qt's own
``qtbase`` catalogue and the default ``QLocale`` change together."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

from gradacc_desktop.paths import resource_path
from gradacc_desktop.viewmodels.settings import DEFAULT_LANGUAGE, LANGUAGES

# Menu label of each language, always in its own language.
LANGUAGE_NAMES = {"pt_BR": "Português (Brasil)", "en": "English"}


def app_catalogue(language: str) -> str:
    return str(resource_path("i18n", f"gradacc_{language}.qm"))


def qt_catalogue_dir() -> str:
    return QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)


class LanguageController(QObject):
    """Owns the installed translators; ``set_language`` swaps them atomically."""

    languageChanged = Signal(str)

    def __init__(self, app: QCoreApplication, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._app = app
        self._language = ""
        self._translators: list[QTranslator] = []
        self.missing: list[str] = []

    @property
    def language(self) -> str:
        return self._language

    def locale(self) -> QLocale:
        return QLocale(self._language or DEFAULT_LANGUAGE)

    def set_language(self, language: str) -> None:
        if language not in LANGUAGES:
            language = DEFAULT_LANGUAGE
        if language == self._language:
            return
        self._language = language
        QLocale.setDefault(QLocale(language))
        for old in self._translators:
            self._app.removeTranslator(old)
        self._translators = []
        self.missing = []
        app_tr = QTranslator(self._app)
        if app_tr.load(app_catalogue(language)):
            self._translators.append(app_tr)
        else:
            self.missing.append(app_catalogue(language))
        if language != "en":
            qt_tr = QTranslator(self._app)
            if qt_tr.load(f"qtbase_{language}", qt_catalogue_dir()):
                self._translators.append(qt_tr)
            else:
                self.missing.append(f"qtbase_{language}")
        for translator in self._translators:
            self._app.installTranslator(translator)
        self.languageChanged.emit(language)

    def uninstall(self) -> None:
        """Remove this controller's translators (tests, shutdown)."""
        for translator in self._translators:
            self._app.removeTranslator(translator)
        self._translators = []
        self._language = ""
