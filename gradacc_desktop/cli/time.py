"""``gradacc time``: how long training on a number of tokens takes, and what it costs.

Narayanan et al. 2021's end-to-end estimate ``T · FLOPs per token / (n · X)``: with
``--achieved-tflops X`` (hardware FLOP/s per GPU as Megatron and DeepSpeed log it,
recomputation included) or with a card's dense peak and a model FLOPs utilisation
(``--gpu-card CARD [--mfu U]``; without ``--mfu`` the card's typical efficiency is taken
as the hardware FLOPs utilisation).
"""

from __future__ import annotations

import argparse
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.compute import (
    GPU_COUNT_LIMITS,
    PRICE_LIMITS,
    RECOMPUTE_FACTOR,
    TERA,
    TFLOPS_LIMITS,
    TOKENS_LIMITS,
    UTILISATION_LIMITS,
    Recompute,
    TokenCost,
    TrainingTime,
    significant,
    to_decimal,
    token_cost,
    training_time,
)
from ..core.gpus import TrainingPrecision, load_gpu_table
from ..core.models import ModelFacts, ModelSource, facts
from ..core.planning import SEQ_LEN_LIMITS
from ._common import UsageError, decimal_type, int_type, plain, print_json
from .description import add_model_arguments, card_ids, model_spec

#: significant digits of the figures printed
DIGITS = 6


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
    add_model_arguments(parser, required=True)
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
        help="model FLOPs utilisation with --gpu-card, e.g. 0.4 (default: the card's "
        "typical efficiency taken as hardware FLOPs utilisation)",
    )
    parser.add_argument(
        "--precision",
        choices=[p.value for p in TrainingPrecision],
        default=TrainingPrecision.BF16.value,
        help="which of the card's peaks applies (default bf16)",
    )
    parser.add_argument(
        "--recompute", choices=[r.value for r in Recompute], default=Recompute.NONE.value
    )
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


def _estimate(args: argparse.Namespace, cost: TokenCost) -> TrainingTime:
    price = args.price_per_gpu_hour
    if args.achieved_tflops is not None:
        if args.mfu is not None:
            raise UsageError("--mfu goes with --gpu-card (--achieved-tflops is the speed itself)")
        return training_time(
            args.tokens,
            args.gpus,
            cost,
            achieved_flops=args.achieved_tflops * TERA,
            price_per_gpu_hour=price,
        )
    card = load_gpu_table().by_id(args.gpu_card)
    precision = TrainingPrecision(args.precision)
    peak = None if card.performance is None else card.performance.peak_tflops(precision)
    if peak is None:
        raise UsageError(f"--gpu-card: {card.name} has no {precision.value} speed")
    assert card.performance is not None
    if args.mfu is not None:
        mfu = Fraction(args.mfu)
    else:  # the card's typical efficiency is the hardware FLOPs utilisation
        mfu = Fraction(card.performance.efficiency) / RECOMPUTE_FACTOR[cost.recompute]
    return training_time(
        args.tokens,
        args.gpus,
        cost,
        peak_flops=peak * TERA,
        mfu=mfu,
        price_per_gpu_hour=price,
    )


def _number(value: Fraction | None, digits: int = DIGITS) -> Decimal | None:
    return None if value is None else significant(value, digits)


def _tflops(value: Fraction | None) -> Decimal | None:
    return None if value is None else significant(value / TERA, DIGITS)


def to_json(
    args: argparse.Namespace, run: TrainingTime, name: str | None, params: int
) -> dict[str, Any]:
    cost = run.cost_per_token
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
    }


def run(args: argparse.Namespace) -> int:
    spec = model_spec(args)
    model: ModelFacts | None = None
    name: str | None = None
    if spec is not None and spec.source is not ModelSource.PARAMS:
        model = facts(spec)
        name = spec.name if spec.name is not None else spec.file_name
    if args.seq_len is not None and model is None:
        raise UsageError(
            "--seq-len needs --model or --model-config (the attention term needs its shape)"
        )
    cost = cost_of(args, model, Recompute(args.recompute))
    estimate = _estimate(args, cost)
    data = to_json(args, estimate, name, args.params if model is None else model.params)
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
    print(
        f"Throughput: {data['tokens_per_second']} tokens/s "
        f"({data['tokens_per_second_per_gpu']} per GPU)"
    )
    print(f"Time: {data['days']} days ({data['hours']} hours)")
    print(f"GPU-hours: {data['gpu_hours']}")
    if data["cost"] is not None:
        print(f"Cost: {data['cost']} at {data['price_per_gpu_hour']} per GPU-hour")
