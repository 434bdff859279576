"""``gradacc memory``: model-state bytes per GPU and CPU bytes per node, as the plan
counts them (DeepSpeed's ``estimate_zero2/3_model_states_mem_needs``, ZeRO 0/1 from the
ZeRO paper counted the same way; Megatron's and FSDP2's own rules with ``--framework``).

A view of the plan: a model (``--model``, ``--model-config`` or its sizes) and the
training description's flags — the same as ``gradacc plan``'s (``cli.description``) —
give the description, and every figure is the plan's own (``core.training.figures``):
the model states, the other memory, and with ``--seq-len`` the activation per sample,
with ``--micro-batch`` the memory per GPU. ``--lora-rank R`` means LoRA (``--base-bits
4``: QLoRA), as in every command. ``--gpus`` is the data-parallel GPUs, ``--world-size``
every GPU.

Contract (scripts depend on it)::

    gradacc memory (--params P | --model NAME | --model-config PATH | the sizes)
        --gpus G [--nodes N] [--zero-stage Z] [--offload {none,optimizer,all}]
        [--recipe …] [--lora-rank R …] [the description's flags] [--json]

``--json`` gives ``gpu_bytes`` (per GPU, the plan's ``model_states_bytes``),
``cpu_bytes`` (per node) and ``breakdown``, with ``params``, ``largest_layer_params``,
``trainable_params``, ``gpus``, ``nodes``, ``gpus_per_node``, ``zero_stage``,
``offload``, ``recipe``, ``precision``, ``base_bits``, ``model``, ``source``; and the
plan's ``model_states_bytes``, ``other_memory_bytes``, ``framework``, ``world_size``,
``layout``, ``activation_bytes_per_sample``, ``activation_bytes_per_gpu_per_sample``,
``per_gpu_bytes``, ``usable_bytes``, ``max_micro_batch`` and ``fits`` (null where the
flags do not fix them).

``--params P`` (and ``--largest-layer-params``, or ``--trainable-params`` without LoRA:
a count with no model behind it) keeps DeepSpeed's estimator arithmetic on the numbers
as given — ``--trainable-params`` is then the trained part of ``P`` — and refuses the
layout flags it cannot count. ``--recipe`` is memory's shorthand: ``lora`` is LoRA at
rank 16 unless ``--lora-rank``, ``adam_8bit`` and ``sgd_momentum`` the optimizer,
``adam_fp32`` fp32 training.
"""

from __future__ import annotations

import argparse
import math
import sys
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

from ..core.framework import Framework
from ..core.memory import (
    LARGEST_LAYER_LIMITS,
    ModelStates,
    Offload,
    Precision,
    Recipe,
    ZeroStage,
    facts,
    lora,
    model_states,
)
from ..core.precision import MasterWeights
from ..core.training.description import (
    OPTIMIZER_STATE_BYTES,
    RECIPE_OPTIMIZER,
    Optimizer,
    TrainingDescription,
)
from ..core.training.figures import Figures, figures, shown_gb
from ..core.training.plan import cpu_fits
from ..core.training.problems import ProblemKind, problem_text
from ._common import MICRO_BATCH, UsageError, int_type, plain, print_json
from .description import (
    add_description_arguments,
    add_gpus_arguments,
    checked,
    data_parallel,
    description_from,
    gpus_flag_text,
    layout_dict,
    lora_targets,
    model_spec,
    nodes_of,
    refuse_given,
)
from .description_flags import precision_of

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

#: the master copy's parts, named in its format
_MASTER_PARTS = ("fp32_gradients", "master_weights")

#: the rank ``--recipe lora`` trains without ``--lora-rank`` (memory's old default)
RECIPE_LORA_RANK = 16

#: what a bare count cannot split: the layout flags (refused with ``--params`` and the
#: counts typed for DeepSpeed's estimator)
_COUNT_REFUSES: dict[str, Any] = {
    "tensor_parallel": 1,
    "pipeline_stages": 1,
    "virtual_stages": 1,
    "expert_parallel": 1,
    "expert_tensor_parallel": None,
    "context_parallel": 1,
    "framework": "deepspeed",
    "sequence_parallel": False,
    "tp_comm_overlap": False,
    "grad_reduce_in_bf16": False,
    "micro_batch": None,
    "seq_len": None,
    "activation_gb": None,
    "other_memory_gb": None,
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "memory",
        help="model-state memory per GPU and CPU memory per node, as the plan counts it",
        description="Bytes of weights, gradients and optimizer states on each GPU and in "
        "each node's CPU memory, for ZeRO stages 0-3 with or without CPU offload, from the "
        "same flags as gradacc plan. With --seq-len it adds the activation per sample and "
        "with --micro-batch the memory per GPU, the plan's figures. --gpus is the "
        "data-parallel GPUs, --world-size every GPU.",
    )
    add_gpus_arguments(parser)
    parser.add_argument(
        "--largest-layer-params",
        type=int_type(LARGEST_LAYER_LIMITS),
        metavar="L",
        help="parameters of the largest layer (ZeRO-3 gathers one layer at a time; "
        "default: the model's): DeepSpeed's estimator on the counts as given",
    )
    parser.add_argument(
        "--recipe",
        choices=[r.value for r in Recipe],
        help="shorthand: lora (LoRA, rank 16 unless --lora-rank), adam_8bit or "
        "sgd_momentum (the optimizer), adam_fp32 (fp32 training); default adam_mixed",
    )
    parser.add_argument(
        "--micro-batch",
        type=MICRO_BATCH,
        metavar="B",
        help="with --seq-len: the memory per GPU of B samples, as gradacc plan counts it",
    )
    add_description_arguments(
        parser,
        nodes_help="split the world (data x tensor x pipeline x context GPUs) evenly over N nodes",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _recipe_flags(args: argparse.Namespace) -> Recipe:
    """``--recipe`` put into the description's flags (method, optimizer, precision), and
    the recipe the flags make (the JSON's ``recipe``)."""
    recipe = None if args.recipe is None else Recipe(args.recipe)
    if recipe is not None:
        optimizer = RECIPE_OPTIMIZER[recipe]
        if args.optimizer != Optimizer.ADAM.value and Optimizer(args.optimizer) is not optimizer:
            raise UsageError(f"--recipe {recipe.value} and --optimizer {args.optimizer}: give one")
        args.optimizer = optimizer.value
        if recipe is Recipe.LORA and args.lora_rank is None:
            args.lora_rank = RECIPE_LORA_RANK
        if recipe is Recipe.ADAM_FP32:
            args.precision, args.fp8 = Precision.FP32.value, False
    if args.lora_rank is not None:
        return Recipe.LORA
    if recipe is not None:
        return recipe
    optimizer = Optimizer(args.optimizer)
    if optimizer is not Optimizer.ADAM:
        return Recipe.ADAM_8BIT if optimizer is Optimizer.ADAM_8BIT else Recipe.SGD_MOMENTUM
    return Recipe.ADAM_FP32 if args.precision == Precision.FP32.value else Recipe.ADAM_MIXED


def _counted(args: argparse.Namespace) -> bool:
    """Whether the flags give counts for DeepSpeed's estimator (not a model's states)."""
    return (
        args.params is not None
        or args.largest_layer_params is not None
        or (args.trainable_params is not None and args.lora_rank is None)
    )


def run(args: argparse.Namespace) -> int:
    recipe = _recipe_flags(args)
    if _counted(args):
        result = _count_states(args, recipe)
        data = _json(args, result, recipe, (result.parameters, result.trainable))
        data.update(_count_figures(result))
    else:
        d, figs = _planned(args)
        assert figs.states is not None
        result = figs.states
        data = _json(args, result, recipe, _whole_counts(d, figs))
        data.update(_plan_figures(d, figs, args.micro_batch))
    if args.json:
        print_json(data)
        return 0
    _print_text(result, recipe, data, args.cpu_memory_gb)
    return 0


def _planned(args: argparse.Namespace) -> tuple[TrainingDescription, Figures]:
    """The description of the flags and its memory figures, as ``gradacc plan`` has
    them."""
    if model_spec(args) is None:
        raise UsageError("the following arguments are required: --params (or --model)")
    gpus = data_parallel(args)
    micro = args.micro_batch or 1
    d = description_from(args, gpus=gpus, target_batch=micro * gpus, micro_batch=micro)
    checked(d, gpus_flag_text(args))
    figs = figures(d)
    if figs.states is None:  # the flags' checks above say why first
        why = figs.other.missing.value if figs.other.missing else "unknown"
        raise UsageError(f"no model states for this description: {why.replace('_', ' ')}")
    return d, figs


def _whole_counts(d: TrainingDescription, figs: Figures) -> tuple[int, int]:
    """Every parameter a GPU's shard comes from (LoRA's adapters on top of the model's),
    and those trained."""
    assert figs.facts is not None and figs.trainable is not None
    adapters = figs.trainable if d.method.adapters else 0
    return figs.facts.params + adapters, figs.trainable


def _plan_figures(d: TrainingDescription, figs: Figures, micro: int | None) -> dict[str, Any]:
    """The plan's memory figures beyond the model states (its JSON's names)."""
    share = figs.activation_per_gpu
    largest = figs.max_micro_batch()
    return {
        "model_states_bytes": figs.states.gpu_bytes if figs.states else None,
        "other_memory_bytes": figs.other.bytes,
        "framework": d.framework.value,
        "master_weights": d.master.value,
        "world_size": d.world,
        "layout": layout_dict(d),
        "activation_bytes_per_sample": figs.activation.bytes,
        "activation_bytes_per_gpu_per_sample": None if share is None else math.ceil(share),
        "per_gpu_bytes": None if micro is None else figs.per_gpu_bytes(micro),
        "usable_bytes": figs.usable_bytes,
        "max_micro_batch": largest,
        "fits": None if micro is None or largest is None else micro <= largest,
        "cpu_bytes_per_node": figs.states.cpu_bytes if figs.states else None,
        "cpu_fits": cpu_fits(figs.states.cpu_bytes if figs.states else None, d.cpu_memory_gb),
    }


def _count_figures(result: ModelStates) -> dict[str, Any]:
    """The plan's keys of a count's figures: DeepSpeed's model states, nothing more."""
    return {
        "model_states_bytes": result.gpu_bytes,
        "other_memory_bytes": None,
        "framework": "deepspeed",
        "master_weights": result.master.value,
        "world_size": result.gpus,
        "layout": None,
        "activation_bytes_per_sample": None,
        "activation_bytes_per_gpu_per_sample": None,
        "per_gpu_bytes": None,
        "usable_bytes": None,
        "max_micro_batch": None,
        "fits": None,
        "cpu_bytes_per_node": result.cpu_bytes,
        "cpu_fits": None,
    }


def _count_states(args: argparse.Namespace, recipe: Recipe) -> ModelStates:
    """DeepSpeed's estimator on the counts as given (``--params``, or a model with
    ``--largest-layer-params`` or a partly trained ``--trainable-params``)."""
    refuse_given(
        args,
        _COUNT_REFUSES,
        "needs the model (--model, --model-config or its sizes): with --params, "
        "--largest-layer-params or --trainable-params memory counts the numbers as given",
    )
    params, largest = args.params, args.largest_layer_params or 0
    trainable = args.trainable_params
    frozen: Fraction | None = None
    spec = model_spec(args)
    if spec is not None and args.params is None:
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
                    "--lora-rank: this model's projections are not known: give --params "
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
            "--recipe lora (--lora-rank) with --params needs --trainable-params (the "
            "adapters' parameters) or --model"
        )
    elif recipe is Recipe.LORA and args.base_bits == 4 and trainable is not None:
        frozen = lora.base_weight_bytes_per_param(lora.BaseFormat.NF4) * (params - trainable)
    if trainable is not None and trainable > params:
        raise UsageError("--trainable-params: must not exceed --params")
    precision = precision_of(args)[0]
    gpus = data_parallel(args)
    nodes = nodes_of(args, gpus)
    if gpus % nodes:
        raise UsageError(f"--nodes: {gpus} GPUs cannot be split evenly over {nodes} nodes")
    try:
        return model_states(
            params,
            gpus,
            ZeroStage(args.zero_stage),
            Offload(args.offload),
            precision,
            nodes=nodes,
            largest_layer=largest,
            optimizer_state_bytes=OPTIMIZER_STATE_BYTES[Optimizer(args.optimizer)],
            trainable=trainable,
            frozen_weight_bytes=frozen,
            master=_counted_master(args, precision),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _counted_master(args: argparse.Namespace, precision: Precision) -> MasterWeights:
    """``--master-weights`` for DeepSpeed's estimator on the counts: refused, with the
    plan's sentence, where DeepSpeed does not keep it."""
    master = MasterWeights(args.master_weights)
    if master is MasterWeights.FP32:
        return master
    if precision is not Precision.BF16:
        kind = ProblemKind.MASTER_PRECISION
        raise UsageError(f"--master-weights: {problem_text(kind, precision=precision.value)}")
    if not Framework.DEEPSPEED.keeps(master):
        text = problem_text(ProblemKind.MASTER_DEEPSPEED)
        raise UsageError(f"--master-weights: {text}")
    return master


def _base_bits(args: argparse.Namespace, recipe: Recipe) -> int | None:
    if recipe is not Recipe.LORA:
        return None
    return 4 if args.base_bits == 4 else 16


def _json(
    args: argparse.Namespace, result: ModelStates, recipe: Recipe, counts: tuple[int, int]
) -> dict[str, Any]:
    world = result.gpus * result.model_parallel * result.context_parallel
    return {
        # the whole model's (with tensor or pipeline parallelism a GPU holds its shard)
        "params": counts[0],
        "largest_layer_params": result.largest_layer,
        "trainable_params": counts[1],
        "gpus": result.gpus,
        "nodes": result.nodes,
        "gpus_per_node": world // result.nodes,
        "zero_stage": int(result.zero_stage),
        "offload": result.offload.value,
        "recipe": recipe.value,
        "precision": result.precision.value,
        "base_bits": _base_bits(args, recipe),
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
        "source": result.source.format(stage=int(result.zero_stage)),
    }


def _print_text(
    result: ModelStates, recipe: Recipe, data: dict[str, Any], budget_gb: int | None
) -> None:
    out = sys.stdout
    layout = data.get("layout") or {}
    split = [
        f"{layout[key]} {word}"
        for key, word in (
            ("tensor_parallel", "tensor"),
            ("pipeline_stages", "pipeline"),
            ("context_parallel", "context"),
        )
        if layout.get(key, 1) > 1
    ]
    gpus = f"{result.gpus} GPU(s)"
    if split:
        gpus = f"{result.gpus} data-parallel GPU(s) x {' x '.join(split)}"
    framework, master = data.get("framework"), result.master.value
    out.write(
        f"{data['params']} parameters on {gpus}"
        + (f" ({result.nodes} nodes)" if result.nodes > 1 else "")
        + f", ZeRO-{int(result.zero_stage)}, offload {result.offload.value}, {recipe.value}"
        + (f", {framework}" if framework not in (None, "deepspeed") else "")
        + (f", {master} master copy" if master != MasterWeights.FP32.value else "")
        + "\n"
    )
    out.write(f"Per GPU:  {result.gpu_bytes} bytes ({_gb(result.gpu_bytes)})\n")
    node = f"Per node (CPU): {result.cpu_bytes} bytes ({_gb(result.cpu_bytes)})"
    if budget_gb is not None:
        fits = "fits" if data["cpu_fits"] else "does NOT fit"
        node += f" of {budget_gb} GB ({fits})"
    out.write(node + "\n")
    for c in result.components:
        where = "GPU" if c.where == "gpu" else "CPU"
        name = PART_NAMES[c.part.value]
        if result.master is MasterWeights.BF16 and c.part.value in _MASTER_PARTS:
            name = name.replace("fp32", "bf16")  # the master copy's parts are bf16
        out.write(f"  {where} {name}: {_gb_fraction(c.bytes)}\n")
    out.write(f"Source: {data['source']}\n")
    _print_plan_figures(data)


def _print_plan_figures(data: dict[str, Any]) -> None:
    """The plan's memory beyond the model states, where the flags fix it, as the plan
    shows it (decimal GB to the MB, rounded up)."""
    out = sys.stdout
    other = data.get("other_memory_bytes")
    if other is not None:
        out.write(f"Other memory per GPU (model states + overhead): {_shown(other)}\n")
    per_sample = data.get("activation_bytes_per_sample")
    if per_sample is not None:
        out.write(
            f"Activation per sample: {_shown(per_sample)} (whole model on one GPU); "
            f"{_shown(data['activation_bytes_per_gpu_per_sample'])} on the GPU that holds "
            "the most\n"
        )
    per_gpu = data.get("per_gpu_bytes")
    if per_gpu is not None:
        usable = data.get("usable_bytes")
        verdict = ""
        if usable is not None:
            fits = "fits" if data["fits"] else "does NOT fit"
            verdict = f" of {_shown(usable)} usable ({fits}; at most {data['max_micro_batch']})"
        out.write(f"Memory per GPU at this micro-batch: {_shown(per_gpu)}{verdict}\n")


def _shown(nbytes: int) -> str:
    return f"{plain(shown_gb(nbytes))} GB"


def _gb(value: int) -> str:
    return _gb_fraction(Fraction(value))


def _gb_fraction(value: Fraction) -> str:
    """Decimal GB to the MB, rounded half-even from the exact byte count."""
    with localcontext() as ctx:
        ctx.prec = 60
        gb = Decimal(value.numerator) / Decimal(value.denominator) / Decimal(10**9)
        return f"{gb.quantize(Decimal('0.001'), rounding=ROUND_HALF_EVEN)} GB"
