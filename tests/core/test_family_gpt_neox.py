"""GPT-NeoX / Pythia read from their published config.json files: shape, exact
parameter counts, and what the parallel-residual layer keeps for backward."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Precision,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    layout,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

PYTHIA_1B = "EleutherAI__pythia-1b.json"
NEOX_20B = "EleutherAI__gpt-neox-20b.json"

# total parameters in the model cards (Pythia's table of exact counts; GPT-NeoX-20B's
# "n_parameters 20554567680"), equal to the transformers 5.24 count
PUBLISHED = {
    "EleutherAI__pythia-160m.json": 162_322_944,
    PYTHIA_1B: 1_011_781_632,
    "EleutherAI__pythia-1.4b.json": 1_414_647_808,
    NEOX_20B: 20_554_567_680,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (
        "gpt_neox",
        Family.GPT_NEOX,
        Head.CAUSAL_LM,
    )
    assert arch.architecture == "GPTNeoXForCausalLM"
    assert parameters(arch) == PUBLISHED[name]


def test_pythia_shape_and_spec() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        2048,
        16,
        8,
        8,
        256,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (8192, 50304, 2048)
    spec = arch.spec
    assert spec.parallel_residual and spec.attention_bias and not spec.tie_embeddings
    assert (spec.activation, spec.rotary_pct, spec.rotary_dim) == ("gelu", 0.25, 64)


def test_gpt_neox_20b_rotates_24_of_96_dimensions() -> None:
    arch = read_model_config(config_path(NEOX_20B))
    assert (arch.hidden, arch.layers, arch.heads, arch.head_dim) == (6144, 44, 64, 96)
    assert (arch.spec.rotary_dim, arch.spec.activation) == (24, "gelu_fast")


def test_where_the_rotary_fraction_is_read() -> None:
    base = raw_config(PYTHIA_1B)
    # transformers 5 keeps it in rope_parameters (or rope_scaling), before rotary_pct
    nested = base | {"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5}}
    assert parse_model_config(nested).spec.rotary_dim == 128
    # GPTNeoXConfig ignores a top-level partial_rotary_factor
    assert parse_model_config(base | {"partial_rotary_factor": 1.0}).spec.rotary_dim == 64
    # without rotary_pct the class default is 0.25
    del base["rotary_pct"]
    assert parse_model_config(base).spec.rotary_pct == 0.25


def test_defaults_of_the_configuration_class_fill_absent_keys() -> None:
    # GPTNeoXConfig's defaults are GPT-NeoX-20B's sizes
    arch = parse_model_config({"model_type": "gpt_neox"})
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate) == (6144, 44, 64, 24576)
    assert (arch.vocab, arch.max_positions, arch.spec.activation) == (50432, 2048, "gelu")
    assert arch.spec.parallel_residual and arch.spec.attention_bias


def test_tied_embeddings_and_no_attention_biases_count_once() -> None:
    raw = raw_config(PYTHIA_1B)
    h, v, layers = 2048, 50304, 16
    tied = parse_model_config(raw | {"tie_word_embeddings": True})
    assert parameters(tied) == PUBLISHED[PYTHIA_1B] - v * h
    nobias = parse_model_config(raw | {"attention_bias": False})
    assert parameters(nobias) == PUBLISHED[PYTHIA_1B] - layers * (3 * h + h)


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"hidden_size": -1}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"hidden_size": 2050}, "hidden_size", ConfigProblem.UNSUPPORTED),
        ({"num_attention_heads": False}, "num_attention_heads", ConfigProblem.BAD_VALUE),
        ({"num_hidden_layers": "16"}, "num_hidden_layers", ConfigProblem.BAD_VALUE),
        ({"use_parallel_residual": "yes"}, "use_parallel_residual", ConfigProblem.BAD_VALUE),
        ({"attention_bias": 1}, "attention_bias", ConfigProblem.BAD_VALUE),
        ({"hidden_act": "mish"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        ({"rotary_pct": "quarter"}, "rotary_pct", ConfigProblem.BAD_VALUE),
        ({"rotary_pct": 0.0}, "rotary_pct", ConfigProblem.UNSUPPORTED),
        ({"rotary_pct": 2.0}, "rotary_pct", ConfigProblem.UNSUPPORTED),
        ({"head_dim": 128}, "head_dim", ConfigProblem.UNSUPPORTED),
        (
            {"rope_scaling": {"type": "linear", "partial_rotary_factor": True}},
            "partial_rotary_factor",
            ConfigProblem.BAD_VALUE,
        ),
        ({"intermediate_size": 0}, "intermediate_size", ConfigProblem.BAD_VALUE),
    ],
)
def test_bad_values_are_refused_naming_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as info:
        parse_model_config(raw_config(PYTHIA_1B) | change)
    assert info.value.key == key
    assert info.value.problem is problem
    assert key in str(info.value)


def test_hand_computed_pythia_1b_layer_on_cpu() -> None:
    """Pythia-1B, bf16, CPU (LayerNorm statistics in bf16), SDPA, s = 1024."""
    arch = read_model_config(config_path(PYTHIA_1B))
    s, h, a, i, p = 1024, 2048, 8, 8192, 2
    layer_input = p * s * h  # kept once by both LayerNorms (parallel residual)
    norm_stats = 2 * (2 * p * s)  # mean and rstd of each LayerNorm
    projection_inputs = 3 * p * s * h + p * s * i  # qkv, dense, h_to_4h; 4h_to_h
    rotated_q_k = 2 * p * s * h
    fused_qkv = 3 * p * s * h  # V is a view of it
    kernel = 4 * a * s + p * s * h  # log-sum-exp and the kernel's own output
    gelu_input = p * s * i
    per_layer = (
        layer_input + norm_stats + projection_inputs + rotated_q_k + fused_qkv + kernel + gelu_input
    )
    result = estimate(arch.inputs(seq=s, device=Device.CPU, use_cache=False))
    assert result.per_layer_bytes == per_layer == 75_538_432
    # the file's use_cache (true): the cache's copy of V replaces the fused storage
    cached = estimate(arch.inputs(seq=s, device=Device.CPU))
    assert per_layer - cached.per_layer_bytes == 2 * p * s * h
    outside = (
        8 * s  # token ids
        + 2 * p * s * 64  # cos and sin of the 64 rotated dimensions
        + (p * s * h + 2 * p * s)  # final LayerNorm
        + p * s * h  # embed_out input
        + (4 * s * 50304 + 8 * (s + 1) + 4)  # fp32 log-softmax, labels, weight
    )
    assert result.saved_bytes == 16 * per_layer + outside


def test_layer_norm_statistics_are_fp32_on_cuda() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    s = 1024
    cpu = estimate(arch.inputs(seq=s, device=Device.CPU)).saved_bytes
    cuda = estimate(arch.inputs(seq=s, device=Device.CUDA)).saved_bytes
    # two per-layer LayerNorms and the final one, mean and rstd: 4 bytes instead of 2
    assert cuda - cpu == (16 * 2 + 1) * 2 * (4 - 2) * s


def test_sequential_residual_keeps_the_second_norm_input() -> None:
    raw = raw_config(PYTHIA_1B)
    s, h = 512, 2048
    parallel = estimate(parse_model_config(raw).inputs(seq=s)).saved_bytes
    sequential = parse_model_config(raw | {"use_parallel_residual": False})
    assert estimate(sequential.inputs(seq=s)).saved_bytes - parallel == 16 * 2 * s * h


def test_eager_keeps_the_fp32_softmax_and_its_cast() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    s, h, a = 1024, 2048, 8
    sdpa = estimate(arch.inputs(seq=s)).saved_bytes
    eager = estimate(arch.inputs(seq=s, attention=Attention.EAGER)).saved_bytes
    assert eager - sdpa == 16 * ((4 + 2) * a * s * s - (4 * a * s + 2 * s * h))
    fp32 = layout(arch, arch.inputs(seq=s, dtype=Precision.FP32, attention=Attention.EAGER))
    assert fp32.stacks[0].parts[Part.ATTN_SOFTMAX] == 4 * a * s * s


def test_gelu_fast_keeps_seven_tensors() -> None:
    arch = read_model_config(config_path(NEOX_20B))
    parts = layout(arch, arch.inputs(seq=128)).stacks[0].parts
    assert parts[Part.MLP_ACTIVATION] == 7 * 2 * 128 * 24576


def test_a_padded_batch_adds_the_mask_under_sdpa_only() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    s = 1024
    plain = estimate(arch.inputs(seq=s)).saved_bytes
    padded = estimate(arch.inputs(seq=s, padded=True)).saved_bytes
    assert padded - plain == 16 * 2 * s * s
    eager = estimate(arch.inputs(seq=s, attention=Attention.EAGER)).saved_bytes
    eager_padded = estimate(arch.inputs(seq=s, attention=Attention.EAGER, padded=True))
    assert eager_padded.saved_bytes == eager


def test_dropout_noise_on_cpu_and_masks_on_cuda() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    s, h = 256, 2048
    for device, mask in ((Device.CUDA, 1), (Device.CPU, 2)):
        on = layout(arch, arch.inputs(seq=s, device=device, dropout=True))
        parts = on.stacks[0].parts
        assert parts[Part.ATTN_RESID_DROPOUT] == parts[Part.MLP_RESID_DROPOUT] == mask * s * h
        assert on.outside[Part.EMBEDDINGS] == 8 * s + mask * s * h  # emb_dropout


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_monotonic_in_seq_and_recomputation_saves(name: str, attention: Attention) -> None:
    arch = read_model_config(config_path(name))
    sizes = [
        estimate(arch.inputs(seq=s, attention=attention)).saved_bytes for s in (64, 256, 1024, 2048)
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    by = {
        r: estimate(arch.inputs(seq=2048, attention=attention, recompute=r))
        for r in (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    }
    assert by[Recompute.FULL].saved_bytes < by[Recompute.SELECTIVE].saved_bytes
    assert by[Recompute.SELECTIVE].saved_bytes <= by[Recompute.NONE].saved_bytes
    full = {i.key: i for i in by[Recompute.FULL].breakdown}
    assert full[Part.LAYER_CHECKPOINT].bytes == 2 * 2048 * arch.hidden
    assert Part.ROTARY not in full


def test_notes_say_what_the_family_assumes() -> None:
    arch = read_model_config(config_path(PYTHIA_1B))
    notes = estimate(arch.inputs(seq=512, attention=Attention.EAGER)).notes
    assert any("Parallel residual" in n for n in notes)
    assert any("fp32" in n for n in notes)
    assert all(isinstance(n, str) and n for n in notes)
