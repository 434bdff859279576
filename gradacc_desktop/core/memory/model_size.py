"""What the time model needs of a model: parameters, the shape of its attention, its
hidden size and layers (``core.memory.models`` gives it for every bundled or typed model).

``compute_params`` is the N of 6N: the parameters a token's matrix products use.
Embedding lookups are not matrix products, so an input embedding that is not tied to
the output layer, and learned position and token-type embeddings, are left out (the
measure tier finds torch's FLOP counter counting exactly the linear layers' weights);
norms and biases, a fraction of a percent, stay in. A mixture of experts computes with
the experts a token is routed to: ``top_k`` of each sparse layer's routed experts
(Mixtral-8x7B: 12.9B of 46.7B).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..time.compute import Shape
from .families import Architecture, family_module, hooks, parameters
from .lora import ModelShape, total_parameters


@dataclass(frozen=True)
class ModelSize:
    name: str
    #: every parameter (what memory holds)
    params: int
    #: the parameters one token computes with (N in 6N)
    compute_params: int
    #: all attention layers (an encoder-decoder's encoder and decoder)
    shape: Shape
    hidden: int
    #: transformer layers a pipeline divides
    layers: int
    #: the output layer's vocabulary (None: not known)
    vocab: int | None = None


def _active(arch: Architecture, total: int) -> int:
    """Parameters a token computes with. A family module may say it itself with
    ``idle_parameters(arch)`` (the parameters a token does not use: routed experts it is
    not sent to)."""
    idle = hooks.optional(family_module(arch), "idle_parameters")
    if idle is not None:
        return total - int(idle(arch))
    spec = arch.spec
    experts = getattr(spec, "experts", 0)
    top_k = getattr(spec, "top_k", 0)
    if not experts or not top_k:
        return total
    sparse = sum(1 for is_sparse, _ in spec.layer_kinds if is_sparse)
    idle = experts - top_k
    return total - sparse * idle * 3 * arch.hidden * int(spec.expert_intermediate)


def _lookups(arch: Architecture) -> int:
    """Embedding parameters used by lookups only: the input embedding when the output
    layer has its own weight, and learned position and token-type embeddings. A family
    module may say it itself with ``lookup_parameters(arch)``."""
    own = hooks.optional(family_module(arch), "lookup_parameters")
    if own is not None:
        return int(own(arch))
    spec = arch.spec
    h = arch.hidden
    lookups = 0
    if not getattr(spec, "tie_embeddings", True):
        lookups += arch.vocab * int(getattr(spec, "embed_dim", h))
    family = arch.model_type
    if family == "gpt2":
        lookups += int(arch.max_positions or 0) * h
    elif family == "opt":
        lookups += (int(arch.max_positions or 0) + 2) * h  # OPT's learned offset of 2
    elif hasattr(spec, "position_embeddings") and hasattr(spec, "type_vocab"):
        lookups += (int(spec.position_embeddings) + int(spec.type_vocab)) * h  # BERT
    return lookups


def size_of(name: str, arch: Architecture) -> ModelSize:
    """The time model's view of one architecture."""
    total = parameters(arch)
    layers = arch.layers + arch.decoder_layers
    return ModelSize(
        name=name,
        params=total,
        compute_params=_active(arch, total) - _lookups(arch),
        shape=Shape(layers, arch.heads, arch.head_dim),
        hidden=arch.hidden,
        layers=layers,
        vocab=arch.vocab,
    )


def sized_preset(name: str, shape: ModelShape) -> ModelSize:
    """A GPT-2 or Llama model given as sizes (a sized preset, or sizes typed in)."""
    total = total_parameters(shape)
    lookups = 0 if shape.tied_embeddings else shape.vocab * shape.hidden
    lookups += shape.position_embeddings * shape.hidden  # GPT-2's learned positions
    return ModelSize(
        name=name,
        params=total,
        compute_params=total - lookups,
        shape=Shape(shape.layers, shape.heads, shape.head_dim),
        hidden=shape.hidden,
        layers=shape.layers,
        vocab=shape.vocab,
    )
