"""Whisper speech encoder-decoders read from their published config.json files
(WhisperForConditionalGeneration, sequence-to-sequence training)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    InvalidActivationInputs,
    Part,
    Precision,
    Recompute,
    ShapeProblem,
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
from gradacc_desktop.core.memory.families import whisper as whisper_family
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import breakdown_parts, config_path, raw_config

# WhisperForConditionalGeneration.num_parameters() in transformers 5.24 (proj_out tied;
# the encoder's frozen sinusoidal positions are a parameter and are counted). The same
# totals follow from the published model.safetensors sizes: 4 bytes (fp32; large-v3:
# 2 bytes, fp16) per parameter plus a header of 19 / 55 / 150 kB.
PUBLISHED = {
    "openai__whisper-tiny.json": 37_760_640,
    "openai__whisper-small.json": 241_734_912,
    "openai__whisper-large-v3.json": 1_543_490_560,
}
SMALL = "openai__whisper-small.json"
LARGE = "openai__whisper-large-v3.json"


@pytest.fixture(scope="module")
def small() -> Any:
    return read_model_config(config_path(SMALL))


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_published_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == ("whisper", Family.WHISPER, Head.SEQ2SEQ_LM)
    assert arch.encoder_decoder and arch.architecture == "WhisperForConditionalGeneration"
    assert parameters(arch) == PUBLISHED[name]


def test_whisper_small_sizes_and_spec(small: Any) -> None:
    assert (small.hidden, small.layers, small.heads, small.kv_heads, small.head_dim) == (
        768,
        12,
        12,
        12,
        64,
    )
    assert (small.intermediate, small.vocab, small.max_positions) == (3072, 51865, 1500)
    spec = small.spec
    assert (spec.decoder_layers, spec.decoder_heads, spec.decoder_intermediate) == (12, 12, 3072)
    assert (spec.mel_bins, spec.max_source_positions, spec.max_target_positions) == (80, 1500, 448)
    assert spec.activation == "gelu" and spec.tie_embeddings and spec.lm_head_file
    assert small.decoder_layers == 12


def test_large_v3_reads_128_mel_bins_and_its_vocabulary() -> None:
    arch = read_model_config(config_path(LARGE))
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate, arch.vocab) == (
        1280,
        32,
        20,
        5120,
        51866,
    )
    assert (arch.spec.mel_bins, arch.spec.decoder_layers) == (128, 32)
    # 48 more mel bins: conv1 has 48·3·1280 more weights, and conv1 keeps a wider input
    as_80 = parse_model_config(raw_config(LARGE) | {"num_mel_bins": 80})
    assert parameters(arch) - parameters(as_80) == 48 * 3 * 1280
    wide = breakdown_parts(estimate(arch.inputs(target_seq=100)), per_layer=False)
    narrow = breakdown_parts(estimate(as_80.inputs(target_seq=100)), per_layer=False)
    assert wide[Part.EMBEDDINGS] - narrow[Part.EMBEDDINGS] == 2 * 48 * 3000


def test_the_lengths_start_at_the_encoder_and_the_decoder_limits(small: Any) -> None:
    # 30 s of audio: 1 500 encoder positions; transcripts of at most 448 tokens
    assert (small.default_seq, small.default_target_seq, small.max_target_positions) == (
        1500,
        448,
        448,
    )
    inputs = small.inputs()
    assert (inputs.seq, inputs.target_seq, inputs.decoder_seq) == (1500, 448, 448)
    assert small.inputs(target_seq=120).decoder_seq == 120
    # the other encoder-decoders keep "the target defaults to the source length"
    t5 = read_model_config(config_path("google-t5__t5-small.json"))
    assert t5.max_target_positions is None and t5.inputs(seq=700).target_seq is None


def test_any_other_encoder_length_is_refused(small: Any) -> None:
    # transformers raises unless the features are 2·max_source_positions frames
    for seq in (512, 1499, 1501):
        with pytest.raises(InvalidActivationInputs) as err:
            estimate(small.inputs(seq=seq, target_seq=64))
        assert (err.value.field, err.value.problem) == ("seq", ShapeProblem.NOT_MODELLED)
        assert "1500" in err.value.detail and "3000 log-mel frames" in err.value.detail


def test_a_transcript_past_the_decoder_positions_is_refused(small: Any) -> None:
    assert estimate(small.inputs(target_seq=448)).saved_bytes > 0
    with pytest.raises(InvalidActivationInputs) as err:
        estimate(small.inputs(target_seq=449))
    assert (err.value.field, err.value.problem) == ("target_seq", ShapeProblem.NOT_MODELLED)
    assert "448" in err.value.detail


def test_learned_positions_make_the_tools_refuse_longer_runs(small: Any) -> None:
    assert whisper_family.LEARNED_POSITIONS == ("whisper",)
    assert family_module("whisper") is whisper_family
    known = facts(ModelSpec.bundled("whisper-small"))
    assert (known.learned_positions, known.default_seq, known.encoder_decoder) == (
        1500,
        1500,
        True,
    )
    assert known.params == PUBLISHED[SMALL]


def test_command_line_takes_the_transcript_length_and_refuses_the_rest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(config_path(SMALL))

    def run(*argv: str) -> tuple[int, str]:
        code = main(["activation", "--model-config", path, *argv])
        captured = capsys.readouterr()
        return code, captured.err if code else captured.out

    code, out = run("--target-seq", "448")
    assert code == 0 and "s=1500" in out and "target=448" in out
    code, err = run("--target-seq", "449")
    assert code == 2 and "up to 448 tokens" in err and "--target-seq 449" in err
    code, err = run("--seq-len", "2048", "--target-seq", "64")
    assert code == 2 and "--seq-len 2048" in err
    code, err = run("--seq-len", "512", "--target-seq", "64")
    assert code == 2 and "must be 1500" in err
    # without --target-seq: the decoder's 448 positions
    code, out = run("--json")
    assert code == 0 and '"target_seq": 448' in out
    assert main(["activation", "--model", "whisper-small", "--target-seq", "100"]) == 0
    capsys.readouterr()


def test_whisper_small_bytes_by_hand_cpu_sdpa(small: Any) -> None:
    # bf16 (p = 2), CPU (LayerNorm statistics in bf16), SDPA, no dropout; s = 1500
    # encoder positions, t = 100 transcript tokens; h = 768, a = 12, i = 3072, c = 80
    p, s, t, h, a, i, v, c = 2, 1500, 100, 768, 12, 3072, 51865, 80
    result = estimate(small.inputs(target_seq=t, device=Device.CPU))
    norm_s, norm_t = p * s * h + 2 * p * s, p * t * h + 2 * p * t
    encoder = {
        Part.ATTN_NORM: norm_s,
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.ATTN_QKV: 3 * p * s * h,
        Part.ATTN_FUSED: 4 * a * s,
        Part.ATTN_KERNEL_OUTPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.MLP_NORM: norm_s,
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    decoder = {
        Part.ATTN_NORM: norm_t,
        Part.QKV_PROJ_INPUT: p * t * h,
        Part.ATTN_QKV: 3 * p * t * h,
        Part.ATTN_FUSED: 4 * a * t,
        Part.ATTN_KERNEL_OUTPUT: p * t * h,
        Part.ATTN_OUT_PROJ_INPUT: p * t * h,
        Part.CROSS_ATTN_NORM: norm_t,
        Part.CROSS_ATTN_QKV: 2 * p * t * h + 2 * p * s * h,
        Part.CROSS_ATTN_SCORES: 4 * a * t + p * t * h,
        Part.CROSS_ATTN_OUT_PROJ_INPUT: p * t * h,
        Part.MLP_NORM: norm_t,
        Part.MLP_IN_PROJ_INPUT: p * t * h,
        Part.MLP_ACTIVATION: p * t * i,
        Part.MLP_OUT_PROJ_INPUT: p * t * i,
    }
    outside = {
        # conv1 input, GELU input, conv2 input, GELU input; decoder ids and positions
        Part.EMBEDDINGS: p * c * 2 * s + 2 * p * h * 2 * s + p * h * s + 16 * t,
        Part.ENCODER_OUTPUT: p * s * h,
        Part.FINAL_NORM: norm_s + norm_t,
        Part.LM_HEAD_INPUT: p * t * h,
        Part.LOSS: p * t * v + 8 * t + p,
    }
    for stack, parts in ((StackKind.ENCODER, encoder), (StackKind.DECODER, decoder)):
        got = {x.key: x.bytes for x in result.breakdown if x.stack is stack}
        assert got == parts
        assert {x.count for x in result.breakdown if x.stack is stack} == {12}
    assert breakdown_parts(result, per_layer=False) == outside
    assert result.saved_bytes == 12 * (sum(encoder.values()) + sum(decoder.values())) + sum(
        outside.values()
    )
    assert result.peak_bytes - result.saved_bytes == 2 * p * t * v  # the logits transient


def test_eager_keeps_the_softmax_of_both_attentions(small: Any) -> None:
    s, t, a, p = 1500, 64, 12, 2
    result = estimate(small.inputs(target_seq=t, attention=Attention.EAGER))
    encoder = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.ENCODER}
    decoder = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.DECODER}
    assert encoder[Part.ATTN_SOFTMAX] == p * a * s * s
    assert decoder[Part.ATTN_SOFTMAX] == p * a * t * t
    assert decoder[Part.CROSS_ATTN_SCORES] == p * a * t * s
    assert Part.ATTN_KERNEL_OUTPUT not in encoder


def test_full_recomputation_keeps_layer_inputs_and_eager_the_causal_mask(small: Any) -> None:
    s, t, h, p = 1500, 200, 768, 2
    for attention, mask in ((Attention.SDPA, 0), (Attention.EAGER, p * t * t)):
        result = estimate(small.inputs(target_seq=t, attention=attention, recompute=Recompute.FULL))
        per_layer = {(x.stack, x.key): x.bytes for x in result.breakdown if x.stack}
        assert per_layer == {
            (StackKind.ENCODER, Part.LAYER_CHECKPOINT): p * s * h,
            (StackKind.DECODER, Part.LAYER_CHECKPOINT): p * t * h,
        }
        outside = breakdown_parts(result, per_layer=False)
        assert outside.get(Part.SHARED_MASK, 0) == mask
        assert outside[Part.ENCODER_OUTPUT] == p * s * h


def test_padding_masks_nothing_and_says_so(small: Any) -> None:
    dense = estimate(small.inputs(target_seq=128))
    padded = estimate(small.inputs(target_seq=128, padded=True))
    assert padded.saved_bytes == dense.saved_bytes
    assert any("masks nothing" in n for n in padded.notes)


def test_fp16_keeps_the_input_of_every_encoder_clamp(small: Any) -> None:
    result = estimate(small.inputs(target_seq=64, dtype=Precision.FP16))
    residual = [x for x in result.breakdown if x.key is Part.RESIDUAL]
    assert [(x.stack, x.bytes, x.count) for x in residual] == [
        (StackKind.ENCODER, 2 * 1500 * 768, 12)
    ]
    assert any("clamps" in n for n in result.notes)


def test_dropout_adds_masks_everywhere_and_the_cpu_math_path(small: Any) -> None:
    base = small.inputs(target_seq=64, device=Device.CPU)
    plain = estimate(base).saved_bytes
    cuda = estimate(small.inputs(target_seq=64, dropout=True)).saved_bytes
    cpu = estimate(small.inputs(target_seq=64, dropout=True, device=Device.CPU)).saved_bytes
    assert plain < cuda < cpu  # CPU: dtype noise and the fp32 math path of SDPA
    notes = estimate(small.inputs(target_seq=64, dropout=True)).notes
    assert any("every dropout" in n for n in notes)


def test_defaults_are_whisper_tiny() -> None:
    arch = parse_model_config({"model_type": "whisper"})
    assert parameters(arch) == PUBLISHED["openai__whisper-tiny.json"]
    assert (arch.hidden, arch.layers, arch.heads, arch.vocab, arch.max_positions) == (
        384,
        4,
        6,
        51865,
        1500,
    )


def test_attribute_map_aliases_win_as_in_transformers() -> None:
    raw = raw_config(SMALL) | {"num_hidden_layers": 4, "encoder_layers": 12}
    assert parse_model_config(raw).layers == 4
    raw = raw_config(SMALL) | {"hidden_size": 384, "d_model": 768}
    assert parse_model_config(raw).hidden == 384
    raw = raw_config(SMALL) | {"num_attention_heads": 6}
    assert parse_model_config(raw).heads == 6


def test_encoder_and_decoder_may_differ() -> None:
    raw = raw_config(SMALL) | {
        "decoder_layers": 2,
        "decoder_attention_heads": 6,
        "decoder_ffn_dim": 1024,
    }
    arch = parse_model_config(raw)
    small = read_model_config(config_path(SMALL))
    per_decoder_layer = (
        2 * (4 * 768 * 768 + 3 * 768) + 768 * 3072 + 3072 + 3072 * 768 + 768 + 6 * 768
    )
    smaller = 768 * 1024 + 1024 + 1024 * 768 + 768
    assert parameters(small) - parameters(arch) == (
        12 * per_decoder_layer - 2 * (per_decoder_layer - (768 * 3072 * 2 + 3072 + 768) + smaller)
    )
    result = estimate(arch.inputs(target_seq=32))
    counts = {x.stack: x.count for x in result.breakdown if x.stack is not None}
    assert counts == {StackKind.ENCODER: 12, StackKind.DECODER: 2}
    decoder = {x.key: x.bytes for x in result.breakdown if x.stack is StackKind.DECODER}
    assert decoder[Part.ATTN_FUSED] == 4 * 6 * 32
    assert decoder[Part.MLP_OUT_PROJ_INPUT] == 2 * 32 * 1024


def test_untied_proj_out_is_counted_and_only_lookups_leave_the_compute(small: Any) -> None:
    untied = parse_model_config(raw_config(SMALL) | {"tie_word_embeddings": False})
    assert parameters(untied) - parameters(small) == 51865 * 768
    assert any("proj_out has its own matrix" in n for n in estimate(untied.inputs()).notes)
    positions = (1500 + 448) * 768
    assert whisper_family.lookup_parameters(small) == positions
    assert whisper_family.lookup_parameters(untied) == positions + 51865 * 768
    size = size_of("whisper-small", small)
    assert size.compute_params == PUBLISHED[SMALL] - positions
    assert (size.layers, size.hidden, size.vocab) == (24, 768, 51865)


def test_another_head_in_the_file_is_estimated_as_the_seq2seq_lm_and_says_so() -> None:
    raw = raw_config(SMALL) | {"architectures": ["WhisperForAudioClassification"]}
    arch = parse_model_config(raw)
    assert arch.head is Head.SEQ2SEQ_LM and not arch.spec.lm_head_file
    assert any("another head" in n for n in estimate(arch.inputs()).notes)


def test_layerdrop_is_an_upper_bound_note() -> None:
    arch = parse_model_config(raw_config(SMALL) | {"encoder_layerdrop": 0.1})
    assert any("LayerDrop" in n for n in estimate(arch.inputs()).notes)


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"d_model": 0}, "d_model", ConfigProblem.BAD_VALUE),
        (
            {"encoder_layers": 2.5, "num_hidden_layers": None},
            "encoder_layers",
            ConfigProblem.BAD_VALUE,
        ),
        ({"decoder_layers": 0}, "decoder_layers", ConfigProblem.BAD_VALUE),
        ({"num_mel_bins": "80"}, "num_mel_bins", ConfigProblem.BAD_VALUE),
        ({"max_target_positions": -1}, "max_target_positions", ConfigProblem.BAD_VALUE),
        ({"max_source_positions": 0}, "max_source_positions", ConfigProblem.BAD_VALUE),
        ({"decoder_layerdrop": 1.5}, "decoder_layerdrop", ConfigProblem.BAD_VALUE),
        ({"attention_dropout": -0.1}, "attention_dropout", ConfigProblem.BAD_VALUE),
        ({"tie_word_embeddings": "no"}, "tie_word_embeddings", ConfigProblem.BAD_VALUE),
        ({"decoder_attention_heads": 10}, "decoder_attention_heads", ConfigProblem.UNSUPPORTED),
        ({"encoder_attention_heads": 7}, "encoder_attention_heads", ConfigProblem.UNSUPPORTED),
        (
            {"num_attention_heads": 12, "num_key_value_heads": 6},
            "num_key_value_heads",
            ConfigProblem.UNSUPPORTED,
        ),
        ({"activation_function": "tanh"}, "activation_function", ConfigProblem.UNSUPPORTED),
        ({"is_encoder_decoder": False}, "is_encoder_decoder", ConfigProblem.UNSUPPORTED),
        ({"architectures": ["WhisperForCausalLM"]}, "architectures", ConfigProblem.UNSUPPORTED),
        ({"pad_token_id": None}, "pad_token_id", ConfigProblem.UNSUPPORTED),
        ({"pad_token_id": 51865}, "pad_token_id", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_or_unmodelled_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(SMALL) | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail or key == "architectures"


def test_odd_d_model_is_refused_for_the_sinusoidal_positions() -> None:
    raw = raw_config(SMALL) | {
        "d_model": 9,
        "encoder_attention_heads": 3,
        "decoder_attention_heads": 3,
    }
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw)
    assert err.value.key == "d_model" and "sinusoidal" in err.value.detail


def test_the_decoder_alone_is_refused_in_plain_words() -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(SMALL) | {"architectures": ["WhisperForCausalLM"]})
    assert "decoder alone" in err.value.detail


def test_the_fixed_encoder_positions_never_train(capsys: pytest.CaptureFixture[str]) -> None:
    """whisper-small: 1 500 positions × 768 of the 241 734 912 parameters have no
    gradients and no optimizer states under full fine-tuning."""
    import json

    from gradacc_desktop.cli import main as gradacc
    from gradacc_desktop.core.memory.models import ModelSpec, facts

    known = facts(ModelSpec.bundled("whisper-small"))
    assert known.params == 241_734_912 and known.frozen_params == 1500 * 768
    assert gradacc(["activation", "--model", "whisper-small", "--seq-len", "1500", "--json"]) == 0
    params = json.loads(capsys.readouterr().out)["params"]
    assert params == {"total": 241_734_912, "trainable": 241_734_912 - 1500 * 768}
