"""The "Planejar execução" view: the training description's plan — the result cards
(with the card that starts the search for the best setup) and the pairs table, or, in
their place, the search's result page. Its inputs are the description's, in the panel
beside it."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from gradacc_desktop.ui.planner.pairs import PairsPanel
from gradacc_desktop.ui.planner.results import PlannerResultsPanel
from gradacc_desktop.ui.planner.search import SearchCard, SearchPage
from gradacc_desktop.ui.scroll_area import ScrollArea
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.planner.model import REFERENCE_FIELDS
from gradacc_desktop.viewmodels.search import SearchViewModel
from gradacc_desktop.viewmodels.training.fields import TrainingField

# The result cards keep at least this height when the table takes the rest of a
# small window.
TOP_MINIMUM_HEIGHT = 160


class PlannerView(QWidget):
    # a short message for the main window's status bar
    statusMessage = Signal(str)
    # "Usar esta configuração" filled the calculator (the window may switch tabs)
    useConfigurationRequested = Signal()
    copyRequested = Signal()

    def __init__(
        self, vm: PlannerViewModel, search: SearchViewModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("planner_view")
        self.vm = vm
        self.search_vm = search
        self.results = PlannerResultsPanel(vm, self)
        self.search_card = SearchCard(search, self.results)
        self.results.add_card(self.search_card, before=self.results.deepspeed)
        self.reference_labels: dict[TrainingField, QLabel] = {}
        self.reference: dict[TrainingField, NumberField] = {}
        for field in REFERENCE_FIELDS:
            box = NumberField(vm.number_input(field), self.results.extras)
            box.setObjectName(f"plan_{field.value}")
            box.lineEdit().setPlaceholderText("—")
            box.set_text(vm.shown_text(field))
            box.copyRequested.connect(self.copyRequested)
            box.textChanged.connect(lambda text, f=field: self.vm.set_text(f, text))
            label = QLabel(self.results.extras)
            label.setBuddy(box)
            self.results.extras.reference.addRow(label, box)
            self.reference[field] = box
            self.reference_labels[field] = label
        self.pairs = PairsPanel(vm, self)
        # Top: the result cards in a column that scrolls (a tab stop that scrolls with
        # the keyboard); bottom: the pairs table.
        self.results_area = ScrollArea(self.results, self, focusable=True)
        self.results_area.setObjectName("plan_results_area")
        self.results_area.setMinimumWidth(
            max(
                36 * self.fontMetrics().averageCharWidth(),
                self.results.minimumSizeHint().width()
                + self.results_area.verticalScrollBar().sizeHint().width()
                + 2 * ScrollArea.FOCUS_MARGIN,
            )
        )
        self.results_area.setMinimumHeight(TOP_MINIMUM_HEIGHT)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("plan_splitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.results_area)
        self.splitter.addWidget(self.pairs)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        # the search's result takes the whole column (room for its table, no scrolling
        # inside the column's scrolling)
        # (one shown at a time: a hidden widget takes no room in the layout)
        self.search = SearchPage(search, self)
        self.search.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        layout.addWidget(self.search)

        self.results.useRequested.connect(self.use_configuration)
        self.results.statusMessage.connect(self.statusMessage)
        self.search.statusMessage.connect(self.statusMessage)
        self.search_card.searchRequested.connect(self.find_best)
        self.search.searchRequested.connect(self.find_best)
        self.search.backRequested.connect(self.show_plan)
        self.pairs.statusMessage.connect(self.statusMessage)
        vm.training.inputsReplaced.connect(self._show_reference)

        for first, second in pairwise(self.tab_chain()):
            self.setTabOrder(first, second)
        self._retranslate_own()

    def _show_reference(self, fields: frozenset[object]) -> None:
        for field, box in self.reference.items():
            if field in fields:
                box.set_text(self.vm.shown_text(field))

    def tab_chain(self) -> list[QWidget]:
        """Every control of the page in reading order: the result cards (their buttons
        and the search's), then the pairs table; then the search's page (shown instead)."""
        return [
            self.results_area,
            self.results.configuration.use_button,
            self.results.cost.currency,
            self.results.time.use_fastest,
            self.search_card.open_button,
            *self.reference.values(),
            self.pairs.table,
            *self.search.tab_chain(),
        ]

    # -- actions ----------------------------------------------------------------
    def find_best(self) -> None:
        """Search (on the GPUs asked for) and show the result in the whole column."""
        self.search_vm.run()
        self.splitter.hide()
        self.search.show()
        shown = self.search.table if self.search.table.isVisibleTo(self) else self.search.world
        shown.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_plan(self) -> None:
        """The plan's cards and the pairs again (the search's result is kept)."""
        self.search.hide()
        self.splitter.show()
        self.search_card.open_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def use_configuration(self) -> None:
        message = self.vm.use_configuration()
        if message is not None:
            self.statusMessage.emit(message)
            self.useConfigurationRequested.emit()

    # -- language ---------------------------------------------------------------
    def set_language(self, locale: QLocale) -> None:
        """The one route of a language switch, once the new catalogues are installed and
        the description has its new state (which the planner's follows): the widgets take
        ``locale`` and every part retranslates once."""
        self.setLocale(locale)
        for box in self.reference.values():
            box.setLocale(locale)
        self.search.set_language(locale)
        self.retranslate()
        for field, box in self.reference.items():
            box.set_text(self.vm.shown_text(field))

    def retranslate(self) -> None:
        self._retranslate_own()
        self.results.retranslate()
        self.search_card.retranslate()
        self.search.retranslate()
        self.pairs.retranslate()

    def _retranslate_own(self) -> None:
        self.results_area.setAccessibleName(self.tr("Plan"))
        texts = self.vm.training.texts
        for field, label in self.reference_labels.items():
            label.setText(texts.field_label(field, mnemonic=True))
            box = self.reference[field]
            box.setAccessibleName(texts.field_label(field))
            box.setToolTip(texts.field_hint(field))
