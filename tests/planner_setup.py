"""Shared set-ups for the description and plan tests: a description with a plan, the
pipeline that makes the pairs' times differ, and a measured speed profile in a file."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from PySide6.QtCore import QLocale

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.profile import SpeedProfile, profile_to_json
from gradacc_desktop.core.training.figures import shown_gb
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


def training(locale: str = "en") -> TrainingViewModel:
    """A target of 512 on 8 A100s, 2 GB of activations per sample and 20 GB of other
    memory typed in (no model)."""
    vm = TrainingViewModel(QLocale(locale))
    vm.set_text(TrainingField.TARGET, "512")
    vm.set_text(TrainingField.GPUS, "8")
    vm.set_text(TrainingField.ACTIVATION, "2")
    vm.set_text(TrainingField.OTHER_MEMORY, "20")
    return vm


def described(
    training: TrainingViewModel, micro_batch: str, activation: str, other: str | None = None
) -> None:
    """A target of 32 on one 80 GB card at ``micro_batch`` (the user's, not the
    recommended one) with ``activation`` per sample and ``other`` memory typed, in the
    training's locale (``0,5`` in pt-BR)."""
    training.set_choice(Choice.RECOMMEND, False)
    texts = {
        TrainingField.TARGET: "32",
        TrainingField.MICRO_BATCH: micro_batch,
        TrainingField.ACTIVATION: activation,
        TrainingField.OTHER_MEMORY: other or "",
    }
    for field, text in texts.items():
        training.set_text(field, text)


def planner(locale: str = "en") -> PlannerViewModel:
    """The plan of ``training(locale)``, beside a calculator."""
    return PlannerViewModel(training(locale), CalculatorViewModel(QLocale(locale)))


def pipeline(vm: TrainingViewModel) -> None:
    """Llama-3-70B on 8 data × 8 tensor × 4 pipeline GPUs, as torchtitan runs it (FSDP2:
    its tensor parallelism splits every activation evenly): the pairs' times differ."""
    vm.set_choice(Choice.FRAMEWORK, Framework.FSDP)
    vm.set_choice(Choice.MODEL, "llama-3-70b")
    vm.set_text(TrainingField.SEQ_LEN, "4096")
    vm.set_text(TrainingField.TENSOR_PARALLEL, "8")
    vm.set_text(TrainingField.PIPELINE_STAGES, "4")
    vm.set_text(TrainingField.NODES, "32")


def write_profile(path: Path, seq_len: int = 4096) -> Path:
    """A profile measured on an A100: 0.5 s at micro-batch 1, 4 s at 8."""
    profile = SpeedProfile(
        device="cuda:0 (NVIDIA A100-SXM4-80GB)",
        dtype=Precision.BF16,
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


def timed(vm: TrainingViewModel, model: str = "llama-3.1-8b", seq_len: str = "4096") -> None:
    """A bundled model at ``seq_len`` tokens: every pair gets a time."""
    vm.set_choice(Choice.MODEL, model)
    vm.set_text(TrainingField.SEQ_LEN, seq_len)


def one_gpu_llama(locale: str = "en") -> TrainingViewModel:
    """The issue's plan: Llama-3.1-8B, every parameter trained with Adam in bf16, 4 096
    tokens, a target of 512 on one A100 80GB, every memory figure derived."""
    vm = TrainingViewModel(QLocale(locale))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_text(TrainingField.SEQ_LEN, "4096")
    vm.set_text(TrainingField.TARGET, "512")
    return vm


def per_gpu_gb(vm: TrainingViewModel, micro_batch: int, decimal: str = ".") -> str:
    """The per-GPU memory of ``micro_batch``'s pair, as the planner writes it in GB."""
    plan = vm.state.plan
    assert plan is not None
    pair = next(p for p in plan.pairs if p.micro_batch == micro_batch)
    assert pair.per_gpu_bytes is not None
    return str(shown_gb(pair.per_gpu_bytes)).replace(".", decimal)


def activation_share_gb(vm: TrainingViewModel) -> float:
    """One sample's activations on the GPU that holds the most, in GB."""
    plan = vm.state.plan
    assert plan is not None and plan.figures.activation_per_gpu is not None
    return float(plan.figures.activation_per_gpu) / 1e9
