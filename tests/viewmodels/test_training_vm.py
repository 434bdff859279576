"""The training description's view-model: what its fields and choices hold, the figures
it derives and says where they come from, the model it reads, and its problems."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import Method, TrainingDescription
from gradacc_desktop.core.training.figures import Source
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.training.fields import (
    CHOICES,
    CONFIG_MODEL,
    PARAMS_MODEL,
    SHAPE_MODEL,
    Choice,
)
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel
from tests.configs import config_path
from tests.planner_setup import one_gpu_llama, training

CARDS = load_gpu_table()


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _watched(vm: TrainingViewModel) -> tuple[list[TrainingState], list[frozenset[object]]]:
    states: list[TrainingState] = []
    replaced: list[frozenset[object]] = []
    vm.stateChanged.connect(states.append)
    vm.inputsReplaced.connect(replaced.append)
    return states, replaced


def test_the_first_description(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    assert vm.state.problems == () and vm.plan is not None
    d = vm.description
    assert d is not None and d.model is None
    assert (d.target_batch, d.gpus, d.nodes) == (32, 1, 1)
    assert d.card is not None and d.card.id == "a100-80gb"
    notes = vm.state.notes
    assert notes.model == (
        "Choose the model: the activation per sample, the model states and the time per "
        "step are derived from it."
    )
    assert notes.usable == "Usable: 80 GB per GPU."
    assert notes.missing == (
        "Activation per sample: choose the model, or type the value.",
        "Other memory: choose the model, or type the value.",
    )
    # the plan recommends the micro-batch and the card gives its memory: not typed
    assert not vm.editable(F.MICRO_BATCH) and not vm.editable(F.GPU_MEMORY)
    assert vm.shown_text(F.GPU_MEMORY) == "80 GB"
    assert F.MODEL_PARAMS not in vm.state.visible and F.LORA_RANK not in vm.state.visible


def test_the_activation_note_names_the_step_it_was_estimated_for(qapp) -> None:  # type: ignore[no-untyped-def]
    """The kernel, the recomputation and the loss change the figure: the note says them."""
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_choice(Choice.ATTENTION, AttentionKernel.EAGER)
    vm.set_choice(Choice.RECOMPUTE, Recompute.FULL)
    vm.set_choice(Choice.FUSED_LOSS, True)
    assert vm.state.notes.activation.text.endswith(
        " per sample (the whole model on one GPU, 4,096 tokens, bf16, eager attention, full "
        "recomputation, fused loss; transformers' saved tensors)."
    )


def test_a_bundled_model_derives_both_memory_figures(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    states, replaced = _watched(vm)
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    assert len(states) == 1  # one choice, one plan
    # its own context, at most 4,096 tokens, is written where the user sees it
    assert vm.shown_text(F.SEQ_LEN) == "4,096"
    assert any(F.SEQ_LEN in fields for fields in replaced)
    assert vm.shown_text(F.MODEL_PARAMS) == "8,030,261,248" and not vm.editable(F.MODEL_PARAMS)
    notes = vm.state.notes
    assert notes.model == "8,030,261,248 parameters, exactly · 32 layers"
    assert notes.missing == ()
    activation = notes.activation
    assert activation.text.startswith("Estimated: ")
    assert activation.text.endswith(
        " per sample (the whole model on one GPU, 4,096 tokens, bf16, SDPA; transformers' "
        "saved tensors)."
    )
    value = activation.placeholder.removesuffix(" (estimated)")
    assert value.endswith(" GB") and f"Estimated: {value} per sample" in activation.text
    assert not activation.overridden
    # 20 bytes per parameter (DeepSpeed's 2 + 18, no ZeRO): 160,605,224,960 bytes
    assert notes.other.text == (
        "Model states 160.606 GB (no ZeRO, as DeepSpeed counts them) + 1 GB overhead."
    )
    assert vm.placeholder(F.OTHER_MEMORY) == "161.606 GB (estimated)"
    assert vm.placeholder(F.ACTIVATION) == activation.placeholder
    # the fields stay empty: the figures are derived, not typed
    assert vm.shown_text(F.ACTIVATION) == "" and vm.shown_text(F.OTHER_MEMORY) == ""
    assert vm.plan is not None and vm.plan.figures.activation.source is Source.ESTIMATED


def test_a_figure_typed_over_the_derived_one(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    derived = vm.placeholder(F.ACTIVATION).removesuffix(" (estimated)")
    vm.set_text(F.ACTIVATION, "3")
    assert vm.shown_text(F.ACTIVATION) == "3 GB"
    note = vm.state.notes.activation
    assert note.text == f"Typed in; derived from the model: {derived}."
    assert note.overridden and note.placeholder == derived
    assert vm.plan is not None and vm.plan.figures.activation.bytes == 3 * 10**9
    vm.set_text(F.OTHER_MEMORY, "20.5")
    assert vm.state.notes.other.text == "Typed in; derived from the model: 161.606 GB."
    states, _replaced = _watched(vm)
    vm.use_derived(F.ACTIVATION)
    assert len(states) == 1
    assert vm.entry(F.ACTIVATION) is None and vm.shown_text(F.ACTIVATION) == ""
    assert not vm.state.notes.activation.overridden
    assert vm.state.notes.activation.text.startswith(f"Estimated: {derived} per sample")
    assert vm.state.notes.other.overridden  # the other one is still typed
    vm.use_derived(F.ACTIVATION)  # nothing typed: nothing changes
    assert len(states) == 1


def test_a_parameter_count_says_what_cannot_be_derived(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, PARAMS_MODEL)
    assert vm.editable(F.MODEL_PARAMS) and F.MODEL_PARAMS in vm.state.visible
    vm.set_text(F.MODEL_PARAMS, "7,000,000,000")
    notes = vm.state.notes
    assert vm.shown_text(F.MODEL_PARAMS) == "7,000,000,000"
    assert notes.model == (
        "Without the model's shape, the activation per sample cannot be estimated and the "
        "tensor- and pipeline-parallel traffic is not counted."
    )
    why = (
        "a parameter count has no shape: choose the model or open its config.json, or type "
        "the activation per sample (measure it with the command under Help)."
    )
    assert notes.activation.text == f"Not derived: {why}"
    assert notes.missing == (f"Activation per sample: {why}",)
    # the model states need only the count: 7·10⁹ × 20 bytes
    assert notes.other.placeholder == "141 GB (estimated)"
    fit = PlannerViewModel(vm, CalculatorViewModel(QLocale("en"))).state.results
    assert fit is not None and fit.fit.fits is None
    assert (fit.fit.verdict, fit.fit.usage) == ("Memory not known", notes.missing[0])
    vm.set_text(F.ACTIVATION, "1.5")
    assert vm.state.notes.missing == ()
    # typed in: no remedy offered, only why nothing is derived
    assert (
        vm.state.notes.activation.text == "Typed in (not derived: a parameter count has no shape)."
    )


def test_sizes_typed_in(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, SHAPE_MODEL)
    assert {F.SHAPE_HIDDEN, F.SHAPE_VOCAB, Choice.FAMILY} <= vm.state.visible
    vm.set_text(F.SHAPE_HEADS, "30")
    assert vm.plan is None
    assert vm.state.problems == (
        "Typed sizes: the hidden size must divide by the attention heads.",
    )
    assert vm.shown_text(F.SHAPE_HEADS) == "30"  # the entry stays
    vm.set_text(F.SHAPE_HEADS, "32")
    vm.set_text(F.SHAPE_KV_HEADS, "8")
    assert vm.state.problems == ()
    vm.set_choice(Choice.FAMILY, "gpt2")
    assert vm.state.problems == (
        "Typed sizes: GPT-2 has as many key/value heads as attention heads.",
    )


def test_open_a_config_json(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    outcome = vm.open_config(config_path("google__gemma-2b.json"))
    assert outcome.ok
    assert outcome.message == "Model read from google__gemma-2b.json: GemmaForCausalLM."
    assert vm.choice(Choice.MODEL) == CONFIG_MODEL and vm.config_error == ""
    assert (CONFIG_MODEL, "File: google__gemma-2b.json") in vm.options(Choice.MODEL)
    assert vm.state.notes.model == "2,506,172,416 parameters, exactly · 18 layers"
    assert vm.shown_text(F.SEQ_LEN) == "4,096"  # its 8,192 positions, at most 4,096
    assert vm.state.notes.activation.text.startswith("Estimated: ")
    spec = vm.model_spec()
    assert spec is not None and spec.file_name == "google__gemma-2b.json"


def test_a_file_that_is_not_a_config_changes_nothing(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "gpt2")
    before = vm.description
    path = tmp_path / "notes.json"
    path.write_text("[1, 2]", encoding="utf-8")
    states, _replaced = _watched(vm)
    outcome = vm.open_config(path)
    assert not outcome.ok and outcome.message.startswith("notes.json was not opened: ")
    assert vm.config_error == outcome.message
    assert len(states) == 1  # the panel shows why
    assert vm.choice(Choice.MODEL) == "gpt2" and vm.description == before
    assert CONFIG_MODEL not in {key for key, _text in vm.options(Choice.MODEL)}
    assert vm.open_config(config_path("openai-community__gpt2.json")).ok
    assert vm.config_error == ""


def test_apply_a_description(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    states, replaced = _watched(vm)
    wanted = TrainingDescription(
        model=ModelSpec.bundled("qwen2.5-7b"),
        method=Method.QLORA,
        lora_rank=64,
        lora_targets=LoraTargets.ALL_LINEAR,
        seq_len=2048,
        card=CARDS.by_id("h100-80gb"),
        gpus=4,
        zero_stage=ZeroStage.OPTIMIZER,
        offload=Offload.OPTIMIZER,
        recompute=Recompute.FULL,
        target_batch=256,
        rounding=Rounding.FLOOR,
        micro_batch=8,
    )
    vm.apply(wanted)
    assert len(states) == 1 and CHOICES in replaced[0]
    assert vm.description == wanted  # the typed memory figures gave way to the derived ones
    assert vm.choice(Choice.MODEL) == "qwen2.5-7b" and vm.choice(Choice.CARD) == "h100-80gb"
    assert vm.choice(Choice.RECOMMEND) is False and vm.editable(F.MICRO_BATCH)
    shown = [vm.shown_text(f) for f in (F.TARGET, F.GPUS, F.MICRO_BATCH, F.SEQ_LEN, F.LORA_RANK)]
    assert shown == ["256", "4", "8", "2,048", "64"]
    assert {F.LORA_RANK, Choice.LORA_TARGETS} <= vm.state.visible
    # a description without a model leaves the model and recommends the micro-batch
    vm.apply(replace(wanted, model=None, micro_batch=None, gpus=2))
    assert vm.choice(Choice.MODEL) == "qwen2.5-7b" and vm.choice(Choice.RECOMMEND) is True
    assert vm.description is not None and vm.description.gpus == 2


def test_a_refused_entry_stays_and_says_why(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    vm.set_text(F.GPUS, "abc")
    assert vm.plan is None and vm.description is None
    assert vm.shown_text(F.GPUS) == "abc"
    assert vm.problem(F.GPUS) == "Data-parallel GPUs: “abc” is not a number."
    assert vm.state.problems == ("Data-parallel GPUs: “abc” is not a number.",)
    assert vm.shown_text(F.TARGET) == "512" and vm.shown_text(F.OTHER_MEMORY) == "20 GB"
    assert vm.remembered_value(F.GPUS) == Decimal(8)  # the last valid value, for a scenario
    vm.set_text(F.GPUS, "2.5")
    assert vm.state.problems == ("Data-parallel GPUs: enter a whole number.",)
    vm.set_text(F.ACTIVATION, "-1")
    assert len(vm.state.problems) == 2 and vm.state.problems[1].startswith(
        "Activation per sample: "
    )
    vm.set_text(F.GPUS, "8")
    vm.set_text(F.ACTIVATION, "")  # optional: empty is no problem
    assert vm.state.problems == () and vm.problem(F.ACTIVATION) is None
    assert vm.description is not None and vm.description.gpus == 8


def test_a_value_a_choice_does_not_take_is_ignored(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()
    states, _replaced = _watched(vm)
    vm.set_choice(Choice.MODEL, "no-such-model")
    vm.set_choice(Choice.METHOD, "everything")
    vm.set_choice(Choice.ZERO, 7)
    vm.set_choice(Choice.RECOMMEND, "yes")
    assert states == [] and vm.choice(Choice.MODEL) == ""
    vm.set_choice(Choice.CARD, "no-such-card")  # an unknown card is the custom one
    assert vm.card() is None and vm.editable(F.GPU_MEMORY)
    assert vm.shown_text(F.GPU_MEMORY) == "24 GB"
    assert vm.state.notes.usable == "Usable: 24 GB per GPU."


def test_the_recommended_micro_batch_becomes_the_users(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = training()  # (80 − 20) / 2 = 30 fit; 16 is the largest that reaches 512 on 8
    assert vm.shown_text(F.MICRO_BATCH) == "16" and not vm.editable(F.MICRO_BATCH)
    vm.set_choice(Choice.RECOMMEND, False)
    assert vm.editable(F.MICRO_BATCH) and vm.value(F.MICRO_BATCH) == Decimal(16)
    vm.set_text(F.MICRO_BATCH, "4")
    assert vm.plan is not None and vm.plan.current is not None
    assert vm.plan.current.accumulation_steps == 16


def test_where_the_description_shows_lora_and_the_target_length(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "llama-3.2-1b")
    vm.set_choice(Choice.METHOD, Method.LORA)
    assert {F.LORA_RANK, Choice.LORA_TARGETS} <= vm.state.visible
    assert vm.state.notes.lora.startswith("LoRA trains ")
    vm.set_choice(Choice.MODEL, "bert-base-uncased")  # projections the app does not know
    assert F.TRAINABLE_PARAMS in vm.state.visible and Choice.LORA_TARGETS not in vm.state.visible
    assert (
        "Other memory: the app does not know this model's projections: type the adapters' "
        "parameters."
    ) in vm.state.notes.missing
    vm.set_choice(Choice.MODEL, "t5-base")  # an encoder-decoder
    assert F.TARGET_SEQ in vm.state.visible
    vm.set_choice(Choice.METHOD, Method.FULL)
    assert F.LORA_RANK not in vm.state.visible


def test_a_sequence_beyond_a_rotary_models_context_warns(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "qwen2.5-0.5b")
    assert vm.state.notes.warnings == ()
    vm.set_text(F.SEQ_LEN, "40000")
    assert vm.state.notes.warnings == (
        "40,000 tokens is beyond the 32,768 the model was built for: its rotary positions "
        "must be extended (RoPE scaling).",
    )


def test_a_language_switch_reformats_the_numbers(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.MODEL, "llama-3.1-8b")
    vm.set_text(F.TARGET, "1,024")
    vm.set_text(F.OTHER_MEMORY, "20.5")
    vm.set_text(F.NODES, "many")
    states, _replaced = _watched(vm)
    catalogue("pt_BR")
    vm.set_language(QLocale("pt_BR"))
    assert states == [vm.state]  # one new state
    assert vm.shown_text(F.TARGET) == "1.024"
    assert vm.shown_text(F.OTHER_MEMORY) == "20,5 GB"
    assert vm.shown_text(F.NODES) == "many"  # unreadable text as typed
    assert vm.state.problems == ("Nós (máquinas): “many” não é um número.",)
    vm.set_text(F.NODES, "1")
    assert vm.shown_text(F.MODEL_PARAMS) == "8.030.261.248"
    assert vm.state.notes.model == "8.030.261.248 parâmetros, exatamente · 32 camadas"
    assert vm.state.notes.other.text == "Digitado; derivado do modelo: 161,606 GB."
    assert vm.number_input(F.TARGET).read("2.048") == Decimal(2048)
    vm.set_text(F.ACTIVATION, "1,5")
    assert vm.value(F.ACTIVATION) == Decimal("1.5")


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "en",
            "Nothing fits: the model states and overhead alone (161.606 GB) are more than the "
            "80 GB this GPU has, before any activations.",
        ),
        (
            "pt_BR",
            "Nada cabe: só os estados do modelo e a sobrecarga (161,606 GB) já passam dos "
            "80 GB desta GPU, antes de qualquer ativação.",
        ),
    ],
)
def test_nothing_fits_llama_on_one_a100_with_the_numbers(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, message: str
) -> None:
    """Every parameter of Llama-3.1-8B trained with mixed-precision Adam: 20 bytes each
    as DeepSpeed counts them (16 in the ZeRO paper's tally, 128.5 GB: still more than
    the card) + 1 GB overhead = 161.606 GB, before any activation."""
    catalogue(language)
    vm = one_gpu_llama(language)
    plan = vm.plan
    assert plan is not None and plan.fits is False and plan.current is None
    results = PlannerViewModel(vm, CalculatorViewModel(QLocale(language))).state.results
    assert results is not None and results.nothing_fits is not None
    assert results.nothing_fits.message == message
    assert results.configuration is None and results.fit.fits is False


def test_a_refused_custom_speed_is_forgotten_with_the_custom_card(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = TrainingViewModel(QLocale("en"))
    vm.set_choice(Choice.CARD, "custom")
    vm.set_text(F.CUSTOM_TFLOPS, "abc")
    assert any("Dense peak" in p for p in vm.state.run_problems)
    vm.set_choice(Choice.CARD, "a100-80gb")  # the catalogue's speed is used, not the field
    assert vm.state.run_problems == ()


def test_a_config_json_refused_says_why_in_portuguese(qapp, catalogue, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = TrainingViewModel(QLocale("pt_BR"))
    path = tmp_path / "config.json"
    path.write_text("[1, 2]", encoding="utf-8")
    outcome = vm.open_config(path)
    assert not outcome.ok
    assert vm.config_error == "config.json não foi aberto: o arquivo não é um objeto JSON"
    path.write_text('{"model_type": "llama", "hidden_size": true}', encoding="utf-8")
    vm.open_config(path)
    assert vm.config_error.startswith("config.json não foi aberto: hidden_size deve ser um")
