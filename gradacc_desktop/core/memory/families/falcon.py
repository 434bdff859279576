"""Falcon (``modeling_falcon.py`` and ``configuration_falcon.py`` of ``transformers`` 5.x).

Three attention layouts share one fused ``query_key_value`` projection (``FalconLinear``:
``x @ W.T`` keeps its input) whose output is split by ``_split_heads``:

* multi-head (``multi_query`` false): Q, K and V are views of the fused output (3h);
* multi-query (``multi_query`` true, Falcon-7B): Q is a view, K and V are the last two
  heads picked with an index (a copy of one head each; the int64 index is kept too);
* ``new_decoder_architecture`` (Falcon-40B/180B/11B): ``num_kv_heads`` groups; K and V
  are indexed out of each group and broadcast to every query head, then flattened
  (copies of a heads each).

Positions are rotary (cos and sin computed once, kept by every layer; the rotated Q and
K are new tensors) or ALiBi (``alibi``: the bias is folded into one additive float mask
of a·s² per model that SDPA keeps, shared by every layer; eager attention adds it).

``create_causal_mask`` is called with ``allow_is_causal_skip=False``: SDPA always gets
an explicit mask, padded batch or not. With K/V heads equal to the query heads (multi-
head and the new architecture) the CPU flash kernel runs and keeps its own copy of the
boolean mask in the dtype (p·s² per layer); multi-query K/V (one head, no
``enable_gqa``) send SDPA to its math path, which computes in fp32: scaled Q, K and V
in fp32, the fp32 softmax output (4·a·s²). Rotary layers never drop attention
probabilities (SDPA gets ``dropout_p=0.0``; eager attention skips its dropout); ALiBi
layers do, and on CPU SDPA with dropout is the fp32 math path.

What one layer keeps:

* LayerNorm input and mean/rstd (``input_layernorm``; the new architecture's
  ``ln_attn`` and ``ln_mlp`` read the same input, so ``ln_mlp`` adds only its
  statistics; ``parallel_attn`` false adds ``post_attention_layernorm`` on a new input);
* the fused projection's input (the norm output, shared by the MLP when one norm
  feeds both);
* Q, K and V as above (eager: the product QKᵀ keeps Q and K, the product with V keeps
  V), the softmax output in the dtype (eager), SDPA's fp32 log-sum-exp (fused kernel);
* the attention output (``dense`` input); the MLP input (``ln_mlp`` / post-norm
  output), the activation's input (``dense_h_to_4h`` output; exact GELU keeps it) and
  output (``dense_4h_to_h`` input);
* with dropout, the noise/mask of ``dropout_add`` after the MLP (and after attention
  when ``parallel_attn`` is false), and the ALiBi attention-probability dropout.

Once per model: the int64 token ids, cos/sin (rotary), the ALiBi mask (SDPA's fused
kernel), ``ln_f``, the LM-head input and the loss. Full recomputation keeps each
layer's input only (the mask and cos/sin are passed by keyword and recomputed).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from gradacc_desktop.core.memory.activation_types import Attention, Device, Family, Inputs, Part
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    causal_lm_loss,
    dropout_mask,
    layer_norm,
    uniform_layout,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("falcon", "RefinedWebModel", "RefinedWeb")

#: the first Falcon checkpoints' remote code (``configuration_RW.py``): the same model
#: under another ``model_type`` and older key names, which ``transformers``' Falcon was
#: ported from. ``RefinedWeb`` (Falcon-40B) is the new decoder architecture.
_LEGACY_KEYS = {"n_head": "num_attention_heads", "n_layer": "num_hidden_layers",
                "n_head_kv": "num_kv_heads", "n_embed": "hidden_size"}  # fmt: skip

# index tensors ``[-2]`` and ``[-1]`` picking K and V out of the fused output (int64)
_KV_INDEX_BYTES = 2 * 8


class Norms(enum.Enum):
    """Which layer norms a Falcon layer has."""

    #: ``parallel_attn``: one ``input_layernorm`` feeds attention and MLP
    SHARED = "shared"
    #: new architecture, ``num_ln_in_parallel_attn`` 2: ``ln_attn`` and ``ln_mlp``
    TWO = "two"
    #: ``parallel_attn`` false: ``input_layernorm``, then ``post_attention_layernorm``
    SEQUENTIAL = "sequential"


@dataclass(frozen=True)
class FalconSpec:
    new_architecture: bool
    #: one K/V head (``multi_query`` outside the new architecture)
    multi_query: bool
    norms: Norms
    alibi: bool
    bias: bool
    tie_embeddings: bool
    activation: str
    #: the remote-code ``model_type`` the file named (read as ``falcon``), else ""
    legacy_type: str = ""


def _from_legacy(config: ConfigReader) -> ConfigReader:
    """A ``RefinedWebModel``/``RefinedWeb`` file as the ``falcon`` file ``transformers``'
    conversion writes: the old key names renamed, Falcon-40B's decoder made explicit."""
    raw = dict(config.raw)
    for old, new in _LEGACY_KEYS.items():
        if old in raw and new not in raw:
            raw[new] = raw.pop(old)
    if config.model_type == "RefinedWeb":
        raw.setdefault("new_decoder_architecture", True)
    raw["model_type"] = "falcon"
    return ConfigReader(raw, "falcon")


def parse(config: ConfigReader) -> Architecture:
    if config.model_type != "falcon":
        legacy = config.model_type
        arch = parse(_from_legacy(config))
        return replace(arch, spec=replace(arch.spec, legacy_type=legacy))
    for old_key, key in (("n_head", "num_attention_heads"), ("n_layer", "num_hidden_layers")):
        if config.has(old_key) and not config.has(key):
            raise config.unsupported(
                f"{old_key} is a key of the old RefinedWeb code, which transformers "
                f"ignores; name it {key}",
                old_key,
            )
    if config.has("n_head_kv") and not config.has("num_kv_heads"):
        raise config.unsupported(
            "n_head_kv is a key of the old RefinedWeb code; name it num_kv_heads", "n_head_kv"
        )
    # FalconConfig takes the old ``n_embed`` over ``hidden_size``
    if config.has("n_embed"):
        hidden = config.integer("n_embed")
    else:
        hidden = config.integer("hidden_size", 4544)
    heads = config.integer("num_attention_heads", 71)
    if hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    new = config.flag("new_decoder_architecture", False)
    multi_query = config.flag("multi_query", True)
    parallel = config.flag("parallel_attn", True)
    num_kv = config.integer("num_kv_heads", heads)
    if new:
        if heads % num_kv:
            raise config.unsupported(
                "num_attention_heads must divide by num_kv_heads", "num_kv_heads"
            )
        kv_heads = num_kv
    elif multi_query:
        kv_heads = 1
    else:
        if num_kv != heads:
            # transformers reshapes the split K/V to num_kv_heads heads and fails
            raise config.unsupported(
                "num_kv_heads must equal num_attention_heads without "
                "new_decoder_architecture or multi_query",
                "num_kv_heads",
            )
        kv_heads = heads
    ln_count = config.optional_int("num_ln_in_parallel_attn")
    if new:
        if not parallel:
            raise config.unsupported(
                "new_decoder_architecture needs parallel_attn (transformers fails without it)",
                "parallel_attn",
            )
        ln_count = 2 if ln_count is None else ln_count
        if ln_count not in (1, 2):
            raise config.unsupported(
                "num_ln_in_parallel_attn must be 1 or 2", "num_ln_in_parallel_attn"
            )
        norms = Norms.TWO if ln_count == 2 else Norms.SHARED
    elif parallel:
        if ln_count == 2:
            raise config.unsupported(
                "num_ln_in_parallel_attn 2 needs new_decoder_architecture "
                "(transformers fails without it)",
                "num_ln_in_parallel_attn",
            )
        norms = Norms.SHARED
    else:
        norms = Norms.SEQUENTIAL
    activation = config.text("activation", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(f"activation {activation!r} is not modelled", "activation")
    spec = FalconSpec(
        new_architecture=new,
        multi_query=not new and multi_query,
        norms=norms,
        alibi=config.flag("alibi", False),
        bias=config.flag("bias", False),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        activation=activation,
    )
    return Architecture(
        model_type="falcon",
        family=Family.FALCON,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", 32),
        heads=heads,
        kv_heads=kv_heads,
        head_dim=hidden // heads,
        intermediate=config.integer("ffn_hidden_size", 4 * hidden),
        vocab=config.integer("vocab_size", 65024),
        max_positions=config.integer("max_position_embeddings", 2048),
        spec=spec,
    )


def _fused_width(arch: Architecture) -> int:
    """Output features of ``query_key_value``: a query heads and k key and value heads."""
    return (arch.heads + 2 * arch.kv_heads) * arch.head_dim


def parameters(arch: Architecture) -> int:
    spec: FalconSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    norms = 1 if spec.norms is Norms.SHARED else 2
    layer = (
        linear(h, _fused_width(arch), spec.bias)
        + linear(h, h, spec.bias)  # dense
        + linear(h, i, spec.bias)  # dense_h_to_4h
        + linear(i, h, spec.bias)  # dense_4h_to_h
        + norms * 2 * h  # LayerNorm weight and bias
    )
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + 2 * h + head


def _math_path(arch: Architecture, inputs: Inputs) -> bool:
    """SDPA falls back to its fp32 math path: one K/V head without ``enable_gqa`` (any
    device), or ALiBi attention dropout on CPU."""
    spec: FalconSpec = arch.spec
    if inputs.attention is not Attention.SDPA:
        return False
    if spec.multi_query:
        return True
    return spec.alibi and inputs.dropout and inputs.device is Device.CPU


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """One Falcon decoder layer without recomputation (b = 1)."""
    spec: FalconSpec = arch.spec
    p = inputs.dtype.bytes
    s, h, a, d, i = inputs.seq, arch.hidden, arch.heads, arch.head_dim, arch.intermediate
    cuda = inputs.device is Device.CUDA
    eager = inputs.attention is Attention.EAGER
    math = _math_path(arch, inputs)
    fused = p * s * _fused_width(arch)
    one_head = p * s * d
    all_heads = p * s * a * d

    parts: dict[Part, int] = {
        Part.ATTN_NORM: layer_norm(inputs, s, h),
        Part.QKV_PROJ_INPUT: p * s * h,
    }
    if spec.multi_query or spec.new_architecture:
        parts[Part.OTHER_LAYER] = _KV_INDEX_BYTES
    # the storages behind Q, K and V (what eager attention and SDPA's kernel keep)
    # K and V indexed out of the fused output: one head each for multi-query and for
    # the new layout with one group (which broadcasts that head without copying it)
    single_kv = spec.multi_query or (spec.new_architecture and arch.kv_heads == 1)
    kv = one_head if single_kv else all_heads
    multi_head = not (spec.multi_query or spec.new_architecture)
    # V: a view of the fused output (multi-head) or an indexed copy
    value = fused if multi_head else kv
    if spec.alibi:
        if multi_head:
            qkv = fused  # Q, K and V are views of the fused output
        elif spec.multi_query or arch.kv_heads in (1, a):
            qkv = fused + 2 * kv  # Q is a view of the fused output, K and V copies
        else:
            # the new layout flattens (groups, heads per group) of a strided view: Q
            # is copied unless one of the two is 1
            qkv = all_heads + 2 * kv
    else:
        # rotated Q and K are new tensors (K broadcast to every head in the new layout)
        qkv = all_heads + (all_heads if spec.new_architecture else kv) + value
    attention_dropout = spec.alibi and inputs.dropout
    if math:
        # fp32 math path: scaled Q and K (new tensors) and V (K/V heads as given: one
        # for multi-query); V cast to fp32 is a new tensor, an fp32 model's V is kept
        # as it is (a view of the fused output, or one broadcast head)
        k_heads = 1 if spec.multi_query else a
        fp32_value = value if p == 4 else 4 * s * k_heads * d
        parts[Part.ATTN_QKV] = 4 * s * a * d + 4 * s * k_heads * d + fp32_value
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        if attention_dropout:
            # CUDA native_dropout: bool mask; CPU: fp32 noise; the fp32 output is kept
            parts[Part.ATTN_DROPOUT] = (1 if cuda else 4) * a * s * s + 4 * a * s * s
    else:
        parts[Part.ATTN_QKV] = qkv
        if eager:
            # softmax(..., dtype=dtype) output, kept by its backward and by the product
            # with V (unless dropout comes between: then the dropout output is kept too)
            parts[Part.ATTN_SOFTMAX] = p * a * s * s
            if attention_dropout:
                parts[Part.ATTN_DROPOUT] = (1 if cuda else p) * a * s * s + p * a * s * s
        else:
            parts[Part.ATTN_FUSED] = 4 * a * s  # log-sum-exp
            if not spec.alibi:
                # the boolean causal mask copied into the dtype by the kernel, per layer
                parts[Part.ATTN_MASK] = p * s * s
    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * h
    if spec.norms is Norms.TWO:
        # ln_mlp reads the layer input ln_attn already keeps: only mean and rstd
        parts[Part.MLP_NORM] = layer_norm(inputs, s, h) - p * s * h
        parts[Part.MLP_IN_PROJ_INPUT] = p * s * h
    elif spec.norms is Norms.SEQUENTIAL:
        parts[Part.MLP_NORM] = layer_norm(inputs, s, h)
        parts[Part.MLP_IN_PROJ_INPUT] = p * s * h
    parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS[spec.activation] * p * s * i
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    if inputs.dropout:
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        if spec.norms is Norms.SEQUENTIAL:
            parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: FalconSpec = arch.spec
    p = inputs.dtype.bytes
    s, h = inputs.seq, arch.hidden
    full = inputs.recompute is Recompute.FULL
    outside: dict[Part, int] = {Part.EMBEDDINGS: 8 * s}  # int64 token ids
    if not full and not spec.alibi:
        outside[Part.ROTARY] = 2 * p * s * arch.head_dim  # cos and sin
    if (
        not full
        and spec.alibi
        and inputs.attention is Attention.SDPA
        and not _math_path(arch, inputs)
    ):
        # the ALiBi bias folded into one float mask (a heads), the same in every layer
        outside[Part.SHARED_POSITION_BIAS] = p * arch.heads * s * s
    outside[Part.FINAL_NORM] = layer_norm(inputs, s, h)
    outside[Part.LM_HEAD_INPUT] = p * s * h
    outside[Part.LOSS] = causal_lm_loss(s, arch.vocab)
    return uniform_layout(
        arch, inputs, layer_parts(arch, inputs), outside, notes=_notes(arch, inputs)
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: FalconSpec = arch.spec
    notes = []
    if spec.legacy_type:
        notes.append(
            trans_late(
                "Activation",
                "The file names the first Falcon remote code (RefinedWebModel / "
                "RefinedWeb); it is read as transformers' Falcon, the same model.",
            )
        )
    notes += [
        trans_late(
            "Activation",
            "Falcon splits one fused query_key_value output into Q, K and V; a view of "
            "it keeps the whole fused output alive.",
        ),
        trans_late(
            "Activation",
            "LayerNorm keeps its input plus the mean and rstd of every token.",
        ),
    ]
    if inputs.attention is Attention.SDPA:
        if spec.multi_query:
            notes.append(
                trans_late(
                    "Activation",
                    "Multi-query attention: SDPA gets one K/V head without enable_gqa and "
                    "runs its math path in fp32 (scaled Q, K, V and the softmax output).",
                )
            )
        elif not spec.alibi:
            notes.append(
                trans_late(
                    "Activation",
                    "Falcon always passes SDPA an explicit causal mask; the kernel keeps a "
                    "copy of it in every layer.",
                )
            )
    if spec.alibi:
        notes.append(
            trans_late(
                "Activation",
                "ALiBi: the position bias is folded into one mask of heads × s² that "
                "SDPA keeps once for every layer.",
            )
        )
    if inputs.dropout:
        notes.append(
            trans_late(
                "Activation",
                "With dropout, every dropout of the model is taken as active; rotary "
                "Falcon layers never drop attention probabilities.",
            )
        )
    return tuple(notes)
