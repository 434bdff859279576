"""``gradacc plan --json``: the plan, each candidate pair, the time of a step and where
it goes, the memory, what would fit, and the search's setup, ranking and exclusions,
as the contract's JSON objects (``cli.plan`` prints them; its docstring lists the
keys scripts depend on)."""

from __future__ import annotations

import argparse
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.batch import deepspeed_check
from ..core.frameworks import BatchVerdicts
from ..core.time import PART_NAMES, GpuTableError, StepTime, load_gpu_table, significant, to_decimal
from ..core.training.alternatives import Alternative, Change, alternatives
from ..core.training.figures import GB, Missing, Source
from ..core.training.plan import PairPlan, Plan
from ..core.training.search import Candidate, SearchResult
from .description import (
    layout_dict,
)

#: significant digits of times and rates
DIGITS = 6


def _gb(nbytes: int | Fraction) -> Decimal:
    value = Fraction(nbytes) / GB
    return (Decimal(value.numerator) / Decimal(value.denominator)).normalize()


def rounded(value: Fraction) -> Decimal:
    return significant(value, DIGITS)


def parts_dict(step: StepTime) -> dict[str, Decimal]:
    """Where one optimizer step's time goes (seconds; they add up to step_seconds)."""
    return {name: rounded(getattr(step.parts, name)) for name in PART_NAMES}


def time_dict(step: StepTime) -> dict[str, Any]:
    """The time keys of a plan and of each candidate."""
    return {
        "step_seconds": rounded(step.step_seconds),
        "tokens_per_second": rounded(step.tokens_per_second),
        "tokens_per_second_per_gpu": rounded(step.tokens_per_second_per_gpu),
        "mfu": rounded(step.mfu),
        "hfu": rounded(step.hfu),
        "bubble_fraction": rounded(step.bubble_fraction),
        "communication_fraction": rounded(step.communication_fraction),
        "micro_step_seconds": rounded(step.micro_step_seconds),
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
        # what the card must hold (the tensors, the allocator's reserve, the overhead):
        # the figure "fits" compares; and what the tensors alone hold at the peak
        # (torch.cuda.max_memory_allocated)
        "per_gpu_bytes": None if p.current is None else p.current.per_gpu_bytes,
        "per_gpu_allocated_bytes": (
            None if p.current is None else figs.allocated_bytes(p.current.micro_batch)
        ),
        # one sample's activations on the GPU that holds the most (the pipeline stage
        # that keeps the most, split over the tensor- and context-parallel GPUs)
        "activation_bytes_per_gpu_per_sample": (
            None if figs.activation_per_gpu is None else math.ceil(figs.activation_per_gpu)
        ),
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


def extras_dict(p: Plan) -> dict[str, Any]:
    from ..core.batch import steps_per_epoch, tokens_per_step

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
                "seconds": rounded(line.totals.seconds),
                "hours": rounded(line.totals.seconds / 3600),
                "days": rounded(line.totals.days),
                "gpu_hours": rounded(line.totals.gpu_hours),
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
        # what runs the step: how the memory is counted and the gradients travel
        "framework": d.framework.value,
        # what the optimizer updates: the master copy the figures count
        "master_weights": d.master.value,
        # what frameworks run, but slowly (tensor parallelism across nodes)
        "notes": [n.value for n in p.notes],
        # what the framework refuses of this setup: the rule book's entries
        "refusals": [r.as_dict() for r in p.refusals],
        # what the description asks for that the model, card or layout cannot give
        "problems": [problem.as_dict() for problem in p.problems],
        # each node's CPU memory for the model states, and whether the node holds it
        "cpu_bytes_per_node": p.cpu_bytes_per_node,
        "cpu_fits": p.cpu_fits,
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
            "alternatives": [_alternative(a) for a in plan_alternatives(p)],
            **_memory(p),
            **_layout(p),
        }
    if p.unrecommended:  # the memory is not known: no micro-batch is recommended
        return {
            **head,
            "micro_batch": None,
            "accumulation_steps": None,
            "effective_batch": None,
            "exact": None,
            "fits": None,
            "max_micro_batch": None,
            "candidates": [_candidate(p, pair, args) for pair in p.pairs],
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
    data.update(extras_dict(p))
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


def plan_alternatives(p: Plan) -> tuple[Alternative, ...]:
    try:
        cards = load_gpu_table().cards
    except GpuTableError:
        cards = ()
    return alternatives(p.description, cards, p.figures.facts)


def changed_dict(a: Alternative) -> dict[str, Any]:
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
        **changed_dict(a),
        "max_micro_batch": a.max_micro_batch,
        "other_memory_bytes": a.other_bytes,
        "activation_bytes_per_gpu": a.per_sample_bytes,
    }


def setup_dict(c: Candidate) -> dict[str, Any]:
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


def ranked_dict(c: Candidate) -> dict[str, Any]:
    return {
        **setup_dict(c),
        "micro_batch": c.micro_batch,
        "accumulation_steps": c.accumulation_steps,
        "effective_batch": c.effective_batch,
        "fits": c.fits,
        "step_seconds": None if c.step is None else rounded(c.step.step_seconds),
        "per_gpu_bytes": c.per_gpu_bytes,
        # each node's CPU memory for the model states (an offload's need)
        "cpu_bytes_per_node": c.cpu_bytes_per_node,
    }


def exclusions_list(result: SearchResult) -> list[dict[str, Any]]:
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
        if e.refusals or e.blocked:
            # the rule book's rules, then the search's own reasons
            entry["refusals"] = [r.rule.value for r in e.refusals] + [b.value for b in e.blocked]
        if e.candidate is not None and e.candidate.step is not None:
            entry["step_seconds"] = rounded(e.candidate.step.step_seconds)
        out.append(entry)
    return out


# --------------------------------------------------------------------------- text
