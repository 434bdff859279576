from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsTextItem

from gradacc_desktop.core.time.gpus import CUSTOM_ID
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.planner_setup import described as describe
from tests.ui.helpers import clear, described, dispose, type_into


@pytest.fixture
def chart(window: MainWindow, qtbot):  # type: ignore[no-untyped-def]
    """The chart of a target of 32 at micro-batch 4 and 0,5 GB per sample (the seed's)."""
    from gradacc_desktop.ui.tradeoff_chart import TradeoffChart

    describe(window.training_vm, "4", "0,5")
    vm = TradeoffViewModel(window.training_vm)
    widget = TradeoffChart(vm)
    widget.set_locale(window.language.locale())
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    dispose(widget, vm)


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


def test_chart_follows_the_description(chart, window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, described(window, TrainingField.MICRO_BATCH), "8")
    assert _points(chart.current) == [(32.0, 4.0)]  # 8 × 4 reaches the target of 32
    assert {y for _x, y in _points(chart.accumulate)} == {4.0}
    clear(qtbot, described(window, TrainingField.GPUS))
    assert not chart.view.isVisible()
    assert chart.empty.isVisible()
    assert chart.empty.text() == "Corrija a descrição do treino para ver o gráfico."
    type_into(qtbot, described(window, TrainingField.GPUS), "1")
    clear(qtbot, described(window, TrainingField.ACTIVATION))
    assert chart.empty.isVisible()
    assert "ativação por amostra" in chart.empty.text()


def test_available_memory_line(chart, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.training_vm.set_text(TrainingField.OTHER_MEMORY, "67,5")  # 80 − 67,5 = 12,5 GB
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
    describe(window.training_vm, "4", "0,5")
    vm = TradeoffViewModel(window.training_vm)
    seen: list[object] = []
    vm.changed.connect(seen.append)
    type_into(qtbot, described(window, TrainingField.TARGET), "48")
    assert seen == []  # nothing on screen: nothing computed
    vm.set_active(True)
    assert len(seen) == 1
    assert "E = 48" in seen[0].current_name  # type: ignore[attr-defined]
    dispose(vm)


def _texts(chart) -> list[tuple[str, QRectF]]:  # type: ignore[no-untyped-def]
    """Every piece of text the chart draws (titles, tick labels), where it is drawn.

    QtCharts' labels are private QGraphicsTextItem subclasses: reach them through
    their QGraphicsObject."""
    found = []
    for item in chart.view.scene().items():
        obj = item.toGraphicsObject()
        if obj is None or not obj.inherits("QGraphicsTextItem") or not item.isVisible():
            continue
        text_item = shiboken6.wrapInstance(shiboken6.getCppPointer(obj)[0], QGraphicsTextItem)
        text = text_item.toPlainText()
        if text:
            found.append((text, text_item.sceneBoundingRect()))
    return found


@pytest.mark.parametrize("language", ["pt_BR", "en"])
@pytest.mark.parametrize("size", [(800, 600), (780, 574)])
@pytest.mark.parametrize(
    # target, micro-batch, GPUs, activation per sample (GB), card memory, other memory
    "values",
    [
        ("32", "4", "1", "0.5", "80", ""),
        ("1000000000", "99999", "99999", "99999.5", "100000", "90000"),
        ("12345", "12345", "1", "0.001", "100000", "90000"),
        ("1", "1", "1", "0.001", "1", "0.875"),
    ],
)
def test_axis_labels_never_collide(make_window, qtbot, language, size, values) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    chart = window.show_chart()
    window.resize(*size)
    training = window.training_vm
    point = training.locale.decimalPoint()
    describe(training, values[1], values[3].replace(".", point), values[5].replace(".", point))
    training.set_choice(Choice.CARD, CUSTOM_ID)
    for field, text in zip(
        (TrainingField.TARGET, TrainingField.GPUS, TrainingField.GPU_MEMORY),
        (values[0], values[2], values[4]),
        strict=True,
    ):
        training.set_text(field, text)
    assert window.tradeoff_vm is not None and window.tradeoff_vm.inputs() is not None

    def labelled() -> None:  # the chart lays itself out in passes: plot area, then labels
        assert chart._axes is not None
        x, y = chart._axes
        assert set(x.labels) | set(y.labels) <= {text for text, _rect in _texts(chart)}

    qtbot.waitUntil(labelled, timeout=3000)
    texts = _texts(chart)
    labels = [text for text, _rect in texts]
    assert chart.chart.title() in labels
    assert "0" in labels  # both axes start at 0
    assert not [t for t in labels if t.endswith(("...", "…"))]  # nothing cut short
    for index, (text, rect) in enumerate(texts):
        for other, other_rect in texts[index + 1 :]:
            # boxes include the glyphs' side bearings: corners may touch by a pixel or two
            overlap = rect.intersected(other_rect)
            assert overlap.width() <= 2 or overlap.height() <= 2, (text, other)
    assert chart.x_axis.tickCount() >= 2 and chart.y_axis.tickCount() >= 3


def test_labels_follow_the_scale(chart) -> None:  # type: ignore[no-untyped-def]
    # whole numbers where the steps are whole, decimals only where the steps need them
    assert chart.y_axis.labelFormat() == "%.0f"
    assert chart.x_axis.labelFormat() == "%.0f"
    training = chart._vm._training
    training.set_choice(Choice.CARD, CUSTOM_ID)
    describe(training, "1", "0,001", "0,875")
    training.set_text(TrainingField.TARGET, "1")
    training.set_text(TrainingField.GPU_MEMORY, "1")  # 0,125 GB left for activations
    assert chart.y_axis.labelFormat() == "%.1f"
    assert chart.y_axis.max() >= 1.0


@pytest.mark.parametrize("dark", [False, True])
def test_every_series_has_its_own_colour(chart, dark: bool) -> None:  # type: ignore[no-untyped-def]
    palette = QPalette(chart.palette())
    if dark:
        palette.setColor(QPalette.ColorRole.Window, QColor("#202020"))
        palette.setColor(QPalette.ColorRole.Base, QColor("#181818"))
        palette.setColor(QPalette.ColorRole.Text, QColor("#f0f0f0"))
    chart.setPalette(palette)
    # the colour Qt draws each series in: the two curves, the limit line, the marker
    colours = {
        "grow": chart.grow.pen().color(),
        "accumulate": chart.accumulate.pen().color(),
        "available": chart.available.pen().color(),
        "current": chart.current.color(),
    }
    names = {key: colour.name() for key, colour in colours.items()}
    assert len(set(names.values())) == 4, names
    base = chart.chart.backgroundBrush().color()
    for colour in colours.values():
        # each stands out from the background it is drawn on
        assert abs(colour.lightness() - base.lightness()) > 60, (colour.name(), base.name())


def test_legend_names_every_series_in_full(chart, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.training_vm.set_text(TrainingField.OTHER_MEMORY, "67,5")
    entries = chart.legend_entries
    assert entries["grow"].text.text() == chart.grow.name()
    assert entries["accumulate"].text.text() == chart.accumulate.name()
    assert entries["available"].text.text() == chart.available.name()
    assert entries["current"].text.text() == chart.current.name()
    assert entries["available"].isVisible()
    assert not chart.chart.legend().isVisible()  # QtCharts' own legend cuts names short


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_empty_chart_fits_a_small_window(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    chart = window.show_chart()  # no model chosen: the chart says what it needs
    window.resize(800, 600)
    settle = QApplication.processEvents
    settle()
    assert chart.empty.isVisible()
    assert (window.width(), window.height()) == (800, 600)
