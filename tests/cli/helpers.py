"""Running ``gradacc`` in process: its JSON, or its one-line refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gradacc_desktop.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """``gradacc ARGV --json``: exit 0, nothing on stderr, one JSON object."""
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``gradacc ARGV`` refused: exit 2, nothing on stdout, one line on stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1
    return err
