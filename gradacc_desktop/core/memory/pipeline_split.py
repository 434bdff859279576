"""The pipeline GPU that holds the most parameters when Megatron-LM splits the model.

Megatron-LM (``get_num_layers_to_build``, ``LanguageModule``) gives each pipeline stage —
each model chunk with virtual stages, dealt round-robin over the GPUs — an equal run of
consecutive layers; the first stage also holds the token embedding, the last one the
final norm and the output layer (with tied embeddings, a copy of the embedding's
weight, kept in step by an all-reduce). So the ends hold more than ``1/p`` of the model:
Llama 3.1 8B over 4 stages puts 28 % of its parameters on the first GPU, not 25 %. A
mixture of experts' sparse layers follow its dense ones (DeepSeek's
``first_k_dense_replace``), so the stages holding them carry their routed experts.

DeepSpeed's ``PipelineModule`` balances the stages by parameter count (its default
``partition_method="parameters"``) and torchtitan counts the embedding and the output
layer as layers when it splits: both stay at an even share, which the plan keeps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .models import ModelFacts


@dataclass(frozen=True)
class StageShare:
    """What the heaviest pipeline GPU holds, before tensor parallelism splits it."""

    #: every parameter it holds (routed experts included)
    params: int
    #: its layers' routed experts (what expert parallelism spreads)
    experts: int


def heaviest_stage(model: ModelFacts, stages: int, virtual: int = 1) -> StageShare | None:
    """Megatron's split of ``model`` over ``stages`` GPUs with ``virtual`` chunks each:
    the GPU with the most parameters (None: one stage, or a model without the sizes the
    split needs — the plan then keeps an even share)."""
    size = model.size
    if stages < 2 or size is None or size.vocab is None or size.layers < stages * virtual:
        return None
    experts = model.experts
    sparse = experts.sparse_layers if experts is not None else 0
    per_expert_layer = experts.layer_params if experts is not None else 0
    embedding = size.vocab * size.hidden
    body = model.params - embedding * (1 if model.tied_embeddings else 2)
    body -= sparse * per_expert_layer
    if body <= 0:
        return None
    found = _split(body, embedding, size.layers, sparse, per_expert_layer, stages, virtual)
    return StageShare(*found)


@lru_cache(maxsize=256)
def _split(
    body: int, embedding: int, layers: int, sparse: int, per_expert_layer: int,
    stages: int, virtual: int,
) -> tuple[int, int]:  # fmt: skip
    chunks = stages * virtual
    held = [Fraction(0)] * stages
    routed = [0] * stages
    for layer in range(layers):
        gpu = (layer * chunks // layers) % stages
        held[gpu] += Fraction(body, layers)
        if layer >= layers - sparse:  # the sparse layers follow the dense ones
            held[gpu] += per_expert_layer
            routed[gpu] += per_expert_layer
    held[0] += embedding
    held[(chunks - 1) % stages] += embedding  # the output layer (or the tied copy)
    heaviest = max(range(stages), key=lambda g: held[g])
    return math.ceil(held[heaviest]), routed[heaviest]
