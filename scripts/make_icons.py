"""Render the application icon from resources/icons/gradacc.svg.

Writes (all committed, regenerate after editing the SVG)::

    resources/icons/hicolor/<n>x<n>/apps/gradacc-desktop.png   n in SIZES
    resources/icons/gradacc.ico    PNG-compressed entries 16..256
    resources/icons/gradacc.icns   PNG entries icp4/icp5/ic07..ic14

Sizes up to 24 px come from resources/icons/gradacc-small.svg, a pixel-fitted
variant of the same design. Rendering uses PySide6's QtSvg offscreen; the .ico
and .icns containers are written here in plain Python (Qt's image plugins cannot
write .icns and its .ico writer stores BMPs), so nothing beyond
PySide6-Essentials is needed.

Usage: python scripts/make_icons.py [--check]
  --check   exit 1 if the committed files differ from a fresh render
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "gradacc.svg"
#: Pixel-fitted variant used up to SMALL_MAX px (the full design smudges at 16 px).
SMALL_SVG = ICONS / "gradacc-small.svg"
SMALL_MAX = 24
ICON_NAME = "gradacc-desktop"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# (OSType, pixel size). PNG payloads are accepted for all of these since 10.7/10.8.
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"ic11", 32),  # 16@2x
    (b"ic12", 64),  # 32@2x
    (b"ic07", 128),
    (b"ic13", 256),  # 128@2x
    (b"ic08", 256),
    (b"ic14", 512),  # 256@2x
    (b"ic09", 512),
    (b"ic10", 1024),  # 512@2x
)


def render_png(renderer: QSvgRenderer, size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG", 0):  # PNG "quality" 0 = zlib level 9
        raise RuntimeError(f"PNG encoding failed at {size}px")
    buffer.close()
    return bytes(data.data())


def build_ico(pngs: dict[int, bytes]) -> bytes:
    """ICONDIR + ICONDIRENTRY[] + PNG payloads (Vista+ PNG-compressed icons)."""
    sizes = [s for s in ICO_SIZES if s in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    payload = b""
    for s in sizes:
        blob = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        payload += blob
        offset += len(blob)
    return header + entries + payload


def build_icns(pngs: dict[int, bytes]) -> bytes:
    body = b""
    for ostype, size in ICNS_TYPES:
        blob = pngs[size]
        body += ostype + struct.pack(">I", len(blob) + 8) + blob
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def outputs() -> dict[Path, bytes]:
    renderers = {path: QSvgRenderer(str(path)) for path in (SVG, SMALL_SVG)}
    for path, renderer in renderers.items():
        if not renderer.isValid():
            raise SystemExit(f"invalid SVG: {path}")
    needed = set(SIZES) | set(ICO_SIZES) | {s for _, s in ICNS_TYPES}
    pngs = {
        s: render_png(renderers[SMALL_SVG if s <= SMALL_MAX else SVG], s) for s in sorted(needed)
    }
    files = {ICONS / "hicolor" / f"{s}x{s}" / "apps" / f"{ICON_NAME}.png": pngs[s] for s in SIZES}
    files[ICONS / "gradacc.ico"] = build_ico(pngs)
    files[ICONS / "gradacc.icns"] = build_icns(pngs)
    return files


# Qt's rasterizer picks SIMD paths by CPU (SSE4, AVX2, AVX-512), so anti-aliased edges
# can differ by a few levels between machines: --check compares pixels, not bytes.
PIXEL_TOLERANCE = 8
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _pngs_in(blob: bytes) -> list[bytes]:
    """The PNG images inside a PNG, ICO or ICNS file, in order."""
    found = []
    start = blob.find(PNG_MAGIC)
    while start != -1:
        end = blob.find(b"IEND", start) + 8  # chunk type + CRC
        found.append(blob[start:end])
        start = blob.find(PNG_MAGIC, end)
    return found


def _same_pixels(a: bytes, b: bytes) -> bool:
    first, second = QImage.fromData(a), QImage.fromData(b)
    if first.isNull() or second.isNull() or first.size() != second.size():
        return False
    first = first.convertToFormat(QImage.Format.Format_RGBA8888)
    second = second.convertToFormat(QImage.Format.Format_RGBA8888)
    one, two = bytes(first.constBits()), bytes(second.constBits())
    return all(abs(x - y) <= PIXEL_TOLERANCE for x, y in zip(one, two, strict=True))


def matches(committed: bytes, fresh: bytes) -> bool:
    """Same bytes, or the same images pixel by pixel within the tolerance."""
    if committed == fresh:
        return True
    old, new = _pngs_in(committed), _pngs_in(fresh)
    if not new or len(old) != len(new):
        return False
    # ICO/ICNS headers hold the payload sizes, which may differ; compare the images only
    return all(_same_pixels(x, y) for x, y in zip(old, new, strict=True))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    stale = []
    for path, blob in outputs().items():
        if check:
            if not path.exists() or not matches(path.read_bytes(), blob):
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        print(f"wrote {path.relative_to(ROOT)} ({len(blob)} bytes)")
    if stale:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
        print("run: python scripts/make_icons.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
