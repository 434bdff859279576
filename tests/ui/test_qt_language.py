"""Qt's own widgets speak the app's language: file dialog, context menus, standard
buttons, About Qt. Each text is read from a real widget, as the user sees it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QDir,
    QEvent,
    QFileInfo,
    QPoint,
    Qt,
    QTimer,
    QTranslator,
)
from PySide6.QtGui import QAction, QContextMenuEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QFileIconProvider,
    QLabel,
    QMenu,
    QMessageBox,
    QTextBrowser,
    QToolButton,
    QTreeView,
    QWidget,
)

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.paths import resource_path
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.language import qt_catalogue_dir, qt_extra_catalogue

EXTRA_TS = resource_path("i18n", "qt_extra_pt_BR.ts")


def _lrelease() -> str:
    tools = str(Path(sys.executable).parent)
    found = shutil.which("pyside6-lrelease", path=tools) or shutil.which("pyside6-lrelease")
    assert found, "pyside6-lrelease not installed"
    return found


def _flush_deletions() -> None:
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _menu_texts(menu: QMenu) -> list[str]:
    """Action texts without the shortcut column Qt appends after a tab."""
    return [a.text().split("\t")[0] for a in menu.actions() if not a.isSeparator()]


def _while_modal(open_it: Callable[[], object], read: Callable[[QWidget], object]) -> object:
    """Open a blocking dialog or menu, read it once it is up, close it."""
    seen: list[object] = []

    def look() -> None:
        widget = QApplication.activePopupWidget() or QApplication.activeModalWidget()
        if widget is None:
            QTimer.singleShot(10, look)
            return
        try:
            seen.append(read(widget))
        finally:  # never leave the test blocked in the dialog's event loop
            widget.close()

    QTimer.singleShot(0, look)
    open_it()
    assert seen, "the dialog never showed"
    return seen[0]


def _file_dialog(parent: QWidget, mode: QFileDialog.AcceptMode) -> QFileDialog:
    dialog = QFileDialog(parent, "t", str(Path.home()), "Cenários (*.json)")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)  # Qt's widget dialog, as on Linux
    dialog.setAcceptMode(mode)
    dialog.show()
    return dialog


def _file_dialog_texts(dialog: QFileDialog) -> dict[str, object]:
    def label(name: str) -> str:
        found = dialog.findChild(QLabel, name)
        assert found is not None, name
        return found.text()

    def tip(name: str) -> str:
        found = dialog.findChild(QToolButton, name)
        assert found is not None, name
        return found.toolTip()

    buttons = dialog.findChild(QDialogButtonBox, "buttonBox")
    assert buttons is not None
    tree = dialog.findChild(QTreeView, "treeView")
    assert tree is not None
    model = tree.model()
    actions = {a.objectName(): a.text() for a in dialog.findChildren(QAction)}
    return {
        "labels": [label("lookInLabel"), label("fileNameLabel"), label("fileTypeLabel")],
        "buttons": sorted(b.text() for b in buttons.buttons()),
        "tips": [
            tip(n)
            for n in (
                "backButton",
                "forwardButton",
                "toParentButton",
                "newFolderButton",
                "listModeButton",
                "detailModeButton",
            )
        ],
        "columns": [
            model.headerData(i, Qt.Orientation.Horizontal) for i in range(model.columnCount())
        ],
        "menu": [
            actions.get(n)
            for n in (
                "qt_rename_action",
                "qt_delete_action",
                "qt_show_hidden_action",
                "qt_new_folder_action",
            )
        ],
    }


PT_FILE_DIALOG = {
    "labels": ["&Procurar em:", "&Nome do arquivo:", "Arquivos do &tipo:"],
    "buttons": ["&Abrir", "Cancelar"],
    "tips": [
        "Voltar",
        "Avançar",
        "Pasta superior",
        "Criar nova pasta",
        "Exibição em lista",
        "Exibição detalhada",
    ],
    "columns": ["Nome", "Tamanho", "Tipo", "Data de modificação"],
    "menu": ["&Renomear", "E&xcluir", "Mostrar arquivos &ocultos", "&Nova pasta"],
}
EN_FILE_DIALOG = {
    "labels": ["&Look in:", "File &name:", "Files of &type:"],
    "buttons": ["&Open", "Cancel"],
    "tips": [
        "Back",
        "Forward",
        "Parent Directory",
        "Create New Folder",
        "List View",
        "Detail View",
    ],
    "columns": ["Name", "Size", "Type", "Date Modified"],
    "menu": ["&Rename", "&Delete", "Show &hidden files", "&New Folder"],
}


def _without_buttons(texts: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in texts.items() if k != "buttons"}


def test_file_dialog_speaks_portuguese_then_english(window: MainWindow) -> None:
    dialog = _file_dialog(window, QFileDialog.AcceptMode.AcceptOpen)
    assert _file_dialog_texts(dialog) == PT_FILE_DIALOG
    save = _file_dialog(window, QFileDialog.AcceptMode.AcceptSave)
    assert sorted(b.text() for b in save.findChildren(QAbstractButton) if b.text()) == [
        "&Salvar",
        "Cancelar",
    ]
    save.close()

    window.set_language("en")
    QApplication.processEvents()  # Qt posts the language change to open windows
    # a new dialog and the one already open (Qt retranslates it on the language change)
    assert _file_dialog_texts(_file_dialog(window, QFileDialog.AcceptMode.AcceptOpen)) == (
        EN_FILE_DIALOG
    )
    # (the button box resets its buttons to the theme's "Open", without the mnemonic;
    # users never see it: the dialog is modal, the language menu out of reach)
    assert _without_buttons(_file_dialog_texts(dialog)) == _without_buttons(EN_FILE_DIALOG)

    window.set_language("pt_BR")
    QApplication.processEvents()
    assert _without_buttons(_file_dialog_texts(dialog)) == _without_buttons(PT_FILE_DIALOG)
    assert _file_dialog_texts(_file_dialog(window, QFileDialog.AcceptMode.AcceptOpen)) == (
        PT_FILE_DIALOG
    )


def test_text_context_menus_speak_the_language(window: MainWindow) -> None:
    line = window.inputs.boxes[Field.MICRO_BATCH].lineEdit()
    plain = window.trainer.export.preview  # read-only: copy and select all
    browser = QTextBrowser(window)
    browser.setHtml('<a href="https://example.org/">link</a> text')
    browser.show()

    def menus() -> tuple[list[str], list[str], list[str]]:
        return (
            _menu_texts(line.createStandardContextMenu()),
            _menu_texts(plain.createStandardContextMenu()),
            _menu_texts(browser.createStandardContextMenu(QPoint(4, 6))),  # on the link
        )

    editing_pt = ["&Desfazer", "&Refazer", "Recor&tar", "&Copiar"]
    line_pt, plain_pt, browser_pt = menus()
    assert line_pt[:4] == editing_pt and line_pt[4:] == ["C&olar", "Excluir", "Selecionar tudo"]
    assert plain_pt == ["&Copiar", "Selecionar tudo"]
    assert browser_pt == ["&Copiar", "Copiar localização do &link", "Selecionar tudo"]

    window.set_language("en")
    line_en, plain_en, browser_en = menus()
    english = ["&Undo", "&Redo", "Cu&t", "&Copy", "&Paste", "Delete", "Select All"]
    assert line_en == english
    assert plain_en == ["&Copy", "Select All"]
    assert browser_en == ["&Copy", "Copy &Link Location", "Select All"]


def test_spin_box_context_menu_speaks_the_language(window: MainWindow) -> None:
    spin = window.inputs.boxes[Field.MICRO_BATCH]

    def menu() -> list[str]:
        def open_menu() -> None:
            at = QPoint(2, 2)
            event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, spin.mapToGlobal(at))
            QApplication.sendEvent(spin, event)

        texts = _while_modal(open_menu, lambda m: _menu_texts(m) if isinstance(m, QMenu) else [])
        assert isinstance(texts, list)
        return texts

    pt = menu()
    assert {"Pa&sso acima", "Passo &abaixo", "&Selecionar tudo", "&Copiar"} <= set(pt)
    assert not {"&Step up", "Step &down", "&Copy"} & set(pt)
    window.set_language("en")
    assert {"&Step up", "Step &down", "&Select All", "&Copy"} <= set(menu())


def test_standard_buttons_speak_the_language(window: MainWindow) -> None:
    b = QDialogButtonBox.StandardButton
    wanted = b.Ok | b.Cancel | b.Close | b.Save | b.Open | b.Help | b.Yes | b.No | b.Apply

    def texts() -> list[str]:
        return sorted(x.text() for x in QDialogButtonBox(wanted, window).buttons())

    assert texts() == sorted(
        ["OK", "Cancelar", "Fechar", "Salvar", "Abrir", "Ajuda", "&Sim", "&Não", "Aplicar"]
    )
    box = QMessageBox(QMessageBox.Icon.Warning, "t", "x", QMessageBox.StandardButton.Ok, window)
    box.setDetailedText("details")
    assert sorted(x.text() for x in box.buttons()) == ["Mostrar detalhes...", "OK"]
    window.set_language("en")
    assert texts() == sorted(
        ["OK", "Cancel", "Close", "Save", "Open", "Help", "&Yes", "&No", "Apply"]
    )


def _about_qt(window: MainWindow) -> tuple[str, str, str]:
    def read(box: QWidget) -> tuple[str, str, str]:
        assert isinstance(box, QMessageBox)
        return box.windowTitle(), box.text(), box.informativeText()

    got = _while_modal(window.menus.about_qt_action.trigger, read)
    assert isinstance(got, tuple)
    return got


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_about_qt_speaks_the_language(window: MainWindow) -> None:
    title, caption, body = _about_qt(window)
    assert title == "Sobre o Qt"
    assert "Este programa usa a versão" in caption
    text = _plain(body)
    assert "Qt é um conjunto de ferramentas C++" in text
    assert "Copyright (C) The Qt Company Ltd. e outros colaboradores." in text
    # Qt's arguments still land in the translated text
    assert 'href="https://qt.io/licensing/"' in body and 'href="https://qt.io/"' in body
    for english in ("Qt is a C++ toolkit", "licensing options", "for more information"):
        assert english not in text

    window.set_language("en")
    title, caption, body = _about_qt(window)
    assert title == "About Qt"
    assert "This program uses Qt version" in caption
    assert "Qt is a C++ toolkit for cross-platform application development." in _plain(body)

    window.set_language("pt_BR")
    assert _about_qt(window)[0] == "Sobre o Qt"


def _one_word_of_each_catalogue() -> tuple[str, str, str]:
    """A word of each installed catalogue, as a widget shows it: the app's (the first
    tab's name), Qt's (a standard button) and the supplement's (a drive in the file
    dialog: qtbase_pt_BR leaves it "Drive", so it is "Unidade" only while the supplement
    is searched before Qt's catalogue)."""
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    cancel = box.buttons()[0].text()
    drive = QFileIconProvider().type(QFileInfo(QDir.rootPath()))
    return QCoreApplication.translate("MainWindow", "Calculator"), cancel, drive


def test_language_switches_do_not_pile_up_translators(catalogue, qapp) -> None:  # type: ignore[no-untyped-def]
    controller = catalogue("pt_BR")
    assert _one_word_of_each_catalogue() == ("Calculadora", "Cancelar", "Unidade")
    replaced = controller.findChildren(QTranslator)
    assert len(replaced) == 3
    _flush_deletions()
    before = len(qapp.findChildren(QTranslator))
    for language in ["en", "pt_BR"] * 5:
        controller.set_language(language)
    # deleted at once, not when some event loop gets round to it
    assert len(controller.findChildren(QTranslator)) == 3
    assert len(qapp.findChildren(QTranslator)) == before
    assert not any(shiboken6.isValid(t) for t in replaced)
    assert _one_word_of_each_catalogue() == ("Calculadora", "Cancelar", "Unidade")
    assert QCoreApplication.translate("QFileDialog", "&Look in:") == "&Procurar em:"

    controller.set_language("en")
    assert len(controller.findChildren(QTranslator)) == 1  # the app's English catalogue
    assert _one_word_of_each_catalogue() == ("Calculator", "Cancel", "Drive")
    assert QCoreApplication.translate("QFileDialog", "&Look in:") == "&Look in:"

    controller.uninstall()
    assert controller.findChildren(QTranslator) == []


# -- the supplementary catalogue itself --------------------------------------------------


def _extra_messages() -> list[tuple[str, str, str]]:
    messages = []
    for context in ET.parse(EXTRA_TS).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            assert translation.get("type") is None, message.findtext("source")
            messages.append((name, message.findtext("source") or "", translation.text or ""))
    return messages


def test_extra_catalogue_translates_only_what_qtbase_leaves_in_english() -> None:
    qtbase = QTranslator()
    assert qtbase.load("qtbase_pt_BR", qt_catalogue_dir())
    extra = QTranslator()
    assert extra.load(qt_extra_catalogue("pt_BR"))
    messages = _extra_messages()
    assert messages
    for context, source, translation in messages:
        assert translation and translation != source, source
        assert qtbase.translate(context, source) in ("", source), (
            f"Qt's catalogue now translates {source!r}: drop it from {EXTRA_TS.name}"
        )
        assert extra.translate(context, source) == translation
        assert sorted(re.findall(r"%\d", source)) == sorted(re.findall(r"%\d", translation))
        assert source.count("&") == translation.count("&"), source  # mnemonics, &nbsp;


def test_extra_catalogue_is_built(tmp_path: Path) -> None:
    built = Path(qt_extra_catalogue("pt_BR"))
    assert built.exists(), "run `make i18n`"
    fresh = tmp_path / built.name
    subprocess.run([_lrelease(), "-silent", str(EXTRA_TS), "-qm", str(fresh)], check=True)
    assert fresh.read_bytes() == built.read_bytes(), "stale .qm: run `make i18n`"
