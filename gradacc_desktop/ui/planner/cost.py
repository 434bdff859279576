"""The "Training cost" card: what the run trains, its wall-clock time, GPU-hours, the
price per GPU-hour in the currency chosen beside it, and the total — or what is
missing for them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QWidget

from gradacc_desktop.ui.planner.card import Card, text_label
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.planner import CostView, PlannerViewModel
from gradacc_desktop.viewmodels.planner.cost import Currency

#: the grid's rows: what is trained, time, GPU-hours, price, total
ROWS = 5


class CostCard(Card):
    def __init__(self, vm: PlannerViewModel, parent: QWidget | None = None) -> None:
        super().__init__("cost", parent)
        self._vm = vm
        self.currency = QComboBox(self)
        self.currency.setObjectName("plan_currency")
        self.currency.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        guard_wheel(self.currency)
        self.currency_label = QLabel(self)
        self.currency_label.setBuddy(self.currency)
        head = QHBoxLayout()
        self.body.removeWidget(self.title)
        head.addWidget(self.title, 1)
        head.addWidget(self.currency_label)
        head.addWidget(self.currency)
        self.body.addLayout(head)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(2)
        self.body.addLayout(self.grid)
        self.labels = [QLabel(self) for _ in range(ROWS)]
        for row, label in enumerate(self.labels):
            label.setObjectName(f"plan_cost_label_{row}")
            self.grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop)
        # one column of values per budget (tokens, epochs), made as needed
        self.values: list[list[QLabel]] = []
        self.missing = text_label(self, "plan_cost_missing")
        self.note = text_label(self, "plan_cost_note")
        font = self.note.font()
        font.setItalic(True)
        self.note.setFont(font)
        self.body.addWidget(self.missing)
        self.body.addWidget(self.note)
        for currency in Currency:
            self.currency.addItem("", currency)
        self.currency.activated.connect(self._on_currency)

    def _on_currency(self, index: int) -> None:
        currency = self.currency.itemData(index)
        if isinstance(currency, Currency):
            self._vm.set_currency(currency)

    def _column(self, index: int) -> list[QLabel]:
        while len(self.values) <= index:
            column = len(self.values)
            cells = [text_label(self, f"plan_cost_{column}_{row}") for row in range(ROWS)]
            for row, cell in enumerate(cells):
                self.grid.addWidget(cell, row, column + 1, Qt.AlignmentFlag.AlignTop)
                self.grid.setColumnStretch(column + 1, 1)
            bold = cells[-1].font()
            bold.setBold(True)
            cells[-1].setFont(bold)  # the total
            self.values.append(cells)
        return self.values[index]

    def retranslate(self) -> None:
        texts = self._vm.cost_texts
        self.title.setText(texts.title())
        self.currency_label.setText(texts.currency_label())
        self.currency.setAccessibleName(texts.currency_label())
        for index in range(self.currency.count()):
            currency = self.currency.itemData(index)
            assert isinstance(currency, Currency)
            self.currency.setItemText(index, texts.currency_name(currency))
        for label, text in zip(self.labels, texts.row_labels(), strict=True):
            label.setText(text)

    def show_view(self, view: CostView) -> None:
        self.currency.setCurrentIndex(self.currency.findData(self._vm.currency()))
        lines = view.lines
        # a column per budget; without one, the price still shows
        columns = max(len(lines), 1 if view.price else 0)
        for index in range(max(columns, len(self.values))):
            cells = self._column(index)
            price = view.price if index == 0 else ""
            line = lines[index] if index < len(lines) else None
            texts = (
                ("", "", "", price, "")
                if line is None
                else (line.trained, line.time, line.gpu_hours, price, line.total)
            )
            for cell, text in zip(cells, texts, strict=True):
                cell.setText(text)
                cell.setVisible(index < columns and bool(text))
        for row, label in enumerate(self.labels):
            label.setVisible(any(cells[row].text() for cells in self.values[:columns]))
        self.missing.setText(view.missing)
        self.missing.setVisible(bool(view.missing))
        self.note.setText(view.note)
        self.note.setVisible(bool(view.note))
