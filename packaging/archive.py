"""Archive the built bundle for upload, keeping exec bits and symlinks.

GitHub's upload-artifact drops both, so the bundle is archived first:

* Linux:   ``tar czf`` of dist/gradacc-desktop/            -> .tar.gz
* macOS:   ``ditto -c -k --keepParent`` of the .app          -> .zip
* Windows: zip of dist/gradacc-desktop/ via ``zipfile``      -> .zip

Usage: python packaging/archive.py [DIST_DIR]   (prints the archive's path)
The name is gradacc-desktop-<version>-<os>-<arch>.<ext>, in DIST_DIR (dist/).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))

from windows_version import package_metadata  # noqa: E402


def archive_name(version: str) -> str:
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(
        sys.platform, sys.platform
    )
    machine = platform.machine().lower().replace("amd64", "x86_64").replace("aarch64", "arm64")
    return f"gradacc-desktop-{version}-{system}-{machine}"


def zip_tree(folder: Path, out: Path) -> None:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for path in sorted(folder.rglob("*")):
            arcname = path.relative_to(folder.parent).as_posix()
            if path.is_symlink():  # rare on Windows; store as a Unix symlink entry
                info = zipfile.ZipInfo(arcname)
                info.create_system = 3
                info.external_attr = 0o120777 << 16
                zf.writestr(info, os.readlink(path))
            elif path.is_dir():
                continue
            else:
                zf.write(path, arcname)


def main(argv: list[str]) -> int:
    dist = Path(argv[0]) if argv else ROOT / "dist"
    meta = package_metadata()
    app = meta["APP_NAME"]
    base = dist / archive_name(meta["__version__"])
    source = dist / (f"{app}.app" if sys.platform == "darwin" else app)
    if not source.exists():
        raise SystemExit(f"nothing to archive: {source} (run `make bundle`)")
    if sys.platform == "darwin":
        out = Path(f"{base}.zip")
        out.unlink(missing_ok=True)
        subprocess.run(
            ["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(source), str(out)],
            check=True,
        )
    elif sys.platform.startswith("win"):
        out = Path(f"{base}.zip")
        out.unlink(missing_ok=True)
        zip_tree(source, out)
    else:
        out = Path(f"{base}.tar.gz")
        tar = shutil.which("tar")
        if tar is None:
            raise SystemExit("tar not found")
        # tar keeps modes and stores symlinks as links (no -h).
        subprocess.run([tar, "czf", str(out), "-C", str(dist), app], check=True)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
