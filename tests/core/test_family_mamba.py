"""Mamba and Falcon-Mamba state-space models read from their published config.json
files (and small ones whose bytes were measured on a CPU)."""

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
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    family_module,
    mamba,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.model_size import size_of
from tests.configs import breakdown_parts, config_path, raw_config

# num_parameters() of the published models as transformers 5.24 builds them on the meta
# device, equal to the published totals (129M, 2.77B, 7.27B)
PUBLISHED = {
    "state-spaces__mamba-130m-hf.json": ("mamba", 129_135_360),
    "state-spaces__mamba-2.8b-hf.json": ("mamba", 2_768_345_600),
    "tiiuae__falcon-mamba-7b.json": ("falcon_mamba", 7_272_665_088),
}

TINY: dict[str, Any] = {
    "model_type": "mamba",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "state_size": 8,
    "vocab_size": 500,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.MAMBA, Head.CAUSAL_LM)
    assert parameters(arch) == count


def test_mamba_130m_shape() -> None:
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    m = arch.spec.mixer
    assert (arch.hidden, arch.layers, arch.vocab, arch.intermediate) == (768, 24, 50280, 1536)
    assert (m.d_inner, m.state, m.dt_rank, m.conv_kernel) == (1536, 16, 48, 4)
    assert not m.proj_bias and m.conv_bias and m.activation == "silu"
    assert m.bcdt_norm == mamba.NO_NORM
    assert arch.spec.residual_fp32 and arch.spec.tie_embeddings
    # no attention, no positions: one head of size 1 for the time model, any length
    assert (arch.heads, arch.kv_heads, arch.head_dim, arch.max_positions) == (1, 1, 1, None)
    # tied embeddings: the LM head computes with the embedding, nothing is a lookup only
    size = size_of("mamba-130m", arch)
    assert size.compute_params == size.params == 129_135_360


def test_falcon_mamba_7b_shape() -> None:
    arch = read_model_config(config_path("tiiuae__falcon-mamba-7b.json"))
    m = arch.spec.mixer
    # the file says expand 16, but its intermediate_size (8192) is what transformers uses
    assert (m.d_inner, m.state, m.dt_rank) == (8192, 16, 256)
    assert m.bcdt_norm == mamba.WEIGHTLESS_NORM and arch.spec.mixer_rms_eps == 1e-6
    assert not arch.spec.tie_embeddings
    # the untied input embedding is a lookup only
    assert family_module(arch).lookup_parameters(arch) == 65024 * 4096
    size = size_of("falcon-mamba-7b", arch)
    assert size.compute_params == 7_272_665_088 - 65024 * 4096
    # without intermediate_size the class computes expand · hidden_size
    raw = raw_config("tiiuae__falcon-mamba-7b.json")
    del raw["intermediate_size"]
    assert parse_model_config(raw).spec.mixer.d_inner == 16 * 4096


def test_defaults_of_the_configuration_classes() -> None:
    for model_type in mamba.MODEL_TYPES:
        arch = parse_model_config({"model_type": model_type})
        m = arch.spec.mixer
        assert (arch.hidden, arch.layers, arch.vocab) == (768, 32, 50280)
        # time_step_rank "auto": ceil(768 / 16)
        assert (m.d_inner, m.state, m.dt_rank, m.conv_kernel) == (1536, 16, 48, 4)
        assert arch.spec.residual_fp32 and arch.spec.tie_embeddings
    # "auto" rounds up
    assert parse_model_config(TINY | {"hidden_size": 100}).spec.mixer.dt_rank == 7
    assert parse_model_config(TINY | {"time_step_rank": "auto"}).spec.mixer.dt_rank == 4


def test_biases_and_untied_head_count_like_transformers() -> None:
    # measured on the model transformers builds (tests/measure/test_family_mamba.py)
    raw = TINY | {
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "state_size": 4,
        "expand": 3,
        "conv_kernel": 3,
        "time_step_rank": 5,
        "use_bias": True,
        "use_conv_bias": False,
        "tie_word_embeddings": False,
        "vocab_size": 300,
    }
    assert parameters(parse_model_config(raw)) == 103_872
    assert parameters(parse_model_config(TINY)) == 91_328


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"d_model": 1024}, "d_model"),
        ({"n_layer": 48}, "n_layer"),
        ({"d_inner": 4096}, "d_inner"),
        ({"time_step_rank": "full"}, "time_step_rank"),
        ({"time_step_rank": None}, "time_step_rank"),
        ({"hidden_act": "gelu_new"}, "hidden_act"),
    ],
)
def test_refusals_name_the_key(change: dict[str, Any], key: str) -> None:
    raw = raw_config("state-spaces__mamba-130m-hf.json") | change
    with pytest.raises(ModelConfigError) as caught:
        parse_model_config(raw)
    assert caught.value.problem is ConfigProblem.UNSUPPORTED
    assert caught.value.key == key
    assert key in caught.value.detail


def test_bad_values_are_refused() -> None:
    for key in ("expand", "state_size", "conv_kernel"):
        with pytest.raises(ModelConfigError) as caught:
            parse_model_config(TINY | {key: 0})
        assert caught.value.problem is ConfigProblem.BAD_VALUE and caught.value.key == key


# bytes autograd saved for one sample of the tiny model (bf16, CPU), as measured by
# gradacc_desktop.measure: the estimate must give them exactly
MEASURED = [
    (TINY, 16, False, False, 633_292),
    (TINY, 16, False, True, 633_420),
    (TINY, 16, True, False, 48_716),
    (TINY, 40, False, False, 1_560_940),
    (TINY | {"model_type": "falcon_mamba", "intermediate_size": 160,
             "tie_word_embeddings": False}, 33, False, False, 1_586_336),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "seq", "full", "padded", "saved"), MEASURED)
def test_measured_bytes(
    raw: dict[str, Any], seq: int, full: bool, padded: bool, saved: int
) -> None:
    inputs = parse_model_config(raw).inputs(
        seq=seq,
        device=Device.CPU,
        recompute=Recompute.FULL if full else Recompute.NONE,
        padded=padded,
    )
    assert estimate(inputs).saved_bytes == saved


def test_hand_computed_mamba_130m_layer() -> None:
    """Mamba-130m, s = 2048, bf16: d = 1536, N = 16, r = 48, K = 4."""
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    result = estimate(arch.inputs(seq=2048))
    layer = breakdown_parts(result)
    s, h, d, n, r, k, p = 2048, 768, 1536, 16, 48, 4, 2
    assert layer[Part.MLP_NORM] == 4 * s * h + 4 * s + p * s * h
    assert layer[Part.MLP_IN_PROJ_INPUT] == p * s * h
    # in_proj output (x and z), conv1d output (s + K - 1), SiLU output
    assert layer[Part.MLP_ACTIVATION] == 2 * p * s * d + p * d * (s + k - 1) + p * s * d
    scan = (
        p * s * (r + 2 * n)  # x_proj output
        + 4 * s * n  # B.float()
        + 2 * p * d * s  # dt + bias, softplus
        + 2 * 4 * d * n  # exp(A_log), A
        + 2 * 4 * d * s * n  # discretised A and B
        + 4 * d * s  # u.float()
        + p * d * n  # zero state
        + 4 * d * n * (s - 1)
        + p * d * n * s  # states: fp32, and their bf16 copies
        + 4 * d  # D.float()
        + 4 * d * s  # y + u·D (fp32)
        + p * d * s  # silu(z)
    )
    assert layer[Part.OTHER_LAYER] == scan
    assert layer[Part.MLP_OUT_PROJ_INPUT] == p * d * s
    # the scan dominates: (12 + p)·s·d·N bytes per layer
    assert 0.9 < (12 + p) * s * d * n / layer[Part.OTHER_LAYER] < 1.0
    outside = breakdown_parts(result, per_layer=False)
    # fp32 residual stream: fp32 input and normalised tensor in the final norm
    assert outside[Part.FINAL_NORM] == 8 * s * h + 4 * s
    assert outside[Part.LM_HEAD_INPUT] == p * s * h
    # the fp32 logits the output keeps and their fp32 gradient
    v = 50280
    assert result.peak_bytes - result.saved_bytes == 8 * s * v


def test_the_scan_grows_with_sequence_d_inner_and_state_size() -> None:
    raw = raw_config("state-spaces__mamba-130m-hf.json")

    def scan(seq: int, **change: Any) -> int:
        arch = parse_model_config(raw | change)
        return breakdown_parts(estimate(arch.inputs(seq=seq)))[Part.OTHER_LAYER]

    base = scan(1024)
    # 16 more states add (12 + p)·s·d per state (discretised A and B, the fp32 states and
    # their copies), A twice and the zero state less the one state never kept (6·d), and
    # B's fp32 copy and x_proj's two more columns (8·s)
    s, d = 1024, 1536
    assert scan(s, state_size=32) - base == 16 * (14 * s * d + 6 * d + 8 * s)
    # linear in the sequence length
    assert scan(2048) - base == scan(3072) - scan(2048)
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    notes = estimate(arch.inputs(seq=1024)).notes
    assert any("sequence × d_inner × state_size" in note for note in notes)


def test_attention_choice_and_dropout_change_nothing() -> None:
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    values = {
        estimate(arch.inputs(seq=512, attention=a, dropout=drop)).saved_bytes
        for a in Attention
        for drop in (False, True)
    }
    assert len(values) == 1
    # no attention core: selective recomputation keeps everything
    none = estimate(arch.inputs(seq=512)).saved_bytes
    assert estimate(arch.inputs(seq=512, recompute=Recompute.SELECTIVE)).saved_bytes == none


def test_full_recomputation_keeps_fp32_layer_inputs() -> None:
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    s, h = 1024, 768
    result = estimate(arch.inputs(seq=s, recompute=Recompute.FULL))
    layer = breakdown_parts(result)
    assert layer == {Part.LAYER_CHECKPOINT: 4 * s * h}
    outside = breakdown_parts(result, per_layer=False)
    # the first layer's input is the embedding output (bf16); the final norm's fp32 input
    # is counted as the last layer's fp32 output
    assert outside[Part.EMBEDDINGS] == 8 * s + 2 * s * h
    assert outside[Part.FINAL_NORM] == 4 * s * h + 4 * s
    # without the fp32 residual every tensor between the layers is in the dtype
    bf16 = parse_model_config(raw_config("state-spaces__mamba-130m-hf.json")
                              | {"residual_in_fp32": False})  # fmt: skip
    plain = estimate(bf16.inputs(seq=s, recompute=Recompute.FULL))
    assert breakdown_parts(plain) == {Part.LAYER_CHECKPOINT: 2 * s * h}
    assert breakdown_parts(plain, per_layer=False)[Part.EMBEDDINGS] == 8 * s
    # fp32 weights: the same tensors, all fp32
    fp32 = estimate(arch.inputs(seq=s, recompute=Recompute.FULL, dtype=Precision.FP32))
    assert breakdown_parts(fp32, per_layer=False)[Part.EMBEDDINGS] == 8 * s


def test_padded_batches_keep_the_int64_mask_once() -> None:
    arch = read_model_config(config_path("state-spaces__mamba-130m-hf.json"))
    dense = estimate(arch.inputs(seq=512))
    padded = estimate(arch.inputs(seq=512, padded=True))
    assert padded.saved_bytes - dense.saved_bytes == 8 * 512
    assert breakdown_parts(padded, per_layer=False)[Part.SHARED_MASK] == 8 * 512
    assert {i.stack for i in padded.breakdown if i.stack} == {StackKind.LAYERS}


def test_falcon_mamba_norms_dt_b_and_c() -> None:
    raw = raw_config("state-spaces__mamba-130m-hf.json")
    plain = parse_model_config(raw)
    falcon = parse_model_config(raw | {"model_type": "falcon_mamba"})
    assert parameters(falcon) == parameters(plain)  # the norms' weights are buffers
    s, r, n, p = 1024, 48, 16, 2

    def scan(arch: Any) -> int:
        return breakdown_parts(estimate(arch.inputs(seq=s)))[Part.OTHER_LAYER]

    # per norm the fp32 input and rsqrt; dt and C normalised in the dtype; no x_proj output
    norms = (4 * s * r + 4 * s + p * s * r) + (4 * s * n + 4 * s) + (4 * s * n + 4 * s + p * s * n)
    assert scan(falcon) - scan(plain) == norms - p * s * (r + 2 * n)
