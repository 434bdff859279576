"""Parts of the estimator dialog: the breakdown table and "measure instead"."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QTextOption
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.viewmodels.activation import BreakdownRow, RowKind

# part, per layer, per sample
_COLUMNS = 3
# the longest command wraps to about four lines at 800 × 600
_COMMAND_LINES = 5


class BreakdownTable(QTableWidget):
    """Where the bytes go: headings and totals in bold, parts indented beneath."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, _COLUMNS, parent)
        self.setObjectName("activation_breakdown")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setTabKeyNavigation(False)
        self.verticalHeader().setVisible(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def show_rows(self, rows: tuple[BreakdownRow, ...]) -> None:
        self.setRowCount(len(rows))
        bold = QFont(self.font())
        bold.setBold(True)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, row in enumerate(rows):
            label = row.label if row.kind is not RowKind.ITEM else "    " + row.label
            for c, text in enumerate((label, row.per_layer, row.total)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(right)
                else:
                    item.setToolTip(row.label)
                if row.kind is not RowKind.ITEM:
                    item.setFont(bold)
                self.setItem(r, c, item)


class MeasurePanel(QGroupBox):
    """The measuring tool's command for the current options, whole and copyable."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("activation_measure")
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        # the whole command, wrapped: never a field that shows only its start
        self.command = QPlainTextEdit(self)
        self.command.setObjectName("activation_measure_command")
        self.command.setReadOnly(True)
        self.command.setTabChangesFocus(True)
        self.command.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.command.setFont(font)
        self.command.setFixedHeight(
            self.command.fontMetrics().lineSpacing() * _COMMAND_LINES
            + 2 * self.command.frameWidth()
            + 8
        )
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("activation_copy_command")
        self.copy_button.setAutoDefault(False)
        self.copy_button.clicked.connect(self.copy_command)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(self.command)
        layout.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignRight)

    def show_command(self, command: str) -> None:
        if self.command.toPlainText() != command:
            self.command.setPlainText(command)

    def copy_command(self) -> None:
        QGuiApplication.clipboard().setText(self.command.toPlainText())
