"""DeBERTa-v2 and DeBERTa-v3 encoders (``model_type`` ``deberta-v2`` for both) trained as
masked language models (``modeling_deberta_v2.py`` and ``configuration_deberta_v2.py`` of
``transformers`` 5.24).

The model is ``DebertaV2ForMaskedLM``, whatever head ``architectures`` names (a note says
so): the legacy head (``cls.predictions``: dense, activation, LayerNorm, a decoder tied to
the word embeddings) or, with ``legacy: false``, ``lm_predictions`` (the same transform
and a product with the word embeddings). Every token is labelled.

``DisentangledSelfAttention`` is written out in PyTorch operations: transformers 5.24 has
no SDPA or flash path for it (``_supports_sdpa`` is false, so asking for SDPA is refused):
the estimate is eager attention whatever is asked, and a note says so.

Relative positions (``relative_attention``): a table of 2·span rows (span =
``position_buckets`` when positive, else ``max_relative_positions``, else
``max_position_embeddings``), normalised once per forward when ``norm_rel_ebd`` names
``layer_norm``, then projected in every layer by the key projection (``c2p``) and the
query projection (``p2c``) — the layer's own ``query_proj``/``key_proj`` with
``share_att_key``, else ``pos_key_proj``/``pos_query_proj``. Without
``position_biased_input`` there is no absolute position table (DeBERTa-v3).

One post-LN layer keeps (b = 1, p bytes per element, s tokens, h hidden, a heads, i
intermediate, R = 2·span):

* the layer input, kept once by the three projections (p·s·h);
* Q, K / √(d·f) and V (f = 1 + the number of relative kinds), contiguous per-head
  copies (3·p·s·h), the scale (a 0-dim tensor, p bytes), and K itself with ``p2c``
  (p·s·h);
* per relative kind (``c2p``, ``p2c``): the projected position table repeated per head
  (p·R·h), the content-position scores the ``gather`` reads (p·a·s·R), the int64 gather
  index (8·s², expanded over the heads), and the scale;
* the boolean mask ``masked_fill`` keeps (s², in every layer, padded or not), the softmax
  output in the dtype (p·a·s²);
* the attention output (p·s·h), LayerNorm(dense + residual), the MLP input, activation
  and output-projection input, the second LayerNorm;
* with dropout, each where the file turns it on (probability above 0): the
  attention-probability dropout (``attention_probs_dropout_prob``), and with
  ``hidden_dropout_prob`` the two hidden dropouts and the dropout of the position table
  (its output, p·R·h, then kept by the projections in every layer).

Once per model: the word (and token-type) ids, the embedding LayerNorm and the padding
mask it multiplies by (p·s); the normalised position table (its statistics, and the
output the projections read: p·R·h); DeBERTa-v2's convolution after the first layer
(``conv_kernel_size``); the head transform, the decoder input and the loss
(``CrossEntropyLoss`` on the logits in the dtype: log-softmax p·s·V, int64 labels, a
scalar). With full recomputation (``DebertaV2Layer`` is a ``GradientCheckpointingLayer``)
each layer keeps its input, and the checkpoints keep the s × s mask the encoder passes
positionally: float32 when no ``attention_mask`` is given (the model builds one of ones),
int64 when a tokenizer's mask is (a padded batch); the table's LayerNorm runs before the
layers and keeps its statistics, while the normalised table reaches the layers as a
keyword argument, which the checkpoints do not keep.
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
    masked_lm_layout,
)
from gradacc_desktop.core.memory.families.distilbert import dropout_probability
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("deberta-v2",)

# transformers 5.24 DebertaV2Config defaults (the deberta-v2-xlarge sizes)
_VOCAB, _HIDDEN, _LAYERS, _HEADS, _INTERMEDIATE, _POSITIONS = 128100, 1536, 24, 24, 6144, 512


#: ACT2FN[conv_act] -> s·h tensors it keeps (its input, or its output for tanh and ReLU:
#: nothing after the convolution keeps them otherwise)
_CONV_ACT_KEEPS = {
    "tanh": 1,
    "gelu": 1,
    "gelu_pytorch_tanh": 1,
    "relu": 1,
    "silu": 1,
    "swish": 1,
    "gelu_new": 4,
}


@dataclass(frozen=True)
class DebertaSpec:
    activation: str
    #: rows of the absolute position table added to the embeddings (0: none)
    position_embeddings: int
    type_vocab: int
    relative: bool
    #: rows of the relative position table (2·span; 0 without relative attention)
    relative_rows: int
    c2p: bool
    p2c: bool
    share_att_key: bool
    #: ``norm_rel_ebd`` names layer_norm: the table is normalised once per forward
    norm_relative: bool
    #: DeBERTa-v2's convolution after the first layer (0: none)
    conv_kernel: int
    conv_groups: int
    conv_act: str
    legacy_head: bool
    tie_embeddings: bool
    #: which dropouts the file turns on (probability > 0): ``hidden_dropout_prob``
    #: (embeddings, position table, both residual branches, convolution) and
    #: ``attention_probs_dropout_prob``
    hidden_dropout: bool
    attention_dropout: bool

    @property
    def position_kinds(self) -> int:
        """How many relative terms each layer adds to its scores (c2p, p2c)."""
        return (int(self.c2p) + int(self.p2c)) if self.relative else 0


def _split(config: ConfigReader, key: str, default: str) -> tuple[str, ...]:
    """``"p2c|c2p"`` or ``["p2c", "c2p"]`` as the configuration class reads them."""
    if not config.has(key):
        return tuple(x.strip() for x in default.lower().split("|"))
    value = config.raw[key]
    if isinstance(value, str):
        return tuple(x.strip() for x in value.lower().split("|"))
    names = config.str_list(key)
    return tuple(names or ())


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("hidden_size", _HIDDEN)
    heads = config.integer("num_attention_heads", _HEADS)
    if hidden % heads:
        raise config.unsupported(
            "hidden_size must divide by num_attention_heads", "num_attention_heads"
        )
    if config.integer("attention_head_size", hidden // heads) * heads != hidden:
        raise config.unsupported(
            "attention_head_size × num_attention_heads must equal hidden_size (the "
            "attention output projection is hidden_size wide)",
            "attention_head_size",
        )
    if config.integer("embedding_size", hidden) != hidden:
        raise config.unsupported(
            "embedding_size different from hidden_size (a projected embedding) is not modelled",
            "embedding_size",
        )
    activation = config.text("hidden_act", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    positions = config.integer("max_position_embeddings", _POSITIONS)
    relative = config.flag("relative_attention", False)
    rows = 0
    if relative:
        buckets = config.integer("position_buckets", -1, minimum=-(10**9))
        max_relative = config.integer("max_relative_positions", -1, minimum=-(10**9))
        if max_relative < 1:
            max_relative = positions
        rows = 2 * (buckets if buckets > 0 else max_relative)
    pos_att = _split(config, "pos_att_type", "")
    conv_kernel = config.integer("conv_kernel_size", 0, minimum=0)
    conv_groups = config.integer("conv_groups", 1)
    conv_act = config.text("conv_act", "tanh")
    if conv_kernel:
        if conv_kernel % 2 == 0:
            raise config.unsupported(
                "conv_kernel_size must be odd (an even kernel changes the sequence length)",
                "conv_kernel_size",
            )
        if hidden % conv_groups:
            raise config.unsupported("hidden_size must divide by conv_groups", "conv_groups")
        if conv_act not in _CONV_ACT_KEEPS:
            raise config.unsupported(f"conv_act {conv_act!r} is not modelled", "conv_act")
    spec = DebertaSpec(
        activation=activation,
        position_embeddings=positions if config.flag("position_biased_input", True) else 0,
        type_vocab=config.integer("type_vocab_size", 0, minimum=0),
        relative=relative,
        relative_rows=rows,
        c2p="c2p" in pos_att,
        p2c="p2c" in pos_att,
        share_att_key=config.flag("share_att_key", False),
        norm_relative="layer_norm" in _split(config, "norm_rel_ebd", "none"),
        conv_kernel=conv_kernel,
        conv_groups=conv_groups,
        conv_act=conv_act,
        legacy_head=config.flag("legacy", True),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        hidden_dropout=dropout_probability(config, "hidden_dropout_prob", 0.1) > 0,
        attention_dropout=dropout_probability(config, "attention_probs_dropout_prob", 0.1) > 0,
    )
    return Architecture(
        model_type=config.model_type,
        family=Family.DEBERTA,
        head=Head.MASKED_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", _LAYERS),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("intermediate_size", _INTERMEDIATE),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=positions,
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``DebertaV2ForMaskedLM``: embeddings (word, absolute positions with
    ``position_biased_input``, token types, LayerNorm), the relative position table and
    its LayerNorm, the convolution, the layers (``pos_key_proj``/``pos_query_proj``
    without ``share_att_key``), the head transform and the output bias; the legacy
    decoder's own weight and bias only when it is not tied."""
    spec: DebertaSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    embeddings = (v + spec.position_embeddings + spec.type_vocab) * h + 2 * h
    encoder = spec.relative_rows * h + (2 * h if spec.norm_relative else 0)
    if spec.conv_kernel:
        encoder += h * (h // spec.conv_groups) * spec.conv_kernel + h + 2 * h
    attention = 3 * linear(h, h, True) + linear(h, h, True) + 2 * h
    if spec.relative and not spec.share_att_key:
        attention += (int(spec.c2p) + int(spec.p2c)) * linear(h, h, True)
    mlp = linear(h, i, True) + linear(i, h, True) + 2 * h
    head = linear(h, h, True) + 2 * h + v
    if spec.legacy_head and not spec.tie_embeddings:
        head += linear(h, v, True)
    return embeddings + encoder + arch.layers * (attention + mlp) + head


def lookup_parameters(arch: Architecture) -> int:
    """Tables used by lookups only: absolute positions and token types, the relative
    position table (projected once per layer, not per token), and the word embedding
    when the legacy decoder has its own weight."""
    spec: DebertaSpec = arch.spec
    lookups = (spec.position_embeddings + spec.type_vocab + spec.relative_rows) * arch.hidden
    if spec.legacy_head and not spec.tie_embeddings:
        lookups += arch.vocab * arch.hidden
    return lookups


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """One ``DebertaV2Layer`` without recomputation (b = 1), eager attention."""
    spec: DebertaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, i = dims.s, dims.h, dims.a, dims.i
    r = spec.relative_rows
    drop = inputs.dropout and spec.hidden_dropout
    kinds = spec.position_kinds
    parts: dict[Part, int] = {
        # the layer input, kept once by query_proj, key_proj and value_proj
        Part.QKV_PROJ_INPUT: p * s * h,
        # Q, K / scale and V (per-head contiguous copies), the scale, K itself for p2c
        Part.ATTN_QKV: 3 * p * s * h + p + (p * s * h if spec.relative and spec.p2c else 0),
        # masked_fill keeps ~mask (bool, s × s) in every layer
        Part.ATTN_MASK: s * s,
        # softmax in the dtype (kept by its backward and by the product with V)
        Part.ATTN_SOFTMAX: p * a * s * s,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.ATTN_POST_NORM: layer_norm(inputs, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: ACTIVATION_KEEPS[spec.activation] * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
        Part.MLP_POST_NORM: layer_norm(inputs, s, h),
    }
    if kinds:
        # per kind: the projected table repeated per head, the scores gather reads, the
        # int64 index (one s × s tensor expanded over the heads) and the scale
        bias = kinds * (p * r * h + p * a * s * r + 8 * s * s + p)
        if drop:
            # pos_dropout of the table: the noise/mask and its output, which the
            # projections keep in every layer
            bias += dropout_mask(inputs, r * h) + p * r * h
        parts[Part.ATTN_POSITION_BIAS] = bias
    if inputs.dropout and spec.attention_dropout:
        # the noise/mask and the dropout output (kept by the product with V)
        parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
    if drop:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def _conv(arch: Architecture, inputs: Inputs) -> int:
    """``ConvLayer`` after the first layer: the transposed input copy (Conv1d), the
    boolean padding mask of ``masked_fill_``, the dropout, the activation, the LayerNorm
    of the residual sum and the padding mask (in the dtype) it is multiplied by."""
    spec: DebertaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h = dims.s, dims.h
    total = p * s * h + s + _CONV_ACT_KEEPS[spec.conv_act] * p * s * h
    total += layer_norm(inputs, s, h)
    if p != 4 or inputs.padded:
        # the mask in the dtype; in fp32 without an attention_mask it is the model's own
        # float32 mask of ones, which the embeddings already keep
        total += p * s
    if inputs.dropout and spec.hidden_dropout:
        total += dropout_mask(inputs, s * h)
    return total


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: DebertaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h = dims.s, dims.h
    full = inputs.recompute is Recompute.FULL
    drop = inputs.dropout and spec.hidden_dropout
    # word ids (int64), token-type ids with a token-type table, the embedding LayerNorm,
    # the padding mask in the dtype it is multiplied by
    embeddings = (16 if spec.type_vocab else 8) * s + layer_norm(inputs, s, h) + p * s
    if drop:
        embeddings += dropout_mask(inputs, s * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if spec.position_kinds:
        r = spec.relative_rows
        shared = 0
        if spec.norm_relative:
            # LayerNorm of the table (its input is the weight): mean and rstd per row
            shared += 2 * (4 if inputs.device is Device.CUDA else p) * r
            if not drop and not full:
                # the normalised table, read by the projections of every layer
                shared += p * r * h
        outside[Part.SHARED_POSITION_BIAS] = shared
    if spec.conv_kernel:
        outside[Part.OTHER] = _conv(arch, inputs)
    if full:
        # the encoder passes the s × s mask positionally: the checkpoints keep it once
        # (float32 ones built by the model; a tokenizer's int64 mask when padded)
        outside[Part.SHARED_MASK] = (8 if inputs.padded else 4) * s * s
    return masked_lm_layout(
        arch,
        inputs,
        layer_parts(arch, inputs),
        outside,
        head_activation=spec.activation,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: DebertaSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Disentangled attention in eager PyTorch operations: every layer keeps the "
            "softmax (a·s²), a boolean s × s mask and, per relative term (c2p, p2c), an "
            "int64 s × s gather index and the content-to-position scores.",
        ),
    ]
    if inputs.attention is Attention.SDPA:
        notes.append(
            trans_late(
                "Activation",
                "DeBERTa-v2 runs eager attention only in transformers (no SDPA or flash "
                "path): the estimate is for eager attention.",
            )
        )
    if spec.conv_kernel:
        notes.append(
            trans_late(
                "Activation",
                "The convolution after the first layer keeps its input, the activation "
                "and a LayerNorm once per sample.",
            )
        )
    if inputs.recompute is Recompute.FULL:
        notes.append(
            trans_late(
                "Activation",
                "With gradient checkpointing the layers keep the s × s attention mask "
                "once: float32 when no attention_mask is passed, int64 (a tokenizer's "
                "mask) when the batch is padded.",
            )
        )
    return tuple(notes)
