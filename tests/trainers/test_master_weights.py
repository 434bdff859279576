"""The master copy (``MasterWeights``) against what the frameworks keep.

DeepSpeed 0.19.8 runs one step on the CPU with the ds_config.json the export writes (its
``bf16`` section with or without ``bf16_master_weights_and_grads`` and
``bf16_optimizer_states``), and its ZeRO optimizer's master partition and Adam's states
are weighed per parameter; pure bf16 is ``torch.optim.AdamW`` over bf16 parameters. The
model-state components the plan counts must weigh the same.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import torch

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.model_states import StatePart, model_states
from gradacc_desktop.core.memory.setup import Offload, Precision, TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights

PROJECT = Path(__file__).parent / "project"
BIN = Path(sys.executable).parent
PARAMS = 1_000_000


def _per_param(master: MasterWeights, part: StatePart) -> Fraction:
    """Bytes per parameter of one component the plan counts (ZeRO-1 on one GPU)."""
    states = model_states(PARAMS, 1, ZeroStage.OPTIMIZER, master=master)
    return sum((c.bytes for c in states.components if c.part is part), Fraction(0)) / PARAMS


def _deepspeed_keeps(master: MasterWeights, folder: Path) -> dict[str, float]:
    setup = TrainingSetup(2, 1, 1, zero_stage=ZeroStage.OPTIMIZER, master=master)
    (folder / "ds_config.json").write_text(
        export(ExportFormat.DEEPSPEED, setup).files["ds_config.json"], encoding="utf-8"
    )
    shutil.copy(PROJECT / "ds_states.py", folder)
    env = {**os.environ, "DS_ACCELERATOR": "cpu", "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [str(BIN / "torchrun"), "--nproc_per_node", "1", "ds_states.py"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("{")]
    kept: dict[str, float] = json.loads(line)
    return kept


def test_deepspeed_keeps_the_master_copy_and_states_the_plan_counts(tmp_path: Path) -> None:
    for master in (MasterWeights.FP32, MasterWeights.BF16):
        folder = tmp_path / master.value
        folder.mkdir()
        kept = _deepspeed_keeps(master, folder)
        assert kept["master"] == _per_param(master, StatePart.MASTER_WEIGHTS), master
        assert kept["states"] == _per_param(master, StatePart.OPTIMIZER_STATES), master
    # the bf16 copy and states are half the fp32 ones, as DeepSpeed keeps them
    assert _per_param(MasterWeights.BF16, StatePart.MASTER_WEIGHTS) == 2
    assert _per_param(MasterWeights.BF16, StatePart.OPTIMIZER_STATES) == 4


def test_pure_bf16_adamw_keeps_the_states_the_plan_counts() -> None:
    model = torch.nn.Linear(128, 64).to(torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.randn(4, 128, dtype=torch.bfloat16)).float().pow(2).mean().backward()
    optimizer.step()
    tensors = [t for s in optimizer.state.values() for t in s.values() if t.dim()]
    states = Fraction(sum(t.numel() * t.element_size() for t in tensors), params)
    grads = Fraction(
        sum(p.grad.numel() * p.grad.element_size() for p in model.parameters()), params
    )  # type: ignore[union-attr]
    weights = Fraction(sum(p.numel() * p.element_size() for p in model.parameters()), params)
    counted = model_states(
        PARAMS, 1, ZeroStage.NONE, precision=Precision.BF16, master=MasterWeights.NONE
    )
    by_part = {
        part: sum((c.bytes for c in counted.components if c.part is part), Fraction(0)) / PARAMS
        for part in StatePart
    }
    assert by_part[StatePart.OPTIMIZER_STATES] == states == 4
    assert by_part[StatePart.GRADIENTS] == grads == 2
    assert by_part[StatePart.WEIGHTS] == weights == 2
    assert by_part[StatePart.MASTER_WEIGHTS] == by_part[StatePart.FP32_GRADIENTS] == 0
    assert counted.gpu_bytes == 8 * PARAMS


# ------------------------------------------------------------------ the exports, read


FSDP_SETUPS = [
    TrainingSetup(2, 4, 8, zero_stage=ZeroStage(z), offload=o, framework=Framework.FSDP, master=m)
    for z in (2, 3)
    for o in (Offload.NONE, Offload.ALL)
    for m in (MasterWeights.FP32, MasterWeights.NONE)
    if not (o is Offload.ALL and z == 2)  # parameter offload needs ZeRO-3
]


def _fsdp_id(s: TrainingSetup) -> str:
    return f"z{int(s.zero_stage)}-{s.offload.value}-{s.master.value}"


@pytest.mark.parametrize("setup", FSDP_SETUPS, ids=_fsdp_id)
def test_accelerate_launches_the_fsdp_file_as_fsdp2(
    setup: TrainingSetup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``accelerate launch`` reads the exported YAML into the environment its FSDP plugin
    is built from: FSDP2, resharding after the forward for ZeRO-3, the offload, and no
    mixed precision for pure bf16 (accelerate would upcast the shards to fp32)."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils import FullyShardedDataParallelPlugin
    from accelerate.utils.launch import prepare_multi_gpu_env

    (tmp_path / "accelerate_config.yaml").write_text(
        export(ExportFormat.ACCELERATE, setup).files["accelerate_config.yaml"], "utf-8"
    )
    parser = launch_command_parser()
    args = parser.parse_args(["--config_file", str(tmp_path / "accelerate_config.yaml"), "t.py"])
    args, _defaults, _mixed = _validate_launch_command(args)
    assert args.use_fsdp and not args.use_deepspeed
    env = prepare_multi_gpu_env(args)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    plugin = FullyShardedDataParallelPlugin()
    assert plugin.fsdp_version == 2
    assert plugin.reshard_after_forward is (setup.zero_stage is ZeroStage.WEIGHTS)
    offloads = type(plugin.cpu_offload).__name__ == "CPUOffloadPolicy"
    assert offloads is (setup.offload is Offload.ALL)
    pure = setup.master is MasterWeights.NONE
    assert env["ACCELERATE_MIXED_PRECISION"] == ("no" if pure else "bf16")


def test_the_rule_book_reads_accelerate_as_fsdp_for_an_fsdp_setup() -> None:
    setup = TrainingSetup(2, 4, 8, zero_stage=ZeroStage.OPTIMIZER, framework=Framework.FSDP)
    exported = export(ExportFormat.ACCELERATE, setup)
    assert [r.rule.value for r in exported.refusals] == ["fsdp_zero1"]
    # DeepSpeed's plugin then: FSDP has no ZeRO-1
    assert "distributed_type: DEEPSPEED" in exported.files["accelerate_config.yaml"]


def test_training_arguments_and_lightning_read_pure_bf16(tmp_path: Path) -> None:
    import lightning as L

    setup = TrainingSetup(2, 4, 8, framework=Framework.FSDP, master=MasterWeights.NONE)
    files = export(ExportFormat.HF, setup).files
    assert "bf16=True" not in files["train.py"]  # no mixed precision: no fp32 upcast
    # the exported Trainer(...) call, built by Lightning on the CPU (as test_configs does)
    tree = ast.parse(export(ExportFormat.LIGHTNING, setup).files["train.py"])
    call = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "trainer"
    )
    source = ast.unparse(call).replace("accelerator='auto'", "accelerator='cpu'")
    trainer = eval(source, {"L": L})
    assert trainer.precision == "bf16-true"  # no fp32 master weights
