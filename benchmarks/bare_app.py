"""Baseline for the benchmarks: a bare PySide6 QMainWindow with one QLabel.

Run from source or frozen with PyInstaller defaults (benchmarks/run.py does
both). With GRADACC_BENCH_PAINT_FILE set, it writes ``time.time()`` of the
first paint event of its window to that file and quits, through the app's own
probe (gradacc_desktop/startup_probe.py: PySide6 and the standard library only).
``GRADACC_BENCH_BARE_SIZE=WxH`` sets another window size (the app's, to tell what a
larger window costs by itself); the baseline is 400×200.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

from gradacc_desktop.startup_probe import show_measured


def main() -> int:
    app = QApplication(sys.argv)
    window = QMainWindow()
    window.setWindowTitle("bare")
    window.setCentralWidget(QLabel("Hello"))
    width, _, height = os.environ.get("GRADACC_BENCH_BARE_SIZE", "400x200").partition("x")
    window.resize(int(width), int(height))
    return show_measured(app, window)


if __name__ == "__main__":
    sys.exit(main())
