"""The chart tab's second chart: time per step against memory per GPU, one point per pair."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import TrainingField
from tests.planner_setup import activation_share_gb, per_gpu_gb, pipeline
from tests.ui.helpers import described, show_tab, type_into
from tests.ui.layout_checks import layout_problems, settle


def _timed(window: MainWindow) -> None:
    """Llama-3-70B on 8 data × 8 tensor × 4 pipeline GPUs, 2 GB per sample and 20 GB of
    other memory typed in, the pair 4 × 16 in use."""
    vm = window.training_vm
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.ACTIVATION, "2"),
        (TrainingField.OTHER_MEMORY, "20"),
    ):
        vm.set_text(field, text)
    pipeline(vm)
    window.planner_vm.choose_pair(4)


@pytest.fixture
def english(make_window) -> MainWindow:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="en")
    _timed(window)
    return window


def _points(series) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    return [(p.x(), p.y()) for p in series.points()]


def test_the_tab_holds_both_charts(english: MainWindow) -> None:
    tradeoff = english.show_chart()
    settle()
    assert tradeoff.isVisible()
    page = english.chart_page.built
    assert page is not None and not page.showing_pairs()
    assert page.tradeoff_button.text() == "Memory against batch"
    assert page.pairs_button.text() == "Time against memory, per pair"
    page.pairs_button.click()
    pairs = english.findChild(QWidget, "pair_chart")
    assert pairs is not None and pairs.isVisible() and not tradeoff.isVisible()
    assert page.showing_pairs()
    page.tradeoff_button.click()
    assert tradeoff.isVisible() and not pairs.isVisible()


def test_one_point_per_pair_and_the_marked_ones(english: MainWindow) -> None:
    chart = english.show_pair_chart()
    settle()
    plan = english.planner_vm.state.results
    assert plan is not None
    drawn = _points(chart.fits) + _points(chart.over)
    assert sorted(drawn) == sorted((p.memory_gb, p.step_seconds) for p in plan.points)
    assert len(chart.fits.points()) == sum(p.fits for p in plan.points)
    current = next(p for p in plan.points if p.current)
    fastest = next(p for p in plan.points if p.fastest)
    assert (current.micro_batch, fastest.micro_batch) == (4, 2)
    assert _points(chart.current) == [(current.memory_gb, current.step_seconds)]
    assert _points(chart.fastest) == [(fastest.memory_gb, fastest.step_seconds)]
    assert chart.current.markerShape() != chart.fastest.markerShape()
    assert chart.current.name() == "In use: 4 × 16"
    assert chart.fastest.name() == "Fastest that fits: 2 × 32"
    fast, used = _cells(english, 2), _cells(english, 4)  # as the pairs table shows them
    assert chart.summary.text() == (
        f"Fastest that fits: 2 × 32 — {fast[5]} per step; in use: 4 × 16 — {used[5]}."
    )
    assert chart.view.accessibleDescription() == chart.summary.text()
    assert chart.view.accessibleName() == chart.chart.title()
    # the GPU's memory: a vertical line from the bottom to the top of the plot
    assert {x for x, _y in _points(chart.capacity)} == {80.0}
    assert chart.tip_at(QPointF(fastest.memory_gb, fastest.step_seconds or 0.0)) == (
        f"2 × 32: {fast[5]} per step, {per_gpu_gb(english.training_vm, 2)} GB per GPU, "
        f"{fast[6]} tokens/s"
    )


def _cells(window: MainWindow, micro_batch: int) -> tuple[str, ...]:
    """The planner's pairs-table row of ``micro_batch``, as it shows it."""
    results = window.planner_vm.state.results
    assert results is not None
    return next(row.cells for row in results.pairs if row.micro_batch == micro_batch)


def test_pairs_that_do_not_fit_are_hollow(english: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = english.show_pair_chart()
    settle()
    assert not chart.legend_entries["over"].isVisible()
    # typed in the description beside the chart: 80 GB, b ≤ 40 fits
    type_into(qtbot, described(english, TrainingField.OTHER_MEMORY), "70")
    # 64 × the first stage's share of the 2 GB typed, + 70
    over = 64 * activation_share_gb(english.training_vm) + 70
    assert [round(x, 6) for x, _y in _points(chart.over)] == [round(over, 6)]
    assert chart.over.brush().style().name == "NoBrush"
    assert chart.fits.brush().style().name != "NoBrush"
    assert chart.legend_entries["over"].isVisible()
    assert chart.legend_entries["over"].text.text() == "Pairs that do not fit"


def test_without_a_model_the_planner_says_why(make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    chart = window.show_pair_chart()
    settle()
    assert not chart.view.isVisible()
    assert chart.message.isVisible()
    assert chart.message.text() == (
        "Choose the model in the training description to see the time per step."
    )
    QGuiApplication.clipboard().setText("sentinel")
    window.menus.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == "sentinel"
    assert window.statusBar().currentMessage() == chart.message.text()
    _timed(window)
    assert chart.view.isVisible() and not chart.message.isVisible()


def test_copy_copies_the_chart_shown(english: MainWindow) -> None:
    english.show_pair_chart()
    QGuiApplication.clipboard().setText("sentinel")
    english.menus.copy_action.trigger()
    assert english.pair_chart_vm is not None
    text = QGuiApplication.clipboard().text()
    assert text == english.pair_chart_vm.clipboard_text()
    assert "Micro-batch (b)" in text and _cells(english, 1)[6] in text
    english.show_chart()
    english.menus.copy_action.trigger()
    assert english.tradeoff_vm is not None
    assert QGuiApplication.clipboard().text() == english.tradeoff_vm.clipboard_text()


def test_the_language_switch_reaches_it_once(english: MainWindow) -> None:
    chart = english.show_pair_chart()
    settle()
    assert english.pair_chart_vm is not None
    seen: list[object] = []
    english.pair_chart_vm.changed.connect(seen.append)
    english.set_language("pt_BR")
    assert len(seen) == 1
    assert chart.chart.locale().name() == "pt_BR"
    assert f"2 × 32 — {_cells(english, 2)[5]} por passo" in chart.summary.text()
    assert "," in _cells(english, 2)[5]
    english.set_language("en")
    assert chart.chart.title() == "Time per step against memory per GPU, one point per pair"
    page = english.chart_page.built
    assert page is not None and page.pairs_button.text() == "Time against memory, per pair"


@pytest.mark.parametrize("dark", [False, True])
def test_every_series_has_its_own_colour(english: MainWindow, dark: bool) -> None:
    chart = english.show_pair_chart()
    settle()
    palette = QPalette(chart.palette())
    if dark:
        palette.setColor(QPalette.ColorRole.Window, QColor("#202020"))
        palette.setColor(QPalette.ColorRole.Base, QColor("#181818"))
        palette.setColor(QPalette.ColorRole.Text, QColor("#f0f0f0"))
    chart.setPalette(palette)
    # the colour Qt draws each series in: the filled dots, the rings, the two frames and
    # the memory limit's dashed line
    colours = {
        "fits": chart.fits.color(),
        "over": chart.over.pen().color(),
        "current": chart.current.pen().color(),
        "fastest": chart.fastest.pen().color(),
        "capacity": chart.capacity.pen().color(),
    }
    assert len({c.name() for c in colours.values()}) == 5, colours
    base = chart.chart.backgroundBrush().color()
    for colour in colours.values():
        assert abs(colour.lightness() - base.lightness()) > 60, (colour.name(), base.name())


@pytest.mark.parametrize("language", ["en", "pt_BR"])
@pytest.mark.parametrize("pairs", [False, True])
def test_the_chart_tab_at_800_by_600(make_window, qtbot, language: str, pairs: bool) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    _timed(window)
    show_tab(window, window.planner_page)  # laid out once, as a user would
    settle()
    chart = window.show_pair_chart() if pairs else window.show_chart()
    for _ in range(2):  # the first resize meets the page's layout before it settles
        window.resize(800, 600)
        settle()
    qtbot.waitUntil(lambda: chart._axes is not None)
    page = window.chart_page.built
    assert page is not None
    assert window.width() <= 800 and window.height() <= 600
    assert window.description.isVisible()  # beside the chart
    assert layout_problems(page, window) == []
    assert layout_problems(window.description, window) == []
    assert chart.view.height() >= 260
    assert chart.summary.isVisible() and chart.legend.isVisible()
