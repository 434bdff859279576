"""Copying the plan: the whole plan as text, and the cells selected in the pairs table."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.viewmodels.planner import PlanField
from tests.ui.helpers import type_into


@pytest.fixture
def planner(window: MainWindow, qtbot) -> PlannerView:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentIndex(1)
    view = window.planner
    window.activateWindow()
    qtbot.waitActive(window)
    return view


def _type(qtbot, view: PlannerView, field: PlanField, text: str) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, view.inputs.boxes[field], text)


def _solve(qtbot, view: PlannerView) -> None:  # type: ignore[no-untyped-def]
    view.inputs.recommend.setChecked(False)
    _type(qtbot, view, PlanField.TARGET, "65536")
    _type(qtbot, view, PlanField.GPUS, "1024")
    _type(qtbot, view, PlanField.MICRO_BATCH, "3")


def test_the_plan_as_text_in_portuguese(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner)
    _type(qtbot, planner, PlanField.SEQ_LEN, "2048")
    text = planner.vm.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "Plano de execução: acumulação de gradiente"
    inputs = lines[lines.index("Entradas") + 1 : lines.index("Sua configuração") - 1]
    assert inputs == [
        "Lote efetivo alvo: 65.536",
        "GPUs em paralelismo de dados: 1.024",
        "Tamanho do micro-lote: 3",
        "Arredondamento: Para cima (pelo menos a meta)",
        "Modelo da GPU: NVIDIA A100 80GB",
        "Memória utilizável por GPU: 80 GB",
        "Outra memória por GPU: 21 GB",
        "Ativação por amostra: 0,5 GB",
        "Comprimento da sequência: 2.048",
    ]
    config = lines.index("Sua configuração")
    assert lines[config + 1] == "E = 3 × 22 × 1.024 = 67.584"
    assert lines[config + 2] == "Micro-lote 3 · passos de acumulação 22 · 1.024 GPUs"
    assert lines[config + 3] == "Não exato: 2.048 amostras acima da meta de 65.536."
    assert "O DeepSpeed se recusaria a iniciar" in lines
    fit = lines.index("Memória por GPU")
    assert lines[fit + 1] == "Cabe na memória da GPU"
    assert lines[fit + 3] == "Folga: 57,5 GB livres."
    # only the extras that were asked for: the tokens, not the learning rate
    extras = lines.index("Tokens, passos e taxa de aprendizado")
    assert lines[extras + 1].startswith("138.412.032 tokens por passo do otimizador")
    assert lines[extras + 2] == ""
    # the pairs table, aligned under its heading, the row in use marked
    table = lines[lines.index("Micro-lote e passos de acumulação") + 1 :]
    assert table[0].split() == [
        "Micro-lote",
        "(b)",
        "Passos",
        "(a)",
        "Lote",
        "(E)",
        "Cabe",
        "DeepSpeed",
        "·",
        "Megatron",
        "Tempo/passo",
        "Tokens/s",
    ]
    in_use = [row for row in table if row.endswith("← em uso")]
    assert len(in_use) == 1
    assert in_use[0].split()[:5] == ["3", "22", "67.584", "(+2.048)", "Sim"]
    assert in_use[0].split()[5] == "Recusado"
    # no model chosen: no time per step yet, and the card says where to choose one
    assert table[1].split() == ["1", "64", "65.536", "(exato)", "Sim", "Ambos", "aceitam", "—", "—"]
    assert {len(row) for row in table if "em uso" not in row} <= {len(table[0]), len(table[1])}
    assert text.endswith("—\n")
    time = lines.index("Tempo por passo")
    assert lines[time + 1].startswith("Escolha o modelo, ou digite seus parâmetros")


def test_the_plan_follows_the_language(planner: PlannerView, window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, planner)
    window.set_language("en")
    QApplication.processEvents()
    text = planner.vm.clipboard_text()
    assert text is not None
    assert "Target effective batch: 65,536" in text.splitlines()
    heading = "Micro-batch (b)  Steps (a)        Batch (E)  Fits  DeepSpeed · Megatron  Time/step"
    assert heading in text
    in_use = next(line for line in text.splitlines() if line.endswith("← in use"))
    assert in_use.startswith("              3         22  67,584 (+2,048)   Yes  Refused       ")


def test_nothing_fits_and_no_result(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    inputs = planner.inputs
    inputs.card.setCurrentIndex(inputs.card.findData("t4-16gb"))
    _type(qtbot, planner, PlanField.OTHER_MEMORY, "20")
    text = planner.vm.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    assert "Tamanho do micro-lote: recomendado" in lines
    assert "Recomendação" in lines
    assert "Não cabe na memória da GPU" in lines
    assert "Sua configuração" not in lines and "Configuração recomendada" not in lines
    _type(qtbot, planner, PlanField.TARGET, "")
    assert planner.vm.clipboard_text() is None


def test_selected_cells_as_tab_separated_text(planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _type(qtbot, planner, PlanField.TARGET, "512")
    _type(qtbot, planner, PlanField.GPUS, "8")
    table = planner.pairs.table
    # the row in use is selected at first: all of its cells
    assert planner.pairs.selected_text() == "64\t1\t512 (exato)\tSim\tAmbos aceitam\t—\t—"
    rect = table.visualItemRect(table.item(1, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    rect = table.visualItemRect(table.item(2, 2))
    qtbot.mouseClick(
        table.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ShiftModifier,
        rect.center(),
    )
    assert planner.pairs.selected_text() == "32\t512 (exato)\n16\t512 (exato)"
    QGuiApplication.clipboard().clear()
    qtbot.keySequence(table, QKeySequence(QKeySequence.StandardKey.Copy))
    assert QGuiApplication.clipboard().text() == "32\t512 (exato)\n16\t512 (exato)"
    table.clearSelection()
    assert planner.pairs.selected_text() is None
