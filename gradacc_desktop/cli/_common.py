"""Shared helpers for the command line: argument types, usage errors, JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..core.calculator import LIMITS, Field
from ..core.limits import Limits, check

PROG = "gradacc"


class UsageError(Exception):
    """A bad combination of arguments found after parsing (exit code 2)."""


def plain(value: Decimal) -> str:
    """A Decimal without exponent or trailing zeros ("0.5", "12")."""
    text = format(value.normalize(), "f")
    return text


_plain = plain


def _range_text(limits: Limits) -> str:
    return f"between {_plain(limits.minimum)} and {_plain(limits.maximum)}"


def int_type(limits: Limits) -> Callable[[str], int]:
    """An argparse ``type`` accepting a whole number within ``limits``."""

    def parse(text: str) -> int:
        if check(limits, text) is not None or "." in text or "e" in text.lower():
            raise argparse.ArgumentTypeError(f"must be an integer {_range_text(limits)}")
        return int(text.strip())

    return parse


def decimal_type(limits: Limits) -> Callable[[str], Decimal]:
    """An argparse ``type`` accepting a decimal within ``limits`` (and their decimal places)."""

    def parse(text: str) -> Decimal:
        if check(limits, text) is not None:
            raise argparse.ArgumentTypeError(
                f"must be a number {_range_text(limits)} with at most {limits.places} decimals"
            )
        return Decimal(text.strip()).normalize()

    return parse


MICRO_BATCH = int_type(LIMITS[Field.MICRO_BATCH])
ACCUMULATION_STEPS = int_type(LIMITS[Field.ACCUMULATION_STEPS])
GPUS = int_type(LIMITS[Field.GPUS])
ACTIVATION_GB = decimal_type(LIMITS[Field.ACTIVATION_GB])


def image_size_type(text: str) -> tuple[int, int]:
    """``WxH`` pixels (or one number for a square) as (width, height)."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"not WxH pixels: {text!r}")
    return int(parts[0]), int(parts[1])


def jsonable(value: Any) -> Any:
    """Decimals become plain strings, enums their values, tuples lists."""
    if isinstance(value, Decimal):
        return _plain(value)
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, bool | int | str):
        return value.value
    return value


def print_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(jsonable(obj), indent=2, ensure_ascii=False) + "\n")


def gb(value: Decimal) -> str:
    return f"{_plain(value)} GB"
