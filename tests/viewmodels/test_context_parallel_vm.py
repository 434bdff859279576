"""The description's context-parallel GPUs: read for every model, they split each
sequence (less activation memory per GPU, more GPUs in the world), refuse a sequence
they cannot split evenly and add the key/value sends to the time card when they show."""

from __future__ import annotations

import pytest

from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from tests.planner_setup import planner, timed


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def test_context_parallel_gpus_split_the_sequence(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training, seq_len="32768")
    assert training.editable(F.CONTEXT_PARALLEL)
    description = training.description
    assert description is not None and description.context_parallel == 1
    whole = training.plan
    training.set_text(F.CONTEXT_PARALLEL, "4")
    description = training.description
    assert description is not None and description.context_parallel == 4
    assert description.world == 4 * description.gpus
    split = training.plan
    assert whole is not None and split is not None
    assert split.figures.activation_per_gpu is not None
    assert whole.figures.activation_per_gpu is not None
    assert split.figures.activation_per_gpu == whole.figures.activation_per_gpu / 4
    results = vm.state.results
    assert results is not None and results.time is not None
    names = TimingTexts(training.formats)
    assert names.part_name("context_parallel") == "Context-parallel key/value sends"
    assert names.part_in_sentence("context_parallel") == "context-parallel key/value sends"
    training.set_text(F.CONTEXT_PARALLEL, "3")  # 32768 is not a multiple of 6
    assert training.plan is not None and training.plan.step_model is None
    # the panel says the description's problem, and the time card why there is no time,
    # in the words gradacc plan prints
    words = (
        "The sequence length 32,768 must be divisible by 2 x the context-parallel size (6): "
        "Megatron splits each sequence into 2·CP equal chunks."
    )
    assert words in training.state.problems
    results = vm.state.results
    assert results is not None and results.time is not None
    assert results.time.message == f"No time per step: {words}"
    training.set_text(F.CONTEXT_PARALLEL, "0")
    assert training.state.problems
