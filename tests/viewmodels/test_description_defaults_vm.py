"""What the description assumes while nobody says. The nodes field: empty by default,
the plan then assumes the fewest nodes of at most 8 GPUs that split the world, and the
field's placeholder says how many; a typed count replaces it, and clearing the field
takes it back. The sequence length a model fills in follows the model until one is
typed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _nodes(vm: TrainingViewModel) -> int:
    d = vm.description
    assert d is not None, vm.state.problems
    return d.nodes


def test_empty_nodes_are_the_fewest_of_eight_gpus(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    assert vm.shown_text(F.NODES) == ""
    assert _nodes(vm) == 1 and vm.placeholder(F.NODES) == "1 (at most 8 GPUs each)"
    vm.set_text(F.GPUS, "16")
    assert _nodes(vm) == 2 and vm.placeholder(F.NODES) == "2 (at most 8 GPUs each)"
    vm.set_text(F.TENSOR_PARALLEL, "4")  # 64 GPUs in all
    assert _nodes(vm) == 8 and vm.placeholder(F.NODES) == "8 (at most 8 GPUs each)"
    vm.set_text(F.TENSOR_PARALLEL, "1")
    vm.set_text(F.GPUS, "12")  # two nodes of six
    assert _nodes(vm) == 2


def test_a_typed_count_replaces_it_and_clearing_takes_it_back(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_text(F.GPUS, "32")
    vm.set_text(F.NODES, "2")
    assert _nodes(vm) == 2 and vm.shown_text(F.NODES) == "2"
    vm.set_text(F.NODES, "")
    assert _nodes(vm) == 4 and vm.state.problems == ()
    vm.set_text(F.NODES, "3")  # a typed count the GPUs do not split over: said
    assert vm.state.problems == ("32 GPUs cannot be split evenly over 3 nodes.",)


def test_a_scenario_keeps_the_nodes_the_plan_assumed(qapp, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gradacc_desktop.viewmodels.training.scenarios import settings_of

    vm = TrainingViewModel(QLocale("en"))
    vm.set_text(F.GPUS, "24")
    assert settings_of(vm).nodes == 3


def test_the_filled_length_follows_the_model_until_one_is_typed(qapp) -> None:  # type: ignore[no-untyped-def]
    """Arrowing through the models, the sequence length each fills in follows them (GPT-2
    would otherwise leave its 1 024 tokens to every model after it); a typed length
    stays."""
    from gradacc_desktop.viewmodels.training.fields import Choice

    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "gpt2")
    assert vm.shown_text(F.SEQ_LEN) == "1,024"
    vm.set_choice(Choice.MODEL, "qwen3-0.6b")
    assert vm.shown_text(F.SEQ_LEN) == "4,096"
    vm.set_text(F.SEQ_LEN, "2048")
    vm.set_choice(Choice.MODEL, "gpt2")
    assert vm.shown_text(F.SEQ_LEN) == "2,048"
