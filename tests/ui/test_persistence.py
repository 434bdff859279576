from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QSettings

from gradacc_desktop.core.calculator import Field, Inputs
from gradacc_desktop.viewmodels.settings import Settings
from tests.ui.helpers import box, clear, shown, type_into


def test_inputs_and_geometry_are_remembered(make_window, settings, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    type_into(qtbot, box(first, Field.MICRO_BATCH), "16")
    type_into(qtbot, box(first, Field.ACTIVATION_GB), "0.125")
    first.resize(790, 590)
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    assert [box(second, f).text() for f in Field] == ["16", "8", "1", "0,125 GB"]
    assert shown(second) == ("128", "2 GB")
    assert (second.width(), second.height()) == (790, 590)


def test_an_empty_field_saves_its_last_value(make_window, settings, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    type_into(qtbot, box(first, Field.GPUS), "3")
    clear(qtbot, box(first, Field.GPUS))
    first.close()
    assert settings.inputs() == Inputs(4, 8, 3, Decimal("0.5"))


def test_corrupt_settings_open_with_defaults(make_window, settings_path) -> None:  # type: ignore[no-untyped-def]
    raw = QSettings(str(settings_path), QSettings.Format.IniFormat)
    raw.setValue("inputs/micro_batch", "lots")
    raw.setValue("inputs/activation_gb", "-1")
    raw.setValue("ui/language", "xx")
    raw.setValue("ui/detailsOpen", "sometimes")
    raw.setValue("window/geometry", "garbage")
    raw.sync()
    window = make_window(Settings(QSettings(str(settings_path), QSettings.Format.IniFormat)))
    assert [box(window, f).text() for f in Field] == ["4", "8", "1", "0,5 GB"]
    assert shown(window) == ("32", "2 GB")
    assert window.language.language == "pt_BR"
    assert not window.details.is_open()
