"""The guard in tests/conftest.py fails a test that leaves Qt objects behind."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LEAKY_TESTS = """
from PySide6.QtWidgets import QWidget

from gradacc_desktop.viewmodels.language import LanguageController

kept = []


def test_leaves_a_window(qapp):
    window = QWidget()
    window.setObjectName("forgotten")
    window.show()
    kept.append(window)


def test_leaves_a_controller(qapp):
    LanguageController(qapp, qapp)


def test_leaves_a_catalogue(qapp):
    controller = LanguageController(qapp)
    controller.set_language("pt_BR")
    kept.append(controller)


def test_deletes_its_window(make_window):
    make_window().planner  # the planner tab too


def test_after_the_leaks_is_not_blamed(qapp):
    pass
"""


def test_a_test_that_leaves_qt_objects_behind_fails(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_leaky.py").write_text(LEAKY_TESTS)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rA",
            "-o",
            "qt_api=pyside6",
            str(tmp_path),
        ],
        cwd=tmp_path,
        # wide: the summary lines carry the whole message
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "QT_QPA_PLATFORM": "offscreen",
            "COLUMNS": "2000",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout
    errors = dict(re.findall(r"^ERROR test_leaky\.py::(\w+) - (.*)$", out, re.MULTILINE))
    passed = re.findall(r"^PASSED test_leaky\.py::(\w+)$", out, re.MULTILINE)
    assert result.returncode == 1, out + result.stderr
    assert sorted(errors) == [
        "test_leaves_a_catalogue",
        "test_leaves_a_controller",
        "test_leaves_a_window",
    ], out
    assert "QWidget 'forgotten'" in errors["test_leaves_a_window"]
    assert "language controller" in errors["test_leaves_a_controller"]
    assert "catalogue is still installed" in errors["test_leaves_a_catalogue"]
    assert sorted(passed) == sorted(
        [*errors, "test_after_the_leaks_is_not_blamed", "test_deletes_its_window"]
    ), out
