"""The model picker's groups and its filter, without widgets.

The bundled models come from the catalogue grouped by family and smallest first; a
family is the letters its label starts with (Qwen2.5, Qwen3 and Qwen2-VL are Qwen;
GPT-2 and gpt-oss are GPT). A family of two or more models gets a ``Heading`` above
it; the models alone in their family go, in the same order, under one heading for the
rest at the end. The filter keeps a row when every word typed is part of its label,
its name or its size, whatever the case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from gradacc_desktop.core.memory import ModelSpec, catalogue, facts
from gradacc_desktop.viewmodels.formats import PlanFormats

_FAMILY = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Heading:
    """A heading in the model picker: shown above its family, never picked."""

    name: str


def family(label: str) -> str:
    """The family a label names: the letters it starts with ("Qwen2.5 7B" → "Qwen")."""
    found = _FAMILY.match(label)
    return found.group() if found else label


def grouped(models: list[tuple[str, str]], rest: str) -> list[tuple[object, str]]:
    """(data, text) of ``models`` (name, label) under their families' headings, the
    models alone in theirs under the heading ``rest`` at the end."""
    families: dict[str, list[tuple[str, str]]] = {}
    for name, label in models:
        families.setdefault(family(label).casefold(), []).append((name, label))
    options: list[tuple[object, str]] = []
    alone: list[tuple[object, str]] = []
    for members in families.values():
        if len(members) == 1:
            alone += members
            continue
        heading = family(members[0][1])
        options.append((Heading(heading), heading))
        options += members
    if alone:
        options.append((Heading(rest), rest))
        options += alone
    return options


@cache
def _parameters(name: str) -> int | None:
    if name not in {m.name for m in catalogue()}:
        return None
    try:
        return facts(ModelSpec.bundled(name)).params
    except (LookupError, ValueError):
        return None


def model_size(formats: PlanFormats, name: str) -> str:
    """A bundled model's parameters in the words model cards use, to a tenth of a
    billion below a hundred ("124M", "1.5B", "70.6B", "406B", with the locale's
    decimal point); empty for anything else."""
    count = _parameters(name)
    if count is None:
        return ""
    millions = round(Decimal(count) / 10**6)
    if millions < 1000:  # Gemma 3 1B's 999.9 million are "1B", not "1,000M"
        return f"{formats.format(millions)}M"
    billions = Decimal(count) / 10**9
    shown = billions.quantize(Decimal("0.1")) if billions < 100 else round(billions)
    return f"{formats.format(shown)}B"


def matches(typed: str, *texts: str) -> bool:
    """Every word of ``typed`` is part of one of ``texts`` (case-insensitive); an empty
    ``typed`` matches everything."""
    haystack = " ".join(texts).casefold()
    return all(word in haystack for word in typed.casefold().split())
