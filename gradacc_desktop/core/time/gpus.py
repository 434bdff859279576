"""The table of common GPU cards, read from ``resources/data/gpus.json``.

Memory is in decimal GB (10^9 bytes). ``usable_gb`` is the vendor's figure read as
decimal GB, which sits a few percent below what CUDA reports for binary-sized cards
and so leaves room for driver/ECC reservations; the CUDA context is *not* subtracted
here (it is part of "other memory"). The file's ``assumption`` field says the same.

Version 2 adds each card's speed (``Performance``): dense bf16/fp16 Tensor Core and fp32
TFLOPS (never the "with sparsity" figures; GeForce and workstation cards at their
fp16-with-fp32-accumulate rate, which PyTorch's mixed precision uses; ``bf16_tflops``
is null where the card has no bf16), memory bandwidth, the link between GPUs inside a
node and a typical network bandwidth between nodes (per GPU, per direction, GB/s), the
share of the peak training kernels reach (``efficiency``, editable), and where the
figures come from.

Version 3 adds each card's dense FP8 Tensor Core peak (``fp8_tflops``, null on cards
without FP8: Volta, Turing, Ampere; GeForce cards at their FP8-with-FP32-accumulate
rate) and its architecture (``architecture``, read as ``Generation``). The loader
accepts only version 3.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...paths import resource_path
from ..limits import Limits
from ..precision import Precision

# Identifier of the user-defined card (memory typed in by hand).
CUSTOM_ID = "custom"

_DECIMAL = re.compile(r"\d{1,6}(\.\d{1,3})?")
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_CARD_KEYS = {"id", "name", "vendor_gb", "usable_gb", "source", "note", "performance"}
_PERFORMANCE_KEYS = {
    "architecture",
    "fp8_tflops",
    "bf16_tflops",
    "fp16_tflops",
    "fp32_tflops",
    "memory_bandwidth_gbps",
    "link",
    "link_gbps",
    "inter_node_gbps",
    "efficiency",
    "source",
}
FORMAT_VERSION = 3


class GpuTableError(ValueError):
    """The bundled GPU table is missing or malformed (a packaging bug)."""


class Link(enum.Enum):
    """How GPUs inside one node talk to each other."""

    NVLINK = "nvlink"
    PCIE = "pcie"
    INFINITY_FABRIC = "infinity-fabric"


class Generation(enum.Enum):
    """The architecture a card is built on (the file's ``architecture``)."""

    VOLTA = "volta"
    TURING = "turing"
    AMPERE = "ampere"
    ADA = "ada"
    HOPPER = "hopper"
    BLACKWELL = "blackwell"
    CDNA3 = "cdna3"

    @property
    def flash_kernel(self) -> bool:
        """Whether flash kernels of its own run on it: FlashAttention 3 on Hopper, 4 on
        Blackwell (and cuDNN's on both); before Hopper the flash-attn package's kernel
        is FlashAttention 2, the fused kernels' speed."""
        return self in (Generation.HOPPER, Generation.BLACKWELL)


@dataclass(frozen=True)
class Performance:
    """One card's speed; every rate is dense, per GPU, decimal (10^12 FLOP/s, 10^9 B/s)."""

    generation: Generation
    #: None: the card has no FP8 Tensor Cores (Volta, Turing, Ampere)
    fp8_tflops: Decimal | None
    #: None: the card has no bf16 (V100, T4)
    bf16_tflops: Decimal | None
    fp16_tflops: Decimal
    fp32_tflops: Decimal
    memory_bandwidth_gbps: Decimal
    link: Link
    #: per direction, per GPU
    link_gbps: Decimal
    #: per direction, per GPU, between nodes
    inter_node_gbps: Decimal
    #: share of the peak that training's kernels reach (0 < e <= 1)
    efficiency: Decimal
    source: str

    def peak_tflops(self, precision: Precision, fp8: bool = False) -> Decimal | None:
        """Dense peak of the matrix products in ``precision``, or in FP8 with ``fp8``
        (beside a 16-bit precision); None when the card cannot compute in it."""
        if fp8:
            return self.fp8_tflops
        if precision is Precision.BF16:
            return self.bf16_tflops
        if precision is Precision.FP16:
            return self.fp16_tflops
        return self.fp32_tflops


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
    #: None only for a custom card whose speed was not given
    performance: Performance | None = None


#: the range of a custom card's peak (TFLOPS) and bandwidths (GB/s)
SPEED_LIMITS = Limits(Decimal("0.001"), Decimal(100_000), integer=False)
#: a custom card's typical efficiency (the planner's efficiency field can override it)
CUSTOM_EFFICIENCY = Decimal("0.5")


def custom_performance(
    tflops: Decimal,
    memory_bandwidth_gbps: Decimal,
    link_gbps: Decimal,
    inter_node_gbps: Decimal,
    generation: Generation = Generation.AMPERE,
) -> Performance:
    """The speed of a card the user describes: one dense peak (taken for every
    precision, FP8 included: the user gives the one they train in), memory bandwidth, the
    link between GPUs of a node and the network between nodes (GB/s per direction).
    ``generation`` is only a label here (the typed peak is used whatever it says)."""
    return Performance(
        generation=generation,
        fp8_tflops=tflops,
        bf16_tflops=tflops,
        fp16_tflops=tflops,
        fp32_tflops=tflops,
        memory_bandwidth_gbps=memory_bandwidth_gbps,
        link=Link.NVLINK,
        link_gbps=link_gbps,
        inter_node_gbps=inter_node_gbps,
        efficiency=CUSTOM_EFFICIENCY,
        source="user input",
    )


def custom_card(usable_gb: Decimal, performance: Performance | None = None) -> GpuCard:
    """A card whose memory (and, optionally, speed) the user typed in."""
    return GpuCard(CUSTOM_ID, "Custom", usable_gb, usable_gb, "user input", "", performance)


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


def _rate(raw: dict[str, Any], key: str) -> Decimal:
    value = _decimal(raw, key)
    if value > 100_000:
        raise GpuTableError(f"{key!r} is implausibly large: {value}")
    return value


def _performance(raw: Any, card_id: str) -> Performance:
    if not isinstance(raw, dict) or set(raw) != _PERFORMANCE_KEYS:
        raise GpuTableError(f"{card_id}: performance needs exactly {sorted(_PERFORMANCE_KEYS)}")
    try:
        link = Link(raw.get("link"))
    except ValueError:
        raise GpuTableError(f"{card_id}: unknown link {raw.get('link')!r}") from None
    try:
        generation = Generation(raw.get("architecture"))
    except ValueError:
        raise GpuTableError(
            f"{card_id}: unknown architecture {raw.get('architecture')!r}"
        ) from None
    efficiency = _decimal(raw, "efficiency")
    if efficiency > 1:
        raise GpuTableError(f"{card_id}: efficiency must be at most 1")
    return Performance(
        generation=generation,
        fp8_tflops=None if raw["fp8_tflops"] is None else _rate(raw, "fp8_tflops"),
        bf16_tflops=None if raw["bf16_tflops"] is None else _rate(raw, "bf16_tflops"),
        fp16_tflops=_rate(raw, "fp16_tflops"),
        fp32_tflops=_rate(raw, "fp32_tflops"),
        memory_bandwidth_gbps=_rate(raw, "memory_bandwidth_gbps"),
        link=link,
        link_gbps=_rate(raw, "link_gbps"),
        inter_node_gbps=_rate(raw, "inter_node_gbps"),
        efficiency=efficiency,
        source=_text(raw, "source"),
    )


def parse_gpu_table(data: bytes) -> GpuTable:
    """Validate and parse the JSON text of a GPU table."""
    try:
        root = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GpuTableError(f"not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(root, dict) or root.get("format") != "gradacc-gpus":
        raise GpuTableError("not a gradacc GPU table")
    if root.get("version") != FORMAT_VERSION or isinstance(root.get("version"), bool):
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
            performance=_performance(raw.get("performance"), card_id),
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
