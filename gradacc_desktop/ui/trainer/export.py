"""Ready-to-run configuration: a format combo, a tab per file, a read-only preview of
the file, and buttons to copy it or save every file into a folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.ui.combo import ElidingComboBox
from gradacc_desktop.ui.confirmation import Confirmation
from gradacc_desktop.ui.file_dialogs import ask_folder
from gradacc_desktop.ui.scroll_area import ScrollArea
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.exports import ExportViewModel
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.model import TrainingState

if TYPE_CHECKING:
    from gradacc_desktop.core.framework import Framework

# Lines of configuration the preview asks room for.
PREVIEW_LINES = 9
# Lines of the layout notes shown at once (they scroll beyond).
NOTE_LINES = 4


class PreviewEdit(QPlainTextEdit):
    """The read-only preview: Tab leaves it, the keyboard selects text in it, and with
    text selected the copy shortcut copies that text (not the window's results)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setTabChangesFocus(True)
        # read-only, but selectable from the keyboard too (Shift+arrows, Ctrl+A)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )

    def sizeHint(self) -> QSize:
        """Tall enough for the longer configurations (about nine lines)."""
        margin = 2 * (self.frameWidth() + int(self.document().documentMargin()))
        height = PREVIEW_LINES * self.fontMetrics().lineSpacing() + margin
        return QSize(super().sizeHint().width(), height)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride:
            assert isinstance(event, QKeyEvent)
            if event.matches(QKeySequence.StandardKey.Copy) and self.textCursor().hasSelection():
                event.accept()
                return True
        return super().event(event)


class FileTabs(QTabBar):
    """The files' tabs, a descent taller than Fusion makes them: it draws the tabs that
    are not current lower, and their label rectangle cut the underscore off
    "adapter_config.json" and "ds_config.json"."""

    def tabSizeHint(self, index: int) -> QSize:
        size = super().tabSizeHint(index)
        return QSize(size.width(), size.height() + self.fontMetrics().descent())


class ExportPanel(QGroupBox):
    """The format, a tab per file it writes, the file's text, and copy / save."""

    statusMessage = Signal(str)

    def __init__(
        self,
        vm: ExportViewModel,
        parent: QWidget | None = None,
        settings: Callable[[], Settings | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self._vm = vm
        self._settings = settings
        self._files: dict[str, str] = {}
        # the framework the format was last matched to (a change picks a format that runs
        # it; the first state too: a page built under Megatron opens on Megatron's files)
        self._framework: Framework | None = None
        self.format_label = QLabel(self)
        self.format = ElidingComboBox(self)  # typed names pick formats, spaces and all
        self.format.setObjectName("plan_export_format")
        self.format.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.format.setMinimumContentsLength(14)
        for fmt, name in vm.formats():
            self.format.addItem(name, fmt.value)
        self.format_label.setBuddy(self.format)
        # what this format cannot carry of the parallel layout, or how it does
        self.notes = QLabel(self)
        self.notes.setObjectName("plan_export_notes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # at most a few lines high: the file below keeps its room, the notes scroll
        self.notes_area = ScrollArea(self.notes, self, focusable=False)
        self.notes_area.setObjectName("plan_export_notes_area")
        self.notes_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.notes_area.setVisible(False)
        self.files = FileTabs(self)
        self.files.setObjectName("plan_export_files")
        self.files.setDocumentMode(True)
        self.files.setExpanding(False)
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("plan_copy_config")
        self.save_button = QPushButton(self)
        self.save_button.setObjectName("plan_save_export")
        self.preview = PreviewEdit(self)
        self.preview.setObjectName("plan_export_preview")
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        row = QHBoxLayout()
        row.addWidget(self.format_label)
        row.addWidget(self.format, 1)
        # "✓ Copied" / "✓ Saved in …" beside the buttons (the status bar says it too)
        self.done = Confirmation(self, "plan_export_done")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.done)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.notes_area)
        layout.addWidget(self.files)
        layout.addWidget(self.preview, 1)
        layout.addLayout(buttons)
        guard_wheel(self.format)
        self.format.currentIndexChanged.connect(lambda _i: self.refresh())
        self.files.currentChanged.connect(lambda _i: self._show_file())
        self.copy_button.clicked.connect(self.copy)
        self.save_button.clicked.connect(self.save_dialog)
        vm.stateChanged.connect(self._on_state)
        self.retranslate()
        self._on_state(vm.state)

    def _notes_height(self) -> int:
        width = max(self.notes_area.viewport().width(), 200)
        return self.notes.heightForWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.notes.text():
            lines = self.notes.fontMetrics().lineSpacing()
            self.notes_area.setFixedHeight(min(NOTE_LINES * lines + 1, self._notes_height()))

    def current_format(self) -> ExportFormat:
        return ExportFormat(self.format.currentData())

    def set_format(self, fmt: ExportFormat) -> None:
        self.format.setCurrentIndex(self.format.findData(fmt.value))

    def current_file(self) -> str | None:
        """The name of the file shown, or ``None`` when there is nothing to export."""
        index = self.files.currentIndex()
        return self.files.tabData(index) if index >= 0 and self._files else None

    def show_file(self, name: str) -> None:
        for index in range(self.files.count()):
            if self.files.tabData(index) == name:
                self.files.setCurrentIndex(index)

    def retranslate(self) -> None:
        self.setTitle(self.tr("Export configuration"))
        self.format_label.setText(self.tr("E&xport as"))
        self.format.setAccessibleName(self.format_label.text().replace("&", ""))
        self.files.setAccessibleName(self.tr("Files of this export"))
        self.copy_button.setText(self.tr("Cop&y file"))
        self.copy_button.setToolTip(self.tr("Copy the file shown below to the clipboard"))
        self.save_button.setText(self.tr("&Save files…"))
        self.save_button.setToolTip(self.tr("Save every file of this export into a folder"))
        self.preview.setAccessibleName(self.tr("Configuration preview"))
        self.refresh()

    def _on_state(self, state: TrainingState) -> None:
        framework = None if state.description is None else state.description.framework
        if framework is not None and framework is not self._framework:
            # another framework: a format whose files run it (the user's pick otherwise)
            self._framework = framework
            suited = self._vm.format_for(self.current_format())
            if suited is not self.current_format():
                self.set_format(suited)  # refreshes
                return
        self.refresh()

    def refresh(self) -> None:
        exported = self._vm.exported(self.current_format())
        files = exported.files if exported is not None else {}
        shown = self.current_file()
        if list(files) != [self.files.tabData(i) for i in range(self.files.count())]:
            blocked = self.files.blockSignals(True)
            while self.files.count():
                self.files.removeTab(0)
            for name in files or {"": ""}:
                index = self.files.addTab(name or "—")
                self.files.setTabData(index, name)
            self.files.blockSignals(blocked)
        self._files = dict(files)
        notes = "\n".join(f"• {note}" for note in self._vm.notes(self.current_format()))
        if self.notes.text() != notes:
            self.notes.setText(notes)
            lines = self.notes.fontMetrics().lineSpacing()
            self.notes_area.setFixedHeight(min(NOTE_LINES * lines + 1, self._notes_height()))
        self.notes_area.setVisible(bool(notes))
        if shown is not None and shown in files:
            self.show_file(shown)
        self.files.setEnabled(bool(files))
        self.copy_button.setEnabled(bool(files))
        self.save_button.setEnabled(bool(files))
        self._show_file()

    def _show_file(self) -> None:
        name = self.current_file()
        shown = self._files[name] if name is not None else self._vm.unavailable()
        if self.preview.toPlainText() != shown:
            self.preview.setPlainText(shown)

    def copy(self) -> None:
        name = self.current_file()
        if name is None:
            self.statusMessage.emit(self._vm.unavailable())
            return
        QApplication.clipboard().setText(self._files[name])
        self.done.say(self.tr("{file} copied").format(file=name))
        self.statusMessage.emit(
            self.tr("{file} ({format}) copied to the clipboard.").format(
                file=name, format=self.format.currentText()
            )
        )

    def save_dialog(self) -> None:
        """Ask for a folder, confirm replacing files, and save every file there."""
        if not self._files:
            self.statusMessage.emit(self._vm.unavailable())
            return
        folder = ask_folder(self, self.tr("Save the export files into"), self._settings())
        if folder is not None:
            self.save_into(folder)

    def save_into(self, folder: Path, confirm: bool = True) -> bool:
        existing = [name for name in self._files if (folder / name).exists()]
        if existing and confirm:
            answer = QMessageBox.question(
                self,
                self.tr("Replace files?"),
                self.tr("“{folder}” already has {names}. Replace them?").format(
                    folder=folder.name or str(folder), names=", ".join(existing)
                ),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return False
        outcome = self._vm.save(self.current_format(), folder)
        self.statusMessage.emit(outcome.message)
        if outcome.ok:
            self.done.say(self.tr("Saved in “{folder}”").format(folder=folder.name or folder))
        else:
            QMessageBox.warning(self, self.tr("Save files"), outcome.message)
        return outcome.ok
