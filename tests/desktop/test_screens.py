"""The window on the screens people have: on a 1366 x 768 laptop, a 1280 x 720 one and
an 800 x 600 screen the window opens with its frame inside the screen and stays inside
it on every tab, after a model is chosen and after a long config-check report (each pane
scrolls)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop.driver import App, XServer

SCREENS = [((1366, 768), "pt_BR"), ((1280, 720), "en"), ((800, 600), "en")]
#: openbox's title bar above the window's inside (the frame must fit too)
TITLE_BAR = 10


@pytest.fixture(params=SCREENS, ids=["1366x768-pt", "1280x720-en", "800x600-en"])
def small(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[App, int, int]]:
    (width, height), lang = request.param
    server = XServer(tmp_path / "x", screen=(width, height)).start()
    app = App(server, lang, home=tmp_path / "home", shots=tmp_path / "shots")
    try:
        yield app.start(), width, height
    finally:
        app.stop()
        server.stop()


def _inside(app: App, width: int, height: int) -> None:
    x, y, w, h = app.geometry()
    assert y >= TITLE_BAR, (x, y, w, h)  # the title bar is on the screen
    assert x >= 0 and x + w <= width, (x, y, w, h)
    assert y + h <= height, (x, y, w, h)  # the status bar is on the screen


def test_the_window_fits_the_screen_on_every_tab(small: tuple[App, int, int]) -> None:
    app, width, height = small
    _inside(app, width, height)
    for _ in range(4):  # every tab, the description beside the planner's and trainer's
        app.next_tab()
        time.sleep(0.5)
        _inside(app, width, height)
    app.next_tab()  # the planner again: a model chosen makes every card show
    time.sleep(0.5)
    app.mnemonic("model")
    app.type("llama 3.1 8b")  # the picker's filter, Enter picks
    time.sleep(0.3)
    app.key("Return")
    time.sleep(0.6)
    _inside(app, width, height)
    app.next_tab()  # the trainer's configs with the model's files
    time.sleep(0.6)
    _inside(app, width, height)
    app.screenshot(f"screen-{width}x{height}-{app.lang}", keep=True)
