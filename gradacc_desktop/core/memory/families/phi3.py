"""Phi-3 (Phi-3, Phi-3.5 and Phi-4-mini: ``model_type`` ``phi3``), read from
``transformers`` 5.x ``models/phi3/modeling_phi3.py`` and ``configuration_phi3.py``, with
``integrations/sdpa_attention.py``, ``masking_utils.py`` and ``modeling_rope_utils.py``.

A Llama-shaped decoder (fp32 RMSNorm, rotary, SwiGLU, grouped-query attention) whose
projections are fused, which changes what autograd keeps:

* ``qkv_proj`` writes Q, K and V into one (s, (a + 2k)·d) tensor; Q, K and V are views
  of it. The rotary embedding (``torch.cat([q_rot·cos + rotate_half(q_rot)·sin,
  q_pass])``, also with a partial rotary factor) makes new, contiguous Q and K; V stays
  a view, so whoever keeps V keeps the whole fused storage.
* ``gate_up_proj`` writes gate and up into one (s, 2i) tensor; SiLU keeps the gate view
  and the product keeps the up view: the whole storage (2·p·s·i), plus the SiLU output
  and the product (the down projection's input).

Per layer (b = 1, p bytes of the dtype, q_rot = rotary width):

* two RMSNorms (fp32 input, fp32 rsqrt per token, normalised input in the dtype) and the
  two projection inputs (p·s·h each);
* attention, without a mask (SDPA ``is_causal``, GQA through ``enable_gqa``): rotated Q
  (p·s·a·d) and K (p·s·k·d) and the fused QKV storage (V's base, p·s·(a + 2k)·d). The
  SDPA output follows Q's contiguous (a, s, d) layout, so the ``transpose().contiguous()``
  before ``o_proj`` copies it: the kernel keeps its output (p·s·a·d) and its fp32
  log-sum-exp (4·a·s), ``o_proj`` keeps the copy (p·s·a·d);
* with an explicit SDPA mask (padded batch, or a sliding window no longer than the
  sequence: ``masking_utils`` builds one when ``seq >= sliding_window``) the mask is kept
  in the dtype in every layer (p·s²) and, when k < a, ``repeat_kv`` copies K and V to
  every head (3·p·s·a·d instead of Q, K and the fused storage);
* eager: Q, K and V as above (repeated to every head when k < a), the fp32 softmax
  output (4·a·s²) and its cast to the dtype (p·a·s², kept by the product with V);
* with dropout: the residual dropouts' noise (``resid_pdrop``, two per layer; CPU keeps
  it in the dtype, CUDA a 1-byte mask), attention dropout as in the Llama profile, and
  on CPU SDPA falls back to its fp32 math path (Q, K, V, softmax, noise and dropout
  output in fp32). Phi-3 has no embedding dropout (``embd_pdrop`` is not used).

Outside the layers: the int64 token ids, cos and sin (p·s·q_rot each, shared by every
layer, not kept under full recomputation), the final RMSNorm, the LM head's input and
the fp32 loss.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    Part,
    dims_of,
)
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    rms_norm_fp32,
    rotary_decoder_outside,
    sdpa_needs_mask,
    uniform_layout,
)
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("phi3",)

# transformers 5.24 Phi3Config defaults for keys a file may omit
_VOCAB = 32064
_HIDDEN = 3072
_INTERMEDIATE = 8192
_LAYERS = 32
_HEADS = 32
_MAX_POSITIONS = 4096


@dataclass(frozen=True)
class Phi3Spec:
    tie_embeddings: bool
    activation: str
    #: ``rope_parameters["partial_rotary_factor"]`` as transformers resolves it
    partial_rotary_factor: float
    #: width of cos and sin (the rotated part of every query and key head)
    rotary_dim: int
    #: every layer's window (None: every layer attends to the whole sequence)
    sliding_window: int | None


def rope_dict(config: ConfigReader) -> Mapping[str, Any] | None:
    """``rope_scaling`` when present (transformers prefers it), else ``rope_parameters``."""
    for key in ("rope_scaling", "rope_parameters"):
        value = config.raw.get(key)
        if value:
            if not isinstance(value, Mapping):
                raise config.bad(key, "an object")
            return value
    return None


def rotary_width(config: ConfigReader, head_dim: int, factor: float, key: str) -> int:
    """Width of cos/sin: ``inv_freq`` has ceil(int(d·factor) / 2) entries, doubled."""
    if not 0.0 < factor <= 1.0:
        raise config.unsupported(f"{key} must be in (0, 1], got {factor!r}", key)
    dim = int(head_dim * factor)
    width = 2 * math.ceil(dim / 2)
    if width < 2 or width > head_dim:
        raise config.unsupported(
            f"{key} {factor!r} gives a rotary width of {width} for a head size of {head_dim}",
            key,
        )
    return width


def rope_factor(config: ConfigReader) -> float | None:
    """``partial_rotary_factor`` of the RoPE dict, when it has one."""
    rope = rope_dict(config)
    if rope is None or rope.get("partial_rotary_factor") is None:
        return None
    value = rope["partial_rotary_factor"]
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            f"partial_rotary_factor must be a number, got {value!r}",
            "partial_rotary_factor",
        )
    return float(value)


def _partial_rotary_factor(config: ConfigReader) -> float:
    """Phi3Config: the RoPE dict's value, else the top-level key, else 1.0."""
    factor = rope_factor(config)
    if factor is None:
        factor = config.number("partial_rotary_factor", 1.0)
    assert factor is not None
    return factor


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("hidden_size", _HIDDEN)
    heads = config.integer("num_attention_heads", _HEADS)
    kv_heads = config.integer("num_key_value_heads", heads)
    if heads % kv_heads:
        raise config.unsupported(
            "num_attention_heads must divide by num_key_value_heads", "num_key_value_heads"
        )
    if not config.has("head_dim") and hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    head_dim = config.integer("head_dim", hidden // heads)
    activation = config.text("hidden_act", "silu")
    # the gate is a view of gate_up_proj's output, which the product keeps anyway: an
    # activation that keeps its input or output adds nothing; gelu_new would add more
    if ACTIVATION_KEEPS.get(activation, 4) > 1:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    factor = _partial_rotary_factor(config)
    spec = Phi3Spec(
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        partial_rotary_factor=factor,
        rotary_dim=rotary_width(config, head_dim, factor, "partial_rotary_factor"),
        sliding_window=config.optional_int("sliding_window"),
    )
    return Architecture(
        model_type="phi3",
        family=Family.PHI3,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", _LAYERS),
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=config.integer("intermediate_size", _INTERMEDIATE),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=config.integer("max_position_embeddings", _MAX_POSITIONS),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    spec: Phi3Spec = arch.spec
    h, a, k, d, i, v = (
        arch.hidden,
        arch.heads,
        arch.kv_heads,
        arch.head_dim,
        arch.intermediate,
        arch.vocab,
    )
    attention = linear(h, (a + 2 * k) * d, False) + linear(a * d, h, False)
    mlp = linear(h, 2 * i, False) + linear(i, h, False)
    layer = attention + mlp + 2 * h  # two RMSNorm weights
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + h + head


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: Phi3Spec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, k, d, i = dims.s, dims.h, dims.a, dims.k, dims.d, dims.i
    eager = inputs.attention is Attention.EAGER
    drop = inputs.dropout
    cpu_math = not eager and drop and inputs.device is Device.CPU
    masked = not eager and not cpu_math and sdpa_needs_mask(inputs, inputs.seq, spec.sliding_window)
    norm = rms_norm_fp32(p, s, h)
    parts: dict[Part, int] = {
        Part.ATTN_NORM: norm,
        Part.MLP_NORM: norm,
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * a * d,
        # gate_up_proj's (s, 2i) output (the gate and up views), the activation output
        # (kept by the product); the product is the down projection's input
        Part.MLP_ACTIVATION: 3 * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ and V (every head), softmax output, dropout
        # noise and dropout output. K and V are fp32 copies (or repeated to every head),
        # unless the model runs in fp32 with k = a: then K is the rotated K and V a view
        # of the fused storage
        if p == 4 and k == a:
            parts[Part.ATTN_QKV] = 4 * s * a * d + 4 * s * k * d + 4 * s * (a + 2 * k) * d
        else:
            parts[Part.ATTN_QKV] = 3 * 4 * s * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        if 1 < k < a and (eager or masked):
            # repeat_kv copies K and V to every head; the fused storage is then kept by
            # nobody (Q and K are the rotary's new tensors)
            parts[Part.ATTN_QKV] = 3 * p * s * a * d
        elif inputs.fills_cache:
            # the cache hands attention a new copy of V: the fused storage is let go
            parts[Part.ATTN_QKV] = p * s * (a + k) * d + p * s * k * d
        else:
            # rotated Q and K, and V as a view of the whole fused qkv_proj output
            parts[Part.ATTN_QKV] = p * s * (a + k) * d + p * s * (a + 2 * k) * d
        if eager:
            # fp32 softmax output; its cast to the dtype is kept by the product with V
            # unless dropout comes between (then the dropout output is kept instead)
            cast = 0 if (drop or p == 4) else p * a * s * s
            parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
            if drop:
                parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
        else:
            # fp32 log-sum-exp and the kernel's output: laid out like the contiguous Q
            # (a, s, d), so the (s, a·d) input of o_proj is a separate copy
            parts[Part.ATTN_FUSED] = 4 * a * s
            parts[Part.ATTN_KERNEL_OUTPUT] = p * s * a * d
            if masked:
                parts[Part.ATTN_MASK] = p * s * s
    if drop:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def outside(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: Phi3Spec = arch.spec
    dims = dims_of(inputs)
    return rotary_decoder_outside(
        inputs,
        embeddings=8 * dims.s,  # int64 token ids
        rotary_dim=spec.rotary_dim,
        final_norm=rms_norm_fp32(inputs.dtype.bytes, dims.s, dims.h),
    )


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    return uniform_layout(
        arch, inputs, layer_parts(arch, inputs), outside(arch, inputs), notes=_notes(arch, inputs)
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: Phi3Spec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Phi-3 fuses Q, K and V in one projection: V is a view of it, so the whole "
            "fused output is kept; the rotary embedding makes new Q and K.",
        ),
        trans_late(
            "Activation",
            "Phi-3 fuses the gate and up projections: their whole output is kept, plus "
            "the activation output and the product.",
        ),
    ]
    if spec.rotary_dim < arch.head_dim:
        notes.append(
            trans_late(
                "Activation",
                "Partial rotary embedding: cos and sin cover only part of each head.",
            )
        )
    if spec.sliding_window is not None:
        notes.append(
            trans_late(
                "Activation",
                "Sliding window: from a sequence as long as the window, SDPA takes an "
                "explicit mask.",
            )
        )
    if inputs.attention is Attention.SDPA:
        notes.append(
            trans_late(
                "Activation",
                "SDPA's output follows the layout of the contiguous Q: the copy made for "
                "the output projection is kept besides the kernel's own output.",
            )
        )
        notes.append(
            trans_late(
                "Activation",
                "With an explicit mask (padded batch or sliding window) SDPA keeps a "
                "copy of the mask in every layer and K and V repeated to every head.",
            )
        )
    return tuple(notes)
