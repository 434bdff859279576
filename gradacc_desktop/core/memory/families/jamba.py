"""Jamba: Mamba layers, attention layers and mixture-of-experts MLPs
(``modeling_jamba.py`` of ``transformers`` 5.24).

Layer i is an attention layer when i % ``attn_layer_period`` == ``attn_layer_offset``,
a Mamba layer otherwise; its MLP is a mixture of experts when
i % ``expert_layer_period`` == ``expert_layer_offset`` (and ``num_experts`` > 1), a
SwiGLU MLP of ``intermediate_size`` otherwise. Every layer is pre-norm (two fp32
RMSNorms) with the residual in the model's dtype.

* Attention layers are Llama's (``llama.layer_parts``) without positions: no rotary
  embedding (SDPA and eager keep the q/k/v projection outputs as they are), grouped-query
  attention, an explicit SDPA mask (and K/V repeated to every head) with a padded batch.
* Mamba layers run the Mamba mixer of ``mamba.py`` (``mamba_d_state``, ``mamba_d_conv``,
  ``mamba_expand``, ``mamba_dt_rank``, ``mamba_conv_bias``, ``mamba_proj_bias``) with
  RMSNorms *with weights* on dt, B and C. Without the mamba-ssm and causal-conv1d kernels
  transformers runs the PyTorch scan (estimated here and measured on a CPU): it keeps
  about (12 + p)·s·d_inner·N bytes per layer, the activation grows with sequence ×
  d_inner × state size. A padded batch multiplies the mixers' inputs by the int64 mask
  (kept once).
* Mixture-of-experts MLPs: the router (softmax in fp32, top-k, no renormalisation,
  weights cast to the dtype) and the experts as ``moe.py`` counts them (transformers'
  default ``grouped_mm``: the bytes do not depend on the routing); the load-balancing
  loss with ``output_router_logits``.

With the kernels (CUDA) the Jamba mixer calls ``causal_conv1d_fn`` and
``selective_scan_fn`` separately (not the fused ``mamba_inner_fn``): the convolution
keeps its input (the in_proj output), the scan keeps u, delta, contiguous copies of B,
C and z, A, D, the dt bias, an fp32 state every 2048 tokens and its output, and the
out_proj its input. That path is described, not estimated (nothing here runs the
kernels).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import Attention, Family, Inputs, Part, StackKind
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    Stack,
)
from gradacc_desktop.core.memory.families.common import (
    causal_lm_loss,
    logits_transient,
    rms_norm_fp32,
    sdpa_needs_mask,
)
from gradacc_desktop.core.memory.families.llama import attention_parameters, layer_parts
from gradacc_desktop.core.memory.families.mamba import (
    KERNEL_NOTE,
    PADDED_NOTE,
    SCAN_NOTE,
    WEIGHTED_NORM,
    Mixer,
    activation_of,
    dt_rank_of,
    mixer_bytes,
    mixer_parameters,
)
from gradacc_desktop.core.memory.families.moe import MoeSpec, aux_loss, sparse_mlp
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("jamba",)

# JambaConfig defaults (transformers 5.24)
_DEFAULTS: dict[str, int] = {
    "vocab_size": 65536,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 262144,
    "num_experts_per_tok": 2,
    "num_experts": 16,
    "expert_layer_period": 2,
    "expert_layer_offset": 1,
    "attn_layer_period": 8,
    "attn_layer_offset": 4,
    "mamba_d_state": 16,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
}

#: SDPA uses ``enable_gqa`` (K/V not repeated) only for heads of at most this size
_GQA_HEAD_LIMIT = 256


@dataclass(frozen=True, kw_only=True)
class JambaSpec(MoeSpec):
    """The experts as ``MoeSpec`` (``layer_kinds``: (sparse MLP, False) per layer, so the
    planner sees the routed experts) plus the hybrid's own layout."""

    mixer: Mixer
    #: per layer: an attention layer (True) or a Mamba layer (False)
    attention_layers: tuple[bool, ...]

    @property
    def attention_count(self) -> int:
        return sum(self.attention_layers)

    @property
    def mamba_count(self) -> int:
        return len(self.attention_layers) - self.attention_count


def _period(config: ConfigReader, period_key: str, offset_key: str) -> tuple[int, int]:
    period = config.integer(period_key, _DEFAULTS[period_key])
    offset = config.integer(offset_key, _DEFAULTS[offset_key], minimum=0)
    if offset >= period:
        raise config.unsupported(
            trans_late("ModelConfig", "{offset} must be smaller than {period}").format(
                offset=offset_key, period=period_key
            ),
            offset_key,
        )
    return period, offset


def parse(config: ConfigReader) -> Architecture:
    d = _DEFAULTS
    hidden = config.integer("hidden_size", d["hidden_size"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    # JambaConfig: 8 when absent; null means one per head
    null_kv = "num_key_value_heads" in config.raw
    kv_heads = config.integer("num_key_value_heads", heads if null_kv else d["num_key_value_heads"])
    if heads % kv_heads:
        raise config.unsupported(
            trans_late(
                "ModelConfig", "num_attention_heads must divide by num_key_value_heads"
            ).format(),
            "num_key_value_heads",
        )
    # JambaAttention reads an explicit head_dim when the file has one
    if not config.has("head_dim") and hidden % heads:
        raise config.unsupported(
            trans_late("ModelConfig", "hidden_size must divide by num_attention_heads").format(),
            "hidden_size",
        )
    head_dim = config.integer("head_dim", hidden // heads)
    if head_dim > _GQA_HEAD_LIMIT:
        raise config.unsupported(
            trans_late(
                "ModelConfig", "attention heads larger than {limit} are not modelled"
            ).format(limit=_GQA_HEAD_LIMIT),
            "head_dim",
        )
    activation = activation_of(config)
    intermediate = config.integer("intermediate_size", d["intermediate_size"])
    experts = config.first_int(("num_experts", "num_local_experts"), d["num_experts"])
    top_k = config.integer("num_experts_per_tok", d["num_experts_per_tok"])
    if experts > 1 and top_k > experts:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "num_experts_per_tok ({top_k}) must be at most the number of experts ({experts})",
            ).format(top_k=top_k, experts=experts),
            "num_experts_per_tok",
        )
    attn_period, attn_offset = _period(config, "attn_layer_period", "attn_layer_offset")
    expert_period, expert_offset = _period(config, "expert_layer_period", "expert_layer_offset")
    attention = tuple(i % attn_period == attn_offset for i in range(layers))
    # JambaConfig.layers_num_experts: num_experts on the expert layers, 1 elsewhere; a
    # layer has the sparse block only with more than one expert
    sparse = tuple(experts > 1 and i % expert_period == expert_offset for i in range(layers))
    mixer = Mixer(
        hidden=hidden,
        d_inner=config.integer("mamba_expand", d["mamba_expand"]) * hidden,
        state=config.integer("mamba_d_state", d["mamba_d_state"]),
        dt_rank=dt_rank_of(config, "mamba_dt_rank", hidden),
        conv_kernel=config.integer("mamba_d_conv", d["mamba_d_conv"]),
        proj_bias=config.flag("mamba_proj_bias", False),
        conv_bias=config.flag("mamba_conv_bias", True),
        activation=activation,
        bcdt_norm=WEIGHTED_NORM,
    )
    spec = JambaSpec(
        experts=experts,
        top_k=top_k,
        expert_intermediate=intermediate,
        shared_intermediate=0,
        norm_topk=False,
        fp32_routing_weights=False,
        qkv_bias=False,
        o_bias=False,
        qk_norm=False,
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        sliding_window=None,
        layer_kinds=tuple((s, False) for s in sparse),
        aux_loss=config.flag("output_router_logits", False) and any(sparse),
        jitter_noise=0.0,
        mixer=mixer,
        attention_layers=attention,
    )
    if len({s for a, s in zip(attention, sparse, strict=True) if a}) > 1:
        # the breakdown names attention layers by their mixer only
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "attention layers with and without experts (attn_layer_period and "
                "expert_layer_period) are not modelled",
            ).format(),
            "expert_layer_period",
        )
    return Architecture(
        model_type="jamba",
        family=Family.JAMBA,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=intermediate,
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=config.integer("max_position_embeddings", d["max_position_embeddings"]),
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    spec: JambaSpec = arch.spec
    h, i, v, e = arch.hidden, arch.intermediate, arch.vocab, spec.experts
    attention = attention_parameters(arch, qkv_bias=False, o_bias=False, qk_norm=False)
    total = spec.attention_count * attention + spec.mamba_count * mixer_parameters(spec.mixer)
    total += arch.layers * 2 * h  # input_layernorm, pre_ff_layernorm
    total += spec.dense_layers * 3 * h * i  # gate, up, down
    total += spec.sparse_layers * (e * h + e * 3 * h * i)  # router, gate_up and down experts
    head = 0 if spec.tie_embeddings else v * h
    return v * h + total + h + head


def idle_parameters(arch: Architecture) -> int:
    """The routed experts a token is not sent to (E - k of every sparse layer)."""
    spec: JambaSpec = arch.spec
    idle = max(spec.experts - spec.top_k, 0)
    return spec.sparse_layers * idle * 3 * arch.hidden * arch.intermediate


def routed_experts(arch: Architecture) -> tuple[int, int, int, int]:
    """(experts, top-k, layers with experts, parameters of one layer's ``JambaExperts``:
    gate_up and down of every expert; the router is its own module)."""
    spec: JambaSpec = arch.spec
    layer = spec.experts * 3 * arch.hidden * arch.intermediate
    return spec.experts, spec.top_k, spec.sparse_layers, layer


def lookup_parameters(arch: Architecture) -> int:
    """The input embedding is a lookup only when the LM head has its own weight."""
    spec: JambaSpec = arch.spec
    return 0 if spec.tie_embeddings else arch.vocab * arch.hidden


# --------------------------------------------------------------------------- activations


def _kinds(spec: JambaSpec) -> dict[tuple[bool, bool], StackKind]:
    """A breakdown heading for every kind of layer (attention or Mamba, sparse MLP or
    not): attention layers are the full-attention ones (all with the same MLP: ``parse``
    refuses the others), Mamba layers are named by their MLP (dense or experts)."""
    pairs = zip(spec.attention_layers, spec.layer_kinds, strict=True)
    kinds = {(attention, sparse) for attention, (sparse, _) in pairs}
    if len(kinds) == 1:
        return {kind: StackKind.LAYERS for kind in kinds}
    return {
        (attention, sparse): (
            StackKind.GLOBAL if attention else StackKind.SPARSE if sparse else StackKind.DENSE
        )
        for attention, sparse in kinds
    }


def _mamba_mixer(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """The Mamba half of a Mamba layer: its norm and mixer (OTHER_LAYER)."""
    spec: JambaSpec = arch.spec
    p, s, h = inputs.dtype.bytes, inputs.seq, arch.hidden
    mixer = mixer_bytes(spec.mixer, inputs).total
    # the input norm, the in_proj input (the norm output) and the mixer
    return {Part.OTHER_LAYER: rms_norm_fp32(p, s, h) + p * s * h + mixer}


def _mlp(arch: Architecture, inputs: Inputs, sparse: bool) -> dict[Part, int]:
    """The pre-MLP norm and the MLP (dense SwiGLU or routed experts)."""
    dense = layer_parts(inputs, masked=False, qk_norm=False, activation=arch.spec.activation)
    keys = (Part.MLP_NORM, Part.MLP_IN_PROJ_INPUT, Part.MLP_ACTIVATION, Part.MLP_OUT_PROJ_INPUT)
    parts = {key: dense[key] for key in keys}
    if sparse:
        # the router reads the norm output (counted in ROUTER)
        for key in keys[1:]:
            parts.pop(key)
        parts.update(sparse_mlp(arch, inputs))
    return parts


def _layer(arch: Architecture, inputs: Inputs, attention: bool, sparse: bool) -> dict[Part, int]:
    if attention:
        parts = layer_parts(
            inputs,
            masked=sdpa_needs_mask(inputs, inputs.seq, None),
            qk_norm=False,
            activation=arch.spec.activation,
        )
        for key in (Part.MLP_NORM, Part.MLP_IN_PROJ_INPUT, Part.MLP_ACTIVATION,
                    Part.MLP_OUT_PROJ_INPUT):  # fmt: skip
            parts.pop(key, None)
    else:
        parts = _mamba_mixer(arch, inputs)
    parts.update(_mlp(arch, inputs, sparse))
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    """The PyTorch path transformers runs without the mamba-ssm kernels (measured)."""
    spec: JambaSpec = arch.spec
    p, s, h, v = inputs.dtype.bytes, inputs.seq, arch.hidden, arch.vocab
    full = inputs.recompute is Recompute.FULL
    checkpoint = {Part.LAYER_CHECKPOINT: p * s * h}
    counts: dict[tuple[bool, bool], int] = {}
    for attention, (sparse, _) in zip(spec.attention_layers, spec.layer_kinds, strict=True):
        counts[(attention, sparse)] = counts.get((attention, sparse), 0) + 1
    names = _kinds(spec)
    stacks = tuple(
        Stack(names[kind], count, _layer(arch, inputs, *kind), checkpoint)
        for kind, count in sorted(counts.items(), reverse=True)
    )
    outside: dict[Part, int] = {Part.EMBEDDINGS: 8 * s}
    if inputs.padded and not full and spec.mamba_count:
        outside[Part.SHARED_MASK] = 8 * s  # the int64 mask every Mamba mixer multiplies by
    outside[Part.FINAL_NORM] = rms_norm_fp32(p, s, h)
    outside[Part.LM_HEAD_INPUT] = p * s * h
    outside[Part.LOSS] = causal_lm_loss(s, v)
    aux = aux_loss(arch, inputs)
    if aux:
        outside[Part.AUX_LOSS] = aux
    return ActivationLayout(
        stacks=stacks,
        outside=outside,
        logits=logits_transient(inputs, s, v),
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: JambaSpec = arch.spec
    notes: list[str] = [
        trans_late(
            "Activation",
            "Jamba: one attention layer every attn_layer_period layers (no positional "
            "embedding), Mamba layers elsewhere; mixture-of-experts MLPs every "
            "expert_layer_period layers. Per full-attention layer: the attention layers; "
            "per dense / mixture-of-experts layer: the Mamba layers, their norm and mixer "
            "listed as other tensors of the layer.",
        )
    ]
    if spec.mamba_count:
        notes += [
            SCAN_NOTE,
            KERNEL_NOTE,
            trans_late(
                "Activation",
                "Jamba's Mamba mixers normalise dt, B and C with fp32 RMSNorms that have weights.",
            ),
        ]
    if spec.sparse_layers:
        notes.append(
            trans_late(
                "Activation",
                "Experts run as grouped matrix products (transformers' default "
                "grouped_mm): every top-k copy of a token is gathered, so the bytes do not "
                "depend on how the router spreads the tokens.",
            )
        )
    if spec.aux_loss:
        notes.append(
            trans_late(
                "Activation",
                "output_router_logits: the load-balancing loss keeps a softmax of every "
                "sparse layer's router logits.",
            )
        )
    if inputs.padded and inputs.recompute is not Recompute.FULL and spec.mamba_count:
        notes.append(PADDED_NOTE)
    if (
        spec.attention_count
        and inputs.attention is Attention.SDPA
        and inputs.recompute is not Recompute.FULL
    ):
        notes.append(
            trans_late(
                "Activation",
                "With an explicit mask (padded batch or sliding window) SDPA keeps a "
                "copy of the mask in every layer and K and V repeated to every head.",
            )
        )
    return tuple(notes)
