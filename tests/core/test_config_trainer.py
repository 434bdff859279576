"""Reading Hugging Face TrainingArguments JSONs, TRL recipe YAMLs and LLaMA-Factory YAMLs
as transformers 5.24, TRL 1.16 and LLaMA-Factory 0.9.5 read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import (
    Adapter,
    ConfigKind,
    ImportedConfig,
    read_config,
)
from gradacc_desktop.core.frameworks.config_import.trainer_keys import (
    LLAMA_FACTORY_KEYS,
    TRAINING_ARGS,
    TRL_MODEL,
    TRL_SFT,
)
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage


def write(folder: Path, name: str, content: dict[str, Any] | str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        text = content
    elif name.endswith(".json"):
        text = json.dumps(content)
    else:
        text = yaml.safe_dump(content, sort_keys=False)
    path.write_text(text, "utf-8")
    return path


def read(folder: Path, name: str, content: dict[str, Any] | str) -> ImportedConfig:
    return read_config(write(folder, name, content))


def unread(config: ImportedConfig) -> dict[str, tuple[str, bool]]:
    return {u.key: (u.reason, u.refused) for u in config.unread}


def unknown(config: ImportedConfig) -> dict[str, tuple[str | None, bool]]:
    return {u.key: (u.suggestion, u.refused) for u in config.unknown_keys}


def refusals(config: ImportedConfig) -> list[str]:
    return [u.key for u in config.unread if u.refused] + [
        u.key for u in config.unknown_keys if u.refused
    ]


# --------------------------------------------------------------------------- the key sets


def test_the_key_sets_are_the_frameworks_fields() -> None:
    # spot checks; the trainer tier compares them with the installed dataclasses
    assert {"per_device_train_batch_size", "activation_checkpointing", "deepspeed"} <= (
        TRAINING_ARGS
    )
    assert "warmup_ratio" not in TRAINING_ARGS  # removed by transformers 5.x
    assert {"use_peft", "lora_r", "load_in_4bit", "dtype"} <= TRL_MODEL
    assert "torch_dtype" not in TRL_MODEL
    assert {"max_length", "packing"} <= TRL_SFT
    assert "max_seq_length" not in TRL_SFT
    # LLaMA-Factory's TrainingArguments on transformers 5.6: warmup_ratio still there
    assert {"cutoff_len", "lora_target", "warmup_ratio", "overwrite_output_dir"} <= (
        LLAMA_FACTORY_KEYS
    )
    assert "activation_checkpointing" not in LLAMA_FACTORY_KEYS


# --------------------------------------------------------------------------- TrainingArguments


def test_training_arguments_json_every_key(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "args.json",
        {
            "output_dir": "out",
            "per_device_train_batch_size": 4,
            "gradient_accumulation_steps": 16,
            "fp16": True,
            "tf32": True,
            "gradient_checkpointing": True,
        },
    )
    assert config.kind is ConfigKind.TRAINER
    assert (config.micro_batch, config.accumulation_steps) == (4, 16)
    assert config.precision is Precision.FP16
    assert config.checkpointing is True
    assert config.key_of("checkpointing") == "gradient_checkpointing"
    assert config.defaults == ()
    assert config.unread == () and config.unknown_keys == ()
    assert config.sequence_length is None  # TrainingArguments has no sequence length
    d = config.derived(4)
    assert d.effective_batch == 4 * 16 * 4
    setup, missing = config.setup(4)
    assert missing == [] and setup is not None
    assert setup.zero_stage is ZeroStage.NONE and setup.precision is Precision.FP16


def test_training_arguments_defaults(tmp_path: Path) -> None:
    # transformers 5.24 TrainingArguments: per_device_train_batch_size 8,
    # gradient_accumulation_steps 1, bf16 and fp16 False, no gradient checkpointing
    config = read(tmp_path, "args.json", {"num_train_epochs": 3})
    assert (config.micro_batch, config.accumulation_steps) == (8, 1)
    assert config.precision is Precision.FP32
    assert config.checkpointing is False
    assert config.key_of("micro_batch") is None  # not in the file
    fields = [f for f, _ in config.defaults]
    assert fields == ["micro_batch", "accumulation_steps", "precision", "checkpointing"]
    d = config.derived(2)
    assert d.effective_batch == 16
    assert {"micro_batch", "accumulation_steps"} <= set(d.derived)
    assert any("per_device_train_batch_size is not set" in n for n in d.notes)


def test_bf16_and_fp16_both_on_is_refused(tmp_path: Path) -> None:
    # training_args.py _validate_args(): "At most one of fp16 and bf16 can be True"
    config = read(
        tmp_path, "args.json", {"per_device_train_batch_size": 2, "bf16": True, "fp16": True}
    )
    assert config.precision is None
    assert "precision" in config.unresolved
    assert unread(config)["fp16"][1] is True


def test_activation_checkpointing_wins_over_its_deprecated_alias(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "args.json",
        {
            "per_device_train_batch_size": 2,
            "activation_checkpointing": False,
            "gradient_checkpointing": True,
        },
    )
    assert config.checkpointing is False
    assert config.key_of("checkpointing") == "activation_checkpointing"


def test_json_booleans_are_not_converted(tmp_path: Path) -> None:
    # parse_dict passes "false" as it is: TrainingArguments would test it as true
    config = read(tmp_path, "args.json", {"per_device_train_batch_size": 2, "bf16": "false"})
    assert config.precision is None
    reason, refused = unread(config)["bf16"]
    assert not refused and "truth" in reason
    assert "precision" in config.missing(1)


def test_json_unknown_keys_are_named_not_refused(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "args.json",
        {"per_device_train_batchsize": 4, "model_name_or_path": "m", "lora_r": 8},
    )
    found = unknown(config)
    # a JSON is TrainingArguments (TrlParser reads YAML only): the TRL keys are unknown
    assert found["per_device_train_batchsize"] == ("per_device_train_batch_size", False)
    assert found["model_name_or_path"] == (None, False)
    assert found["lora_r"][1] is False
    assert config.micro_batch == 8  # the misspelt key sets nothing: the default
    assert config.adapter is None and config.sequence_length is None
    assert config.checkpointing is False and config.precision is Precision.FP32


def test_null_batch_size_is_refused(tmp_path: Path) -> None:
    config = read(tmp_path, "args.json", {"per_device_train_batch_size": None, "fp16": True})
    assert config.micro_batch is None
    assert unread(config)["per_device_train_batch_size"][1] is True


# --------------------------------------------------------------------------- TRL recipes


def test_trl_recipe_defaults(tmp_path: Path) -> None:
    # TRL 1.16: _BaseConfig bf16 = not fp16, gradient_checkpointing True; SFTConfig
    # max_length 1024; ModelConfig use_peft False
    config = read(
        tmp_path, "sft.yaml", {"model_name_or_path": "Qwen/Qwen2.5-0.5B", "dataset_name": "x"}
    )
    assert config.kind is ConfigKind.TRAINER
    assert (config.micro_batch, config.accumulation_steps) == (8, 1)
    assert config.precision is Precision.BF16
    assert config.checkpointing is True
    assert config.sequence_length == 1024
    assert config.base_model == "Qwen/Qwen2.5-0.5B"
    assert config.adapter is None
    assert config.unknown_keys == () and config.unread == ()
    assert {f for f, _ in config.defaults} == {
        "micro_batch",
        "accumulation_steps",
        "precision",
        "checkpointing",
        "sequence_length",
    }


def test_trl_fp16_turns_the_bf16_default_off(tmp_path: Path) -> None:
    config = read(tmp_path, "sft.yaml", {"model_name_or_path": "m", "fp16": True})
    assert config.precision is Precision.FP16
    assert config.key_of("precision") == "fp16"


def test_trl_every_key(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "sft.yaml",
        {
            "model_name_or_path": "mistralai/Mistral-7B-v0.1",
            "use_peft": True,
            "load_in_4bit": True,
            "lora_r": 32,
            "lora_target_modules": ["q_proj", "v_proj"],
            "per_device_train_batch_size": 4,
            "gradient_accumulation_steps": 2,
            "bf16": True,
            "gradient_checkpointing": False,
            "max_length": 4096,
            "env": {"CUDA_VISIBLE_DEVICES": "0"},
        },
    )
    assert config.unknown_keys == ()
    assert config.adapter is Adapter.QLORA and config.base_4bit is True
    assert config.lora_rank == 32 and config.lora_targets == ("q_proj", "v_proj")
    assert (config.micro_batch, config.accumulation_steps) == (4, 2)
    assert config.precision is Precision.BF16 and config.key_of("precision") == "bf16"
    assert config.checkpointing is False
    assert config.sequence_length == 4096
    assert config.defaults == ()


def test_trl_peft_defaults_and_all_linear(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "sft.yaml",
        {"model_name_or_path": "m", "use_peft": True, "lora_target_modules": "all-linear"},
    )
    assert config.adapter is Adapter.LORA
    assert config.lora_rank == 16  # ModelConfig's default
    assert "lora_rank" in [f for f, _ in config.defaults]
    assert config.lora_targets == ("all-linear",)
    # no lora_target_modules: PEFT's per-architecture default, not known here
    plain = read(tmp_path, "plain.yaml", {"model_name_or_path": "m", "use_peft": True})
    assert plain.lora_targets is None


def test_trl_texts_are_converted_as_argparse_does(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "sft.yaml",
        {
            "model_name_or_path": "m",
            "per_device_train_batch_size": "4",
            "bf16": "no",
            "fp16": "yes",
        },
    )
    assert config.micro_batch == 4
    assert config.precision is Precision.FP16
    bad = read(tmp_path, "bad.yaml", {"model_name_or_path": "m", "bf16": "maybe"})
    # string_to_bool raises ArgumentTypeError: argparse exits
    assert unread(bad)["bf16"][1] is True
    assert bad.precision is None


def test_trl_unknown_keys_are_refused(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "sft.yaml",
        {"model_name_or_path": "m", "max_seq_length": 2048, "warmup_ratio": 0.1},
    )
    found = unknown(config)
    assert found["max_seq_length"] == ("max_length", True)
    # removed in transformers 5: what replaced it is named
    assert found["warmup_ratio"] == ("warmup_steps", True)
    # the old name is not read, and no default length stands in for it
    assert config.sequence_length is None


def test_trl_dpo_recipe_knows_dpo_keys_only(tmp_path: Path) -> None:
    config = read(
        tmp_path,
        "dpo.yaml",
        {"model_name_or_path": "m", "beta": 0.1, "packing": True, "max_length": 1024},
    )
    assert list(unknown(config)) == ["packing"]  # SFTConfig's, not DPOConfig's
    assert config.sequence_length == 1024


def test_trl_quantized_without_adapter_is_refused(tmp_path: Path) -> None:
    # trainer_utils.py validate_quantization_for_training(): "purely quantized models"
    config = read(
        tmp_path, "sft.yaml", {"model_name_or_path": "m", "dataset_name": "d", "load_in_4bit": True}
    )
    assert config.kind is ConfigKind.TRAINER
    assert unread(config)["load_in_4bit"][1] is True
    assert config.adapter is None and config.base_4bit is True
    # model_config.py: "You can't use 8 bit and 4 bit precision at the same time"
    both = read(
        tmp_path,
        "both.yaml",
        {
            "model_name_or_path": "m",
            "dataset_name": "d",
            "use_peft": True,
            "load_in_4bit": True,
            "load_in_8bit": True,
        },
    )
    assert unread(both)["load_in_8bit"][1] is True


def test_trl_lora_keys_without_use_peft_are_ignored(tmp_path: Path) -> None:
    config = read(
        tmp_path, "sft.yaml", {"model_name_or_path": "m", "dataset_name": "d", "lora_r": 8}
    )
    assert config.kind is ConfigKind.TRAINER
    reason, refused = unread(config)["lora_r"]
    assert not refused and "use_peft" in reason
    assert config.lora_rank is None and config.adapter is None


def test_trl_sixteen_bit_full_model_is_noted(tmp_path: Path) -> None:
    config = read(tmp_path, "sft.yaml", {"model_name_or_path": "m", "dtype": "bfloat16"})
    reason, refused = unread(config)["dtype"]
    assert not refused and "fp32 master" in reason
    assert config.precision is Precision.BF16
    lora = read(
        tmp_path, "lora.yaml", {"model_name_or_path": "m", "dtype": "bfloat16", "use_peft": True}
    )
    assert "dtype" not in unread(lora)


def test_a_yaml_of_training_arguments_only_is_not_a_trl_recipe(tmp_path: Path) -> None:
    config = read(tmp_path, "args.yaml", {"per_device_train_batch_size": 2, "logging_steps": 5})
    assert config.precision is Precision.FP32  # TrainingArguments', not TRL's, defaults
    assert config.checkpointing is False and config.sequence_length is None


# --------------------------------------------------------------------------- DeepSpeed


ZERO2_OFFLOAD = {
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "train_batch_size": "auto",
    "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
}


def test_deepspeed_path_from_the_launch_folder_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    launch = tmp_path / "launch"
    write(launch, "ds/z.json", ZERO2_OFFLOAD)
    write(tmp_path / "cfg", "ds/z.json", {"zero_optimization": {"stage": 3}})
    path = write(
        tmp_path / "cfg",
        "sft.yaml",
        {"model_name_or_path": "m", "per_device_train_batch_size": 2, "deepspeed": "ds/z.json"},
    )
    monkeypatch.chdir(launch)
    config = read_config(path)
    # accelerate HfDeepSpeedConfig: os.path.exists(path), relative to the launch folder
    assert config.zero_stage is ZeroStage.GRADIENTS
    assert config.offload is Offload.OPTIMIZER
    assert config.resolved_files[0].where == "launch folder"
    # the "auto" batch values are the Trainer's own: nothing is missing
    assert config.missing(4) == []
    assert config.derived(4).effective_batch == 2 * 1 * 4
    assert "ds/z.json:train_micro_batch_size_per_gpu" in config.auto_keys
    assert refusals(config) == []


def test_deepspeed_path_beside_the_config_when_not_in_the_launch_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "cfg", "z3.json", {"zero_optimization": {"stage": 3}})
    path = write(
        tmp_path / "cfg",
        "lf.yaml",
        {"model_name_or_path": "m", "stage": "sft", "deepspeed": "z3.json"},
    )
    monkeypatch.chdir(tmp_path)
    config = read_config(path)
    assert config.kind is ConfigKind.LLAMA_FACTORY
    assert config.zero_stage is ZeroStage.WEIGHTS
    assert config.resolved_files[0].where == "config folder"


def test_missing_deepspeed_file_leaves_zero_and_offload_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = read(
        tmp_path / "cfg", "sft.yaml", {"model_name_or_path": "m", "deepspeed": "nowhere.json"}
    )
    assert config.zero_stage is None and config.offload is None
    assert {"zero_stage", "offload"} <= set(config.unresolved)
    assert config.resolved_files[0].path is None
    missing = config.missing(4)
    assert "ZeRO stage" in missing and "offload" in missing
    assert config.setup(4)[0] is None
    assert refusals(config) == []  # gradacc cannot know the launch folder


def test_deepspeed_values_that_differ_from_the_trainer_are_refused(tmp_path: Path) -> None:
    write(
        tmp_path,
        "ds.json",
        {
            "train_micro_batch_size_per_gpu": 2,
            "gradient_accumulation_steps": 4,
            "bf16": {"enabled": False},
            "zero_optimization": {"stage": 1},
        },
    )
    config = read(
        tmp_path,
        "sft.yaml",
        {
            "model_name_or_path": "m",
            "per_device_train_batch_size": 4,
            "gradient_accumulation_steps": 4,
            "deepspeed": str(tmp_path / "ds.json"),
        },
    )
    found = unread(config)
    # integrations/deepspeed.py fill_match() / trainer_config_finalize()
    key = f"{tmp_path / 'ds.json'}:train_micro_batch_size_per_gpu"
    assert found[key][1] is True
    assert f"{tmp_path / 'ds.json'}:gradient_accumulation_steps" not in found  # equal
    # TRL's bf16 default (true) against bf16.enabled false
    assert found[f"{tmp_path / 'ds.json'}:bf16.enabled"][1] is True
    assert config.micro_batch == 4  # the Trainer's value stands
    assert config.zero_stage is ZeroStage.OPTIMIZER


def test_deepspeed_train_batch_size_is_checked_with_the_gpus(tmp_path: Path) -> None:
    write(tmp_path, "ds.json", {"train_batch_size": 64, "zero_optimization": {"stage": 2}})
    config = read(
        tmp_path,
        "args.json",
        {
            "per_device_train_batch_size": 4,
            "gradient_accumulation_steps": 2,
            "deepspeed": "ds.json",
        },
    )
    assert config.derived(8).problem is None  # 4 x 2 x 8 = 64
    assert config.derived(4).problem is not None


def test_auto_find_batch_size_does_not_match_the_micro_batch(tmp_path: Path) -> None:
    write(tmp_path, "ds.json", {"train_micro_batch_size_per_gpu": 2})
    config = read(
        tmp_path,
        "args.json",
        {"per_device_train_batch_size": 4, "auto_find_batch_size": True, "deepspeed": "ds.json"},
    )
    assert refusals(config) == []
    assert "auto_find_batch_size" in unread(config)


def test_inline_deepspeed_mapping_and_json_text(tmp_path: Path) -> None:
    inline = read(
        tmp_path,
        "args.json",
        {
            "per_device_train_batch_size": 2,
            "deepspeed": {"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"},
                                                "offload_optimizer": {"device": "cpu"}}},
        },
    )  # fmt: skip
    assert inline.zero_stage is ZeroStage.WEIGHTS and inline.offload is Offload.ALL
    assert inline.key_of("zero_stage") == "deepspeed.zero_optimization.stage"
    text = read(
        tmp_path,
        "text.json",
        {"per_device_train_batch_size": 2, "deepspeed": '{"zero_optimization": {"stage": 1}}'},
    )
    assert text.zero_stage is ZeroStage.OPTIMIZER
    broken = read(
        tmp_path, "broken.json", {"per_device_train_batch_size": 2, "deepspeed": "{not json"}
    )
    assert unread(broken)["deepspeed"][1] is True
    assert "zero_stage" in broken.unresolved


def test_fsdp_is_named_and_leaves_zero_open(tmp_path: Path) -> None:
    config = read(
        tmp_path, "args.json", {"per_device_train_batch_size": 2, "fsdp": "full_shard auto_wrap"}
    )
    assert config.uses_fsdp is True
    assert {"zero_stage", "offload"} <= set(config.unresolved)
    # fsdp_config alone does not turn FSDP on (_process_fsdp_args: "if not self.fsdp")
    alone = read(
        tmp_path, "alone.json", {"per_device_train_batch_size": 2, "fsdp_config": {"version": 2}}
    )
    assert alone.uses_fsdp is False and alone.unresolved == ()


# --------------------------------------------------------------------------- the CLI


def test_cli_json_for_a_trl_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "sft.yaml",
        {"model_name_or_path": "m", "per_device_train_batch_size": 2, "use_peft": True},
    )
    assert main(["check", str(path), "--json", "--world-size", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "transformers"
    assert data["effective_batch"] == 2 * 1 * 4
    assert data["values"]["precision"] == "bf16"
    assert data["values"]["adapter"] == "lora"
    assert data["values"]["lora_rank"] == 16
    assert data["values"]["checkpointing"] is True
    assert data["tokens_per_step"] == 8 * 1024
    assert {"accumulation_steps", "precision", "lora_rank"} <= set(data["derived"]["names"])
    assert data["framework_accepts"] is True


def test_cli_json_refuses_unknown_trl_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "sft.yaml", {"model_name_or_path": "m", "max_seq_length": 512})
    assert main(["check", str(path), "--json", "--world-size", "4"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["framework_accepts"] is False
    assert data["unknown_keys"] == [
        {
            "key": "max_seq_length",
            "suggestion": "max_length",
            "refused": True,
            "reason": data["unknown_keys"][0]["reason"],
        }
    ]
