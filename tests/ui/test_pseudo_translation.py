"""Every page stays readable when every string is much longer than its English source
(vorta's TRANS_SCALE idea): a pseudo-translation stretches each of the app's strings,
and the layout checks look for cut or overlapping text at 800 × 600."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator
from PySide6.QtWidgets import QApplication

from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.layout_checks import layout_problems, settle

# Portuguese runs up to about a third longer than English; stretch beyond that.
SCALE = 1.4
# Qt's own strings (dialog buttons, the file dialog) are left alone.
APP_CONTEXT = re.compile(r"^(?!Q)")
# What a stretched string keeps intact: placeholders, tags, entities, %n and %1.
_KEEP = re.compile(r"\{[^}]*\}|<[^>]*>|&[a-z]+;|%n|%\d+")


def stretch(text: str) -> str:
    """``text`` with its visible words lengthened by ``SCALE`` (placeholders kept)."""
    parts: list[str] = []
    last = 0
    for match in _KEEP.finditer(text):
        parts.append(_lengthen(text[last : match.start()]))
        parts.append(match.group())
        last = match.end()
    parts.append(_lengthen(text[last:]))
    return "".join(parts)


def _lengthen(words: str) -> str:
    def longer(match: re.Match[str]) -> str:
        word = match.group()
        extra = math.ceil(len(word) * (SCALE - 1))
        return word + word[-1] * extra

    return re.sub(r"[A-Za-zÀ-ÿ]{3,}", longer, words)


class StretchingTranslator(QTranslator):
    def translate(
        self, context: str, source: str, disambiguation: str | None = None, n: int = -1
    ) -> str:
        if not APP_CONTEXT.match(context) or not source:
            return ""
        return stretch(source)


@pytest.fixture
def stretched(qapp: QApplication) -> Iterator[StretchingTranslator]:
    translator = StretchingTranslator()
    qapp.installTranslator(translator)
    yield translator
    qapp.removeTranslator(translator)


def test_stretch_keeps_what_code_reads() -> None:
    assert stretch("{field}: enter a value.") == "{field}: enterrr a valueee."
    assert stretch("<b>Memory</b> &amp; %n GPU(s)") == "<b>Memoryyyy</b> &amp; %n GPUUU(s)"


def test_every_tab_at_800x600_with_stretched_strings(stretched, make_window) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language="en")
    assert QCoreApplication.translate("MainWindow", "&File").startswith("&Fileee")
    problems: dict[str, list[str]] = {}
    window.resize(800, 600)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        settle()
        page = window.tabs.currentWidget()
        problems[window.tabs.tabText(index)] = layout_problems(page, window)
    window.details.set_open(True)
    window.tabs.setCurrentIndex(0)
    settle()
    problems["details"] = layout_problems(window.calculator, window)
    dialog = window.open_activation_estimator()
    dialog.resize(800, 600)
    settle()
    problems["estimator"] = layout_problems(dialog, dialog)
    dialog.close()
    assert {page: found for page, found in problems.items() if found} == {}
