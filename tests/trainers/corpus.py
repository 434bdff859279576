"""The corpus of real published training configs (``tests/data/trainer_configs``) and
each file's kind as its ``SOURCES.md`` table names it, shared by the corpus tests: the
framework check a file gets does not depend on how gradacc recognises it."""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "data" / "trainer_configs"
FILES = sorted(p for p in CORPUS.iterdir() if p.name != "SOURCES.md")


def kinds() -> dict[str, str]:
    """File name -> kind (the table's second column)."""
    found: dict[str, str] = {}
    for line in (CORPUS / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            found[cells[0].strip("`")] = cells[1]
    return found


KINDS = kinds()


def files_of(kind: str) -> list[Path]:
    """The corpus files of ``kind``, sorted."""
    return sorted(CORPUS / name for name, k in KINDS.items() if k == kind)
