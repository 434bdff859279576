"""The names a mistyped one may have meant: for the command line's messages."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

#: at most this many names are offered
MOST = 3


def close_names(wanted: str, known: Sequence[str]) -> list[str]:
    """The known names ``wanted`` may stand for: those it starts (``h100`` for
    ``h100-80gb``), or else the closest spellings (``llama70b`` for ``llama-70b``)."""
    text = wanted.strip().lower()
    if not text:
        return []
    lowered = {name.lower(): name for name in known}
    started = [name for key, name in lowered.items() if key.startswith(text)]
    if started:
        return started[:MOST]
    return [lowered[key] for key in difflib.get_close_matches(text, lowered, MOST, 0.75)]


def unknown_name(what: str, wanted: str, known: Sequence[str]) -> str:
    """``unknown model 'x'; did you mean y? (choose from: …)``."""
    close = close_names(wanted, known)
    listed = ", ".join(close[:-1]) + " or " + close[-1] if len(close) > 1 else "".join(close)
    meant = f"; did you mean {listed}?" if close else ""
    return f"unknown {what} {wanted!r}{meant} (choose from: {', '.join(known)})"
