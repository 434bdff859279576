"""Build a Debian package (.deb) from the PyInstaller onedir bundle.

Usage: python packaging/linux/build_deb.py [--bundle dist/gradacc-desktop] [--out dist]
(or ``make deb``). Prints the path of dist/gradacc-desktop_<version>_<arch>.deb.

Layout of the package:

* /opt/gradacc-desktop/                 the bundle as built (``make bundle``)
* /usr/bin/gradacc-desktop              a two-line shell launcher
* /usr/share/applications/gradacc-desktop.desktop   packaging/linux/gradacc-desktop.desktop
* /usr/share/icons/hicolor/<n>x<n>/apps/gradacc-desktop.png and scalable/apps/…svg
* /usr/share/doc/gradacc-desktop/copyright

``Depends:`` is computed from the bundle itself: every ELF file's DT_NEEDED
entries that no file of the bundle provides are mapped to the Debian package
that ships them (``SONAME_PACKAGES``), and libc6 gets the newest GLIBC_x.y
symbol version any file asks for. A shared library this table does not know
stops the build, so a new system dependency cannot slip in unnoticed.
``EXTRA_PACKAGES`` adds what a bundled library reads from the system at run
time without linking to it (fontconfig's configuration and fonts).

Pure standard library (the ELF reader is below) plus ``dpkg-deb`` and
``dpkg --print-architecture``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

from windows_version import package_metadata  # noqa: E402

PACKAGE = "gradacc-desktop"
INSTALL_DIR = PurePosixPath("/opt") / PACKAGE
LAUNCHER = PurePosixPath("/usr/bin") / PACKAGE
DESKTOP_ENTRY = PurePosixPath("/usr/share/applications") / f"{PACKAGE}.desktop"
ICON_THEME = PurePosixPath("/usr/share/icons/hicolor")
DOC_DIR = PurePosixPath("/usr/share/doc") / PACKAGE
DEFAULT_MAINTAINER = "gradacc-desktop contributors <gradacc-desktop@users.noreply.github.com>"
SECTION = "science"
PRIORITY = "optional"
SUMMARY = "gradient-accumulation memory calculator (effective batch, activation memory)"
DESCRIPTION = """\
A desktop calculator for people who train neural networks. From the
micro-batch size, the gradient accumulation steps, the data-parallel GPUs
and the activation memory per sample it shows, as you type, the effective
batch size (E = b * a * g) and the peak activation memory each GPU holds
(M = b * A).

It also plans a run from a recipe's target batch and a GPU, estimates the
activation memory per sample from a transformer's shape, draws the
trade-off and copies ready-to-paste DeepSpeed, Hugging Face, Accelerate and
Lightning settings. Brazilian Portuguese and English; it works offline.

The application is a self-contained PyInstaller bundle in /opt/gradacc-desktop."""

# glibc's libraries: one package, versioned by the newest GLIBC_x.y symbol used.
GLIBC_SONAMES = re.compile(
    r"^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libutil\.so\.1"
    r"|libresolv\.so\.2|libanl\.so\.1|ld-linux[-.\w]*\.so\.\d|ld64\.so\.\d)$"
)
# Shared libraries Qt and PyInstaller bundles may need from the system -> Debian package.
# Names are those of Debian 11+ / Ubuntu 22.04+ (the 64-bit-time "t64" packages of
# Ubuntu 24.04 provide the old names).
SONAME_PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libxcb.so.1": "libxcb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libstdc++.so.6": "libstdc++6",
    "libgcc_s.so.1": "libgcc-s1",
    "libz.so.1": "zlib1g",
    "libpng16.so.16": "libpng16-16",
}
# What a *bundled* library needs from the system without linking to it.
# libfontconfig reads /etc/fonts/fonts.conf (package fontconfig-config, which also
# pulls in a font); without it Qt finds no font and draws no text.
EXTRA_PACKAGES = {
    "libfontconfig.so.1": ("fontconfig-config",),
}

POSTINST = """\
#!/bin/sh
# Refresh the desktop database and the icon cache when the tools exist;
# never fail the installation because of them.
set -e
if [ "$1" = configure ]; then
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q /usr/share/applications || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 \\
            && [ -f /usr/share/icons/hicolor/index.theme ]; then
        gtk-update-icon-cache -q -f /usr/share/icons/hicolor || true
    fi
fi
exit 0
"""
POSTRM = """\
#!/bin/sh
# The menu entry and the icons are gone: refresh the caches that listed them.
set -e
case "$1" in
    remove|purge)
        if command -v update-desktop-database >/dev/null 2>&1; then
            update-desktop-database -q /usr/share/applications || true
        fi
        if command -v gtk-update-icon-cache >/dev/null 2>&1 \\
                && [ -f /usr/share/icons/hicolor/index.theme ]; then
            gtk-update-icon-cache -q -f /usr/share/icons/hicolor || true
        fi
        ;;
esac
exit 0
"""


def launcher_script(install_dir: PurePosixPath = INSTALL_DIR) -> str:
    return (
        "#!/bin/sh\n"
        f"# {PACKAGE} is a self-contained bundle in {install_dir}.\n"
        f'exec {install_dir}/{PACKAGE} "$@"\n'
    )


# ------------------------------------------------------------------ versions
def debian_version(version: str) -> str:
    """PEP 440 -> Debian: pre-releases sort before the release ("1.0rc1" -> "1.0~rc1")."""
    public, plus, local = version.strip().partition("+")
    public = re.sub(r"\.?(dev|a|b|rc)(\d+)", r"~\1\2", public)
    result = public + plus + local.replace("_", ".").replace("-", ".")
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+~]*", result):
        raise ValueError(f"not a usable package version: {version!r}")
    return result


def glibc_key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in version.split("."))


# ------------------------------------------------------------------ ELF reading
@dataclass
class ElfInfo:
    needed: list[str]
    glibc_versions: list[str]  # "2.34" from GLIBC_2.34 version requirements


SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NEEDED = 1


def read_elf(path: Path) -> ElfInfo | None:
    """DT_NEEDED and GLIBC_* version needs of an ELF file; None if it is not ELF."""
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 52 or head[:4] != b"\x7fELF":
            return None
        f.seek(0)
        data = f.read()
    is64 = head[4] == 2
    end = "<" if head[5] == 1 else ">"
    if is64:
        shoff, shentsize, shnum = (
            struct.unpack_from(end + "Q", data, 0x28)[0],
            *struct.unpack_from(end + "HH", data, 0x3A),
        )
        sh_fmt, dyn_fmt = end + "IIQQQQIIQQ", end + "qQ"
    else:
        shoff, shentsize, shnum = (
            struct.unpack_from(end + "I", data, 0x20)[0],
            *struct.unpack_from(end + "HH", data, 0x2E),
        )
        sh_fmt, dyn_fmt = end + "IIIIIIIIII", end + "iI"
    sections = [struct.unpack_from(sh_fmt, data, shoff + i * shentsize) for i in range(shnum)]

    def cstring(table: int, offset: int) -> str:
        start = sections[table][4] + offset
        return data[start : data.index(b"\0", start)].decode("ascii", "replace")

    needed: list[str] = []
    glibc: list[str] = []
    dyn_size = struct.calcsize(dyn_fmt)
    for _name, sh_type, _flags, _addr, offset, size, link, info, _align, _ent in sections:
        if sh_type == SHT_DYNAMIC:
            for pos in range(offset, offset + size, dyn_size):
                tag, value = struct.unpack_from(dyn_fmt, data, pos)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    needed.append(cstring(link, value))
        elif sh_type == SHT_GNU_VERNEED:
            pos = offset
            for _ in range(info):  # sh_info = number of Verneed entries
                _ver, count, _file, aux, next_need = struct.unpack_from(end + "HHIII", data, pos)
                apos = pos + aux
                for _ in range(count):
                    _hash, _flags2, _other, name, next_aux = struct.unpack_from(
                        end + "IHHII", data, apos
                    )
                    match = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)+)", cstring(link, name))
                    if match:
                        glibc.append(match.group(1))
                    apos += next_aux
                if not next_need:
                    break
                pos += next_need
    return ElfInfo(needed, glibc)


# ------------------------------------------------------------------ dependencies
@dataclass
class BundleScan:
    provided: set[str]  # file names present in the bundle
    needed: dict[str, set[str]]  # soname -> bundle files that need it
    glibc: str | None  # newest GLIBC_x.y needed


def scan_bundle(bundle: Path) -> BundleScan:
    provided: set[str] = set()
    needed: dict[str, set[str]] = {}
    newest: str | None = None
    for path in sorted(bundle.rglob("*")):
        provided.add(path.name)
        if path.is_symlink() or not path.is_file():
            continue
        info = read_elf(path)
        if info is None:
            continue
        rel = path.relative_to(bundle).as_posix()
        for lib in info.needed:
            needed.setdefault(lib, set()).add(rel)
        for v in info.glibc_versions:
            if newest is None or glibc_key(v) > glibc_key(newest):
                newest = v
    return BundleScan(provided, needed, newest)


def compute_depends(scan: BundleScan) -> tuple[list[str], list[str]]:
    """-> (Depends entries, warnings). Raises SystemExit for an unknown system library."""
    packages: set[str] = set()
    warnings: list[str] = []
    unknown: list[str] = []
    pruned_qt: dict[str, list[str]] = {}  # bundle file -> Qt libraries it wants
    uses_glibc = False
    for lib in sorted(scan.needed):
        if lib in scan.provided:
            for extra in EXTRA_PACKAGES.get(lib, ()):
                packages.add(extra)
            continue
        if GLIBC_SONAMES.match(lib):
            uses_glibc = True
        elif lib in SONAME_PACKAGES:
            packages.add(SONAME_PACKAGES[lib])
        elif lib.startswith("libQt6"):
            # A Qt library the spec pruned: only the plugin that wants it fails to load.
            for user in scan.needed[lib]:
                pruned_qt.setdefault(user, []).append(lib)
        else:
            users = ", ".join(sorted(scan.needed[lib]))
            unknown.append(f"{lib} (needed by {users})")
    if unknown:
        raise SystemExit(
            "build_deb: no Debian package known for: "
            + "; ".join(unknown)
            + " -- add it to SONAME_PACKAGES in packaging/linux/build_deb.py"
        )
    for user, libs in sorted(pruned_qt.items()):
        warnings.append(f"{user} needs {', '.join(libs)}, not bundled (ignored)")
    depends = sorted(packages)
    if uses_glibc or scan.glibc:
        depends.insert(0, f"libc6 (>= {scan.glibc})" if scan.glibc else "libc6")
    return depends, warnings


# ------------------------------------------------------------------ control files
def control_text(
    *,
    version: str,
    arch: str,
    installed_size_kib: int,
    depends: Iterable[str],
    maintainer: str = DEFAULT_MAINTAINER,
) -> str:
    long_lines = [f" {line}" if line.strip() else " ." for line in DESCRIPTION.splitlines()]
    fields = [
        ("Package", PACKAGE),
        ("Version", debian_version(version)),
        ("Architecture", arch),
        ("Maintainer", maintainer),
        ("Installed-Size", str(installed_size_kib)),
        ("Depends", ", ".join(depends)),
        ("Section", SECTION),
        ("Priority", PRIORITY),
        ("Description", SUMMARY + "\n" + "\n".join(long_lines)),
    ]
    return "".join(f"{key}: {value}\n" for key, value in fields if value)


def deb_name(version: str, arch: str) -> str:
    return f"{PACKAGE}_{debian_version(version)}_{arch}.deb"


def desktop_entry_text(source: str) -> str:
    """The entry as shipped: Exec/TryExec must name the launcher in /usr/bin."""
    for key in ("Exec", "TryExec"):
        match = re.search(rf"^{key}=(\S+)", source, re.MULTILINE)
        if not match or match.group(1).strip('"') not in (PACKAGE, str(LAUNCHER)):
            raise SystemExit(f"build_deb: {key}= of the desktop entry must run {PACKAGE}")
    return source


def file_layout(root: Path = ROOT) -> list[tuple[Path | None, PurePosixPath, int]]:
    """Files outside the bundle: (source or None for generated, destination, mode)."""
    icons = root / "resources" / "icons"
    layout: list[tuple[Path | None, PurePosixPath, int]] = [
        (None, LAUNCHER, 0o755),
        (root / "packaging" / "linux" / f"{PACKAGE}.desktop", DESKTOP_ENTRY, 0o644),
    ]
    for png in sorted((icons / "hicolor").glob(f"*/apps/{PACKAGE}.png")):
        size = png.parent.parent.name
        if re.fullmatch(r"\d+x\d+", size):
            layout.append((png, ICON_THEME / size / "apps" / png.name, 0o644))
    layout.append(
        (icons / "gradacc.svg", ICON_THEME / "scalable" / "apps" / f"{PACKAGE}.svg", 0o644)
    )
    layout.append((root / "LICENSE", DOC_DIR / "copyright", 0o644))
    return layout


def copyright_text(license_text: str) -> str:
    body = "\n".join(f" {line}" if line.strip() else " ." for line in license_text.splitlines())
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        f"Upstream-Name: {PACKAGE}\n\n"
        "Files: *\n"
        "Copyright: gradacc-desktop contributors\n"
        "License: MIT\n"
        f"{body}\n\n"
        "Files: opt/gradacc-desktop/_internal/*\n"
        "Copyright: The Qt Company Ltd. and others (Qt, PySide6); Python Software\n"
        " Foundation (CPython); the authors of the bundled system libraries\n"
        "License: LGPL-3 and PSF-2.0 and others\n"
        " See the upstream projects. Qt and PySide6 are used under the LGPLv3; the\n"
        " libraries are shared objects and can be replaced.\n"
    )


# ------------------------------------------------------------------ building
def _normalise_modes(tree: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(tree):
        os.chmod(dirpath, 0o755)
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            if path.is_symlink() or path.is_dir():
                continue
            executable = path.stat().st_mode & 0o111
            os.chmod(path, 0o755 if executable else 0o644)


def installed_size_kib(tree: Path) -> int:
    """Like dpkg-gencontrol: file sizes rounded up to KiB, 1 per directory or symlink."""
    total = 0
    for path in tree.rglob("*"):
        st = path.lstat()
        total += -(-st.st_size // 1024) if stat.S_ISREG(st.st_mode) else 1
    return total


def dpkg_architecture() -> str:
    try:
        return subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"build_deb: `dpkg --print-architecture` failed: {exc}") from exc


def build(bundle: Path, out_dir: Path, maintainer: str) -> Path:
    exe = bundle / PACKAGE
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        raise SystemExit(f"build_deb: no bundle at {exe} (run `make bundle`)")
    meta = package_metadata()
    version = meta["__version__"]
    arch = dpkg_architecture()

    scan = scan_bundle(bundle)
    depends, warnings = compute_depends(scan)
    for warning in warnings:
        print(f"build_deb: warning: {warning}", file=sys.stderr)

    stage = ROOT / "build" / "deb" / f"{PACKAGE}_{arch}"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    shutil.copytree(bundle, stage / INSTALL_DIR.relative_to("/"), symlinks=True)
    for source, dest, mode in file_layout():
        target = stage / dest.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if dest == LAUNCHER:
            target.write_text(launcher_script(), encoding="utf-8")
        elif dest == DESKTOP_ENTRY:
            assert source is not None
            target.write_text(desktop_entry_text(source.read_text(encoding="utf-8")), "utf-8")
        elif dest.name == "copyright":
            assert source is not None
            target.write_text(copyright_text(source.read_text(encoding="utf-8")), "utf-8")
        else:
            assert source is not None
            shutil.copyfile(source, target)
        os.chmod(target, mode)
    _normalise_modes(stage)

    size = installed_size_kib(stage)
    debian = stage / "DEBIAN"
    debian.mkdir(mode=0o755)
    sums = []
    for path in sorted(stage.rglob("*")):
        if path.is_file() and not path.is_symlink() and debian not in path.parents:
            digest = hashlib.md5(path.read_bytes()).hexdigest()
            sums.append(f"{digest}  {path.relative_to(stage).as_posix()}\n")
    files = {
        "control": (
            control_text(
                version=version,
                arch=arch,
                installed_size_kib=size,
                depends=depends,
                maintainer=maintainer,
            ),
            0o644,
        ),
        "md5sums": ("".join(sums), 0o644),
        "postinst": (POSTINST, 0o755),
        "postrm": (POSTRM, 0o755),
    }
    for name, (text, mode) in files.items():
        (debian / name).write_text(text, encoding="utf-8")
        os.chmod(debian / name, mode)

    out_dir.mkdir(parents=True, exist_ok=True)
    deb = out_dir / deb_name(version, arch)
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(stage), str(deb)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print((debian / "control").read_text(encoding="utf-8"), file=sys.stderr)
    shutil.rmtree(stage)  # a second copy of the bundle; the .deb has it all
    return deb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / PACKAGE)
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument(
        "--maintainer", default=os.environ.get("DEB_MAINTAINER", DEFAULT_MAINTAINER)
    )
    parser.add_argument(
        "--print-path", action="store_true", help="print the .deb's path and build nothing"
    )
    args = parser.parse_args(argv)
    if args.print_path:
        version = package_metadata()["__version__"]
        print(args.out.resolve() / deb_name(version, dpkg_architecture()))
        return 0
    print(build(args.bundle.resolve(), args.out.resolve(), args.maintainer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
