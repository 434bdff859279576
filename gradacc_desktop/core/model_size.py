"""What the time model needs of a named model: parameters, the shape of its attention,
its hidden size and layers — from the bundled presets (the same the estimator offers).

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
from functools import cache

from .compute import Shape
from .families import Architecture, parameters
from .lora import ModelShape, total_parameters
from .presets import Preset, PresetError, load_config_presets, load_presets


class UnknownModelError(LookupError):
    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown model {name!r} (choose from: {', '.join(known)})")
        self.known = known


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


def _active(arch: Architecture, total: int) -> int:
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
    layer has its own weight, and learned position and token-type embeddings."""
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
    )


def _sized_preset(preset: Preset) -> ModelSize:
    """A GPT-2 or Llama preset typed as sizes (no config.json of its own)."""
    shape = ModelShape.from_preset(preset)
    total = total_parameters(shape)
    lookups = 0 if shape.tied_embeddings else preset.vocab * preset.hidden
    if preset.family.value == "gpt2":  # learned positions
        lookups += preset.max_position_embeddings * preset.hidden
    return ModelSize(
        name=preset.name,
        params=total,
        compute_params=total - lookups,
        shape=Shape(preset.layers, preset.heads, preset.hidden // preset.heads),
        hidden=preset.hidden,
        layers=preset.layers,
    )


@cache
def _bundled() -> dict[str, ModelSize]:
    """Every bundled model by lower-case name, config presets first (read once: the
    files ship with the app and do not change while it runs)."""
    sizes: dict[str, ModelSize] = {}
    for config in load_config_presets():
        sizes.setdefault(config.name.lower(), size_of(config.name, config.arch))
    for preset in load_presets():
        if preset.name.lower() not in sizes:
            sizes[preset.name.lower()] = _sized_preset(preset)
    return sizes


def known_models() -> tuple[str, ...]:
    """Names ``model_size`` accepts, config presets first."""
    return tuple(size.name for size in _bundled().values())


def model_size(name: str) -> ModelSize:
    """The bundled model called ``name`` (case-insensitive); raises ``UnknownModelError``."""
    try:
        sizes = _bundled()
    except PresetError as exc:  # a broken bundle: nothing is known
        raise UnknownModelError(name, ()) from exc
    found = sizes.get(name.lower())
    if found is None:
        raise UnknownModelError(name, known_models())
    return found
