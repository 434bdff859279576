"""The model states behind the description's other memory, in detail: each component on
one GPU, the CPU memory per node, the source — and counts in their plural forms."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.viewmodels.model_states import (
    ModelStatesState,
    ModelStatesView,
    ModelStatesViewModel,
)
from gradacc_desktop.viewmodels.training.fields import PARAMS_MODEL, SHAPE_MODEL, Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

#: Llama-2-7B's parameters, as its published checkpoint counts them
LLAMA2_7B = "6738415616"


def _states(
    language: str, params: str = "1000000000", zero: ZeroStage = ZeroStage.WEIGHTS
) -> tuple[TrainingViewModel, ModelStatesViewModel]:
    """A parameter count alone, trained with mixed-precision Adam under ``zero``."""
    training = TrainingViewModel(QLocale(language))
    training.set_choice(Choice.MODEL, PARAMS_MODEL)
    training.set_text(F.MODEL_PARAMS, params)
    training.set_choice(Choice.ZERO, zero)
    return training, ModelStatesViewModel(training)


def _view(vm: ModelStatesViewModel) -> ModelStatesView:
    view = vm.state.view
    assert view is not None, vm.state.message
    return view


def test_llama2_7b_zero2_on_8_gpus_is_deepspeeds_figure(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training, vm = _states("en", LLAMA2_7B, ZeroStage.GRADIENTS)
    training.set_text(F.GPUS, "8")
    view = _view(vm)
    # DeepSpeed's estimate_zero2_model_states_mem_needs without offload:
    # 2·P + int(18·P / 8) = 13,476,831,232 + 15,161,435,136 = 28,638,266,368 bytes
    assert view.rows[-1] == ("Model states per GPU", "28.639 GB", "4.25 bytes")
    assert view.states == "6,738,415,616 parameters: 28.639 GB of model states on each GPU"
    assert view.total == "Other memory per GPU: 28.639 GB + 1 GB overhead = 29.639 GB"
    # its CPU side: 4·P bytes per process, 8 processes, 1.5× buffer = 323,443,949,568
    assert view.cpu.startswith("CPU memory per node: 323.444 GB")
    assert "estimate_zero2_model_states_mem_needs" in view.source
    assert view.sharding == "Sharded over 8 data-parallel GPUs."
    assert [name for name, _gb, _b in view.rows[:-1]] == [
        "Weights",
        "Gradients",
        "fp32 gradients",
        "fp32 master weights",
        "Optimizer states",
    ]
    # the description's other memory is this figure plus the overhead
    assert training.placeholder(F.OTHER_MEMORY) == "29.639 GB (estimated)"
    assert vm.title() == "Model states per GPU"
    assert vm.headers() == ("Component", "On one GPU", "Per parameter")


def test_the_bf16_master_copy_is_named_in_its_format(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    training, vm = _states("pt_BR", LLAMA2_7B, ZeroStage.GRADIENTS)
    training.set_text(F.GPUS, "8")
    training.set_choice(Choice.MASTER_WEIGHTS, MasterWeights.BF16)
    view = _view(vm)
    assert [name for name, _gb, _b in view.rows[:-1]] == [
        "Pesos",
        "Gradientes",
        "Gradientes da cópia mestre em bf16",
        "Pesos mestres em bf16",
        "Estados do otimizador",
    ]
    # ZeRO-2: 2·P whole + (2 + 2 + 2 + 4)·P / 8 sharded, instead of 2 + 18 / 8 = 4.25
    assert view.rows[-1][2] == "3,25 bytes"
    assert "bf16_master_weights_and_grads" in view.source


def test_the_shape_typed_in_is_llama2_7b_too(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training, vm = _states("en", zero=ZeroStage.GRADIENTS)
    training.set_text(F.GPUS, "8")
    training.set_choice(Choice.MODEL, SHAPE_MODEL)  # the first sizes are Llama 2 7B's
    assert training.state.notes.model == "6,738,415,616 parameters, exactly · 32 layers"
    assert _view(vm).rows[-1] == ("Model states per GPU", "28.639 GB", "4.25 bytes")


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            {
                "2": ("1 byte", "9 bytes"),
                "3": ("≈ 0.666667 bytes", "6 bytes"),
                "16": ("0.125 bytes", "1.125 bytes"),
            },
        ),
        (
            "pt_BR",
            {
                "2": ("1 byte", "9 bytes"),
                "3": ("≈ 0,666667 bytes", "6 bytes"),
                "16": ("0,125 bytes", "1,125 bytes"),
            },
        ),
    ],
)
def test_byte_counts_take_their_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, expected: dict[str, tuple[str, str]]
) -> None:
    """ZeRO-3 of a count without a shape (no largest layer): 2/N bytes of weights and
    18/N in all per parameter (DeepSpeed's 2 + 4 + 4 + 8, all sharded)."""
    catalogue(language)
    training, vm = _states(language)
    for gpus, (weights, total) in expected.items():
        training.set_text(F.GPUS, gpus)
        rows = _view(vm).rows
        assert rows[0][0] == ("Weights" if language == "en" else "Pesos")
        assert (rows[0][2], rows[-1][2]) == (weights, total), gpus


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("en", "1 parameter: ", "7,000,000,000 parameters: 140 GB"),
        ("pt_BR", "1 parâmetro: ", "7.000.000.000 parâmetros: 140 GB"),
    ],
)
def test_parameter_count_takes_its_plural_form(  # type: ignore[no-untyped-def]
    qapp, catalogue, language: str, one: str, many: str
) -> None:
    """No ZeRO: 2 + 2 + 4 + 4 + 8 = 20 bytes per parameter (DeepSpeed's multipliers, its
    fp32 gradients counted): 7·10⁹ parameters hold 140 GB."""
    catalogue(language)
    training, vm = _states(language, "1", ZeroStage.NONE)
    assert _view(vm).states.startswith(one)
    assert _view(vm).rows[-1][2] == "20 bytes"
    training.set_text(F.MODEL_PARAMS, many.split(" ")[0])
    assert _view(vm).states.startswith(many)
    assert _view(vm).sharding == (
        "No sharding: every GPU holds a full copy."
        if language == "en"
        else "Sem particionamento: cada GPU guarda uma cópia completa."
    )


def test_qlora_from_a_bundled_model(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training = TrainingViewModel(QLocale("en"))
    vm = ModelStatesViewModel(training)
    training.set_choice(Choice.MODEL, "llama-3-8b")
    training.set_choice(Choice.METHOD, Method.LORA)
    training.set_choice(Choice.LORA_TARGETS, LoraTargets.ALL_LINEAR)
    training.set_text(F.LORA_RANK, "16")
    sixteen = _view(vm)
    # rank 16 on q, k, v, o, gate, up, down: 16 · (8192 + 5120 + 5120 + 8192 + 3 · 18432)
    # = 1,310,720 per layer, 32 layers
    assert sixteen.lora.startswith("LoRA trains 41,943,040 of 8,072,204,288 parameters")
    # 16-bit base and adapters: 2 × (8,030,261,248 + 41,943,040) bytes
    assert {name: gb for name, gb, _b in sixteen.rows}["Weights"] == "16.145 GB"
    training.set_choice(Choice.METHOD, Method.QLORA)
    four = _view(vm)
    weights = {name: gb for name, gb, _b in four.rows}["Weights"]
    # 6,979,321,856 linear weights in NF4 with double quantization (4 bits, an 8-bit
    # absmax per 64, an fp32 one per 256 blocks: 3,600,416,768 bytes) + 16-bit
    # embeddings, head and norms (2,101,878,784) + the 16-bit adapters (83,886,080)
    assert weights == "5.787 GB"
    assert four.lora == sixteen.lora
    assert float(four.rows[-1][1].split()[0]) < float(sixteen.rows[-1][1].split()[0])


def test_offload_is_the_descriptions(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training, vm = _states("en", zero=ZeroStage.GRADIENTS)
    training.set_choice(Choice.OFFLOAD, Offload.OPTIMIZER)
    view = _view(vm)
    # ZeRO-2 with the optimizer offloaded: only the 16-bit weights stay (2·P)
    assert view.rows == (
        ("Weights", "2 GB", "2 bytes"),
        ("Model states per GPU", "2 GB", "2 bytes"),
    )
    assert "Offloaded states" in view.cpu
    training.set_choice(Choice.ZERO, ZeroStage.NONE)  # offload without ZeRO: no framework
    assert vm.state == ModelStatesState(
        None, "No model states to show: no framework runs this layout."
    )


def test_model_parallelism_shards_every_replica(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training, vm = _states("en", zero=ZeroStage.NONE)
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_text(F.TENSOR_PARALLEL, "2")
    training.set_text(F.PIPELINE_STAGES, "2")
    assert _view(vm).sharding == (
        "No sharding: every GPU holds a full copy. Each GPU holds 1/4 of the model "
        "(tensor parallel × pipeline stages)."
    )


def test_megatrons_uneven_pipeline_stages_say_which_one_is_counted(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    """Megatron's first stage holds the embedding beside its layers: the figures are that
    stage's, said in words, not an even quarter of the model."""
    catalogue("en")
    training, vm = _states("en", zero=ZeroStage.NONE)
    training.set_choice(Choice.MODEL, "llama-3.1-8b")
    training.set_choice(Choice.FRAMEWORK, Framework.MEGATRON)
    training.set_text(F.PIPELINE_STAGES, "4")
    view = _view(vm)
    assert view.sharding == (
        "No sharding: every GPU holds a full copy. Megatron's pipeline stages are not "
        "equal: the one that holds the most (the embedding or the output layer beside its "
        "layers), counted here, holds 2,270,233,600 of the model's 8,030,261,248 "
        "parameters, split over its tensor-parallel GPUs."
    )
    assert view.states.startswith("2,270,233,600 parameters:")
    training.set_choice(Choice.FRAMEWORK, Framework.DEEPSPEED)  # balanced by parameters
    assert "1/4 of the model" in _view(vm).sharding


def test_a_typed_other_memory_is_said_to_replace_the_states(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training, vm = _states("en")
    assert _view(vm).overridden == ""
    training.set_text(F.OTHER_MEMORY, "30")
    assert _view(vm).overridden == (
        "The plan uses the other memory typed in the description; these are the model "
        "states it replaces."
    )
    assert _view(vm).total == "Other memory per GPU: 18 GB + 1 GB overhead = 19 GB"


def test_without_states_it_says_why(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")
    training = TrainingViewModel(QLocale("en"))
    vm = ModelStatesViewModel(training)
    assert vm.state.view is None
    assert vm.state.message == "No model states to show: no model is chosen."
    training.set_choice(Choice.MODEL, "gpt2")
    assert vm.state.view is not None
    training.set_text(F.TARGET, "")
    assert vm.state == ModelStatesState(None, "Correct the training description first.")


def test_set_language_rebuilds_once(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    language = catalogue("pt_BR")
    training, vm = _states("pt_BR")
    training.set_text(F.OVERHEAD, "1,5")
    view = _view(vm)
    assert view.total == "Outra memória por GPU: 18 GB + 1,5 GB de sobrecarga = 19,5 GB"
    portuguese_source = view.source
    emitted: list[object] = []
    vm.stateChanged.connect(emitted.append)
    language.set_language("en")
    training.set_language(QLocale("en"))
    assert emitted == [vm.state]
    view = _view(vm)
    # ZeRO-3 on one GPU, 10⁹ parameters: 18 bytes each
    assert view.total == "Other memory per GPU: 18 GB + 1.5 GB overhead = 19.5 GB"
    assert training.shown_text(F.OVERHEAD) == "1.5 GB"
    assert view.source == "DeepSpeed's estimate_zero3_model_states_mem_needs (deepspeed 0.19.8)"
    assert portuguese_source != view.source and "estimate_zero3" in portuguese_source
