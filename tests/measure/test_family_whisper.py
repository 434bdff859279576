"""Whisper speech encoder-decoders read from a config, trained as
WhisperForConditionalGeneration: the estimate against the bytes autograd really saves,
and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate  # noqa: E402
from gradacc_desktop.core.memory.families import parse_model_config  # noqa: E402
from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

# The encoder's length is fixed by max_source_positions (2· that many log-mel frames), so
# the two shapes differ in it; the target length varies inside max_target_positions.
SMALL: dict[str, dict[str, Any]] = {
    # whisper-tiny's layout in small: GELU, tied proj_out, the same heads in both stacks
    "whisper-gelu": {
        "model_type": "whisper",
        "d_model": 64,
        "encoder_layers": 2,
        "decoder_layers": 2,
        "encoder_attention_heads": 4,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 128,
        "decoder_ffn_dim": 128,
        "num_mel_bins": 16,
        "max_source_positions": 40,
        "max_target_positions": 32,
        "vocab_size": 500,
        "pad_token_id": 1,
        "decoder_start_token_id": 2,
    },
    # the stacks differ (layers, heads, widths), ReLU, untied proj_out, another head named
    "whisper-relu-untied": {
        "model_type": "whisper",
        "architectures": ["WhisperForAudioClassification"],
        "d_model": 96,
        "encoder_layers": 3,
        "decoder_layers": 1,
        "encoder_attention_heads": 6,
        "decoder_attention_heads": 3,
        "encoder_ffn_dim": 200,
        "decoder_ffn_dim": 160,
        "num_mel_bins": 24,
        "max_source_positions": 75,
        "max_target_positions": 64,
        "vocab_size": 700,
        "pad_token_id": 5,
        "decoder_start_token_id": 6,
        "activation_function": "relu",
        "tie_word_embeddings": False,
    },
}
TARGETS = {"whisper-gelu": (9, 32), "whisper-relu-untied": (17, 64)}


def _cases() -> list[tuple[str, int]]:
    return [(name, t) for name in sorted(SMALL) for t in TARGETS[name]]


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(("name", "target"), _cases())
def test_estimate_matches_what_autograd_saves(
    name: str, target: int, attention: str, checkpointing: bool
) -> None:
    config = SMALL[name]
    c = compare(
        config,
        config["max_source_positions"],
        target_seq=target,
        attention=attention,
        checkpointing=checkpointing,
    )
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_padded_batch_keeps_the_same_tensors(
    name: str, attention: str, checkpointing: bool
) -> None:
    # the harness passes an attention_mask, which Whisper's encoder ignores (the audio is
    # padded with silence) and no decoder mask (the labels' padding is -100): the same
    # bytes as a dense batch, as the estimate says
    config = SMALL[name]
    c = compare(
        config,
        config["max_source_positions"],
        target_seq=TARGETS[name][1],
        attention=attention,
        checkpointing=checkpointing,
        padded=True,
    )
    assert c.measured == c.estimated, (c.measured, c.estimated)


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_with_dropout_on_cpu(name: str, attention: str, checkpointing: bool) -> None:
    # dropout, attention_dropout and activation_dropout at 0.1: CPU dropout keeps a noise
    # tensor in the dtype; SDPA with dropout takes the fp32 math path in every attention
    config = SMALL[name]
    c = compare(
        config,
        config["max_source_positions"],
        target_seq=TARGETS[name][0],
        attention=attention,
        checkpointing=checkpointing,
        dropout=True,
    )
    assert c.measured == c.estimated, (c.measured, c.estimated)


@pytest.mark.parametrize("dtype", [Precision.FP16, Precision.FP32])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_fp16_clamp_and_fp32(dtype: Precision, attention: str) -> None:
    # fp16: every encoder layer's torch.clamp keeps its input; fp32: 4-byte everything
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    config = SMALL["whisper-relu-untied"]
    model = build_model(dict(config), attention=attention, dtype=dtype.value, dropout=False)
    batch = random_batch(model, config["max_source_positions"], 1, target_seq=20)
    measured = measure_saved(model, batch).saved_bytes
    inputs = parse_model_config(config).inputs(
        target_seq=20, dtype=dtype, attention=Attention(attention), device=Device.CPU
    )
    assert measured == estimate(inputs).saved_bytes


def test_the_measure_tool_builds_the_seq2seq_model_with_log_mel_features() -> None:
    from gradacc_desktop.measure import build_model, head_kind, random_batch

    config = SMALL["whisper-relu-untied"]
    assert head_kind(dict(config)) == "seq2seq-lm"
    model = build_model(dict(config), attention="sdpa", dropout=False)
    assert type(model).__name__ == "WhisperForConditionalGeneration"
    batch = random_batch(model, 75, 2, target_seq=11)
    assert set(batch) == {"input_features", "labels"}
    assert tuple(batch["input_features"].shape) == (2, 24, 150)
    assert batch["input_features"].dtype == torch.bfloat16
    assert tuple(batch["labels"].shape) == (2, 11)


def test_the_measure_command_takes_the_encoder_length_and_refuses_another(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from gradacc_desktop.measure import main

    path = tmp_path / "config.json"
    path.write_text(json.dumps(SMALL["whisper-gelu"]), encoding="utf-8")
    assert main(["--model-config", str(path), "--seq", "32", "--target-seq", "8"]) == 2
    assert "give --seq 40" in capsys.readouterr().err
    arch = parse_model_config(SMALL["whisper-gelu"])
    # without --target-seq: the decoder's 32 positions, as the estimate starts from
    for target in (["--target-seq", "8"], []):
        out: list[str] = []
        args = ["--model-config", str(path), "--seq", "40", "--json", "--no-dropout", *target]
        assert main(args, out=out.append) == 0
        result = json.loads(out[0])
        assert (result["model_class"], result["head"]) == (
            "WhisperForConditionalGeneration",
            "seq2seq-lm",
        )
        inputs = arch.inputs(target_seq=int(target[1]) if target else None, device=Device.CPU)
        assert result["target_seq"] == inputs.decoder_seq == (8 if target else 32)
        assert result["saved_bytes_per_sample"] == estimate(inputs).saved_bytes


PUBLISHED = (
    "openai__whisper-tiny.json",
    "openai__whisper-small.json",
    "openai__whisper-large-v3.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForSpeechSeq2Seq

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    with torch.device("meta"):
        model = AutoModelForSpeechSeq2Seq.from_config(AutoConfig.for_model(**raw_config(name)))
    assert type(model).__name__ == "WhisperForConditionalGeneration"
    # num_parameters() counts the encoder's frozen sinusoidal positions
    frozen = model.model.encoder.embed_positions.weight
    assert not frozen.requires_grad
    assert parameters(arch) == model.num_parameters()
    assert model.num_parameters(only_trainable=True) == model.num_parameters() - frozen.numel()


def test_the_frozen_parameters_are_what_transformers_leaves_untrained() -> None:
    from transformers import AutoConfig, WhisperForConditionalGeneration

    from gradacc_desktop.core.memory.families import parameters, read_model_config
    from gradacc_desktop.core.memory.families.whisper import frozen_parameters

    name = "openai__whisper-small.json"
    arch = read_model_config(config_path(name))
    with torch.device("meta"):
        model = WhisperForConditionalGeneration(AutoConfig.for_model(**raw_config(name)))
    trained = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert parameters(arch) - frozen_parameters(arch) == trained
