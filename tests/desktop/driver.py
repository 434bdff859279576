"""Drive the real app on a real X server: xdotool for input, xclip for the clipboard.

Nothing here talks to Qt. Keys, typing, clicks and the wheel go through the X server
(XTEST) to the window the window manager made active, exactly as a user's do; results
come back through the X CLIPBOARD (Ctrl+C) and screenshots (ImageMagick's ``import``).
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (1280, 900)
TOOLS = ("Xvfb", "openbox", "xdotool", "xclip", "xprop", "xwininfo", "import", "convert")
APT_PACKAGES = "xvfb openbox xdotool xclip x11-utils imagemagick"

# On the clipboard before each copy: still there afterwards means nothing was copied.
SENTINEL = "<<nothing copied>>"
# How long a copy may take to land, and how long "nothing copied" is waited for.
COPY_TIMEOUT = 3.0
NOTHING_COPIED_WAIT = 0.8

# Every mnemonic the tests press (Alt + the underlined letter), in one place. From
# resources/i18n/gradacc_pt_BR.ts (Portuguese) and the tr() sources (English). When a
# label's mnemonic changes, change it here.
MNEMONICS: dict[str, dict[str, str]] = {
    "pt_BR": {
        # calculator: "Tamanho do &micro-lote", "&Passos de acumulação",
        # "&GPUs em paralelismo de dados", "Ati&vação por amostra", "&Copiar resultados"
        "micro_batch": "m",
        "accumulation_steps": "p",
        "gpus": "g",
        "activation": "v",
        "copy_results": "c",
        # the training description beside the planner, the trainer configs and the chart:
        # "Mo&delo", "Comprimento da se&quência", "Lote &efetivo alvo",
        # "Tamanho do &micro-lote", "&Recomendar", "&GPUs em paralelismo de dados",
        # "Toke&ns de treino", "Paralelismo de &tensor", "Estágio &ZeRO",
        # "Ati&vação por amostra", "&Outra memória por GPU"
        "model": "d",
        "seq_len": "q",
        "target_batch": "e",
        "plan_micro_batch": "m",
        "recommend": "r",
        "tokens": "n",
        "tensor_parallel": "t",
        "zero": "z",
        "plan_activation": "v",
        "other_memory": "o",
        # "Produtos de matrizes em FP&8", "&Banda entre GPUs (GB/s)"
        "fp8": "8",
        "link": "b",
        # planner: "Encontrar a mel&hor configuração", "Usar a configuração se&lecionada",
        # "Usar este &par"
        "find_best": "h",
        "use_selected": "l",
        "use_fastest": "p",
        # trainer configs: "E&xportar como", "Co&piar arquivo"
        "export_format": "x",
        "copy_file": "p",
        # "&Salvar arquivos…"
        "save_files": "s",
        # menus: "&Arquivo", "&Idioma", "Aj&uda"
        "file_menu": "a",
        "language_menu": "i",
        "help_menu": "u",
    },
    "en": {
        "micro_batch": "m",
        "accumulation_steps": "a",
        "gpus": "g",
        "activation": "v",
        "copy_results": "c",
        "model": "d",
        "seq_len": "q",
        "target_batch": "e",
        "plan_micro_batch": "m",
        "recommend": "r",
        "tokens": "n",
        "tensor_parallel": "t",
        "zero": "z",
        "plan_activation": "v",
        "other_memory": "o",
        # "FP&8 matrix products", "L&ink between GPUs (GB/s)"
        "fp8": "8",
        "link": "i",
        # "Find the &best setup", "Use the &selected setup", "Use this p&air"
        "find_best": "b",
        "use_selected": "s",
        "use_fastest": "a",
        "export_format": "x",
        "copy_file": "y",
        # "&Save files…"
        "save_files": "s",
        "file_menu": "f",
        "language_menu": "l",
        "help_menu": "h",
    },
}

# The Language menu's items: each language's own name with its first letter underlined
# ("&Português (Brasil)", "&English"), the same in both interface languages.
LANGUAGE_ITEMS = {"pt_BR": "p", "en": "e"}

# Labels of the copied calculator results (the text before ": ").
RESULT_LABELS: dict[str, dict[str, str]] = {
    "pt_BR": {
        "micro_batch": "Tamanho do micro-lote",
        "accumulation_steps": "Passos de acumulação",
        "gpus": "GPUs em paralelismo de dados",
        "activation": "Ativação por amostra",
        "effective_batch": "Tamanho de lote efetivo",
        "peak_memory": "Pico de memória de ativação por GPU",
    },
    "en": {
        "micro_batch": "Micro-batch size",
        "accumulation_steps": "Accumulation steps",
        "gpus": "Data-parallel GPUs",
        "activation": "Activation per sample",
        "effective_batch": "Effective batch size",
        "peak_memory": "Peak activation memory per GPU",
    },
}

Region = tuple[int, int, int, int]  # x, y, width, height in screen pixels


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


# -- reading copied text ------------------------------------------------------------
def parse_results(text: str) -> dict[str, str]:
    """Copied results as ``{label: value}``: every ``Label: value`` line, the rest ignored.

    New lines (an "Amostras por GPU" line, say) simply become new keys.
    """
    rows: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(": ")
        if sep and label.strip() and not label[0].isspace():
            rows[label.strip()] = value.strip()
    return rows


def plain_number(text: str | None, lang: str) -> str | None:
    """A field's text as a bare number: no unit, no digit grouping.

    "1.234,5 GB", "1 234,5" and "1234,5" are the same number in Portuguese; "1,234"
    is not (a comma is its decimal separator), so it stays as it is.
    """
    if text is None:
        return None
    text = re.sub(r"\s*GB$", "", text.strip())
    group = re.escape("." if lang == "pt_BR" else ",")
    return re.sub(rf"(?<=\d)[{group}\u00a0\u202f ](?=\d{{3}}(?!\d))", "", text)


@dataclass(frozen=True)
class Results:
    """The calculator's copied results, looked up by the names of ``RESULT_LABELS``."""

    lang: str
    text: str

    @property
    def rows(self) -> dict[str, str]:
        return parse_results(self.text)

    def __getitem__(self, name: str) -> str:
        label = RESULT_LABELS[self.lang][name]
        for key, value in self.rows.items():
            # a label may grow a tail such as " (b)"; the name is its start
            if key == label or key.startswith(label + " "):
                return value
        raise KeyError(f"{label!r} is not in the copied results:\n{self.text}")


# -- the X server ---------------------------------------------------------------------
class XServer:
    """Xvfb on a free display (``-displayfd``) with openbox managing its windows."""

    def __init__(self, workdir: Path, screen: tuple[int, int] = SCREEN) -> None:
        self.workdir = workdir
        self.screen = screen
        self.display = ""
        self._xvfb: subprocess.Popen[bytes] | None = None
        self._wm: subprocess.Popen[bytes] | None = None
        self._logs: list[IO[bytes]] = []

    def env(self) -> dict[str, str]:
        """This machine's environment on this display, without Qt or XDG settings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "XDG_"))}
        for name in (
            "WAYLAND_DISPLAY",
            "XAUTHORITY",
            "SESSION_MANAGER",
            "DBUS_SESSION_BUS_ADDRESS",
        ):
            env.pop(name, None)
        env.update(DISPLAY=self.display, HOME=str(self.workdir / "home"))
        return env

    def _log(self, name: str) -> IO[bytes]:
        log = open(self.workdir / name, "wb")  # noqa: SIM115 - closed in stop()
        self._logs.append(log)
        return log

    def start(self) -> XServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "home").mkdir(exist_ok=True)
        read_fd, write_fd = os.pipe()
        width, height = self.screen
        self._xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{width}x{height}x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ],
            pass_fds=(write_fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log("xvfb.log"),
        )
        os.close(write_fd)
        number = b""
        deadline = time.monotonic() + 20
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            # Xvfb writes "N\n" once it accepts clients, or closes the pipe if it fails
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                if select.select([pipe], [], [], 0.1)[0]:
                    chunk = pipe.read(1)
                    if not chunk:
                        break
                    number += chunk
        if not number.strip():
            self.stop()
            raise RuntimeError(f"Xvfb reported no display; see {self.workdir / 'xvfb.log'}")
        self.display = ":" + number.decode().strip()

        # A window manager: without one no window ever becomes active and keys go nowhere.
        rc = self.workdir / "openbox-rc.xml"
        rc.write_text(OPENBOX_RC, encoding="utf-8")
        self._wm = subprocess.Popen(
            ["openbox", "--sm-disable", "--config-file", str(rc)],
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log("openbox.log"),
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # running once it announces itself (EWMH)
            check = subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"],
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=10,
            )
            if "window id" in check.stdout:
                return self
            if self._wm.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"openbox did not start; see {self.workdir / 'openbox.log'}")

    def stop(self) -> None:
        for proc in (self._wm, self._xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._wm = self._xvfb = None
        for log in self._logs:
            log.close()
        self._logs.clear()


# openbox with focus for new windows, click to focus, and no key bindings of its own
# (so every key reaches the app). The default rc.xml binds Alt+Space, Alt+Tab, etc.
OPENBOX_RC = """<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy></placement>
  <desktops><number>1</number></desktops>
  <keyboard></keyboard>
  <mouse>
    <context name="Client">
      <mousebind button="Left" action="Press">
        <action name="Focus"/><action name="Raise"/>
      </mousebind>
    </context>
    <context name="Titlebar">
      <mousebind button="Left" action="Press">
        <action name="Focus"/><action name="Raise"/>
      </mousebind>
    </context>
  </mouse>
</openbox_config>
"""


def app_command() -> list[str]:
    """The source app through the project's venv, or the bundle named by GRADACC_BUNDLE."""
    bundle = os.environ.get("GRADACC_BUNDLE")
    if bundle:
        return [str(Path(bundle).resolve())]
    venv_python = ROOT / ".venv" / "bin" / "python"
    python = venv_python if venv_python.exists() else Path(sys.executable)
    return [str(python), "-m", "gradacc_desktop"]


# -- the app ----------------------------------------------------------------------------
@dataclass
class App:
    """One running instance of the app in a throwaway home, driven only through X."""

    server: XServer
    lang: str
    home: Path
    shots: Path
    command: list[str] = field(default_factory=app_command)
    proc: subprocess.Popen[bytes] | None = None
    window: str = ""
    _log: IO[bytes] | None = None
    _shot_count: int = 0

    # -- life cycle -----------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = self.server.env()
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / "config"),
            XDG_DATA_HOME=str(self.home / "data"),
            XDG_CACHE_HOME=str(self.home / "cache"),
            QT_QPA_PLATFORM="xcb",
            NO_AT_BRIDGE="1",
        )
        return env

    def start(self, timeout: float = 40) -> App:
        self.home.mkdir(parents=True, exist_ok=True)
        self.shots.mkdir(parents=True, exist_ok=True)
        self._log = open(self.home / "app.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [*self.command, "--lang", self.lang],
            env=self.env(),
            cwd=self.home,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while not self.window:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the app exited with {self.proc.returncode}:\n{self.output()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the app's window never appeared:\n{self.output()}")
            found = self._xdotool(
                "search", "--onlyvisible", "--pid", str(self.proc.pid), check=False
            ).split()
            if found:
                self.window = found[-1]
            else:
                time.sleep(0.05)
        self._xdotool("windowactivate", "--sync", self.window)
        self.wait_ready(deadline)
        return self

    def wait_ready(self, deadline: float) -> None:
        """Ready when a key press gets an answer: Ctrl+C puts something on the clipboard."""
        while time.monotonic() < deadline:
            if self.active_window() != self.window:
                self._xdotool("windowactivate", "--sync", self.window, check=False)
            if self.copy() is not None:
                return
        raise RuntimeError(f"the app never answered a key press:\n{self.output()}")

    def crash_log(self) -> str:
        """What the app's crash handler logged (an "unexpected error" dialog), if anything:
        the log's ERROR records with their tracebacks (INFO and WARNING lines are normal)."""
        text = "".join(
            path.read_text(errors="replace") for path in self.home.rglob("gradacc-desktop.log")
        )
        records = re.split(r"(?m)^(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ )", text)
        return "".join(r for r in records if re.match(r"\S+ \S+ (ERROR|CRITICAL) ", r))

    def output(self) -> str:
        path = self.home / "app.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_exit(self, timeout: float) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            if self.wait_exit(5) is None:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- keys, typing, mouse -------------------------------------------------------
    def _tool(self, tool: str, *args: str, check: bool = True) -> str:
        """The output of an X tool run on this server (xdotool, xwininfo, xprop)."""
        result = subprocess.run(
            [tool, *args], env=self.env(), capture_output=True, text=True, timeout=60
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def _xdotool(self, *args: str, check: bool = True) -> str:
        return self._tool("xdotool", *args, check=check)

    def key(self, *keys: str) -> None:
        """Press keys in turn, e.g. ``key("ctrl+a", "Tab")`` (X keysym names)."""
        self._xdotool("key", "--delay", "25", *keys)

    def type(self, text: str) -> None:
        self._xdotool("type", "--delay", "25", text)

    def mnemonic(self, name: str) -> None:
        """Alt + the underlined letter of ``name`` in the current language (MNEMONICS)."""
        self.key("alt+" + MNEMONICS[self.lang][name])

    def press_button(self, name: str) -> None:
        """A button's or check box's mnemonic; Qt clicks it after a short animation."""
        self.mnemonic(name)
        time.sleep(0.3)

    def type_into(self, name: str, text: str) -> None:
        """Go to field ``name``, select its text and type ``text`` over it."""
        self.mnemonic(name)
        self.key("ctrl+a")
        self.type(text)

    def paste_into(self, name: str, text: str) -> None:
        """Put ``text`` on the X clipboard, go to field ``name``, select all, Ctrl+V."""
        self.set_clipboard(text)
        self.mnemonic(name)
        self.key("ctrl+a", "ctrl+v")

    def field_text(self, name: str) -> str | None:
        """The text field ``name`` shows (select all, copy; the unit may be left out).

        None when nothing could be copied (a disabled field cannot take the focus).
        Leaves the cursor at the end, nothing selected.
        """
        self.mnemonic(name)
        self.key("ctrl+a")
        text = self.copy()
        self.key("End")
        return text

    def next_tab(self) -> None:
        """Ctrl+Tab: the next page of the main tabs (Ctrl+PgDown would step a spin box)."""
        self.key("ctrl+Tab")

    def previous_tab(self) -> None:
        self.key("ctrl+shift+Tab")

    def choose_language(self, lang: str) -> None:
        """Alt + the Idioma/Language menu's mnemonic, then the item's."""
        self.mnemonic("language_menu")
        self.key(LANGUAGE_ITEMS[lang])
        self.lang = lang

    def mouse_position(self) -> tuple[int, int]:
        out = self._xdotool("getmouselocation", "--shell")
        values = dict(line.split("=", 1) for line in out.split() if "=" in line)
        return int(values["X"]), int(values["Y"])

    def mouse_move(self, x: int, y: int) -> None:
        """Move the pointer to (x, y) on the screen."""
        # `mousemove --sync` to where the pointer already is waits ~15 s for a motion
        if self.mouse_position() != (x, y):
            self._xdotool("mousemove", "--sync", str(x), str(y))

    def click(self, x: int, y: int, button: int = 1) -> None:
        self.mouse_move(x, y)
        self._xdotool("click", str(button))

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.mouse_move(*start)
        self._xdotool("mousedown", "1")
        steps = 6
        for i in range(1, steps + 1):
            self.mouse_move(
                start[0] + (end[0] - start[0]) * i // steps,
                start[1] + (end[1] - start[1]) * i // steps,
            )
        self._xdotool("mouseup", "1")

    def wheel(self, clicks: int) -> None:
        """Turn the wheel where the pointer is: positive = down (button 5), negative = up."""
        button = "5" if clicks > 0 else "4"
        self._xdotool("click", "--repeat", str(abs(clicks)), "--delay", "60", button)

    def resize(self, width: int, height: int) -> tuple[int, int]:
        """Ask for a window size; returns the size the window took."""
        self._xdotool("windowsize", "--sync", self.window, str(width), str(height))
        time.sleep(0.3)  # let the layout settle before anything is measured or shot
        return self.geometry()[2:]

    def geometry(self) -> Region:
        """The window's inside on the screen (xwininfo: under openbox, `xdotool
        getwindowgeometry` adds the frame's offset a second time)."""
        out = self._tool("xwininfo", "-id", self.window)
        values = {
            key.strip(): value.strip()
            for key, _, value in (line.partition(":") for line in out.splitlines())
        }
        return (
            int(values["Absolute upper-left X"]),
            int(values["Absolute upper-left Y"]),
            int(values["Width"]),
            int(values["Height"]),
        )

    def window_name(self) -> str:
        return self._xdotool("getwindowname", self.window).strip()

    def icon_sizes(self) -> list[str]:
        """The sizes of the icon the window gives the window manager (_NET_WM_ICON)."""
        out = self._tool("xprop", "-id", self.window, "-notype", "_NET_WM_ICON", check=False)
        return re.findall(r"Icon \((\d+ x \d+)\)", out)

    def active_window(self) -> str:
        return self._xdotool("getactivewindow", check=False).strip()

    # -- clipboard ------------------------------------------------------------------
    def set_clipboard(self, text: str) -> None:
        """Own the X CLIPBOARD with ``text`` (xclip serves it until someone else copies)."""
        subprocess.run(
            ["xclip", "-selection", "clipboard", "-i"],
            input=text.encode(),
            env=self.env(),
            check=True,
            timeout=10,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 5
        while self.clipboard() != text:
            if time.monotonic() > deadline:
                raise RuntimeError("the X clipboard did not take the text")
            time.sleep(0.02)

    def clipboard(self) -> str | None:
        result = subprocess.run(
            ["xclip", "-selection", "clipboard", "-o", "-t", "UTF8_STRING"],
            env=self.env(),
            capture_output=True,
            timeout=10,
        )
        return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None

    def copy(self, *keys: str, wait: float = NOTHING_COPIED_WAIT) -> str | None:
        """Put the sentinel on the clipboard, press ``keys`` (Ctrl+C): the copied text,
        or None when the clipboard still holds the sentinel after ``wait`` seconds."""
        self.set_clipboard(SENTINEL)
        self.key(*(keys or ("ctrl+c",)))
        deadline = time.monotonic() + wait
        while True:
            text = self.clipboard()
            if text is not None and text != SENTINEL:
                # the owner changed: give a slow owner time to answer in full
                return text
            if time.monotonic() > deadline:
                active = self.active_window()
                if self.window and active and active != self.window:
                    name = self._xdotool("getwindowname", active, check=False).strip()
                    raise RuntimeError(f"keys go to another window: {name!r}\n{self.crash_log()}")
                return None
            time.sleep(0.03)

    def copy_results(self, *, deselect: bool = True) -> Results | None:
        """Ctrl+C with nothing selected: the current tab's results (None = nothing copied).

        ``deselect`` presses End first, which leaves a spin box's text unselected.
        """
        if deselect:
            self.key("End")
        text = self.copy()
        return None if text is None else Results(self.lang, text)

    # -- screenshots ------------------------------------------------------------------
    def screenshot(self, name: str, *, keep: bool = False) -> Path:
        """The whole screen as PNG in this test's directory; with GRADACC_SAVE_SCREENSHOTS=1
        and ``keep``, also as docs/desktop/<name>.png for a human to look at."""
        self._shot_count += 1
        path = self.shots / f"{self._shot_count:02d}-{name}.png"
        subprocess.run(
            ["import", "-window", "root", str(path)],
            env=self.env(),
            check=True,
            timeout=30,
            capture_output=True,
        )
        if keep and os.environ.get("GRADACC_SAVE_SCREENSHOTS") == "1":
            x, y, w, h = self.geometry()
            target = ROOT / "docs" / "desktop"
            target.mkdir(parents=True, exist_ok=True)
            # cropped to the window (with its frame's inner edge), not the empty screen
            subprocess.run(
                [
                    "convert",
                    str(path),
                    "-crop",
                    f"{w}x{h}+{x}+{y}",
                    "+repage",
                    str(target / f"{name}.png"),
                ],
                check=True,
                timeout=30,
            )
        return path

    def locate_field(self, name: str) -> tuple[int, int]:
        """Where field ``name`` is on the screen: its selected text versus no selection.

        Focuses the field (mnemonic), selects its text, shoots, deselects, shoots; the
        pixels that differ are the field's text. Returns their centre.
        """
        self.mnemonic(name)
        self.key("ctrl+a")
        time.sleep(0.2)
        selected = self.screenshot(f"locate-{name}-selected")
        self.key("End")
        time.sleep(0.2)
        plain = self.screenshot(f"locate-{name}-plain")
        region = changed_region(selected, plain)
        if region is None:
            raise RuntimeError(f"could not see field {name!r} (nothing changed on screen)")
        x, y, w, h = region
        return x + w // 2, y + h // 2


def changed_region(a: Path, b: Path) -> Region | None:
    """The bounding box of the pixels that differ between two screenshots, or None."""
    out = subprocess.run(
        [
            "convert",
            str(a),
            str(b),
            "-compose",
            "difference",
            "-composite",
            "-colorspace",
            "gray",
            "-threshold",
            "5%",
            "-format",
            "%@",
            "info:",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    match = re.fullmatch(r"(\d+)x(\d+)\+(-?\d+)\+(-?\d+)", out.strip())
    if match is None:
        return None
    w, h, x, y = (int(g) for g in match.groups())
    if w == 0 or h == 0:  # "0x0+W+H": no pixel differs
        return None
    return x, y, w, h
