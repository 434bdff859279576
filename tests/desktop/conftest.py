"""The desktop tier: the real app on Xvfb + openbox, driven through real X input.

Run with ``make test-desktop`` (it sets GRADACC_DESKTOP_TESTS=1). Without that variable
these files are not collected, so a bare ``pytest`` (the unit tier, offscreen) never
tries to drive an X server. GRADACC_BUNDLE=dist/gradacc-desktop/gradacc-desktop runs
the same scenarios against the built bundle; GRADACC_SAVE_SCREENSHOTS=1 also keeps the
screenshots meant for a human look in docs/desktop/.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.desktop.driver import APT_PACKAGES, App, XServer, app_command, missing_tools

if os.environ.get("GRADACC_DESKTOP_TESTS") != "1":
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def xserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    missing = missing_tools()
    if missing:
        pytest.fail(
            f"the desktop tier needs {', '.join(missing)}: apt-get install {APT_PACKAGES}",
            pytrace=False,
        )
    if not os.environ.get("GRADACC_BUNDLE") and not Path(app_command()[0]).exists():
        pytest.fail("no .venv: run `make test-desktop`", pytrace=False)
    server = XServer(tmp_path_factory.mktemp("xserver")).start()
    yield server
    server.stop()


StartApp = Callable[..., App]


@pytest.fixture
def start_app(xserver: XServer, tmp_path: Path) -> Iterator[StartApp]:
    """``start_app("pt_BR")``: the real app, fresh settings, its window active and ready."""
    apps: list[App] = []

    def start(lang: str = "pt_BR") -> App:
        n = len(apps)
        app = App(xserver, lang, home=tmp_path / f"home{n}", shots=tmp_path / "shots")
        apps.append(app)
        return app.start()

    yield start
    crashes = []
    for app in apps:
        app.stop()
        output = app.output().strip()
        if output:  # shown by pytest when the test failed
            print(f"--- app output ({app.home}) ---\n{output}")
        if app.crash_log():
            crashes.append(app.crash_log())
    if crashes:  # the app showed its "unexpected error" dialog: always a bug
        pytest.fail("the app logged an unexpected error:\n" + "\n".join(crashes), pytrace=False)


@pytest.fixture
def app(start_app: StartApp) -> App:
    return start_app("pt_BR")


@pytest.fixture
def app_en(start_app: StartApp) -> App:
    return start_app("en")
