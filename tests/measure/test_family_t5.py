"""T5 encoder-decoders read from a config, trained as sequence-to-sequence LMs: the
estimate against the bytes autograd really saves, and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # original T5: ReLU feed-forward, tied embeddings (decoder output scaled)
    "t5-relu": {
        "model_type": "t5",
        "d_model": 64,
        "d_kv": 16,
        "num_heads": 4,
        "d_ff": 128,
        "num_layers": 2,
        "vocab_size": 1000,
    },
    # T5 v1.1 / Flan-T5 shape: gated-gelu, untied in the file, a·d != d_model, one
    # decoder layer (no shared bias kept by the decoder checkpoints)
    "t5-gated-untied": {
        "model_type": "t5",
        "d_model": 96,
        "d_kv": 20,
        "num_heads": 6,
        "d_ff": 200,
        "num_layers": 3,
        "num_decoder_layers": 1,
        "vocab_size": 1500,
        "feed_forward_proj": "gated-gelu",
        "tie_word_embeddings": False,
    },
    # one encoder layer, three decoder layers, fewer buckets
    "t5-deep-decoder": {
        "model_type": "t5",
        "d_model": 64,
        "d_kv": 8,
        "num_heads": 4,
        "d_ff": 96,
        "num_layers": 1,
        "num_decoder_layers": 3,
        "relative_attention_num_buckets": 16,
        "vocab_size": 800,
    },
    # mT5: T5 v1.1's model (gated GELU, untied) under its own model_type
    "mt5": {
        "model_type": "mt5",
        "d_model": 64,
        "d_kv": 16,
        "num_heads": 4,
        "d_ff": 160,
        "num_layers": 2,
        "vocab_size": 1200,
        "tie_word_embeddings": False,
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(("seq", "target"), [(48, 32), (100, 120)], ids=["48-32", "100-120"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, target: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(
        SMALL[name],
        seq,
        target_seq=target,
        attention=attention,
        checkpointing=checkpointing,
        padded=padded,
    )
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["t5-relu", "t5-gated-untied"])
def test_with_dropout_on_cpu(name: str, attention: str, padded: bool) -> None:
    # CPU dropout keeps a noise tensor in the dtype; SDPA with dropout takes the fp32 math
    # path in every attention (the cross-attention too)
    c = compare(SMALL[name], 40, target_seq=24, attention=attention, padded=padded, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


def test_target_length_defaults_to_the_source_length() -> None:
    c = compare(SMALL["t5-relu"], 36, attention="sdpa")
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


PUBLISHED = (
    "google-t5__t5-small.json",
    "google-t5__t5-base.json",
    "google__flan-t5-base.json",
    "google__mt5-small.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForSeq2SeqLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForSeq2SeqLM.from_config(AutoConfig.for_model(**raw))
    if raw.get("tie_word_embeddings") is False:
        # as from_pretrained loads a checkpoint that holds its own lm_head
        model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.detach().clone())
    assert parameters(arch) == model.num_parameters()
