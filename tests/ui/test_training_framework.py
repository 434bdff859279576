"""The framework, Megatron's sequence parallelism and selective recomputation in the
training description, as a user meets them: picked with the keyboard, ticked with the
mouse, read in the planner's memory card, saved in a scenario file and opened again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.setup import Precision, ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.training.panel import TrainingPanel
from gradacc_desktop.ui.training.specs import Extra
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into
from tests.ui.layout_checks import layout_problems, settle


def _panel(window: MainWindow) -> TrainingPanel:
    show_tab(window, window.planner_page)
    return window.description


def _llama(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Llama 3.1 8B at 4 096 tokens on 8 A100s with ZeRO-1, the memory derived."""
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.SEQ_LEN, "4096"),
    ):
        type_into(qtbot, described(window, field), text)
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.OPTIMIZER)


def _tick(qtbot, box: QCheckBox) -> None:  # type: ignore[no-untyped-def]
    """A click on the box's square."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))


def _usage(window: MainWindow) -> str:
    """The planner's memory card: what one GPU holds."""
    return window.planner.results.fit.usage.text()


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_new_controls_have_a_label_a_name_a_tooltip_and_a_tab_stop(  # type: ignore[no-untyped-def]
    make_window, language: str
) -> None:
    window: MainWindow = make_window(language=language)
    panel = _panel(window)
    chain = panel.tab_chain()
    framework, label = panel.combos[Choice.FRAMEWORK], panel.labels[Choice.FRAMEWORK]
    assert label.isVisible() and label.buddy() is framework
    assert framework.accessibleName() == label.text().replace("&", "") == "Framework"
    assert "FSDP2" in framework.toolTip()
    assert "docs/" not in framework.toolTip()  # no file the desktop user has not got
    assert [framework.itemText(i) for i in range(framework.count())] == [
        "DeepSpeed",
        "Megatron",
        "FSDP2 (PyTorch)",
    ]
    assert framework.currentData() is Framework.DEEPSPEED
    box = panel.checks[Choice.SEQUENCE_PARALLEL]
    assert box.isVisible() and box.text()
    assert box.accessibleName() == box.text().replace("&", "")
    assert box.toolTip() and box.accessibleDescription() == box.toolTip()
    assert box.text() == (
        "Paralelismo de sequência" if language == "pt_BR" else "Sequence parallelism"
    )
    # in reading order: the box under the tensor-parallel size, then Megatron's overlap;
    # the framework, Megatron's bf16 gradients, ZeRO
    assert chain.index(box) == chain.index(panel.fields[TrainingField.TENSOR_PARALLEL]) + 1
    assert chain[chain.index(box) + 1] is panel.checks[Choice.TP_COMM_OVERLAP]
    assert chain[chain.index(framework) + 1] is panel.checks[Choice.GRAD_REDUCE_BF16]
    assert chain.index(framework) + 2 == chain.index(panel.combos[Choice.ZERO])
    recompute = panel.combos[Choice.RECOMPUTE]
    texts = [recompute.itemText(i) for i in range(recompute.count())]
    selective = (
        "Seletiva (núcleo da atenção, Megatron)"
        if language == "pt_BR"
        else "Selective (attention core, Megatron)"
    )
    assert len(texts) == 4 and texts[1] == selective
    assert recompute.itemData(1) is Recompute.SELECTIVE


def test_choosing_megatron_changes_the_memory_per_gpu(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(window)
    _llama(window, qtbot)
    deepspeed = _usage(window)
    note = panel.notes[Extra.OTHER_NOTE]
    assert "como o DeepSpeed os conta" in note.text()
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert _usage(window) != deepspeed
    assert note.text() == (
        "Estados do modelo 60,227 GB (ZeRO-1 sobre 8 GPUs, como o Megatron os conta) + "
        "2,41 GB de reserva do alocador + 1 GB de sobrecarga."
    )
    d = window.training_vm.description
    assert d is not None and d.framework is Framework.MEGATRON
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.DEEPSPEED)
    assert _usage(window) == deepspeed


def test_the_sequence_parallel_box_is_enabled_only_with_tensor_parallelism(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window: MainWindow = make_window(language="en")
    panel = _panel(window)
    _llama(window, qtbot)
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    box = panel.checks[Choice.SEQUENCE_PARALLEL]
    tensor = described(window, TrainingField.TENSOR_PARALLEL)
    assert tensor.text() == "1"
    assert not box.isEnabled() and not box.isChecked()
    assert box.toolTip().endswith(
        "Off now: Sequence parallelism splits the work of a tensor-parallel group: give a "
        "tensor-parallel size of two or more."
    )
    type_into(qtbot, tensor, "2")
    assert box.isEnabled() and "Off now" not in box.toolTip()
    without = _usage(window)
    _tick(qtbot, box)
    assert box.isChecked()
    d = window.training_vm.description
    assert d is not None and d.sequence_parallel and d.tensor_parallel == 2
    assert _usage(window) != without  # the norms' and dropouts' activations split
    type_into(qtbot, tensor, "1")
    assert not box.isEnabled() and not box.isChecked()
    d = window.training_vm.description
    assert d is not None and not d.sequence_parallel
    type_into(qtbot, tensor, "2")
    assert box.isEnabled() and box.isChecked()  # the choice waited
    # from the keyboard: Tab from the tensor-parallel size reaches the box, Space ticks
    tensor.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(tensor.hasFocus)
    qtbot.keyClick(tensor, Qt.Key.Key_Tab)
    assert box.hasFocus()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert not box.isChecked()
    assert _usage(window) == without


def test_selective_recomputation_is_offered_and_the_plan_uses_it(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    _panel(window)
    _llama(window, qtbot)
    pick(qtbot, choice_box(window, Choice.ATTENTION), AttentionKernel.EAGER)  # the s² scores
    none = _usage(window)
    pick(qtbot, choice_box(window, Choice.RECOMPUTE), Recompute.SELECTIVE)
    assert choice_box(window, Choice.RECOMPUTE).currentText() == (
        "Seletiva (núcleo da atenção, Megatron)"
    )
    d = window.training_vm.description
    assert d is not None and d.recompute is Recompute.SELECTIVE
    selective = _usage(window)
    assert selective != none
    pick(qtbot, choice_box(window, Choice.RECOMPUTE), Recompute.FULL)
    assert _usage(window) not in (none, selective)


def test_per_op_recomputation_is_torchtitans_and_the_plan_uses_it(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    _panel(window)
    _llama(window, qtbot)
    none = _usage(window)
    box = choice_box(window, Choice.RECOMPUTE)
    pick(qtbot, box, Recompute.SELECTIVE_OP)
    assert box.currentText() == "Seletiva por operação (torchtitan)"
    problems = window.description.problems
    assert problems.isVisible()
    assert problems.text() == (
        "A recomputação seletiva por operação é do torchtitan (FSDP2, selective_ac_option "
        "'op'): o DeepSpeed treina sem ela, e os números são contados sem recomputação; "
        "escolha o framework FSDP2 (PyTorch), ou outra recomputação."
    )
    assert _usage(window) == none  # DeepSpeed runs none: the figures count none
    label = _panel(window).labels[Choice.RECOMPUTE]
    red = verdict_colour(label.palette(), False)
    assert label.palette().color(label.foregroundRole()) == red  # the choice is marked
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    assert not problems.isVisible()
    assert label.palette().color(label.foregroundRole()) != red
    fsdp_op = _usage(window)
    # the card's activations per GPU are more than the description's per sample: said
    assert "incluem a reserva do alocador de cache (+10 %)" in fsdp_op
    pick(qtbot, box, Recompute.NONE)
    assert _usage(window) != fsdp_op != none
    pick(qtbot, box, Recompute.SELECTIVE_OP)
    assert _usage(window) == fsdp_op
    # a model whose layers' products are not described: said, and no figure guessed
    pick(qtbot, choice_box(window, Choice.MODEL), "gpt2")
    assert problems.isVisible()
    assert problems.text().startswith(
        "A recomputação seletiva por operação é modelada para camadas como as do Llama"
    )
    # the cost card says "no time per step" once, then why
    missing = window.planner.results.cost.missing.text()
    assert missing.count("Sem tempo por passo") == 1
    assert missing.endswith("sem dropout: escolha outra recomputação.")


def test_a_megatron_scenario_reopens_with_its_choices(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    panel = _panel(window)
    _llama(window, qtbot)
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    _tick(qtbot, panel.checks[Choice.SEQUENCE_PARALLEL])
    pick(qtbot, choice_box(window, Choice.RECOMPUTE), Recompute.SELECTIVE)
    usage = _usage(window)
    path = tmp_path / "megatron.json"
    assert window.scenarios.save(path)
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert (plan["framework"], plan["sequence_parallel"], plan["recompute"]) == (
        "megatron",
        True,
        "selective",
    )
    # undo everything, then open the file
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    _tick(qtbot, panel.checks[Choice.SEQUENCE_PARALLEL])
    pick(qtbot, choice_box(window, Choice.RECOMPUTE), Recompute.NONE)
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "1")
    assert _usage(window) != usage
    assert window.scenarios.open(path)
    assert choice_box(window, Choice.FRAMEWORK).currentData() is Framework.MEGATRON
    assert choice_box(window, Choice.FRAMEWORK).currentText() == "Megatron"
    assert described(window, TrainingField.TENSOR_PARALLEL).text() == "2"
    box = panel.checks[Choice.SEQUENCE_PARALLEL]
    assert box.isEnabled() and box.isChecked()
    assert choice_box(window, Choice.RECOMPUTE).currentData() is Recompute.SELECTIVE
    assert _usage(window) == usage


def test_an_old_scenario_opens_with_deepspeed(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(window)
    _llama(window, qtbot)
    path = tmp_path / "antigo.json"
    assert window.scenarios.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == scenario_io.VERSION == 12
    data["version"] = 6  # as this app's version before the framework wrote it
    del data["plan"]["framework"], data["plan"]["sequence_parallel"]
    del data["plan"]["cpu_memory_gb"]  # version 8
    del data["plan"]["fused_loss"], data["plan"]["master_weights"]  # versions 9, 10
    del data["plan"]["expert_tensor_parallel"]  # version 11
    del data["plan"]["tp_comm_overlap"]  # version 12
    del data["plan"]["grad_reduce_bf16"]  # version 12
    path.write_text(json.dumps(data), encoding="utf-8")
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    _tick(qtbot, panel.checks[Choice.SEQUENCE_PARALLEL])
    assert window.scenarios.open(path)
    assert choice_box(window, Choice.FRAMEWORK).currentData() is Framework.DEEPSPEED
    assert choice_box(window, Choice.FRAMEWORK).currentText() == "DeepSpeed"
    box = panel.checks[Choice.SEQUENCE_PARALLEL]
    assert not box.isEnabled() and not box.isChecked()
    d = window.training_vm.description
    assert d is not None and d.framework is Framework.DEEPSPEED and not d.sequence_parallel


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_the_new_rows_are_readable_at_800_by_600(make_window, qtbot, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    panel = _panel(window)
    _llama(window, qtbot)
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    for _ in range(2):
        window.resize(800, 600)
        settle()
    box = panel.checks[Choice.SEQUENCE_PARALLEL]
    panel.area.ensureWidgetVisible(box)
    settle()
    assert box.width() >= box.sizeHint().width()
    framework = panel.combos[Choice.FRAMEWORK]
    assert framework.width() >= framework.minimumSizeHint().width()
    assert not panel.area.horizontalScrollBar().isVisible()
    assert layout_problems(panel, window) == []


def test_megatrons_expert_tensor_parallelism_is_read_for_a_mixture_of_experts(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    panel = _panel(window)
    field = described(window, TrainingField.EXPERT_TENSOR_PARALLEL)
    label = panel.labels[TrainingField.EXPERT_TENSOR_PARALLEL]
    assert label.text() == "GPUs de tensor dos especialistas"
    assert "--expert-tensor-parallel-size" in field.toolTip()
    _llama(window, qtbot)
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert not field.isEnabled()  # a dense model: nothing to fold
    pick(qtbot, choice_box(window, Choice.MODEL), "qwen3-30b-a3b")
    assert field.isEnabled()
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "4")
    type_into(qtbot, described(window, TrainingField.GPUS), "4")
    assert field.lineEdit().placeholderText() == "4 (como o de tensor)"
    type_into(qtbot, described(window, TrainingField.EXPERT_PARALLEL), "16")
    problems = window.description.problems
    assert problems.isVisible() and "O Megatron espalha os especialistas" in problems.text()
    type_into(qtbot, field, "1")  # EP 16 × expert TP 1 tiles the 16 GPUs
    assert not problems.isVisible()
    d = window.training_vm.description
    assert d is not None and d.expert_tensor_parallel == 1 and d.expert_parallel == 16
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.DEEPSPEED)
    assert not field.isEnabled()


def test_megatrons_tensor_parallel_overlap_hides_the_all_reduces_in_the_time_card(  # type: ignore[no-untyped-def]
    make_window, qtbot, tmp_path: Path
) -> None:
    """The box shows under Megatron only, is on only beside sequence parallelism over 2+
    tensor-parallel GPUs (its tooltip says why), takes the tensor-parallel traffic out
    of the time card's parts, and is kept in a scenario file."""
    window: MainWindow = make_window(language="en")
    panel = _panel(window)
    _llama(window, qtbot)
    box = panel.checks[Choice.TP_COMM_OVERLAP]
    assert not box.isVisible()  # DeepSpeed runs no such overlap
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert box.isVisible() and not box.isEnabled()
    assert box.text() == "Overlap TP communication"
    assert box.accessibleName() == box.text()
    assert box.toolTip().endswith(
        "Off now: Overlapping the tensor-parallel communication with the products is "
        "Megatron's (Transformer Engine, --tp-comm-overlap) and needs sequence parallelism "
        "over two or more tensor-parallel GPUs."
    )
    type_into(qtbot, described(window, TrainingField.TENSOR_PARALLEL), "2")
    assert not box.isEnabled()  # sequence parallelism still off
    _tick(qtbot, panel.checks[Choice.SEQUENCE_PARALLEL])
    assert box.isEnabled() and "Off now" not in box.toolTip()
    legend = window.planner.results.time.legend
    assert "tensor_parallel" in legend.shown()
    # from the keyboard: Tab from sequence parallelism reaches the box, Space ticks it
    sequence = panel.checks[Choice.SEQUENCE_PARALLEL]
    sequence.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(sequence.hasFocus)
    qtbot.keyClick(sequence, Qt.Key.Key_Tab)
    assert box.hasFocus()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert box.isChecked()
    d = window.training_vm.description
    assert d is not None and d.tp_overlapped
    assert "tensor_parallel" not in legend.shown()  # hidden in the products
    path = tmp_path / "overlap.json"
    assert window.scenarios.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["plan"]["tp_comm_overlap"] is True
    _tick(qtbot, box)
    assert "tensor_parallel" in legend.shown()
    assert window.scenarios.open(path)
    assert box.isChecked() and "tensor_parallel" not in legend.shown()
    # switching sequence parallelism off turns the overlap off with it
    _tick(qtbot, sequence)
    assert not box.isEnabled()
    d = window.training_vm.description
    assert d is not None and not d.tp_comm_overlap


def test_megatrons_bf16_gradients_lower_the_memory_per_gpu(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    """The box shows under Megatron only, is on in bf16 training only (its tooltip says
    why not), and takes the fp32 gradient buffer's half out of the memory card."""
    window: MainWindow = make_window(language="en")
    panel = _panel(window)
    _llama(window, qtbot)
    box = panel.checks[Choice.GRAD_REDUCE_BF16]
    assert not box.isVisible()
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert box.isVisible() and box.isEnabled() and not box.isChecked()
    assert box.text() == "Reduce gradients in bf16" == box.accessibleName()
    note = panel.notes[Extra.OTHER_NOTE]
    fp32 = note.text()
    usage = _usage(window)
    _tick(qtbot, box)
    d = window.training_vm.description
    assert d is not None and d.bf16_gradients
    assert note.text() != fp32 and _usage(window) != usage
    # the 8B model's buffer in bf16: 2 bytes a parameter less, 16,06 GB
    assert "60.227 GB" in fp32 and "44.167 GB" in note.text()
    pick(qtbot, choice_box(window, Choice.PRECISION), Precision.FP16)
    assert not box.isEnabled()
    assert box.toolTip().endswith(
        "Off now: Reducing the gradients in bf16 is Megatron's --grad-reduce-in-bf16, in "
        "bf16 training (DeepSpeed already reduces a bf16 training's gradients in bf16)."
    )
    d = window.training_vm.description
    assert d is not None and not d.grad_reduce_bf16
