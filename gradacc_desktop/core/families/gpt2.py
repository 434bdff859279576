"""GPT-2 read from its ``config.json`` (``modeling_gpt2.py``): the same layer as
``core.activation``'s GPT-2 profile, with ``n_inner`` and ``activation_function`` taken
from the file (``gelu_new``, written in Python, keeps four s·i tensors; the exact GELU,
the C++ tanh GELU and ReLU keep one) and an explicit SDPA mask for padded batches.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.activation import (
    Attention,
    Device,
    Family,
    Inputs,
    Part,
    Recompute,
    _dims,
    _hf_layer,
    _hf_outside,
)
from gradacc_desktop.core.families import Architecture, ConfigReader, Head, Layout
from gradacc_desktop.core.families.common import (
    ACTIVATION_KEEPS,
    eager,
    uniform_layout,
)

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


def layout(arch: Architecture, inputs: Inputs) -> Layout:
    spec: Gpt2Spec = arch.spec
    dims = _dims(inputs)
    p = inputs.dtype.bytes
    parts = _hf_layer(inputs, dims)
    parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS[spec.activation] * p * dims.s * dims.i
    cpu_math = inputs.dropout and inputs.device is Device.CPU
    if inputs.padded and inputs.attention is Attention.SDPA and not cpu_math:
        parts[Part.ATTN_MASK] = p * dims.s * dims.s
    outside = _hf_outside(inputs, dims)
    if inputs.padded and inputs.recompute is Recompute.FULL and not eager(inputs):
        # GPT2Block gets the boolean padding mask positionally: the checkpoint keeps it
        outside[Part.SHARED_MASK] = dims.s * dims.s
    return uniform_layout(arch, inputs, parts, outside)
