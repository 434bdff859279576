"""Time per optimizer step in ``gradacc plan``: the layout and speed flags, and the JSON
keys each plan and candidate gains (``step_seconds``, ``tokens_per_second``, ``mfu``,
``bubble_fraction`` and a few more)."""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.compute import UTILISATION_LIMITS, Recompute, significant
from ..core.gpus import TrainingPrecision, load_gpu_table
from ..core.layout import LAYOUT_LIMITS, ParallelLayout
from ..core.memory import ZeroStage
from ..core.planning import PlanPair, Recommendation
from ..core.profile import (
    MISMATCH_TEXT,
    ProfileError,
    SpeedProfile,
    load_profile,
    profile_mismatches,
)
from ..core.steptime import Hardware, NoSpeedError, StepModel, StepTime, Workload, hardware
from ._common import UsageError, decimal_type, int_type, plain
from .time import add_model_arguments, cost_of, resolve_model

DIGITS = 6


def register(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "time per step (with --params or --model, --seq-len and --gpu-card)"
    )
    group.add_argument(
        "--tensor-parallel",
        type=int_type(LAYOUT_LIMITS),
        default=1,
        metavar="TP",
        help="tensor-parallel size; --gpus stays the data-parallel size",
    )
    group.add_argument(
        "--pipeline-stages",
        type=int_type(LAYOUT_LIMITS),
        default=1,
        metavar="PP",
        help="pipeline stages (1F1B schedule; the accumulation steps are its micro-batches)",
    )
    add_model_arguments(parser, required=False)
    group.add_argument("--nodes", type=int_type(LAYOUT_LIMITS), default=1, metavar="N")
    group.add_argument(
        "--zero-stage", type=int, choices=[int(z) for z in ZeroStage], default=0, metavar="Z"
    )
    group.add_argument(
        "--precision",
        choices=[p.value for p in TrainingPrecision],
        default=TrainingPrecision.BF16.value,
    )
    group.add_argument(
        "--recompute", choices=[r.value for r in Recompute], default=Recompute.NONE.value
    )
    group.add_argument(
        "--speed-profile",
        metavar="PATH",
        help="a speed profile from python -m gradacc_desktop.measure --profile-out: its "
        "measured micro-step seconds replace the roofline",
    )
    group.add_argument(
        "--efficiency",
        type=decimal_type(UTILISATION_LIMITS),
        metavar="E",
        help="share of the card's peak its kernels reach (default: the card's)",
    )


class PlanTiming:
    def __init__(
        self, workload: Workload, hw: Hardware, profile: SpeedProfile | None = None
    ) -> None:
        self._model = StepModel(workload, hw, profile)

    def of(self, micro_batch: int, accumulation_steps: int) -> StepTime:
        return self._model.time(micro_batch, accumulation_steps)


def layout_of(args: argparse.Namespace) -> ParallelLayout:
    return ParallelLayout(args.gpus, args.tensor_parallel, args.pipeline_stages)


def timing(args: argparse.Namespace) -> PlanTiming | None:
    """The time model for these flags, or None when no model was named."""
    model = resolve_model(args)
    if model is None and args.params is None:
        for flag in ("efficiency", "speed_profile"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} needs --params or --model")
        return None
    if args.seq_len is None:
        raise UsageError("time per step needs --seq-len")
    if args.gpu_card is None:
        raise UsageError("time per step needs --gpu-card (its speed and links)")
    layout = layout_of(args)
    if layout.world % args.nodes:
        raise UsageError(
            f"--nodes: {layout.world} GPUs (data x tensor x pipeline) cannot be split "
            f"evenly over {args.nodes} nodes"
        )
    recompute = Recompute(args.recompute)
    cost = cost_of(args, model, recompute)
    card = load_gpu_table().by_id(args.gpu_card)
    precision = TrainingPrecision(args.precision)
    try:
        hw = hardware(card, precision, layout.world // args.nodes, args.efficiency)
    except NoSpeedError as exc:
        raise UsageError(f"--gpu-card: {exc}") from None
    activation = None
    if args.activation_gb is not None:
        activation = int(args.activation_gb * 10**9)
    workload = Workload(
        cost=cost,
        seq_len=args.seq_len,
        layout=layout,
        zero_stage=ZeroStage(args.zero_stage),
        precision=precision,
        hidden=None if model is None else model.hidden,
        layers=None if model is None else model.layers,
        activation_bytes_per_sample=activation,
    )
    profile = None
    if args.speed_profile is not None:
        try:
            profile = load_profile(args.speed_profile)
        except ProfileError as exc:
            raise UsageError(f"--speed-profile: {exc}") from None
        found = profile_mismatches(profile, args.seq_len, precision, recompute)
        for what, measured, planned in found:
            text = MISMATCH_TEXT[what].format(measured=measured, planned=planned)
            print(f"gradacc: warning: --speed-profile: {text}", file=sys.stderr)
    return PlanTiming(workload, hw, profile)


def _n(value: Fraction) -> Decimal:
    return significant(value, DIGITS)


def time_dict(step: StepTime) -> dict[str, Any]:
    """The keys a plan and each candidate gain."""
    return {
        "step_seconds": _n(step.step_seconds),
        "tokens_per_second": _n(step.tokens_per_second),
        "tokens_per_second_per_gpu": _n(step.tokens_per_second_per_gpu),
        "mfu": _n(step.mfu),
        "hfu": _n(step.hfu),
        "bubble_fraction": _n(step.bubble_fraction),
        "communication_fraction": _n(step.communication_fraction),
        "micro_step_seconds": _n(step.micro_step_seconds),
        "memory_bound": step.memory_bound,
        "measured": step.measured,
    }


def layout_dict(args: argparse.Namespace) -> dict[str, Any]:
    layout = layout_of(args)
    return {
        "data_parallel": layout.data,
        "tensor_parallel": layout.tensor,
        "pipeline_stages": layout.pipeline,
        "world_size": layout.world,
    }


def fastest(plan: PlanTiming, rec: Recommendation) -> tuple[PlanPair, StepTime]:
    """The fitting pair with the recommended effective batch and the most tokens/s."""
    same = [p for p in rec.pairs if p.effective_batch == rec.recommended.effective_batch]
    timed = [(p, plan.of(p.micro_batch, p.accumulation_steps)) for p in same]
    return max(timed, key=lambda pt: (pt[1].tokens_per_second, pt[0].micro_batch))


def fastest_dict(pair: PlanPair, step: StepTime) -> dict[str, Any]:
    return {
        "micro_batch": pair.micro_batch,
        "accumulation_steps": pair.accumulation_steps,
        "effective_batch": pair.effective_batch,
        **time_dict(step),
    }


def print_step(step: StepTime, label: str) -> None:
    print(
        f"{label}: {plain(_n(step.step_seconds))} s per optimizer step, "
        f"{plain(_n(step.tokens_per_second))} tokens/s, MFU {plain(_n(step.mfu))}"
        + (f", bubble {plain(_n(step.bubble_fraction))}" if step.bubble_seconds else "")
        + (", memory-bound" if step.memory_bound else "")
    )
