"""The first paint of a window: the one probe start-up, the self-test and the
benchmarks use.

``FirstPaintProbe`` is an event filter (on the application, or on the window
itself: a window is painted before its children) that notes the first paint
event of a window. ``after_first_paint`` runs start-up's deferred work (the log
file) once the window is on screen. With ``GRADACC_BENCH_PAINT_FILE`` set, the app starts
normally and ``stamp_first_paint`` writes ``time.time()`` to that file at the
first paint of its main window and quits: the benchmarks (benchmarks/run.py)
time the real start-up path this way, from source and from the bundle, and
``benchmarks/bare_app.py`` does the same for a bare PySide6 window. Imported
only when needed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

ENV = "GRADACC_BENCH_PAINT_FILE"


class FirstPaintProbe(QObject):
    """Calls ``on_paint(time.time())`` at the first paint event of ``window``."""

    def __init__(self, window: QWidget, on_paint: Callable[[float], None]) -> None:
        super().__init__(window)
        self._window = window
        self._on_paint = on_paint
        self.painted = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            not self.painted
            and event.type() == QEvent.Type.Paint
            and isinstance(obj, QWidget)
            and obj.window() is self._window
        ):
            self.painted = True
            self._on_paint(time.time())
        return False


def after_first_paint(window: QWidget, work: Callable[[], object]) -> FirstPaintProbe:
    """Run ``work`` once ``window`` has been painted for the first time (right after
    that paint, from the event loop). Only the window's own events are watched, and
    only until then."""

    def painted(_when: float) -> None:
        window.removeEventFilter(probe)
        QTimer.singleShot(0, work)

    probe = FirstPaintProbe(window, painted)
    window.installEventFilter(probe)
    return probe


def stamp_first_paint(app: QApplication, window: QWidget, path: str) -> FirstPaintProbe:
    """Write the time of ``window``'s first paint to ``path``, then quit the app.
    (``app``: the application that is quit; the filter sits on the window.)"""

    def stamp(when: float) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"{when!r}\n")
        window.removeEventFilter(probe)
        QTimer.singleShot(0, app.quit)

    probe = FirstPaintProbe(window, stamp)
    window.installEventFilter(probe)
    return probe


def show_measured(app: QApplication, window: QWidget) -> int:
    """Show ``window`` and run ``app``, stamping the first paint when ``ENV`` names a
    file (the benchmarks' baseline windows: benchmarks/bare_app.py, skeleton_app.py)."""
    path = os.environ.get(ENV)
    if path:
        stamp_first_paint(app, window, path)
    window.show()
    return app.exec()
