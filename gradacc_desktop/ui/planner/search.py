"""Find the best setup: a card in the plan's column that starts the search, and the page
that shows its result in the whole column — the GPUs to search on, the best setup with
the next ones in a table (the best marked in words and in bold, each other row against
it), why every other option is out, and a row used with one click or Enter."""

from __future__ import annotations

from PySide6.QtCore import QLocale, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.planner.card import Card, text_label
from gradacc_desktop.ui.scroll_area import ScrollArea
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.viewmodels.search import RankedRow, SearchState, SearchViewModel

# the ranking's columns: setup, pair, time per step, memory per GPU, against the best
COLUMNS = 5
#: the comparison column's widest in a narrow pane, in average characters (it wraps)
VERSUS_CHARS = 14
#: the setup column's narrowest, in average characters: below it its rows take more
#: lines, and a pane narrower still scrolls sideways rather than cut the setup to nothing
SETUP_CHARS = 28
#: the most lines a row takes in a narrow pane (the whole setup is in its tooltip)
ROW_LINES = 3
#: the rows the table keeps in view however short the window (the reasons scroll first)
MIN_ROWS = 2
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class SearchCard(Card):
    """In the plan's column: what the search does (or its last best), and the button
    that runs it and opens its page."""

    searchRequested = Signal()

    def __init__(self, vm: SearchViewModel, parent: QWidget | None = None) -> None:
        super().__init__("search", parent)
        self._vm = vm
        self.summary = text_label(self, "search_summary")
        self.open_button = QPushButton(self)
        self.open_button.setObjectName("search_open")
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        self.body.addLayout(row)
        self.open_button.clicked.connect(self.searchRequested)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()

    def show_state(self, state: SearchState) -> None:
        self.summary.setText(state.best or state.message)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Find the best setup"))
        self.open_button.setText(self.tr("Find the &best setup"))
        self.open_button.setToolTip(
            self.tr(
                "Search ZeRO stage, offload, recomputation, tensor parallelism, pipeline "
                "stages and the pair for the fastest setup that fits"
            )
        )
        self.show_state(self._vm.state)


class RankingTable(QTableWidget):
    """One stop in the tab chain: arrows move, one click or Return uses a row."""

    rowChosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, COLUMNS, parent)
        self.setObjectName("search_ranking")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)
        # a narrow pane wraps the setup and the comparison rather than cutting them
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, COLUMNS - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS - 1, QHeaderView.ResizeMode.Interactive)
        self.cellClicked.connect(lambda row, _column: self.rowChosen.emit(row))

    def sizeHint(self) -> QSize:
        """Tall enough for every row (the reasons below take the rest)."""
        return QSize(super().sizeHint().width(), self._height(self.rowCount()))

    def _height(self, rows: int) -> int:
        header = self.horizontalHeader().sizeHint().height()
        return header + sum(self.rowHeight(r) for r in range(rows)) + 2 * self.frameWidth()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.rowChosen.emit(self.currentRow())
            event.accept()
            return
        super().keyPressEvent(event)

    def show_rows(self, rows: tuple[RankedRow, ...]) -> None:
        current = self.currentRow()
        self.setRowCount(len(rows))
        for r, ranked in enumerate(rows):
            texts = (ranked.setup, ranked.pair, ranked.step, ranked.memory, ranked.versus)
            for c, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if c == 0:  # the whole setup, when a narrow column cuts it
                    item.setToolTip(text)
                if c in (1, 2, 3):
                    item.setTextAlignment(RIGHT)
                if ranked.best or ranked.in_use:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(r, c, item)
        self._fit_versus()
        if rows:
            self.selectRow(current if 0 <= current < len(rows) else 0)
        self.horizontalScrollBar().setValue(0)  # the setup first
        self.updateGeometry()

    def _fit_versus(self) -> None:
        """The comparison column as wide as its text, unless that leaves the setup
        column narrow: then at most ``VERSUS_CHARS`` average characters or its heading
        (it wraps beyond); then the rows' heights."""
        metrics = self.fontMetrics()
        last = COLUMNS - 1
        items = [self.item(r, last) for r in range(self.rowCount())]
        items.append(self.horizontalHeaderItem(last))
        texts = [item.text() for item in items if item is not None]
        versus = max((metrics.horizontalAdvance(t) for t in texts), default=0) + self._padding()
        numbers = sum(self.columnWidth(c) for c in range(1, last))
        if self.viewport().width() - numbers - versus < self._narrow():
            heading = self.horizontalHeaderItem(last)
            title = 0 if heading is None else metrics.horizontalAdvance(heading.text())
            cap = max(metrics.averageCharWidth() * VERSUS_CHARS, title + self._padding())
            versus = min(versus, cap)
        self.setColumnWidth(last, versus)
        # the setup stretches over what is left, never below its narrowest: a pane too
        # narrow for that scrolls sideways (the setup stays first, in view)
        header = self.horizontalHeader()
        squeezed = self.viewport().width() - numbers - versus < self._narrow()
        mode = QHeaderView.ResizeMode.Interactive if squeezed else QHeaderView.ResizeMode.Stretch
        if header.sectionResizeMode(0) != mode:
            header.setSectionResizeMode(0, mode)
        if squeezed:
            self.setColumnWidth(0, self._narrow())
        self._fit_rows()

    def _padding(self) -> int:
        return 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 8

    def _narrow(self) -> int:
        return self.fontMetrics().averageCharWidth() * SETUP_CHARS

    def _fit_rows(self) -> None:
        """One line a row (eight rows and more in view; a longer setup elided, whole in
        its tooltip); in a narrow pane as many as the setup or the comparison needs in
        its column, up to ``ROW_LINES``."""
        metrics = self.fontMetrics()
        one = self.verticalHeader().defaultSectionSize()
        narrow = self.columnWidth(0) <= self._narrow()
        for r in range(self.rowCount()):
            lines = 1
            for c in (0, COLUMNS - 1) if narrow else ():
                item = self.item(r, c)
                room = self.columnWidth(c) - self._padding()
                if item is not None and room > 0:
                    needed = -(-metrics.horizontalAdvance(item.text()) // room)  # ceiling
                    lines = max(lines, min(needed, ROW_LINES))
            self.setRowHeight(r, one + (lines - 1) * metrics.lineSpacing())
        # a short window keeps MIN_ROWS rows in view: the reasons below give way first (a
        # minimum of the widget's own: the page's word-wrapped labels make its layout
        # share the height by its items' heights for the width, not their size hints)
        self.setMinimumHeight(self._height(min(self.rowCount(), MIN_ROWS)))
        self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_versus()  # the room for the setup and the comparison has changed


class SearchPage(QWidget):
    """The search's result in the whole column (the plan's cards and the pairs make
    way for it; "Back to the plan" or Esc brings them back)."""

    statusMessage = Signal(str)
    searchRequested = Signal()
    backRequested = Signal()

    def __init__(self, vm: SearchViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("search_page")
        self._vm = vm
        self.title = QLabel(self)
        self.title.setObjectName("search_title")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.world = NumberField(vm.world_input(), self)
        self.world.setObjectName("search_world")
        self.world_label = QLabel(self)
        self.world_label.setBuddy(self.world)
        self.run_button = QPushButton(self)
        self.run_button.setObjectName("search_run")
        self.back_button = QPushButton(self)
        self.back_button.setObjectName("search_back")
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.back_button)
        gpus = QHBoxLayout()
        gpus.addWidget(self.world_label)
        gpus.addWidget(self.world)
        gpus.addWidget(self.run_button)
        gpus.addStretch(1)
        self.message = text_label(self, "search_message")
        self.best = text_label(self, "search_best")
        font = self.best.font()
        font.setBold(True)
        self.best.setFont(font)
        self.stale = text_label(self, "search_stale")
        self.table = RankingTable(self)
        self.hint = text_label(self, "search_hint")
        self.use_button = QPushButton(self)
        self.use_button.setObjectName("search_use")
        use_row = QHBoxLayout()
        use_row.addWidget(self.hint, 1)
        use_row.addWidget(self.use_button, 0, Qt.AlignmentFlag.AlignTop)
        # why every other option is out: its own area, which scrolls alone
        self.exclusions_title = text_label(self, "search_exclusions_title", selectable=False)
        self.exclusions_title.setFont(font)
        self.exclusions = text_label(self, "search_exclusions")
        self.exclusions.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.exclusions_area = ScrollArea(self.exclusions, self, focusable=True)
        self.exclusions_area.setObjectName("search_exclusions_area")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addLayout(gpus)
        for label in (self.message, self.stale, self.best):
            layout.addWidget(label)
        # The ranking as tall as its rows, the reasons take the rest (and scroll alone); a
        # short window keeps the table's minimum (a few rows) and the reasons give way.
        # One flat layout: a table inside a box with the word-wrapped hint would be sized
        # by its height for the width (every row), not by its minimum.
        layout.addWidget(self.table, 0)
        layout.addLayout(use_row)
        layout.addWidget(self.exclusions_title)
        layout.addWidget(self.exclusions_area, 1)

        self.world.textChanged.connect(vm.set_world_text)
        self.run_button.clicked.connect(self.searchRequested)
        self.back_button.clicked.connect(self.backRequested)
        QShortcut(
            QKeySequence(Qt.Key.Key_Escape),
            self,
            self.backRequested.emit,
            context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
        )
        self.use_button.clicked.connect(self.use_selected)
        self.table.rowChosen.connect(self.use_row)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self.show_state(vm.state)

    def tab_chain(self) -> list[QWidget]:
        return [
            self.world,
            self.run_button,
            self.back_button,
            self.table,
            self.use_button,
            self.exclusions_area,
        ]

    def use_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        self.use_row(rows[0].row() if rows else 0)

    def use_row(self, index: int) -> None:
        message = self._vm.use(index)
        if message is not None:
            self.statusMessage.emit(message)

    def minimumSizeHint(self) -> QSize:
        """As short as its parts allow at its width, the wrapped labels' lines counted
        (Qt's own hint counts one line each: a window at its minimum would draw the table
        over the words below it)."""
        hint = super().minimumSizeHint()
        layout = self.layout()
        if layout is None:
            return hint
        width = max(self.width(), hint.width())
        return QSize(hint.width(), max(hint.height(), layout.minimumHeightForWidth(width)))

    def show_state(self, state: SearchState) -> None:
        self.message.setText(state.problem or state.message)
        self.message.setVisible(bool(state.problem or state.message))
        self.best.setText(state.best)
        self.best.setVisible(bool(state.best))
        self.stale.setVisible(state.stale)
        self.table.show_rows(state.ranking)
        self.table.setVisible(bool(state.ranking))
        self.use_button.setVisible(bool(state.ranking))
        self.hint.setVisible(bool(state.ranking))
        # results of an older description would undo the changes made since
        self.use_button.setEnabled(not state.stale)
        self.table.setEnabled(not state.stale)
        self.exclusions.setText("\n".join(f"• {line}" for line in state.exclusions))
        self.exclusions_title.setVisible(bool(state.exclusions))
        self.exclusions_area.setVisible(bool(state.exclusions))
        self.world.lineEdit().setPlaceholderText(state.world)
        self.world.setToolTip(self._vm.world_hint())

    def retranslate(self) -> None:
        self.title.setText(self.tr("Find the best setup"))
        self.world_label.setText(self.tr("GPUs in all"))
        self.world.setAccessibleName(self._vm.world_label())
        self.world.setToolTip(self._vm.world_hint())
        self.run_button.setText(self.tr("Find the &best setup"))
        self.run_button.setToolTip(self.tr("Search again on these GPUs"))
        self.back_button.setText(self.tr("Back to the plan"))
        self.back_button.setToolTip(self.tr("The plan's cards and the pairs again (Esc)"))
        self.use_button.setText(self.tr("Use the &selected setup"))
        self.use_button.setToolTip(
            self.tr("Make the selected row the training description's setup")
        )
        self.hint.setText(
            self.tr(
                "One click or Enter on a row makes it the training description's setup "
                "(its row then says “in use”)."
            )
        )
        self.stale.setText(
            self.tr("The description changed since this search: search again to update it.")
        )
        self.exclusions_title.setText(self.tr("Why the other options are out"))
        self.exclusions_area.setAccessibleName(self.tr("Why the other options are out"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Setup"),
                self.tr("Pair"),
                self.tr("Time/step"),
                self.tr("Memory/GPU"),
                self.tr("Against the best"),
            ]
        )
        self.table.setAccessibleName(self.tr("Setups that fit, fastest first"))

    def set_language(self, locale: QLocale) -> None:
        self.world.setLocale(locale)
        self._vm.set_language()
        self.retranslate()
