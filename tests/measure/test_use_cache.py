"""``use_cache`` on in training (the Hugging Face Trainer's default when the file says
so): without recomputation transformers fills a key/value cache during the forward. The
estimate against the bytes autograd really saves with the cache on, family by family."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.harness import compare  # noqa: E402

_BASE = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 500,
}
SMALL: dict[str, dict[str, Any]] = {
    "llama": _BASE | {"model_type": "llama"},
    "qwen3": _BASE | {"model_type": "qwen3", "head_dim": 16},
    "mistral-window": _BASE | {"model_type": "mistral", "sliding_window": 32},
    "gemma": _BASE | {"model_type": "gemma", "head_dim": 16},
    "phi3": _BASE | {"model_type": "phi3", "pad_token_id": 0},
    "phi3-mha": _BASE | {"model_type": "phi3", "num_key_value_heads": 4, "pad_token_id": 0},
    "gpt_neox": _BASE | {"model_type": "gpt_neox"},
    "falcon": {"model_type": "falcon", "hidden_size": 64, "num_hidden_layers": 2,
               "num_attention_heads": 4, "vocab_size": 500},
    "falcon-new": {"model_type": "falcon", "hidden_size": 64, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "vocab_size": 500,
                   "new_decoder_architecture": True, "num_kv_heads": 2},
    "gpt2": {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 500},
    "opt": {"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "ffn_dim": 128, "word_embed_proj_dim": 64,
            "vocab_size": 500},
    "mixtral": _BASE | {"model_type": "mixtral", "num_local_experts": 4},
}  # fmt: skip


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [24, 48])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_filled_cache_is_estimated(name: str, seq: int, attention: str, padded: bool) -> None:
    c = compare(SMALL[name], seq, attention=attention, padded=padded, use_cache=True)
    assert c.measured == c.estimated


@pytest.mark.parametrize("name", ["gpt2", "phi3-mha", "gpt_neox"])
def test_checkpointing_turns_the_cache_off(name: str) -> None:
    on = compare(SMALL[name], 40, attention="sdpa", checkpointing=True, use_cache=True)
    off = compare(SMALL[name], 40, attention="sdpa", checkpointing=True)
    assert on.measured == on.estimated == off.measured


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["gpt2", "phi3-mha", "gpt_neox"])
def test_a_filled_cache_with_dropout_on_cpu(name: str, attention: str) -> None:
    c = compare(SMALL[name], 32, attention=attention, dropout=True, use_cache=True)
    assert c.measured == c.estimated


def _new_families() -> list[tuple[str, dict[str, Any]]]:
    import importlib

    found = []
    for family in ("llama_variants", "deepseek", "gpt_oss", "mamba", "jamba"):
        module = importlib.import_module(f"tests.measure.test_family_{family}")
        found += [(f"{family}:{name}", config) for name, config in sorted(module.SMALL.items())]
    return found


NEW = _new_families()


@pytest.mark.parametrize(("name", "config"), NEW, ids=[n for n, _ in NEW])
def test_newer_families_keep_nothing_more_with_the_cache(name: str, config: dict[str, Any]) -> None:
    """Separate projections (or a state cache): what the cache holds autograd keeps anyway."""
    c = compare(config, 40, attention="eager", use_cache=True)
    assert c.measured == c.estimated
