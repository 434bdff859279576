"""OPT read from a config: the estimate against the bytes autograd really saves
(LayerNorm before or after the blocks, projected embeddings, no biases, untied head),
and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

_BASE = {"model_type": "opt", "num_hidden_layers": 2, "max_position_embeddings": 256}
SMALL: dict[str, dict[str, Any]] = {
    # OPT-125m and up: LayerNorm before attention and MLP, final LayerNorm
    "pre-norm": _BASE
    | {"hidden_size": 128, "num_attention_heads": 4, "ffn_dim": 512, "vocab_size": 2000},
    # OPT-350m: LayerNorm after the residual additions, 64-wide embeddings projected
    "post-norm-projected": _BASE
    | {
        "hidden_size": 128,
        "num_attention_heads": 8,
        "ffn_dim": 256,
        "vocab_size": 3000,
        "num_hidden_layers": 3,
        "do_layer_norm_before": False,
        "word_embed_proj_dim": 64,
    },
    "no-bias-untied": _BASE
    | {
        "hidden_size": 192,
        "num_attention_heads": 6,
        "ffn_dim": 384,
        "vocab_size": 1500,
        "word_embed_proj_dim": 96,
        "enable_bias": False,
        "layer_norm_elementwise_affine": False,
        "tie_word_embeddings": False,
    },
    "gelu-no-final-norm": _BASE
    | {
        "hidden_size": 64,
        "num_attention_heads": 2,
        "ffn_dim": 200,
        "vocab_size": 1000,
        "activation_function": "gelu",
        "_remove_final_layer_norm": True,
    },
}
SEQ = {"pre-norm": 100, "post-norm-projected": 40, "no-bias-untied": 72, "gelu-no-final-norm": 48}


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, attention: str, checkpointing: bool
) -> None:
    c = compare(SMALL[name], SEQ[name], attention=attention, checkpointing=checkpointing)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["pre-norm", "post-norm-projected"])
def test_a_padded_batch_gives_sdpa_a_mask(name: str, attention: str, checkpointing: bool) -> None:
    c = compare(
        SMALL[name], SEQ[name], attention=attention, checkpointing=checkpointing, padded=True
    )
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_with_dropout_on_cpu(name: str, attention: str) -> None:
    # residual and attention dropout; SDPA with dropout takes the fp32 math path on CPU
    c = compare(SMALL[name], 48, attention=attention, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


PUBLISHED = ("facebook__opt-125m.json", "facebook__opt-350m.json")


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_opt_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
