"""The "Trainer configs" tab's view-model: the plan's setup as each framework's files,
what a framework cannot carry of the description, and saving the files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.viewmodels.exports import ExportViewModel
from gradacc_desktop.viewmodels.training.fields import Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from tests.planner_setup import one_gpu_llama, training

NOTHING = "Nothing to export yet: the training description has no configuration."


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _exports(vm: TrainingViewModel | None = None) -> ExportViewModel:
    """The exports of a target of 512 on 8 A100s (16 × 4 recommended), or of ``vm``."""
    return ExportViewModel(training() if vm is None else vm)


def test_every_format_has_its_files(qapp) -> None:  # type: ignore[no-untyped-def]
    exports = _exports()
    assert exports.summary() == (
        "Exporting the training description's configuration: "
        "E\u00a0=\u00a016\u00a0×\u00a04\u00a0×\u00a08\u00a0=\u00a0512."
    )
    assert exports.unavailable() == ""
    files = {}
    for fmt, _name in exports.formats():
        exported = exports.exported(fmt)
        assert exported is not None, fmt
        files[fmt] = exported.files
    assert list(files[ExportFormat.DEEPSPEED]) == ["ds_config.json"]
    assert list(files[ExportFormat.MEGATRON]) == ["megatron_args.sh", "launch.sh"]
    assert all(
        "launch.sh" in names for fmt, names in files.items() if fmt is not ExportFormat.DEEPSPEED
    )
    assert exports.formats()[0] == (ExportFormat.DEEPSPEED, "DeepSpeed (ds_config.json)")
    # the files say the plan's batch: DeepSpeed checks b · a · g = train_batch_size
    config = json.loads(exports.text(ExportFormat.DEEPSPEED) or "")
    assert config["train_batch_size"] == 512
    assert config["train_micro_batch_size_per_gpu"] == 16
    assert config["gradient_accumulation_steps"] == 4
    assert config["zero_optimization"]["stage"] == 0
    assert config["bf16"] == {"enabled": True}
    hf = exports.text(ExportFormat.HF) or ""
    assert "per_device_train_batch_size=16," in hf and "gradient_accumulation_steps=4," in hf
    assert "torchrun --nnodes 1 --nproc_per_node 8 train.py" in hf
    assert all(exports.notes(fmt) == () for fmt, _name in exports.formats())


def test_the_files_follow_the_description(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    exports = _exports(vm)
    seen: list[object] = []
    exports.stateChanged.connect(seen.append)
    vm.set_choice(Choice.RECOMMEND, False)
    vm.set_text(F.MICRO_BATCH, "8")
    vm.set_choice(Choice.ZERO, ZeroStage.GRADIENTS)
    vm.set_choice(Choice.OFFLOAD, Offload.OPTIMIZER)
    assert len(seen) == 4 and seen[-1] is exports.state
    config = json.loads(exports.text(ExportFormat.DEEPSPEED) or "")
    assert (config["train_micro_batch_size_per_gpu"], config["gradient_accumulation_steps"]) == (
        8,
        8,
    )
    assert config["zero_optimization"]["stage"] == 2
    assert config["zero_optimization"]["offload_optimizer"]["device"] == "cpu"


def test_what_a_format_cannot_carry_is_said(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_choice(Choice.METHOD, Method.LORA)
    exports = _exports(vm)
    assert exports.notes(ExportFormat.MEGATRON) == (
        "Megatron-LM trains every parameter: it has no LoRA. These arguments train the whole "
        "model; use the hf, hf-deepspeed, accelerate or torchrun export for LoRA.",
    )
    sequence, lora = exports.notes(ExportFormat.DEEPSPEED)
    assert sequence.startswith("The model and the sequence length live in your training")
    assert "4096 tokens long" in sequence
    assert lora.startswith("LoRA lives in your training script, not in ds_config.json")
    hf = exports.exported(ExportFormat.HF)
    assert hf is not None and "adapter_config.json" in hf.files
    adapter = json.loads(hf.files["adapter_config.json"])
    assert (adapter["peft_type"], adapter["r"]) == ("LORA", 16)
    assert adapter["target_modules"] == ["q_proj", "v_proj"]  # query and value, by default
    vm.set_choice(Choice.METHOD, Method.FULL)  # a full fine-tune: no word of LoRA
    (full,) = exports.notes(ExportFormat.DEEPSPEED)
    assert full == sequence


def test_nothing_to_export_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    exports = _exports(vm)
    vm.set_text(F.GPUS, "")
    assert exports.summary() == NOTHING and exports.unavailable() == NOTHING
    assert exports.exported(ExportFormat.HF) is None and exports.text(ExportFormat.HF) is None
    assert exports.notes(ExportFormat.HF) == ()
    # the Llama on one A100: nothing fits, no configuration to export
    nothing_fits = _exports(one_gpu_llama())
    said = "Nothing to export: not even a micro-batch of 1 fits in a GPU's memory"
    assert nothing_fits.unavailable().startswith(said)
    assert nothing_fits.summary().startswith(said)
    assert nothing_fits.text(ExportFormat.DEEPSPEED) is None


def test_a_layout_no_framework_runs_is_not_exported(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    vm.set_text(F.NODES, "3")
    exports = _exports(vm)
    assert exports.unavailable() == "8 GPUs cannot be split evenly over 3 nodes."
    assert exports.text(ExportFormat.DEEPSPEED) is None
    outcome = exports.save(ExportFormat.DEEPSPEED, tmp_path)
    assert not outcome.ok and outcome.message == "8 GPUs cannot be split evenly over 3 nodes."
    assert list(tmp_path.iterdir()) == []


def test_save_writes_every_file(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    exports = _exports()
    folder = tmp_path / "run"
    folder.mkdir()
    outcome = exports.save(ExportFormat.HF_DEEPSPEED, folder)
    assert outcome.ok
    assert outcome.message == "Saved ds_config.json, train.py, launch.sh in “run”."
    exported = exports.exported(ExportFormat.HF_DEEPSPEED)
    assert exported is not None
    for name, content in exported.files.items():
        assert (folder / name).read_text(encoding="utf-8") == content
    if os.name == "posix":  # a launch script is meant to be run
        assert (folder / "launch.sh").stat().st_mode & 0o111
        assert not (folder / "train.py").stat().st_mode & 0o111


def test_a_failed_save_says_what_was_saved(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    exports = _exports()
    (tmp_path / "train.py").mkdir()  # the second file cannot be written
    outcome = exports.save(ExportFormat.HF_DEEPSPEED, tmp_path)
    assert not outcome.ok
    assert outcome.message.startswith(f"Could not save “train.py” in “{tmp_path.name}”: ")
    assert outcome.message.endswith(" Already saved: ds_config.json.")
    assert (tmp_path / "ds_config.json").is_file() and not (tmp_path / "launch.sh").exists()


def test_portuguese_summary(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = TrainingViewModel(QLocale("pt_BR"))
    vm.set_text(F.TARGET, "2.048")
    vm.set_choice(Choice.RECOMMEND, False)
    vm.set_text(F.MICRO_BATCH, "1")
    exports = _exports(vm)
    assert exports.summary() == (
        "Exportando a configuração da descrição do treino: "
        "E\u00a0=\u00a01\u00a0×\u00a02.048\u00a0×\u00a01\u00a0=\u00a02.048."
    )
    config = json.loads(exports.text(ExportFormat.DEEPSPEED) or "")
    assert config["gradient_accumulation_steps"] == 2048  # a file is never localised


def test_a_layout_no_framework_runs_exports_nothing(qapp) -> None:  # type: ignore[no-untyped-def]
    training = TrainingViewModel(QLocale("en"))
    training.set_text(F.GPUS, "8")
    training.set_text(F.NODES, "3")  # 8 GPUs cannot be split evenly over 3 nodes
    vm = ExportViewModel(training)
    assert vm.summary() == "Nothing to export: no framework runs this layout."
    assert vm.unavailable() == "8 GPUs cannot be split evenly over 3 nodes."
