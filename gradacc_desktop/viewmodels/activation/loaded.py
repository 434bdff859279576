"""The model the estimator describes when it comes from a config.json: a bundled
preset's or a file the user opened (no arithmetic: the core read it)."""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.families import Architecture


@dataclass(frozen=True)
class LoadedModel:
    arch: Architecture
    #: what the model combo and the sources call it
    label: str
    #: where it came from: the preset's URL or the file's path
    source: str
    #: its key among the model choices (a preset name, or ``fields.FILE_KEY``)
    key: str
    #: the opened file's name (for the measuring command), "" for a preset
    file_name: str = ""
    #: the opened file's text (remembered, so the next session reopens the same model)
    text: str = ""
