"""The pairs chart (QtCharts): time per step against memory per GPU, one point per
(micro-batch, accumulation steps) pair; and the chart tab, which switches between it
and the trade-off chart. Imported only when the chart tab is first shown."""

from __future__ import annotations

from PySide6.QtCharts import QLineSeries, QScatterSeries, QXYSeries
from PySide6.QtCore import QLocale, QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QCursor, QPen
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.tradeoff_chart import AxisFit, ChartPane, TradeoffChart
from gradacc_desktop.viewmodels.pair_chart import (
    MAX_X_INTERVALS,
    MAX_Y_INTERVALS,
    PairChartMessage,
    PairChartView,
    PairChartViewModel,
    PairMark,
)
from gradacc_desktop.viewmodels.tradeoff import AxisView

# Okabe & Ito's colour-blind-safe palette, as the trade-off chart: darker colours for
# light backgrounds, lighter ones for dark backgrounds.
LIGHT_COLOURS = {"fits": "#0072b2", "over": "#d55e00", "current": "#cc79a7", "fastest": "#009e73"}
DARK_COLOURS = {"fits": "#56b4e9", "over": "#e69f00", "current": "#cc79a7", "fastest": "#f0e442"}
POINT_SIZE = 10.0
# the pair in use and the fastest pair are framed: a square and a larger diamond
CURRENT_SIZE = 20.0
FASTEST_SIZE = 26.0
FRAME_WIDTH = 2.5
LIMIT_WIDTH = 1.5
# the pairs that do not fit: hollow, drawn with a thinner outline
HOLLOW_WIDTH = 2.0
LEGEND_COLUMNS = 3
LEGEND_KEYS = ("fits", "over", "capacity", "current", "fastest")


class PairChart(ChartPane[PairChartViewModel, PairChartView]):
    light_colours = LIGHT_COLOURS
    dark_colours = DARK_COLOURS

    def __init__(self, vm: PairChartViewModel, parent: QWidget | None = None) -> None:
        super().__init__(vm, "pair", LEGEND_KEYS, parent)
        # each series' tooltips by the point's coordinates
        self._tips: dict[tuple[float, float], str] = {}
        self.capacity = QLineSeries()
        self.fits = QScatterSeries()
        self.over = QScatterSeries()
        self.current = QScatterSeries()
        self.fastest = QScatterSeries()
        for scatter, size in (
            (self.fits, POINT_SIZE),
            (self.over, POINT_SIZE),
            (self.current, CURRENT_SIZE),
            (self.fastest, FASTEST_SIZE),
        ):
            scatter.setMarkerSize(size)
        self.current.setMarkerShape(QScatterSeries.MarkerShape.MarkerShapeRectangle)
        self.fastest.setMarkerShape(QScatterSeries.MarkerShape.MarkerShapeRotatedRectangle)
        # the frames go under the points, so a point inside stays visible
        self.all_series: tuple[QXYSeries, ...] = (
            self.capacity,
            self.fastest,
            self.current,
            self.over,
            self.fits,
        )
        self._add_series(*self.all_series)
        for scatter in (self.fits, self.over, self.current, self.fastest):
            scatter.hovered.connect(self._on_hovered)
        for column in range(LEGEND_COLUMNS):
            self.legend_grid.setColumnStretch(column, 1)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel(self)
        self.message.setObjectName("pair_message")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self._column.addWidget(self.message, 1)
        self._start()

    def _paint(self, colours: dict[str, QColor], text: QColor) -> None:
        hollow = QBrush(Qt.BrushStyle.NoBrush)
        # the pairs that fit: filled dots
        self.fits.setColor(colours["fits"])
        self.fits.setBorderColor(colours["fits"])
        # the pairs that do not fit: hollow rings
        over = QPen(colours["over"], HOLLOW_WIDTH)
        self.over.setPen(over)
        self.over.setBrush(hollow)
        frames = {}
        for key, series in (("current", self.current), ("fastest", self.fastest)):
            frames[key] = QPen(colours[key], FRAME_WIDTH)
            series.setPen(frames[key])
            series.setBrush(hollow)
        limit = QPen(text, LIMIT_WIDTH, Qt.PenStyle.DashLine)
        self.capacity.setPen(limit)
        entries = self.legend_entries
        entries["fits"].draw(QPen(colours["fits"], 1.0), QBrush(colours["fits"]))
        entries["over"].draw(over, hollow)
        entries["capacity"].draw(limit)
        entries["current"].draw(frames["current"], hollow, "square")
        entries["fastest"].draw(frames["fastest"], hollow, "diamond")

    def show_view(self, view: PairChartView | PairChartMessage) -> None:
        self._show_drawn(isinstance(view, PairChartView), self.message)
        if not isinstance(view, PairChartView):
            self._shown = None
            self._tips = {}
            self.message.setText(view.message)
            self.view.setAccessibleDescription(view.message)
            return
        self._shown = view
        self._show_titles(view)
        names = {
            "fits": view.fits_name,
            "over": view.over_name,
            "capacity": view.capacity_name,
            "current": view.current_name,
            "fastest": view.fastest_name,
        }
        for series, key in (
            (self.fits, "fits"),
            (self.over, "over"),
            (self.capacity, "capacity"),
            (self.current, "current"),
            (self.fastest, "fastest"),
        ):
            series.setName(names[key] or "")
            self.legend_entries[key].text.setText(names[key] or "")
            self.legend_entries[key].setVisible(names[key] is not None)
        self.legend_entries["over"].setVisible(bool(view.over))
        self._place_legend()
        marks = {
            self.fits: view.fits,
            self.over: view.over,
            self.current: (view.current,) if view.current else (),
            self.fastest: (view.fastest,) if view.fastest else (),
        }
        self._tips = {}
        for series, shown in marks.items():
            series.replace([QPointF(m.x, m.y) for m in shown])
            self._tips.update(self._tips_of(shown))
        self._show_summary(view)

    def _place_legend(self) -> None:
        """The entries shown, row by row, with no gap where one is hidden."""
        shown = [e for e in self.legend_entries.values() if not e.isHidden()]
        for entry in self.legend_entries.values():
            self.legend_grid.removeWidget(entry)
        for index, entry in enumerate(shown):
            self.legend_grid.addWidget(entry, index // LEGEND_COLUMNS, index % LEGEND_COLUMNS)

    @staticmethod
    def _tips_of(marks: tuple[PairMark, ...]) -> dict[tuple[float, float], str]:
        return {(m.x, m.y): m.tip for m in marks}

    def tip_at(self, point: QPointF) -> str | None:
        """The tooltip of the pair drawn at ``point`` (chart coordinates)."""
        return self._tips.get((point.x(), point.y()))

    def _on_hovered(self, point: QPointF, state: bool) -> None:
        tip = self.tip_at(point) if state else None
        if tip is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), tip, self.view)

    def _axis(self, view: PairChartView, horizontal: bool, fit: AxisFit) -> AxisView:
        if horizontal:
            return self._vm.axis(view.x_max, *fit, MAX_X_INTERVALS)
        return self._vm.axis(view.y_max, *fit, MAX_Y_INTERVALS)

    def _reach_axes(self, view: PairChartView, x: AxisView, y: AxisView) -> None:
        # the GPU's memory: a vertical line through the whole plot
        self.capacity.replace([QPointF(view.capacity_gb, 0.0), QPointF(view.capacity_gb, y.top)])


class ChartsPage(QWidget):
    """The chart tab: two buttons switch between the trade-off chart (memory against
    batch) and the pairs chart (time against memory); each gets the whole page."""

    def __init__(
        self, tradeoff: TradeoffChart, pairs: PairChart, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("charts_page")
        self.tradeoff = tradeoff
        self.pairs = pairs
        self.tradeoff_button = QRadioButton(self)
        self.tradeoff_button.setObjectName("show_tradeoff")
        self.pairs_button = QRadioButton(self)
        self.pairs_button.setObjectName("show_pairs")
        self.buttons = QButtonGroup(self)
        self.buttons.setExclusive(True)
        for index, button in enumerate((self.tradeoff_button, self.pairs_button)):
            button.setCheckable(True)
            self.buttons.addButton(button, index)
        self.tradeoff_button.setChecked(True)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(tradeoff)
        self.stack.addWidget(pairs)
        switch = QHBoxLayout()
        switch.setContentsMargins(0, 0, 0, 0)
        switch.setSpacing(16)
        switch.addWidget(self.tradeoff_button)
        switch.addWidget(self.pairs_button)
        switch.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.addLayout(switch)
        layout.addWidget(self.stack, 1)
        self.buttons.idClicked.connect(self.stack.setCurrentIndex)
        self.retranslate()

    def show_pairs(self, shown: bool = True) -> None:
        """Show the pairs chart (or, with ``shown`` False, the trade-off chart)."""
        button = self.pairs_button if shown else self.tradeoff_button
        button.setChecked(True)
        self.stack.setCurrentIndex(1 if shown else 0)

    def showing_pairs(self) -> bool:
        return self.stack.currentWidget() is self.pairs

    def set_locale(self, locale: QLocale) -> None:
        self.setLocale(locale)
        self.tradeoff.set_locale(locale)
        self.pairs.set_locale(locale)

    def retranslate(self) -> None:
        self.tradeoff_button.setText(self.tr("Memory against batch"))
        self.pairs_button.setText(self.tr("Time against memory, per pair"))
