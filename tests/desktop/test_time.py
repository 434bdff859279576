"""The time per step on a real desktop: the model chosen and the layout typed in the
training description with real keys (beside the trainer configs), the planner's plan
copied through the X clipboard."""

from __future__ import annotations

import time

import pytest

from tests.desktop.conftest import StartApp

SAYS = {
    "pt_BR": ("Tempo por passo", "por passo do otimizador", "Total de GPUs 2 = 1 de dados × 2"),
    "en": ("Time per step", "per optimizer step", "World size 2 = 1 data-parallel × 2"),
}
HEADING = {"pt_BR": "Tempo/passo", "en": "Time/step"}


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_a_model_and_a_layout_give_every_pair_its_time(start_app: StartApp, lang: str) -> None:
    app = start_app(lang)
    app.next_tab()  # the planner
    time.sleep(0.5)
    app.type_into("seq_len", "2048")
    app.next_tab()  # trainer configs
    time.sleep(0.5)
    app.mnemonic("model")
    app.type("qwen2.5 0.5b")  # the picker's filter: Enter picks the first model left
    time.sleep(0.3)
    app.key("Return")
    time.sleep(0.3)
    app.type_into("tensor_parallel", "2")
    time.sleep(0.3)
    app.screenshot(f"time-trainer-{lang}", keep=True)
    app.previous_tab()  # back to the planner
    time.sleep(0.5)
    plan = app.copy_results()
    app.screenshot(f"time-planner-{lang}", keep=True)
    assert plan is not None, "Ctrl+C on the planner copied nothing"
    title, step, world = SAYS[lang]
    lines = plan.text.splitlines()
    assert title in lines, plan.text
    card = lines[lines.index(title) + 1 :]
    assert step in card[0], card[:3]
    assert any(line.startswith(world) for line in card[:6]), card[:6]
    # the pairs table: every row ends with its time per step and tokens per second
    heading = next(i for i, line in enumerate(lines) if HEADING[lang] in line)
    rows = [line for line in lines[heading + 1 :] if line.strip()]
    assert len(rows) >= 3, lines[heading:]
    assert all(" s " in row and row.split()[0].isdigit() for row in rows), rows


PARTS = {
    "pt_BR": ("Para onde vai o tempo de um passo do otimizador", "Comunicação do paralelismo"),
    "en": ("Where one optimizer step's time goes", "Tensor-parallel communication"),
}


def _part_seconds(lines: list[str], name: str, lang: str) -> float:
    """The seconds of the breakdown's line that starts with ``name`` (ms read as s)."""
    line = next(line.strip() for line in lines if line.strip().startswith(name))
    point, group = (",", ".") if lang == "pt_BR" else (".", ",")
    value, unit = line.split()[-4:-2]
    number = float(value.replace(group, "").replace(point, "."))
    return number / 1000 if unit == "ms" else number


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_the_link_field_and_the_fp8_box_by_their_alt_keys(start_app: StartApp, lang: str) -> None:
    """Alt + the link's letter reaches the field, a slower link shows in the breakdown
    the plan copies; Alt+8 cannot tick the FP8 box on an A100 (no FP8 peak)."""
    app = start_app(lang)
    app.next_tab()  # the planner
    time.sleep(0.5)
    app.type_into("seq_len", "2048")
    app.mnemonic("model")
    app.type("qwen2.5 0.5b")
    time.sleep(0.3)
    app.key("Return")
    time.sleep(0.3)
    app.type_into("tensor_parallel", "2")
    time.sleep(0.3)
    title, tensor = PARTS[lang]
    before = app.copy_results()
    assert before is not None
    lines = before.text.splitlines()
    assert title in lines, before.text
    fast = _part_seconds(lines, tensor, lang)
    app.type_into("link", "3")  # a tenth of a PCIe link
    time.sleep(0.3)
    assert app.field_text("link") == "3"
    after = app.copy_results()
    assert after is not None
    assert _part_seconds(after.text.splitlines(), tensor, lang) > 10 * fast
    app.press_button("fp8")  # disabled on an A100: nothing happens
    again = app.copy_results()
    assert again is not None and again.text == after.text
    app.screenshot(f"time-breakdown-{lang}", keep=True)
