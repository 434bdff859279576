"""``gradacc memory``: model-state bytes per GPU and CPU bytes per node, as DeepSpeed
computes them (its ``estimate_zero2/3_model_states_mem_needs``; ZeRO 0/1 from the
ZeRO paper counted the same way).

Contract (scripts depend on it)::

    gradacc memory --params P [--largest-layer-params L] --gpus G [--nodes N]
        --zero-stage Z [--offload {none,optimizer,all}] [--recipe …] [--json]

``--json`` gives ``gpu_bytes`` (per GPU), ``cpu_bytes`` (per node) and ``breakdown``.
"""

from __future__ import annotations

import argparse
import sys
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

from ..core.limits import whole
from ..core.memory import (
    LARGEST_LAYER_LIMITS,
    PARAMETERS_LIMITS,
    Offload,
    Precision,
    Recipe,
    ZeroStage,
    facts,
    lora,
    model_states,
)
from ..core.training.description import OPTIMIZER_STATE_BYTES, RECIPE_OPTIMIZER
from ._common import GPUS, UsageError, int_type, print_json
from .description import NODES, lora_targets, model_spec

PART_NAMES = {
    "weights": "weights",
    "gradients": "gradients",
    "fp32_gradients": "fp32 gradients",
    "master_weights": "fp32 master weights",
    "optimizer_states": "optimizer states",
    "largest_layer": "largest layer (gathered weights + gradients)",
    "cpu_model": "fp32 model while loading (each process)",
    "cpu_offload": "offloaded optimizer (and parameters)",
    "cpu_buffer": "DeepSpeed's 1.5x buffer",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "memory",
        help="model-state memory per GPU and CPU memory per node (DeepSpeed's estimators)",
        description="Bytes of weights, gradients and optimizer states on each GPU and in "
        "each node's CPU memory, for ZeRO stages 0-3 with or without CPU offload. "
        "Activations are not included (see gradacc activation).",
    )
    parser.add_argument(
        "--params",
        type=int_type(PARAMETERS_LIMITS),
        metavar="P",
        help="parameters of the model (required unless --model gives them)",
    )
    parser.add_argument(
        "--largest-layer-params",
        type=int_type(LARGEST_LAYER_LIMITS),
        default=0,
        metavar="L",
        help="parameters of the largest layer (ZeRO-3 gathers one layer at a time)",
    )
    parser.add_argument("--gpus", type=GPUS, required=True, metavar="G", help="GPUs in all")
    parser.add_argument("--nodes", type=NODES, default=1, metavar="N")
    parser.add_argument(
        "--zero-stage", type=int, choices=[int(z) for z in ZeroStage], required=True
    )
    parser.add_argument("--offload", choices=[o.value for o in Offload], default=Offload.NONE.value)
    parser.add_argument(
        "--recipe", choices=[r.value for r in Recipe], default=Recipe.ADAM_MIXED.value
    )
    parser.add_argument(
        "--precision",
        choices=[p.value for p in Precision if p is not Precision.FP32],
        default=Precision.BF16.value,
        help="16-bit format of mixed-precision recipes (adam_fp32 is fp32)",
    )
    parser.add_argument(
        "--trainable-params",
        type=int_type(PARAMETERS_LIMITS),
        metavar="T",
        help="parameters that are trained (LoRA adapters); the rest are frozen weights",
    )
    parser.add_argument(
        "--model",
        metavar="NAME",
        help="a bundled model (the names every command takes, e.g. llama-3.1-8b): its "
        "parameters and largest layer; with --recipe lora its adapters and frozen base",
    )
    parser.add_argument(
        "--model-config",
        metavar="PATH",
        help="the model's Hugging Face config.json, as --model (a local file)",
    )
    parser.add_argument(
        "--lora-rank", type=int_type(whole(1, 4096)), default=16, metavar="R", help="with --model"
    )
    parser.add_argument(
        "--lora-targets",
        default="q_proj,v_proj",
        metavar="NAMES",
        help="what LoRA adapts: query_value, attention, all_linear, or PEFT target_modules "
        "names, comma-separated (q_proj,v_proj; all-linear; c_attn ...)",
    )
    parser.add_argument(
        "--base-bits",
        type=int,
        choices=[16, 4],
        default=16,
        help="frozen base weights: 16-bit (LoRA) or 4-bit NF4 with double quantization (QLoRA)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    recipe = Recipe(args.recipe)
    params, largest = args.params, args.largest_layer_params
    trainable = args.trainable_params
    frozen: Fraction | None = None
    spec = model_spec(argparse.Namespace(model=args.model, model_config=args.model_config))
    if spec is not None:
        if params is not None:
            raise UsageError("--params and --model/--model-config are alternatives: give one")
        model = facts(spec)
        params = model.params
        largest = largest or model.largest_layer or 0
        if model.frozen_params and trainable is None and recipe is not Recipe.LORA:
            # what the model never trains (Whisper's fixed positions): no gradients or
            # optimizer states, as the plan counts them
            trainable = model.params - model.frozen_params
        if recipe is Recipe.LORA:
            if model.lora is None:
                raise UsageError(
                    "--recipe lora: this model's projections are not known: give --params "
                    "and --trainable-params instead"
                )
            try:
                trained = model.lora.trainable(args.lora_rank, lora_targets(args.lora_targets))
            except ValueError as exc:
                raise UsageError(f"--lora-targets: {exc}") from exc
            params, trainable = model.params + trained, trained
            fmt = lora.BaseFormat.NF4 if args.base_bits == 4 else lora.BaseFormat.BF16
            frozen = model.lora.frozen_bytes(fmt)
    elif params is None:
        raise UsageError("the following arguments are required: --params (or --model)")
    elif recipe is Recipe.LORA and trainable is None:
        raise UsageError(
            "--recipe lora needs --trainable-params (the adapters' parameters) or --model"
        )
    elif recipe is Recipe.LORA and args.base_bits == 4 and trainable is not None:
        frozen = lora.base_weight_bytes_per_param(lora.BaseFormat.NF4) * (params - trainable)
    if trainable is not None and trainable > params:
        raise UsageError("--trainable-params: must not exceed --params")
    precision = Precision.FP32 if recipe is Recipe.ADAM_FP32 else Precision(args.precision)
    if args.gpus % args.nodes:
        raise UsageError(
            f"--nodes: {args.gpus} GPUs cannot be split evenly over {args.nodes} nodes"
        )
    try:
        result = model_states(
            params,
            args.gpus,
            ZeroStage(args.zero_stage),
            Offload(args.offload),
            precision,
            nodes=args.nodes,
            largest_layer=largest,
            optimizer_state_bytes=OPTIMIZER_STATE_BYTES[RECIPE_OPTIMIZER[recipe]],
            trainable=trainable,
            frozen_weight_bytes=frozen,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    source = result.source.format(stage=int(result.zero_stage))
    if args.json:
        print_json(
            {
                "params": result.parameters,
                "largest_layer_params": result.largest_layer,
                "trainable_params": result.trainable,
                "gpus": result.gpus,
                "nodes": result.nodes,
                "gpus_per_node": result.gpus // result.nodes,
                "zero_stage": int(result.zero_stage),
                "offload": result.offload.value,
                "recipe": recipe.value,
                "precision": result.precision.value,
                "base_bits": args.base_bits if recipe is Recipe.LORA else None,
                "model": args.model,
                "gpu_bytes": result.gpu_bytes,
                "cpu_bytes": result.cpu_bytes,
                "breakdown": [
                    {
                        "part": c.part.value,
                        "where": c.where,
                        # exact; a sharded share can be a fraction of a byte
                        "bytes": str(c.bytes.numerator)
                        if c.bytes.denominator == 1
                        else f"{c.bytes.numerator}/{c.bytes.denominator}",
                    }
                    for c in result.components
                ],
                "source": source,
            }
        )
        return 0
    out = sys.stdout
    out.write(
        f"{result.parameters} parameters on {result.gpus} GPU(s)"
        + (f" ({result.nodes} nodes)" if result.nodes > 1 else "")
        + f", ZeRO-{int(result.zero_stage)}, offload {result.offload.value}, {recipe.value}\n"
    )
    out.write(f"Per GPU:  {result.gpu_bytes} bytes ({_gb(result.gpu_bytes)})\n")
    out.write(f"Per node (CPU): {result.cpu_bytes} bytes ({_gb(result.cpu_bytes)})\n")
    for c in result.components:
        where = "GPU" if c.where == "gpu" else "CPU"
        out.write(f"  {where} {PART_NAMES[c.part.value]}: {_gb_fraction(c.bytes)}\n")
    out.write(f"Source: {source}\n")
    return 0


def _gb(value: int) -> str:
    return _gb_fraction(Fraction(value))


def _gb_fraction(value: Fraction) -> str:
    """Decimal GB to the MB, rounded half-even from the exact byte count."""
    with localcontext() as ctx:
        ctx.prec = 60
        gb = Decimal(value.numerator) / Decimal(value.denominator) / Decimal(10**9)
        return f"{gb.quantize(Decimal('0.001'), rounding=ROUND_HALF_EVEN)} GB"
