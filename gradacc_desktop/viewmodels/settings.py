"""Typed, validating access to QSettings.

QSettings hands back whatever is stored — on Linux every value is a string in a
new process, and ``value(key, default, type=float)`` turns garbage into 0.0.
Each setting here is described once (key, default, parser); a missing, corrupt
or out-of-range value falls back to its default and never raises.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from gradacc_desktop.core.calculator import DEFAULTS, BatchInputs, Field, check_value, normalize
from gradacc_desktop.core.limits import check

_log = logging.getLogger(__name__)

if TYPE_CHECKING:  # imported by its parser, when the planner is built
    from gradacc_desktop.core.frameworks.export import ExportFormat
    from gradacc_desktop.viewmodels.planner.cost import Currency

T = TypeVar("T")

LANGUAGES = ("pt_BR", "en")
DEFAULT_LANGUAGE = "pt_BR"


def _parse_bool(raw: object) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in {"true", "1", "false", "0"}:
        return raw.strip().lower() in {"true", "1"}
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw)
    return None


def _parse_language(raw: object) -> str | None:
    return raw if isinstance(raw, str) and raw in LANGUAGES else None


def _parse_bytes(raw: object) -> QByteArray | None:
    if isinstance(raw, QByteArray) and not raw.isEmpty():
        return raw
    if isinstance(raw, bytes | bytearray) and raw:
        return QByteArray(bytes(raw))
    return None


def _input_parser(field: Field) -> Callable[[object], Decimal | None]:
    def parse(raw: object) -> Decimal | None:
        if isinstance(raw, bool) or not isinstance(raw, str | int | Decimal):
            return None
        text = str(raw).strip()
        if check_value(field, text) is not None:
            return None
        return normalize(Decimal(text))

    return parse


class Setting(Generic[T]):
    """One setting: its key, its default and the parser that reads a stored value."""

    __slots__ = ("default", "key", "parse")

    def __init__(self, key: str, default: T, parse: Callable[[object], T | None]) -> None:
        self.key = key
        self.default = default
        self.parse = parse


def _parse_tab(raw: object) -> int | None:
    text = str(raw).strip() if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
    # isdigit() also accepts "²" and other digits int() refuses: ASCII digits only
    return int(text) if text.isascii() and text.isdigit() and int(text) < TAB_COUNT else None


def _parse_text(raw: object) -> str | None:
    # bounded: a settings file is not a place for megabytes (a scenario with a model's
    # config.json fits in a scenario file's limit)
    return raw if isinstance(raw, str) and 0 < len(raw) <= 262_144 else None


TAB_COUNT = 4

LANGUAGE = Setting("ui/language", DEFAULT_LANGUAGE, _parse_language)
TAB = Setting("ui/tab", 0, _parse_tab)
# The training description as scenario JSON (validated by the scenario loader).
PLANNER: Setting[str | None] = Setting("planner/scenario", None, _parse_text)
# Whether the training description panel stands beside the pages that have it.
DESCRIPTION_SHOWN = Setting("ui/descriptionShown", True, _parse_bool)
# The planner's measured speed profile as JSON (validated by the profile loader).
SPEED_PROFILE: Setting[str | None] = Setting("planner/speedProfile", None, _parse_text)
DETAILS_OPEN = Setting("ui/detailsOpen", False, _parse_bool)
GEOMETRY: Setting[QByteArray | None] = Setting("window/geometry", None, _parse_bytes)
INPUTS: dict[Field, Setting[Decimal]] = {
    f: Setting(f"inputs/{f.value}", Decimal(DEFAULTS.value(f)), _input_parser(f)) for f in Field
}


def _parse_folder(raw: object) -> str | None:
    """An absolute path of a directory that exists now (it may have gone since)."""
    if not isinstance(raw, str) or not 0 < len(raw) <= 4096:
        return None
    try:
        path = Path(raw)
        return str(path) if path.is_absolute() and path.is_dir() else None
    except (OSError, ValueError):  # e.g. a NUL byte, a path too long for the system
        return None


# The folder of the last file opened or saved through a file dialog.
LAST_FOLDER = Setting("files/last_folder", "", _parse_folder)


# The planner's learning-rate reference and export format (not part of a scenario).
# Their rules live with the planner, imported only when the planner is built.


def _stored_decimal(raw: object) -> Decimal | None:
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    text = str(raw).strip()
    if not 0 < len(text) <= 64:
        return None
    try:
        number = Decimal(text)
    except ArithmeticError:
        return None
    return number if number.is_finite() else None


def _parse_reference_lr(raw: object) -> Decimal | None:
    from gradacc_desktop.core.batch import LR_LIMITS

    number = _stored_decimal(raw)
    return normalize(number) if number is not None and check(LR_LIMITS, number) is None else None


def _parse_reference_batch(raw: object) -> int | None:
    from gradacc_desktop.core.batch import TARGET_LIMITS

    number = _stored_decimal(raw)
    return int(number) if number is not None and check(TARGET_LIMITS, number) is None else None


def _parse_export_format(raw: object) -> ExportFormat | None:
    from gradacc_desktop.core.frameworks.export import ExportFormat

    known = {f.value: f for f in ExportFormat}
    return known.get(raw.strip()) if isinstance(raw, str) else None


def _parse_currency(raw: object) -> Currency | None:
    from gradacc_desktop.viewmodels.planner.cost import Currency

    known = {c.value: c for c in Currency}
    return known.get(raw.strip()) if isinstance(raw, str) else None


# ``None``: the planner's own default (no reference: an empty field; the first format)
REFERENCE_LR: Setting[Decimal | None] = Setting("planner/referenceLr", None, _parse_reference_lr)
REFERENCE_BATCH: Setting[int | None] = Setting(
    "planner/referenceBatch", None, _parse_reference_batch
)
EXPORT_FORMAT: Setting[ExportFormat | None] = Setting(
    "planner/exportFormat", None, _parse_export_format
)
# the currency of the cost card's price and total (``None``: the language's own)
CURRENCY: Setting[Currency | None] = Setting("planner/currency", None, _parse_currency)


# Reading a stored value catches every Exception, on purpose: a hand-edited or foreign
# INI value ``@Variant(...)`` is decoded by Qt, then converted by PySide6, which raises
# unrelated types depending on the type the value names (PySide6 6.11): RuntimeError
# ("Can't find converter for 'QVariantPair'", also qfloat16), TypeError (a Qt enum
# without members, e.g. QCborTag), once even SystemError. A narrower tuple would list
# what one PySide6 release happens to raise (tests/test_logging.py stores such values);
# each failure is logged with its key and the default is used.


class Settings:
    """The app's settings, each read through its parser and written canonically."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._store = store if store is not None else QSettings()

    @property
    def store(self) -> QSettings:
        return self._store

    def get(self, setting: Setting[T]) -> T:
        """The stored value, or the default when it is missing or not valid (logged)."""
        try:
            raw = self._store.value(setting.key)
        except Exception as exc:  # a corrupt stored value: see above Settings
            _log.warning("setting %s cannot be read (%r): default used", setting.key, exc)
            return setting.default
        if raw is None:
            return setting.default
        try:
            parsed = setting.parse(raw)
        except Exception as exc:  # a parser's bug must not stop the app either
            _log.warning(
                "setting %s = %r fails its check (%r): default used", setting.key, raw, exc
            )
            return setting.default
        if parsed is None:
            _log.warning("setting %s = %r is not valid: default used", setting.key, raw)
            return setting.default
        return parsed

    def set(self, setting: Setting[T], value: T) -> None:
        if isinstance(value, Decimal):
            self._store.setValue(setting.key, format(normalize(value), "f"))
        elif isinstance(value, enum.Enum):  # by its value, as its parser reads it
            self._store.setValue(setting.key, value.value)
        else:
            self._store.setValue(setting.key, value)

    # -- conveniences -------------------------------------------------------
    def inputs(self) -> BatchInputs:
        values = {f: self.get(INPUTS[f]) for f in Field}
        return BatchInputs(
            micro_batch=int(values[Field.MICRO_BATCH]),
            accumulation_steps=int(values[Field.ACCUMULATION_STEPS]),
            gpus=int(values[Field.GPUS]),
            activation_gb=values[Field.ACTIVATION_GB],
        )

    def set_inputs(self, inputs: BatchInputs) -> None:
        for f in Field:
            self.set(INPUTS[f], Decimal(inputs.value(f)))

    def sync(self) -> None:
        self._store.sync()

    # -- a free-form group, validated by its owner (e.g. the estimator's last setup) --
    def read_group(self, prefix: str) -> dict[str, object]:
        """Every value under ``prefix/`` as stored; the caller validates each one."""
        values: dict[str, object] = {}
        try:
            self._store.beginGroup(prefix)
            for key in self._store.childKeys():
                values[key] = self._store.value(key)
        except Exception as exc:  # a corrupt stored value: see above Settings
            _log.warning("settings group %s cannot be read (%r): ignored", prefix, exc)
            values = {}
        finally:
            self._store.endGroup()
        return values

    def write_group(self, prefix: str, values: Mapping[str, str]) -> None:
        self._store.remove(prefix)
        for key, value in values.items():
            self._store.setValue(f"{prefix}/{key}", value)
