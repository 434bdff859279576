"""Start-up benchmark probe (``GRADACC_BENCH_PAINT_FILE``).

With the variable set, the app starts normally and, at the first paint event
of its main window, writes ``time.time()`` to that file and quits. The
benchmarks (benchmarks/run.py) time the real start-up path this way, from
source and from the bundle. Imported only when the variable is set.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

ENV = "GRADACC_BENCH_PAINT_FILE"


class FirstPaintProbe(QObject):
    def __init__(self, window: QWidget, path: str) -> None:
        super().__init__(window)
        self._window = window
        self._path = path
        self._done = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            not self._done
            and event.type() == QEvent.Type.Paint
            and isinstance(obj, QWidget)
            and obj.window() is self._window
        ):
            self._done = True
            stamp = time.time()
            with open(self._path, "w", encoding="utf-8") as handle:
                handle.write(f"{stamp!r}\n")
            QTimer.singleShot(0, QApplication.quit)
        return False


def install(app: QApplication, window: QWidget, path: str) -> None:
    app.installEventFilter(FirstPaintProbe(window, path))
