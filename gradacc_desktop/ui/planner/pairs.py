"""The table of candidate (micro-batch, accumulation steps) pairs and whether each fits."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
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


class PairsPanel(QGroupBox):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self._rows: tuple[PairRow, ...] = ()
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("plan_pairs")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.note = QLabel(self)
        self.note.setObjectName("plan_pairs_note")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self.table.cellDoubleClicked.connect(self._on_double_click)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Micro-batch and accumulation steps"))
        short = [
            self.tr("Micro-batch (b)"),
            self.tr("Steps (a)"),
            self.tr("Batch (E)"),
            self.tr("Fits"),
        ]
        full = [
            self.tr("Micro-batch size (b)"),
            self.tr("Accumulation steps (a)"),
            self.tr("Effective batch size (E)"),
            self.tr("Fits in GPU memory"),
        ]
        for column, (text, tip) in enumerate(zip(short, full, strict=True)):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(column, item)
        self.table.setAccessibleName(self.title())
        self._rows = ()
        self.show_state(self._vm.state)

    def show_state(self, state: PlannerState) -> None:
        view = state.results
        rows = view.pairs if view is not None else ()
        self.note.setText(view.pairs_note if view is not None else "")
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
            table.selectRow(current)
            table.scrollToItem(
                table.item(current, 0), QAbstractItemView.ScrollHint.PositionAtCenter
            )
        else:
            table.clearSelection()

    def _on_double_click(self, row: int, _column: int) -> None:
        if 0 <= row < len(self._rows):
            self._vm.choose_pair(self._rows[row].micro_batch)
