"""The master copy (``MasterWeights``) against what the frameworks keep.

DeepSpeed 0.19.8 runs one step on the CPU with the ds_config.json the export writes (its
``bf16`` section with or without ``bf16_master_weights_and_grads`` and
``bf16_optimizer_states``), and its ZeRO optimizer's master partition and Adam's states
are weighed per parameter; pure bf16 is ``torch.optim.AdamW`` over bf16 parameters. The
model-state components the plan counts must weigh the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import torch

from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.model_states import StatePart, model_states
from gradacc_desktop.core.memory.setup import Precision, TrainingSetup
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
