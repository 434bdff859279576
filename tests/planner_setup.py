"""Shared set-ups for the time-per-step tests: a planner with a plan, the pipeline that
makes the pairs' times differ, and a measured speed profile written to a file."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from PySide6.QtCore import QLocale

from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.gpus import TrainingPrecision
from gradacc_desktop.core.profile import SpeedProfile, profile_to_json
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlanField, PlannerViewModel


def planner(locale: str = "en") -> PlannerViewModel:
    """A target of 512 on 8 GPUs, 2 GB of activations per sample, 20 GB other memory."""
    vm = PlannerViewModel(CalculatorViewModel(QLocale(locale)))
    vm.set_text(PlanField.TARGET, "512")
    vm.set_text(PlanField.GPUS, "8")
    vm.set_text(PlanField.ACTIVATION, "2")
    vm.set_text(PlanField.OTHER_MEMORY, "20")
    return vm


def pipeline(vm: PlannerViewModel) -> None:
    """Llama-3-70B on 8 data × 8 tensor × 4 pipeline GPUs: the pairs' times differ."""
    vm.set_model("llama-3-70b")
    vm.set_text(PlanField.SEQ_LEN, "4096")
    vm.set_text(PlanField.TENSOR_PARALLEL, "8")
    vm.set_text(PlanField.PIPELINE_STAGES, "4")
    vm.set_text(PlanField.NODES, "32")


def write_profile(path: Path, seq_len: int = 4096) -> Path:
    """A profile measured on an A100: 0.5 s at micro-batch 1, 4 s at 8."""
    profile = SpeedProfile(
        device="cuda:0 (NVIDIA A100-SXM4-80GB)",
        dtype=TrainingPrecision.BF16,
        model="Llama-3.1-8B",
        params=8_030_261_248,
        seq_len=seq_len,
        recompute=Recompute.NONE,
        attention="sdpa",
        points=((1, Fraction(1, 2)), (8, Fraction(4))),
        repeats=(3, 3),
    )
    path.write_text(profile_to_json(profile), encoding="utf-8")
    return path
