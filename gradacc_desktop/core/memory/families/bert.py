"""BERT and RoBERTa encoders trained as masked language models (``modeling_bert.py``,
``modeling_roberta.py``, ``masking_utils.py`` and ``integrations/sdpa_attention.py`` of
``transformers`` 5.24).

The language-model head is ``BertForMaskedLM`` / ``RobertaForMaskedLM`` (no pooler:
``add_pooling_layer=False``); the bare model and the fine-tuning heads ``architectures``
may name replace it (``core.memory.families.heads``). Every token is labelled
(the upper bound of a masking rate: the logits and their log-softmax are computed for
every position anyway).

Embeddings: word, position and token-type lookups keep their int64 ids (the position
ids of BERT are a slice of a buffer, not kept; RoBERTa computes them from the input ids
with its ``padding_idx`` offset, so they are a new tensor), then a LayerNorm (input, mean
and rstd per token: fp32 on CUDA, the dtype on CPU) and the embedding dropout.

One post-LN layer keeps (b = 1, p bytes per element, s tokens, h hidden, a heads, i
intermediate):

* the layer input, kept once by the ``query``/``key``/``value`` linears (p·s·h);
* Q, K and V (3·p·s·h); eager: the softmax output in the dtype (p·a·s², BERT's softmax
  does not upcast); SDPA: the fp32 log-sum-exp (4·a·s) and, with a padded batch, its own
  copy of the mask in the dtype (p·s²); on CPU SDPA with dropout takes the fp32 math path;
* the attention output (the output projection input, p·s·h);
* LayerNorm(dense + residual): input and two statistics per token;
* the MLP input (p·s·h), the activation (exact GELU keeps its input: p·s·i) and the
  output projection input (p·s·i); the second LayerNorm;
* with dropout: the masks of the attention probabilities and the two hidden dropouts.

Once per model: the masked-LM head transform (dense input, the GELU input, LayerNorm),
the decoder input (tied to the word embeddings), and the loss. ``CrossEntropyLoss`` is
applied to the logits in the model dtype: ``log_softmax`` keeps its output in the dtype
(p·s·V, no fp32 copy), ``nll_loss`` the int64 labels and a scalar total weight in the
dtype. With full recomputation (``BertLayer`` is a ``GradientCheckpointingLayer``) each
layer keeps its input; a padded batch's mask, passed positionally, is kept once by the
checkpoints (bool for SDPA, additive in the dtype for eager).
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
    eager,
    layer_norm,
    masked_lm_layout,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("bert", "roberta", "xlm-roberta", "camembert")

#: RoBERTa and the models ``transformers`` implements as copies of it (XLM-R, CamemBERT:
#: the same modules under other names, only the configuration defaults differ)
ROBERTA_LIKE = ("roberta", "xlm-roberta", "camembert")

# transformers 5.24 configuration defaults (BertConfig, RobertaConfig, XLMRobertaConfig,
# CamembertConfig)
_DEFAULTS: dict[str, dict[str, int]] = {
    "bert": {"vocab_size": 30522, "pad_token_id": 0},
    "roberta": {"vocab_size": 50265, "pad_token_id": 1},
    "xlm-roberta": {"vocab_size": 30522, "pad_token_id": 1},
    "camembert": {"vocab_size": 30522, "pad_token_id": 1},
}
_HIDDEN, _LAYERS, _HEADS, _INTERMEDIATE, _POSITIONS, _TYPES = 768, 12, 12, 3072, 512, 2

# decoder (causal) variants this profile does not describe
_CAUSAL = ("BertLMHeadModel", "RobertaForCausalLM", "XLMRobertaForCausalLM", "CamembertForCausalLM")


@dataclass(frozen=True)
class BertSpec:
    activation: str
    #: the head transform's activation (BERT: ``hidden_act``; RoBERTa: always exact GELU)
    head_activation: str
    #: rows of the position embedding table (RoBERTa: usable length + padding_idx + 1)
    position_embeddings: int
    type_vocab: int
    tie_embeddings: bool
    #: RoBERTa derives position ids from the input ids (a new int64 tensor)
    positions_from_ids: bool


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS[mt]
    hidden = config.integer("hidden_size", _HIDDEN)
    heads = config.integer("num_attention_heads", _HEADS)
    if hidden % heads:
        raise config.unsupported(
            "hidden_size must divide by num_attention_heads", "num_attention_heads"
        )
    activation = config.text("hidden_act", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    if config.flag("is_decoder", False):
        raise config.unsupported(
            "is_decoder: a causal BERT/RoBERTa decoder is not modelled (only the "
            "bidirectional encoder trained as a masked LM)",
            "is_decoder",
        )
    if config.flag("add_cross_attention", False):
        raise config.unsupported(
            "add_cross_attention: BERT/RoBERTa layers with cross-attention are not modelled",
            "add_cross_attention",
        )
    architecture = config.architecture()
    if architecture in _CAUSAL:
        raise config.unsupported(
            f"architectures: {architecture} is a causal decoder; only the masked-LM "
            "encoder is modelled",
            "architectures",
        )
    if config.integer("chunk_size_feed_forward", 0, minimum=0):
        raise config.unsupported(
            "chunk_size_feed_forward: a chunked feed-forward is not modelled",
            "chunk_size_feed_forward",
        )
    positions = config.integer("max_position_embeddings", _POSITIONS)
    usable = positions
    if mt in ROBERTA_LIKE:
        if "pad_token_id" in config.raw and config.raw["pad_token_id"] is None:
            raise config.unsupported(
                "pad_token_id: RoBERTa needs a padding index for its position ids",
                "pad_token_id",
            )
        pad = config.integer("pad_token_id", d["pad_token_id"], minimum=0)
        # position ids run from padding_idx + 1: 514 rows give 512 usable positions
        usable = positions - pad - 1
        if usable < 1:
            raise config.unsupported(
                "max_position_embeddings must exceed pad_token_id + 1 (RoBERTa's "
                "position ids start after the padding index)",
                "max_position_embeddings",
            )
    spec = BertSpec(
        activation=activation,
        head_activation="gelu" if mt in ROBERTA_LIKE else activation,
        position_embeddings=positions,
        type_vocab=config.integer("type_vocab_size", _TYPES),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        positions_from_ids=mt in ROBERTA_LIKE,
    )
    return Architecture(
        model_type=mt,
        family=Family.BERT,
        head=Head.MASKED_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", _LAYERS),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("intermediate_size", _INTERMEDIATE),
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=usable,
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``BertForMaskedLM`` / ``RobertaForMaskedLM``: embeddings (word, position, token
    type, LayerNorm), the layers, no pooler, the head transform (dense, LayerNorm), the
    output bias (``cls.predictions.bias``: the decoder's bias is tied to it) and the
    decoder weight only when it is not tied to the word embeddings."""
    spec: BertSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    embeddings = (v + spec.position_embeddings + spec.type_vocab) * h + 2 * h
    attention = 4 * linear(h, h, True) + 2 * h
    mlp = linear(h, i, True) + linear(i, h, True) + 2 * h
    head = linear(h, h, True) + 2 * h + v
    if not spec.tie_embeddings:
        head += linear(h, v, True)  # its own weight and bias
    return embeddings + arch.layers * (attention + mlp) + head


def post_ln_layer(inputs: Inputs, activation: str, *, attention_dropout: bool) -> dict[Part, int]:
    """A post-LN encoder layer's attention and MLP (BERT's, DistilBERT's), b = 1, without
    the hidden dropouts (each family says which it runs). ``attention_dropout``: the
    attention probabilities are dropped out (on a CPU, SDPA then takes the fp32 math
    path)."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, i = dims.s, dims.h, dims.a, dims.i
    cpu_math = not eager(inputs) and attention_dropout and inputs.device is Device.CPU
    parts: dict[Part, int] = {
        # the layer input, kept once by the query, key and value linears
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        # LayerNorm(dense(x) + residual) after attention and after the MLP
        Part.ATTN_POST_NORM: layer_norm(inputs, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: ACTIVATION_KEEPS[activation] * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
        Part.MLP_POST_NORM: layer_norm(inputs, s, h),
    }
    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ and V, softmax output, dropout noise and
        # dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * h
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        # Q, K and V: views of the three linear outputs
        parts[Part.ATTN_QKV] = 3 * p * s * h
    if eager(inputs):
        # softmax in the dtype (kept by its backward and by the product with V)
        parts[Part.ATTN_SOFTMAX] = p * a * s * s
        if attention_dropout:
            # the noise/mask and the dropout output (kept by the product with V)
            parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
        # the padding mask is added to the scores: nothing kept
    elif not cpu_math:
        # fused kernel: fp32 log-sum-exp; its output, laid out (s, a, d), is the output
        # projection input (the transpose and contiguous() are no-ops)
        parts[Part.ATTN_FUSED] = 4 * a * s
        if inputs.padded:
            # the boolean padding mask converted to the dtype by SDPA, in every layer
            parts[Part.ATTN_MASK] = p * s * s
    return parts


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """One ``BertLayer`` without recomputation (b = 1)."""
    spec: BertSpec = arch.spec
    parts = post_ln_layer(inputs, spec.activation, attention_dropout=inputs.dropout)
    if inputs.dropout:
        dims = dims_of(inputs)
        s, h = dims.s, dims.h
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: BertSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h = dims.s, dims.h
    # word and token-type ids (int64); RoBERTa's position ids too (BERT's are a buffer)
    embeddings = (3 if spec.positions_from_ids else 2) * 8 * s + layer_norm(inputs, s, h)
    if inputs.dropout:
        embeddings += dropout_mask(inputs, s * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.recompute is Recompute.FULL and inputs.padded:
        # the layers receive the padding mask positionally: the checkpoints keep it once
        # (SDPA: boolean; eager: additive, in the dtype)
        outside[Part.SHARED_MASK] = s * s if inputs.attention is Attention.SDPA else p * s * s
    return masked_lm_layout(
        arch,
        inputs,
        layer_parts(arch, inputs),
        outside,
        head_activation=spec.head_activation,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    notes = [
        trans_late(
            "Activation",
            "Post-LN layers: a LayerNorm after the attention and after the MLP, each "
            "keeping its input and two statistics per token.",
        ),
    ]
    if inputs.attention is Attention.SDPA and inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "With a padded batch SDPA keeps a copy of the padding mask in every layer.",
            )
        )
    return tuple(notes)
