"""The trade-off chart (QtCharts). Import this module only when the chart is first
shown: QtCharts is a sizeable library and start-up should not pay for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCharts import (
    QChart,
    QChartView,
    QLineSeries,
    QScatterSeries,
    QValueAxis,
    QXYSeries,
)
from PySide6.QtCore import QEvent, QLocale, QMargins, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QHideEvent,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
    QShowEvent,
)
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gradacc_desktop.viewmodels.tradeoff import (
    MAX_X_INTERVALS,
    MAX_Y_INTERVALS,
    AxisView,
    ChartView,
    ChartViewModel,
    TradeoffViewModel,
)

# Okabe & Ito's colour-blind-safe palette: one colour per series, a darker
# set for light backgrounds and a lighter one for dark backgrounds.
LIGHT_COLOURS = {"grow": "#d55e00", "accumulate": "#0072b2", "current": "#cc79a7"}
DARK_COLOURS = {"grow": "#e69f00", "accumulate": "#56b4e9", "current": "#cc79a7"}
LINE_WIDTH = 2.5
LIMIT_WIDTH = 1.5
MARKER_SIZE = 12.0
SWATCH_WIDTH, SWATCH_HEIGHT = 28, 14
# where a legend swatch draws its line and its marker
SWATCH_LINE_Y = 7.0
SWATCH_DOT = QRectF(9.0, 2.0, 10.0, 10.0)


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


class LegendEntry(QWidget):
    """A swatch drawn like its series (line, dashed line or marker) and its name."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.swatch = QLabel(self)
        self.swatch.setFixedSize(SWATCH_WIDTH, SWATCH_HEIGHT)
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.swatch, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.text, 1)

    def draw(self, pen: QPen, marker: QBrush | None = None, shape: str = "circle") -> None:
        """A line (no ``marker``), or a marker filled with ``marker`` (``Qt.NoBrush``: a
        hollow one) whose ``shape`` is "circle", "square" or "diamond"."""
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(self.swatch.size() * ratio)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        if marker is None:
            painter.drawLine(QPointF(0.0, SWATCH_LINE_Y), QPointF(SWATCH_WIDTH, SWATCH_LINE_Y))
        else:
            painter.setBrush(marker)
            if shape == "square":
                painter.drawRect(SWATCH_DOT)
            elif shape == "diamond":
                centre = SWATCH_DOT.center()
                half = SWATCH_DOT.width() / 2 + 1.0
                painter.drawPolygon(
                    QPolygonF(
                        [
                            centre + QPointF(0.0, -half),
                            centre + QPointF(half, 0.0),
                            centre + QPointF(0.0, half),
                            centre + QPointF(-half, 0.0),
                        ]
                    )
                )
            else:
                painter.drawEllipse(SWATCH_DOT)
        painter.end()
        self.swatch.setPixmap(pixmap)


class ChartTexts(Protocol):
    """What every chart's view has: its titles and the summary below it."""

    @property
    def title(self) -> str: ...
    @property
    def x_title(self) -> str: ...
    @property
    def y_title(self) -> str: ...
    @property
    def summary(self) -> str: ...


# How an axis' labels must fit: its length, a label's size along it, the gap between
# neighbours (pixels), as ``TradeoffViewModel.axis`` and ``PairChartViewModel.axis`` take them.
AxisFit = tuple[float, Callable[[str], float], float]
VM = TypeVar("VM", bound=ChartViewModel)
V = TypeVar("V", bound=ChartTexts)


class ChartPane(QWidget, Generic[VM, V]):
    """What both charts do alike: a QtCharts chart on two value axes labelled as densely
    as their labels fit, a wrapping legend and a summary below it, colours that follow
    the palette, and a view-model that recomputes only while the chart is shown.

    A chart adds its series, legend placement and note label, then calls ``_start``;
    it draws its series in ``_paint``, ``show_view`` and ``_reach_axes``."""

    # Each series' colour by key, for light and for dark backgrounds.
    light_colours: dict[str, str]
    dark_colours: dict[str, str]

    def __init__(
        self, vm: VM, name: str, legend_keys: tuple[str, ...], parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}_chart")
        self._vm = vm
        self._shown: V | None = None
        self._axes: tuple[AxisView, AxisView] | None = None
        self.chart = QChart()
        self.chart.setLocalizeNumbers(True)
        # QtCharts' legend cuts long names short: a wrapping legend below the chart
        self.chart.legend().setVisible(False)
        self.chart.setMargins(QMargins(4, 4, 4, 4))
        self.x_axis = QValueAxis()
        self.y_axis = QValueAxis()
        for axis in (self.x_axis, self.y_axis):
            axis.setTickType(QValueAxis.TickType.TicksFixed)
            axis.setMinorTickCount(0)
        self.chart.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        self.chart.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        self.view = QChartView(self.chart, self)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.view.setMinimumHeight(260)
        self.legend = QWidget(self)
        self.legend.setObjectName(f"{name}_legend")
        self.legend_entries = {
            key: LegendEntry(f"legend_{key}", self.legend) for key in legend_keys
        }
        self.legend_grid = QGridLayout(self.legend)
        self.legend_grid.setContentsMargins(8, 0, 8, 0)
        self.summary = QLabel(self)
        self.summary.setObjectName(f"{name}_summary")
        self.summary.setWordWrap(True)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.addWidget(self.view, 1)
        self._column.addWidget(self.legend)
        self._column.addWidget(self.summary)

    def _add_series(self, *series: QXYSeries) -> None:
        """Into the chart, in drawing order (the last on top), on both axes."""
        for xy in series:
            self.chart.addSeries(xy)
            xy.attachAxis(self.x_axis)
            xy.attachAxis(self.y_axis)

    def _start(self) -> None:
        """Once the chart has its series: colour them and show the view-model's view."""
        self._apply_palette()
        self.chart.plotAreaChanged.connect(lambda _area: self._fit_axes())
        self._vm.changed.connect(self.show_view)
        self.show_view(self._vm.view())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._vm.set_active(True)

    def hideEvent(self, event: QHideEvent) -> None:
        self._vm.set_active(False)
        super().hideEvent(event)

    def set_locale(self, locale: QLocale) -> None:
        """Number formatting of the axes; the view-model re-sends its view itself
        when its language changes."""
        self.setLocale(locale)
        self.chart.setLocale(locale)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        super().changeEvent(event)

    def show_view(self, view: Any) -> None:
        raise NotImplementedError

    def _apply_palette(self) -> None:
        """Follow the light/dark palette instead of QtCharts' fixed white theme."""
        palette = self.palette()
        dark = _is_dark(palette)
        self.chart.setTheme(
            QChart.ChartTheme.ChartThemeDark if dark else QChart.ChartTheme.ChartThemeLight
        )
        self.chart.setBackgroundBrush(palette.color(QPalette.ColorRole.Base))
        text = palette.color(QPalette.ColorRole.Text)
        self.chart.setTitleBrush(text)
        for axis in (self.x_axis, self.y_axis):
            axis.setLabelsColor(text)
            axis.setTitleBrush(text)
        named = self.dark_colours if dark else self.light_colours
        self._paint({key: QColor(name) for key, name in named.items()}, text)
        # the chart's theme resets axis ranges and formats: label them again
        self._axes = None
        self._fit_axes()

    def _paint(self, colours: dict[str, QColor], text: QColor) -> None:
        """Pens and brushes of the series and their legend swatches."""
        raise NotImplementedError

    def _show_drawn(self, drawn: bool, note: QLabel) -> None:
        """The chart, its legend and summary; or, with nothing to draw, ``note``."""
        self.view.setVisible(drawn)
        self.legend.setVisible(drawn)
        self.summary.setVisible(drawn)
        note.setVisible(not drawn)

    def _show_titles(self, view: V) -> None:
        self.chart.setTitle(view.title)
        self.x_axis.setTitleText(view.x_title)
        self.y_axis.setTitleText(view.y_title)

    def _show_summary(self, view: V) -> None:
        """Label the axes afresh, then the summary and what a screen reader says."""
        self._axes = None
        self._fit_axes()
        self.summary.setText(view.summary)
        self.view.setAccessibleName(view.title)
        self.view.setAccessibleDescription(view.summary)

    def _fit_axes(self) -> None:
        """Label both axes as densely as their labels fit the plot area's size."""
        view = self._shown
        if view is None:
            return
        area = self.chart.plotArea()
        x_metrics = QFontMetricsF(self.x_axis.labelsFont())
        line = QFontMetricsF(self.y_axis.labelsFont()).height()
        x = self._axis(view, True, (area.width(), x_metrics.horizontalAdvance, x_metrics.height()))
        y = self._axis(view, False, (area.height(), lambda _label: line, line))
        if self._axes == (x, y):
            return
        self._axes = (x, y)
        for axis, labels in ((self.x_axis, x), (self.y_axis, y)):
            axis.setLabelFormat(labels.label_format)
            axis.setRange(0.0, labels.top)
            axis.setTickCount(labels.tick_count)
        self._reach_axes(view, x, y)

    def _axis(self, view: V, horizontal: bool, fit: AxisFit) -> AxisView:
        """The labelling of the x (``horizontal``) or y axis that ``fit`` allows, from the
        view-model."""
        raise NotImplementedError

    def _reach_axes(self, view: V, x: AxisView, y: AxisView) -> None:
        """Draw what runs to an axis' end, now that the axes have their ranges."""
        raise NotImplementedError


class TradeoffChart(ChartPane[TradeoffViewModel, ChartView]):
    light_colours = LIGHT_COLOURS
    dark_colours = DARK_COLOURS

    def __init__(self, vm: TradeoffViewModel, parent: QWidget | None = None) -> None:
        super().__init__(vm, "tradeoff", ("grow", "accumulate", "available", "current"), parent)
        self.grow = QLineSeries()
        self.accumulate = QLineSeries()
        self.available = QLineSeries()
        self.current = QScatterSeries()
        self.current.setMarkerSize(MARKER_SIZE)
        self._add_series(self.grow, self.accumulate, self.available, self.current)
        for index, entry in enumerate(self.legend_entries.values()):
            self.legend_grid.addWidget(entry, index // 2, index % 2)
        self.empty = QLabel(self)
        self.empty.setObjectName("tradeoff_empty")
        self.empty.setWordWrap(True)
        self._column.addWidget(self.empty)
        self._start()

    def _paint(self, colours: dict[str, QColor], text: QColor) -> None:
        grow = QPen(colours["grow"], LINE_WIDTH)
        accumulate = QPen(colours["accumulate"], LINE_WIDTH)
        limit = QPen(text, LIMIT_WIDTH, Qt.PenStyle.DashLine)
        self.grow.setPen(grow)
        self.accumulate.setPen(accumulate)
        self.available.setPen(limit)
        self.current.setColor(colours["current"])
        self.current.setBorderColor(text)
        self.legend_entries["grow"].draw(grow)
        self.legend_entries["accumulate"].draw(accumulate)
        self.legend_entries["available"].draw(limit)
        self.legend_entries["current"].draw(QPen(text, 1.0), QBrush(colours["current"]))

    def show_view(self, view: ChartView | None) -> None:
        self._shown = view
        self._show_drawn(view is not None, self.empty)
        if view is None:
            self.empty.setText(self._vm.empty_text())
            return
        self._show_titles(view)
        names = {
            "grow": view.grow_name,
            "accumulate": view.accumulate_name,
            "current": view.current_name,
            "available": view.available_name or "",
        }
        self.grow.setName(view.grow_name)
        self.accumulate.setName(view.accumulate_name)
        self.current.setName(view.current_name)
        for key, name in names.items():
            self.legend_entries[key].text.setText(name)
        self.legend_entries["available"].setVisible(view.available_name is not None)
        self.grow.replace([QPointF(x, y) for x, y in view.grow])
        self.current.replace([QPointF(*view.current)])
        if view.available_gb is None or view.available_name is None:
            self.available.clear()
            self.available.setVisible(False)
        else:
            self.available.setVisible(True)
            self.available.setName(view.available_name)
        self._show_summary(view)

    def _axis(self, view: ChartView, horizontal: bool, fit: AxisFit) -> AxisView:
        if horizontal:
            return self._vm.axis(view.x_max, True, *fit, MAX_X_INTERVALS)
        return self._vm.axis(view.y_max, False, *fit, MAX_Y_INTERVALS)

    def _reach_axes(self, view: ChartView, x: AxisView, y: AxisView) -> None:
        # horizontal lines run to the axis' end
        right = x.top
        flat = [QPointF(px, py) for px, py in view.accumulate]
        if view.accumulate:
            flat.append(QPointF(right, view.accumulate[-1][1]))
        self.accumulate.replace(flat)
        if view.available_gb is not None:
            self.available.replace(
                [QPointF(0.0, view.available_gb), QPointF(right, view.available_gb)]
            )
