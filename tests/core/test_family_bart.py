"""BART and mBART encoder-decoders read from their published config.json files
(sequence-to-sequence training)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.cli import main
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
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.families import bart as bart_family
from gradacc_desktop.core.memory.model_size import size_of
from tests.configs import breakdown_parts, config_path, raw_config

# BartForConditionalGeneration / MBartForConditionalGeneration num_parameters() in
# transformers 5.24 (tied LM head; final_logits_bias is a buffer). mbart-large-50's is
# also the "trainable parameters" a full fine-tune of it reports (610,879,488).
PUBLISHED = {
    "facebook__bart-base.json": ("bart", 139_420_416),
    "facebook__bart-large.json": ("bart", 406_291_456),
    "facebook__mbart-large-50.json": ("mbart", 610_879_488),
}
BASE = "facebook__bart-base.json"
MBART50 = "facebook__mbart-large-50.json"


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    model_type, count = PUBLISHED[name]
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.BART, Head.SEQ2SEQ_LM)
    assert arch.encoder_decoder and arch.max_positions == 1024
    assert parameters(arch) == count


def test_bart_base_sizes_and_spec() -> None:
    arch = read_model_config(config_path(BASE))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        768,
        6,
        12,
        12,
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.decoder_layers, arch.default_seq) == (
        3072,
        50265,
        6,
        1024,
    )
    spec = arch.spec
    assert not spec.pre_norm and spec.activation == "gelu" and spec.tie_embeddings
    assert (spec.decoder_heads, spec.decoder_intermediate, spec.scale_embedding) == (
        12,
        3072,
        False,
    )
    # the published file turns on all three dropouts
    assert spec.hidden_dropout and spec.attention_dropout and spec.activation_dropout
    # the file names BartModel: estimated with the conditional-generation head, the
    # generation head's once-per-model parts and all
    result = estimate(arch.inputs(seq=256, target_seq=64))
    assert {Part.LM_HEAD_INPUT, Part.LOSS} <= set(breakdown_parts(result, per_layer=False))
    assert any("BartModel" in n for n in result.notes)


def test_mbart_50_is_pre_ln_with_final_norms_and_scaled_embeddings() -> None:
    arch = read_model_config(config_path(MBART50))
    spec = arch.spec
    assert spec.pre_norm and spec.scale_embedding
    assert (arch.hidden, arch.layers, arch.decoder_layers, arch.vocab) == (1024, 12, 12, 250054)
    # only the hidden dropout is on in the published file
    assert spec.hidden_dropout and not spec.attention_dropout and not spec.activation_dropout
    result = estimate(arch.inputs(seq=128, target_seq=32, device=Device.CPU))
    outside = breakdown_parts(result, per_layer=False)
    s, t, h, p = 128, 32, 1024, 2
    assert outside[Part.FINAL_NORM] == (p * s * h + 2 * p * s) + (p * t * h + 2 * p * t)
    per_layer = {x.key for x in result.breakdown if x.stack is StackKind.ENCODER}
    assert Part.ATTN_NORM in per_layer and Part.ATTN_POST_NORM not in per_layer
    assert any("pre-LN" in n for n in result.notes)


def test_defaults_are_bart_large_and_mbart_adds_two_final_norms() -> None:
    assert parameters(parse_model_config({"model_type": "bart"})) == 406_291_456
    assert parameters(parse_model_config({"model_type": "mbart"})) == 406_291_456 + 4 * 1024
    default = parse_model_config({"model_type": "mbart"}).spec
    # MBartConfig 5.24: no embedding scaling unless the file asks for it
    assert not default.scale_embedding and default.hidden_dropout
    assert not default.attention_dropout and not default.activation_dropout


def test_attribute_map_aliases_win_as_in_transformers() -> None:
    raw = raw_config(BASE)
    arch = parse_model_config(raw | {"num_hidden_layers": 4, "hidden_size": 384})
    assert (arch.layers, arch.hidden) == (4, 384)
    assert parse_model_config(raw | {"num_attention_heads": 8}).heads == 8
    # without the aliases the canonical keys are read
    bare = {k: v for k, v in raw.items() if k != "num_hidden_layers"}
    assert parse_model_config(bare | {"encoder_layers": 3}).layers == 3


def test_encoder_and_decoder_may_differ() -> None:
    raw = raw_config(BASE) | {
        "decoder_layers": 2,
        "decoder_attention_heads": 8,
        "decoder_ffn_dim": 1024,
    }
    arch = parse_model_config(raw)
    h = 768

    def decoder_layer(i: int) -> int:
        # self- and cross-attention (4 biased h×h linears each), fc1, fc2, three LayerNorms
        return 2 * 4 * (h * h + h) + (h * i + i) + (i * h + h) + 3 * 2 * h

    assert parameters(arch) == 139_420_416 - 6 * decoder_layer(3072) + 2 * decoder_layer(1024)
    result = estimate(arch.inputs(seq=64, target_seq=16, attention=Attention.EAGER))
    counts = {i.stack: i.count for i in result.breakdown if i.stack is not None}
    assert counts == {StackKind.ENCODER: 6, StackKind.DECODER: 2}
    decoder = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.DECODER}
    assert decoder[Part.ATTN_SOFTMAX] == 2 * 8 * 16 * 16  # eight decoder heads
    assert decoder[Part.CROSS_ATTN_SCORES] == 2 * 8 * 16 * 64
    assert decoder[Part.MLP_OUT_PROJ_INPUT] == 2 * 16 * 1024


def test_untied_embeddings_give_four_matrices_and_three_lookups() -> None:
    raw = raw_config(BASE)
    tied = parse_model_config(raw)
    untied = parse_model_config(raw | {"tie_word_embeddings": False})
    v, h = 50265, 768
    assert parameters(untied) - parameters(tied) == 3 * v * h
    positions = 2 * (1024 + 2) * h
    assert bart_family.lookup_parameters(tied) == positions
    assert bart_family.lookup_parameters(untied) == positions + 3 * v * h
    # the time model computes with everything but the lookups
    assert size_of("bart-base", tied).compute_params == 139_420_416 - positions
    assert size_of("bart-base", tied).layers == 12
    assert any("tie_word_embeddings is false" in n for n in estimate(untied.inputs(64)).notes)


def test_learned_positions_are_declared_for_both_types() -> None:
    assert bart_family.LEARNED_POSITIONS == ("bart", "mbart")
    assert family_module("mbart") is bart_family


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"d_model": 0, "hidden_size": None}, "d_model", ConfigProblem.BAD_VALUE),
        (
            {"encoder_layers": 2.5, "num_hidden_layers": None},
            "encoder_layers",
            ConfigProblem.BAD_VALUE,
        ),
        ({"decoder_layers": 0}, "decoder_layers", ConfigProblem.BAD_VALUE),
        ({"decoder_ffn_dim": "3072"}, "decoder_ffn_dim", ConfigProblem.BAD_VALUE),
        ({"max_position_embeddings": -1}, "max_position_embeddings", ConfigProblem.BAD_VALUE),
        ({"decoder_layerdrop": 1.5}, "decoder_layerdrop", ConfigProblem.BAD_VALUE),
        ({"attention_dropout": -0.1}, "attention_dropout", ConfigProblem.BAD_VALUE),
        ({"scale_embedding": "yes"}, "scale_embedding", ConfigProblem.BAD_VALUE),
        (
            {"decoder_attention_heads": 10},
            "decoder_attention_heads",
            ConfigProblem.UNSUPPORTED,
        ),
        (
            {"encoder_attention_heads": 7, "num_attention_heads": None},
            "encoder_attention_heads",
            ConfigProblem.UNSUPPORTED,
        ),
        ({"activation_function": "tanh"}, "activation_function", ConfigProblem.UNSUPPORTED),
        ({"architectures": ["BartForCausalLM"]}, "architectures", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_or_unmodelled_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(BASE) | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail or key == "architectures"


def test_the_decoder_alone_is_refused_in_plain_words() -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(MBART50) | {"architectures": ["MBartForCausalLM"]})
    assert "decoder alone" in err.value.detail


def test_bart_base_bytes_by_hand_cpu_eager() -> None:
    # bf16 (p = 2), CPU (LayerNorm statistics in bf16), eager, no dropout; s = 256 source
    # and t = 64 target tokens; h = 768, a = 12, i = 3072, V = 50265.
    p, s, t, h, a, i, v = 2, 256, 64, 768, 12, 3072, 50265

    def ln(n: int) -> int:
        return p * n * h + 2 * p * n  # input, mean and rstd

    # two post-LNs, q/k/v input, Q K V, softmax, out_proj input, fc1 input, GELU input,
    # fc2 input
    encoder = 2 * ln(s) + 5 * p * s * h + p * a * s * s + 2 * p * s * i + p * s * h
    # self-attention over t, cross-attention (q input, Q, K and V of the s encoder tokens,
    # t×s softmax, out_proj input), feed-forward; three post-LNs
    decoder = (
        3 * ln(t)
        + 5 * p * t * h
        + p * a * t * t
        + 3 * p * t * h
        + 2 * p * s * h
        + p * a * t * s
        + p * t * h
        + 2 * p * t * i
    )
    assert (encoder, decoder) == (7_866_368, 3_244_800)
    arch = read_model_config(config_path(BASE))
    result = estimate(
        arch.inputs(seq=s, target_seq=t, device=Device.CPU, attention=Attention.EAGER)
    )
    per = {k: sum(x.bytes for x in result.breakdown if x.stack is k) for k in StackKind}
    assert (per[StackKind.ENCODER], per[StackKind.DECODER]) == (encoder, decoder)
    assert breakdown_parts(result, per_layer=False) == {
        # int64 ids and position ids of both stacks, the two layernorm_embedding
        Part.EMBEDDINGS: 16 * s + 16 * t + ln(s) + ln(t),
        Part.ENCODER_OUTPUT: p * s * h,
        Part.LM_HEAD_INPUT: p * t * h,
        Part.LOSS: p * t * v + 8 * t + p,  # bf16 log-softmax, labels, total weight
    }
    assert result.saved_bytes == 6 * (encoder + decoder) + sum(
        breakdown_parts(result, per_layer=False).values()
    )
    assert result.peak_bytes == result.saved_bytes + 2 * p * t * v


def test_dropout_follows_the_file() -> None:
    base = read_model_config(config_path(BASE))
    mbart = read_model_config(config_path(MBART50))

    def keys(arch: Any, **more: Any) -> set[Part]:
        inputs = arch.inputs(seq=64, target_seq=32, dropout=True, device=Device.CPU, **more)
        return {x.key for x in estimate(inputs).breakdown}

    assert {Part.ATTN_DROPOUT, Part.ATTN_RESID_DROPOUT} <= keys(base, attention=Attention.EAGER)
    # attention dropout on: SDPA on a CPU takes the fp32 math path
    base_sdpa = estimate(base.inputs(seq=64, target_seq=32, dropout=True, device=Device.CPU))
    enc = {x.key: x.bytes for x in base_sdpa.breakdown if x.stack is StackKind.ENCODER}
    assert enc[Part.ATTN_QKV] == 3 * 4 * 64 * 768
    # mbart-large-50: only the hidden dropout; SDPA keeps its fused kernel
    got = keys(mbart)
    assert Part.ATTN_RESID_DROPOUT in got and Part.ATTN_DROPOUT not in got
    assert Part.ATTN_FUSED in got
    assert any("the file turns on" in n for n in estimate(mbart.inputs(64, dropout=True)).notes)


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("device", list(Device))
def test_estimate_grows_with_both_lengths_and_full_recomputation_keeps_less(
    attention: Attention, device: Device
) -> None:
    arch = read_model_config(config_path("facebook__bart-large.json"))

    def saved(seq: int, target: int, **more: Any) -> int:
        inputs = arch.inputs(seq=seq, target_seq=target, attention=attention, device=device, **more)
        return estimate(inputs).saved_bytes

    by_source = [saved(s, 64) for s in (64, 128, 256, 512)]
    by_target = [saved(256, t) for t in (16, 64, 128, 256)]
    assert by_source == sorted(by_source) and len(set(by_source)) == 4
    assert by_target == sorted(by_target) and len(set(by_target)) == 4
    for padded in (False, True):
        assert saved(512, 128, padded=padded, recompute=Recompute.FULL) < saved(
            512, 128, padded=padded
        )


def test_full_recomputation_keeps_the_masks_passed_positionally() -> None:
    arch = read_model_config(config_path(BASE))
    p, s, t = 2, 128, 32

    def masks(attention: Attention, padded: bool) -> int:
        inputs = arch.inputs(
            seq=s,
            target_seq=t,
            attention=attention,
            padded=padded,
            recompute=Recompute.FULL,
            device=Device.CPU,
        )
        return breakdown_parts(estimate(inputs), per_layer=False).get(Part.SHARED_MASK, 0)

    assert masks(Attention.EAGER, False) == p * t * t  # the additive causal mask
    assert masks(Attention.EAGER, True) == p * t * t + p * s * s
    assert masks(Attention.SDPA, False) == 0  # is_causal, no mask
    assert masks(Attention.SDPA, True) == s * s  # the boolean padding mask


def test_sdpa_with_a_padded_batch_copies_the_mask_in_every_layer() -> None:
    arch = read_model_config(config_path(BASE))
    p, s, t = 2, 128, 32
    result = estimate(arch.inputs(seq=s, target_seq=t, padded=True, device=Device.CPU))
    enc = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.ENCODER}
    dec = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.DECODER}
    assert enc[Part.ATTN_MASK] == p * s * s
    assert dec[Part.ATTN_MASK] == p * t * s  # the cross-attention's; self-attention is causal
    assert any("padded batch" in n for n in result.notes)


def test_fp16_mbart_keeps_the_input_of_the_encoder_clamp() -> None:
    s, t, h = 128, 32, 1024
    mbart = read_model_config(config_path(MBART50))
    result = estimate(mbart.inputs(seq=s, target_seq=t, dtype=Precision.FP16, device=Device.CPU))
    clamps = {x.stack: x.bytes for x in result.breakdown if x.key is Part.RESIDUAL}
    assert clamps == {StackKind.ENCODER: 2 * s * h}
    bart = read_model_config(config_path(BASE))
    result = estimate(bart.inputs(seq=s, target_seq=t, dtype=Precision.FP16))
    assert not any(x.key is Part.RESIDUAL for x in result.breakdown)
    assert any("overflowed" in n for n in result.notes)


def test_command_line_refuses_source_or_target_past_the_position_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(config_path(MBART50))

    def refused(*argv: str) -> str:
        assert main(["activation", "--model-config", path, *argv]) == 2
        return capsys.readouterr().err

    assert "--seq-len 1025" in refused("--seq-len", "1025", "--target-seq", "16")
    assert "--target-seq 1025" in refused("--seq-len", "512", "--target-seq", "1025")
    assert (
        main(["activation", "--model", "bart-base", "--seq-len", "1024", "--target-seq", "1024"])
        == 0
    )
    capsys.readouterr()
