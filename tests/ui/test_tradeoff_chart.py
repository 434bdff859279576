from __future__ import annotations

from decimal import Decimal

import pytest

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel
from tests.ui.helpers import box, clear, type_into


@pytest.fixture
def chart(window: MainWindow, qtbot):  # type: ignore[no-untyped-def]
    from gradacc_desktop.ui.tradeoff_chart import TradeoffChart

    vm = TradeoffViewModel(window.vm)
    widget = TradeoffChart(vm)
    widget.set_locale(window.language.locale())
    qtbot.addWidget(widget)
    widget.show()
    return widget


def _points(series) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    return [(p.x(), p.y()) for p in series.points()]


def test_two_curves_and_the_current_configuration(chart) -> None:  # type: ignore[no-untyped-def]
    grow = _points(chart.grow)
    assert grow[0] == (1.0, 0.5)
    assert all(y == pytest.approx(0.5 * x) for x, y in grow)  # rises with the batch
    assert {y for _x, y in _points(chart.accumulate)} == {2.0}  # flat at b·A
    assert _points(chart.current) == [(32.0, 2.0)]
    assert not chart.available.isVisible()
    assert "b = 4" in chart.accumulate.name()
    assert "16 GB" in chart.summary.text()
    assert "2 GB" in chart.summary.text()


def test_chart_follows_the_inputs(chart, window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "8")
    assert _points(chart.current) == [(64.0, 4.0)]
    assert {y for _x, y in _points(chart.accumulate)} == {4.0}
    clear(qtbot, box(window, Field.GPUS))
    assert not chart.view.isVisible()
    assert chart.empty.isVisible()


def test_available_memory_line(chart) -> None:  # type: ignore[no-untyped-def]
    chart._vm.set_available_gb(Decimal("12.5"))
    assert chart.available.isVisible()
    ys = {y for _x, y in _points(chart.available)}
    assert ys == {12.5}
    assert "12,5 GB" in chart.available.name()


def test_numbers_follow_the_language(chart, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    assert chart.chart.locale().name() == "pt_BR"
    window.set_language("en")
    chart.set_locale(window.language.locale())
    assert chart.chart.locale().name().startswith("en")
    assert chart.chart.title() == "Activation memory per GPU against effective batch"


def test_hidden_chart_costs_nothing_and_catches_up(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = TradeoffViewModel(window.vm)
    seen: list[object] = []
    vm.changed.connect(seen.append)
    type_into(qtbot, box(window, Field.MICRO_BATCH), "6")
    assert seen == []  # nothing on screen: nothing computed
    vm.set_active(True)
    assert len(seen) == 1
    assert "E = 48" in seen[0].current_name  # type: ignore[attr-defined]
