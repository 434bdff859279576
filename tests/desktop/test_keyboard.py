"""Keyboard, clipboard and menus as in any well-made desktop app (issue 9, item 3)."""

from __future__ import annotations

import json
import time

import pytest

from tests.desktop.conftest import StartApp
from tests.desktop.driver import MNEMONICS, App, changed_region, plain_number

CALCULATOR_SUMMARY = "E = 4 × 8 × 1 = 32"  # the default calculator's effective batch line


def test_language_switch_keeps_typed_values_and_results(app: App) -> None:
    app.type_into("activation", "0,75")
    app.key("Tab")
    results = app.copy_results()
    assert results is not None
    assert results["peak_memory"] == "M = 4 × 0,75 GB = 3 GB"

    app.choose_language("en")
    time.sleep(0.3)
    app.screenshot("language-en")
    assert app.window_name() == "Gradient Accumulation Memory Calculator"
    assert plain_number(app.field_text("activation"), "en") == "0.75"
    results = app.copy_results()
    assert results is not None
    assert (results["activation"], results["peak_memory"]) == ("0.75 GB", "M = 4 × 0.75 GB = 3 GB")

    # a value typed and not yet confirmed (focus still in the field) goes across too
    app.type_into("activation", "0,25")
    app.choose_language("pt_BR")
    time.sleep(0.3)
    app.screenshot("language-pt")
    assert plain_number(app.field_text("activation"), "pt_BR") == "0,25"
    results = app.copy_results()
    assert results is not None
    assert (results["activation"], results["peak_memory"]) == ("0,25 GB", "M = 4 × 0,25 GB = 1 GB")


def test_copy_in_details_copies_the_selection(app: App) -> None:
    app.key("F1")  # opens the details and puts the focus in them
    time.sleep(0.5)
    top = app.screenshot("details-open")
    app.key("Next")  # page down in the details: what moves is the details' text
    time.sleep(0.3)
    scrolled = app.screenshot("details-scrolled")
    region = changed_region(top, scrolled)
    assert region is not None, "F1 did not put the focus in a scrollable details view"
    x, y, w, h = region
    app.drag((x + 10, y + h // 3), (x + w * 2 // 3, y + h * 2 // 3))
    app.screenshot("details-selected", keep=True)
    copied = app.copy()
    assert copied is not None, "Ctrl+C with text selected in the details copied nothing"
    assert CALCULATOR_SUMMARY not in copied, "Ctrl+C copied the results, not the selection"
    assert len(copied.split()) >= 3, f"copied {copied!r}"

    # nothing selected any more (a click in the text): Ctrl+C copies the results again
    app.click(x + 10, y + h // 3)
    results = app.copy_results(deselect=False)
    assert results is not None and results["effective_batch"] == CALCULATOR_SUMMARY


def test_copy_on_the_planner_copies_the_plan(app: App) -> None:
    app.next_tab()
    app.type_into("target_batch", "4096")
    app.key("Tab")
    plan = app.copy_results()
    app.screenshot("planner-copy")
    assert plan is not None, "Ctrl+C on the planner copied nothing"
    assert CALCULATOR_SUMMARY not in plan.text, "Ctrl+C on the planner copied the calculator"
    assert "4.096" in plan.text, f"the copied plan lacks its target:\n{plan.text}"

    app.previous_tab()
    results = app.copy_results()
    assert results is not None and results["effective_batch"] == CALCULATOR_SUMMARY


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_ctrl_q_quits(start_app: StartApp, lang: str) -> None:
    app = start_app(lang)
    app.key("ctrl+q")
    assert app.wait_exit(5) == 0


def test_tab_walks_the_description_and_the_planner_and_comes_back(app: App) -> None:
    """From the target, Tab visits every control of the description and the planner once
    and comes back to it."""
    app.next_tab()
    app.type_into("target_batch", "777")
    seen: list[str | None] = []
    for _ in range(120):
        app.key("Tab")
        copied = app.copy(wait=0.25)
        seen.append(copied if copied is None else copied[:40])
        if copied == "777":
            break
    app.screenshot("planner-tab-walk")
    assert seen[-1] == "777", f"Tab never came back to the target: {seen}"
    assert len(seen) > 25, f"Tab skipped most of the description: {seen}"


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_trainer_tab_copies_the_file_a_framework_reads(start_app: StartApp, lang: str) -> None:
    """The description's GPUs and nodes typed on the real keyboard, the files copied
    through the X clipboard: what the user pastes is what runs."""
    app = start_app(lang)
    app.next_tab()
    app.type_into("gpus", "2")  # the description's data-parallel GPUs
    # the memory per GPU typed (no model): 1 GB per sample, 10 GB other, so that a
    # micro-batch is recommended (none is while the memory is not known)
    app.type_into("plan_activation", "1")
    app.type_into("other_memory", "10")
    app.next_tab()
    time.sleep(0.5)
    app.mnemonic("gpus")  # the nodes field follows the GPUs (it has no Alt key of its own)
    app.key("Tab", "ctrl+a")
    app.type("2")
    time.sleep(0.3)
    copied = app.copy("alt+" + MNEMONICS[app.lang]["copy_file"])
    assert copied is not None and copied.startswith("{"), copied
    config = json.loads(copied)
    # the first plan: a target of 32 on 2 GPUs, the micro-batch recommended (16 x 1 x 2)
    assert config["train_batch_size"] == 32
    assert config["train_micro_batch_size_per_gpu"] == 16
    assert config["zero_optimization"] == {"stage": 0}
    # the last format (Megatron), its second file: the launch line for 2 nodes of 1 GPU
    app.mnemonic("export_format")
    app.key("End", "Tab", "Right")
    time.sleep(0.3)
    app.screenshot(f"trainer-launch-{lang}")
    launch = app.copy("alt+" + MNEMONICS[app.lang]["copy_file"])
    assert launch is not None and "--nnodes 2 --nproc_per_node 1 " in launch, launch
    assert "pretrain_gpt.py" in launch
