"""OPT (``modeling_opt.py`` and ``configuration_opt.py`` of ``transformers`` 5.x).

Learned positions (an ``nn.Embedding`` of ``max_position_embeddings`` + 2 rows, indexed
by the int64 position ids + 2), LayerNorm before (``do_layer_norm_before``, OPT-125m,
1.3b and up) or after (OPT-350m) each block, ReLU MLP of ``ffn_dim``, multi-head
attention with separate q/k/v projections (biases from ``enable_bias``), and an optional
embedding projection: when ``word_embed_proj_dim`` differs from ``hidden_size`` the
token embeddings are ``word_embed_proj_dim`` wide, ``project_in`` widens them and
``project_out`` narrows the last hidden states before the (tied) LM head.

What one layer keeps (pre-LN; post-LN keeps the same sizes, the norms moved after the
residual additions):

* ``self_attn_layer_norm``: its input and mean/rstd per token; q/k/v projections share
  its output as input;
* attention: ``q_proj(x) * scaling`` (a new tensor), K and V (the projections' outputs).
  Eager: the product QKᵀ keeps Q and K; ``softmax(dtype=float32)`` keeps its fp32
  output; its cast to the dtype is kept by the product with V. SDPA (``is_causal``
  without padding; a padded batch gives it a boolean mask, which the CPU flash kernel
  copies into the dtype in every layer): Q, K, V, the output and an fp32 log-sum-exp.
  On CPU, SDPA with attention dropout takes the fp32 math path;
* ``out_proj`` input (the attention output), ``final_layer_norm`` input and statistics,
  ``fc1`` input (its output), the ReLU output (kept by ReLU's backward and by ``fc2``);
* with dropout, the noise/mask of the two residual dropouts.

Once per model: int64 token ids and position ids, the ``project_in`` input, the final
LayerNorm (pre-LN models that keep it), the ``project_out`` input, the LM-head input and
the loss. Full recomputation keeps each layer's input only.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    Part,
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
    causal_lm_loss,
    dropout_mask,
    layer_norm,
    uniform_layout,
)
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("opt",)

#: learned positions start at 2 (fairseq's padding offset): max_positions + 2 rows
POSITION_OFFSET = 2


@dataclass(frozen=True)
class OptSpec:
    #: LayerNorm before attention and MLP (False: after the residual additions)
    norm_before: bool
    #: pre-LN model with a final LayerNorm (``_remove_final_layer_norm`` false)
    final_norm: bool
    #: width of the token embeddings (``hidden`` unless projected in and out)
    embed_dim: int
    bias: bool
    norm_affine: bool
    tie_embeddings: bool
    activation: str
    #: LayerDrop probability (the estimate runs every layer: an upper bound)
    layerdrop: float


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("hidden_size", 768)
    heads = config.integer("num_attention_heads", 12)
    if hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    activation = config.text("activation_function", "relu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            f"activation_function {activation!r} is not modelled", "activation_function"
        )
    norm_before = config.flag("do_layer_norm_before", True)
    layerdrop = config.number("layerdrop", 0.0) or 0.0
    if not 0.0 <= layerdrop <= 1.0:
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            f"layerdrop must be a probability between 0 and 1, got {layerdrop}",
            "layerdrop",
        )
    spec = OptSpec(
        norm_before=norm_before,
        final_norm=norm_before and not config.flag("_remove_final_layer_norm", False),
        embed_dim=config.integer("word_embed_proj_dim", hidden),
        bias=config.flag("enable_bias", True),
        norm_affine=config.flag("layer_norm_elementwise_affine", True),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        activation=activation,
        layerdrop=layerdrop,
    )
    return Architecture(
        model_type="opt",
        family=Family.OPT,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", 12),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("ffn_dim", 3072),
        vocab=config.integer("vocab_size", 50272),
        max_positions=config.integer("max_position_embeddings", 2048),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    spec: OptSpec = arch.spec
    h, i, v, e = arch.hidden, arch.intermediate, arch.vocab, spec.embed_dim
    norm = 2 * h if spec.norm_affine else 0  # LayerNorm weight and bias
    layer = 4 * linear(h, h, spec.bias) + linear(h, i, spec.bias) + linear(i, h, spec.bias)
    layer += 2 * norm
    embeddings = v * e + ((arch.max_positions or 0) + POSITION_OFFSET) * h
    projections = 2 * e * h if e != h else 0  # project_in and project_out, no bias
    final = norm if spec.final_norm else 0
    head = 0 if spec.tie_embeddings else e * v
    return embeddings + projections + arch.layers * layer + final + head


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """One OPT decoder layer without recomputation (b = 1)."""
    spec: OptSpec = arch.spec
    p = inputs.dtype.bytes
    s, h, a, i = inputs.seq, arch.hidden, arch.heads, arch.intermediate
    cuda = inputs.device is Device.CUDA
    m = 1 if cuda else p  # dropout mask: bool (CUDA native_dropout) or noise in the dtype
    eager = inputs.attention is Attention.EAGER
    drop = inputs.dropout
    cpu_math = not eager and drop and not cuda

    parts: dict[Part, int] = {
        # pre-LN: self_attn_layer_norm before attention; post-LN: after the residual
        # addition (then its output is the fc1 input, and the layer input feeds q/k/v)
        Part.ATTN_NORM: layer_norm(inputs, s, h),
        Part.QKV_PROJ_INPUT: p * s * h,
    }
    if cpu_math:
        # SDPA's math path in fp32: scaled Q, scaled Kᵀ and V, the softmax output, the
        # dropout noise and the dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * h
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        # q_proj(x) * scaling (a new tensor), k_proj and v_proj outputs
        parts[Part.ATTN_QKV] = 3 * p * s * h
        if eager:
            # fp32 softmax output; its cast to the dtype is kept by the product with V
            # unless dropout comes between (then the dropout output is kept instead)
            cast = 0 if (drop or p == 4) else p * a * s * s
            parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
            if drop:
                parts[Part.ATTN_DROPOUT] = m * a * s * s + p * a * s * s
        else:
            parts[Part.ATTN_FUSED] = 4 * a * s  # fp32 log-sum-exp
            if inputs.padded:
                # the boolean padding mask copied into the dtype by the kernel
                parts[Part.ATTN_MASK] = p * s * s
    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * h
    parts[Part.MLP_NORM] = layer_norm(inputs, s, h)
    parts[Part.MLP_IN_PROJ_INPUT] = p * s * h
    # ReLU keeps its output, which fc2 keeps anyway
    parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS[spec.activation] * p * s * i
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    if drop:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: OptSpec = arch.spec
    p = inputs.dtype.bytes
    s, h, e = inputs.seq, arch.hidden, spec.embed_dim
    projected = e != h
    # int64 token ids and position ids; project_in keeps the token embeddings
    outside: dict[Part, int] = {Part.EMBEDDINGS: 16 * s + (p * s * e if projected else 0)}
    if spec.final_norm:
        outside[Part.FINAL_NORM] = layer_norm(inputs, s, h)
    if projected:
        outside[Part.EMBEDDING_PROJECTION] = p * s * h  # project_out input
    outside[Part.LM_HEAD_INPUT] = p * s * e
    outside[Part.LOSS] = causal_lm_loss(s, arch.vocab)
    return uniform_layout(
        arch, inputs, layer_parts(arch, inputs), outside, notes=_notes(arch, inputs)
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: OptSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "LayerNorm keeps its input plus the mean and rstd of every token.",
        ),
    ]
    if inputs.attention is Attention.EAGER:
        notes.append(
            trans_late(
                "Activation",
                "OPT eager attention: softmax in fp32 (kept) then cast to the data type "
                "(kept by the product with V).",
            )
        )
    elif inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "With a padded batch SDPA gets an explicit mask and keeps a copy of it "
                "in every layer.",
            )
        )
    if spec.embed_dim != arch.hidden:
        notes.append(
            trans_late(
                "Activation",
                "Embeddings narrower than the hidden size: project_in and project_out "
                "keep their inputs.",
            )
        )
    if inputs.dropout:
        notes.append(
            trans_late(
                "Activation",
                "With dropout, every dropout of the model is taken as active, "
                "attention dropout included.",
            )
        )
    if spec.layerdrop > 0:
        notes.append(
            trans_late(
                "Activation",
                "LayerDrop skips layers at random in training; the estimate runs every "
                "layer (an upper bound).",
            )
        )
    return tuple(notes)
