"""Ready-to-paste configuration: a format combo, a read-only preview and a copy button."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.viewmodels.planner import PlannerState, PlannerViewModel

# Lines of configuration the preview asks room for.
PREVIEW_LINES = 9


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


class ExportPanel(QGroupBox):
    statusMessage = Signal(str)

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.format_label = QLabel(self)
        self.format = QComboBox(self)
        self.format.setObjectName("plan_export_format")
        for fmt, name in vm.texts.export_formats():
            self.format.addItem(name, fmt.value)
        self.format_label.setBuddy(self.format)
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("plan_copy_config")
        self.preview = PreviewEdit(self)
        self.preview.setObjectName("plan_export_preview")
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        row = QHBoxLayout()
        row.addWidget(self.format_label)
        row.addWidget(self.format, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.preview, 1)
        layout.addLayout(buttons)
        self.format.currentIndexChanged.connect(lambda _i: self.refresh())
        self.copy_button.clicked.connect(self.copy)
        vm.stateChanged.connect(self._on_state)
        self.retranslate()

    def current_format(self) -> ExportFormat:
        return ExportFormat(self.format.currentData())

    def set_format(self, fmt: ExportFormat) -> None:
        self.format.setCurrentIndex(self.format.findData(fmt.value))

    def retranslate(self) -> None:
        self.setTitle(self.tr("Export configuration"))
        self.format_label.setText(self.tr("E&xport as"))
        self.format.setAccessibleName(self.format_label.text().replace("&", ""))
        self.copy_button.setText(self.tr("Co&py configuration"))
        self.copy_button.setToolTip(self.tr("Copy the configuration below to the clipboard"))
        self.preview.setAccessibleName(self.tr("Configuration preview"))
        self.refresh()

    def _on_state(self, _state: PlannerState) -> None:
        self.refresh()

    def refresh(self) -> None:
        text = self._vm.export_text(self.current_format())
        self.copy_button.setEnabled(text is not None)
        shown = text if text is not None else self._vm.export_unavailable()
        if self.preview.toPlainText() != shown:
            self.preview.setPlainText(shown)

    def copy(self) -> None:
        text = self._vm.export_text(self.current_format())
        if text is None:
            self.statusMessage.emit(self._vm.export_unavailable())
            return
        QApplication.clipboard().setText(text)
        self.statusMessage.emit(
            self.tr("{format} configuration copied to the clipboard.").format(
                format=self.format.currentText()
            )
        )
