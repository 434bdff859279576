"""The pairs chart's view-model: time per step against memory per GPU, from the planner."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.viewmodels.pair_chart import (
    PairChartMessage,
    PairChartView,
    PairChartViewModel,
)
from gradacc_desktop.viewmodels.planner import PlannerViewModel, PlanView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.planner_setup import per_gpu_gb, pipeline, planner, timed


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def results(vm: PlannerViewModel) -> PlanView:
    plan = vm.state.results
    assert plan is not None
    return plan


def drawn(chart: PairChartViewModel) -> PairChartView:
    view = chart.view()
    assert isinstance(view, PairChartView), view
    return view


def test_one_point_per_pair_from_the_planner(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    chart = PairChartViewModel(vm)
    view = drawn(chart)
    points = results(vm).points
    assert len(view.fits) + len(view.over) == len(points) == 8
    # 20 GB + b × 2 GB: 32 × 2 and 64 × 1 need 84 and 148 GB of 80
    assert [m.label for m in view.over] == ["32 × 2", "64 × 1"]
    assert [m.x for m in view.over] == [84.0, 148.0]
    for mark, point in zip((*view.fits, *view.over), points, strict=True):
        assert (mark.x, mark.y) == (point.memory_gb, point.step_seconds)
        assert mark.label == f"{point.micro_batch} × {point.accumulation_steps}"
    assert view.capacity_gb == 80.0
    assert view.capacity_name == "GPU memory (80 GB)"
    assert view.title == "Time per step against memory per GPU, one point per pair"
    assert (view.x_title, view.y_title) == ("Memory per GPU (GB)", "Time per step (s)")
    assert (view.fits_name, view.over_name) == ("Pairs that fit", "Pairs that do not fit")
    # the axes reach past the farthest pair, and past the slowest
    assert view.x_max > 148 and view.y_max > max(p.step_seconds or 0 for p in points)


def test_the_fastest_pair_and_the_one_in_use(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    chart = PairChartViewModel(vm)
    view = drawn(chart)
    assert view.current is not None and view.current.label == "64 × 1"
    assert view.fastest is not None and view.fastest.label == "2 × 32"
    assert view.current_name == "In use: 64 × 1"
    assert view.fastest_name == "Fastest that fits: 2 × 32"
    # the times and rates the pairs table shows for the two pairs
    rows = {row.micro_batch: row.cells for row in results(vm).pairs}
    fast, used = rows[2], rows[64]
    assert view.summary == (
        f"Fastest that fits: 2 × 32 — {fast[5]} per step; in use: 64 × 1 — {used[5]}."
    )
    # 20 GB + 2 × the first stage's share of 2 GB over 8 tensor-parallel GPUs
    gb = per_gpu_gb(vm.training, 2)
    assert view.fastest.tip == f"2 × 32: {fast[5]} per step, {gb} GB per GPU, {fast[6]} tokens/s"
    fastest = next(p for p in results(vm).points if p.fastest)
    assert (view.fastest.x, view.fastest.y) == (fastest.memory_gb, fastest.step_seconds)
    assert view.current.y > view.fastest.y
    vm.choose_pair(2)
    view = drawn(chart)
    assert view.summary == f"In use: 2 × 32 — {fast[5]} per step, the fastest pair that fits."
    assert view.current == view.fastest


def test_without_a_time_the_planner_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    chart = PairChartViewModel(vm)
    view = chart.view()
    assert isinstance(view, PairChartMessage)
    time = results(vm).time
    assert time is not None and view.message == time.message
    assert view.message == "Choose the model in the training description to see the time per step."
    assert chart.clipboard_text() is None
    assert chart.empty_text() == view.message
    vm.training.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.training.set_text(TrainingField.SEQ_LEN, "")
    view = chart.view()
    assert isinstance(view, PairChartMessage)
    assert view.message.startswith("Type the sequence length")
    vm.training.set_text(TrainingField.GPUS, "")  # no plan at all: the planner's prompt
    view = chart.view()
    assert isinstance(view, PairChartMessage) and view.message == vm.state.prompt
    assert view.message == "Correct the training description to see the plan."


def test_when_nothing_fits_there_is_no_chart(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    vm.training.set_text(TrainingField.OTHER_MEMORY, "90")  # more than the 80 GB card
    chart = PairChartViewModel(vm)
    view = chart.view()
    assert isinstance(view, PairChartMessage) and view.message == "No configuration to time."
    assert chart.clipboard_text() is None


def test_recomputed_only_while_shown(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    chart = PairChartViewModel(vm)
    seen: list[object] = []
    chart.changed.connect(seen.append)
    pipeline(vm.training)
    vm.training.set_choice(Choice.RECOMMEND, False)  # the user's own micro-batch
    assert seen == []  # nothing on screen: nothing computed
    chart.set_active(True)
    assert len(seen) == 1 and isinstance(seen[0], PairChartView)
    vm.choose_pair(2)
    assert len(seen) == 2
    chart.set_active(False)
    vm.choose_pair(4)
    assert len(seen) == 2


def test_axes_are_labelled_in_the_locale(qapp) -> None:  # type: ignore[no-untyped-def]
    chart = PairChartViewModel(planner("pt_BR"))
    axis = chart.axis(Decimal("2.5"), 400.0, lambda label: 8.0 * len(label), 4.0, 10)
    assert axis.labels[:3] == ("0,0", "0,5", "1,0")
    assert axis.label_format == "%.1f"
    crowded = chart.axis(Decimal(90), 40.0, lambda label: 8.0 * len(label), 4.0, 10)
    assert len(crowded.labels) < 10  # fewer labels where they would collide
    wide = PairChartViewModel(planner()).axis(Decimal(12000), 2000.0, lambda _l: 30.0, 4.0, 8)
    assert "2,000" in wide.labels


def test_clipboard_table(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    chart = PairChartViewModel(vm)
    text = chart.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "Time per step against memory per GPU, one point per pair"
    header = lines[2].split("   ")
    assert header == [
        "Micro-batch (b)",
        "Steps (a)",
        "Memory per GPU (GB)",
        "Time per step (s)",
        "Tokens/s",
        "Fits",
    ]
    rows = [line.split() for line in lines[3:10]]
    table = {row.micro_batch: row.cells for row in results(vm).pairs}
    for micro in (1, 64):
        memory = per_gpu_gb(vm.training, micro)
        cells = table[micro]  # the time and rate as the pairs table shows them
        steps, time, rate = cells[1], cells[5].removesuffix(" s"), cells[6]
        assert [str(micro), steps, memory, time, rate, "Yes"] in (rows[0], rows[-1])
    # the numbers line up on the right of their column
    ends = {
        line.index(cells[4]) + len(cells[4]) for line, cells in zip(lines[3:10], rows, strict=True)
    }
    assert ends == {lines[2].index("Tokens/s") + len("Tokens/s")}
    assert "GPU memory (80 GB)" in lines
    assert lines[-1] == drawn(chart).summary


def test_the_language_follows_the_planner(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    chart = PairChartViewModel(vm)
    chart.set_active(True)
    seen: list[object] = []
    chart.changed.connect(seen.append)
    catalogue("pt_BR")
    vm.training.set_language(QLocale("pt_BR"))
    assert len(seen) == 1  # one new view per switch
    view = seen[0]
    assert isinstance(view, PairChartView)
    fast = next(row.cells for row in results(vm).pairs if row.micro_batch == 2)
    assert "," in fast[5] and "." in fast[6]  # "25,5 s", "82.300": the Portuguese forms
    assert view.fastest is not None and view.fastest.tip.startswith(f"2 × 32: {fast[5]} ")
    assert f"{per_gpu_gb(vm.training, 2, ',')} GB" in view.fastest.tip
    assert view.capacity_name == "Memória da GPU (80 GB)"
    text = chart.clipboard_text()
    assert text is not None and per_gpu_gb(vm.training, 1, ",") in text and fast[6] in text
