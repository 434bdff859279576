"""Every family module, in the order the app lists them (imported here by name, so
the bundler sees them; ``core.families`` imports this module on first use)."""

from __future__ import annotations

from types import ModuleType

from gradacc_desktop.core.families import (
    bert,
    falcon,
    gemma,
    gpt2,
    gpt_neox,
    llama,
    moe,
    opt,
    phi3,
    t5,
)

MODULES: tuple[ModuleType, ...] = (gpt2, llama, gemma, phi3, gpt_neox, falcon, opt, moe, bert, t5)
