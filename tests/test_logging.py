"""The app leaves a trace: a rotating log file in the user's log folder, set up at
start-up, and a warning for every stored setting it had to ignore."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QSettings

from gradacc_desktop import logs
from gradacc_desktop.viewmodels.settings import INPUTS, LANGUAGE, Settings

ROOT = Path(__file__).resolve().parents[1]


def _start(tmp_path: Path, data_home: Path) -> subprocess.CompletedProcess[str]:
    """The real start-up path (``--self-test`` quits after driving the window)."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(data_home),
    )
    return subprocess.run(
        [sys.executable, "-m", "gradacc_desktop", "--self-test"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_start_up_writes_the_log_file_in_the_log_folder(tmp_path: Path) -> None:
    result = _start(tmp_path, tmp_path / "data")
    assert result.returncode == 0, result.stdout + result.stderr
    folder = tmp_path / "data" / "gradacc" / "gradacc-desktop"
    log = (folder / logs.LOG_NAME).read_text(encoding="utf-8")
    assert "INFO gradacc_desktop.app: gradacc-desktop" in log and "starting" in log
    assert (folder / "selftest.log").exists()  # the same folder, one definition of it


def test_an_unwritable_log_folder_does_not_stop_the_app(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    result = _start(tmp_path, blocker)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "self-test OK" in result.stdout
    assert "cannot be written" in result.stderr


def test_a_corrupt_setting_is_logged_and_the_default_used(app_log: Path, tmp_path: Path) -> None:
    store = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    store.setValue(LANGUAGE.key, "klingon")
    store.setValue(INPUTS[next(iter(INPUTS))].key, "-3")
    settings = Settings(store)
    assert settings.get(LANGUAGE) == LANGUAGE.default
    assert settings.inputs() is not None
    text = app_log.read_text(encoding="utf-8")
    assert f"WARNING gradacc_desktop.viewmodels.settings: setting {LANGUAGE.key}" in text
    assert "'klingon' is not valid: default used" in text
    assert "'-3' is not valid: default used" in text


def test_the_log_file_rotates_and_keeps_three_old_ones(app_log: Path) -> None:
    log = logging.getLogger("gradacc_desktop.test")
    line = "x" * 1000
    for _ in range(5 * logs.MAX_LOG_BYTES // 1000):
        log.info(line)
    files = sorted(p.name for p in app_log.parent.iterdir())
    assert files == [logs.LOG_NAME, *(f"{logs.LOG_NAME}.{n}" for n in (1, 2, 3))]
    assert all(p.stat().st_size <= logs.MAX_LOG_BYTES for p in app_log.parent.iterdir())


def test_set_up_twice_adds_no_second_file_handler(app_log: Path) -> None:
    assert logs.setup_logging() == app_log
    handlers = logging.getLogger("gradacc_desktop").handlers
    assert sum(isinstance(h, logging.FileHandler) for h in handlers) == 1
    assert logs.current_log_file() == app_log
