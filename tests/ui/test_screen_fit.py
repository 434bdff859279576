"""A window's frame stays inside the screen it opens on: the first size, a remembered
size from a larger screen, and the activation estimator's first size."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.screen_fit import FRAME_ALLOWANCE, fit_to_screen
from gradacc_desktop.viewmodels.settings import GEOMETRY


def test_a_size_larger_than_the_screen_is_cut_to_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = QWidget()
    qtbot.addWidget(widget)
    area = widget.screen().availableGeometry()
    fit_to_screen(widget, 5000, 4000)
    assert widget.width() == area.width() - FRAME_ALLOWANCE
    assert widget.height() == area.height() - FRAME_ALLOWANCE
    assert area.contains(widget.geometry())
    fit_to_screen(widget, 700, 500)  # a size that fits is kept
    assert (widget.width(), widget.height()) == (700, 500)


def test_a_remembered_size_from_a_larger_screen_fits_this_one(make_window, settings) -> None:  # type: ignore[no-untyped-def]
    first: MainWindow = make_window(settings)
    first.resize(4000, 3000)
    first.move(3000, 2000)
    first.save_state()
    assert settings.get(GEOMETRY) is not None
    again: MainWindow = make_window(settings)
    area = again.screen().availableGeometry()
    assert again.height() <= area.height() - FRAME_ALLOWANCE
    assert again.width() <= area.width() - FRAME_ALLOWANCE
    assert area.contains(again.geometry())


def test_the_activation_estimator_opens_inside_the_screen(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    area = dialog.screen().availableGeometry()
    assert dialog.height() <= area.height() - FRAME_ALLOWANCE
    assert area.contains(dialog.geometry())
