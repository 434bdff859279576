"""The planner's "Training cost" card as a user reads it: what is trained, the wall-clock
time, the GPU-hours, the price in the currency chosen beside it and the total, in both
languages; the currency remembered; what is missing said instead of a number."""

from __future__ import annotations

from gradacc_desktop.core.time import to_decimal
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.planner.cost import CostCard
from gradacc_desktop.viewmodels.planner.cost import Currency
from gradacc_desktop.viewmodels.settings import CURRENCY, Settings
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, pick, show_tab, type_into
from tests.ui.layout_checks import settle

NBSP = "\u00a0"


def _card(window: MainWindow) -> CostCard:
    show_tab(window, window.planner_page)
    return window.planner.results.cost


def _llama(window: MainWindow, qtbot, price: str | None) -> None:  # type: ignore[no-untyped-def]
    """Llama 3.1 8B on 8 GPUs (memory typed so that pairs fit), a billion tokens."""
    pick(qtbot, choice_box(window, Choice.MODEL), "llama-3.1-8b")
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.ACTIVATION, "2"),
        (TrainingField.OTHER_MEMORY, "20"),
        (TrainingField.SEQ_LEN, "4096"),
        (TrainingField.TOKENS, "1000000000"),
    ):
        type_into(qtbot, described(window, field), text)
    if price is not None:
        type_into(qtbot, described(window, TrainingField.PRICE), price)


def _shown(card: CostCard) -> dict[str, str]:
    """Each visible row's label and its (first) value."""
    return {
        label.text(): card.values[0][row].text()
        for row, label in enumerate(card.labels)
        if label.isVisible()
    }


def _expected_total(window: MainWindow) -> tuple[str, str]:
    """The core's cost to the cent, as (whole part, cents) digits."""
    plan = window.training_vm.plan
    assert plan is not None and plan.run[0].totals.cost is not None
    whole, _point, cents = f"{to_decimal(plan.run[0].totals.cost, 2):.2f}".partition(".")
    return whole, cents


def test_the_card_in_portuguese_with_reais(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    card = _card(window)
    _llama(window, qtbot, "1,8")
    assert card.isVisible() and card.title.text() == "Custo do treino"
    assert card.currency.currentText() == "R$ (real)"
    shown = _shown(card)
    assert list(shown) == [
        "Treino",
        "Tempo de relógio",
        "GPU-horas",
        "Preço por GPU-hora",
        "Custo total",
    ]
    assert shown["Treino"] == "1.000.000.000 tokens · 477 passos do otimizador"
    assert shown["GPU-horas"].endswith(" (8 GPUs)")
    assert shown["Preço por GPU-hora"] == f"R${NBSP}1,80"
    whole, cents = _expected_total(window)
    grouped = f"{int(whole):,}".replace(",", ".")
    assert shown["Custo total"] == f"R${NBSP}{grouped},{cents}"
    assert card.values[0][4].font().bold()
    # one figure in one place: the time card says nothing of the run's cost
    time_texts = [
        label.text() for label in window.planner.results.time.findChildren(type(card.title))
    ]
    assert not any("GPU-hora" in text or "custo" in text for text in time_texts)


def test_the_card_in_english_with_dollars(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language="en")
    card = _card(window)
    _llama(window, qtbot, "1.8")
    assert card.title.text() == "Training cost"
    assert card.currency.currentText() == "US$ (US dollar)"
    shown = _shown(card)
    assert shown["Trained"] == "1,000,000,000 tokens · 477 optimizer steps"
    assert shown["Price per GPU-hour"] == "US$1.80"
    whole, cents = _expected_total(window)
    assert shown["Total cost"] == f"US${int(whole):,}.{cents}"


def test_the_currency_is_chosen_and_remembered(make_window, qtbot, settings: Settings) -> None:  # type: ignore[no-untyped-def]
    window = make_window()
    card = _card(window)
    _llama(window, qtbot, "2")
    pick(qtbot, card.currency, Currency.EUR)
    assert card.currency.currentText() == "€ (euro)"
    assert _shown(card)["Preço por GPU-hora"] == f"€{NBSP}2,00"
    assert _shown(card)["Custo total"].startswith(f"€{NBSP}")
    assert settings.get(CURRENCY) is Currency.EUR
    # a new window (the same settings): the euro again, not the language's real
    again = make_window()
    card = _card(again)
    _llama(again, qtbot, "2")
    assert card.currency.currentText() == "€ (euro)"
    assert _shown(card)["Preço por GPU-hora"] == f"€{NBSP}2,00"


def test_a_missing_price_or_run_size_is_said_not_guessed(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    card = _card(window)
    _llama(window, qtbot, None)
    settle()
    shown = _shown(card)
    assert list(shown) == ["Treino", "Tempo de relógio", "GPU-horas"]  # no price, no total
    assert card.missing.isVisible()
    assert card.missing.text() == (
        "Falta o preço para o total: digite o “Preço por GPU-hora” na descrição do treino."
    )
    type_into(qtbot, described(window, TrainingField.PRICE), "3")
    type_into(qtbot, described(window, TrainingField.TOKENS), "")
    shown = _shown(card)
    assert shown == {"Preço por GPU-hora": f"R${NBSP}3,00"}
    assert card.missing.text().startswith("Digite o “Tokens de treino”")
    assert not any(cells[4].isVisible() for cells in card.values)


def test_without_a_time_the_card_says_why(window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    card = _card(window)
    window.training_vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    settle()
    assert card.isVisible() and _shown(card) == {}
    assert card.missing.text().startswith("Sem tempo por passo, não há tempo nem custo do treino.")


def test_a_bad_stored_currency_falls_back_to_the_language(settings: Settings) -> None:
    settings.store.setValue(CURRENCY.key, "XYZ")
    assert settings.get(CURRENCY) is None
    settings.store.setValue(CURRENCY.key, "GBP")
    assert settings.get(CURRENCY) is Currency.GBP
