"""Every family module, in the order the app lists them (imported here by name, so
the bundler sees them; ``core.memory.families`` imports this module on first use)."""

from __future__ import annotations

from types import ModuleType

from gradacc_desktop.core.memory.families import (
    bart,
    bert,
    deberta,
    deepseek,
    distilbert,
    falcon,
    gemma,
    gpt2,
    gpt_neox,
    gpt_oss,
    jamba,
    llama,
    llama_variants,
    mamba,
    modernbert,
    moe,
    opt,
    phi3,
    t5,
    vision,
    vlm,
    whisper,
)

MODULES: tuple[ModuleType, ...] = (
    gpt2,
    llama,
    llama_variants,
    gemma,
    phi3,
    gpt_neox,
    falcon,
    opt,
    moe,
    deepseek,
    gpt_oss,
    mamba,
    jamba,
    bert,
    distilbert,
    deberta,
    modernbert,
    t5,
    bart,
    whisper,
    vision,
    vlm,
)
