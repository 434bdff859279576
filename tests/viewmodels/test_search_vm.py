"""Find the best setup: the search of the training description on a number of GPUs in
words — the best, the ranking, why every other option is out — and using a result."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.time.gpus import CUSTOM_ID
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.search import SearchState, SearchViewModel
from gradacc_desktop.viewmodels.training.fields import PARAMS_MODEL, Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from tests.planner_setup import one_gpu_llama

PROMPT = (
    "Search every ZeRO stage, offload, recomputation, tensor and pipeline split and pair for "
    "the target batch on these GPUs: the fastest setup that fits and that the description's "
    "framework runs."
)


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _searched(world: str = "8") -> tuple[TrainingViewModel, SearchViewModel]:
    """The issue's Llama-3.1-8B plan searched on ``world`` GPUs."""
    training = one_gpu_llama()
    search = SearchViewModel(training)
    search.set_world_text(world)
    search.run()
    return training, search


def _seconds(text: str) -> Decimal:
    assert text.endswith(" s"), text
    return Decimal(text.removesuffix(" s"))


def test_nothing_searched_yet(qapp) -> None:  # type: ignore[no-untyped-def]
    training = TrainingViewModel(QLocale("en"))
    search = SearchViewModel(training)
    assert search.state == SearchState(message=PROMPT, world="1")
    assert search.result is None and search.use() is None
    assert search.world_label() == "GPUs in all"
    assert search.world_placeholder() == "1"
    assert search.world_hint() == (
        "Every GPU of the run (data × tensor × pipeline × context). Empty: the description's, 1."
    )
    seen: list[SearchState] = []
    search.stateChanged.connect(seen.append)
    training.set_text(F.GPUS, "8")
    training.set_text(F.TENSOR_PARALLEL, "2")
    assert search.world_placeholder() == "16"  # data × tensor × pipeline
    training.set_text(F.CONTEXT_PARALLEL, "2")
    assert search.world_placeholder() == "32"  # × context
    # followed live: the field's placeholder comes with each state
    assert [state.world for state in seen] == ["8", "16", "32"]


def test_the_best_setup_and_the_ranking(qapp) -> None:  # type: ignore[no-untyped-def]
    _training, search = _searched()
    state = search.state
    assert state.message == "" and state.problem == "" and not state.stale
    assert state.ranking
    first = state.ranking[0]
    # the best's offload says once, here, that a node's memory was not given to check it
    unchecked = first.setup.replace(
        "per node)", "per node, not checked: a node's memory is not given)"
    )
    assert unchecked != first.setup
    assert state.best == (
        f"Best: {unchecked}, micro-batch {first.pair} accumulation steps, {first.step} per step, "
        f"{first.memory} per GPU."
    )
    assert not any("not checked" in row.setup for row in state.ranking)
    # every ranked setup reaches 512 exactly on 8 GPUs: b · a · data = 512
    for row in state.ranking:
        b, a = (int(n) for n in row.pair.split(" × "))
        found = re.search(r"data (\d+)", row.setup)
        data = 8 if found is None else int(found.group(1))
        assert b * a * data == 512, row
        assert row.memory.endswith(" GB")
        # the recomputation is said right after ZeRO, none too
        said = row.setup.split(" · ")[1]
        assert said in ("no recomputation", "full recomputation"), row
    # fastest first, as shown
    steps = [_seconds(row.step) for row in state.ranking]
    assert steps == sorted(steps)
    # every ranked setup fits the A100's 80 GB
    assert all(Decimal(row.memory.removesuffix(" GB")) <= 80 for row in state.ranking)


def test_every_other_option_says_why_it_is_out(qapp) -> None:  # type: ignore[no-untyped-def]
    _training, search = _searched()
    exclusions = search.state.exclusions
    assert exclusions and len(set(exclusions)) == len(exclusions)
    slower = re.compile(r".+: (\d+(\.\d+)?) % slower \((\d+(\.\d+)?) s per step at best\)\.")
    tie = re.compile(r".+: as fast, but a simpler setup comes first\.")
    best = _seconds(search.state.ranking[0].step)
    for line in exclusions:
        found = slower.fullmatch(line)
        assert found is not None or tie.fullmatch(line), line
        if found is not None:
            assert Decimal(found.group(1)) > 0 and Decimal(found.group(3)) >= best
    recomputation = [line for line in exclusions if line.startswith("Full recomputation: ")]
    assert len(recomputation) == 1 and "% slower" in recomputation[0]


def test_on_one_gpu_what_does_not_fit_is_said(qapp) -> None:  # type: ignore[no-untyped-def]
    _training, search = _searched("1")
    best = search.state.best
    # 20 bytes per parameter are 161 GB on the one GPU: only an offloaded setup fits
    # with what a node's CPU memory must hold for it (the node's memory is not given)
    offloaded = (
        r" · optimizer( and parameters)? offloaded \([\d,.]+ GB of CPU memory per node, "
        r"not checked: a node's memory is not given\), "
    )
    assert re.search(offloaded + "micro-batch ", best), best
    _training.set_text(F.CPU_MEMORY, "2048")  # given: said, and checked
    search.run()
    offloaded = r" · optimizer( and parameters)? offloaded \([\d,.]+ GB of CPU memory per node\), "
    assert re.search(offloaded + "micro-batch ", search.state.best), search.state.best
    not_fit = re.compile(
        r"(No ZeRO|No offload): does not fit \(short by \d+(\.\d+)? GB per GPU at one sample\)\."
    )
    lines = [line for line in search.state.exclusions if line.startswith(("No ZeRO", "No off"))]
    assert len(lines) == 2 and all(not_fit.fullmatch(line) for line in lines), lines


def test_rules_the_frameworks_refuse_are_named(qapp) -> None:  # type: ignore[no-untyped-def]
    training, search = _searched("6")
    training.set_text(F.TARGET, "7")  # prime: only one data-parallel GPU reaches it
    search.run()
    exclusions = search.state.exclusions
    # the rule book's own sentences, then the search's reason
    assert (
        "3 pipeline stages: refused — The 32 layers do not split over 3 pipeline stages "
        "(num_layers must be divisible by pipeline_model_parallel_size). DeepSpeed's "
        'pipeline engine refuses ZeRO-2 with pipeline stages ("ZeRO-2 and ZeRO-3 are '
        'incompatible with pipeline parallelism"): use ZeRO-1.'
    ) in exclusions
    assert "No pipeline: refused — The data-parallel GPUs do not divide the target batch." in (
        exclusions
    )
    # one data-parallel GPU needs 6 = 3 x 2 or 6 x 1 stages: none splits 32 layers
    assert search.state.ranking == ()
    assert search.state.message == (
        "No setup fits and reaches the target on these GPUs: see why below."
    )


def test_use_makes_the_best_the_description(qapp) -> None:  # type: ignore[no-untyped-def]
    training, search = _searched()
    planner = PlannerViewModel(training, CalculatorViewModel(QLocale("en")))
    first = search.state.ranking[0]
    assert search.result is not None
    chosen = search.result.ranking[0]
    seen: list[SearchState] = []
    search.stateChanged.connect(seen.append)
    message = search.use(0)
    assert message == f"The training description now uses {first.setup}."
    assert training.choice(Choice.RECOMMEND) is False
    assert training.choice(Choice.ZERO) is chosen.zero_stage
    assert training.choice(Choice.OFFLOAD) is chosen.offload
    assert training.choice(Choice.RECOMPUTE) is chosen.recompute
    layout = (F.GPUS, F.TENSOR_PARALLEL, F.PIPELINE_STAGES)
    assert [training.value(f) for f in layout] == [
        chosen.gpus,
        chosen.tensor_parallel,
        chosen.pipeline_stages,
    ]
    b, a = first.pair.split(" × ")
    assert training.shown_text(F.MICRO_BATCH) == b
    results = planner.state.results
    assert results is not None and results.configuration is not None
    assert results.configuration.summary.startswith(f"Micro-batch {b} · accumulation steps {a} · ")
    # the plan of the description agrees with the search: it fits, in the same memory
    assert results.fit.fits and f": {first.memory} of 80 GB." in results.fit.usage
    time = results.time
    assert time is not None and time.summary.startswith(f"{first.step} per optimizer step")
    # a setup the search chose is still of the searched description: the results stay
    # true, and its row says it is in use
    assert not search.state.stale and len(seen) == 1
    assert search.state.ranking[0].in_use and search.state.ranking[0].best
    assert search.state.ranking[0].versus == "★ Best · in use"
    assert not any(row.in_use for row in search.state.ranking[1:])
    second = search.state.ranking[1]
    assert search.use(1) == f"The training description now uses {second.setup}."
    assert training.shown_text(F.MICRO_BATCH) == second.pair.split(" × ")[0]
    assert search.use(len(search.state.ranking)) is None


def test_results_go_stale_after_a_change(qapp) -> None:  # type: ignore[no-untyped-def]
    training, search = _searched()
    best = search.state.best
    seen: list[SearchState] = []
    search.stateChanged.connect(seen.append)
    training.set_text(F.TARGET, "256")
    assert len(seen) == 1 and seen[0].stale and seen[0].best == best
    training.set_text(F.TARGET, "128")  # already stale: said once
    assert len(seen) == 1
    # using a stale setup would undo the change: nothing happens
    assert search.use(0) is None and training.description is not None
    assert training.description.target_batch == 128
    search.set_world_text("4")
    assert len(seen) == 2 and search.state.stale
    search.run()
    assert not search.state.stale and search.state.best != best
    training.set_text(F.TARGET, "512")
    assert search.state.stale
    training.set_text(F.TARGET, "128")  # back to the searched description
    assert not search.state.stale and search.use(0) is not None


def test_what_cannot_be_searched_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    training = TrainingViewModel(QLocale("en"))
    search = SearchViewModel(training)
    search.run()
    assert search.state == SearchState(
        world="1", message="Choose the model in the training description first."
    )
    training.set_choice(Choice.MODEL, PARAMS_MODEL)  # a count has no activation
    search.run()
    assert search.state.message == (
        "The search needs the activation per sample: a model with its shape and the "
        "sequence length."
    )
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_text(F.SEQ_LEN, "")
    search.run()
    assert search.state.message.startswith("The search needs the activation per sample")
    training.set_text(F.SEQ_LEN, "4096")
    training.set_text(F.NODES, "5")
    search.set_world_text("12")
    search.run()
    assert search.state.message == (
        "These GPUs cannot be split evenly over the description's nodes."
    )
    assert search.state.ranking == () and search.use() is None
    training.set_text(F.TARGET, "")  # no description: the prompt
    search.run()
    assert search.state == SearchState(message=PROMPT, world="1")


def test_nothing_fits_on_these_gpus(qapp) -> None:  # type: ignore[no-untyped-def]
    training, search = _searched("1")
    training.set_text(F.SEQ_LEN, "131072")  # its whole context on one card
    search.run()
    state = search.state
    assert state.message == "No setup fits and reaches the target on these GPUs: see why below."
    assert state.best == "" and state.ranking == ()
    assert state.exclusions and all(
        ": does not fit (short by " in line for line in state.exclusions
    )


def test_the_gpus_field(qapp) -> None:  # type: ignore[no-untyped-def]
    training = one_gpu_llama()
    search = SearchViewModel(training)
    seen: list[SearchState] = []
    search.stateChanged.connect(seen.append)
    search.set_world_text("x")
    assert search.state.problem == "GPUs in all: “x” is not a number."
    search.set_world_text("x")  # nothing new
    assert len(seen) == 1
    search.run()
    assert search.state == SearchState(
        message=PROMPT, problem="GPUs in all: “x” is not a number.", world="1"
    )
    assert search.result is None
    search.set_world_text("0")
    assert search.state.problem == "GPUs in all: enter a value from 1 to 100,000."
    search.set_world_text("")  # empty: the description's GPUs
    assert search.state.problem == ""
    search.run()
    assert search.result is not None and search.result.world_size == 1


def test_a_language_switch_rewords_the_results(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    training, search = _searched()
    english = search.state
    catalogue("pt_BR")
    training.set_language(QLocale("pt_BR"))
    assert not search.state.stale  # the same description in other words
    search.set_language()
    state = search.state
    first = state.ranking[0]
    unchecked = first.setup.replace(
        "por nó)", "por nó, não verificado: a memória de um nó não foi informada)"
    )
    assert state.best == (
        f"Melhor: {unchecked}, micro-lote {first.pair} passos de acumulação, "
        f"{first.step} por passo, {first.memory} por GPU."
    )
    assert first.memory == english.ranking[0].memory.replace(".", ",")
    assert search.world_input().read("1.000") == Decimal(1000)


def test_a_card_without_speed_ranks_by_simplicity(qapp) -> None:  # type: ignore[no-untyped-def]
    training = TrainingViewModel(QLocale("en"))
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_text(F.SEQ_LEN, "4096")
    training.set_text(F.TARGET, "512")
    training.set_choice(Choice.CARD, CUSTOM_ID)
    training.set_text(F.GPU_MEMORY, "80")
    search = SearchViewModel(training)
    search.set_world_text("8")
    search.run()
    state = search.state
    assert state.best.endswith(
        "(Ranked by simplicity: the card has no speed figures to time the setups.)"
    )
    assert all(row.step == "—" for row in state.ranking)
    simpler = ": a simpler setup that fits comes first."
    assert any(line.endswith(simpler) for line in state.exclusions)


def test_a_timed_best_never_claims_the_card_has_no_speed(qapp) -> None:  # type: ignore[no-untyped-def]
    # the description's own layout (one GPU over 8 nodes) runs nowhere; the searched ones do
    training = TrainingViewModel(QLocale("en"))
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_text(F.SEQ_LEN, "4096")
    training.set_text(F.TARGET, "512")
    training.set_text(F.NODES, "8")
    search = SearchViewModel(training)
    search.set_world_text("64")
    search.run()
    assert search.state.best.startswith("Best: ")
    assert "no speed figures" not in search.state.best
