"""GPT-NeoX / Pythia read from a config: the estimate against the bytes autograd really
saves (random-weight models, bf16, CPU) and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # Pythia's shape: parallel residual, a quarter of each head rotated, exact GeLU
    "pythia": {
        "model_type": "gpt_neox",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 512,
        "vocab_size": 1000,
        "rotary_pct": 0.25,
    },
    # sequential residual, whole heads rotated, no attention biases, tied embeddings
    "sequential-tied": {
        "model_type": "gpt_neox",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "intermediate_size": 200,
        "vocab_size": 1500,
        "rotary_pct": 1.0,
        "use_parallel_residual": False,
        "attention_bias": False,
        "tie_word_embeddings": True,
    },
    # GPT-NeoX-20B's activation (gelu_fast keeps four tensors), the rotary fraction in
    # the transformers 5 place (rope_parameters)
    "gelu-fast": {
        "model_type": "gpt_neox",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 160,
        "vocab_size": 800,
        "hidden_act": "gelu_fast",
        "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5},
    },
}

PUBLISHED = (
    "EleutherAI__pythia-160m.json",
    "EleutherAI__pythia-1b.json",
    "EleutherAI__pythia-1.4b.json",
    "EleutherAI__gpt-neox-20b.json",
)


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


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["pythia", "sequential-tied"])
def test_dropout_on_cpu(name: str, attention: str, checkpointing: bool) -> None:
    # embedding and residual dropout noise in the dtype; SDPA's fp32 math path
    _check(SMALL[name], 48, attention=attention, checkpointing=checkpointing, dropout=True)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
