"""The catalogues are complete and the built .qm files match the committed .ts files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradacc_desktop.paths import resource_path

ROOT = Path(__file__).resolve().parent.parent
I18N = resource_path("i18n")
TOOLS = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(f"pyside6-{name}", path=str(TOOLS)) or shutil.which(f"pyside6-{name}")
    assert found, f"pyside6-{name} not installed"
    return found


def _messages(ts: Path) -> list[ET.Element]:
    return list(ET.parse(ts).getroot().iter("message"))


def _lupdate(tmp_path: Path, name: str, *extra: str) -> Path:
    ts = tmp_path / name
    shutil.copy(I18N / name, ts)
    subprocess.run(
        [
            _tool("lupdate"),
            "-extensions",
            "py",
            "-tr-function-alias",
            "QT_TRANSLATE_NOOP+=trans_late",
            "-no-obsolete",
            "-locations",
            "none",
            *extra,
            str(ROOT / "gradacc_desktop"),
            "-ts",
            str(ts),
        ],
        check=True,
        capture_output=True,
    )
    return ts


def test_every_portuguese_string_is_translated() -> None:
    untranslated = []
    for message in _messages(I18N / "gradacc_pt_BR.ts"):
        translation = message.find("translation")
        assert translation is not None
        forms = [f.text for f in translation.findall("numerusform")] or [translation.text]
        if translation.get("type") in ("unfinished", "obsolete", "vanished") or not all(forms):
            untranslated.append(message.findtext("source"))
    assert untranslated == []


def test_catalogues_cover_every_string_in_the_code(tmp_path: Path) -> None:
    """Re-scanning the sources finds nothing new: no tr() string is missing from the .ts."""
    ts = _lupdate(tmp_path, "gradacc_pt_BR.ts")
    fresh = {m.findtext("source") for m in _messages(ts)}
    committed = {m.findtext("source") for m in _messages(I18N / "gradacc_pt_BR.ts")}
    assert fresh == committed
    ts_en = _lupdate(tmp_path, "gradacc_en.ts", "-pluralonly")
    assert {m.findtext("source") for m in _messages(ts_en)} == {
        m.findtext("source") for m in _messages(I18N / "gradacc_en.ts")
    }


def test_english_plurals_are_translated() -> None:
    for message in _messages(I18N / "gradacc_en.ts"):
        assert message.get("numerus") == "yes"
        forms = [f.text for f in message.iter("numerusform")]
        assert len(forms) == 2
        assert all(forms)


def test_placeholders_survive_translation() -> None:
    import re

    for message in _messages(I18N / "gradacc_pt_BR.ts"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        assert translation is not None
        forms = [f.text or "" for f in translation.findall("numerusform")] or [
            translation.text or ""
        ]
        wanted = sorted(re.findall(r"\{\w+\}", source))
        for form in forms:
            assert sorted(set(re.findall(r"\{\w+\}", form))) == sorted(set(wanted)), source
            # mnemonics stay mnemonics
            assert ("&" in source) == ("&" in form.replace("&amp;", "&")), source


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_built_catalogue_is_not_stale(tmp_path: Path, language: str) -> None:
    built = I18N / f"gradacc_{language}.qm"
    assert built.exists(), "run `make i18n`"
    fresh = tmp_path / built.name
    subprocess.run(
        [_tool("lrelease"), "-silent", str(I18N / f"gradacc_{language}.ts"), "-qm", str(fresh)],
        check=True,
    )
    assert fresh.read_bytes() == built.read_bytes(), "stale .qm: run `make i18n`"
