"""The master copy: what a bf16 training's optimizer updates, counted as each framework
keeps it, checked in one place, read from the files that say it and written into the
DeepSpeed exports."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.config_import import read_config
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.framework_states import framework_states
from gradacc_desktop.core.memory.model_states import StatePart, model_states
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.setup import Precision, TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.imported import fixed_by
from gradacc_desktop.core.training.plan import plan

P = 1_000_000
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"),
    seq_len=2048,
    card=load_gpu_table().by_id("h100-80gb"),
    gpus=8,
    target_batch=64,
    micro_batch=1,
    zero_stage=ZeroStage.WEIGHTS,
)


def _per_param(master: MasterWeights, stage: ZeroStage = ZeroStage.NONE, **kw: object) -> Fraction:
    states = model_states(P, 1, stage, master=master, **kw)  # type: ignore[arg-type]
    return Fraction(states.gpu_bytes, P)


def test_whole_on_one_gpu_the_bytes_per_parameter_are_deepspeedexamples() -> None:
    # DeepSpeedExamples' bf16_master_weight README counts 20 bytes per parameter with the
    # fp32 master copy (2 + 2 + 4 + 4 + 8) and 12 with bf16 master, gradients and states
    assert _per_param(MasterWeights.FP32) == 20
    assert _per_param(MasterWeights.BF16) == 12
    # pure bf16: the weights, their gradients and Adam's two bf16 moments
    assert _per_param(MasterWeights.NONE) == 8


@pytest.mark.parametrize("optimizer_bytes,sixteen", [(8, 4), (4, 2), (2, 2)])
def test_the_optimizers_states_in_bf16(optimizer_bytes: int, sixteen: int) -> None:
    for master in (MasterWeights.BF16, MasterWeights.NONE):
        states = model_states(
            P, 1, ZeroStage.NONE, master=master, optimizer_state_bytes=optimizer_bytes
        )
        kept = sum(c.bytes for c in states.components if c.part is StatePart.OPTIMIZER_STATES)
        assert kept == sixteen * P  # Adam 8 -> 4, SGD's momentum 4 -> 2, 8-bit Adam stays 2


def test_zero3_shards_the_smaller_states() -> None:
    for master, sharded in (
        (MasterWeights.FP32, 18),
        (MasterWeights.BF16, 10),
        (MasterWeights.NONE, 8),
    ):
        states = model_states(8 * P, 8, ZeroStage.WEIGHTS, master=master)
        assert states.gpu_bytes == sharded * P, master


def test_fp32_training_has_no_master_copy_whatever_is_asked() -> None:
    for master in MasterWeights:
        states = model_states(P, 1, ZeroStage.NONE, precision=Precision.FP32, master=master)
        assert states.gpu_bytes == 16 * P and states.master is MasterWeights.FP32


def test_fsdp_in_pure_bf16_keeps_bf16_shards() -> None:
    mixed = framework_states(Framework.FSDP, 8 * P, 8, ZeroStage.WEIGHTS)
    pure = framework_states(Framework.FSDP, 8 * P, 8, ZeroStage.WEIGHTS, master=MasterWeights.NONE)
    assert mixed.gpu_bytes == 16 * P and pure.gpu_bytes == 8 * P  # 2 + 2 + 4 per parameter
    assert {c.part for c in pure.components if c.where == "gpu"} == {
        StatePart.WEIGHTS,
        StatePart.GRADIENTS,
        StatePart.OPTIMIZER_STATES,
        StatePart.LARGEST_LAYER,
    }
    # FSDP2 has no bf16 copy beside its shards: the fp32 one is counted
    bf16 = framework_states(Framework.FSDP, 8 * P, 8, ZeroStage.WEIGHTS, master=MasterWeights.BF16)
    assert bf16.gpu_bytes == mixed.gpu_bytes and bf16.master is MasterWeights.FP32


@pytest.mark.parametrize(
    ("framework", "precision", "asked", "counted"),
    [
        (Framework.DEEPSPEED, Precision.BF16, MasterWeights.BF16, MasterWeights.BF16),
        (Framework.DEEPSPEED, Precision.BF16, MasterWeights.NONE, MasterWeights.FP32),
        (Framework.FSDP, Precision.BF16, MasterWeights.NONE, MasterWeights.NONE),
        (Framework.FSDP, Precision.BF16, MasterWeights.BF16, MasterWeights.FP32),
        (Framework.MEGATRON, Precision.BF16, MasterWeights.BF16, MasterWeights.FP32),
        (Framework.DEEPSPEED, Precision.FP16, MasterWeights.BF16, MasterWeights.FP32),
    ],
)
def test_the_plan_counts_the_master_copy_the_framework_keeps(
    framework: Framework, precision: Precision, asked: MasterWeights, counted: MasterWeights
) -> None:
    d = replace(LLAMA, framework=framework, precision=precision, master_weights=asked)
    p = plan(d)
    assert d.master is counted
    fp32 = plan(replace(d, master_weights=MasterWeights.FP32))
    assert (p.fit is not None) and (fp32.fit is not None)
    if counted is MasterWeights.FP32:
        assert p.fit.per_gpu_bytes == fp32.fit.per_gpu_bytes
        assert [x.kind.value for x in p.problems][:1] != []  # said, not silently changed
    else:
        assert p.fit.per_gpu_bytes < fp32.fit.per_gpu_bytes
        assert p.problems == ()


def test_the_deepspeed_export_writes_the_bf16_master_copy() -> None:
    setup = TrainingSetup(2, 4, 8, zero_stage=ZeroStage.GRADIENTS, master=MasterWeights.BF16)
    config = json.loads(export(ExportFormat.DEEPSPEED, setup).files["ds_config.json"])
    assert config["bf16"] == {
        "enabled": True,
        "bf16_master_weights_and_grads": True,
        "bf16_optimizer_states": True,
    }
    plain = json.loads(
        export(ExportFormat.DEEPSPEED, replace(setup, master=MasterWeights.FP32)).files[
            "ds_config.json"
        ]
    )
    assert plain["bf16"] == {"enabled": True}


def test_a_deepspeed_file_with_both_keys_is_read_as_the_bf16_master_copy(tmp_path: Path) -> None:
    def read(bf16: dict[str, object]) -> MasterWeights | None:
        path = tmp_path / "ds.json"
        data = {"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}
        path.write_text(json.dumps({**data, "bf16": bf16}), "utf-8")
        return read_config(path).master_weights

    both = {"enabled": True, "bf16_master_weights_and_grads": True, "bf16_optimizer_states": True}
    assert read(both) is MasterWeights.BF16
    # the master copy alone keeps fp32 states: the fp32 master copy is counted (more)
    assert read({"enabled": True, "bf16_master_weights_and_grads": True}) is None
    assert read({"enabled": True}) is None


def test_a_torchtune_file_is_pure_bf16_under_fsdp(tmp_path: Path) -> None:
    path = tmp_path / "tune.yaml"
    path.write_text(
        "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
        "batch_size: 2\ngradient_accumulation_steps: 4\ndtype: bf16\n",
        "utf-8",
    )
    config = read_config(path)
    assert config.master_weights is MasterWeights.NONE
    setup, _ = config.setup(8)
    assert setup is not None
    d = fixed_by(config, setup, LLAMA)
    assert (d.framework, d.master_weights, d.master) == (
        Framework.FSDP,
        MasterWeights.NONE,
        MasterWeights.NONE,
    )
    assert plan(d).problems == ()


def test_fsdp_zero2_in_pure_bf16_keeps_one_row_per_part() -> None:
    z2 = framework_states(Framework.FSDP, 8 * P, 8, ZeroStage.GRADIENTS, master=MasterWeights.NONE)
    parts = [c.part for c in z2.components if c.where == "gpu"]
    assert len(parts) == len(set(parts))
    # the shards (2 + 2 + 4 per parameter over 8) and the gathered weights and gradients
    assert z2.gpu_bytes == 8 * P + (2 + 2) * 8 * P
