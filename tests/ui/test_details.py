from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import box, clear, type_into


def test_details_closed_by_default_and_toggles(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    assert not window.details.browser.isVisible()
    window.details.toggle.click()
    assert window.details.browser.isVisible()
    window.details.toggle.click()
    assert not window.details.browser.isVisible()


def test_opened_from_the_keyboard_tab_goes_from_the_toggle_into_the_text(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    toggle = window.details.toggle
    toggle.setFocus()
    qtbot.waitUntil(toggle.hasFocus)
    qtbot.keyClick(toggle, Qt.Key.Key_Space)
    qtbot.waitUntil(window.details.browser.isVisible)
    qtbot.keyClick(toggle, Qt.Key.Key_Tab)
    browser = window.details.browser
    assert QApplication.focusWidget() is browser
    assert "Memória de acumulação de gradiente" in browser.toPlainText()
    # a caret: Shift and the arrows select, Ctrl+C copies that (not the results)
    for _ in range(7):
        qtbot.keyClick(browser, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    selected = browser.textCursor().selectedText()
    assert len(selected) == 7
    QGuiApplication.clipboard().setText("sentinel")
    qtbot.keySequence(browser, QKeySequence.StandardKey.Copy)
    assert QGuiApplication.clipboard().text() == selected


def test_details_hold_the_seed_content(window: MainWindow) -> None:
    window.details.set_open(True)
    text = window.details.text()
    for heading in (
        "Memória de acumulação de gradiente",
        "O que a acumulação de gradiente faz",
        "Por que a memória permanece constante",
        "A fórmula",
        "Exemplo resolvido",
        "Lendo o resultado",
        "Perguntas frequentes (FAQ)",
        "Como funciona a acumulação de gradiente?",
        "Por que a memória permanece constante conforme os passos de acumulação aumentam?",
        "O que significa tamanho de lote efetivo?",
        "Aviso legal",
        "Próximas sugestões",
    ):
        assert heading in text, heading
    # the formula with its symbols restored, and their legend
    assert "E = b · a · g" in text
    assert "M = b · A" in text
    assert "passos de acumulação" in text


def test_worked_example_is_the_seeds_for_the_defaults(window: MainWindow) -> None:
    window.details.set_open(True)
    text = window.details.text()
    assert (
        "Considere um micro-lote de 4 amostras, acumulado em 8 passos em uma única GPU, "
        "com cada amostra custando 0,5 GB de ativações:"
    ) in text
    assert "4 × 8 × 1 = 32" in text
    assert "4 × 0,5 GB = 2 GB" in text
    assert "O treino se comporta como se o lote fosse 32, enquanto apenas 2 GB" in text
    assert (
        "Espalhar a mesma configuração por 4 GPUs em paralelismo de dados eleva o lote efetivo "
        "para 128, e a memória de ativação por GPU continua sendo 2 GB."
    ) in text


def test_worked_example_follows_the_inputs(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.details.set_open(True)
    type_into(qtbot, box(window, Field.MICRO_BATCH), "2")
    type_into(qtbot, box(window, Field.GPUS), "2")
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "1.5")
    text = window.details.text()
    assert "micro-lote de 2 amostras, acumulado em 8 passos em 2 GPUs" in text
    assert "2 × 8 × 2 = 32" in text
    assert "2 × 1,5 GB = 3 GB" in text
    assert "por 8 GPUs em paralelismo de dados eleva o lote efetivo para 128" in text


def test_worked_example_shows_the_prompt_without_a_result(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.details.set_open(True)
    clear(qtbot, box(window, Field.GPUS))
    text = window.details.text()
    assert "Exemplo resolvido" in text
    assert "Insira um valor para ver os resultados." in text
    assert "Considere um micro-lote" not in text


def test_f1_opens_details(window: MainWindow) -> None:
    window.menus.details_action.trigger()
    assert window.details.is_open()
    assert window.details.browser.isVisible()


def test_open_state_is_remembered(make_window, settings) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.details.set_open(True)
    first.close()
    first.language.uninstall()
    second = make_window(settings)
    assert second.details.is_open()
    assert second.details.browser.isVisible()


def test_open_panel_catches_up_after_typing(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.details.set_open(True)
    type_into(qtbot, box(window, Field.MICRO_BATCH), "3")
    qtbot.waitUntil(lambda: "micro-lote de 3 amostras" in window.details.browser.toPlainText())


def _names(window: MainWindow) -> list[str]:
    """How the window names the planner, the activation estimator and the chart."""
    assert window.inputs.estimate_button is not None
    window.tabs.setCurrentIndex(1)
    description = window.description
    window.tabs.setCurrentIndex(0)
    return [
        window.tabs.tabText(1),
        window.inputs.estimate_button.text().replace("&", ""),
        window.tabs.tabText(3),
        description.states_details.text().replace("&", ""),
        window.vm.field_label(Field.ACTIVATION_GB),
    ]


def test_suggestions_point_to_what_the_app_has(window: MainWindow) -> None:
    window.details.set_open(True)
    names = _names(window)
    assert names[:3] == [
        "Planejar execução",
        "Estimar a partir do modelo…",
        "Gráfico do compromisso",
    ]
    text = window.details.text()
    suggestions = text[text.index("Próximas sugestões") :]
    for name in names[:3]:
        assert f"\n{name}\n" in suggestions, name  # each one a heading of its own
    assert f"O botão sob “{names[4]}”" in suggestions
    reading = text[text.index("Lendo o resultado") : text.index("Perguntas frequentes")]
    assert f"a aba “{names[0]}”" in reading and f"o botão “{names[3]}”" in reading
    for elsewhere in ("VRAM", "Calculadora de Parâmetros", "LLM Training", "LoRA Parameter"):
        assert elsewhere not in text


def test_suggestions_in_english(window: MainWindow) -> None:
    window.set_language("en")
    window.details.set_open(True)
    names = _names(window)
    assert names[:3] == ["Plan a run", "Estimate from the model…", "Trade-off chart"]
    text = window.details.text()
    suggestions = text[text.index("Next suggestions") :]
    for name in names[:3]:
        assert f"\n{name}\n" in suggestions, name
    assert f"The button under “{names[4]}”" in suggestions
    assert f"the “{names[0]}” tab" in text and f"its “{names[3]}” button" in text
