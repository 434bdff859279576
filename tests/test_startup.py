"""Start-up's order of things: imports only go downward, and building a window (as
tests and the self-test do) leaves the process as it found it."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import shiboken6
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QDialogButtonBox

from gradacc_desktop.app import create_window

PACKAGE = Path(__file__).resolve().parents[1] / "gradacc_desktop"


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_nothing_below_start_up_imports_it() -> None:
    importers = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name not in {"app.py", "__main__.py"} and "gradacc_desktop.app" in _imported(path)
    ]
    assert importers == []


def test_create_window_freezes_nothing_and_the_window_owns_its_translators(qapp, settings) -> None:  # type: ignore[no-untyped-def]
    frozen = gc.get_freeze_count()
    window = create_window(qapp, settings, "pt_BR")
    assert gc.get_freeze_count() == frozen  # gc.freeze() is main()'s, after start-up
    controller, translators = window.language, window.findChildren(QTranslator)
    assert controller.parent() is window
    assert len(translators) == 3  # the app's catalogue, Qt's and the supplement to it
    assert window.tabs.tabText(0) == "Calculadora" and _cancel() == "Cancelar"
    shiboken6.delete(window)
    assert not shiboken6.isValid(controller)
    assert not any(shiboken6.isValid(t) for t in translators)
    assert _cancel() == "Cancel"  # the catalogues went with the window


def _cancel() -> str:
    """A standard button's text, as Qt's catalogue gives it."""
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    return box.buttons()[0].text()


def test_the_collector_runs_again_once_the_window_is_up(tmp_path: Path) -> None:
    """``python -m gradacc_desktop`` turns the cyclic collector off for start-up only: the
    app that the user then types into collects its garbage as any process does."""
    import os
    import subprocess
    import sys

    probe = (
        "import atexit, gc, runpy\n"
        "atexit.register(lambda: print('collector', gc.isenabled()))\n"
        "runpy.run_module('gradacc_desktop', run_name='__main__', alter_sys=True)\n"
    )
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "GRADACC_BENCH_PAINT_FILE": str(tmp_path / "painted"),
        "XDG_CONFIG_HOME": str(tmp_path),
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "painted").exists()
    assert "collector True" in done.stdout
