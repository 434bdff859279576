"""The files of each export format, read back as their formats (JSON, YAML-ish, Python)."""

from __future__ import annotations

import ast
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.frameworks.export import (
    ExportFormat,
    accelerate_config,
    export,
    megatron_arguments,
)
from gradacc_desktop.core.memory.setup import (
    Offload,
    Precision,
    SetupProblem,
    TrainingSetup,
    setup_problem,
)
from gradacc_desktop.core.memory.zero import ZeroStage

ints = st.integers(min_value=1, max_value=1_000_000)

EXPECTED_FILES = {
    ExportFormat.DEEPSPEED: ["ds_config.json"],
    ExportFormat.HF: ["train.py", "launch.sh"],
    ExportFormat.HF_DEEPSPEED: ["ds_config.json", "train.py", "launch.sh"],
    ExportFormat.ACCELERATE: ["accelerate_config.yaml", "train.py", "launch.sh"],
    ExportFormat.LIGHTNING: ["train.py", "launch.sh"],
    ExportFormat.TORCHRUN: ["train.py", "launch.sh"],
    ExportFormat.MEGATRON: ["megatron_args.sh", "launch.sh"],
}


def _setup(**kw: object) -> TrainingSetup:
    values: dict[str, object] = {"micro_batch": 4, "accumulation_steps": 8, "gpus": 16}
    values.update(kw)
    return TrainingSetup(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", list(ExportFormat))
def test_each_format_writes_its_own_files(fmt: ExportFormat) -> None:
    files = export(fmt, _setup()).files
    assert list(files) == EXPECTED_FILES[fmt]
    for name, content in files.items():
        assert content.endswith("\n")
        if name.endswith(".py"):
            ast.parse(content)
        if name.endswith(".json"):
            json.loads(content)


def test_deepspeed_json_is_complete() -> None:
    config = json.loads(export(ExportFormat.DEEPSPEED, _setup(zero_stage=ZeroStage(2))).text)
    assert config == {
        "train_batch_size": 512,
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 8,
        "zero_optimization": {"stage": 2},
        "bf16": {"enabled": True},
        "fp16": {"enabled": False},
    }


def test_deepspeed_offload_sections() -> None:
    setup = _setup(zero_stage=ZeroStage(3), offload=Offload.ALL, precision=Precision.FP16)
    config = json.loads(export(ExportFormat.DEEPSPEED, setup).text)
    zero = config["zero_optimization"]
    assert zero["offload_optimizer"]["device"] == "cpu"
    assert zero["offload_param"]["device"] == "cpu"
    assert config["fp16"] == {"enabled": True} and config["bf16"] == {"enabled": False}


def test_hf_deepspeed_leaves_batch_to_the_trainer() -> None:
    files = export(ExportFormat.HF_DEEPSPEED, _setup(zero_stage=ZeroStage(2))).files
    config = json.loads(files["ds_config.json"])
    assert config["train_batch_size"] == "auto"
    assert config["gradient_accumulation_steps"] == "auto"
    assert config["bf16"] == {"enabled": "auto"}
    assert 'deepspeed="ds_config.json"' in files["train.py"]
    assert "per_device_train_batch_size=4," in files["train.py"]


def test_multi_node_launch_lines() -> None:
    setup = _setup(gpus=64, nodes=8)
    hf = export(ExportFormat.HF, setup).files["launch.sh"]
    assert "torchrun --nnodes 8 --nproc_per_node 8 " in hf
    assert '--node_rank "$NODE_RANK"' in hf
    lightning = export(ExportFormat.LIGHTNING, setup).files["train.py"]
    assert "devices=8," in lightning and "num_nodes=8," in lightning
    assert "devices=64" not in lightning


def test_accelerate_yaml_has_no_top_level_accumulation() -> None:
    plain = accelerate_config(_setup())
    assert "gradient_accumulation_steps" not in plain
    assert plain["distributed_type"] == "MULTI_GPU" and plain["num_processes"] == 16
    files = export(ExportFormat.ACCELERATE, _setup()).files
    assert "export ACCELERATE_GRADIENT_ACCUMULATION_STEPS=8" in files["launch.sh"]
    zero = accelerate_config(_setup(zero_stage=ZeroStage(3), offload=Offload.OPTIMIZER))
    assert zero["distributed_type"] == "DEEPSPEED"
    assert zero["deepspeed_config"] == {
        "gradient_accumulation_steps": 8,
        "zero_stage": 3,
        "offload_optimizer_device": "cpu",
        "offload_param_device": "none",
        "zero3_init_flag": True,
    }


def test_megatron_gets_global_batch() -> None:
    args = megatron_arguments(_setup(zero_stage=ZeroStage(1)))
    assert "--micro-batch-size 4" in args and "--global-batch-size 512" in args
    assert "--use-distributed-optimizer" in args and "--bf16" in args


@pytest.mark.parametrize(
    ("kw", "problem"),
    [
        ({"gpus": 6, "nodes": 4}, SetupProblem.UNEVEN_NODES),
        ({"offload": Offload.OPTIMIZER}, SetupProblem.OFFLOAD_NEEDS_ZERO),
        (
            {"zero_stage": ZeroStage(2), "offload": Offload.ALL},
            SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3,
        ),
    ],
)
def test_refused_setups(kw: dict[str, object], problem: SetupProblem) -> None:
    setup = _setup(**kw)
    assert setup_problem(setup) is problem
    with pytest.raises(ValueError):
        export(ExportFormat.DEEPSPEED, setup)


#: where each format's own fields (not the header comment) hold the micro-batch, the
#: accumulation steps and the GPUs: (file, pattern) -> the value it must read
_BATCH_FIELDS: dict[ExportFormat, tuple[tuple[str, str, str], ...]] = {
    ExportFormat.HF: (
        ("train.py", r"per_device_train_batch_size=(\d+),", "b"),
        ("train.py", r"gradient_accumulation_steps=(\d+),", "a"),
        ("launch.sh", r"--nproc_per_node (\d+) ", "g"),
    ),
    ExportFormat.ACCELERATE: (
        ("train.py", r"MICRO_BATCH = (\d+)", "b"),
        ("train.py", r"ACCUMULATION_STEPS = (\d+)", "a"),
        ("accelerate_config.yaml", r"num_processes: (\d+)", "g"),
    ),
    ExportFormat.LIGHTNING: (
        ("train.py", r"batch_size=(\d+), shuffle", "b"),
        ("train.py", r"accumulate_grad_batches=(\d+),", "a"),
        ("train.py", r"devices=(\d+),", "g"),
    ),
    ExportFormat.TORCHRUN: (
        ("train.py", r"MICRO_BATCH = (\d+)", "b"),
        ("train.py", r"ACCUMULATION_STEPS = (\d+)", "a"),
        ("launch.sh", r"--nproc_per_node (\d+) ", "g"),
    ),
    ExportFormat.MEGATRON: (
        ("megatron_args.sh", r"--micro-batch-size (\d+)", "b"),
        ("megatron_args.sh", r"--global-batch-size (\d+)", "E"),
        ("launch.sh", r"--nproc_per_node (\d+) ", "g"),
    ),
}
_BATCH_FIELDS[ExportFormat.HF_DEEPSPEED] = _BATCH_FIELDS[ExportFormat.HF]


@given(ints, ints, ints, st.sampled_from(list(ExportFormat)))
def test_every_format_carries_the_batch_in_its_own_fields(
    b: int, a: int, g: int, fmt: ExportFormat
) -> None:
    """Read back where each framework takes them from, not from our header comment."""
    files = export(fmt, TrainingSetup(b, a, g)).files
    assert all(text.endswith("\n") for text in files.values())
    if "ds_config.json" in files:
        config = json.loads(files["ds_config.json"])
        keys = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
        if fmt is ExportFormat.HF_DEEPSPEED:
            # the Trainer fills them from its own arguments (read below)
            assert [config[k] for k in keys] == ["auto"] * 3
        else:
            assert [config[k] for k in keys] == [b * a * g, b, a]
    expected = {"b": b, "a": a, "g": g, "E": b * a * g}
    for name, pattern, what in _BATCH_FIELDS.get(fmt, ()):
        found = re.findall(pattern, files[name])
        assert found == [str(expected[what])], (fmt, name, pattern, found)


@pytest.mark.parametrize("bad", [0, -3, True])
def test_rejects_bad_values(bad: int) -> None:
    with pytest.raises(ValueError):
        TrainingSetup(bad, 1, 1)
