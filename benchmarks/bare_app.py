"""Baseline for the benchmarks: a bare PySide6 QMainWindow with one QLabel.

Run from source or frozen with PyInstaller defaults (benchmarks/run.py does
both). With GRADACC_BENCH_PAINT_FILE set, it writes ``time.time()`` of the
first paint event of its window to that file and quits, like the app's
start-up probe (gradacc_desktop/startup_probe.py).
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow


class _FirstPaint(QObject):
    def __init__(self, window: QMainWindow, path: str) -> None:
        super().__init__(window)
        self._window = window
        self._path = path
        self._done = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            not self._done
            and event.type() == QEvent.Type.Paint
            and hasattr(obj, "window")
            and obj.window() is self._window
        ):
            self._done = True
            stamp = time.time()
            with open(self._path, "w", encoding="utf-8") as fh:
                fh.write(f"{stamp!r}\n")
            QTimer.singleShot(0, QApplication.quit)
        return False


def main() -> int:
    app = QApplication(sys.argv)
    window = QMainWindow()
    window.setWindowTitle("bare")
    window.setCentralWidget(QLabel("Hello"))
    window.resize(400, 200)
    path = os.environ.get("GRADACC_BENCH_PAINT_FILE")
    if path:
        app.installEventFilter(_FirstPaint(window, path))
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
