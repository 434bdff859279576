"""Gemma 1, 2 and 3 read from a config: the estimate against the bytes autograd really
saves (random-weight models, bf16, CPU), and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

from tests.configs import config_path, raw_config

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.harness import TOLERANCE, compare, measure  # noqa: E402

_BASE = {
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 48,  # not hidden / heads
    "intermediate_size": 320,
    "vocab_size": 3000,
}
_GEMMA3_TEXT = _BASE | {
    "model_type": "gemma3_text",
    "num_key_value_heads": 1,
    "head_dim": 64,
    "sliding_window": 32,
    "final_logit_softcapping": 30.0,
}

# name -> (config, sequence lengths, attentions transformers runs for it)
SMALL: dict[str, tuple[dict[str, Any], tuple[int, ...], tuple[str, ...]]] = {
    # one key/value head: repeat_kv is a view, not a copy
    "gemma-mqa": (
        _BASE | {"model_type": "gemma", "num_key_value_heads": 1, "head_dim": 64},
        (72,),
        ("eager", "sdpa"),
    ),
    "gemma-mha-bias-untied-gelu": (
        _BASE
        | {
            "model_type": "gemma",
            "num_hidden_layers": 3,
            "hidden_size": 96,
            "num_key_value_heads": 4,
            "attention_bias": True,
            "tie_word_embeddings": False,
            "hidden_act": "gelu",
        },
        (128,),
        ("eager", "sdpa"),
    ),
    # Gemma 2: eager only (transformers refuses SDPA); window 64 against 48 and 160 tokens
    "gemma2-gqa-softcap": (
        _BASE | {"model_type": "gemma2", "sliding_window": 64},
        (48, 160),
        ("eager",),
    ),
    "gemma2-no-softcap-layer-types": (
        _BASE
        | {
            "model_type": "gemma2",
            "num_hidden_layers": 3,
            "hidden_size": 192,
            "num_attention_heads": 6,
            "num_key_value_heads": 3,
            "head_dim": 32,
            "sliding_window": 40,
            "layer_types": ["full_attention", "sliding_attention", "sliding_attention"],
            "attn_logit_softcapping": None,
            "final_logit_softcapping": None,
        },
        (96,),
        ("eager",),
    ),
    # Gemma 3: layers sliding, full, sliding; window 64 against 48 and 160 tokens
    "gemma3-gqa": (
        _BASE
        | {
            "model_type": "gemma3_text",
            "num_hidden_layers": 3,
            "sliding_window": 64,
            "sliding_window_pattern": 2,
        },
        (48, 160),
        ("eager", "sdpa"),
    ),
    # one key/value head, final soft-capping; every layer slides (pattern 6 > 2 layers)
    # (the multimodal gemma3 file is core.memory.families.vlm's: tests/measure/test_family_vlm.py)
    "gemma3-text-mqa-softcap": (_GEMMA3_TEXT, (80,), ("eager", "sdpa")),
}

CASES = [
    (name, seq, attention)
    for name, (_, seqs, attentions) in sorted(SMALL.items())
    for seq in seqs
    for attention in attentions
]


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(("name", "seq", "attention"), CASES)
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    config = SMALL[name][0]
    c = compare(config, seq, attention=attention, checkpointing=checkpointing, padded=padded)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["gemma-mqa", "gemma3-gqa"])
def test_estimate_matches_with_attention_dropout_on_cpu(name: str, attention: str) -> None:
    c = compare(SMALL[name][0], 160, attention=attention, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


def test_gemma2_refuses_sdpa_so_its_sdpa_estimate_is_the_eager_run() -> None:
    from gradacc_desktop.core.memory.activation import Attention, Device, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import MeasureError, build_model

    config = SMALL["gemma2-gqa-softcap"][0]
    with pytest.raises(MeasureError):
        build_model(dict(config), attention="sdpa", dropout=False)
    measured, _ = measure(config, 160, attention="eager")
    arch = parse_model_config(config)
    sdpa = estimate(arch.inputs(seq=160, attention=Attention.SDPA, device=Device.CPU))
    assert abs(sdpa.saved_bytes - measured) <= TOLERANCE * measured, (measured, sdpa.saved_bytes)


PUBLISHED = (
    "google__gemma-2b.json",
    "google__gemma-2-2b.json",
    "google__gemma-2-9b.json",
    "google__gemma-3-1b-it.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_gemma_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    config = AutoConfig.for_model(**raw)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    assert parameters(arch) == model.num_parameters()
