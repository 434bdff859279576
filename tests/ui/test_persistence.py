from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QSettings

from gradacc_desktop.core.calculator import BatchInputs, Field
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.ui.training.specs import Extra
from gradacc_desktop.viewmodels.settings import Settings
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import (
    box,
    choice_box,
    choose,
    clear,
    described,
    memory_typed,
    shown,
    type_into,
)


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
    assert settings.inputs() == BatchInputs(4, 8, 3, Decimal("0.5"))


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


def test_description_and_tab_are_remembered(make_window, settings, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.tabs.setCurrentIndex(1)
    choose(first, Choice.MODEL, "qwen2.5-0.5b")
    choose(first, Choice.METHOD, Method.LORA)
    type_into(qtbot, described(first, TrainingField.TARGET), "512")
    type_into(qtbot, described(first, TrainingField.GPUS), "8")
    type_into(qtbot, described(first, TrainingField.SEQ_LEN), "2048")
    choose(first, Choice.CARD, "h100-80gb")
    shown = first.description.notes[Extra.OTHER_NOTE].text()
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    assert second.tabs.currentIndex() == 1
    assert described(second, TrainingField.TARGET).text() == "512"
    assert described(second, TrainingField.GPUS).text() == "8"
    assert described(second, TrainingField.SEQ_LEN).text() == "2.048"
    assert choice_box(second, Choice.CARD).currentData() == "h100-80gb"
    assert choice_box(second, Choice.MODEL).currentData() == "qwen2.5-0.5b"
    assert choice_box(second, Choice.METHOD).currentData() is Method.LORA
    # the same description, so the same figures
    assert second.description.notes[Extra.OTHER_NOTE].text() == shown


def test_damaged_planner_memory_is_ignored(make_window, settings_path) -> None:  # type: ignore[no-untyped-def]
    raw = QSettings(str(settings_path), QSettings.Format.IniFormat)
    raw.setValue("planner/scenario", '{"format": "gradacc-scenario", "version": 99}')
    raw.setValue("ui/tab", "7")
    raw.sync()
    window = make_window(Settings(QSettings(str(settings_path), QSettings.Format.IniFormat)))
    assert window.tabs.currentIndex() == 0
    window.tabs.setCurrentIndex(1)
    assert window.planner_vm.state.has_result


def test_planner_reference_and_export_format_are_remembered(make_window, settings, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.tabs.setCurrentIndex(1)
    planner = first.planner
    memory_typed(qtbot, first)
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_LR], "0,0003")
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_BATCH], "256")
    export = first.trainer.export
    export.format.setCurrentIndex(export.format.findData("hf"))
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    restored = second.planner
    assert restored.reference[TrainingField.REFERENCE_LR].text() == "0,0003"
    assert restored.reference[TrainingField.REFERENCE_BATCH].text() == "256"
    assert second.trainer.export.format.currentData() == "hf"
    assert "per_device_train_batch_size" in second.trainer.export.preview.toPlainText()
    # and the planner holds them as values, not just as text
    assert second.planner_vm.reference() == (Decimal("0.0003"), 256)


def test_cleared_planner_reference_stays_cleared(make_window, settings, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    planner = first.planner
    type_into(qtbot, planner.reference[TrainingField.REFERENCE_LR], "0,0003")
    first.save_state()
    clear(qtbot, planner.reference[TrainingField.REFERENCE_LR])
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    assert second.planner.reference[TrainingField.REFERENCE_LR].text() == ""


def test_damaged_planner_reference_is_ignored(make_window, settings_path) -> None:  # type: ignore[no-untyped-def]
    raw = QSettings(str(settings_path), QSettings.Format.IniFormat)
    raw.setValue("planner/referenceLr", "-3")
    raw.setValue("planner/referenceBatch", "a lot")
    raw.setValue("planner/exportFormat", "yaml")
    raw.sync()
    window = make_window(Settings(QSettings(str(settings_path), QSettings.Format.IniFormat)))
    window.tabs.setCurrentIndex(1)
    planner = window.planner
    assert planner.reference[TrainingField.REFERENCE_LR].text() == ""
    assert planner.reference[TrainingField.REFERENCE_BATCH].text() == ""
    assert window.trainer.export.format.currentData() == "deepspeed"
    assert window.planner_vm.state.has_result
