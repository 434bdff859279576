"""Benchmarks for gradacc-desktop; writes docs/PERFORMANCE.md.

Run with ``make bench`` (runs this under xvfb-run when available, so Qt uses the
real xcb platform plugin), or directly::

    xvfb-run -a -s '-screen 0 1280x900x24' .venv/bin/python benchmarks/run.py [--runs 12]

Everything in docs/PERFORMANCE.md comes from the one run that writes it. The
bundle is measured when dist/ has one (``make bundle`` builds it; the run does not),
and the page says when it is older than the sources.

What is measured
* Start-up to first painted window: wall time from spawning the process to
  the first ``QEvent.Paint`` of the main window (not ``show()``), written by
  the process itself (``GRADACC_BENCH_PAINT_FILE``; the app does it in
  gradacc_desktop/startup_probe.py on its normal start-up path, the baseline
  in benchmarks/bare_app.py).
  Variants run alternately: the app and a bare QMainWindow with one QLabel,
  from source, and from their PyInstaller bundles when dist/ has the app's.
* Peak RSS of those same processes (``ru_maxrss`` from ``os.wait4``).
* One input change to repainted results, by two paths (benchmarks/input_latency.py):
  the micro-batch field's text set as typing sets it (``lineEdit().setText``), and
  key events (a digit, then Backspace) -> the effective-batch label's text has
  changed -> ``processEvents()`` (which runs the repaint), over --changes changes.
* Bundle size (with a bundle): the onedir folder and its tar.gz, app vs a bare
  QMainWindow app frozen with PyInstaller's defaults (``--windowed`` only); with
  --unpruned also the app's spec without pruning (another PyInstaller build).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "bench"
APP_BUNDLE = ROOT / "dist" / "gradacc-desktop" / "gradacc-desktop"
BARE_BUNDLE = BUILD / "dist" / "bare-qmainwindow" / "bare-qmainwindow"
OUT = ROOT / "docs" / "PERFORMANCE.md"
PAINT_ENV = "GRADACC_BENCH_PAINT_FILE"


# The goals of issue "Fast to start, quick to type" (ratios: app / bare window).
STARTUP_GOAL = 1.15
RSS_GOAL = 1.10
# The goals of issue "A window that fits the screens people have" (app / skeleton).
SKELETON_STARTUP_GOAL = 1.10
SKELETON_RSS_GOAL = 1.05
P99_GOAL_MS = 1.0
MAX_GOAL_MS = 4.0
BUNDLE_SIZE_GOAL = 0.75


# -- helpers -------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def tree_size(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
    return total


def tgz_size(folder: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "a.tar.gz"
        with tarfile.open(out, "w:gz", compresslevel=6) as tf:
            tf.add(folder, arcname=folder.name)
        return out.stat().st_size


def build_bare_bundle() -> None:
    if BARE_BUNDLE.exists():
        return
    print("building the bare QMainWindow bundle (PyInstaller defaults, --windowed) ...")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "ERROR",
            "--windowed",
            "--name",
            "bare-qmainwindow",
            "--distpath",
            str(BUILD / "dist"),
            "--workpath",
            str(BUILD / "work"),
            "--specpath",
            str(BUILD),
            str(BENCH / "bare_app.py"),
        ],
        check=True,
    )


def build_unpruned_app() -> Path:
    """The app frozen with the same spec but GRADACC_BUNDLE_PRUNE=0 / no strip (sizes only)."""
    exe = BUILD / "unpruned" / "dist" / "gradacc-desktop" / "gradacc-desktop"
    if not exe.exists():
        print("building the app bundle without pruning (for the size comparison) ...")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "PyInstaller",
                "--noconfirm",
                "--log-level",
                "ERROR",
                "--distpath",
                str(exe.parent.parent),
                "--workpath",
                str(BUILD / "unpruned" / "work"),
                str(ROOT / "packaging" / "gradacc-desktop.spec"),
            ],
            check=True,
            env=dict(os.environ, GRADACC_BUNDLE_PRUNE="0", GRADACC_BUNDLE_STRIP="0"),
        )
    return exe


BARE_AT_APP_SIZE = "bare at the app's window size (1100×780), source"
SKELETON = "the app's first window without the app (skeleton), source"
APP_WINDOW_SIZE = "1100x780"  # the main window's first size (ui/window_persistence.py)


def start_once(cmd: list[str]) -> tuple[float, float]:
    """Seconds from spawn to first paint, and peak RSS in bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        stamp_file = Path(tmp) / "paint"
        # a fresh home: default settings, nothing remembered between runs
        env = dict(
            os.environ,
            HOME=tmp,
            XDG_CONFIG_HOME=str(Path(tmp) / "config"),
            XDG_DATA_HOME=str(Path(tmp) / "data"),
            **{PAINT_ENV: str(stamp_file)},
        )
        if cmd[-1] == "--app-size":
            cmd = cmd[:-1]
            env["GRADACC_BENCH_BARE_SIZE"] = APP_WINDOW_SIZE
        # users' interpreters cache bytecode; measuring recompilation would be unfair
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        t0 = time.time()
        proc = subprocess.Popen(
            cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0 or not stamp_file.exists():
            raise RuntimeError(f"{cmd[0]} exited {proc.returncode} without a paint stamp")
        painted = float(stamp_file.read_text().strip())
        rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        return painted - t0, float(rss)


def input_latency(changes: int, method: str, platform: str) -> dict[str, float | str]:
    """Run benchmarks/input_latency.py in a fresh process on Qt's ``platform`` plugin
    (xcb: the X server this run has; offscreen: no window system); returns its numbers."""
    out = subprocess.run(
        [sys.executable, str(BENCH / "input_latency.py"), str(changes), method],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, QT_QPA_PLATFORM=platform),
    ).stdout
    values: dict[str, float | str] = {}
    for line in out.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            try:
                values[key.strip()] = float(value)
            except ValueError:
                values[key.strip()] = value.strip()
    return values


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    from PySide6 import QtCore
    from PySide6 import __version__ as pyside_version

    try:
        import PyInstaller

        pyi = PyInstaller.__version__
    except ImportError:
        pyi = "not installed"
    from gradacc_desktop import __version__ as app_version

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "os": platform.platform(),
        "cpu": f"{cpu}, {os.cpu_count()} logical cores",
        "ram": ram or "?",
        "python": platform.python_version(),
        "pyside": f"PySide6-Essentials {pyside_version}, Qt {QtCore.qVersion()}",
        "pyinstaller": pyi,
        "app": app_version,
        "qpa": os.environ.get("QT_QPA_PLATFORM")
        or ("xcb (Xvfb)" if os.environ.get("DISPLAY") else "default"),
    }


def bundle_is_stale() -> bool:
    """Whether a source file or catalogue is newer than the app's bundle."""
    built = APP_BUNDLE.stat().st_mtime
    sources = [*(ROOT / "gradacc_desktop").rglob("*.py"), *(ROOT / "resources").rglob("*")]
    return any(p.is_file() and p.stat().st_mtime > built for p in sources)


def goals_table(
    times: dict[str, list[float]],
    rss: dict[str, list[float]],
    latencies: dict[str, dict[str, float | str]],
    sizes: dict[str, tuple[int, int]],
    searches: Sequence[tuple[str, int, int, int, str, float, float]] = (),
    pair_worst: Sequence[tuple[str, float]] = (),
) -> list[str]:
    """Each goal of the issue against this run's medians, as a table and in words."""
    rows: list[tuple[str, str, str, bool]] = []

    def ratio_row(label: str, app: float, bare: float, goal: float) -> None:
        value = app / bare
        rows.append((label, f"{value:.2f}×", f"≤ {goal:.2f}×", value <= goal))

    med = statistics.median
    for where in ("source", "bundle"):
        if f"app, {where}" in times:
            ratio_row(
                f"start-up to first paint, {where} (app / bare)",
                med(times[f"app, {where}"]),
                med(times[f"bare, {where}"]),
                STARTUP_GOAL,
            )
            ratio_row(
                f"peak RSS, {where} (app / bare)",
                med(rss[f"app, {where}"]),
                med(rss[f"bare, {where}"]),
                RSS_GOAL,
            )
    if SKELETON in times:
        ratio_row(
            "start-up to first paint, source (app / skeleton)",
            med(times["app, source"]),
            med(times[SKELETON]),
            SKELETON_STARTUP_GOAL,
        )
        ratio_row(
            "peak RSS, source (app / skeleton)",
            med(rss["app, source"]),
            med(rss[SKELETON]),
            SKELETON_RSS_GOAL,
        )
    for path, latency in latencies.items():
        p99, worst = float(latency["p99_ms"]), float(latency["max_ms"])
        rows.append(
            (f"input change to repaint ({path}), p99", f"{p99:.2f} ms", f"≤ {P99_GOAL_MS:g} ms",
             p99 <= P99_GOAL_MS)
        )  # fmt: skip
        rows.append(
            (f"input change to repaint ({path}), max", f"{worst:.2f} ms", f"≤ {MAX_GOAL_MS:g} ms",
             worst <= MAX_GOAL_MS)
        )  # fmt: skip
    for label, worst in pair_worst:
        rows.append((label, f"{worst:.2f} ms", "≤ 16 ms", worst <= 16.0))
    for world, goal in ((8, 50.0), (1024, 500.0)):
        slowest = [row[6] for row in searches if row[2] == world]
        if slowest:
            worst = max(slowest)
            rows.append(
                (f"find the best setup, {world} GPUs (max)", f"{worst:.1f} ms", f"≤ {goal:.0f} ms",
                 worst <= goal)
            )  # fmt: skip
    app_size = sizes.get("app (pruned, stripped: the shipped bundle)")
    bare_size = sizes.get("bare QMainWindow, PyInstaller defaults")
    if app_size and bare_size:
        for i, what in enumerate(("folder", "archive")):
            ratio_row(
                f"bundle {what} (app / default bare)", app_size[i], bare_size[i], BUNDLE_SIZE_GOAL
            )
    met = [m for m, _v, _g, ok in rows if ok]
    missed = [(m, v, g) for m, v, g, ok in rows if not ok]
    out = ["", "## Goals", ""]
    if SKELETON in times:
        floor_time = med(times[SKELETON]) / med(times["bare, source"])
        floor_rss = med(rss[SKELETON]) / med(rss["bare, source"])
        app_time = med(times["app, source"]) / med(times[SKELETON])
        app_rss = med(rss["app, source"]) / med(rss[SKELETON])
        below = [
            what
            for what, floor, goal in (
                ("start-up", floor_time, STARTUP_GOAL),
                ("peak RSS", floor_rss, RSS_GOAL),
            )
            if floor > goal
        ]
        out += [
            f"The floor: the app's first window built by PySide6 alone, without any of the "
            f"app's code (benchmarks/skeleton_app.py), takes {floor_time:.2f}× the bare "
            f"window's start-up and {floor_rss:.2f}× its peak RSS; the app takes "
            f"{app_time:.2f}× and {app_rss:.2f}× the skeleton's. "
            + (
                f"The {' and '.join(below)} goal{'s are' if len(below) > 1 else ' is'} below "
                "that floor on this machine: no start-up work of the app's can meet "
                f"{'them' if len(below) > 1 else 'it'} with this window."
                if below
                else "The goals are above that floor."
            ),
            "",
        ]
    if missed:
        out.append(
            f"This run meets {len(met)} of the {len(rows)} goals and misses {len(missed)}: "
            + "; ".join(f"{m} is {v} (goal {g})" for m, v, g in missed)
            + "."
        )
    else:
        out.append(f"This run meets all {len(rows)} goals.")
    out += ["", "| measure | this run | goal | |", "| --- | ---: | ---: | --- |"]
    out += [f"| {m} | {v} | {g} | {'met' if ok else 'missed'} |" for m, v, g, ok in rows]
    return out


# -- main ----------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12, help="start-ups per variant (>= 10)")
    parser.add_argument("--changes", type=int, default=2000, help="input changes (>= 1000)")
    parser.add_argument("--no-bundle", action="store_true", help="skip the frozen variants")
    parser.add_argument(
        "--unpruned", action="store_true", help="also build and size the unpruned bundle"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    info = machine()  # first: a later step may set QT_QPA_PLATFORM for its own use
    with_bundle = not args.no_bundle and APP_BUNDLE.exists()
    if not args.no_bundle and not with_bundle:
        print(f"no bundle at {APP_BUNDLE}: measuring from source only (make bundle)")

    variants: dict[str, list[str]] = {
        "app, source": [sys.executable, "-m", "gradacc_desktop"],
        "bare, source": [sys.executable, str(BENCH / "bare_app.py")],
        # not a goal's baseline: how much of the difference the window's size is
        BARE_AT_APP_SIZE: [sys.executable, str(BENCH / "bare_app.py"), "--app-size"],
        # not a goal's baseline either: the same widgets built by PySide6 alone, the floor
        # no start-up work of the app's can go below (benchmarks/skeleton_app.py)
        SKELETON: [sys.executable, str(BENCH / "skeleton_app.py")],
    }
    if with_bundle:
        build_bare_bundle()
        variants["app, bundle"] = [str(APP_BUNDLE)]
        variants["bare, bundle"] = [str(BARE_BUNDLE)]

    # one warm-up each (page cache), not recorded
    for cmd in variants.values():
        start_once(cmd)
    times: dict[str, list[float]] = {k: [] for k in variants}
    rss: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for i in range(args.runs):
        order = names[i % len(names) :] + names[: i % len(names)]  # rotate the order
        for name in order:
            t, r = start_once(variants[name])
            times[name].append(t)
            rss[name].append(r)
        print(f"start-up round {i + 1}/{args.runs} done", flush=True)

    # on the X server when there is one (the real window system), and offscreen: the
    # app's own work without a server to wait for (the two tell apart where time goes)
    platforms = (["xcb"] if os.environ.get("DISPLAY") else []) + ["offscreen"]
    latencies = {
        f"{what}, {platform}": input_latency(args.changes, method, platform)
        for platform in platforms
        for what, method in (("text set", "text"), ("key events", "keys"))
    }
    print(f"input latency: {latencies}", flush=True)
    import pair_times  # benchmarks/ is on sys.path when this script runs

    pair_rows, pair_vm_rows = pair_times.measure(), pair_times.measure_view_model()
    pairs_section = pair_times.markdown(pair_rows) + pair_times.markdown_view_model(pair_vm_rows)
    pair_worst = [
        ("every pair timed, core (max)", max(r[4] for r in pair_rows)),
        ("every pair timed through the view-models (max)", max(r[4] for r in pair_vm_rows)),
    ]
    import search_times

    searches = search_times.measure()
    pairs_section += "\n" + search_times.markdown(searches)

    sizes: dict[str, tuple[int, int]] = {}
    if with_bundle:
        bundles = [("app (pruned, stripped: the shipped bundle)", APP_BUNDLE)]
        if args.unpruned:
            bundles.append(("app, same spec without pruning or stripping", build_unpruned_app()))
        bundles.append(("bare QMainWindow, PyInstaller defaults", BARE_BUNDLE))
        for name, exe in bundles:
            folder = exe.parent
            sizes[name] = (tree_size(folder), tgz_size(folder))

    if with_bundle:
        bundle_note = f"{APP_BUNDLE.relative_to(ROOT)}" + (
            ", older than the sources: its numbers are not this code's (make bundle)"
            if bundle_is_stale()
            else ", built from these sources"
        )
    elif args.no_bundle:
        bundle_note = "not measured (--no-bundle)"
    else:
        bundle_note = "none in dist/: not measured (make bundle, then make bench)"
    lines = [
        "# Performance",
        "",
        "Generated by `make bench` (benchmarks/run.py); numbers from one machine, re-run",
        "to compare. The baseline is benchmarks/bare_app.py: a PySide6 QMainWindow with",
        "one QLabel.",
        "",
        "## Machine",
        "",
        f"- Date: {info['date']}",
        f"- OS: {info['os']}",
        f"- CPU: {info['cpu']}; RAM: {info['ram']}",
        f"- Python {info['python']}; {info['pyside']}; PyInstaller {info['pyinstaller']}",
        f"- gradacc-desktop {info['app']}; Qt platform plugin: {info['qpa']}",
        f"- Bundle: {bundle_note}",
        "",
        "## Start-up to first painted window",
        "",
        "Wall time from spawning the process to the first paint event of its main",
        f"window. {args.runs} runs per variant, variants alternated in rotating order",
        "after one unrecorded warm-up each. The app runs its normal start-up (argument",
        "parsing, QApplication, settings, translators) and then builds and shows the",
        "real main window (gradacc_desktop/startup_probe.py records the first paint:",
        "an event filter on the window alone, in both the app and the bare window).",
        "Two variants are not baselines: the bare window at the app's size (what size",
        "alone costs) and the skeleton (benchmarks/skeleton_app.py: the app's first",
        "window built by PySide6 alone, the floor no start-up work can go below).",
        "",
        "| variant | median | p25-p75 | min | max | spread (max-min) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in names:
        ts = [t * 1000 for t in times[name]]
        lines.append(
            f"| {name} | {statistics.median(ts):.0f} ms | "
            f"{percentile(ts, 0.25):.0f}-{percentile(ts, 0.75):.0f} ms | {min(ts):.0f} ms | "
            f"{max(ts):.0f} ms | {max(ts) - min(ts):.0f} ms |"
        )
    lines += [
        "",
        "## Peak memory (RSS)",
        "",
        "Peak resident set size of the same start-up runs (window shown and painted).",
        "",
        "| variant | median peak RSS |",
        "| --- | ---: |",
    ]
    for name in names:
        lines.append(f"| {name} | {mib(statistics.median(rss[name]))} |")
    lines += [
        "",
        "## One input change to repainted results",
        "",
        f"{args.changes} changes per path, each path in a fresh process (from source), on",
        "the X server (xcb) and offscreen (Qt's plugin without a window system: the app's",
        "own work, nothing to wait for), by two paths: the micro-batch field's text set as",
        "typing sets it",
        "(`lineEdit().setText()`), and key events to the field (a digit, then Backspace,",
        "through `QTest.keyClick`); each change waits until the effective-batch label's",
        "text changed, then `processEvents()` (which delivers the repaint). Beside the",
        "wall time: the CPU time the app's thread spent on each change, the CPU time of",
        "the slowest change, and how often the cyclic garbage collector ran.",
        "",
        "| path | median | p99 | max | CPU p99 | CPU max | slowest change's CPU | collections |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for path, latency in latencies.items():
        lines.append(
            f"| {path} | {float(latency['median_ms']):.3f} ms | "
            f"{float(latency['p99_ms']):.3f} ms | {float(latency['max_ms']):.3f} ms | "
            f"{float(latency['cpu_p99_ms']):.3f} ms | {float(latency['cpu_max_ms']):.3f} ms | "
            f"{float(latency['slowest_cpu_ms']):.3f} ms | {float(latency['collections']):.0f} |"
        )
    lines += ["", *pairs_section.rstrip("\n").split("\n")]
    if sizes:
        lines += [
            "",
            "## Bundle size",
            "",
            "Onedir folder (files, symlinks not counted twice) and the same folder as",
            "tar.gz (gzip level 6). The app's spec prunes what the app does not use (see",
            "packaging/gradacc-desktop.spec); the baseline uses PyInstaller's defaults.",
            "Which system libraries get bundled depends on the build host (e.g. the GTK3",
            "theme stack is collected only where GTK3 is installed), so compare sizes from",
            "one host.",
            "",
            "| bundle | folder | tar.gz |",
            "| --- | ---: | ---: |",
        ]
        for name, (folder_size, archive_size) in sizes.items():
            lines.append(f"| {name} | {mib(folder_size)} | {mib(archive_size)} |")
    lines += goals_table(times, rss, latencies, sizes, searches, pair_worst)
    findings = BENCH / "FINDINGS.md"
    if findings.exists():
        lines += ["", findings.read_text(encoding="utf-8").rstrip()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
