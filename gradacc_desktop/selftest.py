"""``gradacc-desktop --self-test``: prove that an installed or frozen app works.

Called by :func:`gradacc_desktop.app.main` after the ``QApplication`` exists, with
start-up's own ``create_window`` (so this module never imports ``app``).
It checks what a broken bundle typically loses (translations, Qt's own
catalogue, the SVG/ICO image plugins, icons, data files) and then drives the
real main window: first paint, the default example (32 and 2 GB), language
switch to English and back, copy to the clipboard and read it back.

Result: exit code 0, or 1 with a one-line reason. The line goes to stdout when
there is one (windowed Windows builds have ``sys.stdout = None``) and always to
``selftest.log`` in the app's log folder (``logs.log_dir``, next to the app's log).
The user's settings are never touched: the window gets a temporary INI store.

"""

from __future__ import annotations

import contextlib
import datetime
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QEventLoop,
    QLibraryInfo,
    QSettings,
    QTimer,
    QTranslator,
)
from PySide6.QtGui import QIcon, QImageReader
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QWidget

from gradacc_desktop import __version__
from gradacc_desktop.logs import log_dir
from gradacc_desktop.paths import resource_path
from gradacc_desktop.startup_probe import FirstPaintProbe
from gradacc_desktop.viewmodels.settings import Settings

if TYPE_CHECKING:
    from gradacc_desktop.ui.main_window import MainWindow

# start-up's window factory: (app, settings, language) -> the main window
CreateWindow = Callable[[QApplication, Settings, str], "MainWindow"]

LOG_NAME = "selftest.log"
# Qt's own message, kept out of tr()-scanning so it stays out of the app's catalogue.
_QT_CANCEL = ("QPlatformTheme", "Cancel")
# a string only the app's supplementary Qt catalogue translates (kept out of lupdate's
# sight: it is Qt's string, not the app's)
_QT_LOOK_IN = ("QFileDialog", "&Look in:")
PAINT_TIMEOUT_MS = 10_000


class SelfTestError(Exception):
    """A failed check; the message is the one-line reason."""


def _check(condition: object, reason: str) -> None:
    if not condition:
        raise SelfTestError(reason)


# -- checks that need no window ------------------------------------------------
def check_translations() -> None:
    for language in ("pt_BR", "en"):
        path = resource_path("i18n", f"gradacc_{language}.qm")
        translator = QTranslator()
        _check(translator.load(str(path)), f"cannot load app catalogue {path}")
        _check(not translator.isEmpty(), f"app catalogue {path} is empty")
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    translator = QTranslator()
    _check(
        translator.load("qtbase_pt_BR", qt_dir),
        f"cannot load qtbase_pt_BR.qm from Qt's translations path {qt_dir!r}",
    )
    _check(
        translator.translate(*_QT_CANCEL) not in ("", _QT_CANCEL[1]),
        "qtbase_pt_BR.qm does not translate 'Cancel'",
    )
    # the strings the app supplies where Qt's own catalogue is out of date
    extra = resource_path("i18n", "qt_extra_pt_BR.qm")
    translator = QTranslator()
    _check(translator.load(str(extra)), f"cannot load {extra}")
    _check(
        translator.translate(*_QT_LOOK_IN) not in ("", _QT_LOOK_IN[1]),
        f"{extra.name} does not translate the file dialog's '&Look in:'",
    )


def check_icons() -> None:
    svg = resource_path("icons", "gradacc.svg")
    _check(svg.is_file(), f"missing icon {svg}")
    _check(QSvgRenderer(str(svg)).isValid(), f"QSvgRenderer cannot parse {svg}")
    icon = QIcon(str(svg))
    _check(not icon.isNull(), f"QIcon({svg.name}) is null")
    _check(
        not icon.pixmap(32, 32).isNull(), "SVG icon renders no pixmap (svg icon engine missing?)"
    )
    for size in (16, 32, 256):
        png = resource_path("icons", "hicolor", f"{size}x{size}", "apps", "gradacc-desktop.png")
        _check(not QIcon(str(png)).isNull(), f"cannot load {png}")
    ico = resource_path("icons", "gradacc.ico")
    reader = QImageReader(str(ico))
    _check(not reader.read().isNull(), f"cannot read {ico.name}: {reader.errorString()}")


def check_data() -> None:
    data = resource_path("data")
    if data.is_dir():
        import json

        for path in sorted(data.glob("*.json")):
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise SelfTestError(f"bad data file {path.name}: {exc}") from exc


# -- window --------------------------------------------------------------------
def _temporary_settings(folder: str) -> Settings:
    return Settings(QSettings(str(Path(folder) / "selftest.ini"), QSettings.Format.IniFormat))


def _wait(app: QApplication, condition: Callable[[], bool], timeout_ms: int) -> bool:
    deadline = time.monotonic() + timeout_ms / 1000
    loop = QEventLoop()
    while not condition():
        if time.monotonic() > deadline:
            return False
        QTimer.singleShot(10, loop.quit)
        loop.exec()
    return True


def _label(window: QWidget, name: str) -> str:
    """The text a widget named ``name`` shows (a QLabel or the results' FitLabel)."""
    text = getattr(window.findChild(QWidget, name), "text", None)
    value = text() if callable(text) else None
    _check(isinstance(value, str), f"no text widget named {name!r} in the main window")
    assert isinstance(value, str)
    return value


def _dispose(app: QApplication, window: QWidget) -> None:
    # PySide6 6.11.3 offscreen: a QMimeData still on the clipboard at exit segfaults
    # in teardown (exit code 139 after a passing self-test). Clear what we copied.
    QApplication.clipboard().clear()
    window.close()
    window.deleteLater()
    app.processEvents()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.processEvents()


def check_window(app: QApplication, folder: str, create_window: CreateWindow) -> None:
    window = create_window(app, _temporary_settings(folder), "pt_BR")
    try:
        probe = FirstPaintProbe(window, lambda _t: None)
        app.installEventFilter(probe)
        window.show()
        painted = _wait(app, lambda: probe.painted, PAINT_TIMEOUT_MS)
        app.removeEventFilter(probe)
        _check(painted, f"main window not painted within {PAINT_TIMEOUT_MS} ms")

        effective = _label(window, "result_effective_batch")
        activation = _label(window, "result_activation")
        _check(re.search(r"(?<!\d)32(?!\d)", effective), f"effective batch shows {effective!r}")
        _check(
            re.search(r"(?<![\d.,])2(?![\d.,]*\d)", activation) and "GB" in activation,
            f"activation shows {activation!r}, expected 2 GB",
        )

        # The spin box's arrows (stepBy) must update the results, like typing does.
        spin = window.findChild(QAbstractSpinBox, "input_micro_batch")
        _check(spin is not None, "no spin box named 'input_micro_batch'")
        assert spin is not None
        spin.stepBy(1)
        app.processEvents()
        stepped = _label(window, "result_effective_batch")
        spin.stepBy(-1)
        app.processEvents()
        _check(
            re.search(r"(?<!\d)40(?!\d)", stepped),
            f"micro-batch 4 -> 5 by arrow: effective batch shows {stepped!r}, expected 40",
        )

        title_pt = window.windowTitle()
        window.set_language("en")
        app.processEvents()
        title_en = window.windowTitle()
        _check(
            title_en == "Gradient Accumulation Memory Calculator",
            f"English title is {title_en!r}",
        )
        _check(title_pt != title_en, "window title is not translated to pt-BR")
        window.set_language("pt_BR")
        app.processEvents()
        _check(window.windowTitle() == title_pt, "switching back to pt-BR did not retranslate")

        clipboard = QApplication.clipboard()
        clipboard.clear()
        window.copy_results()
        app.processEvents()
        text = clipboard.text()
        _check(re.search(r"(?<!\d)32(?!\d)", text), f"clipboard holds {text[:60]!r}")

        # The training description and its views are built on demand: a bundled model
        # (its config.json), its plan, the search; QtCharts must be in the bundle.
        from gradacc_desktop.viewmodels.training.fields import Choice

        window.tabs.setCurrentIndex(1)
        app.processEvents()
        window.training_vm.set_choice(Choice.MODEL, "qwen2.5-0.5b")
        app.processEvents()
        plan = window.training_vm.plan
        _check(plan is not None and plan.fits is True, "the description's plan does not fit")
        search = window.planner.search_vm
        search.run()
        _check(bool(search.state.best), f"the search found nothing: {search.state.message!r}")
        chart = window.show_chart()
        app.processEvents()
        _check(chart is not None and chart.isVisible(), "trade-off chart did not open")
        points = chart.current.points()
        _check(
            len(points) == 1 and points[0].x() == 32,
            "trade-off chart does not mark the plan's configuration (E = 32)",
        )
        # The trainer configs tab: an export, and a YAML config read back (PyYAML
        # must be in the bundle).
        window.tabs.setCurrentIndex(2)
        app.processEvents()
        trainer = window.trainer
        preview = trainer.export.preview.toPlainText()
        _check('"train_batch_size": 32' in preview, f"DeepSpeed export shows {preview[:60]!r}")
        config = Path(folder) / "accelerate_config.yaml"
        config.write_text(
            "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\n"
            "num_machines: 1\nnum_processes: 4\nmixed_precision: bf16\n"
            "deepspeed_config:\n  gradient_accumulation_steps: 2\n  zero_stage: 2\n",
            encoding="utf-8",
        )
        trainer.check.check(config)
        report = trainer.check.report.text()
        _check("accelerate" in report, f"config check says {report[:80]!r}")
        dialog = window.open_activation_estimator()
        app.processEvents()
        _check(dialog.isVisible(), "activation estimator did not open")
        # every family module and bundled config.json made it into the bundle
        from gradacc_desktop.core.memory import Family, load_config_presets

        presets = load_config_presets()
        missing = {f for f in Family if not f.typed_sizes} - {p.arch.family for p in presets}
        _check(not missing, f"no bundled model config of {sorted(f.value for f in missing)}")
        for preset in presets:
            dialog.vm.select_preset(preset.name)
            _check(dialog.vm.state.has_result, f"no estimate for {preset.name}")
        dialog.vm.select_preset("gpt2")
        dialog.reject()
        app.processEvents()
    finally:
        _dispose(app, window)


# -- entry point ---------------------------------------------------------------
def log_file() -> Path:
    return log_dir() / LOG_NAME


def _report(line: str) -> None:
    if sys.stdout is not None:
        with contextlib.suppress(OSError):
            print(line, flush=True)
    path = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().isoformat(timespec="seconds")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"[{stamp}] {line}\n")
    except OSError:
        pass


CHECKS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("translations", check_translations),
    ("icons", check_icons),
    ("data", check_data),
)


def run_self_test(app: QApplication, create_window: CreateWindow) -> int:
    """Run every check; ``create_window`` is start-up's own (``app.create_window``)."""
    frozen = "frozen" if getattr(sys, "frozen", False) else "source"
    where = f"{app.platformName()}, {frozen}, {__version__}"
    with tempfile.TemporaryDirectory(prefix="gradacc-selftest-") as folder:
        try:
            for _name, check in CHECKS:
                check()
            check_window(app, folder, create_window)
        except SelfTestError as exc:
            _report(f"self-test FAILED ({where}): {exc}")
            return 1
        except Exception as exc:  # any crash is a failure with a reason, not a traceback
            last = traceback.extract_tb(exc.__traceback__)[-1]
            _report(
                f"self-test FAILED ({where}): {type(exc).__name__}: {exc} "
                f"at {Path(last.filename).name}:{last.lineno}"
            )
            return 1
    _report(
        f"self-test OK ({where}): translations, icons, data, window, arrows, language, "
        "clipboard, description, planner, search, chart, trainer configs, config check, "
        "estimator"
    )
    return 0
