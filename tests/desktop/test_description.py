"""The training description on a real desktop: a model chosen once with real keys
reaches the plan, the trainer's files and the chart; a figure typed over and taken back
with ↺; nothing fits, then the search's best made the description with two Alt keys.
Everything read back through the X clipboard, in both languages."""

from __future__ import annotations

import json
import time

import pytest

from tests.desktop.conftest import StartApp
from tests.desktop.driver import MNEMONICS, App

SAYS = {
    "pt_BR": {
        "model": "Modelo: Qwen2.5 0.5B Instruct",
        "estimated": "Ativação por amostra: 2,975 GB (estimado)",
        "typed": "Ativação por amostra: 3 GB (digitado)",
        "time": "Tempo por passo",
        "micro": "Tamanho do micro-lote: ",
        "nothing": "Nada cabe: só os estados do modelo e a sobrecarga",
        "fits": "Cabe na memória da GPU",
        "zero": "Estágio ZeRO: ZeRO-",
    },
    "en": {
        "model": "Model: Qwen2.5 0.5B Instruct",
        "estimated": "Activation per sample: 2.975 GB (estimated)",
        "typed": "Activation per sample: 3 GB (typed in)",
        "time": "Time per step",
        "micro": "Micro-batch size: ",
        "nothing": "Nothing fits: the model states and overhead alone",
        "fits": "Fits in GPU memory",
        "zero": "ZeRO stage: ZeRO-",
    },
}


def _plan(app: App, deselect: bool = True) -> list[str]:
    """The plan copied with Ctrl+C (``deselect``: End first, only from a number field:
    in a combo box End would choose its last item)."""
    copied = app.copy_results(deselect=deselect)
    assert copied is not None, "Ctrl+C on the planner copied nothing"
    return copied.text.splitlines()


def _choose_model(app: App, typed: str) -> None:
    """Alt to the model picker, a filter typed (the first key opens its list), Enter
    picks the first model left."""
    app.mnemonic("model")
    app.type(typed)
    time.sleep(0.3)
    app.key("Return")
    time.sleep(0.4)


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_a_model_chosen_once_reaches_every_tab(start_app: StartApp, lang: str) -> None:
    says = SAYS[lang]
    app = start_app(lang)
    app.next_tab()  # the planner, the description beside it
    time.sleep(0.6)
    _choose_model(app, "qwen2.5 0.5b")
    app.type_into("seq_len", "1024")  # the focus stays in the field: End moves its cursor
    time.sleep(0.3)
    app.screenshot(f"description-model-{lang}", keep=True)
    lines = _plan(app)
    assert says["model"] in lines and says["estimated"] in lines, lines[:20]
    assert says["time"] in lines
    micro = next(line for line in lines if line.startswith(says["micro"]))
    recommended = int(micro[len(says["micro"]) :].split()[0])

    app.next_tab()  # trainer configs: DeepSpeed's file holds the plan's micro-batch
    time.sleep(0.6)
    copied = app.copy("alt+" + MNEMONICS[lang]["copy_file"])
    assert copied is not None and copied.startswith("{"), copied
    config = json.loads(copied)
    assert config["train_micro_batch_size_per_gpu"] == recommended
    assert config["train_batch_size"] == 32

    app.next_tab()  # the chart marks the same configuration
    time.sleep(0.8)
    chart = app.copy_results()
    app.screenshot(f"description-chart-{lang}", keep=True)
    assert chart is not None and "E = 32" in chart.text, chart and chart.text


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_a_figure_typed_over_and_taken_back(start_app: StartApp, lang: str) -> None:
    says = SAYS[lang]
    app = start_app(lang)
    app.next_tab()
    time.sleep(0.6)
    _choose_model(app, "qwen2.5 0.5b")
    app.type_into("seq_len", "1024")
    app.type_into("plan_activation", "3")
    time.sleep(0.3)
    lines = _plan(app)
    assert says["typed"] in lines, lines[:20]
    app.mnemonic("plan_activation")
    app.key("Tab")  # the ↺ beside the typed field
    app.key("space")
    time.sleep(0.3)
    app.screenshot(f"description-back-{lang}", keep=True)
    lines = _plan(app, deselect=False)
    assert says["estimated"] in lines, lines[:20]


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_nothing_fits_then_the_best_setup_is_used(start_app: StartApp, lang: str) -> None:
    says = SAYS[lang]
    app = start_app(lang)
    app.next_tab()
    time.sleep(0.6)
    # Llama 3.1 8B (160 GB of model states on one 80 GB card)
    _choose_model(app, "llama 3.1 8b")
    app.type_into("seq_len", "4096")
    app.type_into("target_batch", "512")
    time.sleep(0.3)
    lines = _plan(app)
    app.screenshot(f"description-nothing-fits-{lang}", keep=True)
    assert any(line.startswith(says["nothing"]) for line in lines), lines[:40]

    app.type_into("gpus", "8")
    app.press_button("find_best")
    time.sleep(1.0)
    app.screenshot(f"description-search-{lang}", keep=True)
    app.press_button("use_selected")
    time.sleep(0.5)
    lines = _plan(app, deselect=False)
    app.screenshot(f"description-search-used-{lang}", keep=True)
    # the GPU verdict first; an offloading best setup adds that the node's memory is not given
    assert any(line.startswith(says["fits"]) for line in lines), lines[:40]
    # the best setup shards the model states (which ZeRO stage is the time model's call)
    assert any(line.startswith(says["zero"]) for line in lines), lines[:20]


PICKED = {
    "pt_BR": ("Modelo: Llama 3.1 8B", "Modelo: Qwen2.5 7B", "Modelo: Qwen2.5 14B"),
    "en": ("Model: Llama 3.1 8B", "Model: Qwen2.5 7B", "Model: Qwen2.5 14B"),
}


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_the_model_picker_filters_as_the_user_types(start_app: StartApp, lang: str) -> None:
    """Words typed on the picker narrow its list; Esc keeps the model, Enter picks the
    first one left; closed, Down walks to the next model of the family."""
    llama, qwen_7b, qwen_14b = PICKED[lang]
    app = start_app(lang)
    app.next_tab()
    time.sleep(0.6)
    _choose_model(app, "llama 3.1 8b")
    assert llama in _plan(app, deselect=False)

    app.mnemonic("model")
    app.type("70b")
    time.sleep(0.3)
    app.key("Escape")  # the list closes, the model stays
    time.sleep(0.3)
    assert llama in _plan(app, deselect=False)

    app.mnemonic("model")
    app.type("qwen2.5 7")  # Qwen2.5 7B and Qwen2.5 72B are left, the first is current
    time.sleep(0.4)
    app.screenshot(f"description-picker-{lang}", keep=True)
    app.key("Return")
    time.sleep(0.4)
    assert qwen_7b in _plan(app, deselect=False)

    app.key("Down")  # the closed picker: the next model
    time.sleep(0.4)
    assert qwen_14b in _plan(app, deselect=False)
