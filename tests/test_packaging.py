"""Packaging files stay in step with the sources."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

from gradacc_desktop import APP_NAME

ROOT = Path(__file__).resolve().parent.parent


def test_generated_icons_match_the_svg() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_icons.py"), "--check"],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_desktop_entry_names_the_app_in_both_languages() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "packaging" / "linux" / f"{APP_NAME}.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Name[pt_BR]"] == "Calculadora de Memória de Acumulação de Gradiente"
    assert section["Name"]
    assert section["Comment[pt_BR]"]
    assert section["Icon"] == APP_NAME
    assert section["StartupWMClass"] == APP_NAME
    assert section["Terminal"] == "false"


def test_macos_bundle_declares_both_localisations() -> None:
    spec = (ROOT / "packaging" / "gradacc-desktop.spec").read_text(encoding="utf-8")
    for key in (
        "CFBundleIdentifier",
        "CFBundleShortVersionString",
        "NSHighResolutionCapable",
        "CFBundleDevelopmentRegion",
        "CFBundleLocalizations",
    ):
        assert key in spec, key
    assert "upx=False" in spec
