"""The "Outra memória" estimate follows the planner's data-parallel GPUs (ZeRO shards
over them), driven through the widgets."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gradacc_desktop.core.memory import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.ui.planner.other_memory import OtherMemoryDialog
from gradacc_desktop.viewmodels.planner import PlanField
from tests.ui.helpers import type_into


def _open(qtbot, planner: PlannerView) -> OtherMemoryDialog:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(planner.inputs.estimate, Qt.MouseButton.LeftButton)
    # a closed dialog lingers until its deferred deletion: take the one on screen
    shown = [d for d in planner.findChildren(OtherMemoryDialog) if d.isVisible()]
    assert len(shown) == 1
    return shown[0]


def _zero3(dialog: OtherMemoryDialog) -> None:
    dialog.zero.setCurrentIndex(dialog.zero.findData(int(ZeroStage.WEIGHTS)))


def _planner(window: MainWindow) -> PlannerView:
    window.tabs.setCurrentIndex(1)
    return window.planner


def test_open_dialog_follows_a_change_of_gpus(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window)
    dialog = _open(qtbot, planner)
    _zero3(dialog)
    assert dialog.sharding.text() == (
        "Particionado entre a 1 GPU em paralelismo de dados do planejamento."
    )
    assert dialog.rows[-1][1].text() == "16 bytes"
    # 1B parameters × 16 bytes on one GPU + 1 GB overhead
    assert dialog.total.text() == "Outra memória por GPU: 16 GB + 1 GB de sobrecarga = 17 GB"
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "8")
    assert dialog.sharding.text() == (
        "Particionado entre as 8 GPUs em paralelismo de dados do planejamento."
    )
    assert dialog.rows[-1][1].text() == "2 bytes"  # 16 bytes / 8 GPUs
    assert dialog.total.text() == "Outra memória por GPU: 2 GB + 1 GB de sobrecarga = 3 GB"
    dialog.accept()
    assert planner.inputs.boxes[PlanField.OTHER_MEMORY].text() == "3 GB"


def test_reopened_dialog_uses_the_current_gpus(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window)
    dialog = _open(qtbot, planner)
    _zero3(dialog)
    dialog.reject()
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "4")
    dialog = _open(qtbot, planner)
    assert dialog.zero.currentData() == int(ZeroStage.WEIGHTS)  # the dialog kept its setup
    assert dialog.sharding.text() == (
        "Particionado entre as 4 GPUs em paralelismo de dados do planejamento."
    )
    assert dialog.rows[-1][1].text() == "4 bytes"
    # an unfinished GPU count keeps the last one the planner could use
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "")
    assert "4 GPUs" in dialog.sharding.text()
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "2")
    assert "2 GPUs" in dialog.sharding.text()
    assert dialog.rows[-1][1].text() == "8 bytes"
