"""DistilBERT encoders trained as masked language models (``modeling_distilbert.py``,
``masking_utils.py`` and ``integrations/sdpa_attention.py`` of ``transformers`` 5.24).

The model is ``DistilBertForMaskedLM``, whatever head ``architectures`` names: a
classification config is estimated as masked-LM training, and a note says so. Every
token is labelled (the upper bound of a masking rate: the logits and their log-softmax
are computed for every position anyway).

The configuration uses XLM's names (``dim``, ``n_layers``, ``n_heads``, ``hidden_dim``,
``activation``); ``hidden_size``, ``num_hidden_layers`` and ``num_attention_heads`` are
read too (the configuration class maps them). Positions are a table of
``max_position_embeddings`` rows, learned or, with ``sinusoidal_pos_embds``, filled with
fixed sinusoids: either way a sequence cannot be longer, and the table is a parameter
(``num_parameters()`` counts it). There are no token types.

Embeddings: the word lookup keeps its int64 ids (the position ids are a slice of a
buffer, not kept), then a LayerNorm (input, mean and rstd per token: fp32 on CUDA, the
dtype on CPU) and the embedding dropout.

One post-LN ``TransformerBlock`` keeps (b = 1, p bytes per element, s tokens, h = dim, a
heads, i = hidden_dim):

* the layer input, kept once by ``q_lin``, ``k_lin`` and ``v_lin`` (p·s·h);
* Q, K and V (3·p·s·h); eager: the softmax output in the dtype (p·a·s²); SDPA: the fp32
  log-sum-exp (4·a·s) and, with a padded batch, its own copy of the mask in the dtype
  (p·s²); on CPU SDPA with dropout takes the fp32 math path;
* the attention output (``out_lin`` input, p·s·h); ``sa_layer_norm(out + x)``: input and
  two statistics per token (no dropout between ``out_lin`` and the residual);
* ``lin1`` input (p·s·h), the activation (exact GELU keeps its input: p·s·i), ``lin2``
  input (p·s·i), the FFN dropout, ``output_layer_norm``;
* with dropout, each where the file turns it on (probability above 0): the mask of the
  attention probabilities (``attention_dropout``) and the FFN dropout (``dropout``,
  which also follows the embeddings).

Once per model: the head transform (``vocab_transform`` input, the activation,
``vocab_layer_norm``), the ``vocab_projector`` input (its weight tied to the word
embeddings) and the loss. ``nn.CrossEntropyLoss`` is applied to the logits in the model
dtype: ``log_softmax`` keeps its output in the dtype (p·s·V, no fp32 copy), ``nll_loss``
the int64 labels and a scalar total weight in the dtype. With full recomputation
(``TransformerBlock`` is a ``GradientCheckpointingLayer``) each layer keeps its input; a
padded batch's mask, passed positionally, is kept once by the checkpoints (bool for SDPA,
additive in the dtype for eager).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import Attention, Family, Inputs, Part, dims_of
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    linear,
)
from gradacc_desktop.core.memory.families.bert import post_ln_layer
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    layer_norm,
    masked_lm_layout,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("distilbert",)

#: positions are a table of max_position_embeddings rows (learned or fixed sinusoids):
#: the command line refuses a longer sequence
LEARNED_POSITIONS = ("distilbert",)

# transformers 5.24 DistilBertConfig defaults (hidden_dim is 4 × 768 whatever dim is)
_VOCAB, _POSITIONS, _LAYERS, _HEADS, _DIM, _HIDDEN_DIM = 30522, 512, 6, 12, 768, 3072


@dataclass(frozen=True)
class DistilBertSpec:
    activation: str
    #: rows of the position table (the longest sequence the model runs)
    position_embeddings: int
    #: the position table holds fixed sinusoids instead of learned vectors
    sinusoidal: bool
    tie_embeddings: bool
    #: which dropouts the file turns on (probability > 0): ``dropout`` (embeddings and
    #: feed-forward), ``attention_dropout`` (attention probabilities)
    hidden_dropout: bool
    attention_dropout: bool


def dropout_probability(config: ConfigReader, key: str, default: float) -> float:
    """A dropout probability of the file (``default`` when absent); 0 turns it off."""
    value = config.number(key, default) or 0.0
    if not 0.0 <= value <= 1.0:
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            trans_late(
                "ModelConfig", "{key} must be a probability between 0 and 1, got {value}"
            ).format(key=key, value=value),
            key,
        )
    return value


def parse(config: ConfigReader) -> Architecture:
    hidden = config.first_int(("dim", "hidden_size"), _DIM)
    heads = config.first_int(("n_heads", "num_attention_heads"), _HEADS)
    if hidden % heads:
        raise config.unsupported("dim must divide by n_heads", "n_heads")
    activation = config.text("activation", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(f"activation {activation!r} is not modelled", "activation")
    if config.integer("chunk_size_feed_forward", 0, minimum=0):
        raise config.unsupported(
            "chunk_size_feed_forward: a chunked feed-forward is not modelled",
            "chunk_size_feed_forward",
        )
    positions = config.integer("max_position_embeddings", _POSITIONS)
    spec = DistilBertSpec(
        activation=activation,
        position_embeddings=positions,
        sinusoidal=config.flag("sinusoidal_pos_embds", False),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        hidden_dropout=dropout_probability(config, "dropout", 0.1) > 0,
        attention_dropout=dropout_probability(config, "attention_dropout", 0.1) > 0,
    )
    return Architecture(
        model_type=config.model_type,
        family=Family.DISTILBERT,
        head=Head.MASKED_LM,
        hidden=hidden,
        layers=config.first_int(("n_layers", "num_hidden_layers"), _LAYERS),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("hidden_dim", _HIDDEN_DIM),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=positions,
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``DistilBertForMaskedLM``: word and position embeddings (the sinusoidal table is a
    parameter too) and their LayerNorm, the layers, the head transform
    (``vocab_transform``, ``vocab_layer_norm``), the ``vocab_projector`` bias, and its
    weight only when it is not tied to the word embeddings."""
    spec: DistilBertSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    embeddings = (v + spec.position_embeddings) * h + 2 * h
    attention = 4 * linear(h, h, True) + 2 * h
    ffn = linear(h, i, True) + linear(i, h, True) + 2 * h
    head = linear(h, h, True) + 2 * h + v
    if not spec.tie_embeddings:
        head += v * h
    return embeddings + arch.layers * (attention + ffn) + head


def lookup_parameters(arch: Architecture) -> int:
    """Embedding tables used by lookups only: the position table, and the word embedding
    when the projector has its own weight."""
    spec: DistilBertSpec = arch.spec
    lookups = spec.position_embeddings * arch.hidden
    if not spec.tie_embeddings:
        lookups += arch.vocab * arch.hidden
    return lookups


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """One ``TransformerBlock`` without recomputation (b = 1): BERT's post-LN layer
    (q_lin/k_lin/v_lin, out_lin, sa_layer_norm, lin1/lin2, output_layer_norm) with the
    dropouts the file turns on."""
    spec: DistilBertSpec = arch.spec
    parts = post_ln_layer(
        inputs, spec.activation, attention_dropout=inputs.dropout and spec.attention_dropout
    )
    if inputs.dropout and spec.hidden_dropout:
        # FFN dropout after lin2 (there is none after out_lin)
        dims = dims_of(inputs)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, dims.s * dims.h)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: DistilBertSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h = dims.s, dims.h
    # the word ids (int64); the position ids are a slice of a buffer
    embeddings = 8 * s + layer_norm(inputs, s, h)
    if inputs.dropout and spec.hidden_dropout:
        embeddings += dropout_mask(inputs, s * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.recompute is Recompute.FULL and inputs.padded:
        # the blocks receive the padding mask positionally: the checkpoints keep it once
        # (SDPA: boolean; eager: additive, in the dtype)
        outside[Part.SHARED_MASK] = s * s if inputs.attention is Attention.SDPA else p * s * s
    return masked_lm_layout(
        arch,
        inputs,
        layer_parts(arch, inputs),
        outside,
        head_activation=spec.activation,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: DistilBertSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Post-LN layers: a LayerNorm after the attention and after the feed-forward, "
            "each keeping its input and two statistics per token; dropout after the "
            "feed-forward only.",
        ),
    ]
    if spec.sinusoidal:
        notes.append(
            trans_late(
                "Activation",
                "Sinusoidal positions: a fixed table of max_position_embeddings rows, "
                "counted as parameters; a longer sequence cannot run.",
            )
        )
    if inputs.attention is Attention.SDPA and inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "With a padded batch SDPA keeps a copy of the padding mask in every layer.",
            )
        )
    return tuple(notes)
