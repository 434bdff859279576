"""DistilBERT read from a config, trained as a masked LM: the estimate against the bytes
autograd really saves, and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    "distilbert": {
        "model_type": "distilbert",
        "dim": 64,
        "n_layers": 2,
        "n_heads": 4,
        "hidden_dim": 128,
        "vocab_size": 500,
    },
    # fixed sinusoidal positions (128 rows), ReLU, an untied projector, three layers
    "distilbert-sinusoidal-relu-untied": {
        "model_type": "distilbert",
        "architectures": ["DistilBertForMaskedLM"],
        "dim": 48,
        "n_layers": 3,
        "n_heads": 3,
        "hidden_dim": 100,
        "vocab_size": 300,
        "activation": "relu",
        "sinusoidal_pos_embds": True,
        "max_position_embeddings": 128,
        "tie_word_embeddings": False,
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    ("name", "seq"),
    [("distilbert", 40), ("distilbert", 96), ("distilbert-sinusoidal-relu-untied", 72)],
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
    # CPU dropout keeps a noise tensor in the dtype; SDPA with dropout takes the math path
    c = compare(
        SMALL["distilbert"], 64, attention=attention, checkpointing=checkpointing, dropout=True
    )
    assert c.estimated == c.measured


def _as_built(
    config: dict[str, Any],
    seq: int,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    padded: bool = False,
    dropout: bool | None = False,
) -> tuple[int, int]:
    """(measured, estimated) in another dtype, or with the file's own dropout
    probabilities (``dropout=None``), which the shared harness does not offer."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(config), dtype=dtype, attention=attention, dropout=dropout)
    batch = random_batch(model, seq, 1)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    measured = measure_saved(model, batch).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=seq,
        dtype=Precision(dtype),
        attention=Attention(attention),
        device=Device.CPU,
        padded=padded,
        dropout=dropout is not False,
    )
    return measured, estimate(inputs).saved_bytes


@pytest.mark.parametrize(
    ("dtype", "attention", "dropout"),
    [("fp32", "sdpa", True), ("fp16", "eager", True), ("fp32", "eager", False)],
)
def test_other_dtypes(dtype: str, attention: str, dropout: bool) -> None:
    measured, estimated = _as_built(
        SMALL["distilbert"], 48, dtype=dtype, attention=attention, padded=True, dropout=dropout
    )
    assert measured == estimated


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_dropout_follows_the_file(attention: str) -> None:
    # no attention dropout: SDPA on CPU keeps its fused kernel, only the FFN drops out
    config = SMALL["distilbert"] | {"attention_dropout": 0.0, "dropout": 0.2}
    measured, estimated = _as_built(config, 40, attention=attention, dropout=None)
    assert measured == estimated


def test_published_config_counts_like_transformers() -> None:
    from transformers import AutoConfig, AutoModelForMaskedLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    name = "distilbert__distilbert-base-uncased.json"
    with torch.device("meta"):
        model = AutoModelForMaskedLM.from_config(AutoConfig.for_model(**raw_config(name)))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
