"""One input change to repainted results, in one process (from source).

Usage: python benchmarks/input_latency.py [CHANGES] [text|keys]
Prints key=value lines (method, changes, median_ms, p99_ms, max_ms, cpu_p99_ms, cpu_max_ms,
slowest_cpu_ms, collections) for benchmarks/run.py.

Each change, by one of two paths:

* ``text``: the "input_micro_batch" field's text is set as typing sets it
  (``lineEdit().setText``), a new number each time;
* ``keys``: one key event pair (press and release, with the shortcut override Qt
  sends first) to the field's line edit, alternately typing a digit and
  Backspace (``QTest.keyClick``);

then wait until the "result_effective_batch" label's text differs (processing
events only if the update is not synchronous), then ``processEvents()`` so the
repaint runs.

Beside each change's wall time it notes the CPU time this thread spent on it
(``time.thread_time``) and whether the cyclic collector ran: a change whose wall
time is well above its CPU time was waiting (for the X server, or for a core shared
with it), not working.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "xcb")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractSpinBox, QApplication

from gradacc_desktop.app import configure_application, create_window
from gradacc_desktop.ui.fit_label import FitLabel
from gradacc_desktop.viewmodels.settings import Settings


def main() -> int:
    changes = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    method = sys.argv[2] if len(sys.argv) > 2 else "text"
    if method not in ("text", "keys"):
        print(f"error: unknown method {method!r} (text or keys)", file=sys.stderr)
        return 2
    app = QApplication([sys.argv[0]])
    configure_application(app)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(QSettings(str(Path(tmp) / "b.ini"), QSettings.Format.IniFormat))
        window = create_window(app, settings, "pt_BR")
        # as app.main does once the window is built: typing is measured with the
        # collector in the state the running app has (create_window leaves it alone)
        gc.freeze()
        window.show()
        for _ in range(20):
            app.processEvents()
            time.sleep(0.01)
        spin = window.findChild(QAbstractSpinBox, "input_micro_batch")
        label = window.findChild(FitLabel, "result_effective_batch")
        if spin is None or label is None:
            print("error: input_micro_batch / result_effective_batch not found", file=sys.stderr)
            return 1
        # The measured path is the one typing takes: the field's text changes, the
        # view-model reads it and the results repaint.
        line = spin.lineEdit()
        if method == "keys":
            from PySide6.QtCore import Qt
            from PySide6.QtTest import QTest

            line.setText("4")
            line.end(False)

            def change(i: int) -> None:
                key = Qt.Key.Key_Backspace if i % 2 else Qt.Key.Key_7
                QTest.keyClick(line, key)
        else:

            def change(i: int) -> None:
                value = 2 + (i % 997)
                if str(value) == line.text():
                    value += 1
                line.setText(str(value))

        for _ in range(5):
            app.processEvents()
        samples: list[float] = []
        cpu: list[float] = []
        collections = [0]

        def collected(phase: str, _info: dict[str, int]) -> None:
            collections[0] += phase == "start"

        gc.callbacks.append(collected)
        for i in range(changes):
            before = label.text()
            t0 = time.perf_counter()
            c0 = time.thread_time()
            change(i)
            spins = 0
            while label.text() == before:
                app.processEvents()
                spins += 1
                if spins > 100_000:
                    print(f"error: results did not update ({method})", file=sys.stderr)
                    return 1
            app.processEvents()
            samples.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
        gc.callbacks.remove(collected)
        window.close()
        window.deleteLater()
        app.processEvents()
    ms = [s * 1000 for s in samples]
    cpu_ms = [s * 1000 for s in cpu]
    print(f"method={method}")
    print(f"changes={len(ms)}")
    print(f"median_ms={statistics.median(ms)}")
    print(f"p99_ms={sorted(ms)[int(0.99 * (len(ms) - 1))]}")
    print(f"max_ms={max(ms)}")
    print(f"cpu_p99_ms={sorted(cpu_ms)[int(0.99 * (len(cpu_ms) - 1))]}")
    print(f"cpu_max_ms={max(cpu_ms)}")
    print(f"slowest_cpu_ms={cpu_ms[ms.index(max(ms))]}")
    print(f"collections={collections[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
