"""Keeping a window's frame inside the screen it opens on: its size at most the screen's
available geometry less the room the window manager's frame takes (known only once the
window is shown), and its position inside that geometry."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

#: room a window manager's frame takes around a window (title bar, borders)
FRAME_ALLOWANCE = 48


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Resize ``window`` to ``width`` x ``height``, or less where its screen's available
    geometry (less the frame) is smaller, and move it inside that geometry."""
    screen = window.screen()
    if screen is None:
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    width = min(width, area.width() - FRAME_ALLOWANCE)
    height = min(height, area.height() - FRAME_ALLOWANCE)
    window.resize(max(width, window.minimumWidth()), max(height, window.minimumHeight()))
    x = min(max(window.x(), area.left()), area.right() - width - FRAME_ALLOWANCE // 2)
    y = min(max(window.y(), area.top()), area.bottom() - height - FRAME_ALLOWANCE)
    window.move(max(x, area.left()), max(y, area.top()))
