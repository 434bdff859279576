"""The result numbers (``FitLabel``) on their cards: a new number repaints the number
alone, and the label shows exactly its card's background, on light and dark palettes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QWidget

from gradacc_desktop.ui.fit_label import FitLabel
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import type_into
from tests.ui.palettes import dark_palette


class _Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget):
            self.seen.append(watched.objectName() or type(watched).__name__)
        return False


def _labels(window: MainWindow) -> list[FitLabel]:
    labels = window.calculator.results.findChildren(FitLabel)
    assert len(labels) == 5
    return labels


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_numbers_show_their_card_s_background(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, qapp: QApplication, dark: bool
) -> None:
    light = qapp.palette()
    if dark:
        qapp.setPalette(dark_palette())
    try:
        window.show()
        qtbot.waitExposed(window)
        qtbot.wait(20)  # the palette reaches every widget
        for label in _labels(window):
            card = label.parentWidget()
            assert card is not None and card.autoFillBackground()
            image = card.grab().toImage()
            # the label's top-left pixel (above the glyphs) and the card beside the label
            inside = label.mapTo(card, QPoint(1, 1))
            outside = QPoint(inside.x() - 2 if inside.x() > 3 else 1, inside.y())
            assert image.pixelColor(inside) == image.pixelColor(outside), label.objectName()
            assert (image.pixelColor(inside).lightness() < 128) is dark
    finally:
        qapp.setPalette(light)


def test_a_new_number_repaints_the_numbers_not_the_cards(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, qapp: QApplication
) -> None:
    window.show()
    qtbot.waitExposed(window)
    field = window.findChild(QAbstractSpinBox, "input_micro_batch")
    assert field is not None
    type_into(qtbot, field, "4")
    qtbot.wait(20)  # the first paints are done
    paints = _Paints()
    qapp.installEventFilter(paints)
    try:
        qtbot.keyClicks(field, "5")  # 4 -> 45
        qtbot.waitUntil(lambda: bool(paints.seen))
        qapp.processEvents()
    finally:
        qapp.removeEventFilter(paints)
    assert "result_effective_batch" in paints.seen
    assert not any(name.startswith("card_") for name in paints.seen), paints.seen
