"""The description's time-model inputs (virtual stages, FP8 products, the attention
kernel, the links, the goodput) and the "Time per step" card's breakdown, as a user
meets them: typed and clicked in the panel, read in the card, saved in a file."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.memory.setup import Precision
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.results import TimeCard
from gradacc_desktop.ui.training.panel import TrainingPanel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, choose, described, pick, show_tab, type_into
from tests.ui.layout_checks import layout_problems, settle

NEW_FIELDS = (
    TrainingField.VIRTUAL_STAGES,
    TrainingField.LINK,
    TrainingField.NETWORK,
    TrainingField.GOODPUT,
)


def _panel(window: MainWindow) -> TrainingPanel:
    show_tab(window, window.planner_page)
    return window.description


def _card(window: MainWindow) -> TimeCard:
    return window.planner.results.time


def _llama(window: MainWindow, qtbot, card: str = "a100-80gb") -> None:  # type: ignore[no-untyped-def]
    """Llama 3.1 8B at 4 096 tokens on 8 GPUs, activations typed (2 GB) so that the
    pairs fit whatever the kernel."""
    pick(qtbot, choice_box(window, Choice.CARD), card)
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.ACTIVATION, "2"),
        (TrainingField.OTHER_MEMORY, "20"),
        (TrainingField.SEQ_LEN, "4096"),
    ):
        type_into(qtbot, described(window, field), text)


def _pipeline(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Llama-3-70B on 8 data × 8 tensor × 4 pipeline H100s over 32 nodes, a token budget
    and a price: every part of the card has something to say."""
    _llama(window, qtbot, "h100-80gb")
    choose(window, Choice.MODEL, "llama-3-70b")
    for field, text in (
        (TrainingField.TENSOR_PARALLEL, "8"),
        (TrainingField.PIPELINE_STAGES, "4"),
        (TrainingField.NODES, "32"),
        (TrainingField.TOKENS, "1000000000000"),
        (TrainingField.PRICE, "2"),
    ):
        type_into(qtbot, described(window, field), text)


def _tick(qtbot, box: QCheckBox) -> None:  # type: ignore[no-untyped-def]
    """A click on the box's square (a check box spans its row; its text and square
    take the click, the rest of the row does not)."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))


def _legend(card: TimeCard) -> list[tuple[str, str, str]]:
    """The breakdown as the user reads it: (part, seconds, share) per shown row."""
    rows = [card.legend.rows[key] for key in card.legend.shown()]
    assert all(all(w.isVisible() for w in row) for row in rows)
    return [(name.text(), seconds.text(), share.text()) for _s, name, seconds, share in rows]


# -- the inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_each_new_input_has_its_label_name_tab_stop_and_alt_key(  # type: ignore[no-untyped-def]
    make_window, qtbot, language: str
) -> None:
    window: MainWindow = make_window(language=language)
    panel = _panel(window)
    chain = panel.tab_chain()
    for field in NEW_FIELDS:
        box, label = panel.fields[field], panel.labels[field]
        assert label.isVisible() and label.buddy() is box
        assert box.accessibleName() == label.text().replace("&", "") != ""
        assert box.toolTip() and box in chain
    attention, fp8 = panel.combos[Choice.ATTENTION], panel.checks[Choice.FP8]
    assert panel.labels[Choice.ATTENTION].buddy() is attention
    assert attention.accessibleName() == panel.labels[Choice.ATTENTION].text().replace("&", "")
    assert fp8.accessibleName() == fp8.text().replace("&", "") != "" and fp8.toolTip()
    assert attention in chain and fp8 in chain
    # in reading order: FP8 under the precision, the virtual stages under the pipeline's
    assert chain.index(fp8) == chain.index(panel.combos[Choice.PRECISION]) + 1
    master = panel.combos[Choice.MASTER_WEIGHTS]
    assert chain.index(master) == chain.index(fp8) + 1
    assert chain.index(attention) == chain.index(master) + 1
    stages = panel.fields[TrainingField.PIPELINE_STAGES]
    assert chain.index(panel.fields[TrainingField.VIRTUAL_STAGES]) == chain.index(stages) + 1
    link = panel.fields[TrainingField.LINK]
    # Alt + the underlined letter reaches the link field (pt: "&Banda…", en: "L&ink…")
    key = Qt.Key.Key_B if language == "pt_BR" else Qt.Key.Key_I
    qtbot.keyClick(window, key, Qt.KeyboardModifier.AltModifier)
    assert link.isAncestorOf(QApplication.focusWidget()) or QApplication.focusWidget() is link
    assert fp8.text() == (
        "Produtos de matrizes em FP&8" if language == "pt_BR" else "FP&8 matrix products"
    )


def test_virtual_stages_follow_the_pipeline_stages(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(window)
    _pipeline(window, qtbot)
    virtual = described(window, TrainingField.VIRTUAL_STAGES)
    stages = described(window, TrainingField.PIPELINE_STAGES)
    assert virtual.isEnabled() and virtual.text() == "1"
    bubble = _card(window).legend.rows["bubble"][2]
    plain = bubble.text()
    type_into(qtbot, virtual, "2")
    assert bubble.text() != plain  # half the bubble
    assert window.training_vm.description.layout.virtual == 2  # type: ignore[union-attr]
    type_into(qtbot, stages, "1")
    assert not virtual.isEnabled()
    assert "bubble" not in _card(window).legend.shown()
    type_into(qtbot, stages, "2")
    assert virtual.isEnabled() and virtual.text() == "2"
    assert panel.labels[TrainingField.VIRTUAL_STAGES].text() == "Estágios virtuais por GPU"


def test_the_fp8_box_is_enabled_only_for_16_bit_on_a_card_with_an_fp8_peak(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    panel = _panel(window)
    fp8 = panel.checks[Choice.FP8]
    _llama(window, qtbot)  # an A100: no FP8 peak
    assert not fp8.isEnabled() and not fp8.isChecked()
    assert fp8.toolTip().endswith(
        "Off now: The NVIDIA A100 SXM4 80GB has no FP8 products (FP8 Tensor Cores start with "
        "Ada and Hopper)."
    )
    # its Alt key reaches nothing now, and types nothing into the field being edited
    link = described(window, TrainingField.LINK)
    type_into(qtbot, link, "30")
    qtbot.keyClick(link, Qt.Key.Key_8, Qt.KeyboardModifier.AltModifier)
    assert link.text() == "30" and not fp8.isChecked()
    type_into(qtbot, link, "")
    pick(qtbot, choice_box(window, Choice.CARD), "h100-80gb")
    assert fp8.isEnabled() and "Off now" not in fp8.toolTip()
    card = _card(window)
    before = card.summary.text()
    assert card.utilisation.text().endswith(" of 989.5 TFLOP/s per GPU")
    _tick(qtbot, fp8)
    assert fp8.isChecked()
    assert card.summary.text() != before
    assert card.utilisation.text().endswith(" of 1,979 TFLOP/s per GPU")
    pick(qtbot, choice_box(window, Choice.PRECISION), Precision.FP32)
    assert not fp8.isEnabled() and not fp8.isChecked()
    assert fp8.toolTip().endswith(
        "Off now: FP8 products run beside 16-bit training (bf16 or fp16), not with fp32."
    )
    assert card.utilisation.text().endswith(" of 67 TFLOP/s per GPU")  # fp32, dense
    pick(qtbot, choice_box(window, Choice.PRECISION), Precision.BF16)
    assert fp8.isEnabled() and fp8.isChecked()  # the choice waited
    qtbot.keyClick(window, Qt.Key.Key_8, Qt.KeyboardModifier.AltModifier)  # its Alt key
    qtbot.waitUntil(lambda: not fp8.isChecked())  # a mnemonic clicks after a short flash
    assert card.summary.text() == before


def test_the_attention_kernel_and_the_links_change_the_time(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    _panel(window)
    _pipeline(window, qtbot)
    card = _card(window)
    link = described(window, TrainingField.LINK)
    network = described(window, TrainingField.NETWORK)
    assert link.text() == "" and link.lineEdit().placeholderText() == "450 (the card's)"
    assert network.lineEdit().placeholderText() == "50 (the card's)"
    tensor = card.legend.rows["tensor_parallel"][2]
    before = tensor.text()
    type_into(qtbot, link, "45")
    assert tensor.text() != before
    type_into(qtbot, link, "")
    assert tensor.text() == before
    data = card.legend.rows["data_parallel"][2]
    before = data.text()
    type_into(qtbot, network, "5")
    assert data.text() != before
    attention = card.legend.rows["attention"][2]
    before = attention.text()
    pick(qtbot, choice_box(window, Choice.ATTENTION), AttentionKernel.EAGER)
    assert choice_box(window, Choice.ATTENTION).currentText() == "Eager (scores through memory)"
    assert attention.text() != before


def test_the_goodput_stretches_the_run(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    _panel(window)
    _llama(window, qtbot)
    type_into(qtbot, described(window, TrainingField.TOKENS), "1000000000")
    goodput = described(window, TrainingField.GOODPUT)
    assert goodput.lineEdit().placeholderText() == "100"
    card, cost = _card(window), window.planner.results.cost
    hours = cost.values[0][2]  # the GPU-hours of the token budget
    summary, before = card.summary.text(), hours.text()
    type_into(qtbot, goodput, "50")
    assert card.summary.text() == summary and hours.text() != before
    # "32,2 (8 GPUs)" then "64,4 (8 GPUs)"
    figures = [
        Decimal(text.split()[0].replace(".", "").replace(",", "."))
        for text in (before, hours.text())
    ]
    assert abs(figures[1] / figures[0] - 2) < Decimal("0.01")
    assert cost.note.isVisible() and "50 %" in cost.note.text()
    efficiency = described(window, TrainingField.EFFICIENCY)
    assert efficiency.lineEdit().placeholderText() == "modelada pelo formato do modelo"


# -- the breakdown ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_card_shows_where_the_step_goes(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    _panel(window)
    _pipeline(window, qtbot)
    card = _card(window)
    pt = language == "pt_BR"
    assert card.parts_title.text() == (
        "Para onde vai o tempo de um passo do otimizador"
        if pt
        else "Where one optimizer step's time goes"
    )
    assert card.bar.isVisible() and card.legend.isVisible()
    rows = _legend(card)
    names = [name for name, _s, _p in rows]
    if pt:
        assert names[:2] == ["Produtos de matrizes", "Atenção"]
        assert "Bolha do pipeline" in names and "Envios do pipeline" in names
    else:
        assert names[:2] == ["Matrix products", "Attention"]
        assert "Pipeline bubble" in names and "Pipeline sends" in names
    assert card.bar.toolTip().splitlines()[0] == f"{rows[0][0]}: {rows[0][1]} ({rows[0][2]})"
    point, group = (",", ".") if pt else (".", ",")

    def seconds(text: str) -> float:
        value = float(text.split()[0].replace(group, "").replace(point, "."))
        return value / 1000 if text.endswith(" ms") else value

    step = seconds(card.summary.text())
    assert abs(sum(seconds(s) for _n, s, _p in rows) / step - 1) < 0.01
    assert all(re.fullmatch(r"(< )?[\d" + point + r"]+ %", share) for _n, _s, share in rows)
    # why the fastest pair is faster, part by part
    faster = "é" if pt else "is"
    bubble = "bolha do pipeline" if pt else "pipeline bubble"
    assert re.match(rf"2 × 32 {faster} [\d{point}]+ % ", card.difference.text())
    assert f"{bubble} −" in card.difference.text()
    assert card.difference.isVisible() and card.use_fastest.isVisible()


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_breakdown_is_readable_at_800_by_600_and_wide(  # type: ignore[no-untyped-def]
    make_window, qtbot, language: str
) -> None:
    window: MainWindow = make_window(language=language)
    _panel(window)
    _pipeline(window, qtbot)
    card = _card(window)
    view = window.planner
    for size, columns in (((1400, 900), 2), ((800, 600), 1)):
        for _ in range(3):
            window.resize(*size)
            settle()
        view.results_area.ensureWidgetVisible(card.legend, 0, 0)
        settle()
        assert card.legend.columns == columns, size
        assert card.legend.height() >= card.legend.heightForWidth(card.legend.width())
        problems = layout_problems(card, window)
        assert problems == [], f"{language} at {size}: {problems}"
        names = [w for w in card.legend.findChildren(QLabel) if w.isVisible()]
        assert all(label.width() >= label.sizeHint().width() for label in names)


def test_the_new_inputs_are_saved_and_reopened_in_a_scenario(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    panel = _panel(window)
    _pipeline(window, qtbot)
    type_into(qtbot, described(window, TrainingField.VIRTUAL_STAGES), "2")
    _tick(qtbot, panel.checks[Choice.FP8])
    pick(qtbot, choice_box(window, Choice.ATTENTION), AttentionKernel.EAGER)
    type_into(qtbot, described(window, TrainingField.LINK), "400")
    type_into(qtbot, described(window, TrainingField.NETWORK), "25")
    type_into(qtbot, described(window, TrainingField.GOODPUT), "90,5")
    summary = _card(window).summary.text()
    path = tmp_path / "cenario.json"
    assert window.scenarios.save(path)
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert (plan["virtual_stages"], plan["fp8"], plan["attention"]) == (2, True, "eager")
    assert (plan["link_gbps"], plan["network_gbps"], plan["goodput_percent"]) == (
        "400",
        "25",
        "90.5",
    )
    # undo everything, then open the file
    type_into(qtbot, described(window, TrainingField.VIRTUAL_STAGES), "1")
    _tick(qtbot, panel.checks[Choice.FP8])
    pick(qtbot, choice_box(window, Choice.ATTENTION), AttentionKernel.SDPA)
    for field in (TrainingField.LINK, TrainingField.NETWORK, TrainingField.GOODPUT):
        type_into(qtbot, described(window, field), "")
    assert _card(window).summary.text() != summary
    assert window.scenarios.open(path)
    assert described(window, TrainingField.VIRTUAL_STAGES).text() == "2"
    assert panel.checks[Choice.FP8].isChecked()
    assert choice_box(window, Choice.ATTENTION).currentData() is AttentionKernel.EAGER
    assert described(window, TrainingField.LINK).text() == "400"
    assert described(window, TrainingField.NETWORK).text() == "25"
    assert described(window, TrainingField.GOODPUT).text() == "90,5"
    assert _card(window).summary.text() == summary
