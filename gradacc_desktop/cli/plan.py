"""``gradacc plan``: from a target effective batch to micro-batch and accumulation steps."""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any

from ..core.frameworks import BatchVerdicts, batch_verdicts
from ..core.layout import first_stage_activation_gb
from ..core.planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    TARGET_LIMITS,
    DeepSpeedCheck,
    FitResult,
    GpuTableError,
    NothingFits,
    Recommendation,
    Rounding,
    deepspeed_check,
    fit,
    load_gpu_table,
    recommend,
    solve_accumulation,
    steps_per_epoch,
    tokens_per_step,
)
from . import plan_time
from ._common import ACTIVATION_GB, GPUS, MICRO_BATCH, UsageError, decimal_type, gb, int_type
from ._common import print_json as _print_json

_MEMORY_FLAGS = ("--gpu-memory-gb", "--other-memory-gb", "--activation-gb")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="accumulation steps (or a recommended micro-batch) for a target effective batch",
        description="Plan a run for a target effective batch. Without --micro-batch a "
        "micro-batch is recommended. Memory flags go together and are in decimal GB; "
        "--activation-gb is one sample of the whole model on one GPU (with tensor "
        "parallelism and pipeline stages the first stage holds it divided by the "
        "tensor-parallel size: p micro-batches of 1/p of the layers). --gpus is the "
        "data-parallel size.",
    )
    parser.add_argument("--target-batch", type=int_type(TARGET_LIMITS), required=True, metavar="T")
    parser.add_argument("--micro-batch", type=MICRO_BATCH, metavar="B")
    parser.add_argument("--gpus", type=GPUS, required=True, metavar="G")
    parser.add_argument(
        "--rounding", choices=[r.value for r in Rounding], default=Rounding.CEIL.value
    )
    parser.add_argument("--gpu-memory-gb", type=decimal_type(GPU_MEMORY_LIMITS), metavar="C")
    try:
        card_ids = [card.id for card in load_gpu_table().cards]
    except GpuTableError:  # a broken bundle must not take the whole CLI down
        card_ids = []
    parser.add_argument(
        "--gpu-card",
        choices=card_ids,
        metavar="CARD",
        help="use a known card's usable memory instead of --gpu-memory-gb "
        "(e.g. a100-80gb, h100-80gb, rtx-4090-24gb)",
    )
    parser.add_argument("--other-memory-gb", type=decimal_type(OTHER_MEMORY_LIMITS), metavar="O")
    parser.add_argument("--activation-gb", type=ACTIVATION_GB, metavar="X")
    parser.add_argument("--seq-len", type=int_type(SEQ_LEN_LIMITS), metavar="L")
    parser.add_argument("--dataset-samples", type=int_type(DATASET_LIMITS), metavar="N")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    plan_time.register(parser)
    parser.set_defaults(handler=run)


def _memory(args: argparse.Namespace) -> tuple[Decimal, Decimal, Decimal] | None:
    capacity = args.gpu_memory_gb
    if args.gpu_card is not None:
        if capacity is not None:
            raise UsageError("--gpu-card and --gpu-memory-gb are alternatives: give one")
        capacity = load_gpu_table().by_id(args.gpu_card).usable_gb
    activation = args.activation_gb
    if activation is not None:
        activation = first_stage_activation_gb(activation, args.tensor_parallel)
    values = (capacity, args.other_memory_gb, activation)
    if all(v is None for v in values):
        return None
    if any(v is None for v in values):
        raise UsageError(
            f"{', '.join(_MEMORY_FLAGS[:2])} and {_MEMORY_FLAGS[2]} go together "
            "(--gpu-card may replace --gpu-memory-gb)"
        )
    return values


def _fit_dict(result: FitResult | None) -> dict[str, Any]:
    if result is None:
        return {"fits": None, "max_micro_batch": None}
    return {
        "fits": result.fits,
        "max_micro_batch": result.max_micro_batch,
        "activation_gb": result.activation_gb,
        "total_gb": result.total_gb,
        "headroom_gb": result.headroom_gb,
        "gpu_memory_gb": result.gpu_memory_gb,
        "other_memory_gb": result.other_memory_gb,
    }


def _deepspeed_dict(check: DeepSpeedCheck) -> dict[str, Any]:
    return {
        "ok": check.ok,
        "reason": check.reason,
        "train_batch_size": check.train_batch_size,
        "train_micro_batch_size_per_gpu": check.micro_batch,
        "gradient_accumulation_steps": check.grad_acc,
    }


def _verdicts(v: BatchVerdicts) -> dict[str, Any]:
    """DeepSpeed's and Megatron's verdicts on the recipe's batch with this pair."""
    return {
        "deepspeed": {"ok": v.deepspeed.ok, "reason": v.deepspeed.reason},
        "megatron": {
            "ok": v.megatron.ok,
            "derived_accumulation_steps": v.megatron.derived_steps,
        },
    }


def _print_verdicts(v: BatchVerdicts, effective: int) -> None:
    if v.both_accept:
        print(
            f"DeepSpeed (train_batch_size={v.target}) and Megatron "
            f"(--global-batch-size {v.target}) accept this pair."
        )
        return
    per_step = v.micro_batch * v.gpus
    print(
        f"DeepSpeed refuses train_batch_size={v.target} with this pair "
        f"({v.micro_batch} x {v.accumulation_steps} x {v.gpus} = {effective}); "
        f"give it train_batch_size={effective} (gradacc export does)."
    )
    if v.megatron.ok:
        print(
            f"Megatron accepts --global-batch-size {v.target} but derives "
            f"{v.megatron.derived_steps} accumulation step(s), not {v.accumulation_steps}."
        )
    else:
        print(
            f"Megatron refuses --global-batch-size {v.target}: it is not a multiple of "
            f"micro-batch x GPUs = {per_step}."
        )


def _extras(args: argparse.Namespace, effective: int | None) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if effective is None:
        return extras
    if args.seq_len is not None:
        extras["tokens_per_step"] = tokens_per_step(effective, args.seq_len)
    if args.dataset_samples is not None:
        steps = steps_per_epoch(args.dataset_samples, effective)
        extras["steps_per_epoch"] = steps.keep_last
        extras["steps_per_epoch_drop_last"] = steps.drop_last
    return extras


def run(args: argparse.Namespace) -> int:
    memory = _memory(args)
    rounding = Rounding(args.rounding)
    args.timing = plan_time.timing(args)
    if args.micro_batch is not None:
        return _run_solve(args, rounding, memory)
    return _run_recommend(args, rounding, memory)


def _time_keys(args: argparse.Namespace, micro_batch: int, steps: int) -> dict[str, Any]:
    """The time keys of one pair (none without a model to time)."""
    if args.timing is None:
        return {}
    return plan_time.time_dict(args.timing.of(micro_batch, steps))


def _layout_keys(args: argparse.Namespace) -> dict[str, Any]:
    if args.timing is None and args.tensor_parallel == args.pipeline_stages == 1:
        return {}
    return {"layout": plan_time.layout_dict(args)}


def _run_solve(
    args: argparse.Namespace, rounding: Rounding, memory: tuple[Decimal, Decimal, Decimal] | None
) -> int:
    plan = solve_accumulation(args.target_batch, args.micro_batch, args.gpus, rounding)
    result = fit(*memory, args.micro_batch) if memory else None
    # DeepSpeed given train_batch_size = T and the micro-batch derives grad_acc itself.
    check = deepspeed_check(args.target_batch, args.micro_batch, None, args.gpus)
    verdicts = batch_verdicts(plan.target, plan.micro_batch, plan.accumulation_steps, plan.gpus)
    extras = _extras(args, plan.effective_batch)
    if args.json:
        _print_json(
            {
                "target_batch": plan.target,
                "micro_batch": plan.micro_batch,
                "gpus": plan.gpus,
                "rounding": plan.rounding,
                "accumulation_steps": plan.accumulation_steps,
                "effective_batch": plan.effective_batch,
                "difference": plan.difference,
                "exact": plan.exact,
                "reachable_below": plan.reachable_below,
                "reachable_above": plan.reachable_above,
                "exact_micro_batches": [
                    [p.micro_batch, p.accumulation_steps] for p in plan.exact_micro_batches
                ],
                "floor_unreachable": plan.floor_unreachable,
                "largest_micro_batch_within": plan.largest_micro_batch_within,
                **_fit_dict(result),
                "deepspeed": _deepspeed_dict(check),
                "verdicts": _verdicts(verdicts),
                **extras,
                **_layout_keys(args),
                **_time_keys(args, plan.micro_batch, plan.accumulation_steps),
            }
        )
        return 0
    b, a, g = plan.micro_batch, plan.accumulation_steps, plan.gpus
    print(f"Target effective batch: {plan.target} on {g} GPU(s), rounding: {rounding.value}")
    print(
        f"Micro-batch {b} x {a} accumulation step(s) x {g} GPU(s) = {plan.effective_batch}"
        f" ({_difference(plan.difference)})"
    )
    if plan.floor_unreachable:
        within = plan.largest_micro_batch_within
        hint = (
            f"use a micro-batch of at most {within}"
            if within is not None
            else f"use at most {plan.target} GPU(s)"
        )
        print(
            f"No accumulation steps keep {b} x {g} below the target of {plan.target}: "
            f"even 1 step gives {plan.effective_batch}; {hint}."
        )
    below = "none" if plan.reachable_below is None else str(plan.reachable_below)
    print(f"Reachable with micro-batch {b}: {below} below, {plan.reachable_above} above")
    if plan.exact_micro_batches:
        pairs = ", ".join(
            f"{p.micro_batch}x{p.accumulation_steps}" for p in plan.exact_micro_batches[:12]
        )
        more = " ..." if len(plan.exact_micro_batches) > 12 else ""
        print(f"Exact (micro-batch x steps): {pairs}{more}")
    else:
        print(f"No micro-batch reaches {plan.target} exactly on {g} GPU(s).")
    if result is not None:
        _print_fit(result)
    _print_verdicts(verdicts, plan.effective_batch)
    _print_extras(extras)
    if args.timing is not None:
        plan_time.print_step(args.timing.of(b, a), "Time")
    return 0


def _run_recommend(
    args: argparse.Namespace, rounding: Rounding, memory: tuple[Decimal, Decimal, Decimal] | None
) -> int:
    if memory:
        outcome = recommend(args.target_batch, args.gpus, *memory, rounding=rounding)
    else:
        outcome = recommend(args.target_batch, args.gpus, rounding=rounding)
    if isinstance(outcome, NothingFits):
        return _print_nothing_fits(args, outcome)
    return _print_recommendation(args, outcome)


def _print_recommendation(args: argparse.Namespace, rec: Recommendation) -> int:
    pick = rec.recommended
    extras = _extras(args, pick.effective_batch)
    verdicts = batch_verdicts(rec.target, pick.micro_batch, pick.accumulation_steps, rec.gpus)
    if args.json:
        _print_json(
            {
                "target_batch": rec.target,
                "gpus": rec.gpus,
                "rounding": rec.rounding,
                "micro_batch": pick.micro_batch,
                "accumulation_steps": pick.accumulation_steps,
                "effective_batch": pick.effective_batch,
                "difference": pick.difference,
                "exact": pick.exact,
                "floor_unreachable": rec.floor_unreachable,
                **_fit_dict(rec.fit),
                "max_micro_batch": rec.max_micro_batch,
                "verdicts": _verdicts(verdicts),
                "candidates": [
                    {
                        "micro_batch": p.micro_batch,
                        "accumulation_steps": p.accumulation_steps,
                        "effective_batch": p.effective_batch,
                        "exact": p.exact,
                        "verdicts": _verdicts(
                            batch_verdicts(
                                rec.target, p.micro_batch, p.accumulation_steps, rec.gpus
                            )
                        ),
                        **_time_keys(args, p.micro_batch, p.accumulation_steps),
                    }
                    for p in rec.pairs
                ],
                **extras,
                **_layout_keys(args),
                **_time_keys(args, pick.micro_batch, pick.accumulation_steps),
                **_fastest_keys(args, rec),
            }
        )
        return 0
    print(
        f"Target effective batch: {rec.target} on {rec.gpus} GPU(s), rounding: {rec.rounding.value}"
    )
    print(
        f"Recommended: micro-batch {pick.micro_batch} x {pick.accumulation_steps} "
        f"accumulation step(s) x {rec.gpus} GPU(s) = {pick.effective_batch} "
        f"({_difference(pick.difference)})"
    )
    if rec.floor_unreachable:
        print(
            f"No micro-batch keeps {rec.gpus} GPU(s) at or below the target of {rec.target}: "
            f"use at most {rec.target} GPU(s)."
        )
    elif not pick.exact:
        print(f"No micro-batch reaches {rec.target} exactly on {rec.gpus} GPU(s).")
    if rec.fit is not None:
        _print_fit(rec.fit)
    _print_verdicts(verdicts, pick.effective_batch)
    _print_extras(extras)
    if args.timing is not None:
        plan_time.print_step(args.timing.of(pick.micro_batch, pick.accumulation_steps), "Time")
        pair, step = plan_time.fastest(args.timing, rec)
        plan_time.print_step(
            step, f"Fastest pair that fits: {pair.micro_batch} x {pair.accumulation_steps}"
        )
    return 0


def _fastest_keys(args: argparse.Namespace, rec: Recommendation) -> dict[str, Any]:
    if args.timing is None:
        return {}
    return {"fastest": plan_time.fastest_dict(*plan_time.fastest(args.timing, rec))}


def _print_nothing_fits(args: argparse.Namespace, nothing: NothingFits) -> int:
    if args.json:
        _print_json(
            {
                "target_batch": args.target_batch,
                "gpus": args.gpus,
                "rounding": args.rounding,
                "micro_batch": None,
                "accumulation_steps": None,
                "effective_batch": None,
                "exact": False,
                **_fit_dict(nothing.fit),
                "shortfall_gb": nothing.shortfall_gb,
                "other_exceeds_capacity": nothing.other_exceeds_capacity,
                "suggestions": list(nothing.suggestions),
            }
        )
        return 0
    f = nothing.fit
    print(
        f"Nothing fits: one sample needs {gb(f.total_gb)} "
        f"({gb(f.activation_gb)} activations + {gb(f.other_memory_gb)} other) "
        f"but the GPU has {gb(f.gpu_memory_gb)}; short by {gb(nothing.shortfall_gb)}."
    )
    print("Try: " + ", ".join(s.value.replace("_", " ") for s in nothing.suggestions))
    return 0


def _difference(difference: int) -> str:
    if difference == 0:
        return "exactly the target"
    if difference > 0:
        return f"{difference} above the target"
    return f"{-difference} below the target"


def _print_fit(result: FitResult) -> None:
    verdict = "fits" if result.fits else "does NOT fit"
    print(
        f"Memory per GPU: {result.micro_batch} x {gb(result.activation_per_sample_gb)} + "
        f"{gb(result.other_memory_gb)} = {gb(result.total_gb)} of {gb(result.gpu_memory_gb)}"
        f" ({verdict}, headroom {gb(result.headroom_gb)})"
    )
    print(f"Largest micro-batch that fits: {result.max_micro_batch}")


def _print_extras(extras: dict[str, Any]) -> None:
    if "tokens_per_step" in extras:
        print(f"Tokens per optimizer step: {extras['tokens_per_step']}")
    if "steps_per_epoch" in extras:
        print(
            f"Optimizer steps per epoch: {extras['steps_per_epoch']} "
            f"({extras['steps_per_epoch_drop_last']} with drop_last)"
        )
