"""The description's expert-parallel GPUs: read only for a mixture of experts, they
spread its experts (less memory per GPU) and add the all-to-alls to the time card."""

from __future__ import annotations

import pytest

from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from tests.planner_setup import planner, timed


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def test_expert_parallel_gpus_are_read_only_for_a_mixture_of_experts(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)  # Llama: dense
    assert not training.editable(F.EXPERT_PARALLEL)
    training.set_text(F.EXPERT_PARALLEL, "4")  # not read: nothing changes
    assert training.state.problems == ()
    description = training.description
    assert description is not None and description.expert_parallel == 1
    timed(training, "mixtral-8x7b")
    assert training.editable(F.EXPERT_PARALLEL)
    description = training.description
    assert description is not None and description.expert_parallel == 4
    spread = training.plan
    training.set_text(F.EXPERT_PARALLEL, "1")
    whole = training.plan
    assert spread is not None and whole is not None
    # the derived model states (kept beside the typed other memory) hold 1/4 of the experts
    assert spread.figures.states is not None and whole.figures.states is not None
    assert spread.figures.states.gpu_bytes < whole.figures.states.gpu_bytes
    results = vm.state.results
    assert results is not None and results.time is not None
    assert "expert_parallel" not in [p.key for p in results.time.parts]
    training.set_text(F.EXPERT_PARALLEL, "8")
    results = vm.state.results
    assert results is not None and results.time is not None
    keys = [p.key for p in results.time.parts]
    assert "expert_parallel" in keys
    training.set_text(F.EXPERT_PARALLEL, "3")  # does not divide the 8 GPUs
    assert training.plan is not None and training.plan.step_model is None
