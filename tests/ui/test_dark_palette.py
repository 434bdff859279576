"""On a dark desktop theme every coloured text stays readable: verdicts, the message
under a refused field and the estimator's refused fields are drawn in colours chosen
for the palette, with at least WCAG's 4.5:1 contrast against the window."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.activation import ActivationField
from tests.ui.helpers import box, type_into
from tests.ui.layout_checks import settle
from tests.ui.palettes import contrast, dark_palette

MINIMUM = 4.5


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[QPalette]:
    light = qapp.palette()
    yield dark_palette()
    qapp.setPalette(light)


def _text_colour(widget: QWidget) -> QColor:
    """The colour the widget's text is drawn in (its style sheet's, else its palette's)."""
    sheet = widget.styleSheet()
    if sheet.startswith("color:"):
        return QColor(sheet.removeprefix("color:").strip(" ;"))
    return widget.palette().color(QPalette.ColorRole.WindowText)


def _background(widget: QWidget) -> QColor:
    return widget.window().palette().color(QPalette.ColorRole.Window)


@pytest.mark.parametrize("switch_after", [False, True], ids=["dark-at-start", "switched"])
def test_coloured_texts_are_readable_on_a_dark_palette(
    make_window, qtbot, qapp, dark, switch_after: bool
) -> None:  # type: ignore[no-untyped-def]
    if not switch_after:
        qapp.setPalette(dark)
    window: MainWindow = make_window(language="en")
    type_into(qtbot, box(window, Field.MICRO_BATCH), "0")
    error = window.inputs.errors[Field.MICRO_BATCH]
    window.tabs.setCurrentIndex(1)
    fit = window.planner.results.fit.verdict
    dialog = window.open_activation_estimator()
    dialog.vm.set_text(ActivationField.HEADS, "7")  # does not divide the hidden size
    if switch_after:
        qapp.setPalette(dark)
    settle()
    assert _background(window).lightness() < 128  # the dark palette is in use
    refused = dialog.labels[ActivationField.HEADS]
    for name, widget in (("field message", error), ("fit verdict", fit), ("refused", refused)):
        ratio = contrast(_text_colour(widget), _background(widget))
        assert ratio >= MINIMUM, f"{name}: {ratio:.2f}:1"
    dialog.close()


def test_the_light_palettes_red_would_not_do() -> None:
    """The check above is not blind: the old hard-coded red on the dark window fails."""
    assert contrast(QColor("#b3261e"), dark_palette().color(QPalette.ColorRole.Window)) < MINIMUM
