"""Reading LLaMA-Factory YAMLs as LLaMA-Factory 0.9.5 reads them (its Trainer keys as
transformers does: see test_config_trainer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import Adapter, ConfigKind
from gradacc_desktop.core.memory.setup import Precision
from gradacc_desktop.core.precision import MasterWeights
from tests.core.test_config_trainer import read, unknown, unread, write

# --------------------------------------------------------------------------- LLaMA-Factory


def test_llama_factory_defaults(tmp_path: Path) -> None:
    config = read(tmp_path, "lf.yaml", {"model_name_or_path": "m", "stage": "sft"})
    assert config.kind is ConfigKind.LLAMA_FACTORY
    assert (config.micro_batch, config.accumulation_steps) == (8, 1)
    assert config.precision is Precision.FP32
    assert config.adapter is Adapter.LORA  # finetuning_type "lora"
    assert config.lora_rank == 8
    assert config.lora_targets == ("all-linear",)  # lora_target "all"
    assert config.sequence_length == 2048  # cutoff_len
    assert config.checkpointing is True
    assert {f for f, _ in config.defaults} == {
        "micro_batch",
        "accumulation_steps",
        "precision",
        "adapter",
        "lora_rank",
        "lora_targets",
        "sequence_length",
        "checkpointing",
    }
    assert config.unread == () and config.unknown_keys == ()


def test_llama_factory_every_key(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "lf.yaml",
        {
            "model_name_or_path": "meta-llama/Meta-Llama-3-8B-Instruct",
            "stage": "sft",
            "finetuning_type": "lora",
            "lora_rank": 16,
            "lora_target": "q_proj, v_proj",
            "quantization_bit": 4,
            "cutoff_len": 4096,
            "per_device_train_batch_size": 2,
            "gradient_accumulation_steps": 8,
            "bf16": True,
            "disable_gradient_checkpointing": True,
        },
    )
    assert config.adapter is Adapter.QLORA and config.base_4bit is True
    assert config.lora_rank == 16 and config.lora_targets == ("q_proj", "v_proj")
    assert config.sequence_length == 4096
    assert (config.micro_batch, config.accumulation_steps) == (2, 8)
    assert config.precision is Precision.BF16
    assert config.checkpointing is False
    assert config.defaults == ()
    assert config.base_model == "meta-llama/Meta-Llama-3-8B-Instruct"


def test_llama_factory_quantization(tmp_path: Path) -> None:
    eight = read(
        tmp_path, "a.yaml", {"model_name_or_path": "m", "stage": "sft", "quantization_bit": 8}
    )
    assert eight.base_8bit is True and eight.adapter is Adapter.LORA
    # the older method name matches none of QuantizationMethod's: nothing is quantized
    old = read(
        tmp_path,
        "b.yaml",
        {
            "model_name_or_path": "m",
            "stage": "sft",
            "quantization_bit": 4,
            "quantization_method": "bitsandbytes",
        },
    )
    assert old.base_4bit is None and old.adapter is Adapter.LORA
    assert unread(old)["quantization_method"][1] is False
    three = read(
        tmp_path, "c.yaml", {"model_name_or_path": "m", "stage": "sft", "quantization_bit": 3}
    )
    assert unread(three)["quantization_bit"][1] is True  # bitsandbytes: 4 or 8
    full = read(
        tmp_path,
        "d.yaml",
        {
            "model_name_or_path": "m",
            "stage": "sft",
            "quantization_bit": 4,
            "finetuning_type": "full",
        },
    )
    assert unread(full)["quantization_bit"][1] is True  # _verify_model_args
    hqq = read(
        tmp_path,
        "e.yaml",
        {
            "model_name_or_path": "m",
            "stage": "sft",
            "quantization_bit": 4,
            "quantization_method": "hqq",
        },
    )
    assert unread(hqq)["quantization_method"][1] is False and hqq.base_4bit is None


def test_llama_factory_finetuning_types(tmp_path: Path) -> None:
    full = read(
        tmp_path, "a.yaml", {"model_name_or_path": "m", "stage": "sft", "finetuning_type": "full"}
    )
    assert full.adapter is None and full.lora_rank is None
    freeze = read(
        tmp_path, "b.yaml", {"model_name_or_path": "m", "stage": "sft", "finetuning_type": "freeze"}
    )
    assert unread(freeze)["finetuning_type"][1] is False and freeze.adapter is None
    wrong = read(
        tmp_path, "c.yaml", {"model_name_or_path": "m", "stage": "sft", "finetuning_type": "qlora"}
    )
    assert unread(wrong)["finetuning_type"][1] is True


def test_llama_factory_refusals(tmp_path: Path) -> None:
    config = read(tmp_path, "lf.yaml", {"stage": "sft", "lora_rnak": 8, "fp16": True, "bf16": True})
    assert unread(config)["model_name_or_path"][1] is True
    assert unknown(config)["lora_rnak"] == ("lora_rank", True)
    assert unread(config)["fp16"][1] is True


def test_llama_factory_packing_shortens_the_cutoff(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "lf.yaml",
        {"model_name_or_path": "m", "stage": "sft", "cutoff_len": 1024, "packing": True},
    )
    assert config.sequence_length == 1023
    neat = read(
        tmp_path, "n.yaml", {"model_name_or_path": "m", "stage": "sft", "neat_packing": True}
    )
    assert neat.sequence_length == 2047


def test_llama_factory_checkpointing(tmp_path: Path) -> None:
    both = read(
        tmp_path,
        "lf.yaml",
        {
            "model_name_or_path": "m",
            "stage": "sft",
            "disable_gradient_checkpointing": True,
            "gradient_checkpointing": True,
        },
    )
    assert both.checkpointing is True  # the Trainer enables it for its own flag


def test_llama_factory_pure_bf16(tmp_path: Path) -> None:
    config = read(
        tmp_path, "lf.yaml", {"model_name_or_path": "m", "stage": "sft", "pure_bf16": True}
    )
    # the model in bf16 without AMP: no master copy, the optimizer's states in bf16
    assert config.precision is Precision.BF16 and "precision" not in config.unresolved
    assert config.master_weights is MasterWeights.NONE
    assert "precision" not in [f for f, _ in config.defaults]
    assert ("master_weights", "pure_bf16") in config.keys
    write(tmp_path, "z3.json", {"zero_optimization": {"stage": 3}})
    zero3 = read(
        tmp_path,
        "z.yaml",
        {"model_name_or_path": "m", "stage": "sft", "pure_bf16": True, "deepspeed": "z3.json"},
    )
    assert ("pure_bf16", True) in [(u.key, u.refused) for u in zero3.unread]
    eight = read(
        tmp_path,
        "e.yaml",
        {"model_name_or_path": "m", "stage": "sft", "quantization_bit": 8, "deepspeed": "z3.json"},
    )
    assert unread(eight)["quantization_bit"][1] is True


def test_cli_json_for_llama_factory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "lf.yaml",
        {
            "model_name_or_path": "m",
            "stage": "sft",
            "per_device_train_batch_size": 1,
            "gradient_accumulation_steps": 8,
            "bf16": True,
        },
    )
    assert main(["check", str(path), "--json", "--world-size", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "llama-factory"
    assert data["effective_batch"] == 32
    assert data["setup"]["precision"] == "bf16"
    assert data["values"]["sequence_length"] == 2048
    assert data["tokens_per_step"] == 32 * 2048
