"""The model states behind the description's other memory ("Estados do modelo…"): one
read-only breakdown that follows the description it is opened from — the model, the
method, ZeRO over the data-parallel GPUs, offload — driven through the panel."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from gradacc_desktop.core.memory.setup import Offload, ZeroStage
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.training.dialogs import ModelStatesDialog
from gradacc_desktop.ui.training.specs import Extra
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.configs import config_path
from tests.ui.helpers import choice_box, choose, described, pick, show_tab, type_into


def _open(window: MainWindow, qtbot) -> ModelStatesDialog:  # type: ignore[no-untyped-def]
    """Click "Estados do modelo…" under the other memory."""
    button = window.description.states_details
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = window.model_states_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def _rows(dialog: ModelStatesDialog) -> list[list[str]]:
    return [[cell.text() for cell in cells] for cells in dialog.rows if cells[0].isVisible()]


def _qwen(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    pick(qtbot, choice_box(window, Choice.MODEL), "qwen3-0.6b")


def test_the_button_waits_for_a_model_and_opens_its_states(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    show_tab(window, window.planner_page)
    button = window.description.states_details
    assert button.text() == "Estados do modelo…"
    assert not button.isEnabled()  # no model, no states
    _qwen(window, qtbot)
    dialog = _open(window, qtbot)
    assert dialog.windowTitle() == "Estados do modelo por GPU"
    assert not dialog.message.isVisible()
    assert _rows(dialog) == [
        ["Componente", "Em uma GPU", "Por parâmetro"],
        ["Pesos", "1,193 GB", "2 bytes"],
        ["Gradientes", "1,193 GB", "2 bytes"],
        ["Gradientes fp32", "2,385 GB", "4 bytes"],
        ["Pesos mestres fp32", "2,385 GB", "4 bytes"],
        ["Estados do otimizador", "4,769 GB", "8 bytes"],
        ["Estados do modelo por GPU", "11,921 GB", "20 bytes"],
    ]
    assert dialog.total.text() == (
        "Outra memória por GPU: 11,921 GB + 1 GB de sobrecarga = 12,921 GB"
    )
    # the same figure the description uses
    assert described(window, TrainingField.OTHER_MEMORY).lineEdit().placeholderText() == (
        "12,921 GB (estimado)"
    )
    assert dialog.sharding.text() == "Sem particionamento: cada GPU guarda uma cópia completa."
    assert dialog.source.text().startswith("Artigo do ZeRO (Rajbhandari et al. 2020")
    assert dialog.cpu.text().startswith("Memória de CPU por nó: 3,577 GB")
    assert not dialog.lora.isVisible() and not dialog.overridden.isVisible()
    # Close hides it; the button shows the same dialog again
    close = dialog.buttons.button(QDialogButtonBox.StandardButton.Close)
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert _open(window, qtbot) is dialog
    dialog.reject()


def test_the_open_dialog_follows_zero_and_the_data_parallel_gpus(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    _qwen(window, qtbot)
    dialog = _open(window, qtbot)
    gpus = described(window, TrainingField.GPUS)
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)
    type_into(qtbot, gpus, "8")
    assert dialog.sharding.text() == "Particionado sobre 8 GPUs em paralelismo de dados."
    assert _rows(dialog)[1] == ["Maior camada, reunida", "0,623 GB", "≈ 1,04409 bytes"]
    assert _rows(dialog)[-1] == ["Estados do modelo por GPU", "1,964 GB", "≈ 3,29409 bytes"]
    assert dialog.total.text() == "Outra memória por GPU: 1,964 GB + 1 GB de sobrecarga = 2,964 GB"
    assert dialog.source.text().startswith("estimate_zero3_model_states_mem_needs do DeepSpeed")
    type_into(qtbot, gpus, "4")
    assert dialog.sharding.text() == "Particionado sobre 4 GPUs em paralelismo de dados."
    # a description the plan cannot use: the dialog says so, and comes back with it
    type_into(qtbot, gpus, "")
    assert dialog.message.isVisible() and not dialog.breakdown.isVisible()
    assert dialog.message.text() == "Corrija primeiro a descrição do treino."
    type_into(qtbot, gpus, "2")
    assert dialog.breakdown.isVisible() and not dialog.message.isVisible()
    assert dialog.sharding.text() == "Particionado sobre 2 GPUs em paralelismo de dados."
    # offloading everything leaves the gathered layer on the GPU, the rest in the CPU
    pick(qtbot, choice_box(window, Choice.OFFLOAD), Offload.ALL)
    assert [row[0] for row in _rows(dialog)[1:]] == [
        "Maior camada, reunida",
        "Estados do modelo por GPU",
    ]
    assert "Estados no offload" in dialog.cpu.text()
    dialog.reject()


def test_lora_and_a_typed_other_memory_are_said(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    _qwen(window, qtbot)
    dialog = _open(window, qtbot)
    pick(qtbot, choice_box(window, Choice.METHOD), Method.LORA)
    assert dialog.lora.isVisible()
    assert dialog.lora.text() == "O LoRA treina 2.293.760 de 598.343.680 parâmetros (≈ 0,383 %)."
    assert window.description.notes[Extra.LORA_NOTE].isVisible()
    other = described(window, TrainingField.OTHER_MEMORY)
    type_into(qtbot, other, "30")
    assert dialog.overridden.isVisible()
    assert dialog.overridden.text() == (
        "O plano usa a outra memória digitada na descrição; estes são os estados do modelo "
        "que ela substitui."
    )
    qtbot.mouseClick(window.description.other_back, Qt.MouseButton.LeftButton)
    assert other.text() == ""
    assert not dialog.overridden.isVisible()
    dialog.reject()


def test_a_config_json_dropped_on_the_description_gives_the_exact_count(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    show_tab(window, window.planner_page)
    panel = window.description
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(config_path("Qwen__Qwen3-0.6B.json")))])
    point = QPointF(panel.rect().center())
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        point.toPoint(), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(panel, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        point, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(panel, drop)
    assert choice_box(window, Choice.MODEL).currentText() == "Arquivo: Qwen__Qwen3-0.6B.json"
    dialog = _open(window, qtbot)
    assert dialog.states.text() == (
        "596.049.920 parâmetros: 11,921 GB de estados do modelo em cada GPU"
    )
    dialog.reject()


def test_a_language_switch_rewords_the_open_dialog(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    _qwen(window, qtbot)
    choose(window, Choice.ZERO, ZeroStage.GRADIENTS)
    type_into(qtbot, described(window, TrainingField.GPUS), "4")
    dialog = _open(window, qtbot)
    assert dialog.sharding.text() == "Particionado sobre 4 GPUs em paralelismo de dados."
    window.set_language("en")
    assert dialog.windowTitle() == "Model states per GPU"
    assert _rows(dialog)[0] == ["Component", "On one GPU", "Per parameter"]
    assert dialog.sharding.text() == "Sharded over 4 data-parallel GPUs."
    assert dialog.total.text().startswith("Other memory per GPU: ")
    assert window.description.states_details.text() == "Model states…"
    dialog.reject()
