"""GPT-NeoX and Pythia (``model_type`` ``gpt_neox``), read from ``transformers`` 5.x
``models/gpt_neox/modeling_gpt_neox.py`` and ``configuration_gpt_neox.py``, with
``integrations/sdpa_attention.py``, ``masking_utils.py`` and ``modeling_rope_utils.py``.

Layer: ``nn.LayerNorm`` with biases, one fused ``query_key_value`` projection laid out
per head (``view(s, a, 3d)``: each head's q, k and v side by side), a partial rotary
embedding (``rotary_pct``, 0.25 by default), a GeLU MLP with biases, and by default the
parallel residual ``x + attn(ln1(x)) + mlp(ln2(x))`` (``use_parallel_residual``). The
output embedding (``embed_out`` in the checkpoints, ``lm_head`` in transformers 5) is not
tied to the input embedding unless ``tie_word_embeddings`` says so.

Per layer (b = 1, p bytes of the dtype, LayerNorm statistics in the dtype on CPU and
fp32 on CUDA):

* ``input_layernorm`` keeps the layer input (p·s·h) and its mean and rstd; with the
  parallel residual ``post_attention_layernorm`` normalises the same input and keeps
  only its own mean and rstd, otherwise it keeps its input (the attention residual sum);
* the inputs of ``query_key_value``, ``dense``, ``dense_h_to_4h`` and ``dense_4h_to_h``;
* Q, K and V are views of the fused (s, 3h) output. The rotary embedding concatenates
  ``q_rot·cos + rotate_half(q_rot)·sin`` with the untouched part into new contiguous Q
  and K (p·s·h each); V stays a view, so whoever keeps V keeps the whole fused storage
  (3·p·s·h): 5·p·s·h in all, eager and SDPA alike;
* eager: the fp32 softmax output (4·a·s²) and its cast to the dtype (p·a·s², kept by the
  product with V) — the softmax runs in fp32 whatever the dtype;
* SDPA: the fp32 log-sum-exp (4·a·s) and the kernel's output, which follows Q's
  contiguous (a, s, d) layout, so ``transpose().contiguous()`` copies it for ``dense``
  (p·s·h kept by the kernel besides the copy); with a padded batch the mask in the dtype
  (p·s²);
* the GeLU input (exact GeLU; ``gelu_new`` keeps four tensors, ReLU none);
* with dropout: ``post_attention_dropout`` and ``post_mlp_dropout`` noise
  (``hidden_dropout``), attention dropout as in the Llama profile, and on CPU SDPA's
  fp32 math path (Q, K, V, softmax, noise and dropout output in fp32).

Outside the layers: the int64 token ids (and the embedding dropout's noise), cos and sin
(p·s·rotary width each; not kept under full recomputation), the final LayerNorm, the
output projection's input and the fp32 loss.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    ConfigReader,
    Head,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    layer_norm,
    rotary_decoder_outside,
    uniform_layout,
)
from gradacc_desktop.core.memory.families.phi3 import rope_factor, rotary_width
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("gpt_neox",)

#: s·i tensors the activation keeps besides its output. ``gelu_fast`` (GPT-NeoX-20B),
#: ``0.5·x·(1 + tanh(x·0.798·(1 + 0.0447·x·x)))`` in Python, keeps seven: x, 0.0447·x,
#: x·0.798, 1 + 0.0447·x·x, the tanh output, 0.5·x and 1 + tanh (measured)
_KEEPS = ACTIVATION_KEEPS

# transformers 5.24 GPTNeoXConfig defaults (GPT-NeoX-20B) for keys a file may omit
_VOCAB = 50432
_HIDDEN = 6144
_LAYERS = 44
_HEADS = 64
_INTERMEDIATE = 24576
_MAX_POSITIONS = 2048
_ROTARY_PCT = 0.25


@dataclass(frozen=True)
class GptNeoXSpec:
    parallel_residual: bool
    #: biases of query_key_value and dense (the MLP and the LayerNorms always have them)
    attention_bias: bool
    tie_embeddings: bool
    activation: str
    #: ``rope_parameters["partial_rotary_factor"]`` (``rotary_pct`` in older files)
    rotary_pct: float
    #: width of cos and sin (the rotated part of every query and key head)
    rotary_dim: int


def _rotary_pct(config: ConfigReader) -> tuple[float, str]:
    """GPTNeoXConfig: the RoPE dict's ``partial_rotary_factor``, else ``rotary_pct``,
    else 0.25 (a top-level ``partial_rotary_factor`` is ignored)."""
    factor = rope_factor(config)
    if factor is not None:
        return factor, "partial_rotary_factor"
    pct = config.number("rotary_pct", _ROTARY_PCT)
    assert pct is not None
    return pct, "rotary_pct"


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("hidden_size", _HIDDEN)
    heads = config.integer("num_attention_heads", _HEADS)
    if hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    head_dim = hidden // heads
    if config.has("head_dim") and config.integer("head_dim") != head_dim:
        # the attention uses hidden / heads but the rotary tables would use head_dim
        raise config.unsupported(
            "head_dim must equal hidden_size / num_attention_heads in GPT-NeoX", "head_dim"
        )
    activation = config.text("hidden_act", "gelu")
    if activation not in _KEEPS:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    pct, key = _rotary_pct(config)
    spec = GptNeoXSpec(
        parallel_residual=config.flag("use_parallel_residual", True),
        attention_bias=config.flag("attention_bias", True),
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        rotary_pct=pct,
        rotary_dim=rotary_width(config, head_dim, pct, key),
    )
    return Architecture(
        model_type="gpt_neox",
        family=Family.GPT_NEOX,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", _LAYERS),
        heads=heads,
        kv_heads=heads,
        head_dim=head_dim,
        intermediate=config.integer("intermediate_size", _INTERMEDIATE),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=config.integer("max_position_embeddings", _MAX_POSITIONS),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    spec: GptNeoXSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    attention = linear(h, 3 * h, spec.attention_bias) + linear(h, h, spec.attention_bias)
    mlp = linear(h, i, True) + linear(i, h, True)
    layer = 2 * 2 * h + attention + mlp  # two LayerNorms (weight and bias)
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + 2 * h + head


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: GptNeoXSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, i = dims.s, dims.h, dims.a, dims.i
    eager = inputs.attention is Attention.EAGER
    drop = inputs.dropout
    cpu_math = not eager and drop and inputs.device is Device.CPU
    norm = layer_norm(inputs, s, h)  # input, mean and rstd
    parts: dict[Part, int] = {
        Part.ATTN_NORM: norm,
        # parallel residual: both norms read the layer input, kept once (above)
        Part.MLP_NORM: norm - p * s * h if spec.parallel_residual else norm,
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: _KEEPS[spec.activation] * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ and V, softmax output, dropout noise and
        # dropout output (the mask is only added). K and V are fp32 copies, unless the
        # model already runs in fp32: then K is the rotated K and V the fused storage
        parts[Part.ATTN_QKV] = 3 * 4 * s * h if p != 4 else 4 * s * h + 4 * s * h + 12 * s * h
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        # rotated Q and K (new tensors) and V, a view of the whole fused (s, 3h) output;
        # a filled cache hands attention a new copy of V and the fused storage is let go
        parts[Part.ATTN_QKV] = 2 * p * s * h + (p * s * h if inputs.fills_cache else 3 * p * s * h)
        if eager:
            # fp32 softmax output; its cast to the dtype is kept by the product with V
            # unless dropout comes between (then the dropout output is kept instead)
            cast = 0 if (drop or p == 4) else p * a * s * s
            parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
            if drop:
                parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
        else:
            # fp32 log-sum-exp and the kernel's output, laid out like the contiguous Q
            # (a, s, d): the (s, h) input of dense is a separate copy
            parts[Part.ATTN_FUSED] = 4 * a * s
            parts[Part.ATTN_KERNEL_OUTPUT] = p * s * h
            if inputs.padded:
                parts[Part.ATTN_MASK] = p * s * s
    if drop:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def outside(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: GptNeoXSpec = arch.spec
    dims = dims_of(inputs)
    s, h = dims.s, dims.h
    embeddings = 8 * s  # int64 token ids
    if inputs.dropout:
        embeddings += dropout_mask(inputs, s * h)  # emb_dropout (hidden_dropout)
    return rotary_decoder_outside(
        inputs,
        embeddings=embeddings,
        rotary_dim=spec.rotary_dim,
        final_norm=layer_norm(inputs, s, h),
    )


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    return uniform_layout(
        arch, inputs, layer_parts(arch, inputs), outside(arch, inputs), notes=_notes(arch, inputs)
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: GptNeoXSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "GPT-NeoX fuses Q, K and V in one projection: V is a view of it, so the "
            "whole fused output is kept; the rotary embedding makes new Q and K.",
        ),
    ]
    if spec.parallel_residual:
        notes.append(
            trans_late(
                "Activation",
                "Parallel residual: both LayerNorms read the layer input, kept once.",
            )
        )
    if spec.rotary_dim < arch.head_dim:
        notes.append(
            trans_late(
                "Activation",
                "Partial rotary embedding: cos and sin cover only part of each head.",
            )
        )
    if inputs.attention is Attention.EAGER:
        notes.append(
            trans_late(
                "Activation",
                "GPT-NeoX eager attention: the softmax runs in fp32 (kept) and its cast "
                "to the data type is kept by the product with V.",
            )
        )
    else:
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
                "With a padded batch SDPA takes an explicit mask and keeps a copy of it "
                "in every layer.",
            )
        )
    return tuple(notes)
