"""ModernBERT encoders trained as masked language models (``modeling_modernbert.py``,
``configuration_modernbert.py``, ``masking_utils.py``, ``integrations/sdpa_attention.py``
and ``loss/loss_utils.py`` of ``transformers`` 5.24).

The model is ``ModernBertForMaskedLM``, whatever head ``architectures`` names (a note
says so). Every token is labelled; with ``sparse_prediction`` the head and the loss run
on the labelled tokens only, which with every token labelled is all of them (plus the
boolean selection the indexing keeps, one byte per token).

Pre-norm layers with LayerNorms without bias (``norm_bias``), the first layer's
attention norm an ``Identity``; one fused ``Wqkv`` projection; rotary positions with two
thetas (``global_rope_theta`` for full-attention layers, ``local_rope_theta`` for
sliding ones: one cos/sin table per kind of layer); every ``global_attn_every_n_layers``-th
layer (from the first) attends globally, the others within ``local_attention`` tokens
(``layer_types`` may list them); a GeGLU MLP whose ``Wi`` gives the input and the gate
(2·i wide, fused); a final LayerNorm; the head (dense, activation, LayerNorm) and a
``decoder`` tied to the word embeddings.

One layer keeps (b = 1, p bytes per element, s tokens, h hidden, a heads, i
intermediate):

* the attention norm's input and statistics (none in the first layer, see below), the
  ``Wqkv`` input (p·s·h);
* the whole ``Wqkv`` output (3·p·s·h: V is a view of it), the rotated Q and K (2·p·s·h,
  rotated in fp32 then cast); eager: the fp32 softmax (4·a·s²) and its cast (p·a·s²);
  SDPA: the fp32 log-sum-exp (4·a·s) and, when ``transformers`` hands it a mask (a
  padded batch; a sliding layer from s ≥ local_attention / 2 on), its own copy in the
  dtype (p·s²); on CPU SDPA with dropout takes the fp32 math path;
* the attention output (``Wo`` input, p·s·h); the MLP norm, the ``Wi`` input, the whole
  ``Wi`` output (the gate is a view of it: 2·p·s·i, the activation keeps its input
  there), the activation output (p·s·i, kept by the product) and the ``Wo`` input
  (p·s·i);
* with dropout, each where the file turns it on (probability above 0; the published
  files turn none on): attention probabilities and after the attention's ``Wo``
  (``attention_dropout``), inside the MLP (``mlp_dropout``), after the embeddings
  (``embedding_dropout``).

Once per model: the word ids, the embedding LayerNorm and dropout, cos and sin of each
rotary table, the final LayerNorm, the head transform (dense input, the activation, the
LayerNorm), the decoder input and the loss: ``ForMaskedLMLoss`` casts the logits to fp32
(log-softmax 4·s·V), keeps the int64 labels and an fp32 scalar. The first layer has no
attention norm, and the final norm keeps exactly what one keeps (an s·h input and two
statistics per token): so every layer is counted with an attention norm, and the final
norm only under full recomputation, when the layers keep only their inputs (each
``ModernBertEncoderLayer`` is a ``GradientCheckpointingLayer``; its masks and cos/sin
are keyword arguments, which the checkpoints do not keep).

The unpadded path: earlier ``transformers`` 4.x releases (from 4.48) unpadded the whole
batch once with flash-attention 2 (``_unpad_modernbert_input``: every layer then ran on
the real tokens only) and compiled parts of the model (``reference_compile``); 5.24
reads ``reference_compile`` and drops it, and only ``attn_implementation=
"flash_attention_2"`` unpads, per layer and for the attention alone, inside the generic
integration (``_upad_input``, then ``flash_attn_varlen_func``). That path needs a GPU
and the flash-attn kernels: it is not measured here, and the estimate is the padded
SDPA or eager layout (a note says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    Part,
    StackKind,
    dims_of,
)
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    eager,
    layer_norm,
    logits_transient,
)
from gradacc_desktop.core.memory.families.distilbert import dropout_probability
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("modernbert",)

# transformers 5.24 ModernBertConfig defaults (ModernBERT-base)
_VOCAB, _HIDDEN, _INTERMEDIATE, _LAYERS, _HEADS = 50368, 768, 1152, 22, 12
_POSITIONS, _LOCAL_ATTENTION, _GLOBAL_EVERY = 8192, 128, 3

FULL, SLIDING = "full_attention", "sliding_attention"
#: ``classifier_pooling`` values ``transformers`` knows (its default "cls")
POOLINGS = ("cls", "mean")


@dataclass(frozen=True)
class ModernBertSpec:
    activation: str
    #: the head's activation (``classifier_activation``)
    head_activation: str
    #: ``local_attention``: the whole window of a sliding layer
    local_attention: int
    #: layers attending globally and within the window
    global_layers: int
    sliding_layers: int
    norm_bias: bool
    attention_bias: bool
    mlp_bias: bool
    decoder_bias: bool
    classifier_bias: bool
    tie_embeddings: bool
    sparse_prediction: bool
    #: which dropouts the file turns on (probability > 0; the published files turn none
    #: on): ``attention_dropout`` (probabilities and after ``Wo``), ``embedding_dropout``,
    #: ``mlp_dropout``
    attention_dropout: bool
    embedding_dropout: bool
    mlp_dropout: bool
    #: ``classifier_pooling`` of the sequence-classification and multiple-choice heads:
    #: the first token ("cls") or the mean over the (unmasked) tokens ("mean")
    classifier_pooling: str = "cls"

    @property
    def sliding_window(self) -> int:
        """``config.sliding_window``: half the window, the distance a token reaches."""
        return self.local_attention // 2


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("hidden_size", _HIDDEN)
    heads = config.integer("num_attention_heads", _HEADS)
    if hidden % heads:
        raise config.unsupported(
            "hidden_size must divide by num_attention_heads", "num_attention_heads"
        )
    if config.integer("head_dim", hidden // heads) != hidden // heads:
        raise config.unsupported(
            "head_dim different from hidden_size / num_attention_heads: ModernBERT's "
            "attention and its rotary tables would disagree",
            "head_dim",
        )
    layers = config.integer("num_hidden_layers", _LAYERS)
    activation = config.text("hidden_activation", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            f"hidden_activation {activation!r} is not modelled", "hidden_activation"
        )
    head_activation = config.text("classifier_activation", "gelu")
    if head_activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            f"classifier_activation {head_activation!r} is not modelled",
            "classifier_activation",
        )
    pooling = config.text("classifier_pooling", "cls")
    if pooling not in POOLINGS:
        raise config.unsupported(
            f"classifier_pooling {pooling!r} is not modelled (cls or mean)",
            "classifier_pooling",
        )
    types = config.str_list("layer_types")
    if types is None:
        every = config.integer("global_attn_every_n_layers", _GLOBAL_EVERY)
        types = tuple(SLIDING if n % every else FULL for n in range(layers))
    if len(types) != layers:
        raise config.unsupported(
            f"layer_types names {len(types)} layers, num_hidden_layers is {layers}",
            "layer_types",
        )
    unknown = sorted(set(types) - {FULL, SLIDING})
    if unknown:
        raise config.unsupported(f"layer_types {', '.join(unknown)} is not modelled", "layer_types")
    spec = ModernBertSpec(
        activation=activation,
        head_activation=head_activation,
        local_attention=config.integer("local_attention", _LOCAL_ATTENTION),
        global_layers=sum(t == FULL for t in types),
        sliding_layers=sum(t == SLIDING for t in types),
        norm_bias=config.flag("norm_bias", False),
        attention_bias=config.flag("attention_bias", False),
        mlp_bias=config.flag("mlp_bias", False),
        decoder_bias=config.flag("decoder_bias", True),
        classifier_bias=config.flag("classifier_bias", False),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        sparse_prediction=config.flag("sparse_prediction", False),
        attention_dropout=dropout_probability(config, "attention_dropout", 0.0) > 0,
        embedding_dropout=dropout_probability(config, "embedding_dropout", 0.0) > 0,
        mlp_dropout=dropout_probability(config, "mlp_dropout", 0.0) > 0,
        classifier_pooling=pooling,
    )
    return Architecture(
        model_type=config.model_type,
        family=Family.MODERNBERT,
        head=Head.MASKED_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("intermediate_size", _INTERMEDIATE),
        vocab=config.integer("vocab_size", _VOCAB),
        max_positions=config.integer("max_position_embeddings", _POSITIONS),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``ModernBertForMaskedLM``: the word embedding and its norm, the layers (the first
    without an attention norm), the final norm, the head (dense, norm), the decoder's
    bias, and its weight only when it is not tied to the word embeddings."""
    spec: ModernBertSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    norm = 2 * h if spec.norm_bias else h
    attention = linear(h, 3 * h, spec.attention_bias) + linear(h, h, spec.attention_bias)
    mlp = linear(h, 2 * i, spec.mlp_bias) + linear(i, h, spec.mlp_bias)
    layers = arch.layers * (attention + mlp + 2 * norm) - norm  # layer 0: no attention norm
    head = linear(h, h, spec.classifier_bias) + norm + (v if spec.decoder_bias else 0)
    if not spec.tie_embeddings:
        head += v * h
    return v * h + norm + layers + norm + head


def lookup_parameters(arch: Architecture) -> int:
    """The word embedding when the decoder has its own weight (positions are rotary)."""
    spec: ModernBertSpec = arch.spec
    return 0 if spec.tie_embeddings else arch.vocab * arch.hidden


def _masked(arch: Architecture, inputs: Inputs, sliding: bool) -> bool:
    """``transformers`` hands the attention a mask: a padded batch, or a sliding layer
    once the sequence reaches half the window (``_ignore_bidirectional_mask_sdpa``:
    kv_length < local_size = local_attention // 2 skips it)."""
    spec: ModernBertSpec = arch.spec
    return inputs.padded or (sliding and inputs.seq >= spec.sliding_window)


def layer_parts(arch: Architecture, inputs: Inputs, sliding: bool) -> dict[Part, int]:
    """One ``ModernBertEncoderLayer`` without recomputation (b = 1), with its attention
    norm (see the module docstring for the first layer)."""
    spec: ModernBertSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, i = dims.s, dims.h, dims.a, dims.i
    drop = inputs.dropout and spec.attention_dropout
    cpu_math = not eager(inputs) and drop and inputs.device is Device.CPU
    parts: dict[Part, int] = {
        Part.ATTN_NORM: layer_norm(inputs, s, h),
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.MLP_NORM: layer_norm(inputs, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        # the whole Wi output (input and gate; the activation keeps its input there), the
        # activation's other tensors, its output (kept by the product with the gate)
        Part.MLP_ACTIVATION: (3 + max(ACTIVATION_KEEPS[spec.activation] - 1, 0)) * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    if cpu_math:
        # math fallback in fp32: scaled Q and Kᵀ, V (an fp32 copy; in fp32 V itself, a
        # view of the whole Wqkv output), softmax output, dropout noise and dropout output
        # (the mask is added, not kept)
        parts[Part.ATTN_QKV] = 2 * 4 * s * h + (3 * p * s * h if p == 4 else 4 * s * h)
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        # the whole Wqkv output (V is a view of it), the rotated Q and K
        parts[Part.ATTN_QKV] = 3 * p * s * h + 2 * p * s * h
    if eager(inputs):
        # softmax(dtype=fp32) kept; its cast kept by the product with V unless dropout
        # comes between (then the dropout output is kept instead)
        cast = 0 if (drop or p == 4) else p * a * s * s
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if drop:
            parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
        # the mask is added to the scores: nothing kept
    elif not cpu_math:
        # fused kernel: fp32 log-sum-exp; its output is Wo's input
        parts[Part.ATTN_FUSED] = 4 * a * s
        if _masked(arch, inputs, sliding):
            # the boolean mask converted to the dtype by SDPA, in every such layer
            parts[Part.ATTN_MASK] = p * s * s
    if drop:
        # out_drop after the attention's Wo (an Identity when the probability is 0)
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    if inputs.dropout and spec.mlp_dropout:
        # the dropout inside the MLP, before Wo (whose input is then its output)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * i)
    return parts


def outside_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: ModernBertSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, v = dims.s, dims.h, dims.v
    full = inputs.recompute is Recompute.FULL
    embeddings = 8 * s + layer_norm(inputs, s, h)
    if inputs.dropout and spec.embedding_dropout:
        embeddings += dropout_mask(inputs, s * h)
    parts: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if not full:
        # cos and sin of each rotary table (global, local), kept by every layer's q·cos
        # and rotate_half(q)·sin; checkpointed layers recompute them
        tables = int(spec.global_layers > 0) + int(spec.sliding_layers > 0)
        parts[Part.ROTARY] = tables * 2 * p * s * dims.d
    else:
        # the final norm (counted in the layers' stead otherwise: the first layer has no
        # attention norm, which keeps exactly as much)
        parts[Part.FINAL_NORM] = layer_norm(inputs, s, h)
    # head: dense input (the final norm's output), the activation, the LayerNorm
    head = p * s * h + ACTIVATION_KEEPS[spec.head_activation] * p * s * h
    parts[Part.MLM_HEAD] = head + layer_norm(inputs, s, h)
    parts[Part.LM_HEAD_INPUT] = p * s * h
    # logits.float(): the fp32 log-softmax, the int64 labels, the fp32 total weight; with
    # sparse prediction the boolean selection of the labelled tokens (kept by the index)
    parts[Part.LOSS] = 4 * s * v + 8 * s + 4 + (s if spec.sparse_prediction else 0)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: ModernBertSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    checkpoint = {Part.LAYER_CHECKPOINT: p * dims.s_sp * dims.h}
    kinds: list[tuple[StackKind, int, bool]]
    if spec.global_layers and spec.sliding_layers:
        kinds = [
            (StackKind.GLOBAL, spec.global_layers, False),
            (StackKind.SLIDING, spec.sliding_layers, True),
        ]
    else:
        kinds = [(StackKind.LAYERS, arch.layers, spec.sliding_layers > 0)]
    stacks = tuple(
        Stack(kind, count, layer_parts(arch, inputs, sliding), checkpoint)
        for kind, count, sliding in kinds
    )
    return ActivationLayout(
        stacks=stacks,
        outside=outside_parts(arch, inputs),
        logits=logits_transient(inputs, dims.s, dims.v),
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: ModernBertSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Trained as a masked language model with every token labelled; the loss "
            "casts the logits to fp32 and keeps their fp32 log-softmax.",
        ),
        trans_late(
            "Activation",
            "Pre-norm layers; the first layer has no attention norm, which keeps as much "
            "as the final norm: each layer is counted with its norm, the final norm only "
            "under full recomputation.",
        ),
        trans_late(
            "Activation",
            "The fused Wqkv and Wi outputs are kept whole (V and the GeGLU gate are views "
            "of them), with the rotated Q and K and the activation's output.",
        ),
        trans_late(
            "Activation",
            "Padded batch as SDPA and eager attention run it; the unpadded flash-attention "
            "path (flash_attn_varlen_func, GPU only) is not measured.",
        ),
    ]
    if inputs.attention is Attention.SDPA and spec.sliding_layers:
        notes.append(
            trans_late(
                "Activation",
                "Sliding layers: from a sequence of half the local window on, SDPA keeps a "
                "copy of the window mask in every sliding layer.",
            )
        )
    if inputs.attention is Attention.SDPA and inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "With a padded batch SDPA keeps a copy of the padding mask in every layer.",
            )
        )
    if spec.sparse_prediction:
        notes.append(
            trans_late(
                "Activation",
                "sparse_prediction: the head and the loss run on the labelled tokens only; "
                "with every token labelled that is all of them, plus a one-byte selection "
                "mask per token.",
            )
        )
    if inputs.dropout and not (
        spec.attention_dropout or spec.embedding_dropout or spec.mlp_dropout
    ):
        notes.append(
            trans_late(
                "Activation",
                "The file sets every dropout probability to 0 (ModernBERT trains without "
                "dropout): no dropout is counted.",
            )
        )
    return tuple(notes)
