"""``gradacc plan``: the training description's plan — micro-batch and accumulation steps
for a target effective batch, the memory per GPU derived from the model, whether it fits,
the time per step, and with ``--auto`` the best setup for a number of GPUs.

Contract (scripts depend on it): the description flags of ``cli.description``;
``--activation-gb`` and ``--other-memory-gb`` are optional (derived when absent).
``--json`` keys: the plan's (``micro_batch``, ``accumulation_steps``, ``effective_batch``,
``fits``, ``max_micro_batch``, ``candidates``, ``verdicts`` …) plus
``activation_bytes_per_sample``, ``activation_source`` (``"estimated"``/``"given"``),
``model_states_bytes``, ``other_memory_source``, ``usable_bytes``, ``per_gpu_bytes`` and
``why`` when ``fits`` is false; with a model and a card's speed the time keys
(``step_seconds``, ``tokens_per_second``, ``mfu``, ``bubble_fraction`` …) and ``fastest``.
``--auto --world-size N`` adds ``setup`` and ``ranking``.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.batch import TARGET_LIMITS, Rounding
from ..core.frameworks import BatchVerdicts, megatron_text
from ..core.frameworks.config_import import deepspeed_text
from ..core.memory import note_text, problem_text, setup_problem
from ..core.time import LAYOUT_LIMITS, StepTime
from ..core.training.description import TrainingDescription, default_nodes
from ..core.training.figures import Source, shown_free_gb, shown_gb
from ..core.training.plan import Plan, plan
from ..core.training.search import Candidate, SearchResult, search
from ._common import GPUS, MICRO_BATCH, UsageError, extras_lines, int_type, plain
from ._common import print_json as _print_json
from .description import (
    add_description_arguments,
    check_expert_groups,
    description_from,
)
from .plan_json import (
    changed_dict,
    exclusions_list,
    extras_dict,
    plan_alternatives,
    plan_json,
    ranked_dict,
    rounded,
    setup_dict,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="plan a run: micro-batch, accumulation steps, memory per GPU, time per step",
        description="Plan a run for a target effective batch. The memory per GPU is derived "
        "from the model (--model, --model-config or --params) at --seq-len on the card "
        "(--gpu-card or --gpu-memory-gb); --activation-gb and --other-memory-gb type over "
        "the derived figures (decimal GB). Without --micro-batch one is recommended once the "
        "memory is known (until then the pairs that reach the target are listed). --gpus "
        "is the data-parallel size; --auto --world-size N searches the best setup instead.",
    )
    parser.add_argument("--target-batch", type=int_type(TARGET_LIMITS), required=True, metavar="T")
    parser.add_argument("--micro-batch", type=MICRO_BATCH, metavar="B")
    parser.add_argument("--gpus", type=GPUS, metavar="G", help="data-parallel GPUs")
    parser.add_argument(
        "--rounding", choices=[r.value for r in Rounding], default=Rounding.CEIL.value
    )
    parser.add_argument(
        "--auto",
        action="store_true",
        help="search ZeRO stage, offload, recomputation, tensor parallelism, pipeline stages "
        "and the pair for the fastest setup that fits on --world-size GPUs",
    )
    parser.add_argument(
        "--world-size",
        type=int_type(LAYOUT_LIMITS),
        metavar="N",
        help="with --auto: every GPU (data x tensor x pipeline)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_description_arguments(
        parser, nodes_help="split the world (data x tensor x pipeline GPUs) evenly over N nodes"
    )
    parser.set_defaults(handler=run)


# --------------------------------------------------------------------------- running


def _description(
    args: argparse.Namespace, gpus: int, *, check_layout: bool = True
) -> TrainingDescription:
    d = description_from(
        args,
        gpus=gpus,
        target_batch=args.target_batch,
        micro_batch=args.micro_batch,
        rounding=Rounding(args.rounding),
        plans_problems=True,
    )
    if d.model is not None and d.seq_len is None:
        raise UsageError(
            "--seq-len is needed with a model: the activation per sample and the time per "
            "step depend on it"
        )
    if check_layout:
        check_expert_groups(d)
    problem = setup_problem(d.shape) if check_layout else None
    if problem is not None:
        raise UsageError(problem_text(problem, d.shape))
    return d


def run(args: argparse.Namespace) -> int:
    if args.auto:
        return _run_auto(args)
    if args.world_size is not None:
        raise UsageError("--world-size goes with --auto")
    if args.gpus is None:
        raise UsageError("the following arguments are required: --gpus (or --auto --world-size)")
    result = plan(_description(args, args.gpus))
    if args.json:
        _print_json(plan_json(result, args))
    else:
        _print_plan(result, args)
    return 0


def _run_auto(args: argparse.Namespace) -> int:
    if args.gpus is not None:
        raise UsageError("--auto searches the data-parallel size: give --world-size, not --gpus")
    if args.world_size is None:
        raise UsageError("--auto needs --world-size N (every GPU of the run)")
    if args.micro_batch is not None:
        raise UsageError("--auto chooses the micro-batch: leave --micro-batch out")
    d = _description(args, 1, check_layout=False)
    nodes = default_nodes(args.world_size) if args.nodes is None else args.nodes
    result = search(d, args.world_size, nodes)
    if result.unsearchable is not None:
        raise UsageError(UNSEARCHABLE[result.unsearchable.value])
    applied = result.applied()
    best_plan = plan(applied if applied is not None else d)
    if args.json:
        data = plan_json(best_plan, args)
        data["world_size"] = args.world_size
        data["setup"] = None if result.best is None else setup_dict(result.best)
        data["ranking"] = [ranked_dict(c) for c in result.ranking]
        data["exclusions"] = exclusions_list(result)
        _print_json(data)
        return 0
    _print_search(result, best_plan, args)
    return 0


UNSEARCHABLE = {
    "no_model": "--auto needs a model: --model, --model-config or --params",
    "no_activation": "--auto needs the activation per sample: a model with a shape (--model "
    "or --model-config) and --seq-len",
    "no_capacity": "--auto needs the card: --gpu-card or --gpu-memory-gb",
    "uneven_nodes": "--world-size: the GPUs cannot be split evenly over --nodes",
    "context_parallel": "--context-parallel must divide --world-size and split --seq-len "
    "into 2 x CP equal chunks",
}


# --------------------------------------------------------------------------- JSON


def _difference(difference: int) -> str:
    if difference == 0:
        return "exactly the target"
    if difference > 0:
        return f"{difference} above the target"
    return f"{-difference} below the target"


def _gb_text(nbytes: int) -> str:
    return f"{plain(shown_gb(nbytes))} GB"


def _free_text(nbytes: int) -> str:
    """The headroom: rounded down (see ``shown_free_gb``); short of memory is the
    excess, rounded up."""
    if nbytes < 0:
        return f"short by {_gb_text(-nbytes)}"
    return f"headroom {plain(shown_free_gb(nbytes))} GB"


def _print_memory(p: Plan) -> None:
    figs = p.figures
    a, o = figs.activation, figs.other
    if a.bytes is not None:
        how = "estimated from the model" if a.source is Source.ESTIMATED else "given"
        print(f"Activation per sample: {_gb_text(a.bytes)} ({how}, whole model on one GPU)")
    elif a.missing is not None:
        why = a.missing.value.replace("_", " ")
        print(f"Activation per sample: unknown ({why}{': ' + a.detail if a.detail else ''})")
    if o.bytes is not None:
        if o.source is Source.ESTIMATED and figs.states is not None:
            reserve = o.bytes - figs.states.gpu_bytes - figs.overhead_bytes
            kept = f" + the allocator's reserve {_gb_text(reserve)}" if reserve else ""
            print(
                f"Other memory per GPU: {_gb_text(o.bytes)} (model states "
                f"{_gb_text(figs.states.gpu_bytes)}{kept} + overhead "
                f"{_gb_text(figs.overhead_bytes)})"
            )
        else:
            print(f"Other memory per GPU: {_gb_text(o.bytes)} (given)")
    elif o.missing is not None:
        print(f"Other memory per GPU: unknown ({o.missing.value.replace('_', ' ')})")


def _print_plan(p: Plan, args: argparse.Namespace) -> None:
    d = p.description
    print(
        f"Target effective batch: {d.target_batch} on {d.gpus} GPU(s), rounding: {d.rounding.value}"
    )
    for problem in p.problems:
        print(f"Problem ({problem.field.replace('_', '-')}): {problem.message}")
    # what the framework refuses, whether or not anything fits
    for refusal in p.refusals:
        print(f"Refused ({refusal.framework.value}): {refusal.message}")
    _print_memory(p)
    if p.no_fit is not None:
        print(f"Nothing fits: {p.no_fit.why}.")
        found = plan_alternatives(p)
        if found:
            print("It would fit with one change:")
            for alternative in found:
                changed = ", ".join(f"{k} {v}" for k, v in changed_dict(alternative).items())
                print(f"  {changed}: up to {alternative.max_micro_batch} sample(s) per GPU")
        else:  # as the window says it
            print(
                "No single change makes it fit: try --auto (the best setup on these GPUs), "
                "or a smaller model."
            )
        return
    if p.unrecommended:
        pairs = ", ".join(
            f"{x.micro_batch} x {x.accumulation_steps} x {d.gpus} = {x.effective_batch}"
            for x in p.pairs
        )
        print(f"Micro-batch x accumulation steps x GPUs: {pairs}")
        print(
            "No recommendation: which micro-batch fits is not known without the memory per "
            "GPU (give --model and --seq-len, or --activation-gb and --other-memory-gb; or "
            "choose one with --micro-batch)"
        )
        return
    current, accumulation = p.current, p.accumulation
    assert current is not None and accumulation is not None
    b, a, g = current.micro_batch, current.accumulation_steps, d.gpus
    label = "Recommended" if p.recommending else "Plan"
    print(
        f"{label}: micro-batch {b} x {a} accumulation step(s) x {g} GPU(s) = "
        f"{current.effective_batch} ({_difference(accumulation.difference)})"
    )
    if accumulation.floor_unreachable:
        within = accumulation.largest_micro_batch_within
        hint = (
            f"use a micro-batch of at most {within}"
            if within is not None
            else f"use at most {d.target_batch} GPU(s)"
        )
        print(
            f"No accumulation steps keep {b} x {g} below the target of {d.target_batch}: "
            f"even 1 step gives {current.effective_batch}; {hint}."
        )
    elif not accumulation.exact:
        print(f"No micro-batch reaches {d.target_batch} exactly with micro-batch {b}.")
    if p.fit is not None:
        f = p.fit
        verdict = "fits" if f.fits else "does NOT fit"
        # the parts as the window's memory card adds them: the activations on the GPU
        # that holds the most, the allocator's reserve included
        parts = (
            f"{_gb_text(f.other_bytes)} other + {f.micro_batch} x "
            f"{_gb_text(f.per_sample_bytes)} of activations = "
        )
        print(
            f"Memory per GPU: {parts}{_gb_text(f.per_gpu_bytes)} of {_gb_text(f.usable_bytes)} "
            f"({verdict}, {_free_text(f.headroom_bytes)}); largest micro-batch that "
            f"fits: {f.max_micro_batch}"
        )
        if p.why is not None:
            print(f"Why: {p.why}.")
    if p.cpu_bytes_per_node:
        print(_cpu_text(p))
    _print_verdicts(current.verdicts, p)
    for text in extras_lines(extras_dict(p)):  # the run's totals in words, not a dict
        print(text)
    setup = d.shape
    for note in p.notes:
        print(f"Note: {note_text(note, setup)}")
    if current.time is not None:
        print_step(current.time, "Time")
        best = p.fastest
        if p.recommending and best is not None and best.time is not None:
            print_step(
                best.time,
                f"Fastest pair that fits: {best.micro_batch} x {best.accumulation_steps}",
            )


def _cpu_text(p: Plan) -> str:
    """Each node's CPU memory for the model states, against the node's when given."""
    need = _gb_text(p.cpu_bytes_per_node or 0)
    budget = p.description.cpu_memory_gb
    if budget is None:
        return f"CPU memory per node: {need} (the node's memory is not given)"
    verdict = "fits" if p.cpu_fits else "does NOT fit"
    return f"CPU memory per node: {need} of {plain(budget)} GB ({verdict})"


def _print_verdicts(v: BatchVerdicts, p: Plan) -> None:
    refusing = {r.framework for r in p.refusals}
    if v.both_accept and not refusing:
        print(
            f"DeepSpeed (train_batch_size={v.target}) and Megatron "
            f"(--global-batch-size {v.target}) accept this pair."
        )
        return
    if v.both_accept:  # the batch is fine; the framework refused the setup (above)
        print(
            f"The batch values (train_batch_size={v.target}, --global-batch-size "
            f"{v.target}) are accepted; the setup is refused above."
        )
        return
    for text, advice in (
        (deepspeed_text(v.deepspeed), v.deepspeed_advice()),
        (megatron_text(v.megatron, v.accumulation_steps), v.megatron_advice()),
    ):
        print(text if advice is None else f"{text} {advice}")


def print_step(step: StepTime, label: str) -> None:
    print(
        f"{label}: {plain(rounded(step.step_seconds))} s per optimizer step, "
        f"{plain(rounded(step.tokens_per_second))} tokens/s, MFU {plain(rounded(step.mfu))}"
        + (f", bubble {plain(rounded(step.bubble_fraction))}" if step.bubble_seconds else "")
        + (", memory-bound" if step.memory_bound else "")
    )


def _setup_text(c: Candidate) -> str:
    offload = "" if c.offload.value == "none" else f" + offload {c.offload.value}"
    recompute = "" if c.recompute.value == "none" else f", {c.recompute.value} recomputation"
    experts = f" ({c.expert_parallel}-way expert parallel)" if c.expert_parallel > 1 else ""
    if c.context_parallel > 1:
        experts += f" x {c.context_parallel} context"
    return (
        f"ZeRO-{int(c.zero_stage)}{offload}{recompute}, {c.gpus} data x "
        f"{c.tensor_parallel} tensor x {c.pipeline_stages} pipeline{experts}, "
        f"micro-batch {c.micro_batch} x {c.accumulation_steps}"
    )


def _print_search(result: SearchResult, best_plan: Plan, args: argparse.Namespace) -> None:
    print(
        f"Searched {result.considered} layouts of {result.world_size} GPU(s) over "
        f"{result.nodes} node(s)."
    )
    if result.best is None:
        print("Nothing fits on these GPUs with an accepted layout.")
        for e in result.exclusions:
            print(f"  {e.dimension} {getattr(e.value, 'value', e.value)}: {e.reason.value}")
        return
    for rank, c in enumerate(result.ranking, 1):
        seconds = "" if c.step is None else f": {plain(rounded(c.step.step_seconds))} s per step"
        print(f"{rank}. {_setup_text(c)}{seconds}")
    print()
    _print_plan(best_plan, args)
