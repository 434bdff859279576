"""``gradacc calc``: effective batch and activation memory per GPU (the seed's calculator)."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.calculator import BatchInputs, compute
from ._common import ACCUMULATION_STEPS, ACTIVATION_GB, GPUS, MICRO_BATCH, gb, print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calc",
        help="effective batch E = b·a·g and activation memory per GPU M = b·A",
        description="Effective batch E = b·a·g and activation memory per GPU M = b·A.",
    )
    parser.add_argument("--micro-batch", type=MICRO_BATCH, required=True, metavar="B")
    parser.add_argument("--accumulation-steps", type=ACCUMULATION_STEPS, required=True, metavar="A")
    parser.add_argument("--gpus", type=GPUS, required=True, metavar="G")
    parser.add_argument("--activation-gb", type=ACTIVATION_GB, required=True, metavar="X")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = compute(
        BatchInputs(
            micro_batch=args.micro_batch,
            accumulation_steps=args.accumulation_steps,
            gpus=args.gpus,
            activation_gb=args.activation_gb,
        )
    )
    if args.json:
        print_json(
            {
                "micro_batch": args.micro_batch,
                "accumulation_steps": args.accumulation_steps,
                "gpus": args.gpus,
                "activation_gb": args.activation_gb,
                "effective_batch": result.effective_batch,
                "activation_per_gpu_gb": result.activation_per_gpu_gb,
                "samples_per_gpu_per_step": result.samples_per_gpu_per_step,
                # no target is involved: E is always computed exactly
                "exact": True,
            }
        )
        return 0
    b, a, g = args.micro_batch, args.accumulation_steps, args.gpus
    print(f"Effective batch: {b} x {a} x {g} GPU(s) = {result.effective_batch}")
    print(
        f"Activation memory per GPU: {b} x {gb(args.activation_gb)} = "
        f"{gb(result.activation_per_gpu_gb)}"
    )
    print(f"Samples per GPU per optimizer step: {result.samples_per_gpu_per_step}")
    return 0
