"""T5 encoder-decoders read from their published config.json files (seq2seq training)."""

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
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

# T5ForConditionalGeneration num_parameters() as trained from the published checkpoints
# (the hub's totals). Flan-T5 (tie_word_embeddings false) has its own lm_head, which
# from_pretrained keeps untied although transformers 5.24 ties it in a model built from
# the config alone.
PUBLISHED = {
    "google-t5__t5-small.json": 60_506_624,
    "google-t5__t5-base.json": 222_903_552,
    "google__flan-t5-base.json": 247_577_856,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("t5", Family.T5, Head.SEQ2SEQ_LM)
    assert arch.encoder_decoder
    assert parameters(arch) == PUBLISHED[name]


def test_flan_t5_counts_its_own_lm_head() -> None:
    flan = read_model_config(config_path("google__flan-t5-base.json"))
    tied = parse_model_config(
        raw_config("google__flan-t5-base.json") | {"tie_word_embeddings": True}
    )
    assert parameters(flan) - parameters(tied) == flan.vocab * flan.hidden


def test_t5_small_sizes_and_spec() -> None:
    arch = read_model_config(config_path("google-t5__t5-small.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        512,
        6,
        8,
        8,
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions, arch.default_seq) == (
        2048,
        32128,
        None,
        512,
    )
    spec = arch.spec
    assert (spec.decoder_layers, spec.feed_forward, spec.activation, spec.gated) == (
        6,
        "relu",
        "relu",
        False,
    )
    assert spec.relative_buckets == 32 and spec.tie_embeddings


def test_flan_t5_is_gated_gelu_new_and_untied_in_the_file() -> None:
    arch = read_model_config(config_path("google__flan-t5-base.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.head_dim, arch.intermediate) == (
        768,
        12,
        12,
        64,
        2048,
    )
    spec = arch.spec
    assert (spec.feed_forward, spec.activation, spec.gated, spec.tie_embeddings) == (
        "gated-gelu",
        "gelu_new",
        True,
        False,
    )
    notes = estimate(arch.inputs(seq=256)).notes
    assert any("tie_word_embeddings is false" in n for n in notes)


def test_defaults_are_t5_small_and_the_decoder_mirrors_the_encoder() -> None:
    assert (
        parameters(parse_model_config({"model_type": "t5"}))
        == PUBLISHED["google-t5__t5-small.json"]
    )
    raw = raw_config("google-t5__t5-base.json")
    assert parse_model_config(raw | {"num_decoder_layers": None}).spec.decoder_layers == 12
    shallow = parse_model_config(raw | {"num_decoder_layers": 2})
    result = estimate(shallow.inputs(seq=128))
    counts = {i.stack: i.count for i in result.breakdown if i.stack is not None}
    assert counts == {StackKind.ENCODER: 12, StackKind.DECODER: 2}


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"d_model": 0}, "d_model", ConfigProblem.BAD_VALUE),
        ({"num_heads": 2.5}, "num_heads", ConfigProblem.BAD_VALUE),
        ({"d_kv": "64"}, "d_kv", ConfigProblem.BAD_VALUE),
        ({"num_layers": False}, "num_layers", ConfigProblem.BAD_VALUE),
        ({"num_decoder_layers": 0}, "num_decoder_layers", ConfigProblem.BAD_VALUE),
        ({"d_ff": -1}, "d_ff", ConfigProblem.BAD_VALUE),
        ({"feed_forward_proj": 3}, "feed_forward_proj", ConfigProblem.BAD_VALUE),
        ({"feed_forward_proj": "gated-gelu-new"}, "feed_forward_proj", ConfigProblem.UNSUPPORTED),
        ({"feed_forward_proj": "fast-relu"}, "feed_forward_proj", ConfigProblem.UNSUPPORTED),
        ({"feed_forward_proj": "gated-mish"}, "feed_forward_proj", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_t5_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config("google-t5__t5-small.json") | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("device", list(Device))
def test_estimate_grows_with_both_lengths_and_full_recomputation_keeps_less(
    attention: Attention, device: Device
) -> None:
    arch = read_model_config(config_path("google__flan-t5-base.json"))

    def saved(seq: int, target: int, **more: Any) -> int:
        inputs = arch.inputs(seq=seq, target_seq=target, attention=attention, device=device, **more)
        return estimate(inputs).saved_bytes

    by_source = [saved(s, 64) for s in (64, 128, 256, 512)]
    by_target = [saved(256, t) for t in (16, 64, 128, 256)]
    assert by_source == sorted(by_source) and len(set(by_source)) == 4
    assert by_target == sorted(by_target) and len(set(by_target)) == 4
    for padded in (False, True):
        full = saved(512, 128, padded=padded, recompute=Recompute.FULL)
        assert full < saved(512, 128, padded=padded)


def test_t5_small_bytes_by_hand_cpu_eager() -> None:
    # bf16 (p = 2), CPU, eager; s = 512 source and t = 128 target tokens; h = 512,
    # a·d = 8·64 = 512, i = 2048, V = 32128.
    # T5LayerNorm keeps the fp32 copy, the input in bf16, the rsqrt and the normalised
    # tensor: norm(n) = 4·n·h + 4·n + 2·p·n·h.
    p, s, t, h, a, d, i, v = 2, 512, 128, 512, 8, 64, 2048, 32128

    def norm(n: int) -> int:
        return 4 * n * h + 4 * n + 2 * p * n * h

    # encoder: 2 norms, q/k/v input, Q K V, softmax (bf16), o input, wi input, ReLU output
    encoder = (
        2 * norm(s)
        + p * s * h
        + 3 * p * s * a * d
        + p * a * s * s
        + p * s * a * d
        + p * s * h
        + p * s * i
    )
    # decoder: 3 norms, self-attention over t, cross-attention (q input, Q, K and V of the
    # s encoder tokens, t×s softmax, o input), then the feed-forward
    decoder = (
        3 * norm(t)
        + p * t * h
        + 3 * p * t * a * d
        + p * a * t * t
        + p * t * a * d
        + p * t * h
        + p * t * a * d
        + 2 * p * s * a * d
        + p * a * t * s
        + p * t * a * d
        + p * t * h
        + p * t * i
    )
    assert (encoder, decoder) == (13_635_584, 5_637_632)
    arch = read_model_config(config_path("google-t5__t5-small.json"))
    result = estimate(
        arch.inputs(seq=s, target_seq=t, device=Device.CPU, attention=Attention.EAGER)
    )
    per = {k: sum(x.bytes for x in result.breakdown if x.stack is k) for k in StackKind}
    assert (per[StackKind.ENCODER], per[StackKind.DECODER]) == (encoder, decoder)
    outside = {x.key: x.bytes for x in result.breakdown if x.stack is None}
    assert outside == {
        Part.EMBEDDINGS: 8 * s + 8 * t,  # source ids, shifted target ids
        Part.SHARED_POSITION_BIAS: 8 * s * s + 8 * t * t,  # int64 bucket ids, once per stack
        Part.ENCODER_OUTPUT: p * s * h,
        Part.FINAL_NORM: norm(s) + norm(t),
        Part.LM_HEAD_INPUT: p * t * h,
        Part.LOSS: p * t * v + 8 * t + p,  # bf16 log-softmax, labels, total weight
    }
    assert result.saved_bytes == 6 * (encoder + decoder) + sum(outside.values())


def test_cpu_sdpa_runs_the_self_attention_in_fp32() -> None:
    arch = read_model_config(config_path("google-t5__t5-small.json"))
    s, a, d = 256, 8, 64
    result = estimate(arch.inputs(seq=s, target_seq=s, device=Device.CPU))
    enc = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.ENCODER}
    dec = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.DECODER}
    assert enc[Part.ATTN_QKV] == 3 * 4 * s * a * d and enc[Part.ATTN_SOFTMAX] == 4 * a * s * s
    # the decoder's causal mask, built in every layer and kept by torch.where
    assert dec[Part.ATTN_MASK] == s * s and Part.ATTN_MASK not in enc
    # the cross-attention's zero bias needs no gradient: fused kernel, log-sum-exp only
    assert dec[Part.CROSS_ATTN_SCORES] == 4 * a * s
    assert any("fp32 math path" in n for n in result.notes)
    cuda = estimate(arch.inputs(seq=s, target_seq=s, device=Device.CUDA))
    assert any("memory-efficient" in n for n in cuda.notes)


def test_full_recomputation_keeps_the_shared_biases_only_with_several_layers() -> None:
    raw = raw_config("google-t5__t5-small.json")
    p, s, t, a = 2, 256, 64, 8

    def bias(arch: Any) -> int:
        result = estimate(
            arch.inputs(seq=s, target_seq=t, device=Device.CPU, recompute=Recompute.FULL)
        )
        return next(x.bytes for x in result.breakdown if x.key is Part.SHARED_POSITION_BIAS)

    deep = parse_model_config(raw)
    assert bias(deep) == p * a * s * s + p * a * t * t + p * a * t * s
    one_decoder = parse_model_config(raw | {"num_decoder_layers": 1})
    assert bias(one_decoder) == p * a * s * s


def test_fp16_keeps_the_inputs_of_the_clamps() -> None:
    arch = read_model_config(config_path("google-t5__t5-small.json"))
    s, t, h = 128, 32, 512
    result = estimate(arch.inputs(seq=s, target_seq=t, dtype=Precision.FP16, device=Device.CPU))
    clamps = {x.stack: x.bytes for x in result.breakdown if x.key is Part.RESIDUAL}
    assert clamps == {
        StackKind.ENCODER: 2 * (2 * s * h + 8),
        StackKind.DECODER: 3 * (2 * t * h + 8),
    }
    assert any("wo" in n for n in result.notes)
