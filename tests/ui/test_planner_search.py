"""The search for the best setup as a user meets it: its result in the whole column
(8 rows and more at 1366 x 768, no scrolling inside the column), the best row marked in
words and in bold, each other row against it and why every other option is out, a row
used with one click or Enter, and the GPUs in all following the description."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.search import SETUP_CHARS
from gradacc_desktop.ui.planner.view import PlannerView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into
from tests.ui.layout_checks import settle


def _planner(window: MainWindow, qtbot, gpus: str = "8") -> PlannerView:  # type: ignore[no-untyped-def]
    """Llama 3.1 8B at 4 096 tokens, a batch of 512 on ``gpus`` GPUs: nothing fits
    without ZeRO, so the search has setups to rank and options to rule out."""
    show_tab(window, window.planner_page)
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "4096")
    type_into(qtbot, described(window, TrainingField.TARGET), "512")
    type_into(qtbot, described(window, TrainingField.GPUS), gpus)
    return window.planner


def _visible_rows(planner: PlannerView) -> int:
    table = planner.search.table
    viewport = table.viewport().rect()
    return sum(
        viewport.contains(table.visualRect(table.model().index(row, 0)))
        for row in range(table.rowCount())
    )


@pytest.mark.parametrize(("language", "size"), [("pt_BR", (1366, 768)), ("en", (1280, 720))])
def test_the_result_takes_the_column_with_room_for_its_rows(  # type: ignore[no-untyped-def]
    make_window, qtbot, language: str, size: tuple[int, int]
) -> None:
    window = make_window(language=language)
    window.resize(*size)
    planner = _planner(window, qtbot)
    assert not planner.search.isVisible()
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    settle()
    # the plan's cards and the pairs make way: nothing scrolls around the table
    assert planner.search.isVisible() and not planner.results_area.isVisible()
    assert not planner.pairs.isVisible()
    table = planner.search.table
    assert table.rowCount() == 10
    assert _visible_rows(planner) >= 8, (_visible_rows(planner), table.viewport().size())
    assert planner.search.exclusions.isVisible()
    # "Back to the plan": the cards again, the result kept for the next look
    qtbot.mouseClick(planner.search.back_button, Qt.MouseButton.LeftButton)
    assert planner.results_area.isVisible() and not planner.search.isVisible()
    assert planner.search_card.summary.text() == planner.search.best.text()


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_a_narrow_window_keeps_the_setup_readable_and_rows_in_view(  # type: ignore[no-untyped-def]
    make_window, qtbot, language: str
) -> None:
    """At 800 x 600 with the description beside it the setup column keeps room for its
    words (the table scrolls sideways rather than cut it to nothing) and a few rows stay
    in view (the reasons below give way); at the window's least nothing overlaps."""
    window = make_window(language=language)
    window.resize(800, 600)
    planner = _planner(window, qtbot)
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    settle()
    table, page = planner.search.table, planner.search
    average = table.fontMetrics().averageCharWidth()
    assert table.columnWidth(0) >= SETUP_CHARS * average
    assert table.horizontalScrollBar().maximum() > 0  # the rest is a scroll away
    assert _visible_rows(planner) >= 3, table.viewport().size()
    first = table.item(0, 0)
    assert first is not None and first.toolTip() == first.text()  # the whole setup
    window.resize(1, 1)
    settle()
    window.resize(1, 1)
    settle()
    parts = [table, page.hint, page.exclusions_title, page.exclusions_area]
    tops = [part.mapTo(page, part.rect().topLeft()).y() for part in parts]
    bottoms = [part.mapTo(page, part.rect().bottomLeft()).y() for part in parts]
    assert all(b < t for b, t in zip(bottoms, tops[1:], strict=False)), (tops, bottoms)
    assert bottoms[-1] <= page.height()
    assert table.viewport().height() > table.horizontalHeader().height()  # a row at least


def test_the_best_row_is_marked_and_every_other_says_why(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window, qtbot, gpus="2")
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    table = planner.search.table
    assert table.horizontalHeaderItem(4).text() == "Em relação à melhor"
    best = table.item(0, 4)
    assert best.text() == "★ Melhor" and best.font().bold() and table.item(0, 0).font().bold()
    assert not table.item(1, 0).font().bold()
    # each other row against the best, in words: "1,7 % mais lenta", or as fast but
    # less simple (an offload that costs no time here)
    for row in range(1, table.rowCount()):
        text = table.item(row, 4).text()
        assert re.fullmatch(r"\d+(,\d+)? % mais lenta|tão rápida, menos simples", text), text
    assert table.item(table.rowCount() - 1, 4).text().endswith(" % mais lenta")
    # why each option the best does not use is out, in words (ZeRO-1 does not fit)
    reasons = planner.search.exclusions.text().splitlines()
    assert planner.search.exclusions_title.text() == "Por que as outras opções ficam de fora"
    assert all(line.startswith("• ") for line in reasons)
    assert re.fullmatch(
        r"• Sem ZeRO: não cabe \(faltam [\d,]+ GB por GPU com uma amostra\)\.", reasons[0]
    )
    assert re.fullmatch(
        r"• ZeRO-1: [\d,]+ % mais lento \([\d,]+ s por passo no melhor caso\)\.", reasons[1]
    )


def test_one_click_uses_a_row_and_the_description_shows_it(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window, qtbot)
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    settle()
    table = planner.search.table
    setups = [table.item(row, 0).text() for row in range(table.rowCount())]
    row = setups.index("ZeRO-2 · sem recomputação")
    assert row > 0
    rect = table.visualItemRect(table.item(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.statusBar().currentMessage() == (
        "A descrição do treino agora usa ZeRO-2 · sem recomputação."
    )
    assert choice_box(window, Choice.ZERO).currentData() is ZeroStage.GRADIENTS
    assert not window.description.recommend.isChecked()
    # the row says it is in use, in words and in bold; the results stay current
    assert table.item(row, 4).text().endswith(" · em uso") and table.item(row, 0).font().bold()
    assert table.item(0, 4).text() == "★ Melhor"
    assert not planner.search.stale.isVisible() and table.isEnabled()
    # Enter on another row uses that one
    table.setFocus(Qt.FocusReason.TabFocusReason)
    table.setCurrentCell(0, 0)
    qtbot.keyClick(table, Qt.Key.Key_Return)
    assert choice_box(window, Choice.ZERO).currentData() is ZeroStage.WEIGHTS
    assert table.item(0, 4).text() == "★ Melhor · em uso"
    assert not table.item(row, 4).text().endswith(" · em uso")
    assert QApplication.focusWidget() is table


def test_the_gpus_in_all_follow_the_description(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window, qtbot)
    field = planner.search.world
    assert field.lineEdit().placeholderText() == "8"
    type_into(qtbot, described(window, TrainingField.GPUS), "16")
    assert field.lineEdit().placeholderText() == "16"
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    assert field.lineEdit().placeholderText() == "32"  # 16 data-parallel × 2 tensor
    assert field.toolTip().endswith("Vazio: as da descrição, 32.")
    qtbot.mouseClick(planner.search_card.open_button, Qt.MouseButton.LeftButton)
    assert planner.search.best.text().startswith("Melhor: ")
    # the description's GPUs change after the search: the field follows, the result is
    # said to be of the GPUs before and cannot be used
    type_into(qtbot, described(window, TrainingField.GPUS), "4")
    assert field.lineEdit().placeholderText() == "8"
    assert planner.search.stale.isVisible() and not planner.search.use_button.isEnabled()
