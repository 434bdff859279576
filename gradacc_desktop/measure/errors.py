"""Why a model cannot be built or measured (``MeasureError``), and how an exception is
said on the command line's one error line."""

from __future__ import annotations


class MeasureError(ValueError):
    """Why a model cannot be built or measured; the command line prints it (exit 2)."""


def one_line(exc: BaseException, limit: int = 400) -> str:
    """``Type: message`` on one line (multi-line messages joined, long ones cut)."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text
    )
