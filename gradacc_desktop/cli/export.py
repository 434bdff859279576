"""``gradacc export``: a ready-to-paste config for DeepSpeed, HF, Accelerate or Lightning."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.export import ExportFormat, render
from ._common import ACCUMULATION_STEPS, GPUS, MICRO_BATCH, print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="print a ready-to-paste framework config",
        description="Print a ready-to-paste config for a training framework.",
    )
    parser.add_argument("--format", required=True, choices=[f.value for f in ExportFormat])
    parser.add_argument("--micro-batch", type=MICRO_BATCH, required=True, metavar="B")
    parser.add_argument("--accumulation-steps", type=ACCUMULATION_STEPS, required=True, metavar="A")
    parser.add_argument("--gpus", type=GPUS, required=True, metavar="G")
    parser.add_argument("--json", action="store_true", help="wrap the snippet in a JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    fmt = ExportFormat(args.format)
    text = render(fmt, args.micro_batch, args.accumulation_steps, args.gpus)
    if args.json:
        print_json(
            {
                "format": fmt.value,
                "micro_batch": args.micro_batch,
                "accumulation_steps": args.accumulation_steps,
                "gpus": args.gpus,
                "effective_batch": args.micro_batch * args.accumulation_steps * args.gpus,
                "exact": True,
                "snippet": text,
            }
        )
    else:
        sys.stdout.write(text)
    return 0
