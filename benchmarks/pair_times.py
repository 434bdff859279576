"""Benchmark: recompute every candidate pair, with its step time, after one input change.

The planner's refresh after a keystroke is one ``plan(description)`` call: the pairs that
reach the target, each with its memory and step time, the recommended one and the
fastest. Goal: within one frame (16 ms) for targets up to 65 536 on up to 1 024 GPUs. Run alone with
``python benchmarks/pair_times.py``; ``make bench`` includes its table.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import plan

GOAL_MS = 16.0
# the most divisors below 65 536 (55 440 and 65 520 have 120), a power of two, a prime
TARGETS = (55_440, 65_520, 65_536, 65_521)
GPUS = (1, 8, 1024)
REPEATS = 30


#: Llama-3-70B on H100s, tensor parallel 8, ZeRO-3, the activation and other memory typed
#: as the view-model benchmark types them
BASE = TrainingDescription(
    model=ModelSpec.bundled("llama-3-70b"),
    seq_len=4096,
    card=load_gpu_table().by_id("h100-80gb"),
    tensor_parallel=8,
    zero_stage=ZeroStage.WEIGHTS,
    activation_gb=Decimal("0.05"),
    other_memory_gb=Decimal(30),
)


def refresh(target: int, gpus: int) -> int:
    """One planner refresh: the plan of the description; returns the pairs it timed."""
    result = plan(replace(BASE, gpus=gpus, nodes=gpus, target_batch=target))
    return sum(1 for pair in result.pairs if pair.time is not None)


def measure() -> list[tuple[int, int, int, float, float]]:
    gc.collect()
    gc.freeze()  # as the app does after start-up: no collection of start-up objects
    rows = []
    for gpus in GPUS:
        for target in TARGETS:
            samples = []
            pairs = refresh(target, gpus)  # warm-up (the tables are cached by then)
            for _ in range(REPEATS):
                start = time.perf_counter()
                refresh(target, gpus)
                samples.append((time.perf_counter() - start) * 1000)
            samples.sort()
            rows.append((target, gpus, pairs, statistics.median(samples), samples[-1]))
    return rows


def measure_view_model() -> list[tuple[int, int, int, float, float]]:
    """The same refresh through the view-models: one field of the training description
    changes, the description is planned (every pair timed), the planner words the plan
    in Portuguese and both states are emitted (offscreen Qt, no widgets)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication

    from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
    from gradacc_desktop.viewmodels.planner import PlannerViewModel
    from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
    from gradacc_desktop.viewmodels.training.model import TrainingViewModel

    app = QApplication.instance() or QApplication([])
    locale = QLocale("pt_BR")
    training = TrainingViewModel(locale)
    planner = PlannerViewModel(training, CalculatorViewModel(locale))
    training.set_choice(Choice.CARD, "h100-80gb")
    training.set_choice(Choice.MODEL, "llama-3-70b")
    training.set_text(TrainingField.SEQ_LEN, "4096")
    training.set_text(TrainingField.ACTIVATION, "0,05")
    training.set_text(TrainingField.OTHER_MEMORY, "30")
    training.set_text(TrainingField.TENSOR_PARALLEL, "8")
    gc.collect()
    gc.freeze()  # as the app does after start-up: no collection of start-up objects
    rows = []
    for gpus in GPUS:
        training.set_text(TrainingField.NODES, str(gpus))  # 8 GPUs per node: one TP group
        training.set_text(TrainingField.GPUS, str(gpus))
        for target in TARGETS:
            samples = []
            for repeat in range(REPEATS + 1):  # the first is a warm-up, not recorded
                # one keystroke: the target arrives from its neighbour (only that timed)
                training.set_text(TrainingField.TARGET, str(target - 1))
                start = time.perf_counter()
                training.set_text(TrainingField.TARGET, str(target))
                if repeat:
                    samples.append((time.perf_counter() - start) * 1000)
            training.set_text(TrainingField.TARGET, str(target))
            state = planner.state.results
            pairs = len(state.pairs) if state is not None else 0
            samples.sort()
            rows.append((target, gpus, pairs, statistics.median(samples), samples[-1]))
    del app
    return rows


def markdown(rows: list[tuple[int, int, int, float, float]]) -> str:
    worst = max(r[4] for r in rows)
    lines = [
        "## Every pair with its step time, after one input change",
        "",
        "The planner's refresh: one `plan(description)`, every candidate pair with its",
        "memory and step time, the recommended and the fastest pair (Llama-3-70B, tensor",
        f"parallel 8, ZeRO-3, H100, 8 GPUs per node), {REPEATS} runs each after a warm-up",
        "(benchmarks/pair_times.py), the start-up objects frozen as the app freezes them",
        "(`gc.freeze()`). Goal: within one frame, 16 ms.",
        "",
        "| target | data-parallel GPUs | pairs | median | max |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for target, gpus, pairs, median, high in rows:
        lines.append(f"| {target} | {gpus} | {pairs} | {median:.2f} ms | {high:.2f} ms |")
    verdict = "met" if worst <= GOAL_MS else "missed"
    lines += ["", f"Slowest refresh: {worst:.2f} ms (goal ≤ {GOAL_MS:.0f} ms: {verdict})."]
    return "\n".join(lines) + "\n"


def markdown_view_model(rows: list[tuple[int, int, int, float, float]]) -> str:
    worst = max(r[4] for r in rows)
    lines = [
        "",
        "Through the view-models (one field of the training description changes: the",
        "description planned with every pair timed, the planner's words in Portuguese,",
        "both states emitted; widgets not included):",
        "",
        "| target | data-parallel GPUs | pairs | median | max |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for target, gpus, pairs, median, high in rows:
        lines.append(f"| {target} | {gpus} | {pairs} | {median:.2f} ms | {high:.2f} ms |")
    verdict = "met" if worst <= GOAL_MS else "missed"
    lines += [
        "",
        f"Slowest view-model refresh: {worst:.2f} ms (goal ≤ {GOAL_MS:.0f} ms: {verdict}).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(measure()) + markdown_view_model(measure_view_model()))
