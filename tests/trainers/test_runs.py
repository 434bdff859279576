"""Real two-process CPU runs (gloo) of each runnable export with a tiny model.

Each process records every forward's batch size, every optimizer step and every
gradient all-reduce (``project/my_training.py``). Per optimizer step the processes
together must have seen exactly the effective batch, and the plain-DDP paths must
all-reduce the gradients once per optimizer step (``no_sync`` on the micro-steps in
between), after the last micro-batch.

Megatron is not run: its trainer lives in Megatron-LM, not in megatron-core; its batch
arithmetic is read by megatron-core's own calculator in ``test_configs``. The
``hf-deepspeed`` variant is not run either: on a machine without GPUs the Trainer
either counts one process (and DeepSpeed then refuses the filled-in batch, correctly)
or, with ``use_cpu``, leaves DeepSpeed out; its JSON is read by the Trainer and by
DeepSpeed in ``test_configs`` and the same ``ds_config.json`` batch logic runs here
through DeepSpeed's engine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import Precision, TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage

PROJECT = Path(__file__).resolve().parent / "project"
BIN = Path(sys.executable).parent
MICRO, STEPS, WORLD = 2, 3, 2
EFFECTIVE = MICRO * STEPS * WORLD
SAMPLES = EFFECTIVE * 3  # three optimizer steps per epoch


def _run(fmt: ExportFormat, folder: Path, zero: int = 0) -> list[list[list[object]]]:
    setup = TrainingSetup(MICRO, STEPS, WORLD, zero_stage=ZeroStage(zero), precision=Precision.FP32)
    for name, content in export(fmt, setup).files.items():
        (folder / name).write_text(content, encoding="utf-8")
    shutil.copy(PROJECT / "my_training.py", folder)
    records = folder / "records"
    records.mkdir()
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "GRADACC_RECORD_DIR": str(records),
        "GRADACC_SAMPLES": str(SAMPLES),
        # no GPUs here: Accelerate and the HF Trainer take the CPU (gloo) path
        "ACCELERATE_USE_CPU": "true",
        "DS_ACCELERATOR": "cpu",
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    if fmt is ExportFormat.DEEPSPEED:
        shutil.copy(PROJECT / "ds_train.py", folder)
        command = [str(BIN / "torchrun"), "--nproc_per_node", str(WORLD), "ds_train.py"]
    else:
        command = ["bash", "launch.sh"]
    result = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    runs = [json.loads(p.read_text()) for p in sorted(records.glob("*.json"))]
    ranks = sorted(r["rank"] for r in runs)
    assert ranks == list(range(WORLD)), f"expected {WORLD} training processes, got {ranks}"
    return [r["events"] for r in sorted(runs, key=lambda r: r["rank"])]


def _windows(events: list[list[object]]) -> list[list[list[object]]]:
    """Events between optimizer steps (a trailing window without a step is dropped)."""
    windows: list[list[list[object]]] = [[]]
    for event in events:
        if event[0] == "step":
            windows.append([])
        else:
            windows[-1].append(event)
    return windows[:-1]


def _check_batches(per_rank: list[list[list[object]]]) -> list[list[list[list[object]]]]:
    windows = [_windows(events) for events in per_rank]
    assert len({len(w) for w in windows}) == 1, "ranks took different numbers of steps"
    assert len(windows[0]) >= 3
    for step in range(len(windows[0])):
        seen = [sum(int(e[1]) for e in w[step] if e[0] == "forward") for w in windows]
        # every process: micro-batch x accumulation steps; together: the effective batch
        assert seen == [MICRO * STEPS] * WORLD, f"step {step}: {seen}"
        assert sum(seen) == EFFECTIVE
        for w in windows:
            assert sum(1 for e in w[step] if e[0] == "forward") == STEPS
    return windows


def _check_one_allreduce_per_step(windows: list[list[list[list[object]]]]) -> None:
    for rank_windows in windows:
        for window in rank_windows:
            kinds = [e[0] for e in window if e[0] in ("forward", "allreduce")]
            assert kinds.count("allreduce") == 1, kinds
            assert kinds[-1] == "allreduce", f"all-reduce before the last micro-batch: {kinds}"


@pytest.mark.parametrize(
    "fmt",
    [ExportFormat.TORCHRUN, ExportFormat.HF, ExportFormat.ACCELERATE, ExportFormat.LIGHTNING],
    ids=lambda f: f.value,
)
def test_ddp_exports_train_at_the_effective_batch(fmt: ExportFormat, tmp_path: Path) -> None:
    windows = _check_batches(_run(fmt, tmp_path))
    _check_one_allreduce_per_step(windows)


def test_torchrun_zero1_trains_at_the_effective_batch(tmp_path: Path) -> None:
    windows = _check_batches(_run(ExportFormat.TORCHRUN, tmp_path, zero=1))
    _check_one_allreduce_per_step(windows)


@pytest.mark.parametrize("zero", [0, 1, 2])
def test_deepspeed_engine_trains_at_the_effective_batch(zero: int, tmp_path: Path) -> None:
    windows = _check_batches(_run(ExportFormat.DEEPSPEED, tmp_path, zero=zero))
    for rank_windows in windows:
        for window in rank_windows:
            kinds = [e[0] for e in window]
            forwards = [i for i, k in enumerate(kinds) if k == "forward"]
            between = kinds[forwards[0] : forwards[-1]]
            if zero < 2:
                # gradients are reduced at the accumulation boundary only
                assert "collective" not in between, kinds
            else:
                # ZeRO-2 reduce-scatters into its gradient partition after every
                # micro-batch: accumulation saves no communication there
                assert between.count("collective") >= STEPS - 1, kinds
