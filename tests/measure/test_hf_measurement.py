"""Optional: the HF profile against what PyTorch autograd really saves (needs torch).

Builds small random-weight GPT-2 and Llama models from configs (nothing is
downloaded), runs one training forward with labels, counts the bytes autograd saves
for backward (``gradacc_desktop.measure``) and compares with ``estimate`` for the
same shape on CPU. Skipped when torch or transformers are not installed.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gradacc_desktop.core.memory.activation import (  # noqa: E402
    Accounting,
    Attention,
    Device,
    Family,
    Inputs,
    Precision,
    Recompute,
    estimate,
)
from gradacc_desktop.measure import (  # noqa: E402
    build_model,
    measure_activation,
    random_batch,
)

TOLERANCE = 0.05

CONFIGS: dict[str, dict[str, Any]] = {
    "gpt2-tiny": {
        "model_type": "gpt2",
        "n_embd": 64,
        "n_layer": 2,
        "n_head": 4,
        "vocab_size": 1000,
    },
    "gpt2-wide": {
        "model_type": "gpt2",
        "n_embd": 256,
        "n_layer": 3,
        "n_head": 8,
        "vocab_size": 5000,
    },
    "llama-gqa": {
        "model_type": "llama",
        "hidden_size": 256,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 3000,
    },
    "llama-mha": {
        "model_type": "llama",
        "hidden_size": 256,
        "num_hidden_layers": 3,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "intermediate_size": 688,
        "vocab_size": 5000,
    },
}
_DTYPES = {Precision.BF16: "bf16", Precision.FP16: "fp16", Precision.FP32: "fp32"}


def _inputs(name: str, seq: int, attention: Attention, ckpt: bool, **more: Any) -> Inputs:
    cfg = CONFIGS[name]
    if cfg["model_type"] == "gpt2":
        h, heads = cfg["n_embd"], cfg["n_head"]
        return Inputs(
            Family.GPT2, h, cfg["n_layer"], heads, heads, 4 * h, cfg["vocab_size"], seq,
            attention=attention, recompute=Recompute.FULL if ckpt else Recompute.NONE,
            profile=Accounting.HF, device=Device.CPU, **more,
        )  # fmt: skip
    return Inputs(
        Family.LLAMA, cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"],
        cfg["num_key_value_heads"], cfg["intermediate_size"], cfg["vocab_size"], seq,
        attention=attention, recompute=Recompute.FULL if ckpt else Recompute.NONE,
        profile=Accounting.HF, device=Device.CPU, **more,
    )  # fmt: skip


def _measure(
    name: str,
    seq: int,
    attention: Attention,
    ckpt: bool,
    *,
    dropout: bool = False,
    dtype: Precision = Precision.BF16,
    micro_batch: int = 1,
) -> int:
    cfg = dict(CONFIGS[name], max_position_embeddings=4096, n_positions=4096)
    if cfg["model_type"] == "llama":
        cfg.pop("n_positions")
        if dropout:
            cfg["attention_dropout"] = 0.1
    else:
        cfg.pop("max_position_embeddings")
    torch.manual_seed(0)
    model = build_model(
        cfg, dtype=_DTYPES[dtype], attention=attention.value, checkpointing=ckpt, dropout=dropout
    )
    batch = random_batch(model, seq, micro_batch)
    return measure_activation(model, batch) // micro_batch


def _check(measured: int, estimated: int) -> None:
    assert abs(estimated - measured) <= TOLERANCE * measured, (estimated, measured)


@pytest.mark.parametrize("ckpt", [False, True], ids=["no-ckpt", "ckpt"])
@pytest.mark.parametrize("attention", list(Attention), ids=lambda a: a.value)
@pytest.mark.parametrize("seq", [64, 200])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_bf16_saved_bytes_within_5_percent(
    name: str, seq: int, attention: Attention, ckpt: bool
) -> None:
    measured = _measure(name, seq, attention, ckpt)
    _check(measured, estimate(_inputs(name, seq, attention, ckpt)).saved_bytes)


@pytest.mark.parametrize("ckpt", [False, True], ids=["no-ckpt", "ckpt"])
@pytest.mark.parametrize("attention", list(Attention), ids=lambda a: a.value)
@pytest.mark.parametrize("name", ["gpt2-tiny", "llama-gqa"])
def test_dropout_within_5_percent(name: str, attention: Attention, ckpt: bool) -> None:
    measured = _measure(name, 128, attention, ckpt, dropout=True)
    _check(measured, estimate(_inputs(name, 128, attention, ckpt, dropout=True)).saved_bytes)


@pytest.mark.parametrize("dtype", [Precision.FP32, Precision.FP16], ids=lambda d: d.value)
@pytest.mark.parametrize("attention", list(Attention), ids=lambda a: a.value)
@pytest.mark.parametrize("name", ["gpt2-tiny", "llama-gqa"])
def test_other_dtypes_within_5_percent(name: str, attention: Attention, dtype: Precision) -> None:
    measured = _measure(name, 96, attention, False, dtype=dtype)
    _check(measured, estimate(_inputs(name, 96, attention, False, dtype=dtype)).saved_bytes)


@pytest.mark.parametrize("name", ["gpt2-wide", "llama-gqa"])
def test_micro_batch_divides(name: str) -> None:
    measured = _measure(name, 64, Attention.SDPA, False, micro_batch=3)
    _check(measured, estimate(_inputs(name, 64, Attention.SDPA, False)).saved_bytes)
