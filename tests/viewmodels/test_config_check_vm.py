""" "Check my config": a trainer's config file read, put into the training description
and described in words, in the window's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.viewmodels.config_check import CheckViewModel
from gradacc_desktop.viewmodels.training.fields import Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

# ZeRO-3 with the optimizer offloaded, 2 × 32 on 8 GPUs (the GPUs derived: 512 / 64)
ZERO3: dict[str, Any] = {
    "train_batch_size": 512,
    "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 32,
    "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}},
    "bf16": {"enabled": True},
    "gradient_clipping": "auto",
}
# DeepSpeed stops: 3 × 4 × 8 = 96, not 100; and a stage that does not exist
REFUSED: dict[str, Any] = {
    "train_batch_size": 100,
    "train_micro_batch_size_per_gpu": 3,
    "gradient_accumulation_steps": 4,
    "zero_optimization": {"stage": 9},
    "fp16": {"enabled": True},
}


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _llama(language: str = "en") -> TrainingViewModel:
    vm = TrainingViewModel(QLocale(language))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_text(F.SEQ_LEN, "4096")
    return vm


def _file(folder: Path, config: dict[str, Any], name: str = "ds_config.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_a_deepspeed_json_fills_the_description(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    outcome = CheckViewModel(vm).check(_file(tmp_path, ZERO3))
    assert outcome.ok and outcome.message == "Configuration read from “ds_config.json”."
    assert outcome.setup is not None and outcome.config is not None
    lines = outcome.report.splitlines()
    assert lines[:10] == [
        "“ds_config.json”: DeepSpeed configuration (JSON).",
        # the GPUs the report is for, and whose count that is
        "Checked on 8 GPUs in all: what its train_batch_size, micro-batch and accumulation "
        "steps imply.",
        "DeepSpeed would run it as written.",
        "Effective batch 512 = 2 × 32 × 8 GPUs, ZeRO-3, bf16, offload: the optimizer.",
        "Derived: GPUs = train_batch_size / (micro-batch x accumulation steps) = "
        "512 / (2 x 32) = 8.",
        # the core's wording, the same gradacc check prints
        "DeepSpeed accepts train_batch_size 512 = 2 x 32 x 8 GPU(s).",
        "Megatron accepts --global-batch-size 512 --micro-batch-size 2 and derives 32 "
        "accumulation step(s).",
        'Filled in by the trainer ("auto"): gradient_clipping.',
        "Put into the training description. Its micro-batch and accumulation steps stay "
        "the file's when you change the GPUs, and the effective batch follows, as the "
        "framework would run the file.",
        # the model and card the figures below are for
        "For llama-3.1-8b on 8 × NVIDIA A100 SXM4 80GB:",
    ]
    # what it needs on the description's card: ZeRO-3 with the optimizer offloaded
    # keeps 4 × 525,336,576 (the largest layer, gathered) + 2 × 8,030,261,248 / 8
    # bytes of states, plus 1 GB of overhead
    assert lines[10].startswith("Fits in GPU memory: Activations 2 × ")
    assert ", plus 5.109 GB of model states and overhead: " in lines[10]
    assert lines[10].endswith(" of 80 GB.")
    # the time of one optimizer step on those cards, as the planner times it
    assert lines[11].startswith("Time: ") and " s per optimizer step, " in lines[11]
    assert lines[11].endswith(" tokens/s.")
    assert len(lines) == 12
    d = vm.description
    assert d is not None
    assert (d.target_batch, d.micro_batch, d.gpus) == (512, 2, 8)
    assert (d.zero_stage, d.offload, d.precision) == (
        ZeroStage.WEIGHTS,
        Offload.OPTIMIZER,
        Precision.BF16,
    )
    assert vm.choice(Choice.RECOMMEND) is False and vm.shown_text(F.MICRO_BATCH) == "2"
    assert vm.choice(Choice.MODEL) == "llama-3.1-8b"  # the file does not name a model


def test_in_portuguese_the_reasons_are_portuguese(qapp, catalogue, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = _llama("pt_BR")
    vm.set_text(F.GPUS, "8")
    before = vm.description
    outcome = CheckViewModel(vm).check(_file(tmp_path, REFUSED))
    assert outcome.ok and outcome.setup is None
    assert outcome.message == "“ds_config.json” lido; a descrição precisa de mais para usá-lo."
    report = outcome.report.splitlines()
    assert report.pop(1) == (
        "Verificado em 8 GPUs no total: as da descrição do treino (o arquivo não diz)."
    )
    assert report[0] == "“ds_config.json”: configuração do DeepSpeed (JSON)."
    # the framework's refusals first
    assert report[1] == "O DeepSpeed o recusaria:"
    assert report[2].startswith("• O DeepSpeed recusa train_batch_size 100: 3 (micro-lote) x 4 ")
    assert report[3] == "• zero_optimization.stage = 9: deve ser 0, 1, 2 ou 3"
    report = report[:1] + report[4:]
    assert report[1] == (
        "Valores lidos: micro_batch = 3, accumulation_steps = 4, train_batch_size = 100, "
        "precision = fp16."
    )
    # DeepSpeed's refusal is said once, first; Megatron's verdict follows
    assert report[2] == (
        "O Megatron recusa --global-batch-size 100 --micro-batch-size 3 em 8 GPU(s) de "
        "paralelismo de dados: o lote global não é múltiplo de micro-lote x GPUs = 24."
    )
    assert report[3].startswith("Não colocado na descrição do treino: O DeepSpeed recusa ")
    assert len(report) == 4
    assert vm.description == before  # nothing applied


def test_in_portuguese_a_file_that_fits_says_so(qapp, catalogue, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = _llama("pt_BR")
    outcome = CheckViewModel(vm).check(_file(tmp_path, ZERO3))
    assert outcome.message == "Configuração lida de “ds_config.json”."
    lines = outcome.report.splitlines()
    assert lines.pop(1).startswith("Verificado em 8 GPUs no total: ")
    assert lines[1] == "O DeepSpeed o executaria como está escrito."
    assert lines[2].startswith("Lote efetivo 512 = 2 × 32 × 8 GPUs")
    assert lines[4:6] == [
        "O DeepSpeed aceita train_batch_size 512 = 2 x 32 x 8 GPU(s).",
        "O Megatron aceita --global-batch-size 512 --micro-batch-size 2 e deriva 32 passo(s) "
        "de acumulação.",
    ]
    assert lines[-4].startswith("Colocado na descrição do treino. O micro-lote e os passos ")
    assert lines[-3] == "Para llama-3.1-8b em 8 × NVIDIA A100 SXM4 80GB:"
    assert lines[-2].startswith("Cabe na memória da GPU: Ativações 2 × ")
    assert ", mais 5,109 GB de estados do modelo e sobrecarga: " in lines[-2]
    assert lines[-1].startswith("Tempo: ") and " s por passo do otimizador, " in lines[-1]


def test_a_file_that_is_not_a_config_is_refused(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    before = vm.description
    path = tmp_path / "ds_config.json"
    path.write_text("{ not json", encoding="utf-8")
    outcome = CheckViewModel(vm).check(path)
    assert not outcome.ok and outcome.setup is None and outcome.config is None
    assert outcome.message.startswith("Could not read “ds_config.json”: ")
    assert "not valid JSON" in outcome.message
    assert outcome.report == outcome.message
    assert vm.description == before


def test_a_file_without_the_gpus_uses_the_descriptions(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_text(F.GPUS, "4")
    config = {
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 2,
        "zero_optimization": {"stage": 2},
        "bf16": {"enabled": True},
    }
    outcome = CheckViewModel(vm).check(_file(tmp_path, config))
    assert outcome.setup is not None
    lines = outcome.report.splitlines()
    assert (
        lines[1] == "Checked on 4 GPUs in all: the training description's (the file does not say)."
    )
    assert "Effective batch 32 = 4 × 2 × 4 GPUs" in lines[3]
    d = vm.description
    assert d is not None and (d.target_batch, d.gpus, d.zero_stage) == (32, 4, ZeroStage.GRADIENTS)
    # 4 × 31.7 GB of activations do not fit an 80 GB card: the report says so
    assert outcome.report.splitlines()[-2].startswith(
        "Does not fit in GPU memory: Activations 4 × "
    )


def test_an_axolotl_file_names_the_method_and_the_model(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_text(F.GPUS, "2")
    path = tmp_path / "qlora.yml"
    path.write_text(
        "base_model: meta-llama/Llama-3.1-8B\n"
        "adapter: qlora\n"
        "load_in_4bit: true\n"
        "lora_r: 32\n"
        "lora_target_modules: [q_proj, k_proj, v_proj, o_proj]\n"
        "sequence_len: 2048\n"
        "micro_batch_size: 2\n"
        "gradient_accumulation_steps: 4\n"
        "bf16: true\n",
        encoding="utf-8",
    )
    outcome = CheckViewModel(vm).check(path)
    assert outcome.setup is not None, outcome.report
    assert outcome.report.splitlines()[0] == "“qlora.yml”: axolotl configuration (YAML)."
    d = vm.description
    assert d is not None
    assert (d.method, d.lora_rank, d.seq_len) == (Method.QLORA, 32, 2048)
    # Llama's four attention projections: the description's own choice of them
    assert vm.choice(Choice.LORA_TARGETS) is LoraTargets.ATTENTION
    assert (d.target_batch, d.micro_batch, d.gpus) == (16, 2, 2)  # 2 × 4 × 2
    assert vm.choice(Choice.MODEL) == "llama-3.1-8b"
    assert vm.shown_text(F.SEQ_LEN) == "2,048" and vm.shown_text(F.LORA_RANK) == "32"


def test_a_refused_entry_in_the_description_puts_nothing_in(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_text(F.TARGET, "")
    outcome = CheckViewModel(vm).check(_file(tmp_path, ZERO3))
    assert not outcome.ok and outcome.setup is None
    assert outcome.message == (
        "“ds_config.json” read, but not used: correct the training description first."
    )
    assert "Put into the training description." not in outcome.report
    assert outcome.report.endswith("Correct the training description, then check the file again.")
    assert vm.choice(Choice.ZERO) is ZeroStage.NONE  # nothing was applied


def test_an_accelerate_file_gives_the_gpus_and_setup_not_the_batch(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_text(F.TARGET, "64")
    before = vm.description
    assert before is not None
    path = tmp_path / "zero3.yaml"
    path.write_text(
        "compute_environment: LOCAL_MACHINE\n"
        "distributed_type: DEEPSPEED\n"
        "deepspeed_config:\n"
        "  offload_optimizer_device: cpu\n"
        "  offload_param_device: none\n"
        "  zero_stage: 3\n"
        "mixed_precision: bf16\n"
        "num_machines: 1\n"
        "num_processes: 4\n",
        encoding="utf-8",
    )
    outcome = CheckViewModel(vm).check(path)
    assert outcome.message == "GPUs and setup read from “zero3.yaml”."
    lines = outcome.report.splitlines()
    assert lines[1] == "Checked on 4 GPUs in all, as the file says."
    assert lines[2] == "accelerate would run it as written."
    assert (
        "Its GPUs, parallel sizes and setup were put into the training description; the "
        "file does not give the batch (micro-batch, accumulation steps): the training "
        "script's arguments do, so the description keeps its own."
    ) in lines
    d = vm.description
    assert d is not None
    assert (d.gpus, d.zero_stage, d.offload, d.precision) == (
        4,
        ZeroStage.WEIGHTS,
        Offload.OPTIMIZER,
        Precision.BF16,
    )
    # the batch is the description's own
    assert (d.target_batch, d.micro_batch) == (64, before.micro_batch)
    assert lines[-3] == "For llama-3.1-8b on 4 × NVIDIA A100 SXM4 80GB:"
    assert lines[-1].startswith("Time: ")


def test_parallel_sizes_replicas_and_tokens_per_step(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_text(F.GPUS, "8")
    path = tmp_path / "tp.yml"
    path.write_text(
        "base_model: meta-llama/Llama-3.1-8B\n"
        "micro_batch_size: 2\n"
        "gradient_accumulation_steps: 4\n"
        "sequence_len: 2048\n"
        "tensor_parallel_size: 2\n"
        "bf16: true\n",
        encoding="utf-8",
    )
    outcome = CheckViewModel(vm).check(path)
    lines = outcome.report.splitlines()
    # axolotl shards the 4 replicas left by tensor parallelism (dp_shard_size)
    assert "8 GPUs: tensor 2 × sharded 4 → 4 data-parallel replicas." in lines
    # 2 × 4 × 4 replicas = 32 samples of 2,048 tokens
    # not packed: each sample is cut or padded to 2,048 tokens
    assert (
        "At most 65,536 tokens per optimizer step (32 samples × 2,048; the samples are not "
        "packed, so shorter ones are padded)."
    ) in lines
    d = vm.description
    assert d is not None
    assert (d.gpus, d.tensor_parallel, d.target_batch, d.seq_len) == (4, 2, 32, 2048)
    assert d.method is Method.FULL  # axolotl without an adapter trains every parameter


def test_unknown_keys_and_files_not_found_are_named(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    config = {**ZERO3, "zero_optimisation": {"stage": 2}}
    outcome = CheckViewModel(vm).check(_file(tmp_path, config))
    assert (
        "Unknown key: zero_optimisation: DeepSpeed ignores keys it does not know "
        "(did you mean zero_optimization?)"
    ) in outcome.report.splitlines()
    assert outcome.setup is not None  # DeepSpeed runs it: the description takes it

    before = vm.description
    path = tmp_path / "lora.yml"
    path.write_text(
        "micro_batch_size: 1\ngradient_accumulation_steps: 8\nbf16: true\n"
        "deepspeed: deepspeed_configs/zero3_bf16.json\n",
        encoding="utf-8",
    )
    outcome = CheckViewModel(vm).check(path)
    lines = outcome.report.splitlines()
    assert (
        "Not found: deepspeed = deepspeed_configs/zero3_bf16.json; what it sets stays unknown."
    ) in lines
    # the ZeRO stage the missing file would set is missing, never ZeRO-0
    assert lines[-1] == "Not put into the training description: ZeRO stage; offload."
    assert vm.description == before


def test_a_file_that_does_not_name_the_machines_keeps_the_descriptions(
    qapp, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    vm = _llama()
    vm.set_text(F.GPUS, "16")
    vm.set_text(F.NODES, "2")
    config = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4}
    outcome = CheckViewModel(vm).check(_file(tmp_path, config))
    assert "Effective batch 128 = 2 × 4 × 16 GPUs, ZeRO-0, fp32, offload: none." in (
        outcome.report.splitlines()
    )
    d = vm.description
    assert d is not None and (d.gpus, d.nodes, d.target_batch) == (16, 2, 128)
    # an accelerate file names them: its machines win
    path = tmp_path / "one.yaml"
    path.write_text(
        "distributed_type: MULTI_GPU\nnum_processes: 4\nnum_machines: 1\nmixed_precision: bf16\n",
        encoding="utf-8",
    )
    CheckViewModel(vm).check(path)
    d = vm.description
    assert d is not None and (d.gpus, d.nodes) == (4, 1)


def test_command_line_values_stay_plain_digits_in_portuguese(
    qapp, catalogue, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = _llama("pt_BR")
    config = {"train_batch_size": 1024, "train_micro_batch_size_per_gpu": 4}
    outcome = CheckViewModel(vm).check(
        _file(tmp_path, {**config, "gradient_accumulation_steps": 32})
    )
    # a flag's value is typed into a command line: 1024, never "1.024"
    assert (
        "O Megatron aceita --global-batch-size 1024 --micro-batch-size 4 e deriva 32 passo(s) "
        "de acumulação."
    ) in outcome.report.splitlines()


# micro-batch 4 and 8 accumulation steps, the GPUs left to the launch
PAIR: dict[str, Any] = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 8,
    "bf16": {"enabled": True},
}


def test_the_files_own_pair_stays_when_the_gpus_change(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))  # one GPU, no model yet
    check = CheckViewModel(vm)
    reports: list[str] = []
    check.reportChanged.connect(reports.append)
    outcome = check.check(_file(tmp_path, PAIR))
    assert outcome.report.splitlines()[1] == (
        "Checked on 1 GPU in all: the training description's (the file does not say)."
    )
    assert "Effective batch 32 = 4 × 8 × 1 GPU," in outcome.report
    # no model yet: the report says what is missing
    assert "Memory per GPU: not known until the description has a model" in outcome.report
    vm.set_text(F.GPUS, "4")
    d = vm.description
    assert d is not None and (d.target_batch, d.micro_batch, d.gpus) == (128, 4, 4)
    assert vm.shown_text(F.TARGET) == "128" and vm.shown_text(F.MICRO_BATCH) == "4"
    # the batch says whose values they are
    assert vm.state.batch_note == (
        "From “ds_config.json”: micro-batch 4 and 8 accumulation steps, as the file sets "
        "them; the effective batch follows the data-parallel GPUs (4 × 8 × 4 = 128). Type a "
        "target or a micro-batch to set your own."
    )
    # the report followed, without checking the file again
    lines = check.report.splitlines()
    assert lines[1] == (
        "Checked on 4 GPUs in all: the training description's (the file does not say)."
    )
    assert "Effective batch 128 = 4 × 8 × 4 GPUs, ZeRO-0, bf16, offload: none." in lines
    assert reports[-1] == check.report
    # and it follows the model chosen afterwards
    vm.set_choice(Choice.MODEL, "llama-3.2-1b")
    assert "For llama-3.2-1b on 4 × NVIDIA A100 SXM4 80GB:" in check.report
    assert "Memory per GPU: not known" not in check.report
    assert " in GPU memory: Activations 4 × " in check.report


def test_deepspeed_derives_the_steps_on_the_new_gpus(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    config = {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4}
    CheckViewModel(vm).check(_file(tmp_path, config))
    d = vm.description
    assert d is not None and (d.target_batch, d.micro_batch, d.gpus) == (32, 4, 1)
    # train_batch_size ÷ (micro-batch × GPUs): 32 ÷ (4 × 4) = 2 steps, the batch stays 32
    vm.set_text(F.GPUS, "4")
    d = vm.description
    assert d is not None and (d.target_batch, d.micro_batch, d.gpus) == (32, 4, 4)
    assert "2 accumulation steps" in vm.state.batch_note


def test_typing_a_target_makes_the_batch_the_users(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    check = CheckViewModel(vm)
    check.check(_file(tmp_path, PAIR))
    vm.set_text(F.TARGET, "64")
    assert vm.state.batch_note == ""
    vm.set_text(F.GPUS, "2")
    d = vm.description
    assert d is not None and (d.target_batch, d.micro_batch) == (64, 4)  # 4 × 8 × 2
    assert "Put into the training description." in check.report.splitlines()


def test_a_liger_axolotl_file_with_an_absolute_deepspeed_path(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The file's fused loss reaches the description, and the DeepSpeed file it names by
    its full path is said once, with the key that names it."""
    vm = TrainingViewModel(QLocale("en"))
    vm.set_text(F.GPUS, "8")
    zero3 = _file(tmp_path, ZERO3, "zero3.json")
    path = tmp_path / "liger.yml"
    path.write_text(
        "base_model: meta-llama/Llama-3.1-8B\n"
        "plugins:\n  - axolotl.integrations.liger.LigerPlugin\n"
        "liger_fused_linear_cross_entropy: true\n"
        "sequence_len: 32768\n"
        "micro_batch_size: 1\n"
        "gradient_accumulation_steps: 4\n"
        "bf16: true\n"
        "attn_implementation: flash_attention_3\n"
        f"deepspeed: {zero3}\n",
        encoding="utf-8",
    )
    outcome = CheckViewModel(vm).check(path)
    lines = outcome.report.splitlines()
    assert f"Read {zero3}, which deepspeed names." in lines
    assert (
        "From the file as well: 32,768 tokens, no recomputation, FlashAttention 3/4, "
        "the fused loss (Liger)." in lines
    )
    d = vm.description
    assert d is not None and d.fused_loss and d.seq_len == 32768
    assert vm.choice(Choice.FUSED_LOSS) is True
    assert vm.choice(Choice.ATTENTION) is AttentionKernel.FLASH
