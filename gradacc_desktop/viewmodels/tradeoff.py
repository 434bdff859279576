"""View-model of the trade-off chart: activation memory per GPU against effective
batch, for the calculator's current configuration (and the planner's GPU)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from PySide6.QtCore import QObject, Signal

from gradacc_desktop.core.calculator import Inputs
from gradacc_desktop.core.tradeoff import Point, tradeoff
from gradacc_desktop.viewmodels.calculator import CalculatorState, CalculatorViewModel


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
    x_max: float
    y_max: float
    summary: str


def _xy(points: tuple[Point, ...]) -> tuple[tuple[float, float], ...]:
    # floats only for plotting; every figure the user reads stays exact
    return tuple((float(p.effective_batch), float(p.activation_gb)) for p in points)


class TradeoffViewModel(QObject):
    changed = Signal(object)  # ChartView | None

    def __init__(self, calculator: CalculatorViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calculator = calculator
        self._available: Decimal | None = None
        # Recomputed only while a chart is on screen: typing in the calculator must
        # not pay for a chart nobody sees.
        self._active = False
        self._stale = True
        calculator.stateChanged.connect(self._on_state)

    def set_active(self, active: bool) -> None:
        """The chart became visible (catch up now) or hidden (stop recomputing)."""
        self._active = active
        if active and self._stale:
            self._emit()

    def set_available_gb(self, available: Decimal | None) -> None:
        """Memory a GPU has for activations (capacity − other memory), from the planner."""
        if available != self._available:
            self._available = available
            self._emit()

    def view(self) -> ChartView | None:
        inputs = self._calculator.inputs
        return None if inputs is None else self._build(inputs)

    def retranslate(self) -> None:
        self._emit()

    def _on_state(self, _state: CalculatorState) -> None:
        self._emit()

    def _emit(self) -> None:
        if not self._active:
            self._stale = True
            return
        self._stale = False
        self.changed.emit(self.view())

    def _build(self, inputs: Inputs) -> ChartView:
        vm = self._calculator
        data = tradeoff(
            inputs.micro_batch,
            inputs.accumulation_steps,
            inputs.gpus,
            inputs.activation_gb,
            self._available,
        )
        available = data.available_gb
        y_candidates = [data.current.activation_gb * 2, Decimal(1)]
        if available is not None and available > 0:
            y_candidates.append(available * Decimal("1.15"))
        y_max = float(max(y_candidates))
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
            x_max=float(data.max_effective_batch),
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
