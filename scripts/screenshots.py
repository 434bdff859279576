"""Regenerate the README screenshots from the real window (offscreen is fine).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--scale 2] [--out docs]

Writes, for pt and en: docs/screenshot-<lang>.png (calculator),
screenshot-planner-<lang>.png, screenshot-chart-<lang>.png and
screenshot-activation-<lang>.png (and, with --scale, -<scale>x variants for
checking high-DPI layout). Settings are not touched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--details", action="store_true", help="also shoot with details open")
    args = parser.parse_args()
    if args.scale != 1.0:
        os.environ["QT_SCALE_FACTOR"] = str(args.scale)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gradacc_desktop.app import configure_application, create_window
    from gradacc_desktop.viewmodels.settings import Settings

    app = QApplication(sys.argv[:1])
    configure_application(app)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.scale == 1.0 else f"-{args.scale:g}x"
    with tempfile.TemporaryDirectory() as tmp:
        for language in ("pt", "en"):
            store = QSettings(str(Path(tmp) / f"{language}.ini"), QSettings.Format.IniFormat)
            window = create_window(app, Settings(store), "pt_BR" if language == "pt" else "en")
            window.resize(1100, 780)
            window.show()
            app.processEvents()

            def shoot(widget, name: str) -> None:  # type: ignore[no-untyped-def]
                app.processEvents()
                widget.grab().save(str(args.out / f"{name}{suffix}.png"))

            shoot(window, f"screenshot-{language}")
            if args.details:
                window.details.set_open(True)
                shoot(window, f"screenshot-{language}-details")
                window.details.set_open(False)
            window.tabs.setCurrentIndex(1)
            shoot(window, f"screenshot-planner-{language}")
            window.show_chart()
            shoot(window, f"screenshot-chart-{language}")
            window.tabs.setCurrentIndex(0)
            dialog = window.open_activation_estimator()
            dialog.resize(980, 760)
            app.processEvents()
            shoot(dialog, f"screenshot-activation-{language}")
            dialog.reject()
            window.language.uninstall()
            window.close()
            window.deleteLater()
            app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
