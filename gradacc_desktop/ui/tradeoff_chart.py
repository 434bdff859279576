"""The trade-off chart (QtCharts). Import this module only when the chart is first
shown: QtCharts is a sizeable library and start-up should not pay for it."""

from __future__ import annotations

from PySide6.QtCharts import (
    QChart,
    QChartView,
    QLineSeries,
    QScatterSeries,
    QValueAxis,
)
from PySide6.QtCore import QEvent, QLocale, QMargins, QPointF, Qt
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPalette, QPen, QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gradacc_desktop.viewmodels.tradeoff import ChartView, TradeoffViewModel


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


class TradeoffChart(QWidget):
    def __init__(self, vm: TradeoffViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tradeoff_chart")
        self._vm = vm
        self.chart = QChart()
        self.chart.setLocalizeNumbers(True)
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart.setMargins(QMargins(4, 4, 4, 4))
        self.grow = QLineSeries()
        self.accumulate = QLineSeries()
        self.available = QLineSeries()
        self.current = QScatterSeries()
        self.current.setMarkerSize(12.0)
        for series in (self.grow, self.accumulate, self.available, self.current):
            self.chart.addSeries(series)
        self.x_axis = QValueAxis()
        self.y_axis = QValueAxis()
        self.x_axis.setLabelFormat("%.0f")
        self.y_axis.setLabelFormat("%.1f")
        self.chart.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        self.chart.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        for series in (self.grow, self.accumulate, self.available, self.current):
            series.attachAxis(self.x_axis)
            series.attachAxis(self.y_axis)
        self.view = QChartView(self.chart, self)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.view.setMinimumHeight(260)
        self.summary = QLabel(self)
        self.summary.setObjectName("tradeoff_summary")
        self.summary.setWordWrap(True)
        self.empty = QLabel(self)
        self.empty.setObjectName("tradeoff_empty")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.empty)
        self._apply_palette()
        vm.changed.connect(self.show_view)
        self.show_view(vm.view())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._vm.set_active(True)

    def hideEvent(self, event: QHideEvent) -> None:
        self._vm.set_active(False)
        super().hideEvent(event)

    def set_locale(self, locale: QLocale) -> None:
        self.setLocale(locale)
        self.chart.setLocale(locale)
        self.show_view(self._vm.view())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        super().changeEvent(event)

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
        self.chart.legend().setLabelColor(text)
        for axis in (self.x_axis, self.y_axis):
            axis.setLabelsColor(text)
            axis.setTitleBrush(text)
        rising = QColor("#e4572e") if not dark else QColor("#ff8a65")
        flat = palette.color(QPalette.ColorRole.Highlight)
        self.grow.setPen(QPen(rising, 2.5))
        self.accumulate.setPen(QPen(flat, 2.5))
        limit = QPen(text, 1.5, Qt.PenStyle.DashLine)
        self.available.setPen(limit)
        self.current.setColor(flat)
        self.current.setBorderColor(text)

    def show_view(self, view: ChartView | None) -> None:
        self.view.setVisible(view is not None)
        self.summary.setVisible(view is not None)
        self.empty.setVisible(view is None)
        if view is None:
            self.empty.setText(self._vm.tr("Enter a value to see the results."))
            return
        self.chart.setTitle(view.title)
        self.x_axis.setTitleText(view.x_title)
        self.y_axis.setTitleText(view.y_title)
        self.grow.setName(view.grow_name)
        self.accumulate.setName(view.accumulate_name)
        self.current.setName(view.current_name)
        self.grow.replace([QPointF(x, y) for x, y in view.grow])
        self.accumulate.replace([QPointF(x, y) for x, y in view.accumulate])
        self.current.replace([QPointF(*view.current)])
        self.x_axis.setRange(0.0, view.x_max)
        self.y_axis.setRange(0.0, view.y_max)
        self.x_axis.applyNiceNumbers()
        self.y_axis.applyNiceNumbers()
        # horizontal lines run to the axis' end, whatever rounding the axis applied
        right = self.x_axis.max()
        if view.accumulate:
            self.accumulate.append(QPointF(right, view.accumulate[-1][1]))
        if view.available_gb is None or view.available_name is None:
            self.available.clear()
            self.available.setVisible(False)
        else:
            self.available.setVisible(True)
            self.available.setName(view.available_name)
            self.available.replace(
                [QPointF(0.0, view.available_gb), QPointF(right, view.available_gb)]
            )
        self.summary.setText(view.summary)
        self.view.setAccessibleName(view.title)
        self.view.setAccessibleDescription(view.summary)
