"""Copying the plan: the whole plan as text (the description it was made from first),
and the cells selected in the pairs table."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.view import PlannerView
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, memory_typed, pick, show_tab, type_into


@pytest.fixture
def planner(window: MainWindow) -> PlannerView:
    show_tab(window, window.planner_page)
    return window.planner


def _type(qtbot, window: MainWindow, field: TrainingField, text: str) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, described(window, field), text)


def _solve(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(window.description.recommend, Qt.MouseButton.LeftButton)
    _type(qtbot, window, TrainingField.TARGET, "65536")
    _type(qtbot, window, TrainingField.GPUS, "1024")
    _type(qtbot, window, TrainingField.MICRO_BATCH, "3")
    _type(qtbot, window, TrainingField.ACTIVATION, "0,5")
    _type(qtbot, window, TrainingField.OTHER_MEMORY, "21")


def _copied(window: MainWindow, qtbot) -> str:  # type: ignore[no-untyped-def]
    """Ctrl+C with the focus in the description beside the plan: the plan."""
    field = described(window, TrainingField.TARGET)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    field.lineEdit().deselect()
    QGuiApplication.clipboard().setText("sentinel")
    qtbot.keySequence(field, QKeySequence.StandardKey.Copy)
    return QGuiApplication.clipboard().text()


def test_the_plan_as_text_in_portuguese(window: MainWindow, planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window)
    _type(qtbot, window, TrainingField.SEQ_LEN, "2048")
    text = _copied(window, qtbot)
    assert text == window.planner_vm.clipboard_text()
    assert window.statusBar().currentMessage() == "Plano copiado para a área de transferência."
    lines = text.splitlines()
    assert lines[0] == "Plano de execução: acumulação de gradiente"
    inputs = lines[lines.index("Descrição do treino") + 1 : lines.index("Sua configuração") - 1]
    assert inputs == [
        "Modelo: — escolha um modelo —",
        "O que é treinado: Todos os parâmetros (ajuste fino completo)",
        "Precisão: precisão mista bf16",
        "Comprimento da sequência: 2.048",
        "Modelo da GPU: NVIDIA A100 SXM4 80GB",
        "GPUs em paralelismo de dados: 1.024",
        # the nodes field left empty: the fewest nodes of at most 8 GPUs
        "Nós (máquinas): 128",
        "Estágio ZeRO: Nenhum (paralelismo de dados simples)",
        "Offload para a CPU: Nenhuma",
        "Recomputação: Nenhuma (guardar as ativações)",
        "Lote efetivo alvo: 65.536",
        "Tamanho do micro-lote: 3",
        "Arredondamento: Para cima (pelo menos a meta)",
        "Ativação por amostra: 0,5 GB (digitado)",
        "Outra memória por GPU: 21 GB (digitado)",
    ]
    config = lines.index("Sua configuração")
    assert lines[config + 1] == "E = 3 × 22 × 1.024 = 67.584"
    assert lines[config + 2] == "Micro-lote 3 · passos de acumulação 22 · 1.024 GPUs"
    assert lines[config + 3] == "Não exato: 2.048 amostras acima da meta de 65.536."
    assert "O DeepSpeed se recusaria a iniciar" in lines
    fit = lines.index("Memória por GPU")
    assert lines[fit + 1] == "Cabe na memória da GPU"
    assert lines[fit + 3] == "Folga: 57,5 GB livres."
    extras = lines.index("Tokens, passos e taxa de aprendizado")
    assert lines[extras + 1] == "138.412.032 tokens por passo do otimizador (67.584 × 2.048)."
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
    assert in_use[0].split()[:6] == ["3", "22", "67.584", "(+2.048)", "Sim", "Recusado"]
    # no model chosen: no time per step yet, and the plan says where to choose one
    assert table[1].split() == ["1", "64", "65.536", "(exato)", "Sim", "Ambos", "aceitam", "—", "—"]
    assert {len(row) for row in table if "em uso" not in row} == {len(table[0])}
    time = lines.index("Tempo por passo")
    assert lines[time + 1] == "Escolha o modelo na descrição do treino para ver o tempo por passo."


def test_the_plan_follows_the_language(window: MainWindow, planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    _solve(qtbot, window)
    window.set_language("en")
    QApplication.processEvents()
    text = _copied(window, qtbot)
    lines = text.splitlines()
    assert "Target effective batch: 65,536" in lines
    assert "Activation per sample: 0.5 GB (typed in)" in lines
    heading = "Micro-batch (b)  Steps (a)        Batch (E)  Fits  DeepSpeed · Megatron  Time/step"
    assert heading in text
    in_use = next(line for line in lines if line.endswith("← in use"))
    assert in_use.startswith("              3         22  67,584 (+2,048)   Yes  Refused       ")


def test_nothing_fits_and_no_result(window: MainWindow, planner: PlannerView, qtbot) -> None:  # type: ignore[no-untyped-def]
    pick(qtbot, choice_box(window, Choice.CARD), "t4-16gb")
    _type(qtbot, window, TrainingField.ACTIVATION, "0,5")
    _type(qtbot, window, TrainingField.OTHER_MEMORY, "20")
    lines = _copied(window, qtbot).splitlines()
    assert "Tamanho do micro-lote: recomendado" in lines
    assert "Não cabe na memória da GPU" in lines
    assert "Caberia com uma mudança:" in lines
    larger = (
        "- Uma placa maior: NVIDIA L4 24GB: até 8 amostras por GPU (20 GB + 0,5 GB por amostra)."
    )
    assert larger in lines
    assert "Sua configuração" not in lines
    _type(qtbot, window, TrainingField.TARGET, "")
    assert window.planner_vm.clipboard_text() is None
    assert _copied(window, qtbot) == "sentinel"
    assert window.statusBar().currentMessage() == (
        "Nada foi copiado: insira um valor para ver os resultados."
    )


def test_selected_cells_as_tab_separated_text(
    window: MainWindow, planner: PlannerView, qtbot
) -> None:  # type: ignore[no-untyped-def]
    memory_typed(qtbot, window)
    _type(qtbot, window, TrainingField.TARGET, "512")
    _type(qtbot, window, TrainingField.GPUS, "8")
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
    assert window.statusBar().currentMessage() == (
        "Células selecionadas copiadas para a área de transferência."
    )
    # File > Copy results with the table in focus: the cells too, and said so (it
    # copied them while saying "Plan copied")
    QGuiApplication.clipboard().clear()
    window.statusBar().clearMessage()
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    window.menus.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == "32\t512 (exato)\n16\t512 (exato)"
    assert window.statusBar().currentMessage().startswith("Células selecionadas copiadas")
    table.clearSelection()
    assert planner.pairs.selected_text() is None
    window.menus.copy_action.trigger()  # nothing selected: the plan
    assert window.statusBar().currentMessage() == "Plano copiado para a área de transferência."
    assert QGuiApplication.clipboard().text().count("\n") > 5
