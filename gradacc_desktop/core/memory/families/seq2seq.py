"""The BART-style encoder-decoder layer, as ``modeling_bart.py`` and the files copied
from it (``modeling_mbart.py``, ``modeling_whisper.py``) build it: what one self-attention,
one cross-attention and one feed-forward block keep for backward (b = 1), and the
language-model head on top of the decoder. ``bart.py`` and ``whisper.py`` read their
configurations and say which variant they run (``Variant``).

Symbols: p bytes per element, n tokens of the block, s source and t target tokens, h
hidden, a heads, i feed-forward width.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    ActivationLayout,
    Inputs,
    Part,
    Stack,
    StackKind,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    eager,
    layer_norm,
)


@dataclass(frozen=True)
class Variant:
    """What differs between the models built from BART's layer."""

    #: the dropouts that are on (the file's probabilities above zero, with dropout)
    hidden_dropout: bool
    attention_dropout: bool
    activation_dropout: bool
    #: SDPA on a CPU with attention dropout: every attention takes the fp32 math path
    cpu_math: bool
    #: the norms' breakdown keys: before the sub-layer (mBART, Whisper) or after (BART)
    pre_norm: bool
    #: SDPA's output is contiguous in heads layout (Whisper makes Q contiguous), so the
    #: reshape for the output projection copies it
    kernel_output_copy: bool = False
    #: a padded batch hands SDPA the encoder's padding mask (Whisper masks nothing)
    padding_mask: bool = True

    @property
    def norm_keys(self) -> tuple[Part, Part]:
        """(attention norm, MLP norm) breakdown keys."""
        if self.pre_norm:
            return Part.ATTN_NORM, Part.MLP_NORM
        return Part.ATTN_POST_NORM, Part.MLP_POST_NORM


def self_attention(
    inputs: Inputs, variant: Variant, n: int, h: int, heads: int, *, decoder: bool
) -> dict[Part, int]:
    """Self-attention over ``n`` tokens with ``heads`` heads (norm to residual)."""
    p = inputs.dtype.bytes
    attn_norm, _ = variant.norm_keys
    parts: dict[Part, int] = {
        attn_norm: layer_norm(inputs, n, h),
        Part.QKV_PROJ_INPUT: p * n * h,
        Part.ATTN_OUT_PROJ_INPUT: p * n * h,
    }
    if variant.cpu_math:
        # fp32 math path: scaled Q, scaled Kᵀ and V, softmax, dropout noise and output
        parts[Part.ATTN_QKV] = 3 * 4 * n * h
        parts[Part.ATTN_SOFTMAX] = 4 * heads * n * n
        parts[Part.ATTN_DROPOUT] = 2 * 4 * heads * n * n
    else:
        # Q, K and V: views of (or, for Whisper's Q, a copy of) the projections' outputs
        parts[Part.ATTN_QKV] = 3 * p * n * h
        if eager(inputs):
            parts[Part.ATTN_SOFTMAX] = p * heads * n * n
            if variant.attention_dropout:
                # noise/mask and the dropout output (kept by the product with V)
                parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, heads * n * n) + p * heads * n * n
        else:
            parts[Part.ATTN_FUSED] = 4 * heads * n  # fp32 log-sum-exp
            if variant.kernel_output_copy:
                parts[Part.ATTN_KERNEL_OUTPUT] = p * n * h
            if inputs.padded and variant.padding_mask and not decoder:
                # the boolean padding mask, copied into the dtype by the kernel
                parts[Part.ATTN_MASK] = p * n * n
    if variant.hidden_dropout:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, n * h)
    return parts


def cross_attention(inputs: Inputs, variant: Variant, h: int, heads: int) -> dict[Part, int]:
    """Cross-attention of the ``t`` decoder tokens over the ``s`` encoder tokens."""
    p, a = inputs.dtype.bytes, heads
    s, t = inputs.seq, inputs.decoder_seq
    parts: dict[Part, int] = {
        Part.CROSS_ATTN_NORM: layer_norm(inputs, t, h),
        Part.CROSS_ATTN_OUT_PROJ_INPUT: p * t * h,
    }
    if variant.cpu_math:
        # the q input; fp32 Q, K and V; fp32 softmax, dropout noise and dropout output
        parts[Part.CROSS_ATTN_QKV] = p * t * h + 4 * t * h + 2 * 4 * s * h
        parts[Part.CROSS_ATTN_SCORES] = 3 * 4 * a * t * s
    else:
        # the q input, Q, and K and V of the encoder output
        parts[Part.CROSS_ATTN_QKV] = 2 * p * t * h + 2 * p * s * h
        if eager(inputs):
            scores = p * a * t * s
            if variant.attention_dropout:
                scores += dropout_mask(inputs, a * t * s) + p * a * t * s
            parts[Part.CROSS_ATTN_SCORES] = scores
        else:
            # fp32 log-sum-exp (and Whisper's copy of the kernel's output)
            copy = p * t * h if variant.kernel_output_copy else 0
            parts[Part.CROSS_ATTN_SCORES] = 4 * a * t + copy
            if inputs.padded and variant.padding_mask:
                parts[Part.ATTN_MASK] = p * t * s
    if variant.hidden_dropout:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, t * h)
    return parts


def feed_forward(
    inputs: Inputs, variant: Variant, n: int, h: int, i: int, activation: str
) -> dict[Part, int]:
    """fc1, the activation (and its dropout), fc2, over ``n`` tokens."""
    p = inputs.dtype.bytes
    _, mlp_norm = variant.norm_keys
    keeps = ACTIVATION_KEEPS[activation]
    kept = keeps * p * n * i
    if variant.activation_dropout:
        # the activation dropout's noise/mask; the fc2 input is then its output, so an
        # activation that keeps its own output (ReLU) keeps one more tensor
        kept += dropout_mask(inputs, n * i) + (p * n * i if keeps == 0 else 0)
    parts = {
        mlp_norm: layer_norm(inputs, n, h),
        Part.MLP_IN_PROJ_INPUT: p * n * h,
        Part.MLP_ACTIVATION: kept,
        Part.MLP_OUT_PROJ_INPUT: p * n * i,
    }
    if variant.hidden_dropout:
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, n * h)
    return parts


def merge(*pieces: Mapping[Part, int]) -> dict[Part, int]:
    """One layer from its blocks (the same key adds up)."""
    merged: dict[Part, int] = {}
    for piece in pieces:
        for key, n in piece.items():
            merged[key] = merged.get(key, 0) + n
    return merged


def layout(
    inputs: Inputs,
    *,
    h: int,
    v: int,
    encoder: tuple[int, Mapping[Part, int]],
    decoder: tuple[int, Mapping[Part, int]],
    outside: Mapping[Part, int],
    notes: tuple[str, ...],
) -> ActivationLayout:
    """The two stacks (``(layers, one layer's parts)``), ``outside`` and the language-model
    head: its input (t × h) and a cross-entropy in the dtype (its log-softmax, the int64
    labels, the total weight); the logits in the dtype and their gradient at the peak.
    Under full recomputation each layer keeps its input."""
    p, s, t = inputs.dtype.bytes, inputs.seq, inputs.decoder_seq
    head = dict(outside)
    head[Part.LM_HEAD_INPUT] = p * t * h
    head[Part.LOSS] = p * t * v + 8 * t + p
    return ActivationLayout(
        stacks=(
            Stack(StackKind.ENCODER, encoder[0], encoder[1], {Part.LAYER_CHECKPOINT: p * s * h}),
            Stack(StackKind.DECODER, decoder[0], decoder[1], {Part.LAYER_CHECKPOINT: p * t * h}),
        ),
        outside=head,
        logits=2 * p * t * v,
        notes=notes,
    )
