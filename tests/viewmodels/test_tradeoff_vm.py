from __future__ import annotations

from decimal import Decimal

from PySide6.QtCore import QLocale

from gradacc_desktop.viewmodels.tradeoff import TradeoffViewModel
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from tests.planner_setup import described


def _vm(locale: str, other: str | None = "67,5") -> TradeoffViewModel:
    training = TrainingViewModel(QLocale(locale))
    point = "," if locale == "pt_BR" else "."
    described(training, "4", f"0{point}5", None if other is None else other.replace(",", point))
    return TradeoffViewModel(training)


def test_clipboard_text_in_portuguese(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = _vm("pt_BR")  # 80 GB usable − 67,5 GB of other memory = 12,5 GB
    text = vm.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "Memória de ativação por GPU em função do lote efetivo"
    header = lines[2]
    assert header.split("   ") == [
        "Tamanho de lote efetivo (E)",
        "Micro-lote cresce (a = 1)",
        "Acumulação (b = 4)",
    ]
    rows = lines[3 : lines.index("", 3)]
    # one row per point of the accumulation curve: E = 4, 8, …; numbers right-aligned
    assert [row.split()[0] for row in rows[:3]] == ["4", "8", "12"]
    assert len({len(row) for row in rows}) == 1
    row_32 = next(row for row in rows if row.split()[0] == "32")
    assert row_32.split() == ["32", "16", "GB", "2", "GB"]
    assert row_32.endswith("2 GB") and len(row_32) == len(header)
    assert "Disponível para ativações por GPU: 12,5 GB" in lines
    assert "Sua configuração: E = 32, 2 GB por GPU" in lines
    assert lines[-1].startswith("Aumentar o micro-lote para chegar a E = 32")
    assert text.endswith("\n")


def test_clipboard_text_in_english_with_large_numbers(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    vm = TradeoffViewModel(TrainingViewModel(QLocale("en")))
    described(vm._training, "12,345", "1.5", None)
    vm._training.set_text(TrainingField.TARGET, "98,760")
    text = vm.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "Activation memory per GPU against effective batch"
    assert lines[2].split("   ") == [
        "Effective batch size (E)",
        "Micro-batch grows (a = 1)",
        "Accumulation (b = 12,345)",
    ]
    assert lines[3].split() == ["12,345", "18,517.5", "GB", "18,517.5", "GB"]
    assert "Your configuration: E = 98,760, 18,517.5 GB per GPU" in lines
    # no other memory known: no available line
    assert not any(line.startswith("Available") for line in lines)


def test_nothing_to_copy_without_a_result(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("en")
    vm._training.set_text(TrainingField.GPUS, "")
    assert vm.clipboard_text() is None
    assert vm.empty_text() == "Correct the training description to see the chart."
    vm._training.set_text(TrainingField.GPUS, "1")
    vm._training.set_text(TrainingField.ACTIVATION, "")
    assert vm.clipboard_text() is None
    assert "activation per sample" in vm.empty_text()


def test_nothing_fits_is_said_rather_than_asking_for_what_is_given(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("en", other="90")  # more than the 80 GB card before any activation
    vm._training.set_choice(Choice.RECOMMEND, True)
    assert vm.clipboard_text() is None
    assert vm.empty_text().startswith("Nothing to draw: not even a micro-batch of 1 fits")


def test_axis_takes_the_densest_labels_that_fit(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("pt_BR")

    def width(label: str) -> float:
        return 10.0 * len(label)  # 10 px per character

    roomy = vm.axis(64, True, 1000.0, width, 10.0, 10)
    assert roomy.labels == ("0", "10", "20", "30", "40", "50", "60", "70")
    assert (roomy.top, roomy.tick_count, roomy.label_format) == (70.0, 8, "%.0f")
    tight = vm.axis(64, True, 100.0, width, 10.0, 10)
    assert tight.labels == ("0", "50", "100")  # 2 intervals of 50 px hold "100" + gap
    # a label wider than the whole axis still gets 0 and the top
    huge = vm.axis(2 * 10**18, True, 50.0, width, 10.0, 10)
    assert huge.labels == ("0", "2.000.000.000.000.000.000")
    fine = vm.axis(Decimal("2.3"), False, 1000.0, width, 10.0, 8)
    assert fine.labels == ("0,0", "0,5", "1,0", "1,5", "2,0", "2,5")
    assert fine.label_format == "%.1f"
