"""The training description panel beside the planner, the trainer configs and the chart,
driven through real key events, pastes, Tab and the wheel: what the user sees in it and
in every view that follows it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QGroupBox, QLabel, QMessageBox, QWidget

from gradacc_desktop.core.memory.setup import ZeroStage
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.training.panel import TrainingPanel
from gradacc_desktop.ui.training.specs import ROWS, Extra
from gradacc_desktop.viewmodels.training.fields import SHAPE_MODEL, Choice, TrainingField
from tests.configs import config_path
from tests.ui.helpers import (
    choice_box,
    choose,
    described,
    dispose,
    memory_typed,
    paste,
    pick,
    show_tab,
    type_into,
    wheel,
)
from tests.ui.layout_checks import layout_problems, settle


@pytest.fixture
def panel(window: MainWindow) -> TrainingPanel:
    """The description beside the planner (the window's default language: pt-BR)."""
    show_tab(window, window.planner_page)
    return window.description


def _inputs(panel: TrainingPanel) -> list[QWidget]:
    """The panel's number fields and choices in reading order (shown or not)."""
    inputs: list[QWidget] = []
    for spec in ROWS:
        if isinstance(spec.key, TrainingField):
            inputs.append(panel.fields[spec.key])
        elif isinstance(spec.key, Choice):
            inputs.append(panel.checks.get(spec.key) or panel.combos[spec.key])
    return inputs


def _holder(widget: QWidget | None, among: list[QWidget]) -> QWidget | None:
    """The member of ``among`` that is or holds ``widget`` (a field's line edit)."""
    while widget is not None and widget not in among:
        widget = widget.parentWidget()
    return widget


# -- one choice, every view ----------------------------------------------------------------


def test_choosing_a_model_once_changes_the_notes_the_plan_the_time_and_the_export(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    notes = panel.notes
    results = window.planner.results
    assert "escolha o modelo" in notes[Extra.ACTIVATION_NOTE].text().lower()
    assert results.fit.verdict.text() == "? Memória desconhecida"
    assert results.time.message.text() == (
        "Escolha o modelo na descrição do treino para ver o tempo por passo."
    )
    show_tab(window, window.trainer_page)
    # no micro-batch while the memory is not known: nothing exported, and why
    assert window.trainer.export.preview.toPlainText().startswith(
        "Nada a exportar ainda: não se sabe qual micro-lote cabe."
    )
    show_tab(window, window.planner_page)

    pick(qtbot, choice_box(window, Choice.MODEL), "qwen3-0.6b")

    assert notes[Extra.MODEL_NOTE].text() == "596.049.920 parâmetros, exatamente · 28 camadas"
    assert notes[Extra.ACTIVATION_NOTE].text().startswith("Estimado: 14,5 GB por amostra")
    assert "4.096 tokens" in notes[Extra.ACTIVATION_NOTE].text()
    assert notes[Extra.OTHER_NOTE].text() == (
        "Estados do modelo 11,921 GB (sem ZeRO, como o DeepSpeed os conta) + 1 GB de sobrecarga."
    )
    # the model's context fills the empty sequence length, where the user sees it
    assert described(window, TrainingField.SEQ_LEN).text() == "4.096"
    assert described(window, TrainingField.ACTIVATION).text() == ""
    assert described(window, TrainingField.ACTIVATION).lineEdit().placeholderText() == (
        "14,5 GB (estimado)"
    )
    assert results.fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert results.fit.largest.text() == "Maior micro-lote que cabe: 4."
    assert results.configuration.formula.text() == "E = 4 × 8 × 1 = 32"
    assert results.time.summary.isVisible() and not results.time.message.isVisible()
    assert re.match(r"\d+,\d+ s por passo do otimizador · ", results.time.summary.text())
    assert results.time.legend.isVisible() and results.time.bar.isVisible()

    show_tab(window, window.trainer_page)
    assert window.description is panel and panel.isVisible()  # the same panel, beside it
    preview = window.trainer.export.preview.toPlainText()
    assert '"train_micro_batch_size_per_gpu": 4,' in preview
    assert '"gradient_accumulation_steps": 8,' in preview


# -- a typed value over a derived one ------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "note", "back", "derived", "typed_note"),
    [
        (
            TrainingField.ACTIVATION,
            Extra.ACTIVATION_NOTE,
            "activation_back",
            "14,5 GB (estimado)",
            "Digitado; derivado do modelo: 14,5 GB.",
        ),
        (
            TrainingField.OTHER_MEMORY,
            Extra.OTHER_NOTE,
            "other_back",
            "12,921 GB (estimado)",
            "Digitado; derivado do modelo: 12,921 GB.",
        ),
    ],
    ids=["activation", "other memory"],
)
def test_a_value_typed_over_the_derived_one_and_the_way_back(  # type: ignore[no-untyped-def]
    window: MainWindow,
    panel: TrainingPanel,
    qtbot,
    field: TrainingField,
    note: Extra,
    back: str,
    derived: str,
    typed_note: str,
) -> None:
    pick(qtbot, choice_box(window, Choice.MODEL), "qwen3-0.6b")
    box = described(window, field)
    button = getattr(panel, back)
    derived_note = panel.notes[note].text()
    assert not button.isVisible()
    usage = window.planner.results.fit.usage.text()

    type_into(qtbot, box, "20")
    qtbot.keyClick(box, Qt.Key.Key_Tab)
    assert box.text() == "20 GB"  # as typed (in the locale's form), not the derived value
    assert panel.notes[note].text() == typed_note
    assert button.isVisible() and button.text() == "↺"
    assert button.accessibleName() == "Usar o valor derivado"
    assert "20 GB" in window.planner.results.fit.usage.text()

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert box.text() == ""
    assert box.lineEdit().placeholderText() == derived
    assert panel.notes[note].text() == derived_note
    assert not button.isVisible()
    assert window.planner.results.fit.usage.text() == usage


# -- nothing fits ---------------------------------------------------------------------------


def test_nothing_fits_shows_why_and_one_click_applies_an_alternative(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "4096")
    assert choice_box(window, Choice.CARD).currentText() == "NVIDIA A100 SXM4 80GB"
    assert described(window, TrainingField.GPUS).text() == "1"
    assert choice_box(window, Choice.METHOD).currentData() is Method.FULL

    results = window.planner.results
    card = results.nothing_fits
    assert card.isVisible() and not results.configuration.isVisible()
    assert card.verdict.text() == "✘ Não cabe na memória da GPU"
    assert card.message.text() == (
        "Nada cabe: só os estados do modelo e a sobrecarga (161,606 GB) já passam dos 80 GB "
        "desta GPU, antes de qualquer ativação."
    )
    assert card.suggestions.text() == "Caberia com uma mudança:"
    shown = [(label, button) for label, button in card.rows if label.isVisible()]
    assert [label.text() for label, _ in shown] == [
        "• ZeRO-2 com offload para a CPU: até 1 amostra por GPU "
        "(17,061 GB + 31,715 GB por amostra).",
        "• Adaptadores LoRA (posto 16): até 1 amostra por GPU (17,197 GB + 31,715 GB por amostra).",
        "• Adaptadores QLoRA (posto 16): até 2 amostras por GPU "
        "(6,839 GB + 31,715 GB por amostra).",
        "• Com mais GPUs: ZeRO-3 sobre 4 GPUs em paralelismo de dados: até 1 amostra por GPU "
        "(39,238 GB + 31,715 GB por amostra).",
    ]
    for label, button in shown:
        assert button.isVisible() and button.isEnabled() and button.text() == "Usar esta"
        assert button.accessibleName() == f"Usar esta: {label.text()[2:]}"
    show_tab(window, window.trainer_page)
    preview = window.trainer.export.preview.toPlainText()
    assert preview.startswith("Nada a exportar: nem um micro-lote de 1 cabe")
    show_tab(window, window.planner_page)

    qtbot.mouseClick(shown[2][1], Qt.MouseButton.LeftButton)  # QLoRA

    assert window.statusBar().currentMessage() == (
        "Descrição do treino alterada: Adaptadores QLoRA (posto 16): até 2 amostras por GPU "
        "(6,839 GB + 31,715 GB por amostra)."
    )
    assert choice_box(window, Choice.METHOD).currentData() is Method.QLORA
    assert not card.isVisible() and results.configuration.isVisible()
    assert results.fit.verdict.text() == "✔ Cabe na memória da GPU"
    assert results.configuration.formula.text() == "E = 2 × 16 × 1 = 32"
    assert described(window, TrainingField.MICRO_BATCH).text() == "2"
    assert described(window, TrainingField.LORA_RANK).isVisible()


# -- the search -----------------------------------------------------------------------------


def test_the_search_finds_setups_and_the_selected_one_becomes_the_description(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    type_into(qtbot, described(window, TrainingField.GPUS), "8")
    search = window.planner.search
    assert search.title.text() == "Encontrar a melhor configuração"
    assert not search.table.isVisible() and not search.use_button.isVisible()

    qtbot.mouseClick(search.run_button, Qt.MouseButton.LeftButton)

    table = search.table
    assert table.isVisible() and table.rowCount() == 10
    best = table.item(0, 2).text()  # the best setup's time, as its row shows it
    assert re.fullmatch(r"\d+,\d+ s", best)
    assert search.best.text() == (
        f"Melhor: ZeRO-3 · sem recomputação, micro-lote 1 × 4 passos de acumulação, {best} por "
        "passo, 52,884 GB por GPU."
    )
    assert [table.item(1, c).text() for c in (0, 1, 3)] == [
        "ZeRO-2 · sem recomputação",
        "1 × 4",
        "66,843 GB",
    ]
    # ranked by their time per step, the best first
    times = [float(table.item(r, 2).text().split()[0].replace(",", ".")) for r in range(10)]
    assert times == sorted(times)
    excluded = search.exclusions.text().splitlines()
    assert excluded[0].startswith("• Sem ZeRO: ")
    assert re.search(r" mais lento \(\d+,\d+ s por passo no melhor caso\)\.$", excluded[0])
    assert search.use_button.text() == "Usar a configuração se&lecionada"
    rect = table.visualItemRect(table.item(1, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    qtbot.mouseClick(search.use_button, Qt.MouseButton.LeftButton)

    assert window.statusBar().currentMessage() == (
        "A descrição do treino agora usa ZeRO-2 · sem recomputação."
    )
    assert choice_box(window, Choice.ZERO).currentData() is ZeroStage.GRADIENTS
    assert described(window, TrainingField.MICRO_BATCH).text() == "1"
    assert not panel.recommend.isChecked()
    assert window.planner.results.configuration.formula.text() == "E = 1 × 4 × 8 = 32"
    # using a ranked setup keeps the ranking true; another change makes it stale
    assert not search.stale.isVisible() and search.use_button.isEnabled()
    type_into(qtbot, described(window, TrainingField.SEQ_LEN), "2048")
    assert search.stale.isVisible()
    assert not search.use_button.isEnabled() and not table.isEnabled()


# -- keyboard, labels, wheel, paste -------------------------------------------------------


def test_tab_walks_the_inputs_in_reading_order(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    """From the model to the GPU efficiency, every input shown, top to bottom (the
    sequence-parallel box under the tensor-parallel size once it is enabled, the
    framework above the ZeRO stage)."""
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    expected = [w for w in _inputs(panel) if w.isVisible() and w.isEnabled()]
    assert expected[0] is panel.combos[Choice.MODEL]
    assert expected[-1] is panel.fields[TrainingField.EFFICIENCY]
    layout = expected[expected.index(panel.fields[TrainingField.TENSOR_PARALLEL]) :]
    assert layout[:8] == [
        panel.fields[TrainingField.TENSOR_PARALLEL],
        panel.checks[Choice.SEQUENCE_PARALLEL],
        panel.fields[TrainingField.PIPELINE_STAGES],
        panel.fields[TrainingField.CONTEXT_PARALLEL],  # virtual stages and experts: disabled
        panel.combos[Choice.FRAMEWORK],
        panel.combos[Choice.ZERO],
        panel.combos[Choice.OFFLOAD],
        panel.combos[Choice.RECOMPUTE],
    ]
    expected[0].setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    reached = [_holder(QApplication.focusWidget(), expected)]
    for _ in range(3 * len(expected)):
        if reached[-1] is expected[-1]:
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        stop = _holder(QApplication.focusWidget(), expected)
        if stop is not None:
            reached.append(stop)
    assert reached == expected


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_input_has_a_visible_label_buddy_and_an_accessible_name(  # type: ignore[no-untyped-def]
    make_window, qtbot, language: str
) -> None:
    window: MainWindow = make_window(language=language)
    show_tab(window, window.planner_page)
    panel = window.description
    choose(window, Choice.MODEL, SHAPE_MODEL)  # the typed sizes' rows
    pick(qtbot, panel.combos[Choice.METHOD], Method.LORA)  # LoRA's rows
    checked = 0
    for key, label in panel.labels.items():
        widget = panel.fields[key] if isinstance(key, TrainingField) else panel.combos[key]
        assert label.buddy() is widget
        assert label.isVisible() == widget.isVisible(), key
        if not widget.isVisible():
            continue
        checked += 1
        assert label.text().replace("&", "").strip(), key
        assert widget.accessibleName() == label.text().replace("&", ""), key
        assert widget.toolTip(), key
    assert checked >= 30
    for button in (panel.recommend, panel.open_config, panel.card_speed, panel.load_profile):
        assert button.text().replace("&", "").strip()


def test_the_wheel_over_an_unfocused_field_or_combo_changes_nothing(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    window.resize(800, 600)
    settle()
    target = described(window, TrainingField.TARGET)
    method = choice_box(window, Choice.METHOD)
    other = described(window, TrainingField.GPUS)
    other.setFocus()
    qtbot.waitUntil(other.hasFocus)
    bar = panel.area.verticalScrollBar()
    assert bar.maximum() > 0  # the panel scrolls at this size
    bar.setValue(bar.maximum() // 2)
    for widget in (target, method):
        scrolled = bar.value()
        wheel(widget, -120)
        wheel(widget, -120)
        assert bar.value() > scrolled  # the page scrolls instead
    assert target.text() == "32"
    assert method.currentData() is Method.FULL
    assert window.training_vm.value(TrainingField.TARGET) == 32
    # the field being edited takes the wheel
    target.setFocus()
    qtbot.waitUntil(target.hasFocus)
    wheel(target, 120)
    assert target.text() == "33"


@pytest.mark.parametrize("typing", [False, True], ids=["pasted", "typed"])
def test_a_period_reads_as_the_decimal_comma_in_portuguese(  # type: ignore[no-untyped-def]
    window: MainWindow, panel: TrainingPanel, qtbot, typing: bool
) -> None:
    for field, tidy in (
        (TrainingField.OTHER_MEMORY, "0,5 GB"),
        (TrainingField.ACTIVATION, "0,5 GB"),
        (TrainingField.PRICE, "0,5"),
    ):
        box = described(window, field)
        if typing:
            type_into(qtbot, box, "0.5")
        else:
            paste(qtbot, box, "0.5")
        assert box.text() == "0.5"  # kept as entered while editing
        assert str(window.training_vm.value(field)) == "0.5"
        qtbot.keyClick(box, Qt.Key.Key_Tab)
        assert box.text() == tidy
    assert window.planner.results.fit.usage.text() == (
        "Ativações 32 × 0,5 GB = 16 GB, mais 0,5 GB de outra memória: 16,5 GB de 80 GB."
    )


def test_a_refused_entry_stays_as_typed_and_the_panel_says_why(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    gpus = described(window, TrainingField.GPUS)
    type_into(qtbot, gpus, "0")
    qtbot.keyClick(gpus, Qt.Key.Key_Tab)
    assert gpus.text() == "0"
    assert panel.problems.isVisible()
    assert "GPUs em paralelismo de dados" in panel.problems.text()
    assert window.planner.results.prompt.isVisible()
    type_into(qtbot, gpus, "2")
    assert not panel.problems.isVisible()
    # with the plan's column scrolled down, a refused entry brings its words into view
    window.resize(800, 600)
    settle()
    area = window.planner.results_area
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    type_into(qtbot, gpus, "0")
    prompt, problems = window.planner.results.prompt, window.planner.results.problems
    assert "GPUs em paralelismo de dados" in problems.text()
    for label in (prompt, problems):
        corner = label.mapTo(area.viewport(), label.rect().bottomLeft())
        assert area.viewport().rect().contains(corner), corner
    # at the top of the column, where the first card was (not in the middle of its height)
    assert prompt.mapTo(area.viewport(), prompt.rect().topLeft()).y() < prompt.height()
    type_into(qtbot, gpus, "2")
    memory_typed(qtbot, window)  # a micro-batch recommended: its formula
    assert window.planner.results.configuration.formula.text() == "E = 16 × 1 × 2 = 32"


# -- a model's config.json ----------------------------------------------------------------


def test_open_config_json_names_the_model_and_a_bad_file_says_why(  # type: ignore[no-untyped-def]
    window: MainWindow, panel: TrainingPanel, qtbot, monkeypatch, tmp_path: Path
) -> None:
    chosen = [config_path("Qwen__Qwen3-0.6B.json")]
    monkeypatch.setattr(
        "gradacc_desktop.ui.training.opening.ask_open_path", lambda *_args: chosen[0]
    )
    qtbot.mouseClick(panel.open_config, Qt.MouseButton.LeftButton)
    assert choice_box(window, Choice.MODEL).currentText() == "Arquivo: Qwen__Qwen3-0.6B.json"
    assert described(window, TrainingField.MODEL_PARAMS).text() == "596.049.920"
    assert window.statusBar().currentMessage().startswith("Modelo lido de Qwen__Qwen3-0.6B.json")
    assert not panel.problems.isVisible()
    chosen[0] = tmp_path / "bad.json"
    chosen[0].write_text('{"model_type": "xlnet"}', encoding="utf-8")
    qtbot.mouseClick(panel.open_config, Qt.MouseButton.LeftButton)
    assert panel.problems.isVisible()
    assert panel.problems.text().startswith("bad.json não foi aberto")
    assert choice_box(window, Choice.MODEL).currentText() == "Arquivo: Qwen__Qwen3-0.6B.json"


# -- languages --------------------------------------------------------------------------------


def _words(panel: TrainingPanel) -> list[tuple[str, str]]:
    """What the panel shows and tells assistive technology, widget by widget."""
    found = []
    for widget in [panel, *panel.findChildren(QWidget)]:
        name = widget.objectName()
        found.append((name, widget.accessibleName() + "|" + widget.toolTip()))
        if isinstance(widget, QLabel):
            found.append((name, widget.text()))
        elif isinstance(widget, QComboBox):
            found.append((name, "|".join(widget.itemText(i) for i in range(widget.count()))))
        elif isinstance(widget, NumberField):
            found.append((name, widget.text() + "|" + widget.lineEdit().placeholderText()))
        elif isinstance(widget, QGroupBox):
            found.append((name, widget.title()))
    return found


def test_both_languages_and_a_switch_keeps_the_entries(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    pick(qtbot, choice_box(window, Choice.MODEL), "qwen3-0.6b")
    type_into(qtbot, described(window, TrainingField.OTHER_MEMORY), "12,5")
    type_into(qtbot, described(window, TrainingField.DATASET), "1000000")
    type_into(qtbot, described(window, TrainingField.PRICE), "x")  # refused, kept as typed
    assert panel.title.text() == "Descrição do treino"
    assert panel.labels[TrainingField.TARGET].text() == "Lote &efetivo alvo"

    window.set_language("en")

    assert panel.title.text() == "Training description"
    assert panel.labels[TrainingField.TARGET].text() == "Target &effective batch"
    assert described(window, TrainingField.TARGET).accessibleName() == "Target effective batch"
    assert panel.sections[next(iter(panel.sections))].title() == "Model"
    assert described(window, TrainingField.OTHER_MEMORY).text() == "12.5 GB"
    assert described(window, TrainingField.DATASET).text() == "1,000,000"
    assert described(window, TrainingField.SEQ_LEN).text() == "4,096"
    assert described(window, TrainingField.PRICE).text() == "x"
    assert choice_box(window, Choice.MODEL).currentData() == "qwen3-0.6b"
    assert choice_box(window, Choice.METHOD).currentText() == "Every parameter (full fine-tuning)"
    assert panel.notes[Extra.OTHER_NOTE].text() == "Typed in; derived from the model: 12.921 GB."
    assert panel.other_back.isVisible()
    assert panel.other_back.accessibleName() == "Use the derived value"
    # exactly what a panel built in English shows for the same description
    fresh = TrainingPanel(window.training_vm)
    qtbot.addWidget(fresh)
    assert _words(panel) == _words(fresh)
    dispose(fresh)
    # and back: the English entry reads the same in Portuguese
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "0.75")
    window.set_language("pt_BR")
    assert described(window, TrainingField.ACTIVATION).text() == "0,75 GB"
    assert panel.labels[TrainingField.TARGET].text() == "Lote &efetivo alvo"


# -- the toggle and the size ---------------------------------------------------------------


def test_the_toggle_hides_and_shows_the_description_beside_every_page(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    toggle = window.tabs.toggle
    assert toggle.text() == "Descrição do treino" and toggle.isChecked()
    planner = window.planner
    width = planner.width()
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton)
    settle()
    assert not panel.isVisible() and planner.width() > width
    show_tab(window, window.trainer_page)
    assert not panel.isVisible()  # the user's choice holds on the other pages
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton)
    settle()
    assert panel.isVisible()
    show_tab(window, window.calculator)
    assert not panel.isVisible() and not toggle.isVisible()  # the calculator has its own
    show_tab(window, window.chart_page)
    assert panel.isVisible()


def _cut_sideways(panel: TrainingPanel) -> list[str]:
    """Inputs and buttons of the panel that the area shows only in part, side to side."""
    viewport = panel.area.viewport()
    cut = []
    for widget in [*_inputs(panel), panel.recommend, panel.open_config, panel.card_speed]:
        if not widget.isVisible():
            continue
        rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
        if rect.left() < 0 or rect.right() >= viewport.width():
            cut.append(f"{widget.objectName()} {rect.left()}…{rect.right()} of {viewport.width()}")
        if widget.width() < widget.minimumSizeHint().width():
            cut.append(f"{widget.objectName()} narrower than it needs")
    return cut


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_at_800_by_600_no_input_is_cut_sideways(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    show_tab(window, window.planner_page)
    panel = window.description
    pick(qtbot, panel.combos[Choice.MODEL], "llama-3.1-8b")
    pick(qtbot, panel.combos[Choice.METHOD], Method.LORA)
    type_into(qtbot, described(window, TrainingField.DATASET), "99999999999")
    for page in (window.planner_page, window.trainer_page, window.chart_page):
        show_tab(window, page)
        for _ in range(2):  # the first resize meets the page's layout before it settles
            window.resize(800, 600)
            settle()
        assert window.width() <= 800 and window.height() <= 600
        assert not panel.area.horizontalScrollBar().isVisible()
        assert _cut_sideways(panel) == []
        assert layout_problems(panel, window) == []


def test_tab_visits_the_buttons_where_they_stand(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    """The whole chain, buttons included: each control after the one above it."""
    choose(window, Choice.MODEL, "qwen2.5-0.5b")
    type_into(qtbot, described(window, TrainingField.ACTIVATION), "1")  # ↺ appears
    chain = [w for w in panel.tab_chain() if w.isVisible() and w.isEnabled()]
    assert panel.open_config in chain and panel.activation_back in chain
    chain[0].setFocus(Qt.FocusReason.TabFocusReason)
    reached = [chain[0]]
    for _ in range(len(chain) - 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.append(_holder(QApplication.focusWidget(), chain))
    assert reached == chain


def test_f9_hides_and_shows_the_description(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    assert panel.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F9)
    assert not panel.isVisible() and not window.tabs.toggle.isChecked()
    qtbot.keyClick(window, Qt.Key.Key_F9)
    assert panel.isVisible() and window.tabs.toggle.isChecked()
    window.retranslate()  # the button's text again: F9 still works
    qtbot.keyClick(window, Qt.Key.Key_F9)
    assert not panel.isVisible()


def test_nothing_to_recommend_shows_no_micro_batch(
    window: MainWindow, panel: TrainingPanel
) -> None:
    micro = described(window, TrainingField.MICRO_BATCH)
    # the memory not known at first: no micro-batch recommended
    assert micro.text() == "" and micro.lineEdit().placeholderText() == "—"
    window.training_vm.set_text(TrainingField.ACTIVATION, "1")
    window.training_vm.set_text(TrainingField.OTHER_MEMORY, "10")
    assert micro.text() == "32"  # up to 70 samples fit: the target's largest pair
    window.training_vm.use_derived(TrainingField.ACTIVATION)
    window.training_vm.use_derived(TrainingField.OTHER_MEMORY)
    choose(window, Choice.MODEL, "llama-3.1-8b")  # 160 GB of model states on 80 GB
    described(window, TrainingField.SEQ_LEN).set_text("4096")
    assert window.training_vm.plan is not None and window.training_vm.plan.current is None
    assert micro.text() == "" and micro.lineEdit().placeholderText() == "—"


def test_a_damaged_speed_profile_is_refused_in_a_message_box(
    window: MainWindow, panel: TrainingPanel, qtbot, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "perfil.json"
    bad.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(
        "gradacc_desktop.ui.training.opening.ask_open_path", lambda *_args, **_kw: bad
    )
    qtbot.mouseClick(panel.load_profile, Qt.MouseButton.LeftButton)
    box = panel.findChild(QMessageBox, "profile_error")
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    assert box.text() == (
        "“perfil.json” não é um perfil de velocidade que este app consiga ler: "
        "JSON inválido na linha 1, coluna 2"
    )
    box.close()


def test_a_field_reached_by_its_alt_key_is_scrolled_into_view(
    window: MainWindow, panel: TrainingPanel, qtbot
) -> None:  # type: ignore[no-untyped-def]
    window.resize(800, 600)
    settle()
    other = described(window, TrainingField.OTHER_MEMORY)
    viewport = panel.area.viewport()

    def seen() -> bool:
        top_left = other.mapTo(viewport, QPoint(0, 0))
        return QRect(top_left, other.size()).intersects(viewport.rect())

    assert not seen()  # far down the description at this size
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.AltModifier)
    assert _holder(QApplication.focusWidget(), [other]) is other
    assert seen()
