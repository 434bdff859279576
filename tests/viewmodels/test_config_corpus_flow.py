"""The config-file flow over the whole trainer-config corpus: a file checked in the
window, then the GPUs changed, gives the effective batch and micro-batch the framework
would run on that many GPUs — what ``gradacc check --world-size N`` says of the same
file — or, where the framework refuses the file there, the report says so."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.cli import main
from gradacc_desktop.viewmodels.config_check import CheckViewModel
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

CORPUS = sorted((Path(__file__).parents[1] / "data" / "trainer_configs").iterdir())


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _check(path: Path, world: int) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["check", str(path), "--world-size", str(world), "--json"])
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 60


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_changing_the_gpus_runs_the_file_as_its_framework_would(qapp, path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    check = CheckViewModel(vm)
    check.check(path)
    held = vm.held_batch
    if held is None:  # the file gives no whole batch: the description keeps its own
        assert vm.state.batch_note == ""
        return
    before = vm.description
    assert before is not None
    vm.set_text(F.GPUS, str(before.gpus * 3))
    d = vm.description
    assert d is not None and d.gpus == before.gpus * 3
    framework = _check(path, d.world)
    lines = check.report.splitlines()
    assert any(line.startswith(f"Checked on {d.world:,} GPUs in all") for line in lines), lines
    if framework["effective_batch"] is None:  # refused there: said, the last pair kept
        assert any(" would refuse it:" in line for line in lines), lines
        assert (d.micro_batch, d.target_batch) == (
            held.micro_batch,
            held.micro_batch * held.accumulation_steps * d.gpus,
        )
        return
    derived = framework["derived"]
    assert d.micro_batch == derived["micro_batch"]
    assert d.target_batch == framework["effective_batch"]
    assert d.target_batch == derived["micro_batch"] * derived["accumulation_steps"] * d.gpus
    assert vm.held_batch is not None
    assert f"= {d.target_batch:,})" in vm.state.batch_note


def test_most_files_give_a_whole_batch(qapp) -> None:  # type: ignore[no-untyped-def]
    """The flow above is exercised: 30 of the 66 files give their micro-batch and steps."""
    held = 0
    for path in CORPUS:
        vm = TrainingViewModel(QLocale("en"))
        CheckViewModel(vm).check(path)
        held += vm.held_batch is not None
    assert held >= 25
