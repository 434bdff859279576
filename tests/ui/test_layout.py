"""The calculator (Details open or closed) and the activation estimator are readable at
800 × 600 and at their minimum, in both languages, with extreme values: nothing
overlaps, no text is cut, and what does not fit scrolls."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.layout_checks import layout_problems, settle

# 5- and 6-digit inputs and 100 000 GB: the largest numbers the calculator shows
EXTREME = {
    Field.MICRO_BATCH: "99999",
    Field.ACCUMULATION_STEPS: "99999",
    Field.GPUS: "99999",
    Field.ACTIVATION_GB: "100000",
}


@pytest.mark.parametrize("details", [False, True], ids=["closed", "details"])
@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_calculator_at_800x600_and_at_its_minimum(
    make_window, language: str, details: bool
) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    for field, text in EXTREME.items():
        window.inputs.boxes[field].set_text(text)
    assert window.vm.state.has_result
    window.details.set_open(details)
    for size in ((800, 600), (1, 1)):
        window.resize(*size)
        settle()
        assert window.width() <= 800 and window.height() <= 600
        problems = layout_problems(window.calculator, window)
        assert problems == [], f"{language} at {window.size().toTuple()}: {problems}"


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_activation_estimator_at_800x600_and_at_its_minimum(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    dialog = window.open_activation_estimator()
    for size in ((800, 600), (1, 1)):
        dialog.resize(*size)
        settle()
        assert dialog.width() <= 800 and dialog.height() <= 600
        problems = layout_problems(dialog, dialog)
        assert problems == [], f"{language} at {dialog.size().toTuple()}: {problems}"
        # the buttons stay in reach whatever the size: only the content scrolls
        assert dialog.use_button.isVisible()
    dialog.close()
