"""The "Outra memória" estimate follows the planner's data-parallel GPUs (ZeRO shards
over them), driven through the widgets."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gradacc_desktop.core.memory import ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner import PlannerView
from gradacc_desktop.ui.planner.other_memory import OtherMemoryDialog
from gradacc_desktop.viewmodels.other_memory import MemoryField
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
    assert dialog.rows[-1][2].text() == "18 bytes"
    # 1B parameters × 18 bytes on one GPU (DeepSpeed's ZeRO-3 count) + 1 GB overhead
    assert dialog.total.text() == "Outra memória por GPU: 18 GB + 1 GB de sobrecarga = 19 GB"
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "8")
    assert dialog.sharding.text() == (
        "Particionado entre as 8 GPUs em paralelismo de dados do planejamento."
    )
    assert dialog.rows[-1][2].text() == "2,25 bytes"  # 18 bytes / 8 GPUs
    assert dialog.total.text() == ("Outra memória por GPU: 2,25 GB + 1 GB de sobrecarga = 3,25 GB")
    dialog.accept()
    assert planner.inputs.boxes[PlanField.OTHER_MEMORY].text() == "3,25 GB"


def test_reopened_dialog_uses_the_current_gpus(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window)
    dialog = _open(qtbot, planner)
    _zero3(dialog)
    dialog.reject()
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "4")
    dialog = _open(qtbot, planner)
    assert dialog.zero.currentData() == int(ZeroStage.WEIGHTS)  # the planner's setup
    assert dialog.sharding.text() == (
        "Particionado entre as 4 GPUs em paralelismo de dados do planejamento."
    )
    assert dialog.rows[-1][2].text() == "4,5 bytes"
    # an unfinished GPU count keeps the last one the planner could use
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "")
    assert "4 GPUs" in dialog.sharding.text()
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "2")
    assert "2 GPUs" in dialog.sharding.text()
    assert dialog.rows[-1][2].text() == "9 bytes"


def test_zero3_asks_for_the_largest_layer_and_lora_for_its_shape(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    planner = _planner(window)
    dialog = _open(qtbot, planner)
    largest = dialog.boxes[MemoryField.LARGEST_LAYER]
    assert not largest.isVisible()
    _zero3(dialog)
    assert largest.isVisible()
    type_into(qtbot, largest, "250000000")  # 4 bytes each, gathered: 1 GB
    assert dialog.total.text() == "Outra memória por GPU: 19 GB + 1 GB de sobrecarga = 20 GB"
    rank = dialog.boxes[MemoryField.LORA_RANK]
    assert not rank.isVisible()
    dialog.recipe.setCurrentIndex(dialog.recipe.findData("lora"))
    assert dialog.fraction.isVisible() and not rank.isVisible()
    model = dialog.combos["model"]
    model.setCurrentIndex(model.findData("llama-3-8b"))
    assert rank.isVisible() and not dialog.fraction.isVisible()
    assert not dialog.parameters.isEnabled()
    assert dialog.parameters.text() == "8.030.261.248"
    assert dialog.lora.text().startswith("O LoRA treina ")
    # the exports follow the dialog's ZeRO stage: one setup for the whole app
    assert planner.vm.zero_stage is ZeroStage.WEIGHTS


def test_every_field_opens_with_its_value(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(qtbot, _planner(window))
    assert dialog.parameters.text() == "1.000.000.000"
    assert dialog.overhead.text() == "1 GB"
    assert dialog.boxes[MemoryField.LORA_RANK].text() == "16"
    assert dialog.fraction.text() == "0,01"
    assert dialog.boxes[MemoryField.LARGEST_LAYER].text() == ""  # optional, empty


def test_a_config_json_gives_the_exact_parameter_count(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, monkeypatch, tmp_path
) -> None:
    from tests.configs import config_path

    planner = _planner(window)
    dialog = _open(qtbot, planner)
    qwen3 = config_path("Qwen__Qwen3-0.6B.json")
    monkeypatch.setattr(
        "gradacc_desktop.ui.planner.other_memory.ask_open_path", lambda *_args: qwen3
    )
    qtbot.mouseClick(dialog.open_config, Qt.MouseButton.LeftButton)
    assert dialog.parameters.text() == "596.049.920"
    assert dialog.config_note.isVisible()
    assert "596.049.920" in dialog.config_note.text()
    assert "Qwen3ForCausalLM" in dialog.config_note.text()
    # 16 bytes of mixed-precision Adam per parameter (+ 4 for fp32 gradients)
    assert "596.049.920 parâmetros" in dialog.states.text()
    # typing another count drops the note; a bad file says why and changes nothing
    type_into(qtbot, dialog.parameters, "1000")
    assert not dialog.config_note.isVisible()
    bad = tmp_path / "bad.json"
    bad.write_text('{"model_type": "whisper"}', encoding="utf-8")
    assert not dialog.read_config(bad)
    assert dialog.config_note.isVisible() and dialog.config_note.text().startswith("bad.json")
    assert dialog.parameters.text() == "1.000"
