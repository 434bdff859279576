"""ModernBERT read from a config, trained as a masked LM: the estimate against the bytes
autograd really saves on the CPU's padded path (eager and SDPA; the unpadded
flash-attention path needs a GPU and is not measured), and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

_TOKENS = {
    "pad_token_id": 0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "cls_token_id": 1,
    "sep_token_id": 2,
}

SMALL: dict[str, dict[str, Any]] = {
    # global, sliding, sliding; a 32-token window: the sliding layers get a mask from
    # 16 tokens on (half the window)
    "modernbert": {
        "model_type": "modernbert",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "intermediate_size": 96,
        "vocab_size": 500,
        "local_attention": 32,
        "max_position_embeddings": 512,
        **_TOKENS,
    },
    # every bias on, gelu_new in the MLP, a ReLU head, sparse prediction, an untied
    # decoder without bias
    "modernbert-biases-sparse": {
        "model_type": "modernbert",
        "architectures": ["ModernBertForMaskedLM"],
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "intermediate_size": 80,
        "vocab_size": 300,
        "local_attention": 16,
        "norm_bias": True,
        "attention_bias": True,
        "mlp_bias": True,
        "classifier_bias": True,
        "decoder_bias": False,
        "tie_word_embeddings": False,
        "hidden_activation": "gelu_new",
        "classifier_activation": "relu",
        "sparse_prediction": True,
        **_TOKENS,
    },
    # a sliding first layer (layer_types), SiLU, the file's dropouts on
    "modernbert-sliding-first": {
        "model_type": "modernbert",
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "intermediate_size": 80,
        "vocab_size": 300,
        "local_attention": 16,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
        "hidden_activation": "silu",
        "attention_dropout": 0.1,
        "embedding_dropout": 0.1,
        "mlp_dropout": 0.1,
        **_TOKENS,
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "seq"),
    [
        ("modernbert", 12),  # below half the window: no sliding mask
        ("modernbert", 40),
        ("modernbert-biases-sparse", 24),
        ("modernbert-sliding-first", 20),
    ],
)
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(SMALL[name], seq, attention=attention, checkpointing=checkpointing, padded=padded)
    assert c.estimated == c.measured
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_with_dropout_on_cpu(attention: str, checkpointing: bool) -> None:
    # CPU dropout keeps a noise tensor in the dtype; SDPA with attention dropout takes the
    # fp32 math path (no Wqkv output kept, the window mask added, not kept)
    c = compare(
        SMALL["modernbert-sliding-first"],
        40,
        attention=attention,
        checkpointing=checkpointing,
        dropout=True,
    )
    assert c.estimated == c.measured


def _as_built(
    config: dict[str, Any],
    seq: int,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    dropout: bool | None = False,
) -> tuple[int, int]:
    """(measured, estimated) in another dtype, or with the file's own dropout
    probabilities (``dropout=None``), which the shared harness does not offer."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(config), dtype=dtype, attention=attention, dropout=dropout)
    measured = measure_saved(model, random_batch(model, seq, 1)).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=seq,
        dtype=Precision(dtype),
        attention=Attention(attention),
        device=Device.CPU,
        dropout=dropout is not False,
    )
    return measured, estimate(inputs).saved_bytes


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_fp32_with_dropout(attention: str) -> None:
    # fp32: the math path keeps V itself, a view of the whole Wqkv output; the cast after
    # the eager softmax is a no-op
    config = SMALL["modernbert-sliding-first"]
    measured, estimated = _as_built(config, 32, dtype="fp32", attention=attention, dropout=None)
    assert measured == estimated


def test_the_published_files_train_without_dropout() -> None:
    # the file's dropouts are 0: asking for dropout measures (and estimates) none
    measured, estimated = _as_built(SMALL["modernbert"], 40, dtype="fp16", dropout=None)
    assert measured == estimated


@pytest.mark.parametrize(
    "name", ["answerdotai__ModernBERT-base.json", "answerdotai__ModernBERT-large.json"]
)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForMaskedLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    with torch.device("meta"):
        model = AutoModelForMaskedLM.from_config(AutoConfig.for_model(**raw_config(name)))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
