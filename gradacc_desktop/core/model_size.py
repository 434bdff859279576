"""What the time model needs of a named model: parameters, the shape of its attention,
its hidden size and layers — from the bundled presets (the same the estimator offers).

A mixture of experts computes with the experts a token is routed to, not with all of
them: its ``compute_params`` (the N of 6N) count ``top_k`` of the routed experts of each
sparse layer (Mixtral-8x7B: 12.9B of 46.7B).
"""

from __future__ import annotations

from dataclasses import dataclass

from .compute import Shape
from .families import Architecture, parameters
from .lora import ModelShape, total_parameters
from .presets import PresetError, load_config_presets, load_presets


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


def size_of(name: str, arch: Architecture) -> ModelSize:
    """The time model's view of one architecture."""
    total = parameters(arch)
    layers = arch.layers + arch.decoder_layers
    return ModelSize(
        name=name,
        params=total,
        compute_params=_active(arch, total),
        shape=Shape(layers, arch.heads, arch.head_dim),
        hidden=arch.hidden,
        layers=layers,
    )


def known_models() -> tuple[str, ...]:
    """Names ``model_size`` accepts, config presets first."""
    names = [p.name for p in load_config_presets()]
    names += [p.name for p in load_presets() if p.name not in names]
    return tuple(names)


def model_size(name: str) -> ModelSize:
    """The bundled model called ``name`` (case-insensitive); raises ``UnknownModelError``."""
    wanted = name.lower()
    try:
        configs = load_config_presets()
        sized = load_presets()
    except PresetError as exc:  # a broken bundle: nothing is known
        raise UnknownModelError(name, ()) from exc
    for config in configs:
        if config.name.lower() == wanted:
            return size_of(config.name, config.arch)
    for preset in sized:
        if preset.name.lower() == wanted:
            total = total_parameters(ModelShape.from_preset(preset))
            return ModelSize(
                name=preset.name,
                params=total,
                compute_params=total,
                shape=Shape(preset.layers, preset.heads, preset.hidden // preset.heads),
                hidden=preset.hidden,
                layers=preset.layers,
            )
    raise UnknownModelError(name, known_models())
