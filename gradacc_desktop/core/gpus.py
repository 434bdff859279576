"""The table of common GPU cards, read from ``resources/data/gpus.json``.

Memory is in decimal GB (10^9 bytes). ``usable_gb`` is the vendor's figure read as
decimal GB, which sits a few percent below what CUDA reports for binary-sized cards
and so leaves room for driver/ECC reservations; the CUDA context is *not* subtracted
here (it is part of "other memory"). The file's ``assumption`` field says the same.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..paths import resource_path

# Identifier of the user-defined card (memory typed in by hand).
CUSTOM_ID = "custom"

_DECIMAL = re.compile(r"\d{1,6}(\.\d{1,3})?")
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_CARD_KEYS = {"id", "name", "vendor_gb", "usable_gb", "source", "note"}


class GpuTableError(ValueError):
    """The bundled GPU table is missing or malformed (a packaging bug)."""


@dataclass(frozen=True)
class GpuCard:
    id: str
    name: str
    # memory as the vendor states it (GB)
    vendor_gb: Decimal
    # memory the planner treats as usable (decimal GB)
    usable_gb: Decimal
    source: str
    note: str

    @property
    def is_custom(self) -> bool:
        return self.id == CUSTOM_ID


def custom_card(usable_gb: Decimal) -> GpuCard:
    """A card whose memory the user typed in."""
    return GpuCard(CUSTOM_ID, "Custom", usable_gb, usable_gb, "user input", "")


@dataclass(frozen=True)
class GpuTable:
    assumption: str
    cards: tuple[GpuCard, ...]

    def by_id(self, card_id: str) -> GpuCard:
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)


def _text(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise GpuTableError(f"{key!r} must be a string")
    return value


def _decimal(raw: dict[str, Any], key: str) -> Decimal:
    text = _text(raw, key)
    if not _DECIMAL.fullmatch(text) or Decimal(text) <= 0:
        raise GpuTableError(f"{key!r} must be a positive decimal string, got {text!r}")
    return Decimal(text)


def parse_gpu_table(data: bytes) -> GpuTable:
    """Validate and parse the JSON text of a GPU table."""
    try:
        root = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GpuTableError(f"not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(root, dict) or root.get("format") != "gradacc-gpus":
        raise GpuTableError("not a gradacc GPU table")
    if root.get("version") != 1 or isinstance(root.get("version"), bool):
        raise GpuTableError(f"unsupported version {root.get('version')!r}")
    assumption = _text(root, "assumption")
    raw_cards = root.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise GpuTableError("'cards' must be a non-empty list")
    cards: list[GpuCard] = []
    for raw in raw_cards:
        if not isinstance(raw, dict) or set(raw) != _CARD_KEYS:
            raise GpuTableError(f"each card needs exactly the keys {sorted(_CARD_KEYS)}")
        card_id = _text(raw, "id")
        if not _ID.fullmatch(card_id) or card_id == CUSTOM_ID:
            raise GpuTableError(f"bad card id {card_id!r}")
        card = GpuCard(
            id=card_id,
            name=_text(raw, "name"),
            vendor_gb=_decimal(raw, "vendor_gb"),
            usable_gb=_decimal(raw, "usable_gb"),
            source=_text(raw, "source"),
            note=_text(raw, "note"),
        )
        if card.usable_gb > card.vendor_gb:
            raise GpuTableError(f"{card_id}: usable_gb exceeds vendor_gb")
        cards.append(card)
    if len({c.id for c in cards}) != len(cards):
        raise GpuTableError("duplicate card ids")
    return GpuTable(assumption=assumption, cards=tuple(cards))


def load_gpu_table(path: Path | None = None) -> GpuTable:
    """Load the bundled table (or ``path``); raises ``GpuTableError`` if it is unusable."""
    target = path if path is not None else resource_path("data", "gpus.json")
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise GpuTableError(f"cannot read {target}: {exc}") from exc
    return parse_gpu_table(data)
