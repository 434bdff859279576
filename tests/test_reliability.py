"""Crash handling, no network, a clean exit, and a long editing session."""

from __future__ import annotations

import gc
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtNetwork import QNetworkProxy, QNetworkProxyFactory, QNetworkProxyQuery, QTcpSocket
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from gradacc_desktop import crash, logs
from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import box, shown, type_into

ROOT = Path(__file__).resolve().parent.parent


def _isolated_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        PYTHONPATH=str(ROOT),
    )
    return env


def _run_python(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with ``args`` in an isolated home, offscreen."""
    return subprocess.run(
        [sys.executable, *args],
        env=_isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_unhandled_exception_is_logged_and_shown(window, app_log, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shown_boxes: list[QMessageBox] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown_boxes.append(self) or 0)
    handler = crash.CrashHandler()
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        handler(type(exc), exc, exc.__traceback__)
    log = app_log.read_text(encoding="utf-8")
    assert "RuntimeError: boom" in log
    assert len(shown_boxes) == 1
    dialog = shown_boxes[0]
    assert dialog.windowTitle() == "Erro inesperado"
    assert "Suas entradas foram mantidas" in dialog.text()
    assert "RuntimeError: boom" in dialog.informativeText()
    assert str(app_log) in dialog.informativeText()
    # the window is still there with the user's inputs
    assert window.isVisible()
    assert shown(window) == ("32", "2 GB")


def test_exception_in_a_slot_is_logged_by_the_running_app(tmp_path: Path) -> None:
    """Outside pytest, PySide6 hands a slot's exception to sys.excepthook: the app logs
    it, shows the dialog and keeps running."""
    script = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication, QMessageBox\n"
        "from gradacc_desktop import crash, logs\n"
        "from gradacc_desktop.app import configure_application, create_window\n"
        "app = QApplication(sys.argv[:1])\n"
        "configure_application(app)\n"
        "logs.setup_logging()\n"
        "crash.CrashHandler().install()\n"
        "shown = []\n"
        "QMessageBox.exec = lambda self: shown.append(self.text()) or 0\n"
        "window = create_window(app)\n"
        "def explode():\n"
        "    raise ValueError('slot failed')\n"
        "window.details.toggled.connect(explode)\n"
        "window.details.toggle.click()\n"
        "print('LOG', logs.log_path())\n"
        "print('SHOWN', len(shown))\n"
        "print('ALIVE', window.results.effective.value.text())\n"
    )
    result = _run_python(["-c", script], tmp_path)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["SHOWN"] == "1"
    assert lines["ALIVE"] == "32"
    log = Path(lines["LOG"]).read_text(encoding="utf-8")
    assert "ValueError: slot failed" in log
    assert str(tmp_path) in lines["LOG"]


def test_unwritable_log_still_shows_the_dialog(window, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(logs, "log_dir", lambda: blocker / "logs")
    assert logs.setup_logging() is None
    seen: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: seen.append(self.informativeText()) or 0)
    handler = crash.CrashHandler()
    exc = OSError("disk")
    try:
        handler(type(exc), exc, None)
    finally:
        logs.reset_logging()
    assert "Não foi possível gravar o arquivo de registro." in seen[0]


# -- no network -------------------------------------------------------------------------
# The app works offline and says so in its About box. Two checks back that up: the
# running app, traced by the kernel, opens no internet socket; and in this process,
# driving every tab and dialog, neither Qt nor Python is asked for a connection.


def _strace(
    command: list[str], tmp_path: Path, name: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run ``command`` under strace; its output, and every socket call and file it opened."""
    strace = shutil.which("strace")
    assert strace, "strace is not installed: apt-get install strace (.ci/run installs it)"
    trace = tmp_path / f"{name}.strace"
    result = subprocess.run(
        [
            strace,
            "-f",
            "-qq",
            "-o",
            str(trace),
            "-e",
            "trace=socket,connect,sendto,sendmsg,openat",
            *command,
        ],
        env=_isolated_env(tmp_path),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert trace.is_file(), f"strace did not run: {result.stderr}"
    return result, trace.read_text(encoding="utf-8")


def _internet_calls(trace: str) -> list[str]:
    """Socket calls on an internet (AF_INET or AF_INET6) socket. AF_UNIX ones (X11,
    D-Bus) and AF_NETLINK ones (the kernel's own) never leave the machine."""
    return [line for line in trace.splitlines() if "AF_INET" in line]


def _network_library_loads(trace: str) -> list[str]:
    return [
        line
        for line in trace.splitlines()
        if "openat(" in line and "Qt6Network" in line and " = -1 " not in line
    ]


@pytest.mark.skipif(sys.platform != "linux", reason="strace traces Linux system calls")
def test_the_running_app_opens_no_internet_socket(tmp_path: Path) -> None:
    # The trace sees a connection and Qt's network library where there are some.
    control, trace = _strace(
        [
            sys.executable,
            "-c",
            "import socket; socket.socket().connect_ex(('127.0.0.1', 9)); import PySide6.QtNetwork",
        ],
        tmp_path,
        "control",
    )
    assert control.returncode == 0, control.stderr
    assert any(line.split()[1].startswith("connect(") for line in _internet_calls(trace)), trace
    assert _network_library_loads(trace), trace

    # The app's own self-test: first paint, both languages, the clipboard, the planner,
    # the chart and the activation estimator.
    result, trace = _strace(
        [sys.executable, "-m", "gradacc_desktop", "--self-test"], tmp_path, "app"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("self-test OK"), result.stdout
    assert _internet_calls(trace) == []
    assert _network_library_loads(trace) == []  # nor does it load Qt's network library


class _RecordingProxyFactory(QNetworkProxyFactory):
    """Qt asks the application's proxy factory before each TCP connection and HTTP request
    to another host (QTcpSocket, QNetworkAccessManager, ...). This one notes each query and
    answers with a proxy on a closed local port, so nothing would leave the machine.
    Connections to the machine itself skip the factory: the strace check sees those."""

    def __init__(self, queries: list[str]) -> None:
        super().__init__()
        self._queries = queries

    def queryProxy(self, query: QNetworkProxyQuery) -> list[QNetworkProxy]:  # type: ignore[override]
        self._queries.append(f"{query.queryType().name} {query.url().toString()}")
        return [QNetworkProxy(QNetworkProxy.ProxyType.Socks5Proxy, "127.0.0.1", 9)]


def _close_when_shown(open_it: Callable[[], object]) -> str:
    """Open a blocking dialog, note its title once it is up, close it."""
    seen: list[str] = []

    def look() -> None:
        widget = QApplication.activeModalWidget()
        if widget is None:
            QTimer.singleShot(10, look)
            return
        seen.append(widget.windowTitle())
        widget.close()  # never leave the test blocked in the dialog's event loop

    QTimer.singleShot(0, look)
    open_it()
    assert seen, "the dialog never showed"
    return seen[0]


def _drive_every_tab_and_dialog(window: MainWindow, qtbot) -> list[str]:  # type: ignore[no-untyped-def]
    """Use each part of the app once; the titles of the blocking dialogs seen."""
    type_into(qtbot, box(window, Field.MICRO_BATCH), "12")
    window.menus.copy_action.trigger()
    window.details.set_open(True)
    estimator = window.open_activation_estimator()
    qtbot.waitUntil(estimator.isVisible)
    estimator.reject()

    window.tabs.setCurrentWidget(window.planner_page)
    training = window.training_vm
    training.set_choice(Choice.MODEL, "qwen2.5-0.5b")
    training.set_text(TrainingField.SEQ_LEN, "1024")
    training.set_text(TrainingField.TARGET, "1000")
    description = window.description
    for button in (description.states_details, description.card_speed):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        shown = [d for d in window.findChildren(QDialog) if d.isVisible()]
        assert len(shown) == 1
        shown[0].reject()
    qtbot.mouseClick(window.planner.search.run_button, Qt.MouseButton.LeftButton)
    window.menus.copy_action.trigger()
    window.tabs.setCurrentWidget(window.trainer_page)
    window.menus.copy_action.trigger()
    window.show_help()
    assert window.help_dialog is not None and window.help_dialog.isVisible()
    window.help_dialog.close()

    chart = window.show_chart()
    qtbot.waitUntil(chart.isVisible)
    window.menus.copy_action.trigger()

    titles = [
        _close_when_shown(window.menus.open_scenario_action.trigger),
        _close_when_shown(window.menus.save_scenario_action.trigger),
        _close_when_shown(window.menus.about_action.trigger),
        _close_when_shown(window.menus.about_qt_action.trigger),
    ]
    window.set_language("en")
    window.set_language("pt_BR")
    return titles


def test_driving_the_window_asks_neither_qt_nor_python_for_a_connection(  # type: ignore[no-untyped-def]
    make_window, qtbot, monkeypatch
) -> None:
    attempts: list[object] = []

    def refuse(self, address, *args, **kwargs):  # type: ignore[no-untyped-def]
        attempts.append(address)
        raise OSError("network disabled in tests")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: refuse(None, a))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: refuse(None, a))
    queries: list[str] = []
    factory = _RecordingProxyFactory(queries)  # referenced here while Qt uses it
    QNetworkProxyFactory.setApplicationProxyFactory(factory)
    try:
        window = make_window()
        titles = _drive_every_tab_and_dialog(window, qtbot)
        assert attempts == []
        assert queries == []
        # the hook was live all along: a connection of the test's own is seen
        probe = QTcpSocket()
        probe.connectToHost("192.0.2.1", 80)  # TEST-NET-1, and through the closed proxy
        probe.abort()
        assert queries == ["TcpSocket //192.0.2.1:80"]
    finally:
        QNetworkProxyFactory.setApplicationProxyFactory(None)  # Qt deletes ours
        assert not shiboken6.isValid(factory)
    assert titles == [  # every blocking dialog did open
        "Abrir cenário",
        "Salvar cenário",
        "Sobre a Calculadora de Memória de Acumulação de Gradiente",
        "Sobre o Qt",
    ]


def test_app_starts_and_exits_cleanly(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication(sys.argv[:1])\n"
        "QTimer.singleShot(400, app.quit)\n"
        "from gradacc_desktop.app import main\n"
        "sys.exit(main([]))\n"
    )
    result = _run_python(["-c", script], tmp_path)
    assert result.returncode == 0, result.stderr


def test_module_entry_point_reports_version(tmp_path: Path) -> None:
    result = _run_python(["-m", "gradacc_desktop", "--version"], tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("gradacc-desktop ")


@pytest.mark.parametrize("language", ["pt_BR"])
def test_soak_twenty_thousand_edits(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    """PySide6 6.12 on Python 3.11 leaked a reference to None per C++ call and aborted
    after a few thousand updates; a long session through the real window must stay alive
    and correct."""
    window = make_window(language=language)
    spins = [box(window, f) for f in (Field.MICRO_BATCH, Field.ACCUMULATION_STEPS, Field.GPUS)]
    activation = box(window, Field.ACTIVATION_GB)
    fields = (*spins, activation)
    texts = [field.text() for field in fields]
    computed: list[str] = []  # the effective batch of each state the view-model sends
    window.vm.stateChanged.connect(lambda state: computed.append(state.results.effective_batch))
    expected: list[str] = []
    gc.collect()
    none_refs = sys.getrefcount(None)
    for i in range(5_000):
        b, a, g = 1 + i % 97, 1 + i % 13, 1 + i % 5
        for k, text in enumerate((str(b), str(a), str(g), ("0,25", "0,5", "0,75")[i % 3])):
            fields[k].set_text(text)
            if text != texts[k]:  # a changed field: the view-model computes once
                texts[k] = text
                product = int(texts[0]) * int(texts[1]) * int(texts[2])
                expected.append(f"{product:,}".replace(",", "."))
        if i % 500 == 0:
            assert window.results.effective.value.text() == expected[-1]
    # One result per changed field (every one of the 20 000 edits but the first GPU
    # count, which was 1 already), each the product of the fields at that moment.
    assert len(computed) == 19_999
    assert computed == expected
    spins[0].set_text("4")
    spins[1].set_text("8")
    spins[2].set_text("1")
    activation.set_text("0,5 GB")
    assert shown(window) == ("32", "2 GB")
    # The leak dropped None's count by one per C++ call returning nothing — hundreds of
    # thousands here. Objects freed during the session may release a few thousand
    # legitimate references; an immortal None (3.12+) never moves.
    gc.collect()
    assert sys.getrefcount(None) >= none_refs - 10_000


def test_exit_after_opening_every_tab_is_clean(tmp_path: Path) -> None:
    """QtCharts has crashed at interpreter exit (PySide's teardown); main() deletes the
    window before returning, and a run that opened the chart must still exit 0."""
    script = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication(sys.argv[:1])\n"
        "def visit():\n"
        "    window = next(w for w in app.topLevelWidgets() if w.objectName() == 'main_window')\n"
        "    window.tabs.setCurrentIndex(1)\n"
        "    window.show_chart()\n"
        "    QTimer.singleShot(200, app.quit)\n"
        "QTimer.singleShot(300, visit)\n"
        "from gradacc_desktop.app import main\n"
        "sys.exit(main([]))\n"
    )
    for _ in range(3):
        result = _run_python(["-c", script], tmp_path)
        assert result.returncode == 0, result.stderr
