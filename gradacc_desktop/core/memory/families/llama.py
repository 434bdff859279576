"""Llama-like decoders: Llama, Mistral, Qwen2, Qwen3 (``modeling_llama.py`` and the
files derived from it in ``transformers`` 5.x).

The Llama layer (fp32 RMSNorm, rotary, SwiGLU: ``hf_layer``; the same layer models
Llama sizes typed in without a file, ``sizes_layout``), plus:
Qwen2's q/k/v biases and Qwen3's attention biases (a bias add keeps nothing); Qwen3's
RMSNorm on every query and key head (``q_norm``, ``k_norm``); an explicit ``head_dim``
(Qwen3 defaults to 128, not hidden / heads); Mistral's sliding window on every layer and
Qwen2/Qwen3's on the layers from ``max_window_layers`` on (``use_sliding_window``).

Masks: with a padded batch, or a sequence at least as long as a sliding window,
``transformers`` hands SDPA an explicit mask instead of ``is_causal``; SDPA then keeps
its own copy of the mask in the dtype in every layer (p·s² bytes) and, because
``enable_gqa`` is only used without a mask, K and V repeated to every head.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Dims,
    Family,
    Inputs,
    Part,
    Product,
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
    single_stack,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    causal_lm_loss,
    logits_transient,
    repeated_kv_heads,
    rms_norm_fp32,
    sdpa_needs_mask,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")

# transformers 5.x configuration defaults for keys a file may omit
_DEFAULTS: dict[str, dict[str, int]] = {
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
              "num_hidden_layers": 32, "num_attention_heads": 32,
              "max_position_embeddings": 2048},
    "mistral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
                "num_hidden_layers": 32, "num_attention_heads": 32,
                "num_key_value_heads": 8, "max_position_embeddings": 4096 * 32,
                "sliding_window": 4096},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016,
              "num_hidden_layers": 32, "num_attention_heads": 32,
              "max_position_embeddings": 32768, "sliding_window": 4096,
              "max_window_layers": 28},
    "qwen3": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016,
              "num_hidden_layers": 32, "num_attention_heads": 32, "head_dim": 128,
              "max_position_embeddings": 32768, "sliding_window": 4096,
              "max_window_layers": 28},
}  # fmt: skip


@dataclass(frozen=True)
class LlamaSpec:
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    qk_norm: bool
    tie_embeddings: bool
    activation: str
    #: window of the sliding layers (None: every layer attends to the whole sequence)
    sliding_window: int | None
    sliding_layers: int


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS[mt]
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    kv_heads = config.integer("num_key_value_heads", d.get("num_key_value_heads", heads))
    head_dim = config.integer("head_dim", d.get("head_dim", hidden // heads))
    if mt != "qwen3" and not config.has("head_dim") and hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    if heads % kv_heads:
        raise config.unsupported(
            "num_attention_heads must divide by num_key_value_heads", "num_key_value_heads"
        )
    activation = config.text("hidden_act", "silu")
    if ACTIVATION_KEEPS.get(activation, 4) > 1:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    attention_bias = config.flag("attention_bias", False)
    window: int | None
    if mt == "mistral":
        window = (
            config.optional_int("sliding_window")
            if "sliding_window" in config.raw
            else (d["sliding_window"])
        )
        sliding_layers = layers if window is not None else 0
    elif mt in ("qwen2", "qwen3"):
        window = config.integer("sliding_window", d["sliding_window"])
        if not config.flag("use_sliding_window", False):
            window = None
        types = config.str_list("layer_types")
        if types is not None:
            if len(types) != layers:
                raise config.unsupported("layer_types must name every layer", "layer_types")
            sliding_layers = sum(t == "sliding_attention" for t in types)
        elif window is None:
            sliding_layers = 0
        else:
            first = config.integer("max_window_layers", d["max_window_layers"], minimum=0)
            sliding_layers = max(0, layers - first)
        if window is None:
            sliding_layers = 0
    else:
        window, sliding_layers = None, 0
    spec = LlamaSpec(
        qkv_bias=True if mt == "qwen2" else attention_bias,
        o_bias=attention_bias if mt in ("llama", "qwen3") else False,
        mlp_bias=config.flag("mlp_bias", False) if mt == "llama" else False,
        qk_norm=mt == "qwen3",
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        sliding_window=window,
        sliding_layers=sliding_layers,
    )
    return Architecture(
        model_type=mt,
        family=Family.LLAMA,
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


def attention_parameters(arch: Architecture, *, qkv_bias: bool, o_bias: bool, qk_norm: bool) -> int:
    """q, k, v and o projections of one Llama-style attention (and Qwen3's q/k norms)."""
    h, a, k, d = arch.hidden, arch.heads, arch.kv_heads, arch.head_dim
    return (
        linear(h, a * d, qkv_bias)
        + 2 * linear(h, k * d, qkv_bias)
        + linear(a * d, h, o_bias)
        + (2 * d if qk_norm else 0)
    )


def parameters(arch: Architecture) -> int:
    spec: LlamaSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    attention = attention_parameters(
        arch, qkv_bias=spec.qkv_bias, o_bias=spec.o_bias, qk_norm=spec.qk_norm
    )
    mlp = 2 * linear(h, i, spec.mlp_bias) + linear(i, h, spec.mlp_bias)
    layer = attention + mlp + 2 * h
    embeddings = v * h
    head = 0 if spec.tie_embeddings else v * h
    return embeddings + arch.layers * layer + h + head


def hf_layer(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    """One Llama decoder layer as ``transformers`` 5.x + PyTorch autograd save it (b = 1):
    fp32 RMSNorms, rotary Q/K, SwiGLU MLP."""
    p = inputs.dtype.bytes
    cuda = inputs.device is Device.CUDA
    m = 1 if cuda else p  # dropout mask: bool (fused native_dropout) vs noise tensor
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    eager = inputs.attention is Attention.EAGER
    cpu_math = not eager and drop and not cuda

    parts: dict[Part, int] = {}
    # x.to(fp32) kept by pow and mul; rsqrt (fp32, one per token); normalised x in dtype
    # kept by ``weight * x``. With fp32 the casts are no-ops: same sizes.
    norm = rms_norm_fp32(p, r, h)
    parts[Part.ATTN_NORM] = norm
    parts[Part.MLP_NORM] = norm
    # linear keeps its input (the norm output), shared by q/k/v and gate/up
    parts[Part.QKV_PROJ_INPUT] = p * r * h
    parts[Part.MLP_IN_PROJ_INPUT] = p * r * h

    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ, V repeated to all heads, softmax output,
        # dropout noise and dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    elif eager:
        # rotated Q; repeat_kv copies K and V to every head when 1 < k < a (with one
        # key/value head its expand-and-reshape is a view; with k = a nothing repeats)
        parts[Part.ATTN_QKV] = p * s * (a + 2 * repeated_kv_heads(a, k)) * d
    else:
        # SDPA with enable_gqa: Q (a heads), K and V (k heads) kept as they are
        parts[Part.ATTN_QKV] = p * s * (a + 2 * k) * d

    if eager:
        # softmax(dtype=fp32) output kept; its cast to dtype kept by matmul with V unless
        # dropout comes between (then the dropout output is kept instead)
        cast = 0 if (drop or p == 4) else p * a * s * s
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if drop:
            parts[Part.ATTN_DROPOUT] = m * a * s * s + p * a * s * s
    elif not cpu_math:
        # fused kernel: fp32 log-sum-exp (a per token). Its output is laid out (s, a, d),
        # so the transpose(...).contiguous() before the output projection is a no-op and
        # the output is the projection input counted below.
        parts[Part.ATTN_FUSED] = 4 * a * s

    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d  # attention output, (s, a·d) contiguous
    # SiLU input (gate output), SiLU output and up output (both kept by the product)
    parts[Part.MLP_ACTIVATION] = 3 * p * s * i
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def hf_outside(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    """Once per sample in a Llama-like causal LM: token ids, cos/sin, final norm, LM head
    input and loss."""
    p = inputs.dtype.bytes
    s, r, h = dims.s, dims.s_sp, dims.h
    parts: dict[Part, int] = {Part.EMBEDDINGS: 8 * s}  # int64 token ids kept by the embedding
    if inputs.recompute is not Recompute.FULL:
        # cos and sin, computed once per forward and kept by q·cos, rotate_half(q)·sin, ...;
        # with checkpointed layers they are recomputed instead
        parts[Part.ROTARY] = 2 * p * s * dims.d
    parts[Part.FINAL_NORM] = rms_norm_fp32(p, r, h)
    parts[Part.LM_HEAD_INPUT] = p * r * h
    # fp32 log_softmax output; labels padded by one and shifted (int64); total_weight scalar
    parts[Part.LOSS] = causal_lm_loss(s, dims.v)
    return parts


def products(
    inputs: Inputs, *, qkv_bias: bool = False, o_bias: bool = False, mlp_bias: bool = False
) -> tuple[Product, ...]:
    """The layer's products in the order its forward runs them, on one tensor-parallel
    rank: q, k, v, the output projection (``LlamaAttention``), then gate, up and down
    (``LlamaMLP``: ``down(act(gate(x)) · up(x))``)."""
    dims = dims_of(inputs)
    h, q, kv, i = dims.h, dims.a * dims.d, dims.k * dims.d, dims.i
    return (
        Product(h, q, not qkv_bias),
        Product(h, kv, not qkv_bias),
        Product(h, kv, not qkv_bias),
        Product(q, h, not o_bias, row_parallel=True),
        Product(h, i, not mlp_bias),
        Product(h, i, not mlp_bias),
        Product(i, h, not mlp_bias, row_parallel=True),
    )


def sizes_layout(inputs: Inputs) -> ActivationLayout:
    """A Llama typed as sizes (no ``config.json``): ``LlamaConfig``'s defaults (SiLU, no
    biases, no sliding window) and no explicit SDPA mask."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    return ActivationLayout(
        stacks=single_stack(
            inputs.layers,
            layer_parts(inputs, masked=False, qk_norm=False),
            {Part.LAYER_CHECKPOINT: p * dims.s_sp * dims.h},
            products(inputs),
        ),
        outside=hf_outside(inputs, dims),
        logits=logits_transient(inputs, dims.s, dims.v),
    )


def layer_parts(
    inputs: Inputs, *, masked: bool, qk_norm: bool, activation: str = "silu"
) -> dict[Part, int]:
    """One Llama-like layer; ``masked``: SDPA receives an explicit mask."""
    dims = dims_of(inputs)
    parts = hf_layer(inputs, dims)
    p = inputs.dtype.bytes
    s, a, k, d = dims.s, dims.a, dims.k, dims.d
    cpu_math = inputs.attention is Attention.SDPA and inputs.dropout and inputs.device is Device.CPU
    if masked and inputs.attention is Attention.SDPA and not cpu_math:
        # no enable_gqa with a mask: repeat_kv copies K and V to every head (1 < k < a)
        parts[Part.ATTN_QKV] = p * s * (a + 2 * repeated_kv_heads(a, k)) * d
        parts[Part.ATTN_MASK] = p * s * s
    # gate output (the activation's input, unless ReLU), activation output, up output
    parts[Part.MLP_ACTIVATION] = (ACTIVATION_KEEPS[activation] + 2) * p * dims.s * dims.i
    if qk_norm:
        parts[Part.ATTN_QK_NORM] = rms_norm_fp32(p, s, d, a) + rms_norm_fp32(p, s, d, k)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: LlamaSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    checkpoint = {Part.LAYER_CHECKPOINT: p * dims.s_sp * dims.h}
    kinds: list[tuple[StackKind, int, int | None]] = []
    full = arch.layers - spec.sliding_layers
    if spec.sliding_layers and full:
        kinds = [
            (StackKind.GLOBAL, full, None),
            (StackKind.SLIDING, spec.sliding_layers, spec.sliding_window),
        ]
    elif spec.sliding_layers:
        kinds = [(StackKind.LAYERS, arch.layers, spec.sliding_window)]
    else:
        kinds = [(StackKind.LAYERS, arch.layers, None)]
    layer_products = products(
        inputs, qkv_bias=spec.qkv_bias, o_bias=spec.o_bias, mlp_bias=spec.mlp_bias
    )
    stacks = tuple(
        Stack(
            kind,
            count,
            layer_parts(
                inputs,
                masked=sdpa_needs_mask(inputs, dims.s, window),
                qk_norm=spec.qk_norm,
                activation=spec.activation,
            ),
            checkpoint,
            layer_products,
        )
        for kind, count, window in kinds
    )
    # the layers' checkpoints keep neither the mask nor cos/sin (both are recomputed)
    return ActivationLayout(
        stacks=stacks,
        outside=hf_outside(inputs, dims),
        logits=logits_transient(inputs, dims.s, dims.v),
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: LlamaSpec = arch.spec
    notes: list[str] = []
    if spec.qk_norm:
        notes.append(
            trans_late(
                "Activation",
                "Qwen3 normalises every query and key head with an fp32 RMSNorm.",
            )
        )
    if spec.sliding_window is not None:
        notes.append(
            trans_late(
                "Activation",
                "Sliding-window layers: from a sequence as long as the window on, SDPA "
                "takes an explicit mask.",
            )
        )
    if inputs.attention is Attention.SDPA:
        notes.append(
            trans_late(
                "Activation",
                "With an explicit mask (padded batch or sliding window) SDPA keeps a "
                "copy of the mask in every layer and K and V repeated to every head.",
            )
        )
    return tuple(notes)
