"""The export's file tabs show their names whole: Fusion's label rectangle cut the
underscore off "adapter_config.json", which then read "adapter config.json"."""

from __future__ import annotations

from PySide6.QtGui import QColor

from gradacc_desktop.ui.trainer.export import FileTabs

#: the frame's lines and the tab's rounded corners, left out of the text's pixels
EDGE = 4


def _lowest_ink(window, name: str) -> int:  # type: ignore[no-untyped-def]
    """The lowest row of the label of a file tab in the window that holds a dark pixel."""
    tabs = FileTabs(window.trainer.export)  # the window's font and style
    tabs.setDocumentMode(True)
    tabs.setExpanding(False)
    tabs.addTab("train.py")
    tabs.addTab(name)  # not the current tab: Fusion draws it lower
    tabs.resize(tabs.sizeHint())
    image = tabs.grab(tabs.tabRect(1)).toImage()
    rows = [
        y
        for y in range(EDGE, image.height() - EDGE)
        for x in range(EDGE, image.width() - EDGE)
        if QColor(image.pixel(x, y)).lightness() < 96
    ]
    assert rows, "no label drawn"
    return max(rows)


def test_the_underscore_of_a_file_name_is_drawn(window) -> None:  # type: ignore[no-untyped-def]
    # "aaa" has nothing below the baseline; the underscore lies below it
    assert _lowest_ink(window, "a_a") > _lowest_ink(window, "aaa")


def test_the_window_uses_them(window) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(window.trainer.export.files, FileTabs)
