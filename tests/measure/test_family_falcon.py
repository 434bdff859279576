"""Falcon read from a config: the estimate against the bytes autograd really saves
(every attention layout: multi-query, multi-head, the new decoder architecture with
one or two layer norms; rotary and ALiBi positions), and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

_BASE = {"model_type": "falcon", "num_hidden_layers": 2, "vocab_size": 2000}
SMALL: dict[str, dict[str, Any]] = {
    # Falcon-7B: one K/V head, parallel attention and MLP behind one LayerNorm
    "multi-query": _BASE | {"hidden_size": 128, "num_attention_heads": 4},
    # Falcon-40B: K/V groups, ln_attn and ln_mlp, untied head, own MLP width
    "new-architecture": _BASE
    | {
        "hidden_size": 256,
        "num_attention_heads": 8,
        "num_kv_heads": 2,
        "new_decoder_architecture": True,
        "ffn_hidden_size": 384,
        "tie_word_embeddings": False,
        "num_hidden_layers": 3,
        "vocab_size": 3000,
    },
    # Falcon-11B-like: the new architecture with one LayerNorm and one K/V group
    "new-one-norm-one-group": _BASE
    | {
        "hidden_size": 192,
        "num_attention_heads": 6,
        "num_kv_heads": 1,
        "new_decoder_architecture": True,
        "num_ln_in_parallel_attn": 1,
    },
    # sequential attention then MLP, multi-head, biases
    "multi-head-sequential": _BASE
    | {
        "hidden_size": 96,
        "num_attention_heads": 3,
        "multi_query": False,
        "parallel_attn": False,
        "bias": True,
        "num_hidden_layers": 3,
    },
    # Falcon-RW: ALiBi, multi-head, sequential, biases
    "alibi-rw": _BASE
    | {
        "hidden_size": 128,
        "num_attention_heads": 4,
        "alibi": True,
        "multi_query": False,
        "parallel_attn": False,
        "bias": True,
    },
    "alibi-multi-query": _BASE | {"hidden_size": 64, "num_attention_heads": 4, "alibi": True},
    "alibi-new-architecture": _BASE
    | {
        "hidden_size": 128,
        "num_attention_heads": 8,
        "num_kv_heads": 2,
        "new_decoder_architecture": True,
        "alibi": True,
    },
}


# the sequence length each shape is measured at
SEQ = {
    "multi-query": 100,
    "new-architecture": 40,
    "new-one-norm-one-group": 72,
    "multi-head-sequential": 100,
    "alibi-rw": 48,
    "alibi-multi-query": 100,
    "alibi-new-architecture": 40,
}


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, attention: str, checkpointing: bool
) -> None:
    c = compare(SMALL[name], SEQ[name], attention=attention, checkpointing=checkpointing)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_padded_batch_changes_nothing(name: str) -> None:
    # Falcon materialises the causal mask whether the batch is padded or not
    # (allow_is_causal_skip=False): SDPA gets a mask either way
    c = compare(SMALL[name], SEQ[name], attention="sdpa", padded=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    "name", ["multi-query", "multi-head-sequential", "alibi-rw", "alibi-multi-query"]
)
def test_estimate_with_dropout_on_cpu(name: str, attention: str) -> None:
    # residual dropout everywhere; attention dropout only in ALiBi layers (fp32 math
    # path under SDPA on CPU)
    c = compare(SMALL[name], 48, attention=attention, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


PUBLISHED = ("tiiuae__falcon-7b-instruct.json", "tiiuae__falcon-40b-instruct.json")


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_falcon_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
