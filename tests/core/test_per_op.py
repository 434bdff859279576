"""Per-op selective recomputation in the core: what a layer keeps lies between no
recomputation and full, what it repeats is a share of the layers' products, families
that do not describe their products are refused, and the time model charges the share
(the bytes and the share against PyTorch's own checkpointing: tests/measure)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.memory.activation import (
    Accounting,
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    Precision,
    Recompute,
    ShapeProblem,
    estimate,
    repeated_products,
)
from gradacc_desktop.core.time.compute import REPEATED, Shape, token_cost


def _llama(recompute: Recompute, **sizes: int) -> Inputs:
    shape = {"hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 8,
             "intermediate": 14336, "vocab": 128256, "seq": 8192} | sizes  # fmt: skip
    return Inputs(
        family=Family.LLAMA,
        dtype=Precision.BF16,
        recompute=recompute,
        attention=Attention.SDPA,
        profile=Accounting.HF,
        device=Device.CUDA,
        **shape,
    )


@settings(max_examples=40, deadline=None)
@given(
    head_dim=st.sampled_from([32, 64, 128]),
    heads=st.sampled_from([4, 8, 16, 32]),
    group=st.sampled_from([1, 2, 4]),
    ffn=st.integers(1, 64),
    seq=st.integers(1, 4096),
)
def test_it_keeps_between_none_and_full(
    head_dim: int, heads: int, group: int, ffn: int, seq: int
) -> None:
    sizes = {"hidden": heads * head_dim, "heads": heads, "kv_heads": heads // group,
             "intermediate": 64 * ffn, "seq": seq, "layers": 4}  # fmt: skip
    none, op, full = (estimate(_llama(r, **sizes)) for r in Recompute if r.value != "selective")
    assert full.saved_bytes < op.saved_bytes < none.saved_bytes
    assert 0 < repeated_products(_llama(Recompute.SELECTIVE_OP, **sizes)) < 1


def test_llama_3_8b_keeps_every_second_product_and_repeats_k_o_and_up() -> None:
    inputs = _llama(Recompute.SELECTIVE_OP)
    parts = {item.key: item.total for item in estimate(inputs).breakdown}
    s, layers = 8192, 32
    # q (4096), v (1024), gate (14336) and down (4096) wide, 2 bytes each, every layer
    assert parts[Part.KEPT_PRODUCTS] == layers * 2 * s * (4096 + 1024 + 14336 + 4096)
    assert parts[Part.LAYER_CHECKPOINT] == layers * 2 * s * 4096
    # k (h·kv), o (h·h) and up (h·i) of h·(2h + 2kv + 3i)
    assert repeated_products(inputs) == Fraction(19, 52)
    assert repeated_products(_llama(Recompute.FULL)) == 1
    assert repeated_products(_llama(Recompute.SELECTIVE)) == 0


def test_families_that_do_not_describe_their_products_are_refused() -> None:
    op = _llama(Recompute.SELECTIVE_OP)
    gpt2 = replace(op, family=Family.GPT2, hidden=768, heads=12, kv_heads=12,
                   intermediate=3072, vocab=50257, seq=1024)  # fmt: skip
    for refused in (gpt2, replace(op, attention=Attention.EAGER), replace(op, dropout=True)):
        with pytest.raises(InvalidActivationInputs) as caught:
            estimate(refused)
        assert caught.value.field == "recompute"
        assert caught.value.problem is ShapeProblem.NOT_MODELLED


def test_the_time_model_charges_the_repeated_share() -> None:
    shape = Shape(32, 32, 128)
    share = Fraction(19, 52)
    cost = token_cost(8 * 10**9, shape, 8192, Recompute.SELECTIVE_OP, repeated=share)
    # the products' forward is a third of their forward + backward; the attention once
    assert cost.hardware == cost.dense * (1 + (REPEATED - 1) * share) + cost.attention
    assert cost.elementwise_passes == REPEATED
    with pytest.raises(ValueError, match="share"):
        token_cost(8 * 10**9, shape, 8192, Recompute.SELECTIVE_OP)
    with pytest.raises(ValueError, match="share"):
        token_cost(8 * 10**9, shape, 8192, Recompute.SELECTIVE_OP, repeated=Fraction(3, 2))
