"""The --self-test that bundles run must also pass from source."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_self_test_passes_from_source(tmp_path: Path) -> None:
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    result = subprocess.run(
        [sys.executable, "-m", "gradacc_desktop", "--self-test"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("self-test OK")
    # the user's settings are untouched: the self-test used a temporary store
    assert not (tmp_path / "config" / "gradacc" / "gradacc-desktop.conf").exists()
