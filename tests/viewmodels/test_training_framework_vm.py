"""The description's framework, Megatron's sequence parallelism and selective
recomputation in the view-model: the choices, what the plan makes of them, the check
box's state and the scenario files and settings store that keep them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.setup import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.training.fields import Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from gradacc_desktop.viewmodels.training.scenarios import ScenarioViewModel


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _llama(locale: str = "en") -> TrainingViewModel:
    """Llama 3.1 8B at 4 096 tokens on 8 A100s with ZeRO-1 (nothing typed over the
    derived memory)."""
    vm = TrainingViewModel(QLocale(locale))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_text(F.TARGET, "512")
    vm.set_text(F.GPUS, "8")
    vm.set_text(F.SEQ_LEN, "4096")
    vm.set_choice(Choice.ZERO, ZeroStage.OPTIMIZER)
    return vm


def _per_gpu(vm: TrainingViewModel) -> int:
    plan = vm.plan
    assert plan is not None
    per_gpu = plan.figures.per_gpu_bytes(1)
    assert per_gpu is not None
    return per_gpu


def _files(vm: TrainingViewModel) -> ScenarioViewModel:
    return ScenarioViewModel(vm, CalculatorViewModel(QLocale("en")))


def test_the_framework_is_a_choice_of_three_deepspeed_first(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    assert vm.choice(Choice.FRAMEWORK) is Framework.DEEPSPEED
    assert vm.options(Choice.FRAMEWORK) == [
        (Framework.DEEPSPEED, "DeepSpeed"),
        (Framework.MEGATRON, "Megatron"),
        (Framework.FSDP, "FSDP2 (PyTorch)"),
    ]
    assert vm.texts.choice_label(Choice.FRAMEWORK) == "Framework"
    hint = vm.texts.choice_hint(Choice.FRAMEWORK)
    assert "memory is counted" in hint and "gradients" in hint and "docs/" not in hint
    assert Choice.FRAMEWORK in vm.state.visible
    vm.set_choice(Choice.FRAMEWORK, "horovod")  # not a framework: nothing changes
    assert vm.choice(Choice.FRAMEWORK) is Framework.DEEPSPEED


def test_megatron_counts_the_memory_per_gpu_its_own_way(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    deepspeed = _per_gpu(vm)
    note = vm.state.notes.other.text
    assert "as DeepSpeed counts them" in note and "reserve" not in note
    vm.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    d = vm.description
    assert d is not None and d.framework is Framework.MEGATRON
    megatron = _per_gpu(vm)
    # the fp32 gradient buffer stays whole beside the distributed optimizer: more
    assert megatron > deepspeed
    assert vm.state.notes.other.text == (
        "Model states 60.227 GB (ZeRO-1 over 8 GPUs, as Megatron counts them) + 2.41 GB "
        "allocator reserve + 1 GB overhead."
    )
    vm.set_choice(Choice.FRAMEWORK, Framework.FSDP)
    assert _per_gpu(vm) not in (deepspeed, megatron)
    vm.set_choice(Choice.FRAMEWORK, Framework.DEEPSPEED)
    assert _per_gpu(vm) == deepspeed


def test_sequence_parallelism_waits_for_tensor_parallelism(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    state = vm.check(Choice.SEQUENCE_PARALLEL)
    assert not state.enabled
    assert state.hint.startswith("Megatron's sequence parallelism (--sequence-parallel)")
    assert state.hint.endswith(
        "Off now: Sequence parallelism splits the work of a tensor-parallel group: give a "
        "tensor-parallel size of two or more."
    )
    vm.set_choice(Choice.SEQUENCE_PARALLEL, True)  # chosen, but not used at one GPU
    assert vm.choice(Choice.SEQUENCE_PARALLEL) is True
    d = vm.description
    assert d is not None and not d.sequence_parallel
    vm.set_text(F.TENSOR_PARALLEL, "2")
    state = vm.check(Choice.SEQUENCE_PARALLEL)
    assert state.enabled and "Off now" not in state.hint
    d = vm.description
    assert d is not None and d.sequence_parallel and d.tensor_parallel == 2
    with_sp = _per_gpu(vm)
    vm.set_choice(Choice.SEQUENCE_PARALLEL, False)
    # without it every tensor-parallel GPU keeps the norms' and dropouts' activations whole
    assert _per_gpu(vm) > with_sp
    vm.set_text(F.TENSOR_PARALLEL, "abc")  # a refused size: the box waits again
    assert not vm.check(Choice.SEQUENCE_PARALLEL).enabled


def test_selective_recomputation_is_offered_and_planned(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    assert [data for data, _ in vm.options(Choice.RECOMPUTE)] == [
        Recompute.NONE,
        Recompute.SELECTIVE,
        Recompute.SELECTIVE_OP,
        Recompute.FULL,
    ]
    assert dict(vm.options(Choice.RECOMPUTE))[Recompute.SELECTIVE] == (
        "Selective (attention core, Megatron)"
    )
    vm.set_choice(Choice.ATTENTION, "eager")  # the s² scores selective drops
    vm.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    none = vm.plan
    vm.set_choice(Choice.RECOMPUTE, Recompute.SELECTIVE)
    selective = vm.plan
    vm.set_choice(Choice.RECOMPUTE, Recompute.FULL)
    full = vm.plan
    assert none is not None and selective is not None and full is not None
    assert selective.description.recompute is Recompute.SELECTIVE
    assert full.figures.activation.bytes < selective.figures.activation.bytes  # type: ignore[operator]
    assert selective.figures.activation.bytes < none.figures.activation.bytes  # type: ignore[operator]


def test_a_scenario_keeps_the_framework_sequence_parallelism_and_selective(  # type: ignore[no-untyped-def]
    qapp, tmp_path: Path
) -> None:
    vm = _llama()
    vm.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    vm.set_text(F.TENSOR_PARALLEL, "2")
    vm.set_choice(Choice.SEQUENCE_PARALLEL, True)
    vm.set_choice(Choice.RECOMPUTE, Recompute.SELECTIVE)
    path = tmp_path / "megatron.json"
    assert _files(vm).save(path).ok
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    assert (plan["framework"], plan["sequence_parallel"], plan["recompute"]) == (
        "megatron",
        True,
        "selective",
    )
    opened = TrainingViewModel(QLocale("en"))
    assert _files(opened).open(path).ok
    assert opened.choice(Choice.FRAMEWORK) is Framework.MEGATRON
    assert opened.choice(Choice.SEQUENCE_PARALLEL) is True
    assert opened.choice(Choice.RECOMPUTE) is Recompute.SELECTIVE
    assert opened.description == vm.description
    # and through the settings store
    restored = TrainingViewModel(QLocale("en"))
    assert _files(restored).restore_remembered(_files(vm).remembered())
    assert restored.description == vm.description


def test_sequence_parallelism_is_saved_as_the_plan_uses_it(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_choice(Choice.SEQUENCE_PARALLEL, True)  # at one tensor-parallel GPU: unused
    assert _files(vm).scenario().plan.sequence_parallel is False


def test_an_old_scenario_opens_with_deepspeed(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved = _llama()
    data = json.loads(scenario_io.save(_files(saved).scenario()))
    data["version"] = 6
    del data["plan"]["framework"], data["plan"]["sequence_parallel"]
    del data["plan"]["cpu_memory_gb"]  # version 8
    del data["plan"]["fused_loss"], data["plan"]["master_weights"]  # versions 9, 10
    del data["plan"]["expert_tensor_parallel"]  # version 11
    del data["plan"]["tp_comm_overlap"]  # version 12
    del data["plan"]["grad_reduce_bf16"]  # version 12
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    opened = _llama()
    opened.set_choice(Choice.FRAMEWORK, Framework.FSDP)
    opened.set_text(F.TENSOR_PARALLEL, "2")
    opened.set_choice(Choice.SEQUENCE_PARALLEL, True)
    assert _files(opened).open(path).ok
    assert opened.choice(Choice.FRAMEWORK) is Framework.DEEPSPEED
    assert opened.choice(Choice.SEQUENCE_PARALLEL) is False
    d = opened.description
    assert d is not None and d.framework is Framework.DEEPSPEED and not d.sequence_parallel


UNKNOWN = "has a value this app does not know."


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("framework", "horovod", f"the setting “plan.framework” {UNKNOWN}"),
        ("sequence_parallel", "yes", "the setting “plan.sequence_parallel” has the wrong type."),
        ("recompute", "partial", f"the setting “plan.recompute” {UNKNOWN}"),
    ],
)
def test_a_bad_value_refuses_the_file_and_changes_nothing(  # type: ignore[no-untyped-def]
    qapp, tmp_path: Path, key: str, value: object, said: str
) -> None:
    data = json.loads(scenario_io.save(_files(_llama()).scenario()))
    data["plan"][key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    opened = _llama()
    opened.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    before = opened.description
    outcome = _files(opened).open(path)
    assert not outcome.ok and said in outcome.message
    assert opened.description == before
    # the settings store ignores it the same way
    assert not _files(opened).restore_remembered(json.dumps(data))
    assert opened.description == before


def test_applying_a_description_carries_the_framework(qapp) -> None:  # type: ignore[no-untyped-def]
    """A search's best setup, an alternative or a checked config file: ``apply``."""
    source = _llama()
    source.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    source.set_text(F.TENSOR_PARALLEL, "4")
    source.set_choice(Choice.SEQUENCE_PARALLEL, True)
    source.set_choice(Choice.RECOMPUTE, Recompute.SELECTIVE)
    d = source.description
    assert d is not None
    target = _llama()
    target.apply(d)
    assert target.choice(Choice.FRAMEWORK) is Framework.MEGATRON
    assert target.choice(Choice.SEQUENCE_PARALLEL) is True
    assert target.choice(Choice.RECOMPUTE) is Recompute.SELECTIVE
    assert target.description == d
