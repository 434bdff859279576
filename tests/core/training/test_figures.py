"""The memory figures a training description fixes."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.activation import Family as ActivationFamily
from gradacc_desktop.core.memory.activation import Inputs, estimate
from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.models import ModelSpec, TypedShape
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import custom_card, load_gpu_table
from gradacc_desktop.core.training.description import Method, Optimizer, TrainingDescription
from gradacc_desktop.core.training.figures import Missing, Source, figures, stage_peak, to_bytes

A100 = load_gpu_table().by_id("a100-80gb")
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"), seq_len=4096, card=A100, target_batch=512
)
LLAMA_PARAMS = 8_030_261_248
# meta-llama/Llama-2-7b-hf config.json, typed as sizes
LLAMA2_7B = TypedShape(ActivationFamily.LLAMA, 4096, 32, 32, 32, 11008, 32000, 4096)


def test_model_states_are_deepspeeds_for_the_chosen_model() -> None:
    figs = figures(LLAMA)
    # mixed-precision Adam without ZeRO: 2 + 2 + 4 + 4 + 8 bytes per parameter
    assert figs.states is not None and figs.states.gpu_bytes == 20 * LLAMA_PARAMS
    assert figs.other.source is Source.ESTIMATED
    assert figs.other.bytes == 20 * LLAMA_PARAMS + 10**9  # + 1 GB overhead
    assert figs.usable_bytes == 80 * 10**9
    # ZeRO-2 over 8 GPUs: 2P + 18P/8 (DeepSpeed's estimate_zero2_model_states_mem_needs)
    sharded = figures(replace(LLAMA, gpus=8, zero_stage=ZeroStage.GRADIENTS))
    assert sharded.states is not None
    assert sharded.states.gpu_bytes == 2 * LLAMA_PARAMS + 18 * LLAMA_PARAMS // 8


def test_the_activation_is_the_estimators_peak_at_the_length_and_precision() -> None:
    figs = figures(replace(LLAMA, precision=Precision.FP32, recompute=Recompute.FULL))
    assert figs.estimate is not None
    assert figs.activation.source is Source.ESTIMATED
    assert figs.activation.bytes == figs.estimate.peak_bytes
    assert figs.estimate.inputs.seq == 4096
    assert figs.estimate.inputs.dtype is Precision.FP32
    assert figs.estimate.inputs.recompute.value == "full"


def test_a_typed_figure_is_used_and_the_derived_one_kept_beside_it() -> None:
    derived = figures(LLAMA)
    typed = figures(replace(LLAMA, activation_gb=Decimal("2.5"), other_memory_gb=Decimal(30)))
    assert typed.activation.bytes == 2_500_000_000
    assert typed.activation.source is Source.GIVEN and typed.activation.overridden
    assert typed.activation.derived == derived.activation.bytes
    assert typed.other.bytes == 30 * 10**9
    assert typed.other.derived == derived.other.bytes
    assert typed.max_micro_batch() == 20  # (80 − 30) / 2.5


def test_a_bare_parameter_count_asks_for_the_activation() -> None:
    figs = figures(replace(LLAMA, model=ModelSpec.typed_params(7_000_000_000)))
    assert figs.activation.bytes is None
    assert figs.activation.missing is Missing.NO_SHAPE
    assert figs.other.bytes == 20 * 7_000_000_000 + 10**9
    assert figs.max_micro_batch() is None and not figs.known
    given = figures(
        replace(LLAMA, model=ModelSpec.typed_params(7_000_000_000), activation_gb=Decimal(1))
    )
    assert given.activation.bytes == 10**9 and given.activation.derived is None


def test_nothing_is_derived_without_a_model_or_a_length() -> None:
    empty = figures(TrainingDescription(card=A100))
    assert empty.activation.missing is Missing.NO_MODEL
    assert empty.other.missing is Missing.NO_MODEL
    no_length = figures(replace(LLAMA, seq_len=None))
    assert no_length.activation.missing is Missing.NO_SEQ_LEN
    assert no_length.other.bytes is not None  # model states need no length


def test_learned_positions_bound_the_length() -> None:
    gpt2 = replace(LLAMA, model=ModelSpec.bundled("gpt2"), seq_len=1024)
    assert figures(gpt2).activation.bytes is not None
    too_long = figures(replace(gpt2, seq_len=1025))
    assert too_long.activation.missing is Missing.SEQ_TOO_LONG
    assert too_long.activation.detail == "1024"


def test_lora_trains_the_adapters_on_a_frozen_base() -> None:
    d = replace(LLAMA, model=ModelSpec.typed_shape(LLAMA2_7B), method=Method.LORA, lora_rank=8)
    figs = figures(d)
    # PEFT's print_trainable_parameters: Llama-2-7B, r = 8 on q_proj and v_proj
    assert figs.trainable == 4_194_304
    states = figs.states
    assert states is not None
    base = 6_738_415_616
    # frozen 16-bit base + the adapters' 2 + 2 + 4 + 4 + 8 bytes
    assert states.gpu_bytes == 2 * base + 20 * 4_194_304
    qlora = figures(replace(d, method=Method.QLORA, lora_targets=LoraTargets.ALL_LINEAR))
    assert qlora.states is not None and qlora.states.gpu_bytes < states.gpu_bytes


def test_lora_on_a_model_without_known_projections_asks_for_the_adapters() -> None:
    d = replace(LLAMA, model=ModelSpec.bundled("mixtral-8x7b"), method=Method.LORA)
    assert figures(d).other.missing is Missing.LORA_NOT_SIZED
    typed = figures(replace(d, trainable_params=50_000_000))
    assert typed.trainable == 50_000_000 and typed.other.bytes is not None


def test_the_optimizer_sets_the_state_bytes() -> None:
    adam = figures(LLAMA).states
    sgd = figures(replace(LLAMA, optimizer=Optimizer.SGD_MOMENTUM)).states
    eight = figures(replace(LLAMA, optimizer=Optimizer.ADAM_8BIT)).states
    assert adam is not None and sgd is not None and eight is not None
    assert adam.gpu_bytes - sgd.gpu_bytes == 4 * LLAMA_PARAMS
    assert adam.gpu_bytes - eight.gpu_bytes == 6 * LLAMA_PARAMS


def test_tensor_and_pipeline_parallelism_split_the_states_and_the_activation() -> None:
    whole = figures(replace(LLAMA, gpus=2))
    split = figures(replace(LLAMA, gpus=2, tensor_parallel=2, pipeline_stages=2))
    assert whole.states is not None and split.states is not None
    assert split.states.gpu_bytes == 20 * -(-LLAMA_PARAMS // 4)
    # the first stage holds 2 micro-batches of half the layers, the last one also the
    # logits: the larger of the two. DeepSpeed's AutoTP splits the linear layers only:
    # one rank keeps what the estimator counts for it (the norms and residuals whole),
    # more than half of the whole model's
    assert split.estimate is not None
    rank = estimate(replace(split.estimate.inputs, tensor_parallel=2))
    assert split.activation_per_gpu == stage_peak(rank, 2, Fraction(1))
    halves = stage_peak(split.estimate, 2, Fraction(1)) / 2
    assert halves < split.activation_per_gpu < whole.activation_per_gpu  # type: ignore[operator]
    # FSDP's tensor parallelism (torchtitan's plan: sequence-parallel norms) splits every
    # activation evenly; its caching allocator reserves 10 % on top
    fsdp = figures(replace(LLAMA, gpus=2, tensor_parallel=2, pipeline_stages=2,
                           framework=Framework.FSDP))  # fmt: skip
    assert fsdp.activation_per_gpu == halves * Fraction(11, 10)
    assert split.states.model_parallel == 4


def test_megatron_keeps_eager_attention_s_softmax_as_its_fused_kernel() -> None:
    """A model outside the paper's accounting (MLA) keeps what its modules keep under
    Megatron, but for the softmax: Megatron's FusedScaleMaskSoftmax keeps its bf16
    output only (the modules an fp32 softmax and its cast); its tensor-parallel ranks
    split the rest evenly. DeepSpeed runs the modules: their softmax."""
    d = replace(
        LLAMA,
        model=ModelSpec.bundled("deepseek-v2-lite"),
        seq_len=2048,
        attention=AttentionKernel.EAGER,
        gpus=2,
        tensor_parallel=2,
        zero_stage=ZeroStage.OPTIMIZER,
    )
    modules = figures(d)
    megatron = figures(replace(d, framework=Framework.MEGATRON))
    assert modules.estimate is not None and megatron.estimate is not None
    fused = estimate(replace(modules.estimate.inputs, fused_softmax=True))
    assert megatron.stage_share == Fraction(fused.peak_bytes, 2)
    a, s = 16, 2048  # DeepSeek-V2-Lite's heads
    dropped = 4 * a * s * s * 27  # fp32 softmax, 27 layers: the cast is what stays
    assert fused.peak_bytes == modules.estimate.peak_bytes - dropped
    # DeepSpeed's AutoTP on the same model: the modules' figure, split
    assert modules.stage_share == Fraction(modules.estimate.peak_bytes, 2)


def test_a_layout_no_framework_runs_has_no_model_states() -> None:
    figs = figures(replace(LLAMA, offload=Offload.OPTIMIZER))  # offload without ZeRO
    assert figs.other.missing is Missing.LAYOUT
    assert figs.activation.bytes is not None


def test_a_custom_card_without_memory_has_no_usable_memory() -> None:
    assert figures(replace(LLAMA, card=None)).usable_bytes is None
    assert figures(replace(LLAMA, card=custom_card(Decimal("24.5")))).usable_bytes == 24_500_000_000


def test_typed_shapes_are_estimated_like_the_estimator_does() -> None:
    d = replace(LLAMA, model=ModelSpec.typed_shape(LLAMA2_7B), seq_len=2048)
    inputs = Inputs(ActivationFamily.LLAMA, 4096, 32, 32, 32, 11008, 32000, 2048)
    assert figures(d).activation.bytes == estimate(inputs).peak_bytes


@pytest.mark.parametrize("gb", ["0.5", "0.001", "1.000000001", "2.1234567891"])
def test_typed_gigabytes_become_whole_bytes(gb: str) -> None:
    value = to_bytes(Decimal(gb))
    assert value >= Decimal(gb) * 10**9 > value - 1
