"""Packaging files stay in step with the sources."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
from pathlib import Path

from gradacc_desktop import APP_NAME, __version__
from gradacc_desktop.viewmodels.settings import LANGUAGES

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


# Runs the PyInstaller spec as a macOS build would, with PyInstaller's build steps
# (Analysis, PYZ, EXE, COLLECT, BUNDLE) replaced by stubs that record their arguments.
_SPEC_AS_ON_MACOS = """
import json, sys
sys.platform = "darwin"
calls = {}


def step(name):
    def record(*args, **kwargs):
        calls[name] = kwargs
        return type(name, (), {"binaries": [], "datas": [], "pure": [], "scripts": []})()

    return record


spec, folder = sys.argv[1:]
names = {name: step(name) for name in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")}
with open(spec, encoding="utf-8") as handle:
    exec(compile(handle.read(), spec, "exec"), {"SPECPATH": folder, **names})
print(json.dumps(calls, default=str))
"""


def test_macos_bundle_declares_both_localisations() -> None:
    spec = ROOT / "packaging" / "gradacc-desktop.spec"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADACC_BUNDLE_")}
    result = subprocess.run(
        [sys.executable, "-c", _SPEC_AS_ON_MACOS, str(spec), str(spec.parent)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    calls = json.loads(result.stdout.splitlines()[-1])
    bundle = calls["BUNDLE"]
    assert bundle["name"] == f"{APP_NAME}.app"
    assert Path(bundle["icon"]).name == "gradacc.icns" and Path(bundle["icon"]).is_file()
    plist = bundle["info_plist"]
    assert plist["CFBundleIdentifier"] == bundle["bundle_identifier"]
    assert plist["CFBundleName"] == APP_NAME
    assert plist["CFBundleShortVersionString"] == plist["CFBundleVersion"] == __version__
    assert bundle["version"] == __version__
    assert plist["NSHighResolutionCapable"] is True
    # the app's languages, Portuguese first, as macOS names them
    assert plist["CFBundleDevelopmentRegion"] == "pt-BR"
    assert plist["CFBundleLocalizations"] == [code.replace("_", "-") for code in LANGUAGES]
    # windowed, and UPX off (see the header of the spec)
    assert calls["EXE"]["console"] is False
    assert calls["EXE"]["upx"] is False and calls["COLLECT"]["upx"] is False
