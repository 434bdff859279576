"""Following a DeepSpeed JSON a config names (axolotl's ``deepspeed``, accelerate's
``deepspeed_config_file``): finding it, reading it and merging its values."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...text import trans_late
from .deepspeed import deepspeed_unknown_keys, read_deepspeed
from .files import parse_text, read_file
from .model import ConfigImportError, ResolvedFile
from .reader import Reader, clean

# how many folders above the config are tried for a launch-folder path
_MAX_PARENTS = 8


def _repository_parents(folder: Path) -> list[Path]:
    """The folders above ``folder`` up to the nearest one holding ``.git`` (nearest
    first), or none when there is no such folder within ``_MAX_PARENTS``."""
    try:
        parents = list(folder.resolve().parents)[:_MAX_PARENTS]
        if (folder / ".git").exists():
            return []
        for index, parent in enumerate(parents):
            if (parent / ".git").exists():
                return parents[: index + 1]
    except OSError:
        pass
    return []


def follow_deepspeed(r: Reader, key: str, ref: Any, *, launch_folder_first: bool = False) -> None:
    """Read the DeepSpeed JSON ``ref`` names: relative to the config's folder, or, with
    ``launch_folder_first``, to the current working directory first (axolotl).

    When it cannot be read, the ZeRO stage and offload it would set stay missing
    (no default ZeRO-0 stands in for a file that is not there)."""
    if not isinstance(ref, str) or not ref.strip():
        r.refuse(
            key,
            ref,
            trans_late("ConfigImport", "must be the path of a DeepSpeed JSON").format(),
            "zero_stage",
            "offload",
        )
        return
    written = os.path.expanduser(ref.strip())
    candidates: list[tuple[Path, str]] = []
    if r.folder is None and not launch_folder_first:
        written = ""  # given as text: not followed
    if not written:
        pass
    elif os.path.isabs(written):
        candidates.append((Path(written), "absolute"))
    else:
        if launch_folder_first:
            candidates.append((Path.cwd() / written, "launch folder"))
        if r.folder is not None:
            candidates.append((r.folder / written, "config folder"))
        if launch_folder_first and r.folder is not None:
            # the folders above the config up to its repository's root, nearest
            # first: where a repository's examples are launched from (axolotl's
            # examples/<model>/x.yml names deepspeed_configs/zero3.json from the root);
            # outside a repository no folder above is guessed
            for parent in _repository_parents(r.folder):
                candidates.append((parent / written, "parent folder"))
    if not candidates:
        r.resolved.append(ResolvedFile(r.name(key), clean(ref.strip(), 300), None, None))
        r.refuse(
            key,
            ref,
            trans_late(
                "ConfigImport", "not followed: the config was given as text, not as a file"
            ).format(),
            "zero_stage",
            "offload",
        )
        return
    found = next(((p, w) for p, w in candidates if p.is_file()), None)
    if found is None:
        r.resolved.append(ResolvedFile(r.name(key), clean(ref.strip(), 300), None, None))
        shown = " ; ".join(clean(str(p), 300) for p, _w in candidates[:2])
        r.refuse(
            key,
            ref,
            trans_late("ConfigImport", "file not found: {path}").format(path=shown),
            "zero_stage",
            "offload",
        )
        return
    path, where = found
    shown = clean(str(path), 300)
    r.resolved.append(ResolvedFile(r.name(key), clean(ref.strip(), 300), shown, where))
    try:
        text = read_file(path, shown)
        data, is_json = parse_text(text, shown)
    except ConfigImportError as exc:
        r.refuse(key, ref, exc.message, "zero_stage", "offload")
        return
    if not isinstance(data, dict):
        r.refuse(
            key,
            ref,
            trans_late("ConfigImport", "{path} does not hold a mapping of DeepSpeed keys").format(
                path=shown
            ),
        )
        return
    inner = Reader(None, prefix=f"{clean(ref.strip())}:")
    inner.scan(data)
    read_deepspeed(data, inner)
    deepspeed_unknown_keys(data, inner, top_level=is_json)
    r.followed.append(shown)
    r.merge(inner)
