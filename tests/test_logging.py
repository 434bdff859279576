"""The app leaves a trace: a rotating log file in the user's log folder, set up at
start-up, and a warning for every stored setting it had to ignore."""

from __future__ import annotations

import logging
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gradacc_desktop import app as start_up
from gradacc_desktop import logs
from gradacc_desktop.viewmodels.settings import INPUTS, LANGUAGE, TAB, Setting, Settings

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


# -- start-up, in this process, with the log folder moved -----------------------
@pytest.mark.parametrize("writable", [True, False], ids=["folder", "unwritable-folder"])
def test_main_sets_up_the_log_in_the_log_folder(
    qapp: QApplication,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    writable: bool,
) -> None:
    if writable:
        folder = tmp_path / "logs"
    else:
        (tmp_path / "file").write_text("a file where the log folder's parent should be")
        folder = tmp_path / "file" / "logs"
    monkeypatch.setattr(logs, "log_dir", lambda: folder)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # main() installs its own
    try:
        # --self-test: the real start-up up to the window, which it drives and closes
        assert start_up.main(["--self-test"]) == 0
        handlers = logging.getLogger("gradacc_desktop").handlers
        files = [h for h in handlers if isinstance(h, logging.FileHandler)]
        if writable:
            assert len(files) == 1
            handler = files[0]
            assert isinstance(handler, logs.LogFile)
            assert Path(handler.baseFilename) == folder / logs.LOG_NAME
            handler.flush()
            assert "INFO gradacc_desktop.app:" in (folder / logs.LOG_NAME).read_text("utf-8")
        else:
            assert files == []
            assert logs.current_log_file() is None
    finally:
        logs.reset_logging()
    out, err = capsys.readouterr()
    assert out.startswith("self-test OK")
    assert ("cannot be written" in err) is not writable


# -- what settings swallow, as log records --------------------------------------
def _variant(type_name: str) -> str:
    """An INI value ``@Variant(...)`` naming ``type_name`` with no data, every byte
    escaped (what a foreign or hand-edited settings file can hold)."""
    name = type_name.encode() + b"\0"
    raw = struct.pack(">II", 127, len(name)) + name + b"\0"
    return "@Variant(" + "".join(f"\\x{byte:x}" for byte in raw) + ")"


def _ini(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "corrupt.ini"
    path.write_text(text, encoding="utf-8")
    return Settings(QSettings(str(path), QSettings.Format.IniFormat))


@pytest.mark.parametrize("type_name", ["QVariantPair", "QCborTag"])
def test_a_value_qsettings_cannot_convert_is_logged_and_the_default_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, type_name: str
) -> None:
    settings = _ini(tmp_path, f"[ui]\nlanguage={_variant(type_name)}\n")
    with pytest.raises((RuntimeError, TypeError)):  # what Settings must not let through
        settings.store.value(LANGUAGE.key)
    with caplog.at_level(logging.WARNING, logger="gradacc_desktop"):
        assert settings.get(LANGUAGE) == LANGUAGE.default
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.name == "gradacc_desktop.viewmodels.settings"
    assert LANGUAGE.key in record.getMessage() and "default used" in record.getMessage()


def test_a_parser_that_raises_is_one_warning_and_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a parser with a bug (as the tab's once was, with "²") must not stop the app
    broken = Setting(TAB.key, TAB.default, lambda raw: int(str(raw)))
    settings = _ini(tmp_path, "[ui]\ntab=\u00b2\n")
    with caplog.at_level(logging.WARNING, logger="gradacc_desktop"):
        assert settings.get(broken) == TAB.default
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert TAB.key in record.getMessage() and "ValueError" in record.getMessage()


def test_an_unreadable_settings_group_is_logged_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = _ini(tmp_path, f"[estimator]\ngood=1\nbad={_variant('QVariantPair')}\n")
    with caplog.at_level(logging.WARNING, logger="gradacc_desktop"):
        assert settings.read_group("estimator") == {}
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert "estimator" in record.getMessage() and "QVariantPair" in record.getMessage()


# -- records held until the file is set up (start-up opens it after the first paint) ----
def test_held_records_reach_the_file_first_and_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "log_dir", lambda: tmp_path / "logs")
    log = logging.getLogger("gradacc_desktop.test")
    try:
        logs.hold_records()
        assert logs.holding_records() and logs.current_log_file() is None
        log.debug("not kept: below the level")
        log.info("held one")
        log.warning("held two")
        path = logs.setup_logging()
        assert path is not None and not logs.holding_records()
        log.info("after")
        text = path.read_text(encoding="utf-8")
    finally:
        logs.reset_logging()
    assert "not kept" not in text
    assert text.index("held one") < text.index("held two") < text.index("after")


def test_held_records_are_bounded() -> None:
    log = logging.getLogger("gradacc_desktop.test")
    try:
        logs.hold_records()
        for n in range(logs.MAX_HELD + 10):
            log.info("record %d", n)
        [handler] = logging.getLogger("gradacc_desktop").handlers
        records = handler.records  # type: ignore[attr-defined]
    finally:
        logs.reset_logging()
    assert len(records) == logs.MAX_HELD
    assert records[0].getMessage() == "record 10"


def test_the_rotated_files_hold_the_newest_records_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The older records move to .1, .2 and .3 in order; what is older still is dropped."""
    monkeypatch.setattr(logs, "log_dir", lambda: tmp_path)
    monkeypatch.setattr(logs, "MAX_LOG_BYTES", 2000)
    try:
        assert logs.setup_logging() == tmp_path / logs.LOG_NAME
        log = logging.getLogger("gradacc_desktop.test")
        for n in range(200):
            log.info("record %03d %s", n, "x" * 40)
    finally:
        logs.reset_logging()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [logs.LOG_NAME, *(f"{logs.LOG_NAME}.{n}" for n in (1, 2, 3))]
    texts = [(tmp_path / name).read_text("utf-8") for name in files]
    assert all(len(text.encode()) <= 2000 for text in texts)
    assert "record 199" in texts[0]  # the newest in the current file
    lines = [line for text in texts for line in text.splitlines()[::-1]]
    newest_first = [int(line.split("record ")[1][:3]) for line in lines]
    assert newest_first == sorted(newest_first, reverse=True)  # .1 older than the file, …
    assert "record 000" not in "".join(texts)  # the oldest dropped
