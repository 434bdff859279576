"""The table of candidate (micro-batch, accumulation steps) pairs and whether each fits."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.viewmodels.planner import PairRow, PlannerState, PlannerViewModel

# Rows the table always has room for, whatever the window's size, and the rows it
# asks for when there is room.
MIN_VISIBLE_ROWS = 3
PREFERRED_ROWS = 6
# b, a, E, fits, verdicts, time per step, tokens/s
COLUMNS = 7


class WrappedLabel(QLabel):
    """A word-wrapped label that asks for the height its text needs at its width.

    Splitters and most layouts size a label from its size hint and ignore
    height-for-width, so a long wrapped text would be cut at a narrow width.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit_height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        # QLabel.heightForWidth never answers less than the minimum height set here,
        # so measure the text itself, the way QLabel lays it out.
        height = 0
        if self.text():
            margins = self.contentsMargins()
            width = self.contentsRect().width() - 2 * self.margin()
            flags = int(self.alignment()) | int(Qt.TextFlag.TextWordWrap)
            text = self.fontMetrics().boundingRect(0, 0, max(width, 1), 100_000, flags, self.text())
            height = text.height() + margins.top() + margins.bottom() + 2 * self.margin()
        if height != self.minimumHeight():
            self.setMinimumHeight(height)


class PairsTable(QTableWidget):
    """One stop in the tab chain (arrows move inside); Return uses the current row and
    the copy shortcut copies the selected cells."""

    rowChosen = Signal(int)
    copyRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, COLUMNS, parent)
        self.setTabKeyNavigation(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setHighlightSections(False)
        self.cellDoubleClicked.connect(lambda row, _column: self.rowChosen.emit(row))
        self._needed: list[int] = []
        self._fit_rows()

    def event(self, event: QEvent) -> bool:
        # claim the copy shortcut from the window's "copy results" action
        if event.type() == QEvent.Type.ShortcutOverride:
            assert isinstance(event, QKeyEvent)
            if event.matches(QKeySequence.StandardKey.Copy) and self.selectedRanges():
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.rowChosen.emit(self.currentRow())
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copyRequested.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_rows()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()
        item = self.currentItem()
        if item is not None:  # the row in use stays in sight
            self.scrollToItem(item, QAbstractItemView.ScrollHint.EnsureVisible)

    def _fit_rows(self) -> None:
        """Rows one line high; room for ``MIN_VISIBLE_ROWS`` of them and the heading."""
        rows = self.verticalHeader()
        height = max(rows.minimumSectionSize(), self.fontMetrics().height() + 8)
        rows.setDefaultSectionSize(height)
        frame = 2 * self.frameWidth()
        scroll_bar = self.horizontalScrollBar().sizeHint().height()
        heading = self.horizontalHeader().sizeHint().height()
        self.setMinimumHeight(heading + MIN_VISIBLE_ROWS * height + scroll_bar + frame)

    def minimumSizeHint(self) -> QSize:
        """Wide enough for the pair and its batch (b, a, E); a narrower window scrolls
        the other columns sideways rather than cut a cell or a heading."""
        width = sum(self._needed_widths()[:3]) + self.verticalScrollBar().sizeHint().width()
        return QSize(width + 2 * self.frameWidth(), super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        """As wide as every column, and tall enough for ``PREFERRED_ROWS`` rows."""
        rows = PREFERRED_ROWS * self.verticalHeader().defaultSectionSize()
        frame = 2 * self.frameWidth() + 2  # and a little slack: no half row at the edge
        height = self.horizontalHeader().sizeHint().height() + rows + frame
        width = sum(self._needed_widths()) + self.verticalScrollBar().sizeHint().width()
        return QSize(width + 2 * self.frameWidth(), height)

    def _needed_widths(self) -> list[int]:
        header = self.horizontalHeader()
        return [
            max(self.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(self.columnCount())
        ]

    def fit_columns(self) -> None:
        """Every column as wide as its heading and cells; spare width is shared out."""
        header = self.horizontalHeader()
        columns = self.columnCount()
        needed = self._needed_widths()
        if needed != self._needed:
            self._needed = needed
            self.updateGeometry()
        spare = max(self.viewport().width() - sum(needed), 0)
        for c, width in enumerate(needed):
            share = spare // columns + (spare % columns if c == columns - 1 else 0)
            header.resizeSection(c, width + share)


class PairsPanel(QGroupBox):
    statusMessage = Signal(str)

    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._rows: tuple[PairRow, ...] = ()
        self.table = PairsTable(self)
        self.table.setObjectName("plan_pairs")
        self.note = WrappedLabel(self)
        self.note.setObjectName("plan_pairs_note")
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self.table.rowChosen.connect(self.choose_row)
        self.table.copyRequested.connect(self.copy_selection)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self.show_state(vm.state)

    def retranslate(self) -> None:
        """The title and the column headings (the rows come with the state)."""
        texts = self._vm.texts
        # the title's mnemonic moves the focus to the table
        self.setTitle(texts.pairs_title(mnemonic=True))
        for column, (text, tip) in enumerate(texts.pairs_headers()):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(column, item)
        self.table.setAccessibleName(texts.pairs_title())
        self.table.fit_columns()

    def show_state(self, state: PlannerState) -> None:
        view = state.results
        rows = view.pairs if view is not None else ()
        note = view.pairs_note if view is not None else ""
        if self.note.text() != note:
            self.note.setText(note)
            self.table.setAccessibleDescription(note)
        if rows == self._rows:
            return
        self._rows = rows
        table = self.table
        table.setUpdatesEnabled(False)
        table.clearContents()
        table.setRowCount(len(rows))
        dim = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        current = -1
        for r, row in enumerate(rows):
            for c, text in enumerate(row.cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row.fits is False:
                    item.setForeground(dim)
                if row.current:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                table.setItem(r, c, item)
            if row.current:
                current = r
        table.fit_columns()
        table.setUpdatesEnabled(True)
        if current >= 0:
            table.setCurrentCell(current, 0)
            table.selectRow(current)
            in_use = table.item(current, 0)
            if in_use is not None:
                table.scrollToItem(in_use, QAbstractItemView.ScrollHint.PositionAtCenter)
        else:
            table.clearSelection()

    def choose_row(self, row: int) -> None:
        """Use the micro-batch of ``row`` (double-click or Return)."""
        if 0 <= row < len(self._rows):
            self._vm.choose_pair(self._rows[row].micro_batch)

    def selected_text(self) -> str | None:
        """The selected cells as tab-separated rows, or ``None`` when nothing is selected."""
        ranges = self.table.selectedRanges()
        if not ranges:
            return None
        top = min(r.topRow() for r in ranges)
        bottom = max(r.bottomRow() for r in ranges)
        left = min(r.leftColumn() for r in ranges)
        right = max(r.rightColumn() for r in ranges)
        lines = []
        for row in range(top, bottom + 1):
            cells = []
            for column in range(left, right + 1):
                item = self.table.item(row, column)
                cells.append(item.text() if item is not None and item.isSelected() else "")
            lines.append("\t".join(cells))
        return "\n".join(lines)

    def copy_selection(self) -> None:
        text = self.selected_text()
        if text is None:
            return
        QApplication.clipboard().setText(text)
        self.statusMessage.emit(self.tr("Selected cells copied to the clipboard."))
