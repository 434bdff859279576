"""What a family module defines, declared once: the four names every family has
(``FamilyModule``) and the optional ones a few define (``OPTIONAL``). The registry runs
``check`` on every module when it is built, and the package reads an optional name only
through ``optional`` — a name not declared here is an error, not a silent ``None``.

Optional names (each ``(arch) -> …`` unless said otherwise):

``idle_parameters`` -> int
    parameters a token does not compute with (routed experts it is not sent to);
``lookup_parameters`` -> int
    embedding parameters used by lookups only (no FLOPs);
``routed_experts`` -> (experts, top-k, layers with experts, parameters of one layer's
    experts module), for the expert facts;
``frozen_parameters`` -> int
    parameters the model never trains (Whisper's fixed positions);
``tower_parameters`` -> int
    the image tower's parameters;
``lora_naming`` -> "llama", "gpt2" or None
    how the blocks' projections are named for LoRA (None: not modelled);
``LEARNED_POSITIONS`` (a tuple of model types)
    the family's model types with a learned position table;
``OWN_HEADS`` (a bool)
    the family builds the heads its files name itself (the generic task heads do not
    apply).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

from gradacc_desktop.core.memory.activation_types import Inputs
from gradacc_desktop.core.memory.families.base import ActivationLayout, Architecture, ConfigReader


class FamilyModule(Protocol):
    """The four names every family module has."""

    MODEL_TYPES: tuple[str, ...]

    def parse(self, config: ConfigReader) -> Architecture: ...

    def parameters(self, arch: Architecture) -> int: ...

    def layout(self, arch: Architecture, inputs: Inputs) -> ActivationLayout: ...


def _is_callable(value: object) -> bool:
    return callable(value)


def _is_types(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(v, str) for v in value)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


#: every family module's names, with the test each value passes
REQUIRED: dict[str, Callable[[object], bool]] = {
    "MODEL_TYPES": lambda value: _is_types(value) and bool(value),
    "parse": _is_callable,
    "parameters": _is_callable,
    "layout": _is_callable,
}

#: the optional names (see the module text), with the test each value passes
OPTIONAL: dict[str, Callable[[object], bool]] = {
    "idle_parameters": _is_callable,
    "lookup_parameters": _is_callable,
    "routed_experts": _is_callable,
    "frozen_parameters": _is_callable,
    "tower_parameters": _is_callable,
    "lora_naming": _is_callable,
    "LEARNED_POSITIONS": _is_types,
    "OWN_HEADS": _is_bool,
}


class FamilyModuleError(TypeError):
    """A family module that lacks a required name or gives a declared one the wrong kind."""


def check(module: ModuleType) -> None:
    """Refuse a family module that does not keep to the declaration."""
    for name, ok in REQUIRED.items():
        if not hasattr(module, name) or not ok(getattr(module, name)):
            raise FamilyModuleError(f"{module.__name__} needs {name} (see families.hooks)")
    for name, ok in OPTIONAL.items():
        if hasattr(module, name) and not ok(getattr(module, name)):
            raise FamilyModuleError(f"{module.__name__}.{name} has the wrong kind")


def optional(module: FamilyModule | ModuleType, name: str) -> Any:
    """The module's optional ``name``, or None when it does not define it."""
    if name not in OPTIONAL:
        raise KeyError(f"{name} is not a declared family hook")
    return getattr(module, name, None)
