"""Phi-3 read from a config: the estimate against the bytes autograd really saves
(random-weight models, bf16, CPU) and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

# the published files' pad token (32000) is outside these small vocabularies
_TOKENS = {"model_type": "phi3", "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
SMALL: dict[str, dict[str, Any]] = {
    # grouped-query attention (4 query heads, 2 key/value heads)
    "gqa": _TOKENS
    | {
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 192,
        "vocab_size": 1000,
    },
    # every head its own K/V, partial rotary (Phi-4-mini's 0.75), tied embeddings
    "mha-partial-tied": _TOKENS
    | {
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "intermediate_size": 200,
        "vocab_size": 1500,
        "partial_rotary_factor": 0.75,
        "tie_word_embeddings": True,
    },
    # a sliding window between the two sequence lengths (Phi-3-mini-4k has 2047)
    "window": _TOKENS
    | {
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 256,
        "vocab_size": 2000,
        "sliding_window": 64,
    },
}

PUBLISHED = ("microsoft__Phi-3-mini-4k-instruct.json", "microsoft__Phi-3-medium-4k-instruct.json")


def _check(config: dict[str, Any], seq: int, **options: Any) -> None:
    c = compare(config, seq, **options)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [48, 160])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    _check(SMALL[name], seq, attention=attention, checkpointing=checkpointing, padded=padded)


@pytest.mark.parametrize("seq", [63, 64, 65])
def test_sdpa_takes_a_mask_from_a_sequence_as_long_as_the_window(seq: int) -> None:
    # masking_utils builds the sliding mask when kv_length >= sliding_window
    _check(SMALL["window"], seq, attention="sdpa")


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["gqa", "mha-partial-tied"])
def test_dropout_on_cpu(name: str, attention: str) -> None:
    # residual dropout noise in the dtype; SDPA falls back to its fp32 math path
    _check(SMALL[name], 48, attention=attention, dropout=True)


def test_explicit_head_dim_and_an_odd_rotary_width() -> None:
    config = SMALL["gqa"] | {"head_dim": 20, "partial_rotary_factor": 0.25}  # int(5) -> 6
    for attention in ("eager", "sdpa"):
        _check(config, 40, attention=attention, padded=True)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
