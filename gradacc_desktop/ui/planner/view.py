"""The "Planejar execução" view: inputs, result cards and the pairs table."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from PySide6.QtCore import QEvent, QLocale, QPoint, Qt, Signal
from PySide6.QtGui import QFocusEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.file_dialogs import ask_open_path, ask_save_path
from gradacc_desktop.ui.planner.inputs import PlannerInputsPanel
from gradacc_desktop.ui.planner.other_memory import OtherMemoryDialog
from gradacc_desktop.ui.planner.pairs import PairsPanel
from gradacc_desktop.ui.planner.results import PlannerResultsPanel
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.other_memory import OtherMemoryViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.settings import Settings

# The form and the result cards keep at least this height when the table and the
# export below take the rest of a small window.
TOP_MINIMUM_HEIGHT = 160


class ScrollArea(QScrollArea):
    """A frameless, vertically scrolling area. When it takes the keyboard focus (to
    scroll text that has no control of its own) it draws a focus frame. It scrolls
    sideways only when a translation makes a line wider than the area can grow."""

    FOCUS_MARGIN = 2

    def __init__(self, widget: QWidget, parent: QWidget, focusable: bool) -> None:
        super().__init__(parent)
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        if focusable:
            m = self.FOCUS_MARGIN
            self.setViewportMargins(m, m, m, m)
        else:
            self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Tab between fields is handled by the window, not by this area: scroll the
        # field that takes the focus into view here
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """The whole control comes into view (``ensureWidgetVisible`` settles for a line
        edit's text cursor, leaving a field cut at the edge)."""
        inner = self.widget()
        if new is None or inner is None or not inner.isAncestorOf(new):
            return
        margin = 8
        top = new.mapTo(inner, QPoint(0, 0)).y()
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        if top - margin < bar.value():
            bar.setValue(top - margin)
        elif top + new.height() + margin > bar.value() + height:
            bar.setValue(top + new.height() + margin - height)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.Paint and self.hasFocus():
            painter = QPainter(self)
            pen = QPen(self.palette().color(QPalette.ColorRole.Highlight))
            pen.setWidth(self.FOCUS_MARGIN)
            painter.setPen(pen)
            half = self.FOCUS_MARGIN // 2
            painter.drawRect(self.rect().adjusted(half, half, -half, -half))
        return handled

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.update()


class PlannerView(QWidget):
    # a short message for the main window's status bar
    statusMessage = Signal(str)
    # "Usar esta configuração" filled the calculator (the window may switch tabs)
    useConfigurationRequested = Signal()

    def __init__(self, calculator_vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planner_view")
        self.vm = PlannerViewModel(calculator_vm, self)
        self.other_memory_vm = OtherMemoryViewModel(self.vm, self)
        self.inputs = PlannerInputsPanel(self.vm, self)
        self.results = PlannerResultsPanel(self.vm, self)
        self.pairs = PairsPanel(self.vm, self)

        # Top: the form and the result cards, each scrolling on its own. Every input
        # is a control, so the form needs no focus of its own; the cards are mostly
        # text, so their area is a tab stop that scrolls with the keyboard.
        top = QWidget(self)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(12)
        self.inputs_area = ScrollArea(self.inputs, top, focusable=False)
        self.inputs_area.setObjectName("plan_inputs_area")
        self.results_area = ScrollArea(self.results, top, focusable=True)
        self.results_area.setObjectName("plan_results_area")
        # the form never clips: its column is at least as wide as the form needs
        self.inputs_area.setMinimumWidth(
            self.inputs.minimumSizeHint().width()
            + self.inputs_area.verticalScrollBar().sizeHint().width()
        )
        # the cards stay readable: about 36 characters a line
        self.results_area.setMinimumWidth(
            max(
                36 * self.fontMetrics().averageCharWidth(),
                self.results.minimumSizeHint().width()
                + self.results_area.verticalScrollBar().sizeHint().width()
                + 2 * ScrollArea.FOCUS_MARGIN,
            )
        )
        top.setMinimumHeight(TOP_MINIMUM_HEIGHT)
        top_layout.addWidget(self.inputs_area, 4)
        top_layout.addWidget(self.results_area, 5)
        # Bottom: the pairs table (the exports have their own tab, "Treino").
        bottom = QWidget(self)
        bottom_layout = QHBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.pairs, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("plan_splitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(top)
        self.splitter.addWidget(bottom)
        # a taller window gives its height to the form and the cards
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        # the main window hands over its settings: file dialogs start in the last folder
        self.settings: Settings | None = None

        self.inputs.estimateRequested.connect(self.open_other_memory_dialog)
        self.results.useRequested.connect(self.use_configuration)
        self.pairs.statusMessage.connect(self.statusMessage)

        for first, second in pairwise(self.tab_chain()):
            self.setTabOrder(first, second)
        self._retranslate_own()

    def tab_chain(self) -> list[QWidget]:
        """Every control of the page in reading order: the form top to bottom, the
        result cards, then the pairs table."""
        return [
            *self.inputs.tab_chain(),
            self.results_area,
            self.results.configuration.use_button,
            self.results.time.use_fastest,
            self.pairs.table,
        ]

    # -- actions ----------------------------------------------------------------
    def use_configuration(self) -> None:
        message = self.vm.use_configuration()
        if message is not None:
            self.statusMessage.emit(message)
            self.useConfigurationRequested.emit()

    def open_other_memory_dialog(self) -> OtherMemoryDialog:
        """Open the "Estimar…" dialog (non-blocking; returns it for tests)."""
        dialog = OtherMemoryDialog(self.other_memory_vm, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.accepted.connect(
            lambda: self.statusMessage.emit(self.tr("Other memory set from the estimate."))
        )
        dialog.open()
        return dialog

    def save_scenario_dialog(self) -> None:
        if self.vm.unsaved_problems():  # say why before asking where
            self.save_scenario(Path())
            return
        path = ask_save_path(
            self,
            self.tr("Save scenario"),
            self.tr("scenario.json"),
            self._filter(),
            self.settings,
            default_suffix="json",
        )
        if path is not None:
            if path.suffix.lower() != ".json":
                path = path.with_name(path.name + ".json")
            self.save_scenario(path)

    def open_scenario_dialog(self) -> None:
        path = ask_open_path(self, self.tr("Open scenario"), self._filter(), self.settings)
        if path is not None:
            self.open_scenario(path)

    def save_scenario(self, path: Path) -> bool:
        outcome = self.vm.save_scenario(path)
        self._report(outcome.ok, outcome.message, self.tr("Save scenario"))
        return outcome.ok

    def open_scenario(self, path: Path) -> bool:
        outcome = self.vm.open_scenario(path)
        self._report(outcome.ok, outcome.message, self.tr("Open scenario"))
        return outcome.ok

    def _report(self, ok: bool, message: str, title: str) -> None:
        self.statusMessage.emit(message)
        if not ok:
            box = QMessageBox(QMessageBox.Icon.Warning, title, message, parent=self)
            box.setObjectName("scenario_error")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    def _filter(self) -> str:
        return self.tr("Scenarios (*.json)")

    # -- language ---------------------------------------------------------------
    def set_language(self, locale: QLocale) -> None:
        """The one route of a language switch, called once the new catalogues are
        installed: the widgets take ``locale``, the view-models rebuild their state
        once, the fields re-read their text and every part retranslates once."""
        self.setLocale(locale)
        self.vm.set_language(locale)
        self.other_memory_vm.set_language(locale)
        self.inputs.set_language(locale)
        self.retranslate()
        for dialog in self.findChildren(OtherMemoryDialog):
            if dialog.isVisible():
                dialog.set_language(locale)

    def retranslate(self) -> None:
        """Every part's fixed words in the current language (on the first build and
        from ``set_language``); what the view-model's state says comes with the state."""
        self._retranslate_own()
        self.inputs.retranslate()
        self.results.retranslate()
        self.pairs.retranslate()

    def _retranslate_own(self) -> None:
        self.results_area.setAccessibleName(self.tr("Plan"))


def create_planner(
    calculator_vm: CalculatorViewModel, parent: QWidget | None = None
) -> PlannerView:
    """The planner tab around the calculator's view-model (they share the activation)."""
    return PlannerView(calculator_vm, parent)
