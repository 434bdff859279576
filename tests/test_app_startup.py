"""What start-up pays for before the first paint, checked in a fresh process: only the
calculator tab's modules are imported, the log file is opened after the window is
painted (with the records held until then), and the crash handler's module is loaded
at the first unhandled exception. (How fast that is, is measured by benchmarks/run.py,
not asserted here.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gradacc_desktop import logs

ROOT = Path(__file__).resolve().parents[1]

# Modules the first window must not import: the other tabs, their view-models, the
# core modules behind them, QtCharts, and what only a later step needs.
NOT_AT_START_UP = (
    "gradacc_desktop.ui.planner",
    "gradacc_desktop.ui.trainer",
    "gradacc_desktop.ui.training",
    "gradacc_desktop.ui.pair_chart",
    "gradacc_desktop.ui.tradeoff_chart",
    "gradacc_desktop.ui.activation_dialog",
    "gradacc_desktop.ui.help_dialog",
    "gradacc_desktop.ui.scenario_dialogs",
    "gradacc_desktop.ui.clipboard",
    "gradacc_desktop.viewmodels.training",
    "gradacc_desktop.viewmodels.planner",
    "gradacc_desktop.viewmodels.search",
    "gradacc_desktop.viewmodels.tradeoff",
    "gradacc_desktop.viewmodels.pair_chart",
    "gradacc_desktop.core.training",
    "gradacc_desktop.core.memory",
    "gradacc_desktop.core.time",
    "gradacc_desktop.core.batch",
    "gradacc_desktop.core.frameworks",
    "gradacc_desktop.crash",
    "PySide6.QtCharts",
    "yaml",
    "logging.handlers",
    "html",  # its table of entities; rich text is escaped by viewmodels.formatting
    # a dataclass takes about 0.35 ms to define (its methods are generated and compiled):
    # the calculator's types are NamedTuples
    "dataclasses",
)


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )


def _python(script: str, tmp_path: Path) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=_env(tmp_path),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_the_first_window_imports_only_the_calculator(tmp_path: Path) -> None:
    script = (
        "import linecache, sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from gradacc_desktop import app as start_up\n"
        "qapp = QApplication(sys.argv[:1])\n"
        "start_up.configure_application(qapp)\n"
        "window = start_up.create_window(qapp)\n"
        "window.show()\n"
        "qapp.processEvents()\n"
        "from PySide6 import QtWidgets\n"
        "print('QSTYLE', 'QStyle' in QtWidgets.__dict__)\n"
        "for name in sorted(sys.modules):\n"
        "    print('MODULE', name)\n"
        "for name in linecache.cache:\n"
        "    print('SOURCE', name)\n"
    )
    lines = _python(script, tmp_path)
    modules = {line.split()[1] for line in lines if line.startswith("MODULE ")}
    assert "gradacc_desktop.ui.calculator_page" in modules  # the probe sees the window
    early = sorted(
        name
        for name in modules
        if any(name == lazy or name.startswith(lazy + ".") for lazy in NOT_AT_START_UP)
    )
    assert early == []
    # PySide6 builds a class's Python enums when the class is first used from Python:
    # QStyle's dozen large enums are not needed to paint the first window
    assert "QSTYLE False" in lines
    # PySide6's __feature__ scan no longer reads (and keeps) every module's source
    sources = [line for line in lines if line.startswith("SOURCE ") and "gradacc_desktop" in line]
    assert sources == []


def test_the_log_file_is_written_after_the_first_paint(tmp_path: Path) -> None:
    """The normal start-up (not --self-test): the records held before the window was
    painted reach the log file, in order, once it is."""
    stamp = tmp_path / "painted"
    env = _env(tmp_path) | {"GRADACC_BENCH_PAINT_FILE": str(stamp)}  # quits at first paint
    result = subprocess.run(
        [sys.executable, "-m", "gradacc_desktop"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert stamp.exists()
    log = tmp_path / "data" / "gradacc" / "gradacc-desktop" / logs.LOG_NAME
    text = log.read_text(encoding="utf-8")
    assert "INFO gradacc_desktop.app: gradacc-desktop" in text and "starting" in text


def test_the_crash_handler_is_loaded_at_the_first_exception(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from gradacc_desktop import app as start_up\n"
        "start_up.install_crash_handler()\n"
        "print('LOADED', 'gradacc_desktop.crash' in sys.modules)\n"
        "try:\n"
        "    raise ValueError('first')\n"
        "except ValueError as exc:\n"
        "    sys.excepthook(type(exc), exc, exc.__traceback__)\n"
        "from gradacc_desktop.crash import CrashHandler\n"
        "print('HANDLER', isinstance(sys.excepthook, CrashHandler))\n"
        "print('REPORT', 'ValueError: first' in (sys.excepthook.last_report or ''))\n"
    )
    lines = dict(line.split(" ", 1) for line in _python(script, tmp_path))
    assert lines == {"LOADED": "False", "HANDLER": "True", "REPORT": "True"}
