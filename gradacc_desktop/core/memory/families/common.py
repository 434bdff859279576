"""Pieces several families share: what one PyTorch / ``transformers`` building block
keeps for backward, in bytes per sample (b = 1), and small config helpers.

Symbols as in ``core.memory.activation``: s sequence, h hidden, a heads, k key/value heads,
d head size, i MLP intermediate size, V vocabulary, p bytes per element of the
activation dtype. Each function names the PyTorch operations whose saved tensors it
counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gradacc_desktop.core.memory.activation_types import (
    ActivationLayout,
    Attention,
    Device,
    Inputs,
    Part,
    Stack,
    StackKind,
    dims_of,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

if TYPE_CHECKING:
    from gradacc_desktop.core.memory.families.base import Architecture

#: hidden activations a family may use, as ``transformers.activations.ACT2FN`` names them
#: -> how many s·i tensors the activation function keeps besides its output (SiLU, exact
#: GELU and the C++ tanh GELU keep their input; ReLU keeps its output, which the next
#: operation keeps anyway; ``gelu_new``, written in Python, keeps four)
ACTIVATION_KEEPS: dict[str, int] = {
    "silu": 1,
    "swish": 1,
    "gelu": 1,
    "gelu_pytorch_tanh": 1,
    "relu": 0,
    "gelu_new": 4,
    # FastGELUActivation: x, 0.0447·x, 0.798·x, 1 + …, tanh, 0.5·x, 1 + tanh (measured)
    "gelu_fast": 7,
}


def rms_norm_fp32(p: int, s: int, width: int, groups: int = 1) -> int:
    """``LlamaRMSNorm``-style: ``x.to(fp32)`` (kept by ``pow`` and ``mul``), the fp32
    ``rsqrt`` (one per normalised vector) and the normalised tensor in the dtype (kept by
    ``weight * x``). ``groups`` vectors of ``width`` per token (q/k norms: heads)."""
    return 4 * s * groups * width + 4 * s * groups + p * s * groups * width


def layer_norm(inputs: Inputs, s: int, width: int) -> int:
    """``nn.LayerNorm``: its input plus mean and rstd per token (fp32 on CUDA, the dtype
    on CPU)."""
    p = inputs.dtype.bytes
    stat = 4 if inputs.device is Device.CUDA else p
    return p * s * width + 2 * stat * s


def dropout_mask(inputs: Inputs, elements: int) -> int:
    """CUDA ``native_dropout`` keeps a 1-byte mask; CPU keeps a noise tensor in the dtype."""
    return elements * (1 if inputs.device is Device.CUDA else inputs.dtype.bytes)


def sdpa_needs_mask(inputs: Inputs, seq: int, window: int | None) -> bool:
    """``transformers`` passes SDPA an explicit mask (instead of ``is_causal``) when the
    batch is padded or the sequence is at least as long as a sliding window
    (``masking_utils._ignore_causal_mask_sdpa``: kv_length >= window)."""
    return inputs.padded or (window is not None and seq >= window)


def repeated_kv_heads(heads: int, kv_heads: int) -> int:
    """Key/value heads ``repeat_kv`` leaves in memory: every head when it copies
    (1 < k < a); with one key/value head the expand-and-reshape is a view, and with
    k = a there is nothing to repeat."""
    return heads if 1 < kv_heads < heads else kv_heads


def causal_lm_loss(s: int, v: int) -> int:
    """``ForCausalLMLoss``: ``logits.float()`` then ``cross_entropy``: the fp32
    log-softmax (4·s·V), the int64 labels padded by one, the scalar total weight."""
    return 4 * s * v + 8 * (s + 1) + 4


def logits_transient(inputs: Inputs, s: int, v: int) -> int:
    """Peak around the loss: the logits in the dtype (the returned output keeps them) and
    their fp32 copy (forward) / fp32 gradient (backward)."""
    return 4 * s * v + inputs.dtype.bytes * s * v


def eager(inputs: Inputs) -> bool:
    return inputs.attention is Attention.EAGER


def uniform_layout(
    arch: Architecture,
    inputs: Inputs,
    layer: Mapping[Part, int],
    outside: Mapping[Part, int],
    *,
    notes: tuple[str, ...] = (),
    logits: int | None = None,
) -> ActivationLayout:
    """A model whose layers all keep ``layer``: under full recomputation each keeps only
    its input hidden states. ``logits``: the peak transient (default: a causal LM's)."""
    dims = dims_of(inputs)
    checkpoint = {Part.LAYER_CHECKPOINT: inputs.dtype.bytes * dims.s_sp * dims.h}
    return ActivationLayout(
        stacks=(Stack(StackKind.LAYERS, arch.layers, layer, checkpoint),),
        outside=outside,
        logits=logits_transient(inputs, dims.s, dims.v) if logits is None else logits,
        notes=notes,
    )


def rotary_decoder_outside(
    inputs: Inputs, *, embeddings: int, rotary_dim: int, final_norm: int
) -> dict[Part, int]:
    """Once per sample in a causal LM with rotary positions: the embeddings' share
    (int64 ids, …), cos and sin (s × rotary width, kept by every layer's q·cos and
    rotate_half(q)·sin; checkpointed layers recompute them), the final norm, the LM
    head's input and the loss."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    parts: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.recompute is not Recompute.FULL:
        parts[Part.ROTARY] = 2 * p * dims.s * rotary_dim
    parts[Part.FINAL_NORM] = final_norm
    parts[Part.LM_HEAD_INPUT] = p * dims.s_sp * dims.h
    parts[Part.LOSS] = causal_lm_loss(dims.s, dims.v)
    return parts


_MASKED_LM_LOSS = trans_late(
    "Activation",
    "Trained as a masked language model with every token labelled; the loss "
    "keeps the log-softmax of the logits in the model's data type (no fp32 copy).",
)


def masked_lm_layout(
    arch: Architecture,
    inputs: Inputs,
    layer: Mapping[Part, int],
    outside: Mapping[Part, int],
    *,
    head_activation: str,
    notes: tuple[str, ...] = (),
) -> ActivationLayout:
    """An encoder trained as a masked LM (BERT, DistilBERT, DeBERTa): ``outside`` plus the
    head transform (the dense layer's input — the last layer's output —, the activation,
    the LayerNorm), the decoder's input and a cross-entropy in the dtype (its log-softmax,
    the int64 labels, a scalar total weight); at the peak the logits in the dtype (the
    returned output keeps them) and their gradient."""
    dims = dims_of(inputs)
    p, s, h, v = inputs.dtype.bytes, dims.s, dims.h, dims.v
    head = dict(outside)
    head[Part.MLM_HEAD] = (
        p * s * h + ACTIVATION_KEEPS[head_activation] * p * s * h + layer_norm(inputs, s, h)
    )
    head[Part.LM_HEAD_INPUT] = p * s * h
    head[Part.LOSS] = p * s * v + 8 * s + p
    notes = (_MASKED_LM_LOSS, *notes)  # a task head takes it away with the logits
    return uniform_layout(arch, inputs, layer, head, notes=notes, logits=2 * p * s * v)
