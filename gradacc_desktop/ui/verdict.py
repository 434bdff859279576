"""A yes/no verdict that never relies on colour alone: a symbol, words and a colour
chosen to stay readable on light and dark palettes."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QWidget

# (on a light background, on a dark background)
_GOOD = ("#1a7f37", "#7ee787")
_BAD = ("#b42318", "#ff8f87")

GOOD_MARK = "✔"
BAD_MARK = "✘"
#: no verdict: a figure it needs is not known
UNKNOWN_MARK = "?"


def verdict_colour(palette: QPalette, ok: bool) -> QColor:
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    light_variant, dark_variant = _GOOD if ok else _BAD
    return QColor(dark_variant if dark else light_variant)


class VerdictLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ok: bool | None = None
        self._text = ""
        font = self.font()
        font.setBold(True)
        self.setFont(font)
        self.setWordWrap(True)

    @property
    def ok(self) -> bool | None:
        return self._ok

    def set_verdict(self, ok: bool | None, text: str) -> None:
        """A verdict, or none (``ok`` None: shown in the text's own colour)."""
        self._ok, self._text = ok, text
        mark = UNKNOWN_MARK if ok is None else GOOD_MARK if ok else BAD_MARK
        self.setText(f"{mark} {text}")
        self.setAccessibleName(text)
        if ok is None:
            self.setPalette(QPalette())
        self._recolour()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._recolour()

    def _recolour(self) -> None:
        if self._ok is None:
            return
        palette = self.palette()
        colour = verdict_colour(palette, self._ok)
        if palette.color(QPalette.ColorRole.WindowText) != colour:
            palette.setColor(QPalette.ColorRole.WindowText, colour)
            self.setPalette(palette)
