"""View-model of the pairs chart: time per optimizer step against memory per GPU, one
point per (micro-batch, accumulation steps) pair of the planner's table.

It follows the planner's state (``PlanView.points``) and words it with the planner's
own texts where they exist (the pairs table's headings, seconds and rates)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from PySide6.QtCore import QObject

from gradacc_desktop.core.batch import axis_scales
from gradacc_desktop.core.time import significant
from gradacc_desktop.core.training.figures import shown_gb
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.planner.timing import DIGITS, TimingTexts
from gradacc_desktop.viewmodels.planner.views import PairPoint, PlanView
from gradacc_desktop.viewmodels.tradeoff import (
    AxisView,
    ChartViewModel,
    densest_axis,
    table_text,
)

# Most ticks an axis gets, however much room it has.
MAX_X_INTERVALS = 10
MAX_Y_INTERVALS = 8
# Room left beyond the farthest point (or the GPU's memory), so nothing sits on the frame.
MARGIN = Decimal("1.08")


@dataclass(frozen=True)
class PairMark:
    """One pair as drawn: plain float coordinates and its words for a tooltip."""

    x: float
    y: float
    #: "b × a"
    label: str
    #: the pair, its memory, its time and rate in one line
    tip: str


@dataclass(frozen=True)
class PairChartView:
    """Everything the pairs chart draws: translated names and plain float coordinates."""

    title: str
    x_title: str
    y_title: str
    fits_name: str
    over_name: str
    current_name: str | None
    fastest_name: str | None
    capacity_name: str
    fits: tuple[PairMark, ...]
    over: tuple[PairMark, ...]
    current: PairMark | None
    fastest: PairMark | None
    capacity_gb: float
    # exact extents the axes must reach (see ``PairChartViewModel.axis``)
    x_max: Decimal
    y_max: Decimal
    summary: str


@dataclass(frozen=True)
class PairChartMessage:
    """No chart: why (the planner's prompt, or why no time can be estimated)."""

    message: str


def _decimal(value: float) -> Decimal:
    return Decimal(repr(value))


class PairChartViewModel(ChartViewModel):
    # changed sends a PairChartView, or a PairChartMessage saying why there is none

    def __init__(self, planner: PlannerViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._planner = planner
        self._timing = TimingTexts(planner.formats)
        planner.stateChanged.connect(self._on_state)

    def view(self) -> PairChartView | PairChartMessage:
        results = self._planner.state.results
        if results is None:
            return PairChartMessage(self._planner.state.prompt)
        time = results.time
        if time is not None and not time.available:
            return PairChartMessage(time.message)
        if results.capacity_gb is None or any(p.memory_gb is None for p in results.points):
            return PairChartMessage(results.fit.usage)
        timed = [p for p in results.points if p.step_seconds is not None]
        if time is None or not timed:
            return PairChartMessage(self._planner.texts.prompt())
        return self._build(results, tuple(timed))

    def axis(
        self,
        maximum: Decimal,
        room: float,
        extent: Callable[[str], float],
        gap: float,
        max_intervals: int,
    ) -> AxisView:
        """The densest labelling of an axis from 0 to ``maximum`` whose labels do not
        collide (as ``TradeoffViewModel.axis``; ``room``, ``extent`` and ``gap`` in pixels).
        """
        scales = axis_scales(maximum, max_intervals)
        return densest_axis(scales, self._planner.locale, room, extent, gap)

    def clipboard_text(self) -> str | None:
        """The chart's data as plain text: its title, every pair (b, a, memory, time,
        tokens/s, whether it fits), the GPU's memory and the summary; ``None`` when
        there is no chart."""
        view = self.view()
        results = self._planner.state.results
        if not isinstance(view, PairChartView) or results is None:
            return None
        f = self._planner.formats.format
        headings = dict(enumerate(short for short, _full in self._planner.texts.pairs_headers()))
        header = (headings[0], headings[1], view.x_title, view.y_title, headings[6], headings[3])
        rows = [
            (
                p.cells[0],
                p.cells[1],
                f(self._memory(p)),
                "—" if p.step_seconds is None else f(self._seconds(p.step_seconds)),
                p.cells[6],
                p.cells[3],
            )
            for p in results.points
        ]
        right = (True, True, True, True, True, False)
        return table_text(view.title, header, rows, right, (view.capacity_name, view.summary))

    def empty_text(self) -> str:
        """Why there is no chart to draw (or copy); empty when there is one."""
        view = self.view()
        return view.message if isinstance(view, PairChartMessage) else ""

    # -- inside -------------------------------------------------------------------
    @staticmethod
    def _seconds(value: float) -> Decimal:
        return significant(Fraction(value), DIGITS)

    @staticmethod
    def _memory(point: PairPoint) -> Decimal:
        """To the MB rounded up, as every memory figure (never shown lower than it is)."""
        assert point.per_gpu_bytes is not None  # the chart is drawn only with every memory
        return shown_gb(point.per_gpu_bytes)

    def _pair(self, point: PairPoint) -> str:
        f = self._planner.formats.format
        return f"{f(point.micro_batch)} × {f(point.accumulation_steps)}"

    def _step(self, point: PairPoint) -> str:
        assert point.step_seconds is not None
        return self._timing.seconds(Fraction(point.step_seconds))

    def _mark(self, point: PairPoint) -> PairMark:
        assert point.step_seconds is not None
        tip = self.tr("{pair}: {step} per step, {memory} per GPU, {tokens} tokens/s").format(
            pair=self._pair(point),
            step=self._step(point),
            memory=self._planner.formats.format_gb(self._memory(point)),
            tokens=point.cells[6],
        )
        assert point.memory_gb is not None
        return PairMark(point.memory_gb, point.step_seconds, self._pair(point), tip)

    def _summary(self, current: PairPoint | None, fastest: PairPoint | None) -> str:
        if current is not None and fastest is not None:
            if current is fastest:
                return self.tr(
                    "In use: {pair} — {step} per step, the fastest pair that fits."
                ).format(pair=self._pair(current), step=self._step(current))
            return self.tr(
                "Fastest that fits: {fastest} — {fastest_step} per step; in use: {current} — "
                "{current_step}."
            ).format(
                fastest=self._pair(fastest),
                fastest_step=self._step(fastest),
                current=self._pair(current),
                current_step=self._step(current),
            )
        if current is not None:
            return self.tr(
                "In use: {pair} — {step} per step; no pair fits in the GPU's memory."
            ).format(pair=self._pair(current), step=self._step(current))
        if fastest is not None:
            return self.tr("Fastest that fits: {pair} — {step} per step.").format(
                pair=self._pair(fastest), step=self._step(fastest)
            )
        return self.tr("No pair fits in the GPU's memory.")

    def _build(self, results: PlanView, points: tuple[PairPoint, ...]) -> PairChartView:
        formats = self._planner.formats
        current = next((p for p in points if p.current), None)
        fastest = next((p for p in points if p.fastest), None)
        assert results.capacity_gb is not None
        capacity = _decimal(results.capacity_gb)
        x_max = max([capacity, *(_decimal(p.memory_gb or 0.0) for p in points)]) * MARGIN
        y_max = max(_decimal(p.step_seconds or 0.0) for p in points) * MARGIN
        return PairChartView(
            title=self.tr("Time per step against memory per GPU, one point per pair"),
            x_title=self.tr("Memory per GPU (GB)"),
            y_title=self.tr("Time per step (s)"),
            fits_name=self.tr("Pairs that fit"),
            over_name=self.tr("Pairs that do not fit"),
            current_name=None
            if current is None
            else self.tr("In use: {pair}").format(pair=self._pair(current)),
            fastest_name=None
            if fastest is None
            else self.tr("Fastest that fits: {pair}").format(pair=self._pair(fastest)),
            capacity_name=self.tr("GPU memory ({M})").format(M=formats.format_gb(capacity)),
            fits=tuple(self._mark(p) for p in points if p.fits),
            over=tuple(self._mark(p) for p in points if not p.fits),
            current=None if current is None else self._mark(current),
            fastest=None if fastest is None else self._mark(fastest),
            capacity_gb=float(capacity),
            x_max=x_max if x_max > 0 else Decimal(1),
            y_max=y_max if y_max > 0 else Decimal(1),
            summary=self._summary(current, fastest),
        )
