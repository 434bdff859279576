"""``gradacc time``: how long training on a number of tokens takes, and what it costs.

Narayanan et al. 2021's end-to-end estimate ``T · FLOPs per token / (n · X)``, with the
speed given one of three ways:

* ``--achieved-tflops X``: hardware FLOP/s per GPU as Megatron and DeepSpeed log it,
  recomputation included;
* ``--gpu-card CARD --mfu U``: the card's dense peak times a model FLOPs utilisation;
* ``--gpu-card CARD`` alone: predicted from the card and the layout by the step model
  (``core.training.plan``, as ``gradacc plan`` does): the kernels at the shares the
  model's shape reaches, the exposed communication, the pipeline bubble and the
  optimizer, for ``--micro-batch`` and ``--global-batch`` on ``--tensor-parallel`` ×
  ``--pipeline-stages`` × ``--context-parallel`` × the data-parallel rest of ``--gpus``
  (a mixture of experts' routed experts spread over ``--expert-parallel`` of those
  data-parallel GPUs).

``--goodput G`` stretches the wall-clock time (restarts, checkpoints).
"""

from __future__ import annotations

import argparse
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.batch import SEQ_LEN_LIMITS, Rounding
from ..core.framework import Framework
from ..core.memory import ModelFacts, ModelSource, ModelSpec, ZeroStage, facts
from ..core.precision import FP8, Precision
from ..core.recompute import Recompute
from ..core.time import (
    GPU_COUNT_LIMITS,
    LAYOUT_LIMITS,
    PART_NAMES,
    PRICE_LIMITS,
    TERA,
    TFLOPS_LIMITS,
    TOKENS_LIMITS,
    UTILISATION_LIMITS,
    StepTime,
    TokenCost,
    TrainingTime,
    load_gpu_table,
    significant,
    to_decimal,
    token_cost,
    training_time,
)
from ..core.training.description import TrainingDescription
from ..core.training.plan import plan
from ._common import MICRO_BATCH, UsageError, decimal_type, int_type, plain, print_json
from .description import (
    add_goodput_argument,
    add_link_arguments,
    add_model_arguments,
    add_recompute_argument,
    add_split_arguments,
    card_ids,
    check_context_seq,
    check_expert_data,
    check_expert_model,
    model_spec,
)

LAYOUT = int_type(LAYOUT_LIMITS)

#: significant digits of the figures printed
DIGITS = 6


def read_precision(value: str) -> tuple[Precision, bool]:
    """``--precision``: the training's precision, and whether the matrix products run in
    FP8 (around 16-bit weights and activations: bf16)."""
    if value == FP8:
        return Precision.BF16, True
    return Precision(value), False


def cost_of(args: argparse.Namespace, model: ModelFacts | None, recompute: Recompute) -> TokenCost:
    """FLOPs per token: 6N, plus the attention term when the model's shape is known."""
    if model is None:
        return token_cost(args.params, recompute=recompute)
    if args.seq_len is None or model.attention_shape is None:
        return token_cost(model.compute_params, recompute=recompute)
    return token_cost(model.compute_params, model.attention_shape, args.seq_len, recompute)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "time",
        help="training time, GPU-hours and cost for a number of tokens",
        description="Training time for a token budget: T x FLOPs per token / (GPUs x FLOP/s "
        "per GPU) (Narayanan et al. 2021). FLOPs per token are 6N, plus PaLM's attention "
        "term 12LHQT when --model and --seq-len give the shape; x4/3 with full "
        "recomputation.",
    )
    add_model_arguments(parser)
    parser.add_argument(
        "--tokens", type=int_type(TOKENS_LIMITS), required=True, metavar="T", help="tokens"
    )
    parser.add_argument(
        "--gpus", type=int_type(GPU_COUNT_LIMITS), required=True, metavar="N", help="all GPUs"
    )
    speed = parser.add_mutually_exclusive_group(required=True)
    speed.add_argument(
        "--achieved-tflops",
        type=decimal_type(TFLOPS_LIMITS),
        metavar="X",
        help="hardware TFLOP/s per GPU as Megatron/DeepSpeed log it (counting recomputation)",
    )
    speed.add_argument(
        "--gpu-card",
        choices=card_ids(),
        metavar="CARD",
        help="a known card's dense peak (e.g. a100-80gb, h100-80gb)",
    )
    parser.add_argument(
        "--mfu",
        type=decimal_type(UTILISATION_LIMITS),
        metavar="U",
        help="model FLOPs utilisation with --gpu-card, e.g. 0.4 (default: predicted from "
        "the card, the model's shape and the layout)",
    )
    parser.add_argument(
        "--precision",
        choices=[*(p.value for p in Precision), FP8],
        default=Precision.BF16.value,
        help="which of the card's peaks applies (default bf16; fp8: its FP8 peak)",
    )
    layout = parser.add_argument_group(
        "layout (predicting the speed from --gpu-card without --mfu)"
    )
    layout.add_argument("--micro-batch", type=MICRO_BATCH, default=1, metavar="B")
    layout.add_argument(
        "--global-batch",
        type=int_type(GPU_COUNT_LIMITS),
        metavar="S",
        help="sequences per optimizer step (default: one micro-batch per data-parallel GPU)",
    )
    add_split_arguments(layout)
    layout.add_argument("--gpus-per-node", type=LAYOUT, default=8, metavar="N", help="default 8")
    add_link_arguments(layout)
    add_goodput_argument(parser)
    add_recompute_argument(parser)
    parser.add_argument(
        "--seq-len",
        type=int_type(SEQ_LEN_LIMITS),
        metavar="L",
        help="sequence length: adds the attention term (with --model)",
    )
    parser.add_argument(
        "--price-per-gpu-hour", type=decimal_type(PRICE_LIMITS), metavar="$", help="price"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _modelled(args: argparse.Namespace, spec: ModelSpec) -> tuple[StepTime, tuple[str, ...]]:
    """One optimizer step of the layout the flags give, through the one planning entry,
    and what it could not count without the model's shape."""
    if args.seq_len is None:
        raise UsageError("--gpu-card without --mfu predicts the speed: give --seq-len too")
    shards = args.tensor_parallel * args.pipeline_stages * args.context_parallel
    if args.gpus % shards:
        raise UsageError(
            f"--gpus {args.gpus} is not a multiple of --tensor-parallel x --pipeline-stages "
            f"x --context-parallel = {shards}"
        )
    if args.virtual_stages > 1 and args.pipeline_stages == 1:
        raise UsageError("--virtual-stages interleaves pipeline stages: give --pipeline-stages")
    precision, fp8 = read_precision(args.precision)
    data = args.gpus // shards
    check_expert_model(args.expert_parallel, spec)
    check_expert_data(
        args.expert_parallel,
        data,
        "--gpus / (--tensor-parallel x --pipeline-stages"
        + (" x --context-parallel)" if args.context_parallel > 1 else ")")
        + ")",
    )
    check_context_seq(args.context_parallel, args.seq_len)
    per_node = min(args.gpus_per_node, args.gpus)
    if args.gpus % per_node:
        raise UsageError(f"--gpus {args.gpus} is not a multiple of --gpus-per-node {per_node}")
    batch = args.global_batch or args.micro_batch * data
    if batch % (args.micro_batch * data):
        raise UsageError(
            f"--global-batch {batch} is not a multiple of --micro-batch x data-parallel GPUs "
            f"= {args.micro_batch * data}"
        )
    card = load_gpu_table().by_id(args.gpu_card)
    description = TrainingDescription(
        model=spec,
        precision=precision,
        seq_len=args.seq_len,
        card=card,
        gpus=data,
        nodes=args.gpus // per_node,
        tensor_parallel=args.tensor_parallel,
        pipeline_stages=args.pipeline_stages,
        virtual_stages=args.virtual_stages,
        expert_parallel=args.expert_parallel,
        context_parallel=args.context_parallel,
        zero_stage=ZeroStage(args.zero_stage),
        recompute=Recompute(args.recompute),
        framework=Framework(args.framework),
        sequence_parallel=args.sequence_parallel,
        target_batch=batch,
        rounding=Rounding.CEIL,
        micro_batch=args.micro_batch,
        link_gbps=args.link_gbps,
        network_gbps=args.network_gbps,
        fp8=fp8,
    )
    planned = plan(description)
    if planned.current is None or planned.current.time is None:
        why = planned.time_detail or (
            planned.time_missing.value if planned.time_missing else "no configuration"
        )
        raise UsageError(f"no time for this layout: {why}")
    assert planned.step_model is not None
    uncounted = tuple(u.value for u in planned.step_model.workload.uncounted)
    return planned.current.time, uncounted


def _estimate(args: argparse.Namespace, cost: TokenCost, step: StepTime | None) -> TrainingTime:
    price = args.price_per_gpu_hour
    goodput = args.goodput
    if step is not None:  # predicted: the step's hardware FLOP/s per GPU
        return training_time(
            args.tokens,
            args.gpus,
            cost,
            achieved_flops=step.hardware_flops_per_token * step.tokens_per_second_per_gpu,
            peak_flops=step.peak_flops,
            price_per_gpu_hour=price,
            goodput=goodput,
        )
    if args.achieved_tflops is not None:
        if args.mfu is not None:
            raise UsageError("--mfu goes with --gpu-card (--achieved-tflops is the speed itself)")
        return training_time(
            args.tokens,
            args.gpus,
            cost,
            achieved_flops=args.achieved_tflops * TERA,
            price_per_gpu_hour=price,
            goodput=goodput,
        )
    card = load_gpu_table().by_id(args.gpu_card)
    precision, fp8 = read_precision(args.precision)
    performance = card.performance
    peak = None if performance is None else performance.peak_tflops(precision, fp8)
    if peak is None:
        raise UsageError(f"--gpu-card: {card.name} has no {args.precision} speed")
    return training_time(
        args.tokens,
        args.gpus,
        cost,
        peak_flops=peak * TERA,
        mfu=Fraction(args.mfu),
        price_per_gpu_hour=price,
        goodput=goodput,
    )


def _number(value: Fraction | None, digits: int = DIGITS) -> Decimal | None:
    return None if value is None else significant(value, digits)


def _tflops(value: Fraction | None) -> Decimal | None:
    return None if value is None else significant(value / TERA, DIGITS)


def _parts(step: StepTime) -> dict[str, Decimal]:
    """Where one optimizer step's time goes (seconds)."""
    return {name: significant(getattr(step.parts, name), DIGITS) for name in PART_NAMES}


def to_json(
    args: argparse.Namespace,
    run: TrainingTime,
    name: str | None,
    params: int,
    step: StepTime | None = None,
    uncounted: tuple[str, ...] = (),
) -> dict[str, Any]:
    cost = run.cost_per_token
    source = "achieved" if args.achieved_tflops is not None else "mfu"
    if step is not None:
        source = "modelled"
    return {
        "model": name,
        # every parameter, as every command counts them
        "params": params,
        # the N of 6N: without the input embedding (a lookup, no FLOPs); a mixture of
        # experts counts its active experts
        "compute_params": cost.params,
        "tokens": run.tokens,
        "gpus": run.gpus,
        "gpu_card": args.gpu_card,
        "precision": args.precision if args.gpu_card else None,
        "recompute": cost.recompute,
        "seq_len": args.seq_len if cost.attention else None,
        "flops_per_token": cost.model,
        # 8N + 16LHQT with full recomputation: always a whole number
        "hardware_flops_per_token": int(cost.hardware),
        "attention_flops_per_token": cost.attention,
        "achieved_tflops": _tflops(run.achieved_flops),
        "model_tflops": _tflops(run.model_flops_per_gpu),
        "peak_tflops": _tflops(run.peak_flops),
        "mfu": _number(run.mfu),
        "hfu": _number(run.hfu),
        "tokens_per_second": _number(run.tokens_per_second),
        "tokens_per_second_per_gpu": _number(run.tokens_per_second_per_gpu),
        "seconds": _number(run.seconds),
        "hours": _number(run.hours),
        "days": _number(run.days),
        "gpu_hours": to_decimal(run.gpu_hours, 2),
        "price_per_gpu_hour": run.price_per_gpu_hour,
        # money to the cent
        "cost": None if run.cost is None else to_decimal(run.cost, 2),
        "goodput": run.goodput,
        # where the speed comes from: achieved (given), mfu (given) or modelled
        "speed_source": source,
        # terms the estimate could not count (a bare --params has no shape)
        "uncounted": list(uncounted),
        "micro_batch": None if step is None else step.micro_batch,
        "accumulation_steps": None if step is None else step.accumulation_steps,
        "step_seconds": None if step is None else _number(step.step_seconds),
        "parts": None if step is None else _parts(step),
    }


#: the layout flags only the predicted speed reads
_LAYOUT_FLAGS = {
    "micro_batch": 1,
    "global_batch": None,
    "tensor_parallel": 1,
    "pipeline_stages": 1,
    "virtual_stages": 1,
    "expert_parallel": 1,
    "context_parallel": 1,
    "zero_stage": 0,
    "gpus_per_node": 8,
    "link_gbps": None,
    "network_gbps": None,
}


def run(args: argparse.Namespace) -> int:
    spec = model_spec(args)
    if spec is None:
        raise UsageError(
            "give the model: --model, --model-config, --params, or its sizes (--layers "
            "--hidden --heads)"
        )
    model: ModelFacts | None = None
    name: str | None = None
    if spec.source is not ModelSource.PARAMS:
        model = facts(spec)
        if spec.source is not ModelSource.SHAPE:  # typed sizes have no name
            name = spec.name if spec.name is not None else spec.file_name
    modelled = args.gpu_card is not None and args.mfu is None
    if args.seq_len is not None and model is None and not modelled:
        raise UsageError(
            "--seq-len needs the model's shape (--model, --model-config or its sizes): the "
            "attention term needs it"
        )
    if not modelled:
        for flag, default in _LAYOUT_FLAGS.items():
            if getattr(args, flag) != default:
                raise UsageError(
                    f"--{flag.replace('_', '-')} describes the layout whose speed --gpu-card "
                    "predicts: without --mfu or --achieved-tflops"
                )
    step: StepTime | None = None
    uncounted: tuple[str, ...] = ()
    if modelled:
        step, uncounted = _modelled(args, spec)
    cost = cost_of(args, model, Recompute(args.recompute))
    estimate = _estimate(args, cost, step)
    params = spec.params if model is None else model.params
    assert params is not None
    data = to_json(args, estimate, name, params, step, uncounted)
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
    print(
        f"{data['tokens']} tokens on {data['gpus']} GPU(s) at {data['achieved_tflops']} "
        f"TFLOP/s each (hardware FLOPs)"
    )
    if data["mfu"] is not None:
        print(f"Peak {data['peak_tflops']} TFLOP/s: MFU {data['mfu']}, HFU {data['hfu']}")
    if raw["speed_source"] == "modelled":
        print(
            f"Predicted from the card and the layout: micro-batch {data['micro_batch']} x "
            f"{data['accumulation_steps']} accumulation steps, {data['step_seconds']} s per "
            "optimizer step"
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
