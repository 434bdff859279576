"""T5 encoder-decoders trained as sequence-to-sequence LMs (``modeling_t5.py``,
``configuration_t5.py``, ``masking_utils.py`` and ``integrations/sdpa_attention.py`` of
``transformers`` 5.24): T5, T5 v1.1 and Flan-T5 (``feed_forward_proj`` "relu" or
"gated-gelu", i.e. ``gelu_new`` with ``wi_0``/``wi_1``).

Symbols: s source length (``inputs.seq``), t target length (``inputs.decoder_seq``), h
``d_model``, a heads, d ``d_kv`` (a·d may differ from h), i ``d_ff``, V vocabulary, p
bytes per element, m bytes per dropout-mask element (``common.dropout_mask``).

``T5LayerNorm`` (RMS, no bias) computes the variance from an fp32 copy but multiplies the
*original* input by the fp32 rsqrt: it keeps the fp32 copy (``pow``), the input in the
dtype and the rsqrt (``mul``), and the normalised tensor in the dtype (``weight * x``):
4·s·h + 2·p·s·h + 4·s (in fp32 the copy is the input itself: 8·s·h + 4·s).

Encoder layer (pre-norm self-attention, pre-norm feed-forward):

* attention norm; the normalised input, kept once by the q/k/v linears (p·s·h);
* eager: Q, K, V (3·p·s·a·d) and the softmax in the dtype (p·a·s²; T5 adds the position
  bias to unscaled scores, the add keeps nothing);
* SDPA: transformers passes the position bias as a float mask that needs a gradient. On
  CPU PyTorch then takes the math path in fp32: fp32 copies of Q, K and V (3·4·s·a·d) and
  the fp32 softmax (4·a·s²), plus fp32 dropout noise and output with dropout. On CUDA it
  is modelled (not measured) as the memory-efficient kernel: Q, K, V in the dtype, the
  fp32 log-sum-exp (4·a·s) and the kernel's own copy of the bias mask (p·a·s²);
* the attention output, the ``o`` input (p·s·a·d);
* feed-forward norm, the ``wi`` input (p·s·h), the activation (ReLU keeps only its
  output, which ``wo`` keeps too; ``gelu_new`` keeps four s·i tensors; gated: the product
  keeps the activation output and the ``wi_1`` output), the ``wo`` input (p·s·i);
* with dropout: the two residual dropouts, the inner feed-forward dropout (then a ReLU
  output is no longer the ``wo`` input) and the attention dropout.

Decoder layer: the same self-attention over t tokens (causal: SDPA builds a boolean
causal mask in every layer, kept by ``torch.where``: t² bytes), then cross-attention:
norm, the ``q`` input (p·t·h), Q (p·t·a·d), K and V of the encoder output
(2·p·s·a·d); eager: softmax p·a·t·s; SDPA (the zero bias needs no gradient: the fused
kernel) the log-sum-exp 4·a·t and, with a padded batch, its own copy of the mask
(p·a·t·s) per layer; the ``o`` input (p·t·a·d); then the feed-forward. With dropout on
CPU, SDPA takes the fp32 math path in the cross-attention too (fp32 Q, K, V, softmax,
dropout noise and output).

Once per model: the int64 source and target ids (the target ids are the labels shifted
right), the relative position bias computed in the first layer of each stack and shared
(its int64 bucket ids: 8·s² and 8·t²), the encoder output kept for every cross-attention
(p·s·h), the two final norms, the ``lm_head`` input (p·t·h; scaled by d_model^-0.5
when the embeddings are tied, a new tensor either way), the loss (``CrossEntropyLoss``
on the logits in the dtype: log-softmax output p·t·V, int64 labels, total weight) and
the masks shared by every layer (SDPA's zero cross-attention bias when nothing is padded,
p·a·t·s; the padding mask kept by ``torch.where``, s²).

Full recomputation (``T5Block`` is a ``GradientCheckpointingLayer``): each block keeps
its hidden states; the blocks after the first keep the shared position biases
(p·a·s², p·a·t², and the cross-attention's zero bias p·a·t·s); the decoder blocks keep
the encoder output; the masks passed positionally are kept once (eager: the additive
causal mask p·t², and with padding the additive padding masks; SDPA: the boolean
padding masks).

In fp16 ``T5Block`` clamps the hidden states after every sub-layer: each clamp keeps its
input (p·s·h) and two fp32 scalar bounds.
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
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    eager,
)
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("t5", "mt5")

# transformers 5.24 configuration defaults (T5Config; MT5Config: mT5-small's sizes, the
# gated GELU and a 250 112-token vocabulary — MT5ForConditionalGeneration is T5's model)
_DEFAULTS: dict[str, dict[str, int | str]] = {
    "t5": {"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6,
           "num_heads": 8, "feed_forward_proj": "relu"},
    "mt5": {"vocab_size": 250112, "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8,
            "num_heads": 6, "feed_forward_proj": "gated-gelu"},
}  # fmt: skip
_BUCKETS = 32


@dataclass(frozen=True)
class T5Spec:
    decoder_layers: int
    #: ``feed_forward_proj`` as written in the file
    feed_forward: str
    #: the activation transformers uses (``gated-gelu`` -> ``gelu_new``)
    activation: str
    gated: bool
    relative_buckets: int
    #: ``tie_word_embeddings`` of the file: only decides the d_model^-0.5 output scaling
    #: (transformers 5.24 ties ``lm_head`` to the shared embedding either way)
    tie_embeddings: bool


def parse(config: ConfigReader) -> Architecture:
    d = _DEFAULTS[config.model_type]
    proj = config.text("feed_forward_proj", str(d["feed_forward_proj"]))
    pieces = proj.split("-")
    if len(pieces) > 2 or (len(pieces) == 2 and pieces[0] != "gated"):
        raise config.unsupported(
            f"feed_forward_proj {proj!r} must be 'ACT' or 'gated-ACT' (e.g. 'relu', 'gated-gelu')",
            "feed_forward_proj",
        )
    gated = len(pieces) == 2
    activation = "gelu_new" if proj == "gated-gelu" else pieces[-1]
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            f"feed_forward_proj {proj!r}: activation {activation!r} is not modelled",
            "feed_forward_proj",
        )
    layers = config.integer("num_layers", int(d["num_layers"]))
    heads = config.integer("num_heads", int(d["num_heads"]))
    spec = T5Spec(
        decoder_layers=config.integer("num_decoder_layers", layers),
        feed_forward=proj,
        activation=activation,
        gated=gated,
        relative_buckets=config.integer("relative_attention_num_buckets", _BUCKETS),
        tie_embeddings=config.flag("tie_word_embeddings", True),
    )
    return Architecture(
        model_type=config.model_type,
        family=Family.T5,
        head=Head.SEQ2SEQ_LM,
        hidden=config.integer("d_model", int(d["d_model"])),
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=config.integer("d_kv", int(d["d_kv"])),
        intermediate=config.integer("d_ff", int(d["d_ff"])),
        vocab=config.integer("vocab_size", int(d["vocab_size"])),
        max_positions=None,
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``T5ForConditionalGeneration`` as trained from its checkpoint: the shared
    embedding (also the encoder's and the decoder's), ``lm_head`` (its own weight when
    the file says tie_word_embeddings false), the relative-position bias tables of each
    stack's first block, bias-free linears."""
    spec: T5Spec = arch.spec
    h, inner, i = arch.hidden, arch.heads * arch.head_dim, arch.intermediate
    attention = 4 * h * inner + h  # q, k, v, o and the pre-norm
    feed_forward = (3 if spec.gated else 2) * h * i + h
    buckets = spec.relative_buckets * arch.heads
    encoder = arch.layers * (attention + feed_forward) + buckets + h
    decoder = spec.decoder_layers * (2 * attention + feed_forward) + buckets + h
    # tie_word_embeddings false (T5 v1.1, Flan-T5): the checkpoint has its own lm_head,
    # which from_pretrained keeps untied (transformers 5.24 ties it when it builds the
    # model from the config alone)
    head = 0 if spec.tie_embeddings else arch.vocab * h
    return arch.vocab * h + encoder + decoder + head


def _norm(s: int, h: int, p: int) -> int:
    """``T5LayerNorm``: fp32 copy (``pow``), the input in the dtype and the fp32 rsqrt
    (``mul``), the normalised tensor in the dtype (``weight * x``). In fp32 the copy is
    the input itself."""
    return 4 * s * h + 4 * s + (1 if p == 4 else 2) * p * s * h


def _cpu_math(inputs: Inputs) -> bool:
    """SDPA on CPU with dropout: every attention takes the fp32 math path."""
    return inputs.attention is Attention.SDPA and inputs.dropout and inputs.device is Device.CPU


def _self_attention(inputs: Inputs, n: int, *, decoder: bool) -> dict[Part, int]:
    """Self-attention over ``n`` tokens (norm to ``o`` input), one block."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    h, a, d = dims.h, dims.a, dims.d
    drop = inputs.dropout
    parts: dict[Part, int] = {
        Part.ATTN_NORM: _norm(n, h, p),
        Part.QKV_PROJ_INPUT: p * n * h,
        Part.ATTN_OUT_PROJ_INPUT: p * n * a * d,
    }
    if eager(inputs):
        parts[Part.ATTN_QKV] = 3 * p * n * a * d
        parts[Part.ATTN_SOFTMAX] = p * a * n * n
        if drop:
            # noise/mask and the dropout output (kept by the product with V)
            parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * n * n) + p * a * n * n
        return parts
    if decoder:
        # create_position_bias_mask: torch.where(causal, bias, min) keeps the causal mask
        parts[Part.ATTN_MASK] = n * n
    if inputs.device is Device.CPU:
        # the bias mask needs a gradient: the fp32 math path
        parts[Part.ATTN_QKV] = 3 * 4 * n * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * n * n
        if drop:
            parts[Part.ATTN_DROPOUT] = 2 * 4 * a * n * n
    else:
        # memory-efficient kernel (modelled): Q, K, V, log-sum-exp and its bias copy
        parts[Part.ATTN_QKV] = 3 * p * n * a * d
        parts[Part.ATTN_FUSED] = 4 * a * n
        parts[Part.ATTN_POSITION_BIAS] = p * a * n * n
    return parts


def _cross_attention(inputs: Inputs) -> dict[Part, int]:
    """Cross-attention of ``t`` decoder tokens over ``s`` encoder tokens, one block."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, t, h, a, d = dims.s, inputs.decoder_seq, dims.h, dims.a, dims.d
    parts: dict[Part, int] = {
        Part.CROSS_ATTN_NORM: _norm(t, h, p),
        Part.CROSS_ATTN_OUT_PROJ_INPUT: p * t * a * d,
    }
    # the q input (the normalised decoder states); K and V are computed from the encoder
    # output in every block
    if _cpu_math(inputs):
        parts[Part.CROSS_ATTN_QKV] = p * t * h + 4 * t * a * d + 2 * 4 * s * a * d
        # fp32 softmax, dropout noise and dropout output
        parts[Part.CROSS_ATTN_SCORES] = 3 * 4 * a * t * s
        return parts
    parts[Part.CROSS_ATTN_QKV] = p * t * h + p * t * a * d + 2 * p * s * a * d
    if eager(inputs):
        scores = p * a * t * s
        if inputs.dropout:
            scores += dropout_mask(inputs, a * t * s) + p * a * t * s
        parts[Part.CROSS_ATTN_SCORES] = scores
    else:
        parts[Part.CROSS_ATTN_SCORES] = 4 * a * t  # fp32 log-sum-exp
        if inputs.padded:
            # where(padding mask, zero bias, min): a new mask per block, kept by the kernel
            parts[Part.ATTN_MASK] = p * a * t * s
    return parts


def _feed_forward(arch: Architecture, inputs: Inputs, n: int) -> dict[Part, int]:
    spec: T5Spec = arch.spec
    p = inputs.dtype.bytes
    h, i = arch.hidden, arch.intermediate
    keeps = ACTIVATION_KEEPS[spec.activation]
    if spec.gated:
        keeps += 2  # the product keeps the activation output and the wi_1 output
    activation = keeps * p * n * i
    if inputs.dropout:
        activation += dropout_mask(inputs, n * i)
        if not spec.gated and ACTIVATION_KEEPS[spec.activation] == 0:
            # ReLU keeps its output, no longer the wo input (the dropout output is)
            activation += p * n * i
    return {
        Part.MLP_NORM: _norm(n, h, p),
        Part.MLP_IN_PROJ_INPUT: p * n * h,
        Part.MLP_ACTIVATION: activation,
        Part.MLP_OUT_PROJ_INPUT: p * n * i,
    }


def _merge(*pieces: dict[Part, int]) -> dict[Part, int]:
    merged: dict[Part, int] = {}
    for piece in pieces:
        for key, n in piece.items():
            merged[key] = merged.get(key, 0) + n
    return merged


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: T5Spec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, t, h, a, v = dims.s, inputs.decoder_seq, dims.h, dims.a, dims.v
    sdpa = inputs.attention is Attention.SDPA
    full = inputs.recompute is Recompute.FULL

    encoder = _merge(_self_attention(inputs, s, decoder=False), _feed_forward(arch, inputs, s))
    decoder = _merge(
        _self_attention(inputs, t, decoder=True),
        _cross_attention(inputs),
        _feed_forward(arch, inputs, t),
    )
    if inputs.dtype is Precision.FP16:
        # T5Block clamps the hidden states after every sub-layer in fp16: clamp(x, -c, c)
        # with tensor bounds keeps its input and the two fp32 scalar bounds
        encoder[Part.RESIDUAL] = 2 * (p * s * h + 8)
        decoder[Part.RESIDUAL] = 3 * (p * t * h + 8)
    if inputs.dropout:
        encoder[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        encoder[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        # after the self-attention and after the cross-attention
        decoder[Part.ATTN_RESID_DROPOUT] = 2 * dropout_mask(inputs, t * h)
        decoder[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, t * h)

    # int64 source ids and target ids (the labels shifted right)
    embeddings = 8 * s + 8 * t
    if inputs.dropout:
        embeddings += dropout_mask(inputs, s * h) + dropout_mask(inputs, t * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    bias = 0
    if full:
        # kept as inputs of the checkpointed blocks after the first of each stack
        if arch.layers > 1:
            bias += p * a * s * s
        if spec.decoder_layers > 1:
            bias += p * a * t * t + p * a * t * s
        masks = 0
        if eager(inputs):
            masks += p * t * t  # the additive causal mask of every decoder block
        if inputs.padded:
            # the padding masks of the encoder and of the cross-attention
            masks += (1 if sdpa else p) * (s * s + t * s)
        if masks:
            outside[Part.SHARED_MASK] = masks
    else:
        # int64 bucket ids of the relative position bias, once per stack
        bias += 8 * s * s + 8 * t * t
        if sdpa and not inputs.padded and not _cpu_math(inputs):
            # the zero cross-attention bias, one tensor shared by every block's kernel
            bias += p * a * t * s
        if sdpa and inputs.padded:
            # torch.where(padding mask, bias, min) in every encoder block: one mask
            outside[Part.SHARED_MASK] = s * s
    outside[Part.SHARED_POSITION_BIAS] = bias
    outside[Part.ENCODER_OUTPUT] = p * s * h
    final = _norm(s, h, p) + _norm(t, h, p)
    if inputs.dropout:
        final += dropout_mask(inputs, s * h) + dropout_mask(inputs, t * h)
    outside[Part.FINAL_NORM] = final
    outside[Part.LM_HEAD_INPUT] = p * t * h
    # log_softmax output in the dtype, int64 labels, the total weight (dtype scalar)
    outside[Part.LOSS] = p * t * v + 8 * t + p
    return ActivationLayout(
        stacks=(
            Stack(StackKind.ENCODER, arch.layers, encoder, {Part.LAYER_CHECKPOINT: p * s * h}),
            Stack(
                StackKind.DECODER,
                spec.decoder_layers,
                decoder,
                {Part.LAYER_CHECKPOINT: p * t * h},
            ),
        ),
        outside=outside,
        # the logits in the dtype (the returned output keeps them) and their gradient
        logits=2 * p * t * v,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: T5Spec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Encoder over the source length, decoder over the target length; every "
            "cross-attention keeps K and V of the encoder output.",
        ),
        trans_late(
            "Activation",
            "The relative position bias is computed in the first layer of each stack "
            "and shared by the others.",
        ),
        trans_late(
            "Activation",
            "The loss keeps the log-softmax of the logits in the model's data type (no fp32 copy).",
        ),
    ]
    if inputs.attention is Attention.SDPA:
        if inputs.device is Device.CPU:
            notes.append(
                trans_late(
                    "Activation",
                    "SDPA gets the position bias as a mask that needs a gradient: on a "
                    "CPU the self-attention takes the fp32 math path.",
                )
            )
        else:
            notes.append(
                trans_late(
                    "Activation",
                    "SDPA gets the position bias as a mask that needs a gradient: on CUDA "
                    "modelled as the memory-efficient kernel keeping a copy of the bias "
                    "in every layer (not measured).",
                )
            )
    if not spec.tie_embeddings:
        notes.append(
            trans_late(
                "Activation",
                "tie_word_embeddings is false: the checkpoint's own lm_head is counted "
                "(from_pretrained keeps it untied) and the decoder output is not scaled.",
            )
        )
    if inputs.dtype is Precision.FP16:
        notes.append(
            trans_late(
                "Activation",
                "Loaded in fp16 with from_pretrained, transformers keeps the wo "
                "projections in fp32; the estimate assumes every weight in fp16.",
            )
        )
    return tuple(notes)
