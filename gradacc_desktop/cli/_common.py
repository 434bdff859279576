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


#: where the old spellings already said on stderr are kept, on the parsed namespace
_SAID = "_old_names_said"


class _OldName(argparse.Action):
    """An old spelling of a flag: stores what the new one stores, is left out of
    ``--help``, and says the new name on stderr, once per spelling and command line."""

    def __init__(self, option_strings: list[str], dest: str, *, new: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        said: set[str] = namespace.__dict__.setdefault(_SAID, set())
        if option_string is not None and option_string not in said:
            said.add(option_string)
            say_renamed(f"{option_string} is now {self.new}")
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def say_renamed(text: str) -> None:
    """One line on stderr about a renamed flag ("gradacc: --seq is now --seq-len")."""
    sys.stderr.write(f"{PROG}: {text}\n")


def add_old_name(container: Any, new: argparse.Action, old: str) -> None:
    """``old`` as an old spelling of the flag ``new`` (already added to ``container``, a
    parser, group or mutually exclusive group): the same value, hidden from ``--help``,
    and one line on stderr saying the new name (scripts keep working)."""
    switch = new.nargs == 0  # store_true
    container.add_argument(
        old,
        dest=new.dest,
        action=_OldName,
        new=new.option_strings[0],
        nargs=0 if switch else None,
        const=new.const if switch else None,
        type=None if switch else new.type,
        choices=new.choices,
        metavar=new.metavar,
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )


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


def extras_lines(extras: dict[str, Any]) -> list[str]:
    """The plan's extras (tokens per step, steps per epoch, the run, the goodput) as text
    lines: plain numbers, never a Python repr."""
    lines = []
    for key, value in extras.items():
        if key == "run":
            lines += [run_text(kind, line) for kind, line in value.items()]
        else:
            lines.append(f"{key.replace('_', ' ').capitalize()}: {_shown(value)}")
    return lines


def run_text(kind: str, line: dict[str, Any]) -> str:
    """One of the plan's run lines (``extras["run"][kind]``) in words."""
    what = "token(s)" if kind == "tokens" else "epoch(s)"
    text = (
        f"Run of {line['amount']} {what}: {line['steps']} optimizer step(s), "
        f"{_shown(line['seconds'])} s ({_shown(line['hours'])} hours, "
        f"{_shown(line['days'])} days), {_shown(line['gpu_hours'])} GPU-hours"
    )
    if line.get("cost") is not None:
        text += f", cost {_shown(line['cost'])}"
    return text


def _shown(value: Any) -> str:
    """A figure as text: a Decimal plain, anything else by ``str``."""
    return _plain(value) if isinstance(value, Decimal) else str(value)
