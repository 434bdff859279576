"""The reader that collects the values, "auto" keys and unread keys of one file, and
the helpers that show a value found in it."""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...batch.planning import SEQ_LEN_LIMITS
from ...calculator import LIMITS, Field
from ...memory.setup import Offload, Precision
from ...memory.zero import ZeroStage
from ...text import trans_late
from .imported import ImportedConfig
from .model import ConfigKind, ResolvedFile, UnknownKey, Unread

# How deep and how many "auto" keys are listed.
_MAX_DEPTH = 16
_MAX_AUTO_KEYS = 500

MAX_MICRO = int(LIMITS[Field.MICRO_BATCH].maximum)
MAX_STEPS = int(LIMITS[Field.ACCUMULATION_STEPS].maximum)
MAX_GPUS = int(LIMITS[Field.GPUS].maximum)
MAX_NODES = 1_000_000
MAX_RANK = 1_000_000
MAX_SEQ = int(SEQ_LEN_LIMITS.maximum)


def clean(text: str, limit: int = 200) -> str:
    """``text`` shortened to ``limit`` characters, control characters escaped."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _show(value: Any) -> str:
    """A short text of any parsed value (never the repr of a whole structure)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 64:
            return trans_late("ConfigImport", "an integer of about {digits} digits").format(
                digits=int(value.bit_length() * 0.30103) + 1
            )
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + clean(value, 60) + '"'
    if isinstance(value, dict):
        return trans_late("ConfigImport", "a mapping of {count} key(s)").format(count=len(value))
    if isinstance(value, list):
        return trans_late("ConfigImport", "a list of {count} item(s)").format(count=len(value))
    return trans_late("ConfigImport", "a value of type {type}").format(type=type(value).__name__)


def _show_field(value: Any) -> str:
    if isinstance(value, ZeroStage):
        return str(int(value))
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ", ".join(value)
    return _show(value)


# --------------------------------------------------------------------------- reading

TRUE_FALSE_AUTO = trans_late("ConfigImport", 'must be true, false or "auto"')


class Bad:
    """A value that was present but unreadable (already reported)."""


BAD = Bad()


class Reader:
    """Collects values, "auto" keys and unread keys; ``prefix`` names a followed file."""

    def __init__(self, folder: Path | None, prefix: str = "") -> None:
        self.folder = folder
        self.prefix = prefix
        self.values: dict[str, Any] = {}
        self.keys: dict[str, str] = {}
        self.auto: list[str] = []
        self.unread: list[Unread] = []
        self.unresolved: set[str] = set()
        self.auto_fields: set[str] = set()
        self.followed: list[str] = []
        self.parallel: dict[str, tuple[int, str]] = {}
        self.uses_fsdp = False
        self.uses_deepspeed = False
        self.unknown: list[UnknownKey] = []
        self.resolved: list[ResolvedFile] = []
        self.batch_keys_set: tuple[str, ...] = ()
        self.defaults: list[tuple[str, str]] = []
        self.started_gpus: int | None = None
        self.notes: list[str] = []
        self.warnings: list[str] = []

    def name(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def set(self, field: str, key: str, value: Any) -> None:
        self.values[field] = value
        self.keys[field] = self.name(key)

    def default(self, field: str, value: Any, note: str) -> None:
        """``field`` is not in the file and the framework's default ``value`` stands in;
        ``note`` (an English sentence) says so. Nothing happens when the file set it
        (or set it to something unreadable or "auto")."""
        if self.values.get(field) is not None or field in self.unresolved:
            return
        self.values[field] = value
        self.keys.pop(field, None)
        self.defaults.append((field, note))

    def refuse(
        self, key: str, value: Any, reason: str, *affected: str, refused: bool = False
    ) -> Bad:
        self.unread.append(Unread(self.name(key), _show(value), reason, refused))
        self.unresolved.update(affected)
        return BAD

    def mark_auto(self, key: str, *affected: str) -> None:
        """``key`` is "auto" (``scan`` lists it): the fields it sets stay open."""
        del key
        self.unresolved.update(affected)
        self.auto_fields.update(affected)

    def scan(self, data: dict[Any, Any]) -> None:
        """List every key set to "auto", in file order (dotted paths through mappings)."""
        stack: list[tuple[str, Iterator[tuple[Any, Any]]]] = [("", iter(data.items()))]
        seen = {id(data)}
        while stack and len(self.auto) < _MAX_AUTO_KEYS:
            path, items = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                continue
            key, value = item
            name = f"{path}{clean(str(key), 80)}"
            if isinstance(value, str) and value == "auto":
                self.auto.append(self.name(name))
            elif isinstance(value, dict) and id(value) not in seen and len(stack) < _MAX_DEPTH:
                seen.add(id(value))
                stack.append((f"{name}.", iter(value.items())))

    def mapping(self, key: str, value: Any, *affected: str) -> dict[Any, Any] | None:
        """``value`` when it is a mapping; None when absent; reported otherwise."""
        if value is None:
            return None
        if isinstance(value, dict):
            return value
        self.refuse(
            key, value, trans_late("ConfigImport", "must be a mapping of keys").format(), *affected
        )
        return None

    def integer(
        self, field: str, key: str, value: Any, low: int, high: int, *, auto: bool = True
    ) -> None:
        if value is None:
            return
        if auto and isinstance(value, str) and value == "auto":
            self.mark_auto(key, field)
            return
        if isinstance(value, bool) or not isinstance(value, int):
            reason = (
                trans_late("ConfigImport", 'must be a whole number or "auto"')
                if auto
                else trans_late("ConfigImport", "must be a whole number")
            )
            # DeepSpeed compares the batch values with 0 and multiplies them
            # (runtime/config.py _batch_assertion): text, lists and mappings fail there,
            # and axolotl's and accelerate's typed settings refuse them too; a number
            # written as text ("8") is left open (pydantic reads it as 8)
            refused = field in _FRAMEWORK_CHECKED and not isinstance(value, (bool, float))
            if isinstance(value, str) and value.strip().isdigit():
                refused = False
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 1:
                refused = field in _FRAMEWORK_CHECKED
            self.refuse(key, value, reason.format(), field, refused=refused)
            return
        if not low <= value <= high:
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be between {low} and {high}").format(
                    low=low, high=high
                ),
                field,
                # zero or negative: DeepSpeed's _batch_assertion asserts > 0
                refused=field in _FRAMEWORK_CHECKED and value < 1,
            )
            return
        self.set(field, key, value)

    def parallel_size(self, name: str, key: str, value: Any) -> None:
        """A parallel size: kept as written (each framework's rule reads it); a value
        that is not a whole number is refused (the frameworks' typed settings)."""
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int):
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be a whole number").format(),
                refused=True,
            )
            return
        self.parallel[name] = (value, self.name(key))

    def text(self, field: str, key: str, value: Any, what: str) -> None:
        if value is None:
            return
        if not isinstance(value, str) or not value.strip():
            self.refuse(key, value, what, field)
            return
        self.set(field, key, clean(value.strip(), 500))

    def boolean(self, field: str, key: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, bool):
            self.refuse(
                key, value, trans_late("ConfigImport", "must be true or false").format(), field
            )
            return
        self.set(field, key, value)

    def zero_stage(self, key: str, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            # DeepSpeed, deepspeed/runtime/zero/config.py DeepSpeedZeroConfig: stage is a
            # ZeroStageEnum (0 to 3): pydantic refuses any other number or a word; a
            # number written as text ("2") is left open (pydantic reads it as 2)
            refused = not (isinstance(value, str) and value.strip() in ("0", "1", "2", "3"))
            self.refuse(
                key,
                value,
                trans_late("ConfigImport", "must be 0, 1, 2 or 3").format(),
                "zero_stage",
                refused=refused,
            )
            return
        self.set("zero_stage", key, ZeroStage(value))

    def offload(self, keys: tuple[str, str], devices: tuple[Any, Any]) -> None:
        """Combine the optimizer's and the parameters' offload devices ("none", "cpu")."""
        opt, param = devices
        if opt is BAD or param is BAD:
            self.unresolved.add("offload")
            return
        if opt is None and param is None:
            return
        if param == "cpu" and opt != "cpu":
            self.refuse(
                keys[1],
                param,
                trans_late(
                    "ConfigImport",
                    "parameters offloaded without the optimizer are not modelled "
                    "(gradacc models no offload, the optimizer, or the optimizer and parameters)",
                ).format(),
                "offload",
            )
            return
        value = (
            Offload.ALL if param == "cpu" else Offload.OPTIMIZER if opt == "cpu" else Offload.NONE
        )
        key = keys[1] if value is Offload.ALL else keys[0]
        self.set("offload", key, value)

    def device(self, key: str, value: Any, known: str) -> str | Bad | None:
        """An offload device: "none", "cpu", None when absent, BAD when unusable."""
        if value is None:
            return None
        if isinstance(value, str) and value in ("none", "cpu"):
            return value
        if isinstance(value, str) and value == "nvme":
            return self.refuse(
                key,
                value,
                trans_late(
                    "ConfigImport", "NVMe offload is not modelled (only none and cpu)"
                ).format(),
                "offload",
            )
        return self.refuse(
            key,
            value,
            trans_late("ConfigImport", "unknown device: {known}").format(known=known),
            "offload",
        )

    def precision(self, states: list[tuple[str, Any]]) -> None:
        """Combine ``(key, enabled)`` of bf16 then fp16: True, False, "auto" or BAD."""
        if any(state is BAD for _, state in states):
            self.unresolved.add("precision")
            return
        on = [key for key, state in states if state is True]
        if len(on) > 1:
            self.refuse(
                on[1],
                True,
                trans_late(
                    "ConfigImport", "enabled together with {other}: bf16 and fp16 cannot both be on"
                ).format(other=on[0]),
                "precision",
            )
            return
        if on:
            bf16 = on[0].startswith(("bf16", "bfloat16"))
            self.set("precision", on[0], Precision.BF16 if bf16 else Precision.FP16)
            return
        if any(state == "auto" for _, state in states):
            return  # marked "auto" already
        if states:
            self.set("precision", "/".join(key for key, _ in states), Precision.FP32)

    def unknown_key(
        self, key: str, known: frozenset[str], refused: bool, reason: str, under: str = ""
    ) -> None:
        """``key`` (in the section ``under``, "zero_optimization.") is not one of
        ``known``: name it with the nearest known key (difflib)."""
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
        self.unknown.append(
            UnknownKey(
                self.name(under + clean(key, 80)), close[0] if close else None, refused, reason
            )
        )

    def merge(self, inner: Reader) -> None:
        """Take the followed file's values where this file has none; report conflicts."""
        self.auto += inner.auto
        self.unread += inner.unread
        self.unknown += inner.unknown
        for field, value in inner.values.items():
            mine = self.values.get(field)
            if mine is None:
                self.values[field] = value
                self.keys[field] = inner.keys[field]
            elif mine != value:
                self.unread.append(
                    Unread(
                        inner.keys[field],
                        _show_field(value),
                        trans_late("ConfigImport", "conflicts with {key} ({value})").format(
                            key=self.keys[field], value=_show_field(mine)
                        ),
                    )
                )
        self.unresolved |= inner.unresolved
        self.auto_fields |= inner.auto_fields
        for name, found in inner.parallel.items():
            self.parallel.setdefault(name, found)

    def build(self, kind: ConfigKind, source: str) -> ImportedConfig:
        unresolved = {f for f in self.unresolved if self.values.get(f) is None}
        return ImportedConfig(
            kind=kind,
            source=source,
            **{f: v for f, v in self.values.items() if v is not None},
            auto_keys=tuple(dict.fromkeys(self.auto)),
            unread=tuple(self.unread),
            unresolved=tuple(sorted(unresolved)),
            auto_fields=tuple(sorted(unresolved & self.auto_fields)),
            keys=tuple((f, k) for f, k in self.keys.items() if self.values.get(f) is not None),
            followed=tuple(self.followed),
            parallel=tuple((n, size, key) for n, (size, key) in self.parallel.items()),
            uses_fsdp=self.uses_fsdp,
            uses_deepspeed=self.uses_deepspeed,
            unknown_keys=tuple(self.unknown),
            resolved_files=tuple(self.resolved),
            batch_keys_set=self.batch_keys_set,
            defaults=tuple(self.defaults),
            started_gpus=self.started_gpus,
            notes=tuple(dict.fromkeys(self.notes)),
            warnings=tuple(dict.fromkeys(self.warnings)),
        )


# the values the frameworks check themselves (a wrong type or a value below 1 is refused)
_FRAMEWORK_CHECKED = frozenset(
    {"micro_batch", "accumulation_steps", "train_batch_size", "gpus", "nodes", "batch_per_gpu"}
)
