"""Gemma 1, 2 and 3 decoders (``modeling_gemma.py``, ``modeling_gemma2.py`` and
``modeling_gemma3.py`` of ``transformers`` 5.24, with ``configuration_gemma*.py``,
``masking_utils.py`` and ``integrations/sdpa_attention.py``).

A Llama-like layer (rotary positions, grouped-query attention, gated MLP) with Gemma's
own pieces:

* ``GemmaRMSNorm`` computes in fp32 and multiplies by ``(1 + weight)`` *before* casting
  back: it keeps the fp32 input (``pow`` and ``mul``), the fp32 rsqrt per vector, the
  fp32 normalised tensor and the fp32 ``1 + weight`` vector (both kept by the product):
  8·s·h + 4·s + 4·h bytes. Its dtype output is the next projection's input, counted there.
* GeGLU MLP (``gelu_pytorch_tanh``; Gemma 1's legacy ``"gelu"`` is turned into it): the
  C++ tanh GELU keeps its input (the gate output); the product keeps the GELU output and
  the up output; the down projection keeps the product.
* The embedding output is multiplied by sqrt(hidden) (a non-persistent buffer): the
  product keeps nothing new (the scale is a buffer, the ids are kept by the embedding).
* An explicit ``head_dim`` (256 in most published models) independent of hidden / heads.
* Gemma 2 and 3 add a norm after the attention and after the MLP (four norms a layer),
  alternate sliding-window and global layers (``layer_types``; Gemma 2 every other layer,
  Gemma 3 five sliding layers to one global by ``sliding_window_pattern``), scale scores by
  ``query_pre_attn_scalar`` (a Python float: nothing kept).
* Gemma 2 soft-caps the attention scores (``tanh`` keeps its output, p·a·s², eager only:
  transformers 5.24 refuses SDPA for Gemma 2, so the estimate is eager whatever attention
  is chosen) and the final logits (``tanh`` keeps its output, p·s·V, ``Part.LOGIT_SOFTCAP``).
  Gemma 3's attention ignores ``attn_logit_softcapping``; its final soft-capping applies
  when the file sets it (null in the published files).
* Gemma 3 normalises every query and key head with a ``GemmaRMSNorm`` (fp32, as above, per
  head) and has one rotary table per kind of layer (local and global bases): cos and sin
  are kept once per kind present.

Attention. Eager keeps Q, K and V repeated to every head (a copy when k < a), the fp32
softmax and its cast to the dtype (without dropout), and the output projection's input.
SDPA keeps Q, K and V as they are (``enable_gqa``), the fp32 log-sum-exp and the output
(which is the output projection's input). ``transformers`` hands SDPA an explicit mask
when the batch is padded or, in a sliding layer, when the sequence is at least the
window (``kv_length >= sliding_window`` in ``_ignore_causal_mask_sdpa``); SDPA then keeps
its own copy of the mask in the dtype in every such layer (p·s²) and, without
``enable_gqa``, K and V repeated to every head. So do head sizes above 256.

The multimodal ``gemma3`` file (``Gemma3ForConditionalGeneration``: a SigLIP vision
tower, a projector and this text model) is ``core.memory.families.vlm``'s; it reuses the layers
here through ``parse`` (as ``gemma3_text``), ``parameters`` and ``layout``.
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
    causal_lm_loss,
    logits_transient,
    sdpa_needs_mask,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("gemma", "gemma2", "gemma3_text")

SLIDING = "sliding_attention"
FULL = "full_attention"

# transformers 5.24 configuration defaults (GemmaConfig, Gemma2Config, Gemma3TextConfig)
_DEFAULTS: dict[str, dict[str, int]] = {
    "gemma": {"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576,
              "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16,
              "head_dim": 256, "max_position_embeddings": 8192},
    "gemma2": {"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216,
               "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
               "head_dim": 256, "max_position_embeddings": 8192, "sliding_window": 4096},
    "gemma3_text": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
                    "num_hidden_layers": 26, "num_attention_heads": 8,
                    "num_key_value_heads": 4, "head_dim": 256,
                    "max_position_embeddings": 131072, "sliding_window": 4096,
                    "sliding_window_pattern": 6},
}  # fmt: skip

#: Gemma2Config's soft-capping defaults (Gemma3TextConfig: both None)
_GEMMA2_FINAL_SOFTCAP = 30.0
_GEMMA2_ATTN_SOFTCAP = 50.0

#: SDPA uses ``enable_gqa`` only up to this head size (``use_gqa_in_sdpa``)
_GQA_MAX_HEAD_DIM = 256


@dataclass(frozen=True)
class GemmaSpec:
    #: 1, 2 or 3
    generation: int
    attention_bias: bool
    tie_embeddings: bool
    activation: str
    #: norms after the attention and after the MLP (Gemma 2, 3)
    sandwich_norms: bool
    #: RMSNorm on every query and key head (Gemma 3)
    qk_norm: bool
    attn_softcap: float | None
    final_softcap: float | None
    #: window of the sliding layers (None: every layer attends to the whole sequence)
    sliding_window: int | None
    sliding_layers: int
    #: rotary tables computed per forward (Gemma 3: one per kind of layer present)
    rotary_tables: int
    #: eager attention whatever is asked (Gemma 2: transformers refuses SDPA)
    eager_only: bool


# --------------------------------------------------------------------------- parse


def parse(config: ConfigReader) -> Architecture:
    return _parse_text(config, config.model_type)


def _parse_text(config: ConfigReader, mt: str) -> Architecture:
    d = _DEFAULTS[mt]
    generation = {"gemma": 1, "gemma2": 2, "gemma3_text": 3}[mt]
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    kv_heads = config.integer("num_key_value_heads", d["num_key_value_heads"])
    head_dim = config.integer("head_dim", d["head_dim"])
    if heads % kv_heads:
        raise config.unsupported(
            "num_attention_heads must divide by num_key_value_heads", "num_key_value_heads"
        )
    if generation > 1 and hidden % heads:
        # Gemma2Config / Gemma3TextConfig.validate_architecture refuse it
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    if config.flag("use_bidirectional_attention", False):
        raise config.unsupported(
            "use_bidirectional_attention: a bidirectional (embedding) model is not a causal "
            "language model; only causal training is modelled",
            "use_bidirectional_attention",
        )
    # Gemma 1 reads hidden_act ("gelu" is its legacy name of the tanh GELU); Gemma 2 and 3
    # read hidden_activation (their files also carry hidden_act, which the model ignores)
    act_key = "hidden_act" if generation == 1 else "hidden_activation"
    activation = config.text(act_key, "gelu_pytorch_tanh")
    if generation == 1 and activation == "gelu":
        activation = "gelu_pytorch_tanh"
    if ACTIVATION_KEEPS.get(activation, 4) > 1:
        raise config.unsupported(f"{act_key} {activation!r} is not modelled", act_key)

    window: int | None = None
    sliding_layers = 0
    kinds = 1
    if generation > 1:
        if "sliding_window" in config.raw and config.raw["sliding_window"] is None:
            # create_sliding_window_causal_mask raises without a window
            raise config.unsupported(
                "sliding_window is null: transformers cannot run this model without a window",
                "sliding_window",
            )
        window = config.integer("sliding_window", d["sliding_window"])
        types = config.str_list("layer_types")
        if types is None:
            if generation == 2:
                types = tuple(SLIDING if (n + 1) % 2 else FULL for n in range(layers))
            else:
                pattern = config.integer("sliding_window_pattern", d["sliding_window_pattern"])
                types = tuple(SLIDING if (n + 1) % pattern else FULL for n in range(layers))
        if len(types) != layers:
            raise config.unsupported(
                f"layer_types names {len(types)} layers, num_hidden_layers is {layers}",
                "layer_types",
            )
        unknown = sorted(set(types) - {SLIDING, FULL})
        if unknown:
            raise config.unsupported(
                f"layer_types {', '.join(unknown)} is not modelled", "layer_types"
            )
        sliding_layers = sum(t == SLIDING for t in types)
        kinds = len(set(types)) if generation == 3 else 1
    attn_softcap = final_softcap = None
    if generation == 2:
        attn_softcap = _nullable(config, "attn_logit_softcapping", _GEMMA2_ATTN_SOFTCAP)
        final_softcap = _nullable(config, "final_logit_softcapping", _GEMMA2_FINAL_SOFTCAP)
    elif generation == 3:
        # Gemma3Attention never passes attn_logit_softcapping to the attention function
        final_softcap = config.number("final_logit_softcapping", None)
    for key, value in (
        ("attn_logit_softcapping", attn_softcap),
        ("final_logit_softcapping", final_softcap),
    ):
        if value is not None and value <= 0:
            raise config.unsupported(f"{key} must be > 0, got {value}", key)
    spec = GemmaSpec(
        generation=generation,
        attention_bias=config.flag("attention_bias", False),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        activation=activation,
        sandwich_norms=generation > 1,
        qk_norm=generation == 3,
        attn_softcap=attn_softcap,
        final_softcap=final_softcap,
        sliding_window=window if sliding_layers else None,
        sliding_layers=sliding_layers,
        rotary_tables=kinds,
        eager_only=generation == 2,
    )
    return Architecture(
        model_type=mt,
        family=Family.GEMMA,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=config.integer("intermediate_size", d["intermediate_size"]),
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=config.integer("max_position_embeddings", d["max_position_embeddings"]),
        spec=spec,
    )


def _nullable(config: ConfigReader, key: str, default: float) -> float | None:
    """A number whose explicit null turns the feature off (absent: the class default)."""
    if key in config.raw and config.raw[key] is None:
        return None
    return config.number(key, default)


# --------------------------------------------------------------------------- parameters


def parameters(arch: Architecture) -> int:
    spec: GemmaSpec = arch.spec
    h, a, k, d, i, v = (
        arch.hidden,
        arch.heads,
        arch.kv_heads,
        arch.head_dim,
        arch.intermediate,
        arch.vocab,
    )
    bias = spec.attention_bias
    attention = (
        linear(h, a * d, bias)
        + 2 * linear(h, k * d, bias)
        + linear(a * d, h, bias)
        + (2 * d if spec.qk_norm else 0)
    )
    mlp = 3 * h * i  # gate, up, down: no biases
    norms = (4 if spec.sandwich_norms else 2) * h
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * (attention + mlp + norms) + h + head


# --------------------------------------------------------------------------- activations


def gemma_rms_norm(s: int, width: int, groups: int = 1) -> int:
    """``GemmaRMSNorm`` over ``groups`` vectors of ``width`` per token: the fp32 input
    (kept by ``pow`` and by ``x * rsqrt``), the fp32 rsqrt per vector, the fp32
    normalised tensor and the fp32 ``1 + weight`` (both kept by their product)."""
    return 4 * s * groups * width + 4 * s * groups + 4 * s * groups * width + 4 * width


def _eager(arch: Architecture, inputs: Inputs) -> bool:
    return arch.spec.eager_only or inputs.attention is Attention.EAGER


def layer_parts(arch: Architecture, inputs: Inputs, window: int | None) -> dict[Part, int]:
    """One Gemma decoder layer (b = 1) without recomputation; ``window``: the layer's
    sliding window (None for a global layer)."""
    spec: GemmaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    cuda = inputs.device is Device.CUDA
    m = 1 if cuda else p  # dropout mask: bool (fused native_dropout) vs noise tensor
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    eager = _eager(arch, inputs)
    cpu_math = not eager and drop and not cuda
    norm = gemma_rms_norm(r, h)

    parts: dict[Part, int] = {
        Part.ATTN_NORM: norm,
        # q/k/v and gate/up share their input (the norm's dtype output)
        Part.QKV_PROJ_INPUT: p * r * h,
        Part.MLP_NORM: norm,
        Part.MLP_IN_PROJ_INPUT: p * r * h,
    }
    if spec.qk_norm:
        # the fp32 copy of the q/k projection output is the norm's input; the dtype
        # output is rotated (q·cos keeps only cos), so it is not kept here
        parts[Part.ATTN_QK_NORM] = gemma_rms_norm(s, d, a) + gemma_rms_norm(s, d, k)
    if spec.sandwich_norms:
        parts[Part.ATTN_POST_NORM] = norm
        parts[Part.MLP_POST_NORM] = norm

    # K and V after repeat_kv: expand + reshape copies them to every head when
    # 1 < k < a; with one key/value head the reshape is a view of the original
    repeated_kv = 2 * p * s * (k if k == 1 else a) * d
    if eager:
        # rotated Q; K and V repeated to all heads
        parts[Part.ATTN_QKV] = p * s * a * d + repeated_kv
        # softmax(dtype=fp32) output; its cast to the dtype is kept by the product with V
        # unless dropout comes between (the dropout output is kept instead)
        cast = 0 if (drop or p == 4) else p * a * s * s
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if spec.attn_softcap is not None:
            # scores / cap -> tanh (keeps its output) -> * cap; the mask is only added
            parts[Part.ATTN_SOFTCAP] = p * a * s * s
        if drop:
            parts[Part.ATTN_DROPOUT] = m * a * s * s + p * a * s * s
        # attn_output.transpose(1, 2).contiguous(): a copy, the output projection's input
        parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d
    elif cpu_math:
        # CPU SDPA with dropout: the math path in fp32 keeps scaled Q, Kᵀ and V for every
        # head, the softmax, the dropout noise and the dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
        parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d
    else:
        masked = sdpa_needs_mask(inputs, s, window)
        if masked or d > _GQA_MAX_HEAD_DIM:
            # no enable_gqa: repeat_kv expands K and V to every head
            parts[Part.ATTN_QKV] = p * s * a * d + repeated_kv
        else:
            parts[Part.ATTN_QKV] = p * s * (a + 2 * k) * d
        if masked:
            parts[Part.ATTN_MASK] = p * s * s  # SDPA's own copy of the mask, in the dtype
        # fused kernel: fp32 log-sum-exp; its output, laid out (s, a, d), is the output
        # projection's input (the transpose(...).contiguous() is a no-op)
        parts[Part.ATTN_FUSED] = 4 * a * s
        parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d

    # gate output (the activation's input, unless ReLU), activation output, up output
    parts[Part.MLP_ACTIVATION] = (ACTIVATION_KEEPS[spec.activation] + 2) * p * s * i
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def outside_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: GemmaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, r, h = dims.s, dims.s_sp, dims.h
    parts: dict[Part, int] = {
        # int64 token ids kept by the embedding; the sqrt(hidden) scale keeps nothing new
        Part.EMBEDDINGS: 8 * s,
        Part.FINAL_NORM: gemma_rms_norm(r, h),
        Part.LM_HEAD_INPUT: p * r * h,
        Part.LOSS: causal_lm_loss(s, dims.v),
    }
    if inputs.recompute is not Recompute.FULL:
        # cos and sin of every rotary table, computed once per forward and shared by the
        # layers; checkpointed layers recompute them instead
        parts[Part.ROTARY] = spec.rotary_tables * 2 * p * s * dims.d
    if spec.final_softcap is not None:
        # logits / cap -> tanh (keeps its output in the dtype) -> * cap
        parts[Part.LOGIT_SOFTCAP] = p * s * dims.v
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: GemmaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    checkpoint = {Part.LAYER_CHECKPOINT: p * dims.s_sp * dims.h}
    full = arch.layers - spec.sliding_layers
    kinds: list[tuple[StackKind, int, int | None]]
    if spec.sliding_layers and full:
        kinds = [
            (StackKind.SLIDING, spec.sliding_layers, spec.sliding_window),
            (StackKind.GLOBAL, full, None),
        ]
    elif spec.sliding_layers:
        kinds = [(StackKind.LAYERS, arch.layers, spec.sliding_window)]
    else:
        kinds = [(StackKind.LAYERS, arch.layers, None)]
    stacks = tuple(
        Stack(kind, count, layer_parts(arch, inputs, window), checkpoint)
        for kind, count, window in kinds
    )
    # the checkpoints keep neither the masks nor cos/sin (both are recomputed)
    return ActivationLayout(
        stacks=stacks,
        outside=outside_parts(arch, inputs),
        logits=logits_transient(inputs, dims.s, dims.v),
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: GemmaSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Gemma's RMSNorm computes in fp32 and scales by (1 + weight) before casting "
            "back: each norm keeps two fp32 copies of its input.",
        )
    ]
    if spec.eager_only and inputs.attention is not Attention.EAGER:
        notes.append(
            trans_late(
                "Activation",
                "Gemma 2 runs eager attention only (transformers refuses SDPA because "
                "of the attention soft-capping): estimated as eager.",
            )
        )
    if spec.attn_softcap is not None:
        notes.append(
            trans_late(
                "Activation",
                "Attention soft-capping (tanh) keeps one more copy of the scores.",
            )
        )
    if spec.final_softcap is not None:
        notes.append(
            trans_late(
                "Activation",
                "Final logit soft-capping (tanh) keeps one more copy of the logits.",
            )
        )
    if spec.qk_norm:
        notes.append(
            trans_late(
                "Activation",
                "Gemma 3 normalises every query and key head with an fp32 RMSNorm.",
            )
        )
    if spec.sliding_window is not None and not _eager(arch, inputs):
        notes.append(
            trans_late(
                "Activation",
                "Sliding-window layers: from a sequence as long as the window on, SDPA "
                "takes an explicit mask and keeps a copy of it and K and V repeated to "
                "every head.",
            )
        )
    if inputs.padded and not _eager(arch, inputs):
        notes.append(
            trans_late(
                "Activation",
                "With a padded batch SDPA keeps a copy of the mask in every layer and K "
                "and V repeated to every head.",
            )
        )
    return tuple(notes)
