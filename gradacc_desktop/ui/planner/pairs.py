"""The table of candidate (micro-batch, accumulation steps) pairs and whether each fits."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.viewmodels.planner import PairRow, PlannerState, PlannerViewModel


class PairsTable(QTableWidget):
    """One stop in the tab chain (arrows move inside); Return uses the current row."""

    rowChosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 4, parent)
        self.setTabKeyNavigation(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.cellDoubleClicked.connect(lambda row, _column: self.rowChosen.emit(row))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.rowChosen.emit(self.currentRow())
            event.accept()
            return
        super().keyPressEvent(event)


class PairsPanel(QGroupBox):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._rows: tuple[PairRow, ...] = ()
        self.table = PairsTable(self)
        self.table.setObjectName("plan_pairs")
        self.note = QLabel(self)
        self.note.setObjectName("plan_pairs_note")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self.table.rowChosen.connect(self.choose_row)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()

    def retranslate(self) -> None:
        # the title's mnemonic moves the focus to the table
        self.setTitle(self._vm.pairs_title(mnemonic=True))
        for column, (text, tip) in enumerate(self._vm.pairs_headers()):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(column, item)
        self.table.setAccessibleName(self._vm.pairs_title())
        self._rows = ()
        self.show_state(self._vm.state)

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
                if not row.fits:
                    item.setForeground(dim)
                if row.current:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                table.setItem(r, c, item)
            if row.current:
                current = r
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
