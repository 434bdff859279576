"""When not even one sample fits: the single changes to the description that would fit.

Each ``Alternative`` changes one thing — recompute the activations (the recomputations
the framework offers, the least first), a higher ZeRO stage, CPU offload, LoRA or QLoRA
instead of training every parameter, a larger card from the catalogue, more
data-parallel GPUs with ZeRO-3, tensor parallelism inside a node on the same GPUs (the
data-parallel ones split) — and says how many samples per GPU would then fit, with the
memory figures behind it. Only changes that fit and that the framework runs (the rule
book's ``refusals``) are returned, the least disruptive of each kind first; combining
them is what ``core.training.search`` does. Only ``Change.GPUS`` adds GPUs.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace

from ..frameworks.rules import refusals
from ..memory.models import ModelFacts
from ..memory.setup import Offload, setup_problem
from ..memory.zero import ZeroStage
from ..time.gpus import GpuCard
from .description import Method, TrainingDescription, default_nodes
from .figures import Figures, figures

__all__ = ["Alternative", "Change", "alternatives"]

#: data-parallel GPUs tried with ZeRO-3: up to this many times the description's
MORE_GPUS_FACTORS = (2, 4, 8, 16, 32, 64)


class Change(enum.Enum):
    RECOMPUTE = "recompute"
    ZERO_STAGE = "zero_stage"
    OFFLOAD = "offload"
    LORA = "lora"
    QLORA = "qlora"
    CARD = "card"
    GPUS = "gpus"
    TENSOR_PARALLEL = "tensor_parallel"


@dataclass(frozen=True)
class Alternative:
    change: Change
    description: TrainingDescription
    #: samples per GPU that fit after the change (>= 1)
    max_micro_batch: int
    other_bytes: int
    #: one sample's activations on a GPU, rounded up
    per_sample_bytes: int


def _candidates(
    d: TrainingDescription, cards: tuple[GpuCard, ...]
) -> Iterator[tuple[Change, TrainingDescription]]:
    offered = d.framework.recomputations
    counted = d.recomputed  # what the framework runs of the one asked
    if d.activation_gb is None and counted in offered:
        for recompute in offered[offered.index(counted) + 1 :]:
            yield Change.RECOMPUTE, replace(d, recompute=recompute)
    stages = [z for z in ZeroStage if z > d.zero_stage]
    if d.other_memory_gb is None:
        for stage in stages:
            yield Change.ZERO_STAGE, replace(d, zero_stage=stage)
        if d.offload is Offload.NONE:
            yield (
                Change.OFFLOAD,
                replace(
                    d, zero_stage=max(d.zero_stage, ZeroStage.GRADIENTS), offload=Offload.OPTIMIZER
                ),
            )
            yield Change.OFFLOAD, replace(d, zero_stage=ZeroStage.WEIGHTS, offload=Offload.ALL)
        if d.method is Method.FULL:
            yield Change.LORA, replace(d, method=Method.LORA)
            yield Change.QLORA, replace(d, method=Method.QLORA)
        elif d.method is Method.LORA:
            yield Change.QLORA, replace(d, method=Method.QLORA)
        for factor in MORE_GPUS_FACTORS:
            # the added GPUs in servers of at most 8, as many nodes as that takes
            nodes = max(d.nodes, default_nodes(d.world * factor))
            more = replace(d, gpus=d.gpus * factor, nodes=nodes, zero_stage=ZeroStage.WEIGHTS)
            yield Change.GPUS, more
    if d.card is not None:
        for card in sorted(cards, key=lambda c: c.usable_gb):
            if card.usable_gb > d.card.usable_gb:
                yield Change.CARD, replace(d, card=card)
    # the same GPUs: the data-parallel ones split into tensor-parallel groups in a node
    gpus_per_node = d.world // d.nodes if d.world % d.nodes == 0 else 0
    tp = d.tensor_parallel * 2
    while gpus_per_node and tp <= gpus_per_node and d.other_memory_gb is None:
        factor = tp // d.tensor_parallel
        if d.gpus % factor == 0:
            yield Change.TENSOR_PARALLEL, replace(d, tensor_parallel=tp, gpus=d.gpus // factor)
        tp *= 2


def alternatives(
    description: TrainingDescription,
    cards: tuple[GpuCard, ...] = (),
    model: ModelFacts | None = None,
) -> tuple[Alternative, ...]:
    """The first change of each kind that lets at least one sample per GPU fit (in the
    order of ``Change``); ``cards`` are the catalogue a larger card is taken from."""
    found: dict[Change, Alternative] = {}
    for change, changed in _candidates(description, cards):
        if change in found or setup_problem(changed.shape) is not None:
            continue
        figs: Figures = figures(changed, model)
        setup = changed.setup(1, changed.pipeline_stages)
        if refusals(setup, figs.facts, changed.framework):
            continue  # a layout the framework does not run
        largest = figs.max_micro_batch()
        if not largest:
            continue
        share = figs.activation_per_gpu
        assert share is not None and figs.other.bytes is not None
        found[change] = Alternative(
            change=change,
            description=changed,
            max_micro_batch=largest,
            other_bytes=figs.other.bytes,
            per_sample_bytes=-(-share.numerator // share.denominator),
        )
    return tuple(found[c] for c in Change if c in found)
