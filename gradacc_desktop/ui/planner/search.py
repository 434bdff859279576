"""The "Find the best setup" card: the GPUs to search on, the search's best setup with
the next ones in a table, why every other option is out, and one button that makes the
chosen row the training description's setup."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gradacc_desktop.ui.planner.card import Card, text_label
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.viewmodels.search import SearchState, SearchViewModel

#: rows of the ranking shown before the table scrolls
VISIBLE_ROWS = 4


class SearchCard(Card):
    statusMessage = Signal(str)

    def __init__(self, vm: SearchViewModel, parent: QWidget | None = None) -> None:
        super().__init__("search", parent)
        self._vm = vm
        self.world = NumberField(vm.world_input(), self)
        self.world.setObjectName("search_world")
        self.world_label = QLabel(self)
        self.world_label.setBuddy(self.world)
        self.run_button = QPushButton(self)
        self.run_button.setObjectName("search_run")
        row = QHBoxLayout()
        form = QFormLayout()
        form.addRow(self.world_label, self.world)
        row.addLayout(form, 1)
        row.addWidget(self.run_button, 0, Qt.AlignmentFlag.AlignTop)
        self.body.addLayout(row)
        self.message = text_label(self, "search_message")
        self.best = text_label(self, "search_best")
        font = self.best.font()
        font.setBold(True)
        self.best.setFont(font)
        self.stale = text_label(self, "search_stale")
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("search_ranking")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.use_button = QPushButton(self)
        self.use_button.setObjectName("search_use")
        self.exclusions = text_label(self, "search_exclusions")
        for widget in (self.message, self.stale, self.best, self.table):
            self.body.addWidget(widget)
        use_row = QHBoxLayout()
        use_row.addStretch(1)
        use_row.addWidget(self.use_button)
        self.body.addLayout(use_row)
        self.body.addWidget(self.exclusions)
        self.world.textChanged.connect(vm.set_world_text)
        self.run_button.clicked.connect(vm.run)
        self.use_button.clicked.connect(self.use_selected)
        self.table.itemDoubleClicked.connect(lambda _item: self.use_selected())
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self.show_state(vm.state)

    def use_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        index = rows[0].row() if rows else 0
        message = self._vm.use(index)
        if message is not None:
            self.statusMessage.emit(message)

    def show_state(self, state: SearchState) -> None:
        self.message.setText(state.problem or state.message)
        self.message.setVisible(bool(state.problem or state.message))
        self.best.setText(state.best)
        self.best.setVisible(bool(state.best))
        self.stale.setVisible(state.stale)
        self.table.setRowCount(len(state.ranking))
        for r, ranked in enumerate(state.ranking):
            for c, text in enumerate((ranked.setup, ranked.pair, ranked.step, ranked.memory)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)
        self.table.setVisible(bool(state.ranking))
        if state.ranking:
            self.table.selectRow(0)
            height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
            shown = min(len(state.ranking), VISIBLE_ROWS)
            height += sum(self.table.rowHeight(r) for r in range(shown))
            self.table.setFixedHeight(height)
        self.use_button.setVisible(bool(state.ranking))
        # results of an older description would undo the changes made since
        self.use_button.setEnabled(not state.stale)
        self.table.setEnabled(not state.stale)
        self.exclusions.setText("\n".join(f"• {line}" for line in state.exclusions))
        self.exclusions.setVisible(bool(state.exclusions))
        self.world.lineEdit().setPlaceholderText(self._vm.world_placeholder())

    def retranslate(self) -> None:
        self.title.setText(self.tr("Find the best setup"))
        self.world_label.setText(self.tr("GPUs in all"))
        self.world.setAccessibleName(self._vm.world_label())
        self.world.setToolTip(self._vm.world_hint())
        self.run_button.setText(self.tr("Find the &best setup"))
        self.run_button.setToolTip(
            self.tr(
                "Search ZeRO stage, offload, recomputation, tensor parallelism, pipeline "
                "stages and the pair for the fastest setup that fits"
            )
        )
        self.use_button.setText(self.tr("Use the &selected setup"))
        self.use_button.setToolTip(
            self.tr("Make the selected row the training description's setup")
        )
        self.stale.setText(
            self.tr("The description changed since this search: search again to update it.")
        )
        self.table.setHorizontalHeaderLabels(
            [self.tr("Setup"), self.tr("Pair"), self.tr("Time/step"), self.tr("Memory/GPU")]
        )
        self.table.setAccessibleName(self.tr("Setups that fit, fastest first"))

    def set_language(self, locale: QLocale) -> None:
        self.world.setLocale(locale)
        self._vm.set_language()
        self.retranslate()
