"""gpt-oss (OpenAI's gpt-oss-20b and gpt-oss-120b): ``modeling_gpt_oss.py``,
``configuration_gpt_oss.py``, ``integrations/moe.py`` and ``integrations/mxfp4.py`` of
``transformers`` 5.24.

Every layer is a mixture of experts behind an attention with learned sinks:

Norms. ``GptOssRMSNorm`` multiplies by its weight *in fp32* before casting back (Llama
casts first): ``x.to(fp32)`` (kept by ``pow`` and ``mul``, 4·s·h), the fp32 rsqrt per
token (4·s) and the fp32 normalised tensor (kept by ``weight * x``, 4·s·h): 8·s·h + 4·s
whatever the dtype. ``_keep_in_fp32_modules`` keeps the norm weights in fp32 when a
checkpoint is loaded in bf16; the product is fp32 either way, so the bytes are the same.

Attention (grouped-query, q/k/v/o biases, ``head_dim`` 64 by default whatever hidden /
heads). Rotary: ``_apply_rotary_emb`` multiplies the two halves of Q and K by cos and sin
of width d/2 (YaRN or another rope type changes their values, not their size): the
products keep cos and sin only (once per model, p·s·d together), the concatenation makes
rotated Q (p·s·a·d) and K new tensors. Eager attention (transformers 5.24 has
``_supports_sdpa = False`` for gpt-oss: it refuses SDPA, so the estimate is eager whatever
attention is chosen): ``repeat_kv`` copies K and V to every head when 1 < k < a; ``QKᵀ``
keeps Q and the repeated K; the per-head sink logit is concatenated as an extra column
(``cat`` keeps nothing); the stabilising ``max`` keeps its int64 indices (8·a·s); the
softmax runs *in the dtype* over s + 1 columns and keeps its output (p·a·s·(s+1)); the
sink column is sliced off (a view: the product with V keeps the softmax's storage) and
the product keeps the repeated V. With dropout, the dropout mask and output (a·s² each,
the mask 1 byte on CUDA, p on a CPU). The output, transposed and made contiguous, is the
output projection's input (p·s·a·d). Sliding-window and full layers differ only in the
additive mask (not kept): every layer keeps the same bytes.

Router (``GptOssTopKRouter``, with a bias), s tokens, E experts, top-k k, S = k·s routed
pairs: ``F.linear`` keeps its input (the post-attention norm output, p·s·h); ``topk`` on
the logits keeps its int64 indices (8·S); the softmax over the k selected logits (in the
dtype) keeps its output (p·S).

Experts (``grouped_mm_experts_forward``, the default ``experts_implementation`` on CPU
with torch >= 2.9 and on CUDA sm80+; ``has_bias``, weights stored transposed): as in
``moe.py``, the token gather ``hidden[perm // k]`` keeps its int64 index (8·S), the
weight gather ``weights[perm]`` the permutation (8·S), ``grouped_mm`` the gathered tokens
(p·S·h) and the int32 offsets (4·E), the weighting multiply the down output (p·S·h) and
the sorted weights (p·S, the dtype), undoing the sort the inverse permutation (8·S); and
the gathers of the per-expert biases ``gate_up_proj_bias[ids]`` and ``down_proj_bias[ids]``
keep the sorted expert ids (int64, 8·S, one storage for both). The clamped SwiGLU
(``_apply_gate``: gate and up are the even and odd columns of the gate/up output;
``gate.clamp(max=limit)``, ``up.clamp(-limit, limit)``, ``glu = gate·sigmoid(alpha·gate)``,
``(up + 1)·glu``) keeps: the gate/up output (p·S·2m, kept by both clamps), the clamped
gate, the sigmoid output, ``up + 1`` and ``glu`` (p·S·m each); the down ``grouped_mm``
keeps the product (p·S·m): 7·p·S·m in all. Nothing depends on which experts the tokens go
to (every tensor has S rows).

With ``output_router_logits`` the load-balancing loss is Mixtral's (``moe.py``): a softmax
of every layer's router logits in the dtype (p·s·E per layer), the fp32 token counts
(4·E), and with a padded batch the fp32 mask (4·s) and the masked row count (4).

MXFP4. The published checkpoints store the experts' weights as MXFP4 blocks and scales;
transformers cannot train them (the quantizer says so) and dequantizes them to bf16 for
training (``Mxfp4Config(dequantize=True)``): the model measured and estimated here is the
bf16 one transformers builds from the file. With the MXFP4 Triton kernels
(``Mxfp4GptOssExperts``: frozen uint8 weights, ``matmul_ogs`` with a fused SwiGLU) the
experts run without autograd's saved tensors of the grouped path; that path is not
measured (it needs CUDA and the kernels hub) and not modelled. Neither are flash
attention 3 / flex attention with sinks (CUDA only), which would not keep the s² softmax.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    single_stack,
)
from gradacc_desktop.core.memory.families.common import (
    causal_lm_loss,
    logits_transient,
    repeated_kv_heads,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("gpt_oss",)

# GptOssConfig (transformers 5.24) defaults for keys a file may omit
_DEFAULTS: dict[str, int] = {
    "vocab_size": 201088,
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "max_position_embeddings": 131072,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "sliding_window": 128,
}
_LAYER_TYPES = ("sliding_attention", "full_attention")


@dataclass(frozen=True)
class GptOssSpec:
    experts: int
    top_k: int
    #: intermediate size of one expert (``intermediate_size``)
    expert_intermediate: int
    #: q/k/v/o biases (``attention_bias``)
    attention_bias: bool
    tie_embeddings: bool
    sliding_window: int
    #: per layer, in order: True where the layer attends within the sliding window
    sliding: tuple[bool, ...]
    #: ``rope_type`` of the rotary embedding (``yarn`` in the published files)
    rope_type: str
    #: YaRN's context extension factor (None: not YaRN)
    rope_factor: float | None
    swiglu_alpha: float
    swiglu_limit: float
    #: the load-balancing loss is part of the training loss (``output_router_logits``)
    aux_loss: bool
    #: the file names a ``quantization_config`` (the published MXFP4 checkpoints)
    quant_method: str

    @property
    def sparse_layers(self) -> int:
        return len(self.sliding)

    @property
    def sliding_layers(self) -> int:
        return sum(self.sliding)


def _one_expert(arch: Architecture) -> int:
    """Parameters of one expert: gate/up (h × 2m), down (m × h) and their biases."""
    spec: GptOssSpec = arch.spec
    h, m = arch.hidden, spec.expert_intermediate
    return h * 2 * m + 2 * m + m * h + h


def _not_null(config: ConfigReader, key: str) -> None:
    if key in config.raw and config.raw[key] is None:
        # GptOssConfig's strict fields refuse a null here
        raise config.unsupported(
            trans_late("ModelConfig", "{key} must be a number, not null").format(key=key), key
        )


def _rope(config: ConfigReader) -> tuple[str, float | None]:
    """(rope type, YaRN factor); refuses a partial rotary embedding, which
    ``_apply_rotary_emb`` cannot apply (it rotates both halves of every head)."""
    table: Mapping[str, Any] | None = None
    for key in ("rope_parameters", "rope_scaling"):
        value = config.raw.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise config.unsupported(
                trans_late("ModelConfig", "{key} must be an object").format(key=key), key
            )
        table = value
        break
    partial = [config.raw.get("partial_rotary_factor")]
    if table is not None:
        partial.append(table.get("partial_rotary_factor"))
    if any(p is not None and p != 1 for p in partial):
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "a partial rotary embedding (partial_rotary_factor) cannot run in gpt-oss",
            ).format(),
            "partial_rotary_factor",
        )
    if table is None:
        return "yarn", 32.0  # GptOssConfig's default rope_parameters
    rope_type = table.get("rope_type", table.get("type", "default"))
    factor = table.get("factor")
    return (
        str(rope_type),
        float(factor) if rope_type == "yarn" and isinstance(factor, int | float) else None,
    )


def _quant_method(config: ConfigReader) -> str:
    value = config.raw.get("quantization_config")
    if isinstance(value, Mapping):
        method = value.get("quant_method")
        return method if isinstance(method, str) else "unknown"
    return ""


def parse(config: ConfigReader) -> Architecture:
    d = _DEFAULTS
    for key in ("head_dim", "num_key_value_heads", "sliding_window"):
        _not_null(config, key)
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    kv_heads = config.integer("num_key_value_heads", d["num_key_value_heads"])
    # GptOssConfig defaults head_dim to 64, not hidden / heads
    head_dim = config.integer("head_dim", d["head_dim"])
    if heads % kv_heads:
        raise config.unsupported(
            trans_late(
                "ModelConfig", "num_attention_heads must divide by num_key_value_heads"
            ).format(),
            "num_key_value_heads",
        )
    # ``num_experts`` is an alias GptOssConfig maps onto num_local_experts; it wins
    experts = config.first_int(("num_experts", "num_local_experts"), d["num_local_experts"])
    top_k = config.integer("num_experts_per_tok", d["num_experts_per_tok"])
    if top_k > experts:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "num_experts_per_tok ({top_k}) must be at most the number of experts ({experts})",
            ).format(top_k=top_k, experts=experts),
            "num_experts_per_tok",
        )
    types = config.str_list("layer_types")
    if types is None:
        # GptOssConfig: sliding on the 1st, 3rd, ... layer, full attention on the others
        types = tuple(_LAYER_TYPES[i % 2] for i in range(layers))
    if len(types) != layers:
        raise config.unsupported(
            trans_late("ModelConfig", "layer_types must name every layer").format(),
            "layer_types",
        )
    unknown = sorted(set(types) - set(_LAYER_TYPES))
    if unknown:
        raise config.unsupported(
            trans_late("ModelConfig", "layer_types {types} are not modelled for gpt-oss").format(
                types=", ".join(unknown)
            ),
            "layer_types",
        )
    rope_type, rope_factor = _rope(config)
    alpha = config.number("swiglu_alpha", 1.702)
    limit = config.number("swiglu_limit", 7.0)
    spec = GptOssSpec(
        experts=experts,
        top_k=top_k,
        expert_intermediate=config.integer("intermediate_size", d["intermediate_size"]),
        attention_bias=config.flag("attention_bias", True),
        tie_embeddings=config.flag("tie_word_embeddings", False),
        sliding_window=config.integer("sliding_window", d["sliding_window"]),
        sliding=tuple(t == "sliding_attention" for t in types),
        rope_type=rope_type,
        rope_factor=rope_factor,
        swiglu_alpha=1.702 if alpha is None else alpha,
        swiglu_limit=7.0 if limit is None else limit,
        aux_loss=config.flag("output_router_logits", False),
        quant_method=_quant_method(config),
    )
    return Architecture(
        model_type=config.model_type,
        family=Family.GPT_OSS,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=spec.expert_intermediate,
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=config.integer("max_position_embeddings", d["max_position_embeddings"]),
        spec=spec,
    )


# --------------------------------------------------------------------------- parameters


def _attention_parameters(arch: Architecture) -> int:
    """q, k, v, o projections (biases with ``attention_bias``) and one sink per head."""
    spec: GptOssSpec = arch.spec
    h, a, k, d = arch.hidden, arch.heads, arch.kv_heads, arch.head_dim
    bias = spec.attention_bias
    return linear(h, a * d, bias) + 2 * linear(h, k * d, bias) + linear(a * d, h, bias) + a


def parameters(arch: Architecture) -> int:
    spec: GptOssSpec = arch.spec
    h, v, e = arch.hidden, arch.vocab, spec.experts
    router = linear(h, e, True)
    layer = _attention_parameters(arch) + 2 * h + router + e * _one_expert(arch)
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + h + head


def idle_parameters(arch: Architecture) -> int:
    """The routed experts a token is not sent to: E − k experts in every layer."""
    spec: GptOssSpec = arch.spec
    return arch.layers * (spec.experts - spec.top_k) * _one_expert(arch)


def routed_experts(arch: Architecture) -> tuple[int, int, int, int]:
    """For ``core.memory.models.ExpertFacts``: (experts, top-k, layers with experts, parameters of
    one layer's ``GptOssExperts`` module: every expert's weights and biases)."""
    spec: GptOssSpec = arch.spec
    return spec.experts, spec.top_k, arch.layers, spec.experts * _one_expert(arch)


# --------------------------------------------------------------------------- activations


def _norm(s: int, h: int) -> int:
    """``GptOssRMSNorm``: fp32 input, fp32 rsqrt per token, fp32 normalised tensor."""
    return 4 * s * h + 4 * s + 4 * s * h


def _layer(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: GptOssSpec = arch.spec
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, k, d = dims.s, dims.h, dims.a, dims.k, dims.d
    e, m = spec.experts, spec.expert_intermediate
    pairs = spec.top_k * s  # S: (token, expert) pairs
    parts: dict[Part, int] = {
        Part.ATTN_NORM: _norm(s, h),
        Part.QKV_PROJ_INPUT: p * s * h,
        # rotated Q, K and V repeated to every head (a copy when 1 < k < a)
        Part.ATTN_QKV: p * s * (a + 2 * repeated_kv_heads(a, k)) * d,
        # softmax over s keys and the sink, in the dtype; int64 indices of the row max
        Part.ATTN_SOFTMAX: p * a * s * (s + 1) + 8 * a * s,
        Part.ATTN_OUT_PROJ_INPUT: p * s * a * d,
        Part.MLP_NORM: _norm(s, h),
        # router input (the norm output), int64 top-k indices, softmax of the top-k logits
        Part.ROUTER: p * s * h + 8 * pairs + p * pairs,
        Part.EXPERT_DISPATCH: (
            8 * pairs  # int64 token index of the gather hidden[perm // k]
            + 8 * pairs  # int64 permutation of the weight gather weights[perm]
            + 8 * pairs  # int64 sorted expert ids of the two bias gathers
            + 4 * e  # int32 offsets of grouped_mm
            + p * pairs * h  # gathered tokens (the gate/up grouped_mm input)
            + p * pairs  # sorted routing weights (kept by the weighting multiply)
            + 8 * pairs  # int64 inverse permutation (undoing the sort)
        ),
        # gate/up output (2m), clamped gate, sigmoid, up + 1, glu, product (m each); the
        # down output kept by the weighting multiply
        Part.EXPERT_MLP: 7 * p * pairs * m + p * pairs * h,
    }
    if inputs.dropout:
        mask = 1 if inputs.device is Device.CUDA else p
        parts[Part.ATTN_DROPOUT] = mask * a * s * s + p * a * s * s
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h = dims.s, dims.h
    outside: dict[Part, int] = {Part.EMBEDDINGS: 8 * s}  # int64 token ids
    if inputs.recompute is not Recompute.FULL:
        # cos and sin (s × d/2 each), kept by every layer's rotary products
        outside[Part.ROTARY] = p * s * arch.head_dim
    outside[Part.FINAL_NORM] = _norm(s, h)
    outside[Part.LM_HEAD_INPUT] = p * s * h
    outside[Part.LOSS] = causal_lm_loss(s, dims.v)
    aux = _aux_loss(arch, inputs)
    if aux:
        outside[Part.AUX_LOSS] = aux
    return ActivationLayout(
        stacks=single_stack(arch.layers, _layer(arch, inputs), {Part.LAYER_CHECKPOINT: p * s * h}),
        outside=outside,
        logits=logits_transient(inputs, s, dims.v),
        notes=_notes(arch, inputs),
    )


def _aux_loss(arch: Architecture, inputs: Inputs) -> int:
    """``load_balancing_loss_func`` over every layer's router logits (as Mixtral's)."""
    spec: GptOssSpec = arch.spec
    if not spec.aux_loss:
        return 0
    p, s, e = inputs.dtype.bytes, inputs.seq, spec.experts
    # per layer the softmax in the dtype (its top-k indices die before the backward
    # pass); the fp32 token counts per expert kept by the final product
    total = arch.layers * p * s * e + 4 * e
    if inputs.padded:
        total += 4 * s + 4  # fp32 flattened mask, masked row count
    return total


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: GptOssSpec = arch.spec
    notes: list[str] = []
    if inputs.attention is not Attention.EAGER:
        notes.append(
            trans_late(
                "Activation",
                "gpt-oss runs eager attention only in transformers (SDPA cannot add the "
                "attention sinks): estimated as eager. Flash attention 3 or flex attention "
                "with sinks (CUDA only) would not keep the s² softmax: not modelled.",
            )
        )
    notes.append(
        trans_late(
            "Activation",
            "Attention sinks: one learned logit per head joins the softmax, which runs in "
            "the model's data type over s + 1 columns; sliding-window and full layers keep "
            "the same tensors.",
        )
    )
    notes.append(
        trans_late(
            "Activation",
            "Experts run as grouped matrix products (transformers' default grouped_mm) "
            "with biases; the clamped SwiGLU keeps seven tensors of k·s × "
            "intermediate_size; the bytes do not depend on the routing.",
        )
    )
    notes.append(
        trans_late(
            "Activation",
            "GptOssRMSNorm multiplies by its weight in fp32: each norm keeps two fp32 "
            "copies of its input.",
        )
    )
    if spec.quant_method == "mxfp4":
        notes.append(
            trans_late(
                "Activation",
                "The published checkpoint stores the experts in MXFP4; transformers trains "
                "the dequantized bf16 model, which is what is estimated (MXFP4 kernels are "
                "not modelled).",
            )
        )
    elif spec.quant_method:
        notes.append(
            trans_late(
                "Activation",
                "The file names a quantization_config ({method}): estimated for the "
                "unquantized model in the chosen data type.",
            ).format(method=spec.quant_method)
        )
    if spec.aux_loss:
        notes.append(
            trans_late(
                "Activation",
                "output_router_logits: the load-balancing loss keeps a softmax of every "
                "layer's router logits.",
            )
        )
    return tuple(notes)
