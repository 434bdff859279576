"""View-model of the trade-off chart: activation memory per GPU against effective
batch, for the training description's plan (its configuration, its activation per
sample and the memory its GPU has left for activations)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.batch import (
    AxisScale,
    Point,
    Tradeoff,
    available_for_activations,
    axis_scales,
    tradeoff,
)
from gradacc_desktop.core.calculator import BatchInputs
from gradacc_desktop.core.training.figures import shown_gb
from gradacc_desktop.viewmodels.formatting import align_row, column_widths
from gradacc_desktop.viewmodels.shared_texts import NOTHING_FITS, say
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

# Most ticks an axis gets, however much room it has.
MAX_X_INTERVALS = 10
MAX_Y_INTERVALS = 8
# Columns of the copied table are this many spaces apart.
COLUMN_GAP = 3


@dataclass(frozen=True)
class ChartView:
    """Everything the chart draws: translated names and plain float coordinates."""

    title: str
    x_title: str
    y_title: str
    grow_name: str
    accumulate_name: str
    current_name: str
    available_name: str | None
    grow: tuple[tuple[float, float], ...]
    accumulate: tuple[tuple[float, float], ...]
    current: tuple[float, float]
    available_gb: float | None
    # exact extents the axes must reach (see ``TradeoffViewModel.axis``)
    x_max: int
    y_max: Decimal
    summary: str


@dataclass(frozen=True)
class AxisView:
    """How a chart axis is labelled: range 0..top, ``tick_count`` ticks, each labelled."""

    top: float
    tick_count: int
    # printf-style format for the chart's own (localised) labels, e.g. "%.1f"
    label_format: str
    # the labels as the locale writes them, bottom/left first
    labels: tuple[str, ...]


def axis_view(scale: AxisScale, locale: QLocale) -> AxisView:
    """How ``scale`` is labelled: its top, its ticks and their labels as ``locale`` writes
    them (exact decimals, never a float's rounding)."""
    decimals = scale.decimals
    group, point = locale.groupSeparator(), locale.decimalPoint()

    def label(value: Decimal) -> str:
        text = f"{value:,.{decimals}f}"
        return text.replace(",", "\0").replace(".", point).replace("\0", group)

    return AxisView(
        top=float(scale.top),
        tick_count=scale.intervals + 1,
        label_format=f"%.{decimals}f",
        labels=tuple(label(tick) for tick in scale.ticks()),
    )


def densest_axis(
    scales: Iterable[AxisScale],
    locale: QLocale,
    room: float,
    extent: Callable[[str], float],
    gap: float,
) -> AxisView:
    """The first of ``scales`` (densest first) whose labels do not collide: ``room`` is
    the axis length and ``extent(label)`` a label's size along the axis, both in pixels;
    neighbouring labels keep ``gap`` between them. When none fits, the last (sparsest)."""
    chosen: AxisView | None = None
    for scale in scales:
        chosen = axis_view(scale, locale)
        widest = max(extent(label) for label in chosen.labels)
        if widest + gap <= room / scale.intervals:
            return chosen
    assert chosen is not None
    return chosen


def table_text(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool],
    notes: Iterable[str],
) -> str:
    """A chart's data as plain text: its title, a table (the header left-aligned, the
    rows' cells right-aligned where ``right`` says so) and then ``notes``, a line each."""
    widths = column_widths([header, *rows])
    gap = " " * COLUMN_GAP
    lines = [title, "", align_row(header, widths, (False,) * len(header), gap)]
    lines += [align_row(row, widths, right, gap) for row in rows]
    lines += ["", *notes]
    return "\n".join(line.rstrip() for line in lines) + "\n"


class ChartViewModel(QObject):
    """What both charts' view-models share: the view goes out through ``changed`` (see
    ``view``), and only while a chart is on screen."""

    changed = Signal(object)  # what ``view`` returns

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Recomputed only while a chart is on screen: typing in the calculator or the
        # planner must not pay for a chart nobody sees.
        self._active = False
        self._stale = True

    def set_active(self, active: bool) -> None:
        """The chart became visible (catch up now) or hidden (stop recomputing)."""
        self._active = active
        if active and self._stale:
            self._emit()

    def view(self) -> object:
        raise NotImplementedError

    def retranslate(self) -> None:
        self._emit()

    def _on_state(self, _state: object) -> None:
        self._emit()

    def _emit(self) -> None:
        if not self._active:
            self._stale = True
            return
        self._stale = False
        self.changed.emit(self.view())


def _xy(points: tuple[Point, ...]) -> tuple[tuple[float, float], ...]:
    # floats only for plotting; every figure the user reads stays exact
    return tuple((float(p.effective_batch), float(p.activation_gb)) for p in points)


class TradeoffViewModel(ChartViewModel):
    # changed sends a ChartView, or None while the plan has no configuration to draw

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._formats = training.formats
        training.stateChanged.connect(self._on_state)

    def inputs(self) -> tuple[BatchInputs, Decimal | None] | None:
        """The plan's configuration as the calculator's four inputs (the activation per
        sample on one GPU, rounded up to the MB) and the memory left for activations;
        ``None`` when there is no configuration or no activation per sample."""
        plan = self._training.plan
        if plan is None or plan.current is None:
            return None
        share = plan.figures.activation_per_gpu
        if share is None or share == 0:
            return None
        activation = shown_gb(-(-share.numerator // share.denominator))
        current = plan.current
        inputs = BatchInputs(
            current.micro_batch, current.accumulation_steps, plan.description.gpus, activation
        )
        usable, other = plan.figures.usable_bytes, plan.figures.other.bytes
        available = None
        if usable is not None and other is not None:
            available = available_for_activations(shown_gb(usable), shown_gb(other))
        return inputs, available

    def view(self) -> ChartView | None:
        found = self.inputs()
        return None if found is None else self._build(*found)

    def axis(
        self,
        maximum: int | Decimal,
        integer: bool,
        room: float,
        extent: Callable[[str], float],
        gap: float,
        max_intervals: int,
    ) -> AxisView:
        """The densest labelling of an axis from 0 to ``maximum`` whose labels do not collide.

        ``room`` is the axis length and ``extent(label)`` a label's size along the
        axis, both in pixels; neighbouring labels keep ``gap`` between them. When
        nothing denser fits, the axis keeps two labels: 0 and its top.
        """
        scales = axis_scales(Decimal(maximum), max_intervals, integer)
        return densest_axis(scales, self._formats.locale, room, extent, gap)

    def clipboard_text(self) -> str | None:
        """The chart's data as plain text: title, a table of both curves, the available
        memory and the current configuration; ``None`` when there is no chart."""
        found = self.inputs()
        if found is None:
            return None
        inputs, available = found
        vm = self._formats
        data = self._data(inputs, available)
        view = self._build(inputs, available, data)
        header = (view.x_title, view.grow_name, view.accumulate_name)
        rows: list[tuple[str, ...]] = [
            (
                vm.format(c.effective_batch),
                vm.format_gb(c.no_accumulation_gb),
                vm.format_gb(c.accumulation_gb),
            )
            for c in data.comparison
        ]
        notes = []
        if data.available_gb is not None:
            notes.append(
                self.tr("Available for activations per GPU: {M}").format(
                    M=vm.format_gb(data.available_gb)
                )
            )
        notes.append(
            self.tr("Your configuration: E = {E}, {M} per GPU").format(
                E=vm.format(data.current.effective_batch),
                M=vm.format_gb(data.current.activation_gb),
            )
        )
        notes.append(view.summary)
        return table_text(view.title, header, rows, (True,) * len(header), notes)

    def empty_text(self) -> str:
        """What the chart's place says while there is nothing to draw."""
        state = self._training.state
        if state.plan is None:
            return self.tr("Correct the training description to see the chart.")
        if state.plan.no_fit is not None:
            return self.tr("Nothing to draw: {why}.").format(why=say(NOTHING_FITS))
        return self.tr(
            "The chart needs the activation per sample: choose the model and the sequence "
            "length in the training description, or type the activation."
        )

    @staticmethod
    def _data(inputs: BatchInputs, available: Decimal | None) -> Tradeoff:
        return tradeoff(
            inputs.micro_batch,
            inputs.accumulation_steps,
            inputs.gpus,
            inputs.activation_gb,
            available,
        )

    def _build(
        self, inputs: BatchInputs, available_gb: Decimal | None, data: Tradeoff | None = None
    ) -> ChartView:
        vm = self._formats
        if data is None:
            data = self._data(inputs, available_gb)
        available = data.available_gb
        y_candidates = [data.current.activation_gb * 2, Decimal(1)]
        if available is not None and available > 0:
            y_candidates.append(available * Decimal("1.15"))
        y_max = max(y_candidates)
        current = data.current
        return ChartView(
            title=self.tr("Activation memory per GPU against effective batch"),
            x_title=self.tr("Effective batch size (E)"),
            y_title=self.tr("Activation memory per GPU (GB)"),
            grow_name=self.tr("Micro-batch grows (a = 1)"),
            accumulate_name=self.tr("Accumulation (b = {b})").format(
                b=vm.format(inputs.micro_batch)
            ),
            current_name=self.tr("Yours (E = {E})").format(E=vm.format(current.effective_batch)),
            available_name=None
            if available is None
            else self.tr("Available ({M})").format(M=vm.format_gb(available)),
            grow=_xy(data.no_accumulation),
            accumulate=_xy(data.accumulation),
            current=(float(current.effective_batch), float(current.activation_gb)),
            available_gb=None if available is None else float(available),
            x_max=data.max_effective_batch,
            y_max=y_max,
            summary=self.tr(
                "Growing the micro-batch to reach E = {E} without accumulation would need "
                "{grown} per GPU; accumulating keeps it at {M}."
            ).format(
                E=vm.format(current.effective_batch),
                grown=vm.format_gb(data.without_accumulation_gb),
                M=vm.format_gb(current.activation_gb),
            ),
        )
