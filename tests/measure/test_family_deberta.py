"""DeBERTa-v2/v3 read from a config, trained as a masked LM: the estimate against the
bytes autograd really saves (eager attention: transformers has no SDPA path for
DeBERTa-v2), and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # DeBERTa-v3: 16 position buckets (32 rows), c2p and p2c through the shared
    # projections, a normalised table, no absolute positions
    "deberta-v3": {
        "model_type": "deberta-v2",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 500,
        "relative_attention": True,
        "position_buckets": 16,
        "norm_rel_ebd": "layer_norm",
        "share_att_key": True,
        "pos_att_type": "p2c|c2p",
        "max_relative_positions": -1,
        "position_biased_input": False,
        "type_vocab_size": 0,
    },
    # DeBERTa-v2-xlarge's shape: the convolution after the first layer, attention_head_size
    "deberta-v2-conv": {
        "model_type": "deberta-v2",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "attention_head_size": 16,
        "intermediate_size": 128,
        "vocab_size": 500,
        "relative_attention": True,
        "position_buckets": 16,
        "norm_rel_ebd": "layer_norm",
        "share_att_key": True,
        "pos_att_type": "p2c|c2p",
        "conv_kernel_size": 3,
        "conv_act": "gelu",
        "position_biased_input": False,
    },
    # c2p only through its own pos_key_proj, no buckets (2 × 24 rows), absolute
    # positions and token types, the non-legacy head, a grouped kernel-5 convolution
    # with the default tanh
    "deberta-c2p-absolute": {
        "model_type": "deberta-v2",
        "hidden_size": 48,
        "num_hidden_layers": 2,
        "num_attention_heads": 3,
        "intermediate_size": 96,
        "vocab_size": 400,
        "relative_attention": True,
        "max_relative_positions": 24,
        "share_att_key": False,
        "pos_att_type": ["c2p"],
        "position_biased_input": True,
        "type_vocab_size": 2,
        "max_position_embeddings": 128,
        "legacy": False,
        "conv_kernel_size": 5,
        "conv_groups": 3,
    },
    # p2c only, no table norm, an untied legacy decoder, gelu_new
    "deberta-p2c-untied": {
        "model_type": "deberta-v2",
        "hidden_size": 48,
        "num_hidden_layers": 2,
        "num_attention_heads": 3,
        "intermediate_size": 96,
        "vocab_size": 400,
        "relative_attention": True,
        "position_buckets": 8,
        "share_att_key": False,
        "pos_att_type": "p2c",
        "norm_rel_ebd": "none",
        "position_biased_input": False,
        "tie_word_embeddings": False,
        "hidden_act": "gelu_new",
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(
    ("name", "seq"),
    [
        ("deberta-v3", 40),
        ("deberta-v3", 96),
        ("deberta-v2-conv", 56),
        ("deberta-c2p-absolute", 40),
        ("deberta-p2c-untied", 48),
    ],
)
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, checkpointing: bool, padded: bool
) -> None:
    c = compare(SMALL[name], seq, attention="eager", checkpointing=checkpointing, padded=padded)
    assert c.estimated == c.measured
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("name", ["deberta-v3", "deberta-c2p-absolute"])
def test_with_dropout_on_cpu(name: str, checkpointing: bool) -> None:
    # CPU dropout keeps a noise tensor in the dtype; the dropped position table is kept
    # by the projections of every layer
    c = compare(SMALL[name], 48, attention="eager", checkpointing=checkpointing, dropout=True)
    assert c.estimated == c.measured


def test_sdpa_is_refused_by_transformers() -> None:
    from gradacc_desktop.measure import MeasureError, build_model

    with pytest.raises(MeasureError, match="supported: eager"):
        build_model(dict(SMALL["deberta-v3"]), attention="sdpa")


def _as_built(
    config: dict[str, Any],
    seq: int,
    *,
    dtype: str = "bf16",
    padded: bool = False,
    dropout: bool | None = False,
) -> tuple[int, int]:
    """(measured, estimated) in another dtype, or with the file's own dropout
    probabilities (``dropout=None``), which the shared harness does not offer."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(config), dtype=dtype, attention="eager", dropout=dropout)
    batch = random_batch(model, seq, 1)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    measured = measure_saved(model, batch).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=seq,
        dtype=Precision(dtype),
        attention=Attention.EAGER,
        device=Device.CPU,
        padded=padded,
        dropout=dropout is not False,
    )
    return measured, estimate(inputs).saved_bytes


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
def test_other_dtypes(dtype: str, padded: bool) -> None:
    # fp32 without an attention_mask: the convolution multiplies by the model's own
    # float32 mask, which the embeddings already keep
    measured, estimated = _as_built(SMALL["deberta-v2-conv"], 40, dtype=dtype, padded=padded)
    assert measured == estimated


@pytest.mark.parametrize(
    "change",
    [{"attention_probs_dropout_prob": 0.0}, {"hidden_dropout_prob": 0.0}],
    ids=["hidden-only", "attention-only"],
)
def test_dropout_follows_the_file(change: dict[str, float]) -> None:
    measured, estimated = _as_built(SMALL["deberta-v2-conv"] | change, 40, dropout=None)
    assert measured == estimated


@pytest.mark.parametrize(
    "name",
    [
        "microsoft__deberta-v3-base.json",
        "microsoft__deberta-v3-large.json",
        "microsoft__deberta-v2-xlarge.json",
    ],
)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForMaskedLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    with torch.device("meta"):
        model = AutoModelForMaskedLM.from_config(AutoConfig.for_model(**raw_config(name)))
    assert parameters(read_model_config(config_path(name))) == model.num_parameters()
