"""Switches the interface language at run time: the app's catalogue, Qt's own
``qtbase`` catalogue, the app's supplement to it and the default ``QLocale``
change together."""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

from gradacc_desktop.paths import resource_path
from gradacc_desktop.viewmodels.settings import DEFAULT_LANGUAGE, LANGUAGES

_log = logging.getLogger(__name__)

# Menu label of each language, always in its own language.
LANGUAGE_NAMES = {"pt_BR": "Português (Brasil)", "en": "English"}


def app_catalogue(language: str) -> str:
    return str(resource_path("i18n", f"gradacc_{language}.qm"))


def qt_extra_catalogue(language: str) -> str:
    """Translations of Qt's own strings that ``qtbase_<lang>.qm`` lacks.

    Qt changed some source strings (e.g. the file dialog's "&Look in:", the
    About Qt text) without the Portuguese catalogue following, so those show in
    English; this catalogue, searched before qtbase, supplies them.
    """
    return str(resource_path("i18n", f"qt_extra_{language}.qm"))


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
        self._remove_translators()
        self._load(app_catalogue(language))
        if language != "en":  # Qt's source strings are English
            self._load(f"qtbase_{language}", qt_catalogue_dir())
            # installed after qtbase, so it is searched first: it wins where it
            # has a translation and qtbase answers everything else
            self._load(qt_extra_catalogue(language))
        for translator in self._translators:
            self._app.installTranslator(translator)
        self.languageChanged.emit(language)

    def uninstall(self) -> None:
        """Remove this controller's translators (tests, shutdown)."""
        self._remove_translators()
        self._language = ""

    def _load(self, name: str, directory: str = "") -> None:
        translator = QTranslator(self)
        if translator.load(name, directory):
            self._translators.append(translator)
        else:
            _log.warning("translation catalogue not found: %s", name)
            shiboken6.delete(translator)

    def _remove_translators(self) -> None:
        # removeTranslator does not delete, and deleteLater waits for an event loop
        # that tests and start-up do not run: delete each one now, so a switch never
        # leaves translators behind
        for translator in self._translators:
            self._app.removeTranslator(translator)
            shiboken6.delete(translator)
        self._translators = []
