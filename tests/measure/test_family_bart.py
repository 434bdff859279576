"""BART and mBART encoder-decoders read from a config, trained as sequence-to-sequence
LMs: the estimate against the bytes autograd really saves (equal to the byte), and the
exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

_ALL_DROPOUTS = {"dropout": 0.1, "attention_dropout": 0.1, "activation_dropout": 0.1}

SMALL: dict[str, dict[str, Any]] = {
    # BART: post-LN, exact GELU, tied embeddings; every dropout on in the file (the
    # harness turns on the ones a file leaves at 0, the estimate reads the file)
    "bart": {
        "model_type": "bart",
        "d_model": 64,
        "encoder_layers": 2,
        "decoder_layers": 2,
        "encoder_attention_heads": 4,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 128,
        "decoder_ffn_dim": 128,
        "vocab_size": 1000,
        "max_position_embeddings": 256,
        **_ALL_DROPOUTS,
    },
    # encoder and decoder of different shapes, ReLU, untied embeddings (four matrices),
    # scaled embeddings
    "bart-asym-relu-untied": {
        "model_type": "bart",
        "d_model": 96,
        "encoder_layers": 3,
        "decoder_layers": 1,
        "encoder_attention_heads": 6,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 200,
        "decoder_ffn_dim": 150,
        "vocab_size": 1500,
        "max_position_embeddings": 300,
        "activation_function": "relu",
        "tie_word_embeddings": False,
        "scale_embedding": True,
        **_ALL_DROPOUTS,
    },
    # mBART: pre-LN with final norms, one encoder layer, three decoder layers, gelu_new
    "mbart-gelu-new": {
        "model_type": "mbart",
        "d_model": 64,
        "encoder_layers": 1,
        "decoder_layers": 3,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 8,
        "encoder_ffn_dim": 96,
        "decoder_ffn_dim": 160,
        "vocab_size": 800,
        "max_position_embeddings": 200,
        "activation_function": "gelu_new",
        "scale_embedding": True,
        **_ALL_DROPOUTS,
    },
}


def _exact(c: Any) -> None:
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


# (config, source length, target length): two shapes of the first, a longer source and a
# longer target for the others
CASES = [
    ("bart", 48, 32),
    ("bart", 40, 72),
    ("bart-asym-relu-untied", 100, 24),
    ("mbart-gelu-new", 40, 72),
]


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "seq", "target"), CASES, ids=[f"{n}-{s}-{t}" for n, s, t in CASES]
)
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, target: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    _exact(
        compare(
            SMALL[name],
            seq,
            target_seq=target,
            attention=attention,
            checkpointing=checkpointing,
            padded=padded,
        )
    )


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "padded"),
    [("bart", False), ("bart", True), ("bart-asym-relu-untied", False), ("mbart-gelu-new", True)],
)
def test_with_every_dropout_on_cpu(name: str, attention: str, padded: bool) -> None:
    # CPU dropout keeps a noise tensor in the dtype; SDPA with attention dropout takes the
    # fp32 math path in every attention (the cross-attention too)
    _exact(
        compare(SMALL[name], 40, target_seq=24, attention=attention, padded=padded, dropout=True)
    )


def test_target_length_defaults_to_the_source_length() -> None:
    _exact(compare(SMALL["bart"], 36, attention="sdpa"))


def _measure_as_built(
    config: dict[str, Any],
    seq: int,
    target: int,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    padded: bool = False,
    dropout: bool | None = False,
) -> tuple[int, int]:
    """(measured, estimated) for a dtype other than bf16, or with the file's own dropout
    probabilities (``dropout=None``), which the shared harness does not offer."""
    from gradacc_desktop.core.memory.activation import (
        Attention,
        Device,
        Precision,
        Recompute,
        estimate,
    )
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(
        dict(config), dtype=dtype, attention=attention, checkpointing=checkpointing, dropout=dropout
    )
    batch = random_batch(model, seq, 1, target_seq=target)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    measured = measure_saved(model, batch).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=seq,
        target_seq=target,
        dtype=Precision(dtype),
        attention=Attention(attention),
        recompute=Recompute.FULL if checkpointing else Recompute.NONE,
        device=Device.CPU,
        padded=padded,
        dropout=dropout is not False,
    )
    return measured, estimate(inputs).saved_bytes


# dropouts the published files leave off stay off: mbart-large-50 (hidden dropout only),
# and an attention-only and an activation-only file
_PARTIAL = {
    "hidden-only": SMALL["mbart-gelu-new"] | {"attention_dropout": 0.0, "activation_dropout": 0.0},
    "attention-only": SMALL["bart"] | {"dropout": 0.0, "activation_dropout": 0.0},
    "activation-only-relu": SMALL["bart-asym-relu-untied"]
    | {"dropout": 0.0, "attention_dropout": 0.0},
}


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "padded"),
    [("hidden-only", False), ("attention-only", True), ("activation-only-relu", False)],
)
def test_dropout_follows_the_file(name: str, attention: str, padded: bool) -> None:
    measured, estimated = _measure_as_built(
        _PARTIAL[name], 40, 56, attention=attention, padded=padded, dropout=None
    )
    assert measured == estimated


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "dtype", "checkpointing"),
    [
        ("mbart-gelu-new", "fp16", False),
        ("mbart-gelu-new", "fp16", True),
        ("bart", "fp16", False),
        ("bart", "fp32", False),
    ],
)
def test_other_dtypes(name: str, dtype: str, attention: str, checkpointing: bool) -> None:
    # fp16 mBART keeps the input of every encoder layer's clamp; fp32 doubles everything
    measured, estimated = _measure_as_built(
        SMALL[name], 48, 32, dtype=dtype, attention=attention, checkpointing=checkpointing
    )
    assert measured == estimated


PUBLISHED = (
    "facebook__bart-base.json",
    "facebook__bart-large.json",
    "facebook__mbart-large-50.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForSeq2SeqLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    with torch.device("meta"):
        model = AutoModelForSeq2SeqLM.from_config(AutoConfig.for_model(**raw_config(name)))
    assert parameters(arch) == model.num_parameters()
    # final_logits_bias is a buffer, not a parameter
    assert "final_logits_bias" in dict(model.named_buffers())
