from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.ui.main_window import MainWindow
from tests.ui.helpers import box, clear, menus_of, results_visible, shown, type_into
from tests.ui.layout_checks import fit_label_cut


def test_opens_with_the_seed_defaults(window: MainWindow) -> None:
    assert window.windowTitle() == "Calculadora de Memória de Acumulação de Gradiente"
    assert window.header.title.text() == "Calculadora de Memória de Acumulação de Gradiente"
    assert window.header.description.text().startswith("Calcule o tamanho de lote efetivo")
    assert [box(window, f).text() for f in Field] == ["4", "8", "1", "0,5 GB"]
    assert shown(window) == ("32", "2 GB")
    assert window.results.effective.formula.text() == "E = 4 × 8 × 1 = 32"
    assert window.results.activation.formula.text() == "M = 4 × 0,5 GB = 2 GB"
    assert window.results.effective.title.text() == "Tamanho de lote efetivo"
    assert window.results.activation.title.text() == "Pico de memória de ativação por GPU"


def test_groups_and_labels_follow_the_seed(window: MainWindow) -> None:
    titles = [g.title() for g in window.inputs._groups.values()]
    assert titles == ["Lotes", "Memória"]
    labels = [window.inputs.labels[f].text().replace("&", "") for f in Field]
    assert labels == [
        "Tamanho do micro-lote",
        "Passos de acumulação",
        "GPUs em paralelismo de dados",
        "Ativação por amostra",
    ]
    assert window.results.title() == "Resultados"
    assert window.details.toggle.text() == "Detalhes"


def test_every_input_has_a_buddy_label_and_accessible_name(window: MainWindow) -> None:
    for field in Field:
        label: QLabel = window.inputs.labels[field]
        spin = box(window, field)
        assert label.buddy() is spin
        assert "&" in label.text()
        assert spin.accessibleName() == label.text().replace("&", "")
        assert spin.toolTip()


def test_mnemonics_are_unique_in_the_window(window: MainWindow) -> None:
    def mnemonic(text: str) -> str:
        return text[text.index("&") + 1].lower()

    texts = [window.inputs.labels[f].text() for f in Field]
    texts += [window.copy_button.text(), window.inputs.estimate_button.text()]
    texts += [m.title() for m in menus_of(window)]
    keys = [mnemonic(t) for t in texts]
    assert len(keys) == len(set(keys)), texts


def test_alt_mnemonic_focuses_the_field(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    box(window, Field.ACTIVATION_GB).setFocus()
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.AltModifier)
    assert QApplication.focusWidget() in (
        box(window, Field.ACCUMULATION_STEPS),
        box(window, Field.ACCUMULATION_STEPS).lineEdit(),
    )


def test_tab_order_follows_the_layout(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = box(window, Field.MICRO_BATCH)
    first.setFocus()
    order = [first]
    for _ in range(5):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        widget = QApplication.focusWidget()
        order.append(widget.parentWidget() if widget.parentWidget() in order else widget)
    expected = [
        *[box(window, f) for f in Field][:4],
        window.inputs.estimate_button,
        window.copy_button,
        window.details.toggle,
    ][:6]
    assert [o.objectName() for o in order] == [e.objectName() for e in expected]


def test_typing_updates_results_live(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.GPUS), "4")
    assert shown(window) == ("128", "2 GB")
    type_into(qtbot, box(window, Field.MICRO_BATCH), "16")
    assert shown(window) == ("512", "8 GB")
    assert window.results.effective.formula.text() == "E = 16 × 8 × 4 = 512"
    type_into(qtbot, box(window, Field.ACCUMULATION_STEPS), "32")
    assert shown(window) == ("2.048", "8 GB")


def test_clearing_a_field_shows_the_prompt(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    clear(qtbot, box(window, Field.ACCUMULATION_STEPS))
    assert not results_visible(window)
    assert window.results.prompt.isVisible()
    assert window.results.prompt.text() == "Insira um valor para ver os resultados."
    assert window.results.problems.text() == "Passos de acumulação: insira um valor."
    qtbot.keyClicks(box(window, Field.ACCUMULATION_STEPS), "2")
    assert results_visible(window)
    assert shown(window) == ("8", "2 GB")


def test_zero_is_explained_not_computed(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "0")
    assert not results_visible(window)
    assert window.results.problems.text() == (
        "Tamanho do micro-lote: insira um valor de 1 a 1.000.000."
    )


def test_period_is_a_decimal_point_in_portuguese(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    spin = box(window, Field.ACTIVATION_GB)
    type_into(qtbot, spin, "0.5")
    assert spin.text() == "0.5"  # as typed while editing
    assert shown(window) == ("32", "2 GB")
    qtbot.keyClick(spin, Qt.Key.Key_Tab)
    assert spin.text() == "0,5 GB"  # the same value in the locale's form once editing ends
    type_into(qtbot, spin, "1")
    qtbot.keyClick(spin, Qt.Key.Key_Period, Qt.KeyboardModifier.KeypadModifier)
    qtbot.keyClicks(spin, "25")
    assert window.vm.entry(Field.ACTIVATION_GB) == Decimal("1.25")
    assert shown(window) == ("32", "5 GB")
    type_into(qtbot, spin, "0,75")
    assert shown(window) == ("32", "3 GB")
    assert shown(window) == ("32", "3 GB")


def test_huge_values_are_grouped_and_fit(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    card_width = window.results.width()
    for field in (Field.MICRO_BATCH, Field.ACCUMULATION_STEPS, Field.GPUS):
        type_into(qtbot, box(window, field), "1000000")
    type_into(qtbot, box(window, Field.ACTIVATION_GB), "10000")
    assert box(window, Field.MICRO_BATCH).text() == "1.000.000"
    assert shown(window) == ("1.000.000.000.000.000.000", "10.000.000.000 GB")
    for label in (window.results.effective.value, window.results.effective.formula):
        assert fit_label_cut(label) is None  # shrunk to fit, shown whole
    assert window.results.width() == card_width


def test_results_pane_does_not_jump(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    before = window.results.geometry()
    type_into(qtbot, box(window, Field.MICRO_BATCH), "123456")
    clear(qtbot, box(window, Field.GPUS))
    qtbot.keyClicks(box(window, Field.GPUS), "7")
    QApplication.processEvents()
    assert window.results.geometry() == before
    clear(qtbot, box(window, Field.GPUS))
    QApplication.processEvents()
    assert window.results.geometry() == before


def test_copy_button_puts_text_and_html_on_clipboard(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(window.copy_button, Qt.MouseButton.LeftButton)
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text().splitlines() == [
        "Calculadora de Memória de Acumulação de Gradiente",
        "",
        "Tamanho do micro-lote: 4",
        "Passos de acumulação: 8",
        "GPUs em paralelismo de dados: 1",
        "Ativação por amostra: 0,5 GB",
        "Tamanho de lote efetivo: E = 4 × 8 × 1 = 32",
        "Pico de memória de ativação por GPU: M = 4 × 0,5 GB = 2 GB",
        "Amostras por GPU em cada passo do otimizador (b × a): 32 = 4 × 8",
    ]
    assert mime.hasHtml()
    assert "<table>" in mime.html()
    assert "Tamanho de lote efetivo" in mime.html()
    assert window.statusBar().currentMessage() == (
        "Resultados copiados para a área de transferência."
    )


def test_ctrl_c_in_a_field_without_selection_copies_results(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    QGuiApplication.clipboard().setText("old")
    spin = box(window, Field.GPUS)
    spin.setFocus()
    spin.lineEdit().deselect()
    qtbot.keyClick(spin, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert (
        QGuiApplication.clipboard()
        .text()
        .startswith("Calculadora de Memória de Acumulação de Gradiente")
    )


def test_ctrl_c_with_a_selection_copies_the_selection(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    spin = box(window, Field.ACCUMULATION_STEPS)
    type_into(qtbot, spin, "1234")
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClick(spin, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "1234"


def test_copy_action_uses_the_platform_shortcut(window: MainWindow) -> None:
    assert window.menus.copy_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Copy)


def test_nothing_is_copied_without_a_result(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    QGuiApplication.clipboard().setText("keep me")
    clear(qtbot, box(window, Field.MICRO_BATCH))
    window.menus.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == "keep me"
    assert window.statusBar().currentMessage() == (
        "Nada foi copiado: insira um valor para ver os resultados."
    )


def test_restore_defaults(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "64")
    clear(qtbot, box(window, Field.GPUS))
    window.menus.restore_action.trigger()
    assert [box(window, f).text() for f in Field] == ["4", "8", "1", "0,5 GB"]
    assert shown(window) == ("32", "2 GB")
    assert results_visible(window)


def test_menus(window: MainWindow) -> None:
    def texts(menu) -> list[str]:  # type: ignore[no-untyped-def]
        return [a.text() for a in menu.actions() if not a.isSeparator()]

    assert [m.title() for m in menus_of(window)] == [
        "&Arquivo",
        "&Idioma",
        "Aj&uda",
    ]
    assert texts(window.menus.file_menu) == [
        "&Abrir configuração de treino…",
        "Abrir ce&nário…",
        "Sal&var cenário…",
        "&Copiar resultados",
        "&Estimar ativação a partir do modelo…",
        "&Restaurar padrões",
        "&Sair",
    ]
    assert texts(window.menus.language_menu) == ["&Português (Brasil)", "&English"]
    assert texts(window.menus.help_menu) == [
        "&Ajuda desta aba",
        "&Detalhes",
        "&Sobre",
        "Sobre o &Qt",
    ]


def test_quit_closes_and_saves(window: MainWindow, qtbot, settings) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.MICRO_BATCH), "6")
    window.menus.quit_action.trigger()
    assert not window.isVisible()
    assert settings.inputs().micro_batch == 6


def test_locale_of_widgets_is_portuguese(window: MainWindow) -> None:
    assert box(window, Field.ACTIVATION_GB).locale().name() == QLocale("pt_BR").name()


def test_arrow_keys_and_page_keys_step_the_values(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    spin = box(window, Field.ACCUMULATION_STEPS)
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.text() == "9"
    assert shown(window) == ("36", "2 GB")
    activation = box(window, Field.ACTIVATION_GB)
    activation.setFocus()
    qtbot.keyClick(activation, Qt.Key.Key_Up)
    assert activation.text() == "0,6 GB"
    assert shown(window) == ("36", "2,4 GB")
    qtbot.keyClick(activation, Qt.Key.Key_Down)
    qtbot.keyClick(activation, Qt.Key.Key_Down)
    assert shown(window) == ("36", "1,6 GB")


def test_results_are_announced_to_screen_readers(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    type_into(qtbot, box(window, Field.GPUS), "2")
    value = window.results.effective.value
    assert value.accessibleName() == "Tamanho de lote efetivo: 64"
    assert value.accessibleDescription() == "E = 4 × 8 × 2 = 64"


def test_about_names_version_license_and_offline(window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMessageBox

    from gradacc_desktop import __version__

    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "about", lambda parent, title, text: seen.append((title, text))
    )
    window.menus.about_action.trigger()
    title, text = seen[0]
    assert title == "Sobre a Calculadora de Memória de Acumulação de Gradiente"
    assert f"Versão {__version__}" in text
    assert "Funciona offline" in text
    assert "licença MIT" in text
