"""Timing training micro-steps (forward, loss and backward) at several micro-batch sizes
and writing them as a speed profile for the planner (``--time-micro-batches``,
``--profile-out``). ``torch`` is imported only inside the functions."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.profile import ProfileError, SpeedProfile, profile_to_json

from .batches import make_batch, to_device
from .building import load_config
from .errors import MeasureError, is_oom, one_line


def time_micro_step(model: Any, batch: Mapping[str, Any], repeats: int = 3) -> float:
    """Median seconds of one training micro-step: ``model(**batch).loss.backward()``.

    One warm-up run, then ``repeats`` timed ones (``time.perf_counter``; when the model
    is on CUDA, ``torch.cuda.synchronize`` before and after each run, so the time is the
    GPU's and not the launch queue's). ``batch`` must hold the labels (the loss is part
    of the step) and live on the model's device. The gradients accumulate across the
    runs, as in gradient accumulation, and are cleared (``zero_grad(set_to_none=True)``)
    at the end. Out of memory propagates (``MemoryError`` or a RuntimeError).
    """
    import torch

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    first = next(iter(model.parameters()), None)
    device = first.device if first is not None else torch.device("cpu")

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    was_training = model.training
    model.train()
    times: list[float] = []
    try:
        with torch.enable_grad():
            for run in range(repeats + 1):
                sync()
                start = time.perf_counter()
                loss = model(**batch).loss
                if loss is None:
                    raise MeasureError("the model returned no loss: put labels in the batch")
                loss.backward()
                sync()
                elapsed = time.perf_counter() - start
                del loss
                if run:  # run 0 is the warm-up
                    times.append(elapsed)
    finally:
        model.zero_grad(set_to_none=True)
        model.train(was_training)
    return float(statistics.median(times))


REPEATS = 3
_MAX_TIMED_SIZES = 64
_MAX_TIMED_BATCH = 10**6
_MAX_REPEATS = 1000
_DEVICE = re.compile(r"cpu|cuda(:[0-9]{1,3})?")
DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


@dataclass(frozen=True)
class Timing:
    sizes: tuple[int, ...]
    repeats: int
    profile_out: str | None


def _micro_batch_list(text: str) -> tuple[int, ...]:
    """``1,2,4,8`` as ascending sizes; MeasureError (one line) for anything else."""
    flag = "--time-micro-batches"
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise MeasureError(
            f"{flag} must be micro-batch sizes separated by commas, e.g. 1,2,4,8 (got {text!r})"
        )
    sizes: list[int] = []
    for item in items:
        if not re.fullmatch(r"[+-]?[0-9]+", item):
            raise MeasureError(f"{flag}: {item!r} is not an integer (e.g. 1,2,4,8)")
        value = int(item)
        if not 1 <= value <= _MAX_TIMED_BATCH:
            raise MeasureError(
                f"{flag}: every size must be from 1 to {_MAX_TIMED_BATCH} (got {value})"
            )
        if value in sizes:
            raise MeasureError(f"{flag}: {value} is listed twice")
        sizes.append(value)
    if len(sizes) > _MAX_TIMED_SIZES:
        raise MeasureError(f"{flag}: at most {_MAX_TIMED_SIZES} sizes (got {len(sizes)})")
    return tuple(sorted(sizes))


def timing_args(args: argparse.Namespace) -> Timing | None:
    """The timing asked for (None: none); MeasureError for a bad combination or value."""
    if not _DEVICE.fullmatch(args.device):
        raise MeasureError(f"--device must be cpu, cuda or cuda:N (got {args.device!r})")
    if args.time_micro_batches is None:
        for flag, value in (("--repeats", args.repeats), ("--profile-out", args.profile_out)):
            if value is not None:
                raise MeasureError(f"{flag} needs --time-micro-batches (the sizes to time)")
        return None
    sizes = _micro_batch_list(args.time_micro_batches)
    repeats = REPEATS
    if args.repeats is not None:
        text = args.repeats.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise MeasureError(f"--repeats must be an integer (got {args.repeats!r})")
        repeats = int(text)
        if not 1 <= repeats <= _MAX_REPEATS:
            raise MeasureError(f"--repeats must be from 1 to {_MAX_REPEATS} (got {repeats})")
    out = args.profile_out
    if out is not None:
        if not out.strip():
            raise MeasureError("--profile-out needs a file name")
        if os.path.isdir(out):
            raise MeasureError(f"--profile-out {out} is a folder, not a file")
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            raise MeasureError(f"--profile-out: the folder {folder} does not exist")
    return Timing(sizes, repeats, out)


def _device_label(device: str) -> str:
    if device == "cpu":
        return "cpu"
    import torch

    return f"{device} ({torch.cuda.get_device_name(device)})"


def _seconds(value: float) -> Fraction:
    """A measured time as exact nanoseconds (at least 1 ns)."""
    nanoseconds = Decimal(repr(value)).quantize(Decimal("1e-9"), rounding=ROUND_HALF_EVEN)
    return max(Fraction(nanoseconds), Fraction(1, 10**9))


def time_sizes(
    model: Any,
    head: str,
    args: argparse.Namespace,
    target_seq: int | None,
    device: str,
    timing: Timing,
) -> dict[str, Any]:
    """Median micro-step seconds at every size, smallest first, until memory runs out."""
    import torch

    points: list[tuple[int, Fraction]] = []
    out_of_memory_at: int | None = None
    reason = ""
    for size in timing.sizes:
        batch = to_device(device, make_batch(model, head, args.seq, size, 0, target_seq))
        try:
            seconds = time_micro_step(model, batch, timing.repeats)
        except (MemoryError, RuntimeError) as exc:
            if not is_oom(exc):
                raise
            out_of_memory_at, reason = size, one_line(exc)
        del batch
        if out_of_memory_at is not None:
            if device != "cpu":
                torch.cuda.empty_cache()
            break
        points.append((size, _seconds(seconds)))
    if out_of_memory_at is not None:
        if not points:
            raise MeasureError(
                f"out of memory timing micro-batch {out_of_memory_at}, the smallest size "
                f"asked for ({reason}); nothing timed"
            )
        kept = ", ".join(str(b) for b, _ in points)
        print(
            f"note: out of memory at micro-batch {out_of_memory_at} ({reason}); timing "
            f"stopped there, kept micro-batch {kept}",
            file=sys.stderr,
        )
    return {
        "device": _device_label(device),
        "repeats": timing.repeats,
        "points": points,
        "out_of_memory_at": out_of_memory_at,
    }


def _model_label(config: str, model: Any) -> str:
    """The profile's ``model``: the class and where the config came from, one line."""
    name = ""
    with contextlib.suppress(MeasureError):
        raw = load_config(config).get("_name_or_path")
        if isinstance(raw, str):
            name = raw.strip()
    if not name:
        path = os.path.abspath(config)
        name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
    label = " ".join(f"{type(model).__name__} ({name})".split())
    return label if len(label) <= 200 else label[:197] + "..."


def write_profile(
    path: str,
    timed: dict[str, Any],
    args: argparse.Namespace,
    model: Any,
    params: int,
    attention: str,
    target_seq: int | None,
) -> None:
    """The speed profile, written to a temporary file beside ``path`` then renamed."""
    try:
        profile = SpeedProfile(
            device=timed["device"],
            dtype=Precision(args.dtype),
            model=_model_label(args.model_config, model),
            params=params,
            seq_len=args.seq,
            recompute=Recompute.FULL if args.checkpointing else Recompute.NONE,
            attention=attention if attention in ("eager", "sdpa") else args.attention,
            points=tuple(timed["points"]),
            repeats=(timed["repeats"],) * len(timed["points"]),
            target_seq_len=target_seq,
        )
    except ProfileError as exc:
        raise MeasureError(f"cannot write the profile: {exc}") from None
    _write_atomically(path, profile_to_json(profile))


def _write_atomically(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise MeasureError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # what open() would have given the file
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise MeasureError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
