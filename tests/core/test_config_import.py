"""Reading existing DeepSpeed, accelerate and axolotl configs back into numbers."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.batch.planning import DeepSpeedReason
from gradacc_desktop.core.frameworks.config_import import (
    MAX_CONFIG_BYTES,
    Adapter,
    ConfigImportError,
    ConfigKind,
    ImportedConfig,
    ResolvedFile,
    UnknownKey,
    Unread,
    read_config,
)
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import Offload, Precision, TrainingSetup, setup_problem
from gradacc_desktop.core.memory.zero import ZeroStage

# Shaped like the ZeRO-3 example of Hugging Face's DeepSpeed documentation: everything the
# Trainer knows is "auto".
HF_ZERO3 = """{
    "fp16": {
        "enabled": "auto",
        "loss_scale": 0,
        "loss_scale_window": 1000,
        "initial_scale_power": 16,
        "hysteresis": 2,
        "min_loss_scale": 1
    },
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}
    },
    "scheduler": {
        "type": "WarmupLR",
        "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto", "warmup_num_steps": "auto"}
    },
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": {"device": "cpu", "pin_memory": true},
        "offload_param": {"device": "cpu", "pin_memory": true},
        "overlap_comm": true,
        "contiguous_gradients": true,
        "sub_group_size": 1e9,
        "reduce_bucket_size": "auto",
        "stage3_prefetch_bucket_size": "auto",
        "stage3_param_persistence_threshold": "auto",
        "stage3_max_live_parameters": 1e9,
        "stage3_max_reuse_distance": 1e9,
        "stage3_gather_16bit_weights_on_model_save": true
    },
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "steps_per_print": 2000,
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
    "wall_clock_breakdown": false
}
"""

# Shaped like axolotl's examples/llama-3/qlora.yml (shortened) and its deepspeed_configs/zero2.json.
AXOLOTL_QLORA = """\
base_model: NousResearch/Meta-Llama-3-8B
load_in_8bit: false
load_in_4bit: true
strict: false

datasets:
  - path: mhenrichsen/alpaca_2k_test
    type: alpaca
dataset_prepared_path:
val_set_size: 0.05
output_dir: ./outputs/qlora-out

adapter: qlora
lora_model_dir:
sequence_len: 4096
sample_packing: true
pad_to_sequence_len: true

lora_r: 32
lora_alpha: 16
lora_dropout: 0.05
lora_target_modules:
  - q_proj
  - k_proj
  - v_proj
  - o_proj
lora_target_linear: true

gradient_accumulation_steps: 4
micro_batch_size: 2
num_epochs: 4
optimizer: paged_adamw_32bit
lr_scheduler: cosine
learning_rate: 0.0002

bf16: auto
fp16:
tf32: false

gradient_checkpointing: true
flash_attention: true
warmup_steps: 10
deepspeed: deepspeed_configs/zero2.json
special_tokens:
  pad_token: "<|end_of_text|>"
"""

AXOLOTL_ZERO2 = """{
  "zero_optimization": {
    "stage": 2,
    "offload_optimizer": {"device": "cpu"},
    "contiguous_gradients": true,
    "overlap_comm": true
  },
  "bf16": {"enabled": "auto"},
  "fp16": {"enabled": "auto", "auto_cast": false, "loss_scale": 0, "initial_scale_power": 32},
  "gradient_accumulation_steps": "auto",
  "gradient_clipping": "auto",
  "train_batch_size": "auto",
  "train_micro_batch_size_per_gpu": "auto",
  "wall_clock_breakdown": false
}
"""


def ds(**values: Any) -> ImportedConfig:
    return read_config(json.dumps(values))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- DeepSpeed


def test_deepspeed_full_triple_implies_the_gpus() -> None:
    config = ds(
        train_batch_size=256,
        train_micro_batch_size_per_gpu=4,
        gradient_accumulation_steps=8,
        zero_optimization={"stage": 2, "offload_optimizer": {"device": "cpu"}},
        bf16={"enabled": True},
    )
    assert config.kind is ConfigKind.DEEPSPEED
    assert (config.train_batch_size, config.micro_batch, config.accumulation_steps) == (256, 4, 8)
    assert config.gpus is None and config.nodes is None
    assert config.zero_stage is ZeroStage.GRADIENTS
    assert config.offload is Offload.OPTIMIZER
    assert config.precision is Precision.BF16
    assert config.unread == () and config.auto_keys == ()
    d = config.derived()
    assert (d.gpus, d.gpus_from, d.effective_batch) == (8, "derived", 256)
    assert d.derived == ("gpus",)
    assert d.deepspeed is not None and d.deepspeed.ok
    assert d.megatron is not None and d.megatron.derived_steps == 8
    setup, missing = config.setup()
    assert missing == []
    assert setup == TrainingSetup(
        4, 8, 8, 1, ZeroStage.GRADIENTS, Precision.BF16, Offload.OPTIMIZER
    )


def test_deepspeed_triple_that_no_gpu_count_satisfies() -> None:
    config = ds(
        train_batch_size=100, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=8
    )
    d = config.derived()
    assert d.gpus is None and d.effective_batch is None
    assert d.problem is not None and "any number of GPUs" in d.problem
    assert config.setup() == (None, [d.problem])
    # with a GPU count, DeepSpeed's own check names the mismatch
    d = config.derived(3)
    assert d.deepspeed is not None and d.deepspeed.reason is DeepSpeedReason.PRODUCT_MISMATCH
    assert d.problem is not None and "4 x 8 x 3" in d.problem.replace("(micro-batch) ", "").replace(
        "(accumulation steps) ", ""
    )


def test_deepspeed_derives_the_accumulation_steps_once_the_gpus_are_known() -> None:
    config = ds(train_batch_size=256, train_micro_batch_size_per_gpu=4)
    assert config.accumulation_steps is None
    setup, missing = config.setup()
    assert setup is None and missing == ["GPU count"]
    d = config.derived(8)
    assert (d.micro_batch, d.accumulation_steps, d.train_batch_size) == (4, 8, 256)
    assert d.derived == ("accumulation_steps",)
    assert d.notes == ("accumulation steps = 8 (DeepSpeed's derivation)",)
    setup, missing = config.setup(8)
    # without ZeRO, offload or precision sections DeepSpeed runs fp32, stage 0
    assert setup == TrainingSetup(4, 8, 8, precision=Precision.FP32) and missing == []


@pytest.mark.parametrize(
    ("values", "gpus", "expected"),
    [
        # train + micro -> steps
        ({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 4}, 8, "not_divisible"),
        ({"train_batch_size": 16, "train_micro_batch_size_per_gpu": 4}, 8, "derived_zero_steps"),
        # train + steps -> micro
        ({"train_batch_size": 64, "gradient_accumulation_steps": 4}, 4, "ok"),
        ({"train_batch_size": 8, "gradient_accumulation_steps": 4}, 4, "derived_zero_micro_batch"),
        # micro + steps -> train
        ({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3}, 5, "ok"),
        # one value alone
        ({"train_batch_size": 64}, 4, "ok"),
        ({"train_micro_batch_size_per_gpu": 2}, 4, "ok"),
    ],
)
def test_deepspeed_derivation_matches_deepspeed_check(
    values: dict[str, int], gpus: int, expected: str
) -> None:
    d = read_config(json.dumps(values)).derived(gpus)
    assert d.deepspeed is not None and d.deepspeed.reason.value == expected
    if expected == "ok":
        assert d.effective_batch == d.train_batch_size
        assert d.micro_batch is not None and d.accumulation_steps is not None
        assert d.effective_batch == d.micro_batch * d.accumulation_steps * gpus
        assert d.problem is None
    else:
        assert d.effective_batch is None and d.problem is not None
        assert d.problem.startswith("DeepSpeed refuses")


def test_deepspeed_without_any_batch_value() -> None:
    config = ds(zero_optimization={"stage": 1}, gradient_accumulation_steps=4)
    assert config.missing() == ["micro-batch", "GPU count"]
    assert config.missing(2) == ["micro-batch"]
    assert config.derived(2).deepspeed is None


def test_hf_zero3_example_leaves_the_batch_to_the_trainer() -> None:
    config = read_config(HF_ZERO3, name="ds_config_zero3.json")
    assert config.kind is ConfigKind.DEEPSPEED
    assert config.source == "ds_config_zero3.json"
    assert config.zero_stage is ZeroStage.WEIGHTS
    assert config.offload is Offload.ALL
    assert config.precision is None
    assert config.micro_batch is None and config.accumulation_steps is None
    assert config.auto_keys == (
        "fp16.enabled",
        "optimizer.params.lr",
        "optimizer.params.betas",
        "optimizer.params.eps",
        "optimizer.params.weight_decay",
        "scheduler.params.warmup_min_lr",
        "scheduler.params.warmup_max_lr",
        "scheduler.params.warmup_num_steps",
        "zero_optimization.reduce_bucket_size",
        "zero_optimization.stage3_prefetch_bucket_size",
        "zero_optimization.stage3_param_persistence_threshold",
        "gradient_accumulation_steps",
        "gradient_clipping",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
    )
    assert config.unread == ()
    assert set(config.auto_fields) == {
        "micro_batch",
        "accumulation_steps",
        "train_batch_size",
        "precision",
    }
    setup, missing = config.setup(8)
    assert setup is None
    # "auto" values are the trainer's: nothing is derived from or defaulted for them
    assert missing == ["micro-batch", "accumulation steps", "precision"]
    assert config.derived(8).deepspeed is None


def test_auto_train_batch_size_is_computed_like_deepspeed() -> None:
    config = ds(
        train_batch_size="auto",
        train_micro_batch_size_per_gpu=2,
        gradient_accumulation_steps=16,
        fp16={"enabled": True},
    )
    assert config.auto_keys == ("train_batch_size",)
    setup, missing = config.setup(4)
    assert missing == []
    assert setup == TrainingSetup(2, 16, 4, precision=Precision.FP16)
    assert config.derived(4).effective_batch == 128
    # but the GPU count cannot come from a value the trainer fills
    assert config.missing() == ["GPU count"]


def test_deepspeed_unread_keys_are_listed_exactly() -> None:
    config = ds(
        train_batch_size=-1,
        train_micro_batch_size_per_gpu=True,
        gradient_accumulation_steps="8",
        zero_optimization={
            "stage": 5,
            "offload_optimizer": {"device": "nvme"},
            "offload_param": {"device": "disk"},
        },
        bf16={"enabled": "yes"},
        fp16=[],
    )
    assert config.unread == (
        Unread("train_batch_size", "-1", "must be between 1 and 1000000000"),
        Unread("train_micro_batch_size_per_gpu", "true", 'must be a whole number or "auto"'),
        Unread("gradient_accumulation_steps", '"8"', 'must be a whole number or "auto"'),
        Unread("zero_optimization.stage", "5", "must be 0, 1, 2 or 3"),
        Unread(
            "zero_optimization.offload_optimizer.device",
            '"nvme"',
            "NVMe offload is not modelled (only none and cpu)",
        ),
        Unread(
            "zero_optimization.offload_param.device",
            '"disk"',
            'unknown device: DeepSpeed accepts "none", "cpu" or "nvme"',
        ),
        Unread("bf16.enabled", '"yes"', 'must be true, false or "auto"'),
        Unread("fp16", "a list of 0 item(s)", "must be a mapping of keys"),
    )
    # True is never read as 1, and nothing unread stands in for a value
    assert config.micro_batch is None and config.train_batch_size is None
    assert config.zero_stage is None and config.offload is None and config.precision is None
    assert config.missing(4) == [
        "micro-batch",
        "accumulation steps",
        "train batch size",
        "ZeRO stage",
        "precision",
        "offload",
    ]


def test_deepspeed_precision_rules() -> None:
    assert ds(bf16={"enabled": True}).precision is Precision.BF16
    assert ds(bfloat16={"enabled": True}).precision is Precision.BF16
    assert ds(fp16={"enabled": True}, bf16={"enabled": False}).precision is Precision.FP16
    assert ds(fp16={"enabled": False}).precision is Precision.FP32
    assert ds(fp16={"loss_scale": 0}).precision is Precision.FP32  # enabled defaults to false
    assert ds(train_batch_size=8).precision is None
    both = ds(bf16={"enabled": True}, fp16={"enabled": True})
    assert both.precision is None
    assert both.unread == (
        Unread(
            "fp16.enabled",
            "true",
            "enabled together with bf16.enabled: bf16 and fp16 cannot both be on",
        ),
    )
    # an explicit true beats the other's "auto"
    assert ds(bf16={"enabled": True}, fp16={"enabled": "auto"}).precision is Precision.BF16


def test_deepspeed_zero_and_offload_forms() -> None:
    assert ds(zero_optimization=True).zero_stage is ZeroStage.OPTIMIZER  # the old boolean
    assert ds(zero_optimization=False).zero_stage is ZeroStage.NONE
    legacy = ds(zero_optimization={"stage": 2, "cpu_offload": True})
    assert legacy.offload is Offload.OPTIMIZER
    none = ds(zero_optimization={"stage": 3, "offload_optimizer": {"device": "none"}})
    assert none.offload is Offload.NONE
    # a section without a device is DeepSpeed's default device, none
    assert ds(zero_optimization={"stage": 3, "offload_param": {}}).offload is Offload.NONE
    params_only = ds(zero_optimization={"stage": 3, "offload_param": {"device": "cpu"}})
    assert params_only.offload is None
    assert [u.key for u in params_only.unread] == ["zero_optimization.offload_param.device"]
    assert params_only.missing(1)[-1] == "offload"


def test_deepspeed_setup_problems_are_named() -> None:
    config = ds(
        train_micro_batch_size_per_gpu=1,
        gradient_accumulation_steps=1,
        zero_optimization={"stage": 0, "offload_optimizer": {"device": "cpu"}},
    )
    setup, reasons = config.setup(2)
    assert setup is None
    assert reasons == [
        "CPU offload needs ZeRO stage 1, 2 or 3 (DeepSpeed ignores it without ZeRO)."
    ]


# --------------------------------------------------------------------------- accelerate


ACCELERATE_ZERO2 = """\
compute_environment: LOCAL_MACHINE
debug: false
deepspeed_config:
  gradient_accumulation_steps: 4
  offload_optimizer_device: cpu
  offload_param_device: none
  zero3_init_flag: false
  zero_stage: 2
distributed_type: DEEPSPEED
downcast_bf16: 'no'
machine_rank: 0
main_training_function: main
mixed_precision: bf16
num_machines: 2
num_processes: 16
rdzv_backend: static
same_network: true
use_cpu: false
"""


def test_accelerate_deepspeed_config() -> None:
    config = read_config(ACCELERATE_ZERO2)
    assert config.kind is ConfigKind.ACCELERATE
    assert (config.gpus, config.nodes) == (16, 2)
    assert config.distributed_type == "DEEPSPEED"
    assert config.accumulation_steps == 4
    assert config.zero_stage is ZeroStage.GRADIENTS
    assert config.offload is Offload.OPTIMIZER
    assert config.precision is Precision.BF16
    assert config.unread == () and config.auto_keys == ()
    # the micro-batch is the script's (its DataLoader), not the config file's
    setup, missing = config.setup()
    assert setup is None and missing == ["micro-batch"]
    assert config.derived().gpus_from == "file"


def test_accelerate_unquoted_no_is_fp32() -> None:
    text = "distributed_type: MULTI_GPU\nmixed_precision: no\nnum_processes: 4\nnum_machines: 1\n"
    assert yaml.safe_load(text)["mixed_precision"] is False
    config = read_config(text)
    assert config.precision is Precision.FP32 and config.unread == ()
    assert config.missing() == ["micro-batch", "accumulation steps"]


def test_accelerate_unread_keys_are_listed_exactly() -> None:
    text = """\
distributed_type: MULTI_GPU
mixed_precision: fp8
num_processes: 0
num_machines: two
deepspeed_config:
  zero_stage: 3
  gradient_accumulation_steps: 2
"""
    config = read_config(text)
    assert config.unread == (
        Unread("num_processes", "0", "must be between 1 and 1000000"),
        Unread("num_machines", '"two"', "must be a whole number"),
        Unread("mixed_precision", '"fp8"', "fp8 is not modelled (only no, fp16 and bf16)"),
        Unread(
            "deepspeed_config.gradient_accumulation_steps",
            "2",
            "ignored: distributed_type is MULTI_GPU, not DEEPSPEED",
        ),
        Unread(
            "deepspeed_config.zero_stage",
            "3",
            "ignored: distributed_type is MULTI_GPU, not DEEPSPEED",
        ),
    )
    assert config.zero_stage is None and config.accumulation_steps is None


def test_accelerate_follows_its_deepspeed_config_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        "ds.json",
        json.dumps(
            {
                "train_micro_batch_size_per_gpu": 2,
                "gradient_accumulation_steps": 8,
                "zero_optimization": {"stage": 3},
                "bf16": {"enabled": "auto"},
            }
        ),
    )
    path = write(
        tmp_path,
        "accelerate.yaml",
        "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_machines: 1\n"
        "num_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n",
    )
    config = read_config(path)
    assert config.followed == (str(tmp_path / "ds.json"),)
    assert (config.micro_batch, config.accumulation_steps) == (2, 8)
    assert config.zero_stage is ZeroStage.WEIGHTS
    # accelerate fills the file's "auto" from mixed_precision
    assert config.precision is Precision.BF16
    assert config.auto_keys == ("ds.json:bf16.enabled",)
    assert config.key_of("micro_batch") == "ds.json:train_micro_batch_size_per_gpu"
    setup, missing = config.setup()
    assert missing == []
    assert setup == TrainingSetup(2, 8, 4, 1, ZeroStage.WEIGHTS, Precision.BF16)


def test_accelerate_config_file_that_is_not_there(tmp_path: Path) -> None:
    text = (
        "distributed_type: DEEPSPEED\nnum_processes: 2\n"
        "deepspeed_config:\n  deepspeed_config_file: /nowhere/ds.json\n"
    )
    path = write(tmp_path, "a.yaml", text)
    config = read_config(path)
    assert config.unread == (
        Unread(
            "deepspeed_config.deepspeed_config_file",
            '"/nowhere/ds.json"',
            "file not found: /nowhere/ds.json",
        ),
    )
    # given as text, the reference is not followed at all
    config = read_config(text)
    assert config.unread == (
        Unread(
            "deepspeed_config.deepspeed_config_file",
            '"/nowhere/ds.json"',
            "not followed: the config was given as text, not as a file",
        ),
    )
    # and accelerate's own ZeRO stage comes from its environment: missing
    assert "ZeRO stage" in config.missing()


def test_accelerate_fsdp_full_shard_is_zero3() -> None:
    # FSDP's FULL_SHARD shards what ZeRO-3 shards (tests/core/test_config_frameworks.py
    # has every strategy); the offload stays accelerate's default, none
    text = (
        "distributed_type: FSDP\nnum_processes: 8\nmixed_precision: bf16\n"
        "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n"
    )
    config = read_config(text)
    assert config.unread == ()
    assert config.zero_stage is ZeroStage.WEIGHTS
    assert config.key_of("zero_stage") == "fsdp_config.fsdp_sharding_strategy"
    assert config.offload is None
    assert config.missing() == ["micro-batch", "accumulation steps"]


# --------------------------------------------------------------------------- axolotl


def test_axolotl_qlora_with_its_deepspeed_json(tmp_path: Path) -> None:
    write(tmp_path, "deepspeed_configs/zero2.json", AXOLOTL_ZERO2)
    config = read_config(write(tmp_path, "qlora.yml", AXOLOTL_QLORA))
    assert config.kind is ConfigKind.AXOLOTL
    assert (config.micro_batch, config.accumulation_steps) == (2, 4)
    assert config.adapter is Adapter.QLORA
    assert config.lora_rank == 32
    # lora_target_linear: true adds every linear layer to the listed ones (axolotl)
    assert config.lora_targets == ("all-linear",)
    assert config.base_4bit is True
    assert config.sequence_length == 4096
    assert config.base_model == "NousResearch/Meta-Llama-3-8B"
    assert config.zero_stage is ZeroStage.GRADIENTS
    assert config.offload is Offload.OPTIMIZER
    assert config.precision is None  # bf16: auto
    assert config.unread == ()
    assert config.followed == (str(tmp_path / "deepspeed_configs/zero2.json"),)
    prefix = "deepspeed_configs/zero2.json:"
    assert config.auto_keys == (
        "bf16",
        *(
            prefix + key
            for key in (
                "bf16.enabled",
                "fp16.enabled",
                "gradient_accumulation_steps",
                "gradient_clipping",
                "train_batch_size",
                "train_micro_batch_size_per_gpu",
            )
        ),
    )
    d = config.derived(2)
    assert d.effective_batch == 16
    assert d.deepspeed is not None and d.deepspeed.ok
    assert d.megatron is not None and d.megatron.derived_steps == 4
    # the precision depends on the GPU (bf16 where supported): it stays open
    assert config.setup(2) == (None, ["precision"])
    assert config.missing() == ["GPU count", "precision"]


def test_axolotl_deepspeed_json_not_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cfg").mkdir()
    config = read_config(write(tmp_path / "cfg", "qlora.yml", AXOLOTL_QLORA))
    launch = tmp_path / "deepspeed_configs/zero2.json"
    beside = tmp_path / "cfg/deepspeed_configs/zero2.json"
    assert config.unread == (
        Unread(
            "deepspeed",
            '"deepspeed_configs/zero2.json"',
            f"file not found: {launch} ; {beside}",
        ),
    )
    assert config.zero_stage is None and config.followed == ()
    assert config.resolved_files == (
        ResolvedFile("deepspeed", "deepspeed_configs/zero2.json", None, None),
    )
    # the stage and offload the file would set are missing, not ZeRO-0
    assert "ZeRO stage" in config.missing(2) and "offload" in config.missing(2)
    assert config.setup(2)[0] is None


def test_axolotl_needs_two_batch_keys() -> None:
    # axolotl's check_batch_size_fields: at least two of the three, truthy
    config = read_config("micro_batch_size: 4\nbf16: true\nadapter: lora\nlora_r: 8\n")
    d = config.derived(2)
    # nothing derived for the batch (only axolotl's default of no checkpointing)
    assert d.accumulation_steps is None and d.derived == ("checkpointing",)
    assert d.problem is not None and "at least two of micro_batch_size" in d.problem
    assert "sets micro_batch_size." in d.problem
    assert config.setup(2) == (None, [d.problem])
    zero = read_config("micro_batch_size: 4\ngradient_accumulation_steps: 0\n").derived(1)
    assert zero.problem is not None and "at least two" in zero.problem
    ok = read_config("micro_batch_size: 4\ngradient_accumulation_steps: 2\nbf16: true\n")
    assert ok.setup(2) == (TrainingSetup(4, 2, 2, precision=Precision.BF16), [])
    assert ok.derived(2).warnings == ()


def test_axolotl_refuses_steps_with_batch_size() -> None:
    # axolotl's check_gas_bsz
    both = read_config("micro_batch_size: 4\ngradient_accumulation_steps: 2\nbatch_size: 8\n")
    d = both.derived(1)
    assert d.problem == (
        "axolotl refuses gradient_accumulation_steps together with batch_size: set only "
        "one of them."
    )
    no_micro = read_config("gradient_accumulation_steps: 2\nbatch_size: 8\n").derived(1)
    assert no_micro.problem == d.problem


def test_axolotl_batch_size_derives_steps_and_warns() -> None:
    with_batch = read_config("micro_batch_size: 4\nbatch_size: 32\nfp16: true\n")
    assert with_batch.batch_per_gpu == 32
    assert with_batch.setup(2)[0] == TrainingSetup(4, 8, 2, precision=Precision.FP16)
    d = with_batch.derived(2)
    assert d.notes == (
        "activation checkpointing off: axolotl's default gradient_checkpointing is false",
        "accumulation steps = batch_size // micro_batch_size = 32 // 4 = 8 (axolotl's rule)",
    )
    assert len(d.warnings) == 1 and "batch_size is not recommended" in d.warnings[0]
    assert "batch_size / micro_batch_size / GPUs" in d.warnings[0]
    too_small = read_config("micro_batch_size: 4\nbatch_size: 3\n").derived(1)
    assert too_small.problem is not None and "0 accumulation steps" in too_small.problem


def test_axolotl_unread_keys_are_listed_exactly() -> None:
    text = """\
base_model: 7
micro_batch_size: true
gradient_accumulation_steps: 2.5
bf16: sometimes
adapter: ia3
lora_r: 0
lora_target_modules: [q_proj, 3]
load_in_4bit: "yes"
sequence_len: -4
deepspeed: {stage: 2}
"""
    config = read_config(text)
    assert config.unread == (
        Unread("micro_batch_size", "true", "must be a whole number"),
        Unread("gradient_accumulation_steps", "2.5", "must be a whole number"),
        Unread("bf16", '"sometimes"', 'must be true, false or "auto"'),
        Unread("adapter", '"ia3"', 'unknown adapter: gradacc reads "lora" and "qlora"'),
        Unread("lora_r", "0", "must be between 1 and 1000000"),
        Unread("lora_target_modules", "a list of 2 item(s)", "must be a list of module names"),
        Unread("load_in_4bit", '"yes"', "must be true or false"),
        Unread("base_model", "7", "must be a model name or path"),
        Unread("sequence_len", "-4", "must be between 1 and 100000000"),
        Unread("deepspeed", "a mapping of 1 key(s)", "must be the path of a DeepSpeed JSON"),
    )
    for name in ("micro_batch", "accumulation_steps", "precision", "adapter", "lora_rank"):
        assert getattr(config, name) is None


def test_axolotl_conflicting_deepspeed_value(tmp_path: Path) -> None:
    write(tmp_path, "ds.json", json.dumps({"train_micro_batch_size_per_gpu": 8}))
    config = read_config(
        write(tmp_path, "a.yml", "micro_batch_size: 2\ndeepspeed: ds.json\nbf16: false\n")
    )
    assert config.micro_batch == 2
    assert config.precision is Precision.FP32
    assert config.unread == (
        Unread(
            "ds.json:train_micro_batch_size_per_gpu", "8", "conflicts with micro_batch_size (2)"
        ),
    )


def test_explicit_train_batch_size_in_a_followed_file_is_checked(tmp_path: Path) -> None:
    write(tmp_path, "ds.json", json.dumps({"train_batch_size": 64}))
    config = read_config(
        write(
            tmp_path,
            "a.yml",
            "micro_batch_size: 2\ngradient_accumulation_steps: 4\ndeepspeed: ds.json\n",
        )
    )
    assert config.derived().gpus == 8  # 64 / (2 x 4)
    d = config.derived(4)
    assert d.problem is not None and "the trainer refuses the mismatch" in d.problem
    assert config.setup(4)[0] is None


# --------------------------------------------------------------------------- recognising


def test_kind_comes_from_the_content_not_the_name(tmp_path: Path) -> None:
    as_yaml = write(tmp_path, "config.yaml", json.dumps({"train_batch_size": 8}))
    assert read_config(as_yaml).kind is ConfigKind.DEEPSPEED
    as_json = write(tmp_path, "ds_config.json", "micro_batch_size: 2\nbase_model: x\n")
    assert read_config(as_json).kind is ConfigKind.AXOLOTL
    accelerate = write(
        tmp_path, "ds.json", json.dumps({"num_processes": 2, "mixed_precision": "no"})
    )
    assert read_config(accelerate).kind is ConfigKind.ACCELERATE


def test_path_or_text(tmp_path: Path) -> None:
    path = write(tmp_path, "x.json", json.dumps({"train_batch_size": 8}))
    assert read_config(str(path)).source == str(path)
    assert read_config(path, name="mine").source == "mine"
    assert read_config(path.read_text()).source == "config"
    with pytest.raises(ConfigImportError, match=r"^nothing\.json: no such file$"):
        read_config("nothing.json")
    with pytest.raises(ConfigImportError, match="no such file"):
        read_config(tmp_path / "nothing.json")
    with pytest.raises(ConfigImportError, match="is a folder"):
        read_config(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"train_batch_size": 8,\n  "x": }',
            "not valid JSON: Expecting value at line 2, column 8",
        ),
        (
            '{"a": 1,}',
            "not valid JSON: Expecting property name enclosed in double quotes at line 1",
        ),
        (
            "a: [1, 2\nb: 3\n",
            "not valid YAML: expected ',' or ']', but got ':' at line 2, column 2",
        ),
        (
            "\tkey: 1\n",
            "not valid YAML: found character '\\t' that cannot start any token at line 1",
        ),
        ("a: 1\n---\nb: 2\n", "not valid YAML: but found another document at line 2"),
        ("!!python/object:os.system {}\n", "not valid YAML: could not determine a constructor"),
        ("[1, 2]", "holds a list, not a mapping of config keys"),
        ('"a string"', "holds a single value, not a mapping of config keys"),
        ("", "the file is empty"),
        ("# nothing but a comment\n", "the file is empty"),
        ("learning_rate: 0.1\nwarmup: 3\n", "not a config gradacc reads"),
        ('{"train_batch_size": ' + "9" * 5000 + "}", "a number has too many digits"),
        ("micro_batch_size: " + "9" * 5000 + "\n", "a number has too many digits"),
        ("[" * 100_000, "nested too deeply"),
        ("when: 2001-13-45\nmicro_batch_size: 1\n", "cannot read it as YAML: month must be"),
    ],
)
def test_errors_are_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(ConfigImportError) as info:
        read_config(text, name="cfg")
    text_of = str(info.value)
    assert "\n" not in text_of
    assert text_of.startswith("cfg: ")
    assert message in text_of


def test_binary_and_huge_files(tmp_path: Path) -> None:
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x80\x81\xff\x00" * 10)
    with pytest.raises(ConfigImportError, match="not a text file"):
        read_config(binary)
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(ConfigImportError, match="too large"):
        read_config(huge)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps({"train_batch_size": 4}).encode())
    assert read_config(bom).train_batch_size == 4


def test_recursive_yaml_and_odd_keys_do_not_hang() -> None:
    config = read_config(
        "zero_optimization: &z {stage: 2, again: *z, x: auto}\n1: 2\nnull: 3\ntrain_batch_size: 8\n"
    )
    assert config.zero_stage is ZeroStage.GRADIENTS
    assert config.auto_keys == ("zero_optimization.x",)


def test_values_are_json_types() -> None:
    config = read_config(AXOLOTL_QLORA.replace("deepspeed: deepspeed_configs/zero2.json\n", ""))
    values = config.values()
    assert json.loads(json.dumps(values)) == values
    assert values["adapter"] == "qlora" and values["lora_targets"] == ["all-linear"]
    assert set(values) >= {
        "micro_batch",
        "accumulation_steps",
        "train_batch_size",
        "gpus",
        "nodes",
        "zero_stage",
        "precision",
        "offload",
        "lora_rank",
        "lora_targets",
        "base_4bit",
        "sequence_length",
        "base_model",
    }


def test_control_characters_are_escaped() -> None:
    config = read_config('base_model: "evil\\x1b[2J\\u0007"\nmicro_batch_size: 1\n')
    assert config.base_model == "evil\\x1b[2J\\x07"


def test_bad_gpus_argument_is_a_caller_error() -> None:
    config = ds(train_batch_size=8)
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="gpus"):
            config.derived(bad)


# --------------------------------------------------------------------------- round trips

SETUPS = [
    TrainingSetup(b, a, g, n, z, p, o)
    for b, a, g, n, z, p, o in itertools.product(
        (1, 3), (1, 4), (2, 6), (1, 2), ZeroStage, Precision, Offload
    )
    if setup_problem(TrainingSetup(b, a, g, n, z, p, o)) is None
]


def _id(s: TrainingSetup) -> str:
    return (
        f"b{s.micro_batch}a{s.accumulation_steps}g{s.gpus}n{s.nodes}"
        f"z{int(s.zero_stage)}{s.precision.value}{s.offload.value}"
    )


@pytest.mark.parametrize("setup", SETUPS, ids=_id)
def test_deepspeed_export_reads_back(setup: TrainingSetup) -> None:
    text = export(ExportFormat.DEEPSPEED, setup).files["ds_config.json"]
    config = read_config(text)
    assert config.kind is ConfigKind.DEEPSPEED
    assert config.unread == () and config.auto_keys == ()
    assert (config.micro_batch, config.accumulation_steps) == (
        setup.micro_batch,
        setup.accumulation_steps,
    )
    assert config.train_batch_size == setup.effective_batch
    assert config.zero_stage is setup.zero_stage
    assert config.precision is setup.precision
    # the JSON carries no node count: its setup is on one node
    got, missing = config.setup()
    assert missing == []
    assert got == TrainingSetup(
        setup.micro_batch,
        setup.accumulation_steps,
        setup.gpus,
        1,
        setup.zero_stage,
        setup.precision,
        setup.offload,
    )


@pytest.mark.parametrize("setup", SETUPS, ids=_id)
def test_accelerate_export_reads_back(setup: TrainingSetup) -> None:
    text = export(ExportFormat.ACCELERATE, setup).files["accelerate_config.yaml"]
    config = read_config(text)
    assert config.kind is ConfigKind.ACCELERATE
    assert config.unread == () and config.auto_keys == ()
    assert (config.gpus, config.nodes, config.precision) == (
        setup.gpus,
        setup.nodes,
        setup.precision,
    )
    if setup.zero_stage is ZeroStage.NONE:
        # the steps are in launch.sh (ACCELERATE_GRADIENT_ACCUMULATION_STEPS)
        assert config.accumulation_steps is None
        assert config.missing() == ["micro-batch", "accumulation steps"]
    else:
        assert config.accumulation_steps == setup.accumulation_steps
        assert config.zero_stage is setup.zero_stage
        assert config.offload is setup.offload
        # the micro-batch is train.py's DataLoader: given it, the setup is whole
        assert config.missing() == ["micro-batch"]
        rebuilt = ImportedConfig(
            **{**config.__dict__, "micro_batch": setup.micro_batch}  # as train.py says
        )
        assert rebuilt.setup() == (setup, [])


@pytest.mark.parametrize("setup", SETUPS, ids=_id)
def test_hf_deepspeed_export_reads_back(setup: TrainingSetup) -> None:
    text = export(ExportFormat.HF_DEEPSPEED, setup).files["ds_config.json"]
    config = read_config(text)
    assert config.kind is ConfigKind.DEEPSPEED
    assert config.unread == ()
    assert config.zero_stage is setup.zero_stage
    assert (config.offload or Offload.NONE) is setup.offload
    # batch values and precision are the Trainer's (train.py): "auto" here
    assert config.auto_keys == (
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "bf16.enabled",
        "fp16.enabled",
    )
    assert config.micro_batch is None and config.precision is None
    assert config.missing(setup.gpus) == ["micro-batch", "accumulation steps", "precision"]


# --------------------------------------------------------------------------- fuzzing

KEYS = [
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "gradient_accumulation_steps",
    "zero_optimization",
    "stage",
    "offload_optimizer",
    "offload_param",
    "device",
    "bf16",
    "fp16",
    "bfloat16",
    "enabled",
    "cpu_offload",
    "num_processes",
    "num_machines",
    "mixed_precision",
    "distributed_type",
    "deepspeed_config",
    "zero_stage",
    "offload_optimizer_device",
    "offload_param_device",
    "deepspeed_config_file",
    "fsdp_config",
    "micro_batch_size",
    "batch_size",
    "adapter",
    "lora_r",
    "lora_target_modules",
    "load_in_4bit",
    "base_model",
    "sequence_len",
    "deepspeed",
    "fsdp",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-4, max_value=64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "auto",
            "cpu",
            "none",
            "nvme",
            "no",
            "bf16",
            "fp16",
            "fp8",
            "lora",
            "qlora",
            "DEEPSPEED",
            "MULTI_GPU",
            "FSDP",
            "ds.json",
            "",
            "\x00\x1b",
        ]
    ),
    st.text(max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=6),
    ),
    max_leaves=30,
)
CONFIGS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=10)


def _check(config: ImportedConfig) -> None:
    for name in (
        "micro_batch",
        "accumulation_steps",
        "train_batch_size",
        "batch_per_gpu",
        "gpus",
        "nodes",
        "lora_rank",
        "sequence_length",
    ):
        value = getattr(config, name)
        assert value is None or (type(value) is int and value >= 1), (name, value)
    assert config.base_4bit in (None, True, False)
    json.dumps(config.values())
    for gpus in (None, 1, 3, 1_000_000):
        d = config.derived(gpus)
        setup, reasons = config.setup(gpus)
        assert (setup is None) == bool(reasons)
        if setup is not None:
            assert d.effective_batch == setup.effective_batch


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONFIGS, st.booleans())
def test_fuzzed_configs_only_raise_config_import_error(data: dict[str, Any], as_json: bool) -> None:
    text = json.dumps(data) if as_json else yaml.safe_dump(data, allow_unicode=True)
    try:
        config = read_config(text)
    except ConfigImportError as exc:
        assert "\n" not in str(exc)
        return
    _check(config)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_fuzzed_text_only_raises_config_import_error(text: str) -> None:
    try:
        config = read_config(text + "\n")
    except ConfigImportError as exc:
        assert "\n" not in str(exc)
        return
    _check(config)


def test_axolotl_lora_target_linear_adapts_every_linear_layer() -> None:
    text = (
        "base_model: meta-llama/Llama-3.1-8B\nadapter: qlora\nload_in_4bit: true\n"
        "lora_r: 32\nlora_target_linear: true\nlora_target_modules: [q_proj]\n"
        "micro_batch_size: 2\ngradient_accumulation_steps: 4\n"
    )
    config = read_config(text, "axolotl.yml")
    assert config.lora_targets == ("all-linear",)
    assert config.key_of("lora_targets") == "lora_target_linear"
    refused = read_config(text.replace("lora_target_linear: true", "lora_target_linear: 3"), "a")
    assert [u.key for u in refused.unread] == ["lora_target_linear"]
    assert refused.lora_targets == ("q_proj",)


def test_axolotl_deepspeed_launch_folder_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    launch = tmp_path / "launch"
    launch.mkdir()
    monkeypatch.chdir(launch)
    yaml_text = "micro_batch_size: 2\ngradient_accumulation_steps: 2\ndeepspeed: ds.json\n"
    config_path = write(tmp_path / "cfg", "a.yml", yaml_text)
    write(tmp_path / "cfg", "ds.json", json.dumps({"zero_optimization": {"stage": 2}}))
    beside = read_config(config_path)
    assert beside.zero_stage == ZeroStage(2)
    assert beside.resolved_files == (
        ResolvedFile("deepspeed", "ds.json", str(tmp_path / "cfg/ds.json"), "config folder"),
    )
    write(launch, "ds.json", json.dumps({"zero_optimization": {"stage": 3}}))
    first = read_config(config_path)
    assert first.zero_stage == ZeroStage(3)
    assert first.resolved_files[0].where == "launch folder"
    assert first.resolved_files[0].path == str(launch / "ds.json")


def test_deepspeed_unknown_keys() -> None:
    text = json.dumps(
        {
            "trian_batch_size": 8,
            "train_micro_batch_size_per_gpu": 2,
            "zero_optimisation": {"stage": 2},
        }
    )
    config = read_config(text)
    assert config.unknown_keys == (
        UnknownKey(
            "trian_batch_size", "train_batch_size", False, "DeepSpeed ignores keys it does not know"
        ),
        UnknownKey(
            "zero_optimisation",
            "zero_optimization",
            False,
            "DeepSpeed ignores keys it does not know",
        ),
    )
    zero = read_config(
        json.dumps(
            {
                "train_batch_size": 8,
                "zero_optimization": {
                    "stage": 2,
                    "overlap_com": True,
                    "offload_optimizer": {"device": "cpu", "pin_memroy": True},
                },
            }
        )
    )
    assert [(u.key, u.suggestion, u.refused) for u in zero.unknown_keys] == [
        ("zero_optimization.overlap_com", "overlap_comm", True),
        ("zero_optimization.offload_optimizer.pin_memroy", "pin_memory", True),
    ]
    removed = read_config(json.dumps({"train_batch_size": 8, "amp": {"enabled": True}}))
    assert [(u.key, u.refused) for u in removed.unknown_keys] == [("amp", True)]
    # GPT-NeoX's YAML has keys of its own: only its zero_optimization is checked
    neox = read_config("train_micro_batch_size_per_gpu: 4\npipe_parallel_size: 1\nnum_layers: 4\n")
    assert neox.unknown_keys == ()


def test_accelerate_unknown_keys() -> None:
    config = read_config("distributed_type: MULTI_GPU\nnum_proceses: 8\nmixed_precision: bf16\n")
    assert config.unknown_keys == (
        UnknownKey(
            "num_proceses",
            "num_processes",
            True,
            "accelerate refuses a config file with unknown keys",
        ),
    )
    # the old fp16 key is converted by accelerate's process_config
    assert read_config("distributed_type: MULTI_GPU\nfp16: true\n").unknown_keys == ()


def test_axolotl_8bit_linear_and_tokens() -> None:
    config = read_config(
        "micro_batch_size: 2\ngradient_accumulation_steps: 4\nload_in_8bit: true\n"
        "adapter: lora\nlora_target_linear: true\nsequence_len: 2048\n"
    )
    assert config.base_8bit is True and config.lora_targets == ("all-linear",)
    assert config.sequence_length == 2048
    assert config.values()["base_8bit"] is True
    neox = read_config("train_micro_batch_size_per_gpu: 4\nseq_length: 4096\n")
    assert neox.kind is ConfigKind.NEOX and neox.sequence_length == 4096


def test_json_error_reads_cleanly() -> None:
    with pytest.raises(ConfigImportError) as info:
        read_config('{"train_batch_size": "8', name="ds.json")
    assert "at at" not in str(info.value)
    assert str(info.value) == (
        "ds.json: not valid JSON: Unterminated string starting at line 1, column 22"
    )


def test_the_old_bfloat16_section_with_auto_stays_off() -> None:
    """transformers fills only "bf16.enabled"; DeepSpeed drops a leftover "auto" (the
    trainer tier runs both on the published file): bf16 is off, and we say why."""
    config = read_config(json.dumps({"bfloat16": {"enabled": "auto"}}))
    assert config.precision is Precision.FP32 and config.values()["precision"] == "fp32"
    assert "bfloat16.enabled" not in config.auto_keys
    (unread,) = [u for u in config.unread if u.key == "bfloat16.enabled"]
    assert "bf16 stays off" in unread.reason
    # the current name with "auto" is still left for the Trainer to fill
    current = read_config(json.dumps({"bf16": {"enabled": "auto"}}))
    assert current.values()["precision"] is None and "bf16.enabled" in current.auto_keys
