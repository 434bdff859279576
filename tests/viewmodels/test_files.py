"""Saving never loses a file: every failure leaves the previous file intact and says why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradacc_desktop.viewmodels.files import write_file_atomically

OLD = b'{"old": true}\n'
NEW = b'{"new": true}\n' * 1000

posix_only = pytest.mark.skipif(os.name != "posix", reason="resource limits are POSIX")


def _run(code: str, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter. Its output goes through pipes, which a
    file-size limit does not touch (pytest's capture files would be)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [*prefix, sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def _leftovers(folder: Path, *expected: str) -> list[str]:
    return sorted(set(os.listdir(folder)) - set(expected))


def test_writes_a_new_file_and_replaces_an_old_one(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    assert write_file_atomically(path, OLD) is None
    assert path.read_bytes() == OLD
    path.chmod(0o640)
    assert write_file_atomically(str(path), NEW) is None
    assert path.read_bytes() == NEW
    assert path.stat().st_mode & 0o777 == 0o640  # the old file's permissions are kept
    assert write_file_atomically(path, b"") is None
    assert path.read_bytes() == b""
    assert _leftovers(tmp_path, "plan.json") == []


def test_a_path_that_is_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "plan.json"
    folder.mkdir()
    (folder / "inside.txt").write_bytes(OLD)
    error = write_file_atomically(folder, NEW)
    assert error == "Filename refers to a directory"
    assert folder.is_dir() and (folder / "inside.txt").read_bytes() == OLD
    assert _leftovers(tmp_path, "plan.json") == []


def test_a_parent_that_is_a_file(tmp_path: Path) -> None:
    parent = tmp_path / "notes"
    parent.write_bytes(OLD)
    error = write_file_atomically(parent / "plan.json", NEW)
    assert error == "Not a directory"
    assert parent.read_bytes() == OLD
    assert _leftovers(tmp_path, "notes") == []


def test_a_folder_that_vanished(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    (folder / "plan.json").write_bytes(OLD)
    shutil.rmtree(folder)
    error = write_file_atomically(folder / "plan.json", NEW)
    assert error == "No such file or directory"
    assert not folder.exists()


_LIMITED = """
import resource, signal, sys
from pathlib import Path
from gradacc_desktop.viewmodels.files import write_file_atomically
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
print(write_file_atomically(Path(sys.argv[1]), b"x" * int(sys.argv[3])))
"""


@posix_only
@pytest.mark.parametrize("size", [5_000, 500_000])  # within one write, and across many
def test_a_file_size_limit(tmp_path: Path, size: int) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(OLD)
    result = _run(_LIMITED, str(path), "1000", str(size))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "File too large"
    assert path.read_bytes() == OLD
    assert _leftovers(tmp_path, "plan.json") == []


_FULL_DISK = """
import json, os, subprocess, sys
from pathlib import Path
folder = Path(sys.argv[1])
# this process has a mount namespace of its own: the small disk vanishes with it
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)])
if mounted.returncode != 0:
    sys.exit(77)
from gradacc_desktop.viewmodels.files import write_file_atomically
path = folder / "plan.json"
path.write_bytes(b'{"old": true}\\n')
error = write_file_atomically(path, b"x" * 200_000)
print(json.dumps([error, path.read_text(), sorted(os.listdir(folder))]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs in a mount namespace")
def test_a_full_disk(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1)")
    folder = tmp_path / "small-disk"
    folder.mkdir()
    result = _run(_FULL_DISK, str(folder), prefix=(unshare, "--mount", "--propagation", "private"))
    if result.returncode in (1, 77) and not result.stdout:
        pytest.skip(f"cannot mount a small disk here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    error, content, files = json.loads(result.stdout)
    assert error == "No space left on device"
    assert content == OLD.decode()
    assert files == ["plan.json"]  # no temporary file left behind
