"""BART and mBART encoder-decoders trained as sequence-to-sequence LMs
(``modeling_bart.py``, ``modeling_mbart.py``, their configuration classes,
``masking_utils.py`` and ``integrations/sdpa_attention.py`` of ``transformers`` 5.24).

The model is ``BartForConditionalGeneration`` / ``MBartForConditionalGeneration``: a
shared token embedding (multiplied by √d_model when ``scale_embedding``: a product by a
number keeps nothing), learned positions in each stack (``BartLearnedPositionalEmbedding``:
``max_position_embeddings`` + 2 rows indexed by the position + 2, so at most
``max_position_embeddings`` source and target tokens), ``layernorm_embedding``, the
layers, and the LM head tied to the shared embedding plus ``final_logits_bias`` (a
buffer, not a parameter). BART's layers are post-LN (a LayerNorm after each residual
addition); mBART's are pre-LN and each stack ends with a LayerNorm (``layer_norm``). The
sizes are the same either way: the same tensors move from one norm to the other. A file
naming ``BartModel`` or a task head is estimated with this head (``families.heads`` says
so in a note); ``*ForCausalLM`` (the decoder alone) is refused.

Symbols: s source length (``inputs.seq``), t target length (``inputs.decoder_seq``), h
``d_model``, a heads of the stack, i its ``*_ffn_dim``, V vocabulary, p bytes per
element, m bytes per dropout-mask element (``common.dropout_mask``).

Encoder layer (b = 1):

* the two LayerNorms (input and mean/rstd per token: fp32 on CUDA, the dtype on CPU);
* the q/k/v input (p·s·h, one tensor for the three linears); Q, K and V, views of the
  three projections (3·p·s·h); eager: the softmax in the dtype (p·a·s², BART does not
  upcast); SDPA: the fp32 log-sum-exp (4·a·s) and, with a padded batch, the kernel's
  copy of the boolean mask in the dtype (p·s²); on CPU, SDPA with attention dropout
  takes the fp32 math path (fp32 Q, K, V, softmax, dropout noise and output);
* the ``out_proj`` input (p·s·h); ``fc1`` input (p·s·h), the activation (exact GELU
  keeps its input: p·s·i; ReLU its output, the ``fc2`` input), ``fc2`` input (p·s·i);
* with dropout, each where the file turns it on (probability above 0): two residual
  dropout masks (``dropout``), the activation dropout (``activation_dropout``: noise;
  the ``fc2`` input is then the dropout output) and the attention dropout
  (``attention_dropout``: noise and output).

Decoder layer: the same self-attention over t tokens (causal: ``is_causal`` for SDPA,
an additive mask for eager, kept by nothing), then cross-attention: its norm, the
``q_proj`` input (p·t·h), Q (p·t·h), K and V of the encoder output (2·p·s·h, in every
layer); eager: softmax p·a·t·s; SDPA: log-sum-exp 4·a·t and, padded, the copy of the
mask (p·t·s); the ``out_proj`` input (p·t·h); then the feed-forward. The decoder's own
tokens are never padded here (``DataCollatorForSeq2Seq`` pads the labels with -100 and
passes no decoder mask).

Once per model: the int64 source ids and target ids (the labels shifted right) and the
int64 position ids (+ 2) of both stacks, the two ``layernorm_embedding`` (and their
``dropout``), the encoder output kept by every cross-attention (p·s·h), mBART's two final
LayerNorms, the LM-head input (p·t·h), the loss (``CrossEntropyLoss`` on the logits in
the dtype plus the bias: log-softmax output p·t·V, int64 labels, total weight).

Full recomputation (the layers are ``GradientCheckpointingLayer``): each layer keeps its
input hidden states; the tensors passed positionally are kept once: the encoder output
(the decoder layers' third argument), the decoder's additive causal mask with eager
(p·t²), the encoder's padding mask (eager: additive in the dtype, p·s²; SDPA: boolean,
s²). The cross-attention mask is a keyword argument (not saved by the checkpoint).

In fp16 mBART's encoder layers clamp their output (``torch.clamp`` keeps its input,
p·s·h); BART clamps only when the output has overflowed (not modelled).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import Attention, Device, Family, Inputs, Part
from gradacc_desktop.core.memory.families import seq2seq
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    linear,
)
from gradacc_desktop.core.memory.families.common import ACTIVATION_KEEPS, dropout_mask, layer_norm
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("bart", "mbart")

#: positions are a learned table in both stacks: no longer source or target can run
LEARNED_POSITIONS = MODEL_TYPES

#: ``BartLearnedPositionalEmbedding``: fairseq's offset, max_positions + 2 rows
POSITION_OFFSET = 2

# transformers 5.24 BartConfig / MBartConfig defaults (the same for every size key)
_VOCAB, _POSITIONS, _D_MODEL, _LAYERS, _FFN, _HEADS = 50265, 1024, 1024, 12, 4096, 16

_CAUSAL = ("BartForCausalLM", "MBartForCausalLM")


@dataclass(frozen=True)
class BartSpec:
    #: mBART: LayerNorm before attention and MLP, and a final LayerNorm in each stack
    pre_norm: bool
    decoder_layers: int
    decoder_heads: int
    decoder_intermediate: int
    activation: str
    scale_embedding: bool
    #: tie_word_embeddings (false: transformers 5.24 unties the encoder's, the
    #: decoder's and the LM head's matrices from the shared embedding)
    tie_embeddings: bool
    #: the largest of encoder_layerdrop and decoder_layerdrop (the estimate runs every layer)
    layerdrop: float
    #: which dropouts the file turns on (probability > 0): ``dropout`` (embeddings and
    #: residual branches), ``attention_dropout``, ``activation_dropout``
    hidden_dropout: bool
    attention_dropout: bool
    activation_dropout: bool


def _probability(config: ConfigReader, key: str, default: float = 0.0) -> float:
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
    mt = config.model_type
    # the attribute_map aliases (hidden_size, num_hidden_layers, num_attention_heads)
    # win over d_model, encoder_layers and encoder_attention_heads in transformers 5.24
    hidden = config.first_int(("hidden_size", "d_model"), _D_MODEL)
    layers = config.first_int(("num_hidden_layers", "encoder_layers"), _LAYERS)
    heads = config.first_int(("num_attention_heads", "encoder_attention_heads"), _HEADS)
    decoder_heads = config.integer("decoder_attention_heads", _HEADS)
    for key, n in (("encoder_attention_heads", heads), ("decoder_attention_heads", decoder_heads)):
        if hidden % n:
            raise config.unsupported(
                trans_late(
                    "ModelConfig", "d_model ({hidden}) must divide by {key} ({heads})"
                ).format(hidden=hidden, key=key, heads=n),
                key,
            )
    activation = config.text("activation_function", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            trans_late("ModelConfig", "activation_function {name} is not modelled").format(
                name=repr(activation)
            ),
            "activation_function",
        )
    architecture = config.architecture()
    if architecture in _CAUSAL:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "architectures: {name} is the decoder alone; only the encoder-decoder "
                "trained as a sequence-to-sequence LM is modelled",
            ).format(name=architecture),
            "architectures",
        )
    layerdrop = max(
        _probability(config, "encoder_layerdrop"), _probability(config, "decoder_layerdrop")
    )
    spec = BartSpec(
        pre_norm=mt == "mbart",
        decoder_layers=config.integer("decoder_layers", _LAYERS),
        decoder_heads=decoder_heads,
        decoder_intermediate=config.integer("decoder_ffn_dim", _FFN),
        activation=activation,
        scale_embedding=config.flag("scale_embedding", False),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        layerdrop=layerdrop,
        hidden_dropout=_probability(config, "dropout", 0.1) > 0,
        attention_dropout=_probability(config, "attention_dropout", 0.0) > 0,
        activation_dropout=_probability(config, "activation_dropout", 0.0) > 0,
    )
    return Architecture(
        model_type=mt,
        family=Family.BART,
        head=Head.SEQ2SEQ_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("encoder_ffn_dim", _FFN),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=config.integer("max_position_embeddings", _POSITIONS),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``BartForConditionalGeneration`` / ``MBartForConditionalGeneration``: the shared
    embedding (the encoder's, the decoder's and the LM head's weight when tied; with
    tie_word_embeddings false transformers 5.24 gives each its own copy, four matrices),
    two learned position tables of max_positions + 2 rows, the layers (biased linears,
    LayerNorms with bias), the two ``layernorm_embedding`` and mBART's two final
    LayerNorms. ``final_logits_bias`` is a buffer: not counted."""
    spec: BartSpec = arch.spec
    h, v = arch.hidden, arch.vocab
    norm = 2 * h
    attention = 4 * linear(h, h, True)
    encoder = attention + linear(h, arch.intermediate, True) + linear(arch.intermediate, h, True)
    encoder += 2 * norm
    i = spec.decoder_intermediate
    decoder = 2 * attention + linear(h, i, True) + linear(i, h, True) + 3 * norm
    positions = 2 * ((arch.max_positions or 0) + POSITION_OFFSET) * h
    norms = (4 if spec.pre_norm else 2) * norm
    embeddings = (1 if spec.tie_embeddings else 4) * v * h
    return embeddings + positions + arch.layers * encoder + spec.decoder_layers * decoder + norms


def lookup_parameters(arch: Architecture) -> int:
    """Parameters used by lookups only: the two position tables and, untied, the
    encoder's and the decoder's token embeddings and the unused shared one."""
    spec: BartSpec = arch.spec
    positions = 2 * ((arch.max_positions or 0) + POSITION_OFFSET) * arch.hidden
    return positions + (0 if spec.tie_embeddings else 3 * arch.vocab * arch.hidden)


def _variant(arch: Architecture, inputs: Inputs) -> seq2seq.Variant:
    """BART's (post-LN) or mBART's (pre-LN) layer, with the dropouts the file turns on."""
    spec: BartSpec = arch.spec
    on = inputs.dropout
    attention = on and spec.attention_dropout
    return seq2seq.Variant(
        hidden_dropout=on and spec.hidden_dropout,
        attention_dropout=attention,
        activation_dropout=on and spec.activation_dropout,
        # SDPA on a CPU with attention dropout: the fp32 math path
        cpu_math=inputs.attention is Attention.SDPA and attention and inputs.device is Device.CPU,
        pre_norm=spec.pre_norm,
    )


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: BartSpec = arch.spec
    p, h = inputs.dtype.bytes, arch.hidden
    s, t = inputs.seq, inputs.decoder_seq
    sdpa = inputs.attention is Attention.SDPA
    variant = _variant(arch, inputs)

    encoder = seq2seq.merge(
        seq2seq.self_attention(inputs, variant, s, h, arch.heads, decoder=False),
        seq2seq.feed_forward(inputs, variant, s, h, arch.intermediate, spec.activation),
    )
    decoder = seq2seq.merge(
        seq2seq.self_attention(inputs, variant, t, h, spec.decoder_heads, decoder=True),
        seq2seq.cross_attention(inputs, variant, h, spec.decoder_heads),
        seq2seq.feed_forward(inputs, variant, t, h, spec.decoder_intermediate, spec.activation),
    )
    if spec.pre_norm and inputs.dtype is Precision.FP16:
        # MBartEncoderLayer clamps its output in fp16: clamp keeps its input
        encoder[Part.RESIDUAL] = p * s * h

    # int64 token ids and position ids (+ 2) of both stacks (the target ids are the
    # labels shifted right), then layernorm_embedding and its dropout in each stack
    embeddings = 16 * s + 16 * t + layer_norm(inputs, s, h) + layer_norm(inputs, t, h)
    if variant.hidden_dropout:
        embeddings += dropout_mask(inputs, s * h) + dropout_mask(inputs, t * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.recompute is Recompute.FULL:
        # passed positionally to the checkpointed layers, kept once
        masks = 0 if sdpa else p * t * t  # eager: the decoder's additive causal mask
        if inputs.padded:
            masks += s * s if sdpa else p * s * s  # the encoder's padding mask
        if masks:
            outside[Part.SHARED_MASK] = masks
    # kept by the k/v projections of every cross-attention (and by the checkpoints)
    outside[Part.ENCODER_OUTPUT] = p * s * h
    if spec.pre_norm:
        outside[Part.FINAL_NORM] = layer_norm(inputs, s, h) + layer_norm(inputs, t, h)
    return seq2seq.layout(
        inputs,
        h=h,
        v=arch.vocab,
        encoder=(arch.layers, encoder),
        decoder=(spec.decoder_layers, decoder),
        outside=outside,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: BartSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Encoder over the source length, decoder over the target length, each with "
            "learned positions (at most max_position_embeddings tokens); every "
            "cross-attention keeps K and V of the encoder output.",
        ),
        trans_late(
            "Activation",
            "LayerNorm keeps its input plus the mean and rstd of every token.",
        ),
        trans_late(
            "Activation",
            "The loss keeps the log-softmax of the logits in the model's data type (no "
            "fp32 copy); final_logits_bias is a buffer, not a parameter.",
        ),
    ]
    if spec.pre_norm:
        notes.append(
            trans_late(
                "Activation",
                "mBART: pre-LN layers and a final LayerNorm after the encoder and after "
                "the decoder.",
            )
        )
    if inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "A padded batch masks the encoder and the cross-attention; the target "
                "tokens are not masked (labels padded with -100), so the decoder's "
                "self-attention stays causal.",
            )
        )
    if inputs.dropout:
        notes.append(
            trans_late(
                "Activation",
                "With dropout, the dropouts the file turns on (dropout, attention_dropout, "
                "activation_dropout above 0) are counted; the others are off.",
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
    if not spec.tie_embeddings:
        notes.append(
            trans_late(
                "Activation",
                "tie_word_embeddings is false: transformers gives the encoder, the "
                "decoder, the LM head and the shared embedding a matrix each.",
            )
        )
    if inputs.dtype is Precision.FP16 and not spec.pre_norm:
        notes.append(
            trans_late(
                "Activation",
                "In fp16 BART clamps an encoder layer's output only when it has "
                "overflowed; that clamp is not counted.",
            )
        )
    return tuple(notes)
