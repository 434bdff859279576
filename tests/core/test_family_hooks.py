"""The declared names of a family module: the registry checks each one."""

from __future__ import annotations

import types

import pytest

from gradacc_desktop.core.memory.families import hooks, supported_model_types
from gradacc_desktop.core.memory.families.registry import MODULES


def _module(**names: object) -> types.ModuleType:
    module = types.ModuleType("fake_family")
    base: dict[str, object] = {
        "MODEL_TYPES": ("fake",),
        "parse": lambda config: None,
        "parameters": lambda arch: 0,
        "layout": lambda arch, inputs: None,
    }
    for name, value in (base | names).items():
        if value is not None:
            setattr(module, name, value)
    return module


def test_every_registered_family_keeps_to_the_declaration() -> None:
    for module in MODULES:
        hooks.check(module)
    assert "llama" in supported_model_types()


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"layout": None}, "needs layout"),
        ({"MODEL_TYPES": ()}, "needs MODEL_TYPES"),
        ({"MODEL_TYPES": "fake"}, "needs MODEL_TYPES"),
        ({"idle_parameters": 3}, "idle_parameters has the wrong kind"),
        ({"OWN_HEADS": "yes"}, "OWN_HEADS has the wrong kind"),
        ({"LEARNED_POSITIONS": ["fake"]}, "LEARNED_POSITIONS has the wrong kind"),
    ],
)
def test_a_module_off_the_declaration_is_refused(names: dict[str, object], message: str) -> None:
    with pytest.raises(hooks.FamilyModuleError, match=message):
        hooks.check(_module(**names))


def test_optional_names_are_read_only_when_declared() -> None:
    module = _module(OWN_HEADS=True)
    hooks.check(module)
    assert hooks.optional(module, "OWN_HEADS") is True
    assert hooks.optional(module, "tower_parameters") is None
    with pytest.raises(KeyError, match="not a declared family hook"):
        hooks.optional(module, "LORA_NAMING")
