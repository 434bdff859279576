"""The .deb builder's pure parts: control file, Depends, layout, maintainer scripts."""

from __future__ import annotations

import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gradacc_desktop import APP_NAME, __version__

ROOT = Path(__file__).resolve().parent.parent


def _load_builder() -> ModuleType:
    path = ROOT / "packaging" / "linux" / "build_deb.py"
    spec = importlib.util.spec_from_file_location("build_deb", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_deb"] = module
    spec.loader.exec_module(module)
    return module


deb = _load_builder()


def _scan(needed: dict[str, set[str]], provided: set[str], glibc: str | None = "2.35"):
    return deb.BundleScan(provided=provided, needed=needed, glibc=glibc)


def test_depends_lists_only_system_libraries_the_bundle_lacks() -> None:
    scan = _scan(
        needed={
            "libc.so.6": {"gradacc-desktop"},
            "libm.so.6": {"_internal/libpython3.12.so.1.0"},
            "ld-linux-x86-64.so.2": {"_internal/libstdc++.so.6"},
            "libEGL.so.1": {"_internal/PySide6/Qt/lib/libQt6Gui.so.6"},
            "libGL.so.1": {"_internal/PySide6/Qt/lib/libQt6Gui.so.6"},
            "libxcb.so.1": {"_internal/libX11.so.6"},
            "libxkbcommon.so.0": {"_internal/PySide6/Qt/lib/libQt6Gui.so.6"},
            "libfontconfig.so.1": {"_internal/PySide6/Qt/lib/libQt6Gui.so.6"},
            "libQt6Quick.so.6": {"_internal/PySide6/Qt/plugins/x/libqtvk.so"},
        },
        provided={"libxkbcommon.so.0", "libfontconfig.so.1", "libQt6Gui.so.6"},
    )
    depends, warnings = deb.compute_depends(scan)
    # glibc first with the newest symbol version; bundled libraries are no dependency,
    # but the bundled fontconfig needs the system's configuration and fonts.
    assert depends == ["libc6 (>= 2.35)", "fontconfig-config", "libegl1", "libgl1", "libxcb1"]
    assert "libxkbcommon0" not in depends
    assert len(warnings) == 1 and "libQt6Quick.so.6" in warnings[0]


def test_an_unknown_system_library_stops_the_build() -> None:
    scan = _scan(needed={"libmystery.so.3": {"_internal/libfoo.so"}}, provided=set())
    with pytest.raises(SystemExit, match=r"libmystery\.so\.3.*libfoo\.so"):
        deb.compute_depends(scan)


def test_control_file_fields() -> None:
    text = deb.control_text(
        version=__version__,
        arch="amd64",
        installed_size_kib=119_503,
        depends=["libc6 (>= 2.34)", "libegl1", "libxcb1"],
    )
    lines = text.splitlines()
    fields = dict(line.split(": ", 1) for line in lines if not line.startswith(" "))
    assert fields["Package"] == APP_NAME
    assert fields["Version"] == deb.debian_version(__version__)
    assert fields["Architecture"] == "amd64"
    assert fields["Installed-Size"] == "119503"
    assert fields["Depends"] == "libc6 (>= 2.34), libegl1, libxcb1"
    assert "<" in fields["Maintainer"] and fields["Maintainer"].endswith(">")
    assert fields["Section"] and fields["Priority"] == "optional"
    assert 0 < len(fields["Description"]) < 80
    # One paragraph: no empty line; the long description is indented, blank lines are " ."
    assert "" not in lines and text.endswith("\n")
    long_description = lines[lines.index(f"Description: {fields['Description']}") + 1 :]
    assert long_description and all(line.startswith(" ") for line in long_description)
    assert " ." in long_description


@pytest.mark.parametrize(
    ("pep440", "debian"),
    [
        ("0.1.0", "0.1.0"),
        ("1.2rc1", "1.2~rc1"),
        ("1.2a3", "1.2~a3"),
        ("1.2.dev4", "1.2~dev4"),
        ("1.2rc1.dev2", "1.2~rc1~dev2"),
        ("1.2.post1", "1.2.post1"),
        ("1.2+ubuntu.1", "1.2+ubuntu.1"),
    ],
)
def test_versions_sort_like_pep_440(pep440: str, debian: str) -> None:
    assert deb.debian_version(pep440) == debian


def test_package_file_name() -> None:
    assert deb.deb_name("0.3.0", "arm64") == f"{APP_NAME}_0.3.0_arm64.deb"


def test_layout_installs_launcher_entry_icons_and_copyright() -> None:
    layout = deb.file_layout()
    dests = {str(dest): (source, mode) for source, dest, mode in layout}
    assert dests[f"/usr/bin/{APP_NAME}"] == (None, 0o755)
    assert f"/usr/share/applications/{APP_NAME}.desktop" in dests
    assert f"/usr/share/icons/hicolor/scalable/apps/{APP_NAME}.svg" in dests
    assert f"/usr/share/doc/{APP_NAME}/copyright" in dests
    sizes = sorted(p.name for p in (ROOT / "resources" / "icons" / "hicolor").iterdir())
    assert "48x48" in sizes
    for size in sizes:
        assert f"/usr/share/icons/hicolor/{size}/apps/{APP_NAME}.png" in dests, size
    for source, dest, mode in layout:
        assert dest.is_absolute() and not str(dest).startswith("/opt")
        assert source is None or source.is_file(), source
        assert mode in (0o644, 0o755)


def test_launcher_and_desktop_entry_run_the_installed_bundle() -> None:
    script = deb.launcher_script()
    assert script.startswith("#!/bin/sh\n")
    assert f'exec /opt/{APP_NAME}/{APP_NAME} "$@"' in script
    source = (ROOT / "packaging" / "linux" / f"{APP_NAME}.desktop").read_text(encoding="utf-8")
    entry = deb.desktop_entry_text(source)
    assert f"\nExec={APP_NAME}\n" in entry or f"\nExec=/usr/bin/{APP_NAME}\n" in entry
    with pytest.raises(SystemExit, match="Exec"):
        deb.desktop_entry_text(source.replace(f"Exec={APP_NAME}", "Exec=/somewhere/else"))


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="needs a POSIX shell")
@pytest.mark.parametrize("script", ["POSTINST", "POSTRM"])
def test_maintainer_scripts_never_fail(tmp_path: Path, script: str) -> None:
    path = tmp_path / script.lower()
    path.write_text(getattr(deb, script), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    assert "command -v update-desktop-database" in text
    assert "command -v gtk-update-icon-cache" in text
    # Without the tools, and with tools that fail: exit 0 either way.
    failing = tmp_path / "bin"
    failing.mkdir()
    for tool in ("update-desktop-database", "gtk-update-icon-cache"):
        (failing / tool).write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
        (failing / tool).chmod(0o755)
    action = "configure" if script == "POSTINST" else "remove"
    for path_env in (str(tmp_path / "empty"), f"{failing}:/usr/bin:/bin"):
        result = subprocess.run(
            ["/bin/sh", str(path), action], env={"PATH": path_env}, capture_output=True
        )
        assert result.returncode == 0, result.stderr


def test_installed_size_counts_kib_per_file(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "one").write_bytes(b"x")
    (tmp_path / "d" / "two").write_bytes(b"x" * 1025)
    (tmp_path / "link").symlink_to("d/one")
    assert deb.installed_size_kib(tmp_path) == 1 + 1 + 2 + 1  # dir, 1 B, 1025 B, symlink


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="reads a glibc ELF executable",
)
def test_elf_reader_finds_needed_libraries_and_glibc_versions() -> None:
    info = deb.read_elf(Path(os.path.realpath(sys.executable)))
    assert info is not None
    assert "libc.so.6" in info.needed
    assert info.glibc_versions and all(v[0].isdigit() for v in info.glibc_versions)
    assert deb.read_elf(ROOT / "README.md") is None
