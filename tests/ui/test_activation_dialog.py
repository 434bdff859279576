from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QLocale, QSignalBlocker, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QWidget

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.memory.activation import Attention, Recompute
from gradacc_desktop.ui.activation_dialog import ActivationDialog, open_activation_dialog
from gradacc_desktop.ui.activation_fields import CONTROL_SPECS, Kind
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.viewmodels.activation import IMAGE_FIELDS, ActivationField, Option
from tests.ui.helpers import box, shown, type_into
from tests.ui.palettes import contrast, dark_palette

F = ActivationField


def _open(window: MainWindow, qtbot) -> ActivationDialog:  # type: ignore[no-untyped-def]
    dialog = open_activation_dialog(window.vm, window)
    qtbot.waitExposed(dialog)
    return dialog


def _choose(combo: QComboBox, data: object) -> None:
    """Pick an item as the user does (the combo's own current-index signal)."""
    index = next(i for i in range(combo.count()) if combo.itemData(i) == data)
    combo.setCurrentIndex(index)


def _texts(dialog: ActivationDialog) -> list[str]:
    """The texts of the fields the user sees (the target length only for T5-like models)."""
    return [dialog.spins[f].text() for f in F if dialog.spins[f].isVisibleTo(dialog)]


def _table(dialog: ActivationDialog) -> list[list[str]]:
    table = dialog.table
    rows = []
    for r in range(table.rowCount()):
        items = [table.item(r, c) for c in range(table.columnCount())]
        assert all(item is not None for item in items)
        rows.append([item.text().strip() for item in items if item is not None])
    return rows


def test_opens_with_gpt2_in_portuguese_numbers(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert dialog.isVisible()
    assert not dialog.isModal()
    assert dialog.combos[Option.PRESET].currentText() == "GPT-2 small (124M)"
    assert _texts(dialog) == ["768", "12", "12", "12", "3.072", "50.257", "1.024", "1"]
    assert dialog.saved.value.text() == "0,738 GB"
    assert dialog.peak.value.text() == "1,047 GB"
    assert dialog.peak.formula.text().startswith("1.047.078.924 ")
    assert "1,048 GB" in dialog.calculator_note.text()
    assert dialog.use_button.isEnabled()


def test_choosing_a_preset_fills_the_fields(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    _choose(dialog.combos[Option.PRESET], "llama-3-8b")
    assert _texts(dialog) == ["4.096", "32", "32", "8", "14.336", "128.256", "8.192", "1"]
    assert dialog.spins[F.KV_HEADS].isEnabled()
    _choose(dialog.combos[Option.PRESET], "gpt2")
    assert _texts(dialog) == ["768", "12", "12", "12", "3.072", "50.257", "1.024", "1"]
    assert not dialog.spins[F.KV_HEADS].isEnabled()
    assert dialog.peak.value.text() == "1,047 GB"


def test_typing_updates_the_figures_live(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    type_into(qtbot, dialog.spins[F.SEQ], "512")
    assert dialog.peak.value.text() == "0,524 GB"
    type_into(qtbot, dialog.spins[F.LAYERS], "24")
    assert dialog.combos[Option.PRESET].currentText().startswith("GPT-2 small (124M) (")
    assert dialog.combos[Option.PRESET].currentData() == "gpt2"


def test_full_recomputation_lowers_what_is_saved(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert dialog.saved.value.text() == "0,738 GB"
    _choose(dialog.combos[Option.RECOMPUTE], Recompute.FULL)
    assert dialog.saved.value.text() == "0,228 GB"
    assert dialog.vm.options.recompute is Recompute.FULL


def test_eager_attention_costs_more_than_sdpa(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    sdpa = dialog.vm.state.estimate
    assert sdpa is not None
    _choose(dialog.combos[Option.ATTENTION], Attention.EAGER)
    eager = dialog.vm.state.estimate
    assert eager is not None
    assert eager.result.peak_bytes > sdpa.result.peak_bytes
    assert dialog.peak.value.text() == eager.peak
    assert eager.peak != sdpa.peak
    assert [r[0] for r in _table(dialog)] == [r.label for r in eager.breakdown]


def test_use_this_value_fills_the_calculator(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert box(window, Field.ACTIVATION_GB).text() == "1,048 GB"
    assert shown(window) == ("32", "4,192 GB")
    assert window.results.activation.formula.text() == "M = 4 × 1,048 GB = 4,192 GB"


def test_use_this_value_changes_only_the_activation(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "0")  # refused: must stay as typed
    dialog = _open(window, qtbot)
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    assert box(window, Field.ACTIVATION_GB).text() == "1,048 GB"
    assert box(window, Field.MICRO_BATCH).text() == "0"
    assert not window.vm.state.has_result


def test_escape_cancels(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    type_into(qtbot, dialog.spins[F.SEQ], "512")
    qtbot.keyClick(dialog.spins[F.SEQ], Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert box(window, Field.ACTIVATION_GB).text() == "0,5 GB"


def test_bad_sizes_show_a_message_and_disable_use(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    _choose(dialog.combos[Option.PRESET], "llama-3-8b")
    type_into(qtbot, dialog.spins[F.HEADS], "30")
    assert not dialog.use_button.isEnabled()
    assert dialog.prompt.isVisible() and not dialog.saved.isVisible()
    assert "(30)" in dialog.problems.text()
    assert dialog.labels[F.HIDDEN].styleSheet()
    assert dialog.labels[F.HEADS].styleSheet()
    assert not dialog.labels[F.LAYERS].styleSheet()
    # Enter (the default button) does nothing while there is no estimate
    qtbot.keyClick(dialog.spins[F.HEADS], Qt.Key.Key_Return)
    assert dialog.isVisible()
    assert box(window, Field.ACTIVATION_GB).text() == "0,5 GB"
    type_into(qtbot, dialog.spins[F.HEADS], "32")
    assert dialog.use_button.isEnabled()
    type_into(qtbot, dialog.spins[F.KV_HEADS], "5")
    assert not dialog.use_button.isEnabled()
    assert "(32)" in dialog.problems.text()
    type_into(qtbot, dialog.spins[F.KV_HEADS], "8")
    type_into(qtbot, dialog.spins[F.LAYERS], "0")
    assert not dialog.use_button.isEnabled()
    assert "10.000" in dialog.problems.text()


def test_assumptions_and_sources_are_one_click_away(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    assert not dialog.assumptions_text.isVisible()
    qtbot.mouseClick(dialog.assumptions.toggle, Qt.MouseButton.LeftButton)
    assert dialog.assumptions_text.isVisible()
    text = dialog.assumptions_text.toPlainText()
    assert "Korthikanti et al. 2022, Reducing Activation Recomputation" in text
    assert "https://huggingface.co/openai-community/gpt2/blob/main/config.json" in text
    estimate = dialog.vm.state.estimate
    assert estimate is not None
    assert all(a in text for a in estimate.assumptions)


def test_measure_command_can_be_copied(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    command = dialog.measure_command
    assert command.isReadOnly()
    assert command.toPlainText().startswith(
        "python -m gradacc_desktop.measure --model-config config.json --seq 1024"
    )
    qtbot.mouseClick(dialog.copy_command, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == command.toPlainText()
    assert dialog.isVisible()


def test_every_control_has_a_label_and_an_accessible_name(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    texts = []
    widget: QWidget | None
    for spec in CONTROL_SPECS:
        if spec.kind is Kind.CHECK:
            assert isinstance(spec.control, Option)
            widget = dialog.checks[spec.control]
            text = widget.text()
        else:
            label: QLabel = dialog.labels[spec.control]
            widget = label.buddy()
            assert widget is not None
            text = label.text()
        assert widget.accessibleName() == text.replace("&", "")
        assert widget.toolTip()
        if spec.control in (*IMAGE_FIELDS, Option.VISION_FROZEN, Option.FUSED_LOSS):
            # the alphabet is spent: the image inputs, shown only for a model with a
            # vision tower, and the fused loss have no access key (Tab reaches them)
            assert "&" not in text, text
            continue
        assert "&" in text, text
        texts.append(text)
    texts += [
        dialog.use_button.text(),
        dialog.assumptions.toggle.text(),
        dialog.copy_command.text(),
        dialog.model_source.open_button.text(),
    ]
    assert all("&" in t for t in texts), [t for t in texts if "&" not in t]
    keys = [t[t.index("&") + 1].lower() for t in texts]
    assert len(keys) == len(set(keys)), texts


def test_keyboard_reaches_every_control_in_order(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    first = dialog.combos[Option.PRESET]
    skipped = {
        dialog.spins[F.KV_HEADS].objectName(),  # GPT-2: follows the heads
        dialog.spins[F.TARGET_SEQ].objectName(),  # hidden: not an encoder-decoder
        # hidden: no vision tower
        *(dialog.spins[field].objectName() for field in IMAGE_FIELDS),
        dialog.checks[Option.VISION_FROZEN].objectName(),
    }
    expected = [s.object_name for s in CONTROL_SPECS if s.object_name not in skipped]
    expected.insert(1, "activation_open_config")
    first.setFocus()
    seen: list[QWidget] = [first]
    for _ in range(len(expected) - 2):
        dialog.focusNextChild()
        seen.append(dialog.focusWidget())
    names = [w.objectName() for w in seen]
    assert names == expected[: len(names)]


def test_factory_raises_the_open_dialog(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = _open(window, qtbot)
    assert _open(window, qtbot) is first
    first.reject()
    second = _open(window, qtbot)
    assert second is not first


def test_english_texts(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    dialog = _open(window, qtbot)
    assert dialog.windowTitle() == "Estimate activation from the model"
    assert dialog.labels[Option.PRESET].text() == "&Model"
    assert dialog.combos[Option.PROFILE].itemText(0) == "Paper (Korthikanti et al.)"
    assert dialog.combos[Option.ATTENTION].itemText(0) == "Eager (stores the s² scores)"
    assert dialog.use_button.text() == "&Use this value"
    assert dialog.buttons.buttons()[-1].text() in ("Cancel", "&Cancel")
    assert dialog.peak.value.text() == "1.047 GB"
    assert _texts(dialog)[-3:] == ["50,257", "1,024", "1"]
    rows = _table(dialog)
    assert rows[0][0].startswith("Per layer × 12 layer")
    assert ["Logits and loss", "", "0.206 GB"] in rows
    assert rows[-1] == ["Peak", "", "1.047 GB"]
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    assert box(window, Field.ACTIVATION_GB).text() == "1.048 GB"


def test_follows_a_language_switch(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = _open(window, qtbot)
    _choose(dialog.combos[Option.RECOMPUTE], Recompute.SELECTIVE)
    states: list[object] = []
    dialog.vm.stateChanged.connect(states.append)
    window.set_language("en")
    # the main window's one route reaches the open dialog: one new state, at once
    assert len(states) == 1
    assert dialog.peak.value.text() == "1.047 GB"
    assert dialog.windowTitle() == "Estimate activation from the model"
    assert _texts(dialog)[-3:] == ["50,257", "1,024", "1"]
    assert dialog.combos[Option.RECOMPUTE].currentData() is Recompute.SELECTIVE
    assert dialog.combos[Option.RECOMPUTE].currentText() == "Selective (attention core)"


def test_set_language_is_the_one_route(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The main window's contract: ``set_language(locale)`` re-shows the fields and the
    words in one new state; Qt's LanguageChange event alone changes nothing."""
    dialog = _open(window, qtbot)
    type_into(qtbot, dialog.spins[F.LAYERS], "x1")  # unreadable text stays as typed
    states: list[object] = []
    dialog.vm.stateChanged.connect(states.append)
    # the English catalogue installed without telling the main window (so without
    # its route): Qt posts LanguageChange to every widget, the dialog ignores it
    with QSignalBlocker(window.language):
        window.language.set_language("en")
    QCoreApplication.sendEvent(dialog, QEvent(QEvent.Type.LanguageChange))
    QCoreApplication.processEvents()
    assert states == []
    assert dialog.windowTitle() != "Estimate activation from the model"
    dialog.set_language(QLocale("en"))
    assert len(states) == 1
    assert dialog.locale().name() == dialog.vm.locale.name() == "en_US"
    assert dialog.windowTitle() == "Estimate activation from the model"
    assert _texts(dialog) == ["768", "x1", "12", "12", "3,072", "50,257", "1,024", "1"]
    assert dialog.labels[F.LAYERS].text() == "&Layers"
    assert "Layers" in dialog.problems.text()


def _drawn_colour(label: QLabel) -> QColor:
    """The colour a label's text is drawn in: its style sheet's, else its palette's."""
    sheet = label.styleSheet()
    if sheet.startswith("color:"):
        return QColor(sheet.removeprefix("color:").strip(" ;"))
    return label.palette().color(QPalette.ColorRole.WindowText)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_refusals_and_warnings_are_readable(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, qapp, dark: bool
) -> None:
    """WCAG's 4.5:1 against the dialog's background for every text that signals a
    problem, on a light and on a dark palette."""
    light = qapp.palette()
    if dark:
        qapp.setPalette(dark_palette())
    try:
        dialog = _open(window, qtbot)
        background = dialog.palette().color(QPalette.ColorRole.Window)
        assert (background.lightness() < 128) is dark
        type_into(qtbot, dialog.spins[F.SEQ], "2000")  # beyond GPT-2's 1.024 positions
        assert dialog.warnings.isVisible()
        assert contrast(_drawn_colour(dialog.warnings), background) >= 4.5
        type_into(qtbot, dialog.spins[F.HEADS], "7")  # does not divide the hidden size
        refused = [dialog.labels[F.HIDDEN], dialog.labels[F.HEADS], dialog.problems]
        assert dialog.labels[F.HEADS].styleSheet()
        for label in refused:
            assert contrast(_drawn_colour(label), background) >= 4.5, label.text()
        # a red, not the ordinary text colour
        assert _drawn_colour(dialog.labels[F.HEADS]) != _drawn_colour(dialog.labels[F.LAYERS])
    finally:
        qapp.setPalette(light)


def test_reopens_with_the_last_setup(window: MainWindow, qtbot, settings) -> None:  # type: ignore[no-untyped-def]
    from gradacc_desktop.core.memory.activation import Precision

    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    _choose(dialog.combos[Option.PRESET], "llama-3-8b")
    _choose(dialog.combos[Option.DTYPE], Precision.FP32)
    type_into(qtbot, dialog.spins[F.SEQ], "2048")
    dialog.reject()
    again = window.open_activation_estimator()
    qtbot.waitExposed(again)
    assert again is not dialog
    assert again.combos[Option.PRESET].currentData() == "llama-3-8b"
    assert again.combos[Option.DTYPE].currentData() == Precision.FP32
    assert _texts(again)[:7] == ["4.096", "32", "32", "8", "14.336", "128.256", "2.048"]


def test_damaged_remembered_setup_falls_back(window: MainWindow, qtbot, settings) -> None:  # type: ignore[no-untyped-def]
    for key, value in {
        "preset": "no-such-model",
        "dtype": "fp8",
        "attention": 42,
        "hidden": "-5",
        "layers": "lots",
        "seq": "99999999999",
        "dropout": "maybe",
    }.items():
        settings.store.setValue(f"estimator/{key}", value)
    dialog = window.open_activation_estimator()
    qtbot.waitExposed(dialog)
    assert dialog.combos[Option.PRESET].currentText() == "GPT-2 small (124M)"
    assert _texts(dialog) == ["768", "12", "12", "12", "3.072", "50.257", "1.024", "1"]
    assert dialog.use_button.isEnabled()
