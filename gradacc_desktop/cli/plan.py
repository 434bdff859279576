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
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.compute import significant, to_decimal
from ..core.frameworks import BatchVerdicts
from ..core.gpus import GpuTableError, load_gpu_table
from ..core.layout import LAYOUT_LIMITS
from ..core.planning import TARGET_LIMITS, Rounding, deepspeed_check
from ..core.setup import problem_text, setup_problem
from ..core.step_results import PART_NAMES, StepTime
from ..core.training.alternatives import Alternative, Change, alternatives
from ..core.training.description import TrainingDescription
from ..core.training.figures import GB, Missing, Source, shown_gb
from ..core.training.plan import PairPlan, Plan, plan
from ..core.training.search import Candidate, SearchResult, search
from ._common import GPUS, MICRO_BATCH, UsageError, int_type, plain
from ._common import print_json as _print_json
from .description import (
    add_description_arguments,
    check_expert_data,
    description_from,
    layout_dict,
)

#: significant digits of times and rates
DIGITS = 6


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="plan a run: micro-batch, accumulation steps, memory per GPU, time per step",
        description="Plan a run for a target effective batch. The memory per GPU is derived "
        "from the model (--model, --model-config or --params) at --seq-len on the card "
        "(--gpu-card or --gpu-memory-gb); --activation-gb and --other-memory-gb type over "
        "the derived figures (decimal GB). Without --micro-batch one is recommended. --gpus "
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
    )
    if d.model is not None and d.seq_len is None:
        raise UsageError(
            "--seq-len is needed with a model: the activation per sample and the time per "
            "step depend on it"
        )
    if check_layout:
        check_expert_data(d.expert_parallel, d.gpus)
    problem = setup_problem(d.setup(1, 1)) if check_layout else None
    if problem is not None:
        raise UsageError(problem_text(problem, d.setup(1, 1)))
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
    result = search(d, args.world_size, args.nodes)
    if result.unsearchable is not None:
        raise UsageError(UNSEARCHABLE[result.unsearchable.value])
    applied = result.applied()
    best_plan = plan(applied if applied is not None else d)
    if args.json:
        data = plan_json(best_plan, args)
        data["world_size"] = args.world_size
        data["setup"] = None if result.best is None else _setup_dict(result.best)
        data["ranking"] = [_ranked(c) for c in result.ranking]
        data["exclusions"] = _exclusions(result)
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


def _gb(nbytes: int | Fraction) -> Decimal:
    value = Fraction(nbytes) / GB
    return (Decimal(value.numerator) / Decimal(value.denominator)).normalize()


def _n(value: Fraction) -> Decimal:
    return significant(value, DIGITS)


def parts_dict(step: StepTime) -> dict[str, Decimal]:
    """Where one optimizer step's time goes (seconds; they add up to step_seconds)."""
    return {name: _n(getattr(step.parts, name)) for name in PART_NAMES}


def time_dict(step: StepTime) -> dict[str, Any]:
    """The time keys of a plan and of each candidate."""
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
        "parts": parts_dict(step),
    }


def _verdicts(v: BatchVerdicts) -> dict[str, Any]:
    return {
        "deepspeed": {"ok": v.deepspeed.ok, "reason": v.deepspeed.reason},
        "megatron": {"ok": v.megatron.ok, "derived_accumulation_steps": v.megatron.derived_steps},
    }


def _memory(p: Plan) -> dict[str, Any]:
    figs = p.figures
    missing = {
        name: figure.missing.value
        for name, figure in (("activation", figs.activation), ("other_memory", figs.other))
        if figure.bytes is None and figure.missing is not None
    }
    if figs.usable_bytes is None:
        missing["usable"] = Missing.NO_CAPACITY.value
    data: dict[str, Any] = {
        "activation_bytes_per_sample": figs.activation.bytes,
        "activation_source": _source(figs.activation.source),
        "model_states_bytes": None if figs.states is None else figs.states.gpu_bytes,
        # every parameter of the model, and those the method trains (LoRA: the adapters)
        "params": None if figs.facts is None else figs.facts.params,
        "trainable_params": figs.trainable,
        "other_memory_source": _source(figs.other.source),
        "usable_bytes": figs.usable_bytes,
        "per_gpu_bytes": None if p.current is None else p.current.per_gpu_bytes,
    }
    if missing:
        data["missing"] = missing
    if p.why is not None:
        data["why"] = p.why
    return data


def _source(source: Source) -> str | None:
    return None if source is Source.MISSING else source.value


def _fit(p: Plan) -> dict[str, Any]:
    f = p.fit
    if f is None:
        largest = p.figures.max_micro_batch()
        return {"fits": False if p.no_fit else None, "max_micro_batch": largest}
    return {
        "fits": f.fits,
        "max_micro_batch": f.max_micro_batch,
        "activation_gb": _gb(f.activation_bytes),
        "total_gb": _gb(f.per_gpu_bytes),
        "headroom_gb": _gb(f.headroom_bytes),
        "gpu_memory_gb": _gb(f.usable_bytes),
        "other_memory_gb": _gb(f.other_bytes),
    }


def _time(p: Plan, pair: PairPlan | None, args: argparse.Namespace) -> dict[str, Any]:
    if p.description.model is None:
        return {}
    if pair is None or pair.time is None:
        missing = p.time_missing.value if p.time_missing is not None else None
        return {"time_unavailable": missing}
    data = time_dict(pair.time)
    assert p.step_model is not None
    # terms a bare parameter count leaves out (the model's shape counts them)
    data["uncounted"] = [u.value for u in p.step_model.workload.uncounted]
    data["efficiency"] = "typed" if p.step_model.hardware.typed else "modelled"
    return data


def _candidate(p: Plan, pair: PairPlan, args: argparse.Namespace) -> dict[str, Any]:
    data = {
        "micro_batch": pair.micro_batch,
        "accumulation_steps": pair.accumulation_steps,
        "effective_batch": pair.effective_batch,
        "exact": pair.pair.exact,
        "fits": pair.fits,
        "per_gpu_bytes": pair.per_gpu_bytes,
        "verdicts": _verdicts(pair.verdicts),
        # interleaved 1F1B runs whole groups of pipeline-stages micro-batches only
        "schedule_ok": pair.schedule_ok,
    }
    if pair.time is not None:
        data.update(time_dict(pair.time))
    return data


def _extras(p: Plan) -> dict[str, Any]:
    from ..core.planning import steps_per_epoch, tokens_per_step

    extras: dict[str, Any] = {}
    current = p.current
    if current is None:
        return extras
    d = p.description
    if d.seq_len is not None:
        extras["tokens_per_step"] = tokens_per_step(current.effective_batch, d.seq_len)
    if d.run.dataset_samples is not None:
        steps = steps_per_epoch(d.run.dataset_samples, current.effective_batch)
        extras["steps_per_epoch"] = steps.keep_last
        extras["steps_per_epoch_drop_last"] = steps.drop_last
    if p.run:
        # the run's totals (the goodput stretches them; the step is the same)
        extras["run"] = {
            line.kind: {
                "amount": line.amount,
                "steps": line.totals.steps,
                "seconds": _n(line.totals.seconds),
                "hours": _n(line.totals.seconds / 3600),
                "days": _n(line.totals.days),
                "gpu_hours": _n(line.totals.gpu_hours),
                "cost": None if line.totals.cost is None else to_decimal(line.totals.cost, 2),
            }
            for line in p.run
        }
        extras["goodput"] = d.run.goodput
    return extras


def _layout(p: Plan) -> dict[str, Any]:
    d = p.description
    if (
        p.step_model is None
        and d.tensor_parallel == d.pipeline_stages == d.expert_parallel == d.context_parallel == 1
    ):
        return {}
    return {"layout": layout_dict(d)}


def plan_json(p: Plan, args: argparse.Namespace) -> dict[str, Any]:
    """The plan as the contract's JSON object."""
    d = p.description
    head: dict[str, Any] = {
        "target_batch": d.target_batch,
        "gpus": d.gpus,
        "rounding": d.rounding,
    }
    if p.no_fit is not None:
        nothing = p.no_fit
        return {
            **head,
            "micro_batch": None,
            "accumulation_steps": None,
            "effective_batch": None,
            "exact": False,
            "fits": False,
            "max_micro_batch": 0,
            "activation_gb": _gb(nothing.activation_bytes),
            "total_gb": _gb(nothing.other_bytes + nothing.activation_bytes),
            "headroom_gb": _gb(-nothing.shortfall_bytes),
            "gpu_memory_gb": _gb(nothing.usable_bytes),
            "other_memory_gb": _gb(nothing.other_bytes),
            "shortfall_gb": _gb(nothing.shortfall_bytes),
            "other_exceeds_capacity": nothing.other_exceeds,
            "suggestions": list(nothing.suggestions),
            "alternatives": [_alternative(a) for a in _alternatives(p)],
            **_memory(p),
            **_layout(p),
        }
    current = p.current
    accumulation = p.accumulation
    assert current is not None and accumulation is not None
    data = {
        **head,
        "micro_batch": current.micro_batch,
        "accumulation_steps": current.accumulation_steps,
        "effective_batch": current.effective_batch,
        "difference": accumulation.difference,
        "exact": accumulation.exact,
        "floor_unreachable": p.choice.floor_unreachable
        if p.recommending
        else accumulation.floor_unreachable,
    }
    if not p.recommending:
        data.update(
            {
                "reachable_below": accumulation.reachable_below,
                "reachable_above": accumulation.reachable_above,
                "exact_micro_batches": [
                    [x.micro_batch, x.accumulation_steps] for x in accumulation.exact_micro_batches
                ],
                "largest_micro_batch_within": accumulation.largest_micro_batch_within,
            }
        )
    data.update(_fit(p))
    if not p.recommending:
        check = deepspeed_check(d.target_batch, current.micro_batch, None, d.gpus)
        data["deepspeed"] = {
            "ok": check.ok,
            "reason": check.reason,
            "train_batch_size": check.train_batch_size,
            "train_micro_batch_size_per_gpu": check.micro_batch,
            "gradient_accumulation_steps": check.grad_acc,
        }
    data["verdicts"] = _verdicts(current.verdicts)
    if p.recommending:
        data["candidates"] = [
            _candidate(p, pair, args) for pair in p.pairs if pair.fits is not False
        ]
    data.update(_extras(p))
    data.update(_memory(p))
    data.update(_layout(p))
    data.update(_time(p, current, args))
    if p.recommending and p.step_model is not None and p.fastest is not None:
        fastest = p.fastest
        assert fastest.time is not None
        data["fastest"] = {
            "micro_batch": fastest.micro_batch,
            "accumulation_steps": fastest.accumulation_steps,
            "effective_batch": fastest.effective_batch,
            **time_dict(fastest.time),
        }
    return data


def _alternatives(p: Plan) -> tuple[Alternative, ...]:
    try:
        cards = load_gpu_table().cards
    except GpuTableError:
        cards = ()
    return alternatives(p.description, cards, p.figures.facts)


def _changed(a: Alternative) -> dict[str, Any]:
    """The setting an alternative changes, as the flag's value."""
    d = a.description
    if a.change is Change.RECOMPUTE:
        return {"recompute": d.recompute.value}
    if a.change is Change.ZERO_STAGE:
        return {"zero_stage": int(d.zero_stage)}
    if a.change is Change.OFFLOAD:
        return {"zero_stage": int(d.zero_stage), "offload": d.offload.value}
    if a.change in (Change.LORA, Change.QLORA):
        return {"method": d.method.value}
    if a.change is Change.CARD:
        return {"gpu_card": None if d.card is None else d.card.id}
    if a.change is Change.GPUS:
        return {"gpus": d.gpus, "zero_stage": int(d.zero_stage)}
    return {"tensor_parallel": d.tensor_parallel}


def _alternative(a: Alternative) -> dict[str, Any]:
    return {
        "change": a.change.value,
        **_changed(a),
        "max_micro_batch": a.max_micro_batch,
        "other_memory_bytes": a.other_bytes,
        "activation_bytes_per_gpu": a.per_sample_bytes,
    }


def _setup_dict(c: Candidate) -> dict[str, Any]:
    return {
        "zero_stage": int(c.zero_stage),
        "offload": c.offload.value,
        "recompute": c.recompute.value,
        "tensor_parallel": c.tensor_parallel,
        "pipeline_stages": c.pipeline_stages,
        "expert_parallel": c.expert_parallel,
        "context_parallel": c.context_parallel,
        "gpus": c.gpus,
    }


def _ranked(c: Candidate) -> dict[str, Any]:
    return {
        **_setup_dict(c),
        "micro_batch": c.micro_batch,
        "accumulation_steps": c.accumulation_steps,
        "effective_batch": c.effective_batch,
        "fits": c.fits,
        "step_seconds": None if c.step is None else _n(c.step.step_seconds),
        "per_gpu_bytes": c.per_gpu_bytes,
    }


def _exclusions(result: SearchResult) -> list[dict[str, Any]]:
    out = []
    for e in result.exclusions:
        value = e.value
        if hasattr(value, "value"):
            value = value.value
        entry: dict[str, Any] = {
            "dimension": e.dimension,
            "value": int(value) if isinstance(value, int) else value,
            "reason": e.reason.value,
        }
        if e.shortfall_bytes is not None:
            entry["shortfall_bytes"] = e.shortfall_bytes
        if e.refusals:
            entry["refusals"] = [r.value for r in e.refusals]
        if e.candidate is not None and e.candidate.step is not None:
            entry["step_seconds"] = _n(e.candidate.step.step_seconds)
        out.append(entry)
    return out


# --------------------------------------------------------------------------- text


def _difference(difference: int) -> str:
    if difference == 0:
        return "exactly the target"
    if difference > 0:
        return f"{difference} above the target"
    return f"{-difference} below the target"


def _gb_text(nbytes: int) -> str:
    return f"{plain(shown_gb(nbytes))} GB"


def _print_memory(p: Plan) -> None:
    figs = p.figures
    a, o = figs.activation, figs.other
    if a.bytes is not None:
        how = "estimated from the model" if a.source is Source.ESTIMATED else "given"
        print(f"Activation per sample: {_gb_text(a.bytes)} ({how}, whole model on one GPU)")
    elif a.missing is not None:
        print(f"Activation per sample: unknown ({a.missing.value.replace('_', ' ')})")
    if o.bytes is not None:
        if o.source is Source.ESTIMATED and figs.states is not None:
            print(
                f"Other memory per GPU: {_gb_text(o.bytes)} (model states "
                f"{_gb_text(figs.states.gpu_bytes)} + overhead {_gb_text(figs.overhead_bytes)})"
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
    _print_memory(p)
    if p.no_fit is not None:
        print(f"Nothing fits: {p.no_fit.why}.")
        found = _alternatives(p)
        if found:
            print("It would fit with one change:")
            for alternative in found:
                changed = ", ".join(f"{k} {v}" for k, v in _changed(alternative).items())
                print(f"  {changed}: up to {alternative.max_micro_batch} sample(s) per GPU")
        else:
            print("Try: " + ", ".join(s.value.replace("_", " ") for s in p.no_fit.suggestions))
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
        print(
            f"Memory per GPU: {_gb_text(f.per_gpu_bytes)} of {_gb_text(f.usable_bytes)} "
            f"({verdict}, headroom {_gb_text(f.headroom_bytes)}); largest micro-batch that "
            f"fits: {f.max_micro_batch}"
        )
        if p.why is not None:
            print(f"Why: {p.why}.")
    _print_verdicts(current.verdicts, current.effective_batch)
    for key, value in _extras(p).items():
        print(f"{key.replace('_', ' ').capitalize()}: {value}")
    if current.time is not None:
        print_step(current.time, "Time")
        best = p.fastest
        if p.recommending and best is not None and best.time is not None:
            print_step(
                best.time,
                f"Fastest pair that fits: {best.micro_batch} x {best.accumulation_steps}",
            )


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


def print_step(step: StepTime, label: str) -> None:
    print(
        f"{label}: {plain(_n(step.step_seconds))} s per optimizer step, "
        f"{plain(_n(step.tokens_per_second))} tokens/s, MFU {plain(_n(step.mfu))}"
        + (f", bubble {plain(_n(step.bubble_fraction))}" if step.bubble_seconds else "")
        + (", memory-bound" if step.memory_bound else "")
    )


def _setup_text(c: Candidate) -> str:
    offload = "" if c.offload.value == "none" else f" + offload {c.offload.value}"
    recompute = ", full recomputation" if c.recompute.value == "full" else ""
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
        seconds = "" if c.step is None else f": {plain(_n(c.step.step_seconds))} s per step"
        print(f"{rank}. {_setup_text(c)}{seconds}")
    print()
    _print_plan(best_plan, args)
