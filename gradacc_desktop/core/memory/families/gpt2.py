"""GPT-2 (``modeling_gpt2.py``): the layer ``transformers`` builds (``hf_layer``), for
sizes typed in (``sizes_layout``: the defaults of ``GPT2Config``) and read from a
``config.json`` (``layout``: ``n_inner`` and ``activation_function`` taken from the file
— ``gelu_new``, written in Python, keeps four s·i tensors; the exact GELU, the C++ tanh
GELU and ReLU keep one — and an explicit SDPA mask for padded batches).
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
    causal_lm_loss,
    dropout_mask,
    eager,
    layer_norm,
    logits_transient,
    uniform_layout,
)
from gradacc_desktop.core.recompute import Recompute

MODEL_TYPES = ("gpt2",)


@dataclass(frozen=True)
class Gpt2Spec:
    activation: str
    tie_embeddings: bool


def parse(config: ConfigReader) -> Architecture:
    hidden = config.integer("n_embd", 768)
    heads = config.integer("n_head", 12)
    if hidden % heads:
        raise config.unsupported("n_embd must divide by n_head", "n_embd")
    activation = config.text("activation_function", "gelu_new")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            f"activation_function {activation!r} is not modelled", "activation_function"
        )
    return Architecture(
        model_type="gpt2",
        family=Family.GPT2,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=config.integer("n_layer", 12),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("n_inner", 4 * hidden),
        vocab=config.integer("vocab_size", 50257),
        max_positions=config.integer("n_positions", 1024),
        spec=Gpt2Spec(activation, config.flag("tie_word_embeddings", True)),
    )


def parameters(arch: Architecture) -> int:
    spec: Gpt2Spec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    positions = arch.max_positions or 0
    layer = 4 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * i + i) + (i * h + h)
    head = 0 if spec.tie_embeddings else v * h
    return v * h + positions * h + arch.layers * layer + 2 * h + head


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: Gpt2Spec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    parts = hf_layer(inputs, dims)
    parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS[spec.activation] * p * dims.s * dims.i
    cpu_math = inputs.dropout and inputs.device is Device.CPU
    if inputs.padded and inputs.attention is Attention.SDPA and not cpu_math:
        parts[Part.ATTN_MASK] = p * dims.s * dims.s
    outside = hf_outside(inputs, dims)
    if inputs.padded and inputs.recompute is Recompute.FULL and not eager(inputs):
        # GPT2Block gets the boolean padding mask positionally: the checkpoint keeps it
        outside[Part.SHARED_MASK] = dims.s * dims.s
    return uniform_layout(arch, inputs, parts, outside)


def hf_layer(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    """One GPT-2 block as ``transformers`` 5.x + PyTorch autograd save it (b = 1):
    LayerNorms, fused c_attn, ``gelu_new`` MLP (4h unless ``n_inner``), residual dropout."""
    p = inputs.dtype.bytes
    cuda = inputs.device is Device.CUDA
    m = 1 if cuda else p  # dropout mask: bool (fused native_dropout) vs noise tensor
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    is_eager = eager(inputs)
    cpu_math = not is_eager and drop and not cuda

    parts: dict[Part, int] = {}
    norm = layer_norm(inputs, r, h)  # input, mean, rstd
    parts[Part.ATTN_NORM] = norm
    parts[Part.MLP_NORM] = norm
    # addmm keeps its input (the norm output), shared by q/k/v and by c_fc
    parts[Part.QKV_PROJ_INPUT] = p * r * h
    parts[Part.MLP_IN_PROJ_INPUT] = p * r * h

    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ, V, softmax output, dropout noise and
        # dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        # c_attn output (3h) split into views: one storage serves Q, K and V; a filled
        # cache hands attention new copies of K and V (Q's view still keeps the storage)
        parts[Part.ATTN_QKV] = p * s * (a + 2 * k) * d + (
            2 * p * s * k * d if inputs.fills_cache else 0
        )

    if is_eager:
        parts[Part.ATTN_SOFTMAX] = p * a * s * s
        if drop:
            parts[Part.ATTN_DROPOUT] = m * a * s * s + p * a * s * s
    elif not cpu_math:
        # fused kernel: fp32 log-sum-exp (a per token); its output is the output
        # projection's input counted below
        parts[Part.ATTN_FUSED] = 4 * a * s

    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d  # attention output, (s, a·d) contiguous
    # gelu_new: input (= c_fc output), 0.5·x, tanh(...), 1 + tanh(...)
    parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS["gelu_new"] * p * s * i
    if drop:
        parts[Part.ATTN_RESID_DROPOUT] = m * r * h
        parts[Part.MLP_RESID_DROPOUT] = m * r * h
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def hf_outside(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    """Once per sample: token and position ids (and the embedding dropout mask), the
    causal mask a checkpointed eager block keeps, final norm, LM head input and loss."""
    p = inputs.dtype.bytes
    s, r, h = dims.s, dims.s_sp, dims.h
    # int64 token ids (wte) and position ids (wpe) kept by the embeddings
    embeddings = 8 * s + 8 * s
    if inputs.dropout:
        embeddings += dropout_mask(inputs, r * h)
    parts: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if eager(inputs) and inputs.recompute is Recompute.FULL:
        # GPT2Block receives the additive causal mask positionally: the checkpoint keeps it
        parts[Part.CAUSAL_MASK] = p * s * s
    parts[Part.FINAL_NORM] = layer_norm(inputs, r, h)
    parts[Part.LM_HEAD_INPUT] = p * r * h
    # fp32 log_softmax output; labels padded by one and shifted (int64); total_weight scalar
    parts[Part.LOSS] = causal_lm_loss(s, dims.v)
    return parts


def sizes_layout(inputs: Inputs) -> ActivationLayout:
    """A GPT-2 typed as sizes (no ``config.json``): ``GPT2Config``'s defaults
    (``gelu_new``) and no explicit SDPA mask."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    return ActivationLayout(
        stacks=(
            Stack(
                StackKind.LAYERS,
                inputs.layers,
                hf_layer(inputs, dims),
                {Part.LAYER_CHECKPOINT: p * dims.s_sp * dims.h},
            ),
        ),
        outside=hf_outside(inputs, dims),
        logits=logits_transient(inputs, dims.s, dims.v),
    )
