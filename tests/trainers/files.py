"""Writing an export's files where the framework under test reads them."""

from __future__ import annotations

from pathlib import Path

from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import TrainingSetup


def write_export(fmt: ExportFormat, setup: TrainingSetup, folder: Path) -> dict[str, str]:
    """The files of ``fmt`` for ``setup``, written into ``folder`` (name -> content)."""
    files = export(fmt, setup).files
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    return files
