"""A measured speed profile: seconds per micro-step at a few micro-batch sizes.

``python -m gradacc_desktop.measure --time-micro-batches 1,2,4,8 --profile-out p.json``
times one forward and backward of a real model at each micro-batch size ``b`` (the
median of a few repeats after one warm-up) and writes the file this module reads.
Pure Python, exact: the seconds are decimal strings in the file and ``Fraction`` here.

The file (UTF-8 JSON, every key required unless said otherwise, no other key)::

    {"format": "gradacc-speed-profile", "version": 1,
     "device": "cuda:0 (NVIDIA A100-SXM4-80GB)",   # or "cpu"; one line, free text
     "dtype": "bfloat16",                          # bfloat16 | float16 | float32
     "model": "LlamaForCausalLM (Llama-2-7b-hf)",  # one line, free text
     "params": 6738415616, "seq_len": 4096,
     "target_seq_len": 512,                        # optional: seq2seq target length
     "recompute": "none",                          # none | full (activation checkpointing)
     "attention": "sdpa",                          # eager | sdpa
     "points": [{"micro_batch": 1, "seconds": "0.412", "repeats": 3}, ...]}

``seconds`` is a plain decimal string (at most 12 decimals, above 0, at most 10^6);
the points may come in any order but each micro-batch once.

Between and beyond the measured sizes, :meth:`SpeedProfile.micro_step_seconds` reads:

* at a measured ``b``: the measured time, exactly;
* between two measured sizes: linear interpolation between their times;
* **below the smallest** measured size: the smallest size's time. Scaling it down in
  proportion to ``b`` would promise that fewer samples are proportionally faster, which
  hides the floor a small micro-batch hits (the weights are read from memory whatever
  the batch, kernels launch whatever the batch): the profile never claims a speed-up it
  did not measure;
* **above the largest**: the largest size's time per sample times ``b`` (a line through
  the origin and the last point): throughput no better than the best measured one.

When the measured times grow with ``b`` the reading does too, everywhere.
:meth:`SpeedProfile.covers` says whether ``b`` lies within the measured range.
"""

from __future__ import annotations

import enum
import itertools
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from gradacc_desktop.core.recompute import MEASURED, Recompute

from ..precision import FP8, Precision
from ..text import trans_late

FORMAT = "gradacc-speed-profile"
FORMAT_VERSION = 1

#: the largest time one micro-step may take (seconds)
MAX_SECONDS = 10**6
#: the decimals ``seconds`` may carry (picoseconds: a finite, exact decimal)
SECONDS_DECIMALS = 12
#: the largest micro-batch size, sequence length or repeat count a file may hold
MAX_INT = 10**9
#: the largest parameter count a file may hold
MAX_PARAMS = 10**15
MAX_POINTS = 1000
MAX_TEXT = 200

#: the file's names for the training precisions
DTYPE_NAMES = {
    Precision.BF16: "bfloat16",
    Precision.FP16: "float16",
    Precision.FP32: "float32",
}
ATTENTIONS = ("eager", "sdpa")

_SECONDS = re.compile(rf"(0|[1-9][0-9]{{0,6}})(\.[0-9]{{1,{SECONDS_DECIMALS}}})?")
_REQUIRED = {
    "format",
    "version",
    "device",
    "dtype",
    "model",
    "params",
    "seq_len",
    "recompute",
    "attention",
    "points",
}
_OPTIONAL = {"target_seq_len"}
_POINT_KEYS = {"micro_batch", "seconds", "repeats"}
_SCALE = 10**SECONDS_DECIMALS


class ProfileError(ValueError):
    """A speed profile file that cannot be used; the message is one line."""

    @property
    def message(self) -> str:
        """The English line, as the ``Message`` the window translates."""
        first = self.args[0] if self.args else ""
        return first if isinstance(first, str) else str(self)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_AT = trans_late("Profile", "micro_batch {micro_batch}")
_REPEATS = trans_late("Profile", "{where}: repeats")


def _check_text(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ProfileError(
            trans_late("Profile", "“{name}” must be a non-empty string").format(name=name)
        )
    if len(value) > MAX_TEXT or any(c in value for c in "\r\n\t\x00"):
        raise ProfileError(
            trans_late("Profile", "“{name}” must be one line of at most {limit} characters").format(
                name=name, limit=MAX_TEXT
            )
        )
    try:  # a lone surrogate (an undecodable file name) could never be saved
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ProfileError(
            trans_late("Profile", "“{name}” must be valid Unicode text").format(name=name)
        ) from None
    return value


def _check_count(name: str, value: object, limit: int = MAX_INT) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProfileError(
            trans_late("Profile", "“{name}” must be an integer, got {value}").format(
                name=name, value=repr(value)
            )
        )
    if not 1 <= value <= limit:
        raise ProfileError(
            trans_late("Profile", "“{name}” must be between 1 and {limit}, got {value}").format(
                name=name, limit=limit, value=value
            )
        )
    return value


def _check_seconds(where: str, value: object) -> Fraction:
    if not isinstance(value, Fraction):
        raise ProfileError(f"{where}: seconds must be a Fraction, got {value!r}")
    if value <= 0:
        raise ProfileError(
            trans_late("Profile", "{where}: seconds must be above 0, got {value}").format(
                where=where, value=seconds_text(value) if value > -MAX_SECONDS else str(value)
            )
        )
    if value > MAX_SECONDS:
        raise ProfileError(
            trans_late("Profile", "{where}: seconds must be at most {limit}, got {value}").format(
                where=where, limit=MAX_SECONDS, value=str(value)
            )
        )
    if (value * _SCALE).denominator != 1:
        raise ProfileError(
            trans_late("Profile", "{where}: seconds must have at most {decimals} decimals").format(
                where=where, decimals=SECONDS_DECIMALS
            )
        )
    return value


def seconds_text(seconds: Fraction) -> str:
    """``seconds`` (at most 12 decimals) as the file writes it: ``"0.4125"``, ``"2"``."""
    whole, rest = divmod(seconds.numerator * (_SCALE // seconds.denominator), _SCALE)
    decimals = f"{rest:0{SECONDS_DECIMALS}d}".rstrip("0")
    return f"{whole}.{decimals}" if decimals else str(whole)


@dataclass(frozen=True)
class SpeedProfile:
    """Measured seconds per micro-step (forward + backward) of one model on one device."""

    device: str
    dtype: Precision
    model: str
    params: int
    seq_len: int
    recompute: Recompute
    attention: str
    #: (micro-batch size, seconds per micro-step), ascending in size, each size once
    points: tuple[tuple[int, Fraction], ...]
    #: timed runs behind each point's median, in the order of ``points``
    repeats: tuple[int, ...]
    #: target length of a seq2seq model (None: not a seq2seq measurement)
    target_seq_len: int | None = None

    def __post_init__(self) -> None:
        _check_text("device", self.device)
        _check_text("model", self.model)
        if not isinstance(self.dtype, Precision):
            raise ProfileError(f"dtype must be bf16, fp16 or fp32, got {self.dtype!r}")
        if self.recompute not in MEASURED:  # what the measure tool measures
            raise ProfileError(f"recompute must be none or full, got {self.recompute!r}")
        if not isinstance(self.attention, str) or self.attention not in ATTENTIONS:
            raise ProfileError(f"attention must be eager or sdpa, got {self.attention!r}")
        _check_count("params", self.params, MAX_PARAMS)
        _check_count("seq_len", self.seq_len)
        if self.target_seq_len is not None:
            _check_count("target_seq_len", self.target_seq_len)
        if not isinstance(self.points, tuple) or not self.points:
            raise ProfileError("points must be a non-empty tuple")
        if len(self.points) > MAX_POINTS:
            raise ProfileError(f"at most {MAX_POINTS} points, got {len(self.points)}")
        if not isinstance(self.repeats, tuple) or len(self.repeats) != len(self.points):
            raise ProfileError("repeats must be a tuple with one count per point")
        previous = 0
        for point, repeats in zip(self.points, self.repeats, strict=True):
            if not isinstance(point, tuple) or len(point) != 2:
                raise ProfileError(f"each point must be (micro_batch, seconds), got {point!r}")
            micro_batch, seconds = point
            where = _AT.format(micro_batch=micro_batch)
            _check_count("micro_batch", micro_batch)
            if micro_batch == previous:
                raise ProfileError(f"micro_batch {micro_batch} is measured twice")
            if micro_batch < previous:
                raise ProfileError("points must be in ascending micro_batch order")
            previous = micro_batch
            _check_seconds(where, seconds)
            _check_count(_REPEATS.format(where=where), repeats)

    @property
    def smallest(self) -> int:
        """The smallest measured micro-batch size."""
        return self.points[0][0]

    @property
    def largest(self) -> int:
        """The largest measured micro-batch size."""
        return self.points[-1][0]

    def covers(self, micro_batch: int) -> bool:
        """True when ``micro_batch`` lies within the measured range (ends included)."""
        _micro_batch(micro_batch)
        return self.smallest <= micro_batch <= self.largest

    def micro_step_seconds(self, micro_batch: int) -> Fraction:
        """Seconds of one forward + backward at ``micro_batch`` (the module docstring's rule)."""
        _micro_batch(micro_batch)
        first_b, first_s = self.points[0]
        if micro_batch <= first_b:
            return first_s
        last_b, last_s = self.points[-1]
        if micro_batch >= last_b:
            return last_s * micro_batch / last_b
        for (b0, s0), (b1, s1) in itertools.pairwise(self.points):
            if b0 <= micro_batch <= b1:
                return s0 + (s1 - s0) * Fraction(micro_batch - b0, b1 - b0)
        raise AssertionError("unreachable: the points cover the range")  # pragma: no cover


def _micro_batch(value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"micro_batch must be an integer >= 1, got {value!r}")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ProfileError(trans_late("Profile", "key “{key}” appears twice").format(key=key))
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ProfileError(
        trans_late("Profile", "{name} is not a number a profile may hold").format(name=name)
    )


def _point(raw: object, index: int) -> tuple[int, Fraction, int]:
    if not isinstance(raw, dict):
        raise ProfileError(
            trans_late("Profile", "point {number} must be an object").format(number=index + 1)
        )
    keys = set(raw)
    if keys != _POINT_KEYS:
        extra, missing = sorted(keys - _POINT_KEYS), sorted(_POINT_KEYS - keys)
        if extra:
            raise ProfileError(
                trans_late("Profile", "point {number}: unknown key(s) {keys}").format(
                    number=index + 1, keys=", ".join(extra)
                )
            )
        raise ProfileError(
            trans_late("Profile", "point {number}: missing {keys}").format(
                number=index + 1, keys=", ".join(missing)
            )
        )
    micro_batch = _check_count(
        trans_late("Profile", "point {number}: micro_batch").format(number=index + 1),
        raw["micro_batch"],
    )
    text = raw["seconds"]
    where = _AT.format(micro_batch=micro_batch)
    if not isinstance(text, str) or not _SECONDS.fullmatch(text):
        raise ProfileError(
            trans_late(
                "Profile",
                '{where}: seconds must be a decimal string such as "0.25" '
                "(at most {decimals} decimals), got {value}",
            ).format(where=where, decimals=SECONDS_DECIMALS, value=repr(text))
        )
    seconds = _check_seconds(where, Fraction(Decimal(text)))
    repeats = _check_count(_REPEATS.format(where=where), raw["repeats"])
    return micro_batch, seconds, repeats


def parse_profile(data: bytes) -> SpeedProfile:
    """Validate and parse the bytes of a speed profile file; raises :class:`ProfileError`."""
    try:
        root = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_no_duplicate_keys,
            parse_constant=_no_constant,
        )
    except UnicodeDecodeError:
        raise ProfileError(trans_late("Profile", "not UTF-8 text").format()) from None
    except json.JSONDecodeError as exc:
        raise ProfileError(
            trans_late("Profile", "not valid JSON at line {line}, column {column}").format(
                line=exc.lineno, column=exc.colno
            )
        ) from None
    except RecursionError:
        raise ProfileError(
            trans_late("Profile", "not valid JSON: nested too deeply").format()
        ) from None
    if not isinstance(root, dict) or root.get("format") != FORMAT:
        raise ProfileError(
            trans_late("Profile", "not a speed profile (“format” must be “{format}”)").format(
                format=FORMAT
            )
        )
    version = root.get("version")
    if not _is_int(version) or version != FORMAT_VERSION:
        raise ProfileError(
            trans_late(
                "Profile", "unsupported version {version} (this program reads version {ours})"
            ).format(version=repr(version), ours=FORMAT_VERSION)
        )
    keys = set(root)
    if keys - _REQUIRED - _OPTIONAL:
        raise ProfileError(
            trans_late("Profile", "unknown key(s): {keys}").format(
                keys=", ".join(sorted(keys - _REQUIRED - _OPTIONAL))
            )
        )
    if _REQUIRED - keys:
        raise ProfileError(
            trans_late("Profile", "missing key(s): {keys}").format(
                keys=", ".join(sorted(_REQUIRED - keys))
            )
        )
    dtypes = {name: precision for precision, name in DTYPE_NAMES.items()}
    if not isinstance(root["dtype"], str) or root["dtype"] not in dtypes:
        raise ProfileError(
            trans_late("Profile", "dtype must be bfloat16, float16 or float32, got {value}").format(
                value=repr(root["dtype"])
            )
        )
    recomputes = {r.value: r for r in MEASURED}  # what the measure tool measures
    if not isinstance(root["recompute"], str) or root["recompute"] not in recomputes:
        raise ProfileError(
            trans_late("Profile", "recompute must be none or full, got {value}").format(
                value=repr(root["recompute"])
            )
        )
    if not isinstance(root["attention"], str) or root["attention"] not in ATTENTIONS:
        raise ProfileError(
            trans_late("Profile", "attention must be eager or sdpa, got {value}").format(
                value=repr(root["attention"])
            )
        )
    raw_points = root["points"]
    if not isinstance(raw_points, list) or not raw_points:
        raise ProfileError(trans_late("Profile", "points must be a non-empty list").format())
    if len(raw_points) > MAX_POINTS:
        raise ProfileError(
            trans_late("Profile", "at most {limit} points, got {count}").format(
                limit=MAX_POINTS, count=len(raw_points)
            )
        )
    points = sorted(_point(raw, i) for i, raw in enumerate(raw_points))
    for (b0, _, _), (b1, _, _) in itertools.pairwise(points):
        if b0 == b1:
            raise ProfileError(
                trans_late("Profile", "micro_batch {micro_batch} is measured twice").format(
                    micro_batch=b0
                )
            )
    target = root.get("target_seq_len")
    return SpeedProfile(
        device=_check_text("device", root["device"]),
        dtype=dtypes[root["dtype"]],
        model=_check_text("model", root["model"]),
        params=_check_count("params", root["params"], MAX_PARAMS),
        seq_len=_check_count("seq_len", root["seq_len"]),
        recompute=recomputes[root["recompute"]],
        attention=root["attention"],
        points=tuple((b, s) for b, s, _ in points),
        repeats=tuple(r for _, _, r in points),
        target_seq_len=None if target is None else _check_count("target_seq_len", target),
    )


def load_profile(path: str | Path) -> SpeedProfile:
    """Read and parse a speed profile file; raises :class:`ProfileError` (one line)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ProfileError(
            trans_late("Profile", "cannot read {path}: {why}").format(
                path=str(path), why=exc.strerror or str(exc)
            )
        ) from None
    return parse_profile(data)


def profile_to_json(profile: SpeedProfile) -> str:
    """The file's text for ``profile`` (indented, ends with a newline); parses back equal."""
    root: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "device": profile.device,
        "dtype": DTYPE_NAMES[profile.dtype],
        "model": profile.model,
        "params": profile.params,
        "seq_len": profile.seq_len,
    }
    if profile.target_seq_len is not None:
        root["target_seq_len"] = profile.target_seq_len
    root.update(
        {
            "recompute": profile.recompute.value,
            "attention": profile.attention,
            "points": [
                {"micro_batch": b, "seconds": seconds_text(s), "repeats": r}
                for (b, s), r in zip(profile.points, profile.repeats, strict=True)
            ],
        }
    )
    return json.dumps(root, indent=2, ensure_ascii=False) + "\n"


class Mismatch(enum.Enum):
    """A way a profile was measured differently from the run being planned."""

    SEQ_LEN = "seq_len"
    DTYPE = "dtype"
    RECOMPUTE = "recompute"


MISMATCH_TEXT = {
    Mismatch.SEQ_LEN: "measured at sequence length {measured}, planned at {planned}",
    Mismatch.DTYPE: "measured in {measured}, planned in {planned}",
    Mismatch.RECOMPUTE: "measured with recomputation {measured}, planned with {planned}",
}


def profile_mismatches(
    profile: SpeedProfile,
    seq_len: int,
    precision: Precision,
    recompute: Recompute,
    fp8: bool = False,
) -> tuple[tuple[Mismatch, str, str], ...]:
    """Where ``profile`` was measured differently from the planned run: (what, measured,
    planned); each makes its seconds a poorer guide."""
    found = []
    if profile.seq_len != seq_len:
        found.append((Mismatch.SEQ_LEN, str(profile.seq_len), str(seq_len)))
    if fp8 or profile.dtype is not precision:  # a profile is measured without FP8
        found.append((Mismatch.DTYPE, profile.dtype.value, FP8 if fp8 else precision.value))
    if profile.recompute is not recompute:
        found.append((Mismatch.RECOMPUTE, profile.recompute.value, recompute.value))
    return tuple(found)
