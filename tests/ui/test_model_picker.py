"""The model picker with real key events and clicks: typed words narrow the list (the
families' headings stay above what is left), Enter or a click picks, Esc keeps the
model chosen, a text that matches nothing picks nothing; closed, the arrows walk the
models past the headings and the sequence length follows; in both languages."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.model_picker import HEADING_ROLE, ModelPicker
from gradacc_desktop.viewmodels.training.fields import NO_MODEL, Choice, TrainingField
from gradacc_desktop.viewmodels.training.picking import Heading
from tests.ui.helpers import choice_box, choose, described, show_tab, wheel

NOTHING = {
    "pt_BR": "Nenhum modelo corresponde a “zzz”. Esc mantém o modelo escolhido.",
    "en": "No model matches “zzz”. Esc keeps the model chosen.",
}
REST = {"pt_BR": "Outros modelos", "en": "Other models"}


@pytest.fixture(params=["pt_BR", "en"])
def language(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def window(make_window, language: str) -> MainWindow:  # type: ignore[no-untyped-def]
    window: MainWindow = make_window(language=language)
    show_tab(window, window.planner_page)
    return window


@pytest.fixture
def picker(window: MainWindow, qtbot) -> ModelPicker:  # type: ignore[no-untyped-def]
    combo = choice_box(window, Choice.MODEL)
    assert isinstance(combo, ModelPicker)
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(combo.hasFocus)
    return combo


def _type(qtbot, picker: ModelPicker, text: str) -> None:  # type: ignore[no-untyped-def]
    """Keys as the user types them: the first on the closed picker, the rest wherever
    the focus is then (the open list's filter)."""
    qtbot.keyClicks(picker, text[0])
    for char in text[1:]:
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClicks(focused, char)


def _key(qtbot, key: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    focused = QApplication.focusWidget()
    assert focused is not None
    qtbot.keyClick(focused, key)


def _shown(picker: ModelPicker) -> list[str]:
    """The rows the open list shows, headings included."""
    rows = picker.popup.list
    return [picker.itemText(r) for r in range(picker.count()) if not rows.isRowHidden(r)]


def _models(picker: ModelPicker) -> list[str]:
    rows = picker.popup.list
    return [
        picker.itemText(r)
        for r in range(picker.count())
        if not rows.isRowHidden(r) and not picker.itemData(r, HEADING_ROLE)
    ]


def test_70b_leaves_only_the_70b_models_under_their_heading(
    window: MainWindow, picker: ModelPicker, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _type(qtbot, picker, "70b")
    assert picker.popup.isVisible()
    assert QApplication.focusWidget() is picker.popup.filter
    models = _models(picker)
    assert models and all("70B" in label for label in models), models
    assert {"Llama 3 70B", "Llama 3.1 70B", "DeepSeek-R1-Distill-Llama 70B"} <= set(models)
    shown = _shown(picker)  # each family's heading above its models
    assert shown[0] == "DeepSeek" and shown[1] == "DeepSeek-R1-Distill-Llama 70B"
    assert shown[shown.index("Llama") + 1] == "Llama 3 70B"
    assert picker.popup.list.currentIndex().data() == models[0]


def test_qwen2_5_7_finds_qwen2_5_7b_and_enter_picks_it(
    window: MainWindow, picker: ModelPicker, qtbot
) -> None:  # type: ignore[no-untyped-def]
    # "qwen 7" would also keep DeepSeek-R1-Distill-Qwen 7B, whose family comes first
    _type(qtbot, picker, "qwen2.5 7")
    assert _models(picker) == ["Qwen2.5 7B", "Qwen2.5 72B Instruct", "Qwen2.5-Coder 7B"]
    assert _shown(picker)[0] == "Qwen"
    _key(qtbot, Qt.Key.Key_Return)
    assert not picker.popup.isVisible()
    assert window.training_vm.choice(Choice.MODEL) == "qwen2.5-7b"
    assert picker.currentText() == "Qwen2.5 7B"
    assert QApplication.focusWidget() is picker
    # the model's context fills the empty sequence length
    assert window.training_vm.value(TrainingField.SEQ_LEN) == 4096


def test_down_in_the_list_then_enter_picks_the_next_model_left(
    window: MainWindow, picker: ModelPicker, qtbot
) -> None:  # type: ignore[no-untyped-def]
    _type(qtbot, picker, "llama 3 8b")  # "llama 8b" keeps DeepSeek-R1-Distill-Llama 8B too
    assert _models(picker) == ["Llama 3 8B", "Llama 3.1 8B"]
    _key(qtbot, Qt.Key.Key_Down)
    _key(qtbot, Qt.Key.Key_Enter)
    assert window.training_vm.choice(Choice.MODEL) == "llama-3.1-8b"


def test_escape_keeps_the_model_chosen(window: MainWindow, picker: ModelPicker, qtbot) -> None:  # type: ignore[no-untyped-def]
    choose(window, Choice.MODEL, "gpt2")
    _type(qtbot, picker, "70b")
    _key(qtbot, Qt.Key.Key_Down)
    _key(qtbot, Qt.Key.Key_Escape)
    assert not picker.popup.isVisible()
    assert window.training_vm.choice(Choice.MODEL) == "gpt2"
    assert picker.currentText() == "GPT-2 small (124M)"
    assert QApplication.focusWidget() is picker
    # opened again, the list starts whole, at the model chosen
    qtbot.keyClick(picker, Qt.Key.Key_Space)
    assert picker.popup.isVisible() and picker.popup.filter.text() == ""
    assert picker.popup.list.currentIndex().data() == "GPT-2 small (124M)"
    assert len(_shown(picker)) == picker.count()
    _key(qtbot, Qt.Key.Key_Escape)


def test_a_text_that_matches_nothing_says_so_and_picks_nothing(
    window: MainWindow, picker: ModelPicker, qtbot, language: str
) -> None:  # type: ignore[no-untyped-def]
    _type(qtbot, picker, "zzz")
    assert _shown(picker) == []
    assert picker.popup.nothing.isVisible()
    assert picker.popup.nothing.text() == NOTHING[language]
    _key(qtbot, Qt.Key.Key_Return)
    assert picker.popup.isVisible()  # still open: the user can type on
    assert window.training_vm.choice(Choice.MODEL) == NO_MODEL
    _key(qtbot, Qt.Key.Key_Backspace)
    _key(qtbot, Qt.Key.Key_Backspace)
    assert not picker.popup.nothing.isVisible()  # "z": StableLM 2 Zephyr
    _key(qtbot, Qt.Key.Key_Escape)
    assert window.training_vm.choice(Choice.MODEL) == NO_MODEL


def test_headings_are_shown_but_never_picked(
    window: MainWindow, picker: ModelPicker, qtbot, language: str
) -> None:  # type: ignore[no-untyped-def]
    headings = [r for r in range(picker.count()) if isinstance(picker.itemData(r), Heading)]
    texts = {picker.itemText(r) for r in headings}
    assert {"Llama", "Qwen", "Gemma", "Mistral", "Phi", REST[language]} <= texts
    for row in headings:
        flags = picker.model().index(row, 0).flags()
        assert not flags & Qt.ItemFlag.ItemIsEnabled
        assert not flags & Qt.ItemFlag.ItemIsSelectable
    # a click on a heading picks nothing and leaves the list open
    qtbot.keyClick(picker, Qt.Key.Key_F4)
    rows = picker.popup.list
    llama = picker.findText("Llama")
    rows.scrollTo(picker.model().index(llama, 0))
    spot = rows.visualRect(picker.model().index(llama, 0)).center()
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert picker.popup.isVisible()
    assert window.training_vm.choice(Choice.MODEL) == NO_MODEL
    # a click on a model picks it
    first = picker.model().index(llama + 1, 0)
    spot = rows.visualRect(first).center()
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert not picker.popup.isVisible()
    assert window.training_vm.choice(Choice.MODEL) == picker.itemData(llama + 1)


def test_the_arrows_on_the_closed_picker_walk_the_models_past_the_headings(
    window: MainWindow, picker: ModelPicker, qtbot
) -> None:  # type: ignore[no-untyped-def]
    vm = window.training_vm
    qtbot.keyClick(picker, Qt.Key.Key_Down)  # from "choose a model" over the first heading
    assert not picker.popup.isVisible()
    first = picker.currentIndex()
    assert first == 2 and isinstance(picker.itemData(1), Heading)
    seen = [vm.choice(Choice.MODEL)]
    lengths = {vm.value(TrainingField.SEQ_LEN)}
    for _ in range(12):  # across several families
        qtbot.keyClick(picker, Qt.Key.Key_Down)
        assert not isinstance(picker.currentData(), Heading)
        seen.append(vm.choice(Choice.MODEL))
        lengths.add(vm.value(TrainingField.SEQ_LEN))
    assert len(set(seen)) == 13  # every step a model of its own
    assert len(lengths) > 1  # the sequence length follows the model
    llama = picker.findText("Llama")
    choose(window, Choice.MODEL, picker.itemData(llama + 1))
    qtbot.keyClick(picker, Qt.Key.Key_Up)  # over the heading to the family before
    assert picker.currentIndex() == llama - 1


def test_the_wheel_over_the_unfocused_picker_changes_nothing(
    window: MainWindow, picker: ModelPicker, qtbot
) -> None:  # type: ignore[no-untyped-def]
    other: QWidget = described(window, TrainingField.GPUS)
    other.setFocus()
    qtbot.waitUntil(other.hasFocus)
    wheel(picker, -120)
    wheel(picker, -120)
    assert window.training_vm.choice(Choice.MODEL) == NO_MODEL
    assert picker.focusPolicy() == Qt.FocusPolicy.StrongFocus


def test_the_filter_has_an_accessible_name_and_a_hint(
    window: MainWindow, picker: ModelPicker, qtbot, language: str
) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(picker, Qt.Key.Key_Space)
    popup = picker.popup
    words = window.training_vm.texts
    assert popup.filter.accessibleName() == words.model_filter_name()
    assert popup.filter.placeholderText() == words.model_filter_hint()
    assert popup.list.accessibleName() == words.model_list_name()
    if language == "pt_BR":
        assert popup.filter.accessibleName() == "Filtrar os modelos"
    # the list stays on the screen and at least as wide as the picker
    screen = picker.screen().availableGeometry()
    assert screen.contains(popup.frameGeometry())
    assert popup.width() >= picker.width()
    _key(qtbot, Qt.Key.Key_Escape)
