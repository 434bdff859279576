"""A confirmation beside the control that acted ("✓ Copied", "✓ Saved in …"): where the
eye already is, readable for a few seconds, then gone. The status bar says it too (with
the details), for whoever looks there."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QWidget

from gradacc_desktop.ui.verdict import verdict_colour

#: how long a confirmation stays (a status-bar message stays five seconds)
SHOWN_MS = 6000


class Confirmation(QLabel):
    def __init__(self, parent: QWidget, name: str, shown_ms: int = SHOWN_MS) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(shown_ms)
        self._timer.timeout.connect(self.clear_message)
        palette = self.palette()
        palette.setColor(self.foregroundRole(), verdict_colour(palette, True))
        self.setPalette(palette)
        self.hide()

    def say(self, text: str) -> None:
        """Show ``text`` beside the control for ``SHOWN_MS`` (again from now if shown)."""
        self.setText(f"✓ {text}")
        self.setAccessibleName(text)
        self.show()
        self._timer.start()

    def clear_message(self) -> None:
        self._timer.stop()
        self.clear()
        self.hide()
