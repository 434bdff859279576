"""``gradacc time``: how long training on a number of tokens takes, and what it costs.

Narayanan et al. 2021's end-to-end estimate ``T · FLOPs per token / (n · X)``, with the
speed given one of three ways:

* ``--achieved-tflops X``: hardware FLOP/s per GPU as Megatron and DeepSpeed log it,
  recomputation included;
* ``--gpu-card CARD --mfu U``: the card's dense peak times a model FLOPs utilisation;
* ``--gpu-card CARD`` alone: a view of the plan. The flags are the training
  description's, the same as ``gradacc plan``'s (``cli.description``), and the step,
  its time and the run's time are the plan's own (``core.training.plan``): a token
  budget is whole optimizer steps (``core.time.step_results.run_totals``), so ``time``
  and ``plan --tokens`` agree to the digit. The batch is ``--micro-batch`` (default 1)
  and ``--target-batch`` (default one micro-batch per data-parallel GPU).

GPUs, as in every command: ``--gpus G`` is the data-parallel GPUs and ``--world-size N``
every GPU (``G`` x ``--tensor-parallel`` x ``--pipeline-stages`` x
``--context-parallel``). Until this version ``time --gpus`` counted every GPU; the two
readings differ only with model-parallel sizes, and then ``--gpus`` says on stderr how
it is read and which ``--world-size`` gives the old reading. The nodes: ``--nodes``, or
``--gpus-per-node`` (the world over that many per node; 8 when neither is given,
``time``'s default, where ``plan`` defaults to one node). ``--global-batch`` is the old
spelling of ``--target-batch``, ``--precision fp8`` of ``--precision bf16 --fp8``.

``--goodput G`` stretches the wall-clock time (restarts, checkpoints).

Contract (scripts depend on it): ``--json`` keys ``model``, ``params``,
``compute_params``, ``tokens``, ``gpus``, ``gpu_card``, ``precision``, ``recompute``,
``seq_len``, ``flops_per_token``, ``hardware_flops_per_token``,
``attention_flops_per_token``, ``achieved_tflops``, ``model_tflops``, ``peak_tflops``,
``mfu``, ``hfu``, ``tokens_per_second``, ``tokens_per_second_per_gpu``, ``seconds``,
``hours``, ``days``, ``gpu_hours``, ``price_per_gpu_hour``, ``cost``, ``goodput``,
``speed_source``, ``uncounted``, ``micro_batch``, ``accumulation_steps``,
``step_seconds``, ``parts``; and ``world_size``, ``steps``, and, when predicted, the
plan's ``layout``, ``run``, ``fits``, ``per_gpu_bytes`` and ``usable_bytes``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.memory import DEFAULT_OVERHEAD_GB, ModelSource, ModelSpec, facts
from ..core.precision import Precision
from ..core.recompute import Recompute
from ..core.time import (
    GPU_COUNT_LIMITS,
    LAYOUT_LIMITS,
    PART_NAMES,
    TERA,
    TFLOPS_LIMITS,
    UTILISATION_LIMITS,
    StepTime,
    TokenCost,
    TrainingTime,
    load_gpu_table,
    significant,
    to_decimal,
    training_time,
)
from ..core.training.description import TrainingDescription, default_nodes
from ..core.training.figures import figures, shown_gb
from ..core.training.plan import Plan, plan
from ..core.training.problems import ProblemKind, problem_text
from ._common import (
    MICRO_BATCH,
    UsageError,
    add_old_name,
    decimal_type,
    int_type,
    plain,
    print_json,
    say_renamed,
)
from .description import (
    add_description_arguments,
    add_gpus_arguments,
    checked,
    data_parallel,
    description_from,
    gpus_flag_text,
    layout_dict,
    model_parallel,
    model_spec,
    refuse_given,
)
from .plan_json import extras_dict

LAYOUT = int_type(LAYOUT_LIMITS)
GPU_COUNT = int_type(GPU_COUNT_LIMITS)

#: significant digits of the figures printed
DIGITS = 6


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "time",
        help="training time, GPU-hours and cost for a number of tokens",
        description="Training time for a token budget: T x FLOPs per token / (GPUs x FLOP/s "
        "per GPU) (Narayanan et al. 2021). FLOPs per token are 6N, plus PaLM's attention "
        "term 12LHQT when --model and --seq-len give the shape; x4/3 with full "
        "recomputation. --gpu-card without --mfu predicts the speed from the same flags "
        "as gradacc plan: its step and its run of whole optimizer steps. --gpus is the "
        "data-parallel GPUs (as in every command; before, time counted every GPU), "
        "--world-size every GPU.",
    )
    speed = parser.add_mutually_exclusive_group(required=True)
    speed.add_argument(
        "--achieved-tflops",
        type=decimal_type(TFLOPS_LIMITS),
        metavar="X",
        help="hardware TFLOP/s per GPU as Megatron/DeepSpeed log it (counting recomputation)",
    )
    add_gpus_arguments(
        parser,
        gpus_type=GPU_COUNT,
        world_type=GPU_COUNT,
        gpus_help="data-parallel GPUs, as in gradacc plan: the world is G x tensor x "
        "pipeline x context (until this version time read --gpus as every GPU: with "
        "model-parallel sizes it says so on stderr; --world-size gives that reading)",
    )
    parser.add_argument(
        "--mfu",
        type=decimal_type(UTILISATION_LIMITS),
        metavar="U",
        help="model FLOPs utilisation with --gpu-card, e.g. 0.4 (default: predicted from "
        "the card, the model's shape and the layout)",
    )
    batch = parser.add_argument_group("batch (predicting the speed from --gpu-card without --mfu)")
    batch.add_argument("--micro-batch", type=MICRO_BATCH, default=1, metavar="B")
    target = batch.add_argument(
        "--target-batch",
        type=GPU_COUNT,
        metavar="S",
        help="samples per optimizer step, as in gradacc plan (default: one micro-batch "
        "per data-parallel GPU)",
    )
    add_old_name(batch, target, "--global-batch")
    batch.add_argument(
        "--gpus-per-node",
        type=LAYOUT,
        metavar="N",
        help="instead of --nodes: the world split into nodes of N GPUs",
    )
    add_description_arguments(
        parser,
        nodes_help="split the world (data x tensor x pipeline x context GPUs) evenly over N nodes",
        card_group=speed,
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


#: flags only the predicted speed reads: refused beside --achieved-tflops or --mfu
_LAYOUT_FLAGS: dict[str, Any] = {
    "micro_batch": 1,
    "target_batch": None,
    "tensor_parallel": 1,
    "pipeline_stages": 1,
    "virtual_stages": 1,
    "expert_parallel": 1,
    "expert_tensor_parallel": None,
    "context_parallel": 1,
    "zero_stage": 0,
    "gpus_per_node": None,
    "nodes": None,
    "link_gbps": None,
    "network_gbps": None,
    "framework": "deepspeed",
    "sequence_parallel": False,
    "tp_comm_overlap": False,
    "grad_reduce_in_bf16": False,
    "offload": "none",
}
#: description flags the plan reads and Narayanan's estimate does not
_PLAN_FLAGS: dict[str, Any] = {
    "efficiency": None,
    "speed_profile": None,
    "gpu_memory_gb": None,
    "activation_gb": None,
    "other_memory_gb": None,
    "overhead_gb": DEFAULT_OVERHEAD_GB,
    "optimizer": "adam",
    "attention": "sdpa",
    "target_seq": None,
    "images": None,
    "image_size": None,
    "freeze_vision": False,
    "dataset_samples": None,
    "epochs": None,
}


@dataclass(frozen=True)
class Estimate:
    """What ``gradacc time`` reports of a run, whichever way its speed was given."""

    tokens: int
    #: data-parallel GPUs, and every GPU
    gpus: int
    world: int
    cost: TokenCost
    #: hardware and model FLOP/s per GPU
    achieved_flops: Fraction
    model_flops: Fraction
    peak_flops: Fraction | None
    #: while training (the goodput does not slow a step)
    tokens_per_second: Fraction
    #: wall-clock, the goodput's stretch included
    seconds: Fraction
    gpu_hours: Fraction
    money: Fraction | None
    price: Decimal | None
    goodput: Decimal | None
    #: optimizer steps (None: a rate given, no step)
    steps: int | None = None


def _given(t: TrainingTime) -> Estimate:
    return Estimate(
        tokens=t.tokens,
        gpus=t.gpus,
        world=t.gpus,
        cost=t.cost_per_token,
        achieved_flops=t.achieved_flops,
        model_flops=t.model_flops_per_gpu,
        peak_flops=t.peak_flops,
        tokens_per_second=t.tokens_per_second,
        seconds=t.seconds,
        gpu_hours=t.gpu_hours,
        money=t.cost,
        price=t.price_per_gpu_hour,
        goodput=t.goodput,
    )


def _planned_estimate(p: Plan) -> Estimate:
    """The plan's step and its run of the token budget: the figures ``gradacc plan
    --tokens`` prints, to the digit."""
    d = p.description
    assert p.current is not None and p.current.time is not None and p.step_model is not None
    step = p.current.time
    line = next(line for line in p.run if line.kind == "tokens")
    per_gpu = step.tokens_per_second_per_gpu
    return Estimate(
        tokens=line.amount,
        gpus=d.gpus,
        world=step.world,
        cost=p.step_model.workload.cost,
        achieved_flops=step.hardware_flops_per_token * per_gpu,
        model_flops=step.model_flops_per_token * per_gpu,
        peak_flops=step.peak_flops,
        tokens_per_second=step.tokens_per_second,
        seconds=line.totals.seconds,
        gpu_hours=line.totals.gpu_hours,
        money=line.totals.cost,
        price=d.run.price_per_gpu_hour,
        goodput=d.run.goodput,
        steps=line.totals.steps,
    )


def _nodes(args: argparse.Namespace, world: int) -> int:
    """``--nodes``, or the world over ``--gpus-per-node``, or the description's default
    (``default_nodes``) when neither is given."""
    if args.nodes is not None:
        if args.gpus_per_node is not None:
            raise UsageError("--nodes and --gpus-per-node are alternatives: give one")
        return int(args.nodes)
    if args.gpus_per_node is None:
        return default_nodes(world)
    per_node = min(args.gpus_per_node, world)
    if world % per_node:
        raise UsageError(
            f"the {world} GPUs are not a multiple of --gpus-per-node {per_node}: give "
            "--gpus-per-node or --nodes"
        )
    return int(world // per_node)


def _description(args: argparse.Namespace) -> TrainingDescription:
    """The training description of the flags, as ``gradacc plan`` builds it, with
    time's batch defaults."""
    if args.seq_len is None:
        raise UsageError("--gpu-card without --mfu predicts the speed: give --seq-len too")
    gpus = data_parallel(args)
    shards = model_parallel(args)
    world = gpus * shards
    if args.gpus is not None and shards > 1:
        say_renamed(
            f"time --gpus {gpus} is the data-parallel GPUs, as in plan: {gpus} x {shards} "
            f"(tensor x pipeline x context) = {world} GPUs in all; before, time read "
            f"--gpus as every GPU: --world-size {gpus} gives that"
        )
    args.nodes = _nodes(args, world)
    batch = args.target_batch or args.micro_batch * gpus
    if batch % (args.micro_batch * gpus):
        raise UsageError(
            f"--target-batch {batch} is not a multiple of --micro-batch x data-parallel "
            f"GPUs = {args.micro_batch * gpus}"
        )
    d = description_from(args, gpus=gpus, target_batch=batch, micro_batch=args.micro_batch)
    return checked(d, gpus_flag_text(args))


def _planned(args: argparse.Namespace) -> Plan:
    """The plan of the flags, with a time per step (a usage error without one)."""
    planned = plan(_description(args))
    if planned.current is None or planned.current.time is None:
        why = planned.time_detail or (
            planned.time_missing.value if planned.time_missing else "no configuration"
        )
        raise UsageError(f"no time for this layout: {why}")
    return planned


def _refuse_plan_flags(args: argparse.Namespace) -> None:
    """Beside a given rate, the flags only the predicted speed reads are refused."""
    refuse_given(
        args,
        _LAYOUT_FLAGS,
        "describes the layout whose speed --gpu-card predicts: without --mfu or --achieved-tflops",
    )
    refuse_given(
        args,
        _PLAN_FLAGS,
        "is read by the speed --gpu-card predicts (the plan): not with --mfu or --achieved-tflops",
    )


def _cost(args: argparse.Namespace, spec: ModelSpec) -> TokenCost:
    """FLOPs per token of a given rate's estimate: 6N (4N + 6T for adapters), plus the
    attention term when the model's shape is known — the plan's rule."""
    gpus = data_parallel(args)
    d = description_from(args, gpus=gpus, target_batch=gpus)
    cost = figures(d).token_cost(d, args.seq_len)
    if cost is None:
        raise UsageError(f"--recompute: {problem_text(ProblemKind.RECOMPUTE_PER_OP_MODEL)}")
    return cost


def _estimate(args: argparse.Namespace, cost: TokenCost) -> TrainingTime:
    """Narayanan's estimate of a rate given: achieved TFLOP/s, or the card's peak x MFU."""
    price, goodput = args.price_per_gpu_hour, args.goodput
    gpus = data_parallel(args)
    if args.achieved_tflops is not None:
        if args.mfu is not None:
            raise UsageError("--mfu goes with --gpu-card (--achieved-tflops is the speed itself)")
        return training_time(
            args.tokens,
            gpus,
            cost,
            achieved_flops=args.achieved_tflops * TERA,
            price_per_gpu_hour=price,
            goodput=goodput,
        )
    card = load_gpu_table().by_id(args.gpu_card)
    performance = card.performance
    peak = None if performance is None else performance.peak_tflops(*_precision(args))
    if peak is None:
        raise UsageError(f"--gpu-card: {card.name} has no {_precision_name(args)} speed")
    return training_time(
        args.tokens,
        gpus,
        cost,
        peak_flops=peak * TERA,
        mfu=Fraction(args.mfu),
        price_per_gpu_hour=price,
        goodput=goodput,
    )


def _precision(args: argparse.Namespace) -> tuple[Precision, bool]:
    """The precision and FP8 products the description was built with (``--precision
    fp8`` already read as bf16 with ``--fp8``)."""
    precision = Precision(args.precision)
    return precision, bool(args.fp8) and precision is not Precision.FP32


def _precision_name(args: argparse.Namespace) -> str:
    """Which of the card's peaks applies: the precision, or fp8 for FP8 products."""
    precision, fp8 = _precision(args)
    return "fp8" if fp8 else str(precision.value)


def _number(value: Fraction | None, digits: int = DIGITS) -> Decimal | None:
    return None if value is None else significant(value, digits)


def _tflops(value: Fraction | None) -> Decimal | None:
    return None if value is None else significant(value / TERA, DIGITS)


def _parts(step: StepTime) -> dict[str, Decimal]:
    """Where one optimizer step's time goes (seconds)."""
    return {name: significant(getattr(step.parts, name), DIGITS) for name in PART_NAMES}


def to_json(
    args: argparse.Namespace,
    run: Estimate,
    name: str | None,
    params: int,
    planned: Plan | None = None,
) -> dict[str, Any]:
    cost = run.cost
    source = "achieved" if args.achieved_tflops is not None else "mfu"
    step: StepTime | None = None
    uncounted: list[str] = []
    if planned is not None:
        source = "modelled"
        assert planned.current is not None and planned.step_model is not None
        step = planned.current.time
        uncounted = [u.value for u in planned.step_model.workload.uncounted]
    peak = run.peak_flops
    data = {
        "model": name,
        # every parameter, as every command counts them
        "params": params,
        # the N of 6N: without the input embedding (a lookup, no FLOPs); a mixture of
        # experts counts its active experts
        "compute_params": cost.params,
        "tokens": run.tokens,
        # the data-parallel GPUs (as in gradacc plan), and every GPU
        "gpus": run.gpus,
        "world_size": run.world,
        "gpu_card": args.gpu_card,
        "precision": _precision_name(args) if args.gpu_card else None,
        "recompute": cost.recompute,
        "seq_len": args.seq_len if cost.attention else None,
        "flops_per_token": cost.model,
        # 8N + 16LHQT with full recomputation: always a whole number
        "hardware_flops_per_token": int(cost.hardware),
        "attention_flops_per_token": cost.attention,
        "achieved_tflops": _tflops(run.achieved_flops),
        "model_tflops": _tflops(run.model_flops),
        "peak_tflops": _tflops(peak),
        "mfu": None if peak is None else _number(run.model_flops / peak),
        "hfu": None if peak is None else _number(run.achieved_flops / peak),
        "tokens_per_second": _number(run.tokens_per_second),
        "tokens_per_second_per_gpu": _number(run.tokens_per_second / run.world),
        "seconds": _number(run.seconds),
        "hours": _number(run.seconds / 3600),
        "days": _number(run.seconds / 86_400),
        "gpu_hours": to_decimal(run.gpu_hours, 2),
        "price_per_gpu_hour": run.price,
        # money to the cent
        "cost": None if run.money is None else to_decimal(run.money, 2),
        "goodput": run.goodput,
        # where the speed comes from: achieved (given), mfu (given) or modelled (the plan)
        "speed_source": source,
        # terms the estimate could not count (a bare --params has no shape)
        "uncounted": uncounted,
        "micro_batch": None if step is None else step.micro_batch,
        "accumulation_steps": None if step is None else step.accumulation_steps,
        "step_seconds": None if step is None else _number(step.step_seconds),
        "parts": None if step is None else _parts(step),
        # optimizer steps of the run (whole steps, as gradacc plan --tokens counts them)
        "steps": run.steps,
    }
    if planned is not None:
        d = planned.description
        data["layout"] = layout_dict(d)
        # the plan's run lines (--tokens, and the epochs with --dataset-samples)
        data["run"] = extras_dict(planned).get("run")
        # the plan's memory verdict of this pair (None: memory unknown)
        data["fits"] = planned.fits
        data["per_gpu_bytes"] = planned.current.per_gpu_bytes if planned.current else None
        data["usable_bytes"] = planned.figures.usable_bytes
    return data


def run(args: argparse.Namespace) -> int:
    spec = model_spec(args)
    if spec is None:
        raise UsageError(
            "give the model: --model, --model-config, --params, or its sizes (--layers "
            "--hidden --heads)"
        )
    if args.tokens is None:
        raise UsageError("the following arguments are required: --tokens")
    name: str | None = None
    shaped = spec.source is not ModelSource.PARAMS
    if shaped and spec.source is not ModelSource.SHAPE:  # typed sizes have no name
        name = spec.name if spec.name is not None else spec.file_name
    modelled = args.gpu_card is not None and args.mfu is None
    if args.seq_len is not None and not shaped and not modelled:
        raise UsageError(
            "--seq-len needs the model's shape (--model, --model-config or its sizes): the "
            "attention term needs it"
        )
    planned: Plan | None = None
    if modelled:
        planned = _planned(args)
        estimate = _planned_estimate(planned)
    else:
        _refuse_plan_flags(args)
        args.nodes = 1  # a rate given: no layout
        estimate = _given(_estimate(args, _cost(args, spec)))
    params = facts(spec).params
    data = to_json(args, estimate, name, params, planned)
    if args.json:
        print_json(data)
        return 0
    _print_text(data)
    return 0


def _print_text(raw: dict[str, Any]) -> None:
    data = {k: plain(v) if isinstance(v, Decimal) else v for k, v in raw.items()}
    counted = f"{data['params']} parameters"
    if data["compute_params"] != data["params"]:
        counted += f", {data['compute_params']} of them in the FLOPs per token"
    what = f"{data['model']} ({counted})" if data["model"] else counted
    print(f"Model: {what}; {data['flops_per_token']} FLOPs per token", end="")
    if raw["recompute"] is Recompute.FULL:
        print(f" ({data['hardware_flops_per_token']} with full recomputation)", end="")
    print()
    gpus = f"{data['world_size']} GPU(s)"
    if data["world_size"] != data["gpus"]:
        gpus += f" ({data['gpus']} data-parallel)"
    print(
        f"{data['tokens']} tokens on {gpus} at {data['achieved_tflops']} "
        f"TFLOP/s each (hardware FLOPs)"
    )
    if data["mfu"] is not None:
        print(f"Peak {data['peak_tflops']} TFLOP/s: MFU {data['mfu']}, HFU {data['hfu']}")
    if raw["speed_source"] == "modelled":
        print(
            f"Predicted from the card and the layout: micro-batch {data['micro_batch']} x "
            f"{data['accumulation_steps']} accumulation steps, {data['step_seconds']} s per "
            f"optimizer step; {data['steps']} optimizer steps"
        )
        step = raw["step_seconds"]
        shares = [
            f"{name.replace('_', ' ')} {plain((value / step * 100).quantize(Decimal('0.1')))} %"
            for name, value in raw["parts"].items()
            if value
        ]
        print("Where the step's time goes: " + ", ".join(shares))
        if raw["uncounted"]:
            print("Not counted without the model's shape: " + ", ".join(raw["uncounted"]))
        if raw["per_gpu_bytes"] is not None and raw["usable_bytes"] is not None:
            verdict = "fits" if raw["fits"] else "does NOT fit: gradacc plan says why"
            print(
                f"Memory per GPU: {plain(shown_gb(raw['per_gpu_bytes']))} GB of "
                f"{plain(shown_gb(raw['usable_bytes']))} GB ({verdict})"
            )
    print(
        f"Throughput: {data['tokens_per_second']} tokens/s "
        f"({data['tokens_per_second_per_gpu']} per GPU)"
    )
    goodput = raw["goodput"]
    spent = "" if goodput is None else f", {plain(goodput * 100)} % of it training"
    print(f"Time: {data['days']} days ({data['hours']} hours){spent}")
    print(f"GPU-hours: {data['gpu_hours']}")
    if data["cost"] is not None:
        print(f"Cost: {data['cost']} at {data['price_per_gpu_hour']} per GPU-hour")
