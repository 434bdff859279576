"""Mixture-of-experts decoders: Mixtral, Qwen2-MoE (Qwen1.5-MoE, Qwen2-57B-A14B) and
Qwen3-MoE (``modeling_mixtral.py``, ``modeling_qwen2_moe.py``, ``modeling_qwen3_moe.py``,
``integrations/moe.py`` and ``masking_utils.py`` of ``transformers`` 5.24).

Attention and norms are the Llama-like layer of ``llama.py`` (fp32 RMSNorm, rotary,
grouped-query attention; Qwen2-MoE's q/k/v biases, Qwen3-MoE's q/k RMSNorm per head and
its explicit ``head_dim``; an explicit SDPA mask for padded batches and sliding windows
shorter than the sequence). The MLP of a sparse layer is a router and experts:

Router (``*TopKRouter``), s tokens, E experts, top-k k, S = k·s routed pairs:
    ``F.linear`` keeps its input (the post-attention norm output, p·s·h, shared with
    Qwen2-MoE's shared expert); ``softmax(logits, fp32)`` keeps its fp32 output
    (4·s·E); ``topk`` keeps the int64 indices (8·S). When the top-k weights are
    renormalised (Mixtral always, Qwen when ``norm_topk_prob``) the in-place division
    keeps the fp32 divisor (4·s) and the fp32 weights (4·S). Mixtral leaves the
    weights in fp32; Qwen casts them to the dtype (nothing kept).

Experts (``grouped_mm_experts_forward``: the default ``experts_implementation`` on CPU
with torch >= 2.9 and on CUDA sm80+): the routed pairs are sorted by expert; the token
gather ``hidden[perm // k]`` keeps its int64 index (8·S), the weight gather
``weights[perm]`` the permutation (8·S); ``grouped_mm`` keeps the gathered tokens
(p·S·h) and the int32 offsets (4·E); the gate/up product (p·S·2m, one storage: SiLU keeps
its gate half, the product keeps its up half), the SiLU output and the product
(p·S·m each); the down ``grouped_mm`` keeps the product (already counted); the routing
multiply keeps the down output (p·S·h) and the sorted weights (fp32 for Mixtral, the
dtype for Qwen: w·S); undoing the sort keeps the int64 inverse permutation (8·S). The
per-token sum and the cast back keep nothing. Nothing depends on which experts the
tokens go to: every tensor has S rows whatever the routing.

Qwen2-MoE's shared expert is a SwiGLU MLP of ``shared_expert_intermediate_size`` (as a
dense layer) whose output is multiplied by ``sigmoid(shared_expert_gate(x))``: the
sigmoid output (p·s) and the shared expert's output (p·s·h) are kept. Dense layers
(``mlp_only_layers``, ``decoder_sparse_step``) are Llama layers of
``intermediate_size``.

With ``output_router_logits`` the load-balancing loss runs once per model over every
sparse layer's router logits: a softmax in the dtype (p·s·E kept per layer), the fp32
token counts per expert, and with a padded batch the fp32 mask (4·s) and the masked row
count. Its ``topk`` keeps int64 indices that die with the discarded values before the
backward pass: not counted (``measure_saved`` sees them saved and counts them, 8·S per
layer, unless a later storage reuses their address).
It stays with full recomputation (it runs after the checkpointed layers, which keep
their input hidden states only). Mixtral's ``router_jitter_noise`` multiplies the router
input by a noise tensor in training (p·s·h kept per layer): counted when dropout is on,
since the measuring tool turns the noise off with dropout.

Not modelled: the other ``experts_implementation`` values a user may set. ``eager`` (a
Python loop over the experts hit) keeps about the same plus a few int64 indices per
routed pair (+5 % on tiny test shapes, far less at real widths) and depends slightly on
the routing; ``batched_mm`` gathers a copy of the expert weights for every routed pair
and keeps it (an order of magnitude more). On CUDA below sm80 ``grouped_mm`` falls back
to a custom operator that keeps the same input (its offsets as a plain attribute).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Family,
    Inputs,
    Part,
    StackKind,
    dims_of,
)
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    Stack,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    logits_transient,
    sdpa_needs_mask,
)
from gradacc_desktop.core.memory.families.llama import attention_parameters, hf_outside, layer_parts
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("mixtral", "qwen2_moe", "qwen3_moe")

# transformers 5.24 configuration defaults for keys a file may omit
_DEFAULTS: dict[str, dict[str, int]] = {
    "mixtral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
                "num_hidden_layers": 32, "num_attention_heads": 32,
                "num_key_value_heads": 8, "max_position_embeddings": 4096 * 32,
                "num_experts_per_tok": 2, "num_experts": 8},
    "qwen2_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
                  "num_hidden_layers": 24, "num_attention_heads": 16,
                  "num_key_value_heads": 16, "max_position_embeddings": 32768,
                  "num_experts_per_tok": 4, "num_experts": 60,
                  "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
                  "sliding_window": 4096, "max_window_layers": 28},
    "qwen3_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144,
                  "num_hidden_layers": 24, "num_attention_heads": 32,
                  "num_key_value_heads": 4, "max_position_embeddings": 32768,
                  "num_experts_per_tok": 8, "num_experts": 128,
                  "moe_intermediate_size": 768, "sliding_window": 4096},
}  # fmt: skip


@dataclass(frozen=True)
class MoeSpec:
    experts: int
    top_k: int
    #: intermediate size of one routed expert (Mixtral: ``intermediate_size``)
    expert_intermediate: int
    #: Qwen2-MoE's shared expert (0: none)
    shared_intermediate: int
    #: the top-k weights are divided by their sum (Mixtral always)
    norm_topk: bool
    #: the routing weights stay fp32 (Mixtral) instead of being cast to the dtype (Qwen)
    fp32_routing_weights: bool
    qkv_bias: bool
    o_bias: bool
    qk_norm: bool
    tie_embeddings: bool
    activation: str
    #: window of the sliding layers (None: every layer attends to the whole sequence)
    sliding_window: int | None
    #: per layer: (sparse MLP, sliding attention), in layer order
    layer_kinds: tuple[tuple[bool, bool], ...]
    #: the load-balancing loss is part of the training loss (``output_router_logits``)
    aux_loss: bool
    #: Mixtral's multiplicative router noise in training (0: none)
    jitter_noise: float

    @property
    def sparse_layers(self) -> int:
        return sum(sparse for sparse, _ in self.layer_kinds)

    @property
    def dense_layers(self) -> int:
        return len(self.layer_kinds) - self.sparse_layers

    @property
    def sliding_layers(self) -> int:
        return sum(sliding for _, sliding in self.layer_kinds)


def _bad(config: ConfigReader, key: str, what: str) -> ModelConfigError:
    return ModelConfigError(
        ConfigProblem.BAD_VALUE, f"{key} must be {what}, got {config.raw.get(key)!r}", key
    )


def _layer_list(config: ConfigReader, key: str) -> frozenset[int]:
    """A list of layer indices (``mlp_only_layers``); absent or null: none."""
    if not config.has(key):
        return frozenset()
    value = config.raw[key]
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    ):
        raise _bad(config, key, "a list of layer indices (whole numbers >= 0)")
    return frozenset(value)


def _experts(config: ConfigReader, default: int) -> int:
    """The number of routed experts: MixtralConfig calls it ``num_local_experts`` and
    maps ``num_experts`` onto it; Qwen3MoeConfig the other way round; Qwen2MoeConfig
    knows only ``num_experts``. Qwen's 0 means no sparse layer at all."""
    mt = config.model_type
    if mt == "mixtral":
        return config.first_int(("num_local_experts", "num_experts"), default)
    if mt == "qwen3_moe" and not config.has("num_experts"):
        return config.integer("num_local_experts", default, minimum=0)
    return config.integer("num_experts", default, minimum=0)


def _window(config: ConfigReader, default: int | None) -> int | None:
    """``sliding_window`` as the configuration class keeps it (absent: its default)."""
    if "sliding_window" not in config.raw:
        return default
    return config.optional_int("sliding_window")


def _attention_kinds(config: ConfigReader, layers: int) -> tuple[int | None, list[bool]]:
    """(window, which layers slide) the way each model builds its masks."""
    mt = config.model_type
    d = _DEFAULTS[mt]
    if mt == "mixtral":
        # MixtralModel: a sliding-window mask for every layer when the window is set
        window = _window(config, None)
        return window, [window is not None] * layers
    use = config.flag("use_sliding_window", False)
    if mt == "qwen3_moe":
        # Qwen3MoeConfig drops the window without use_sliding_window; every layer slides
        window = _window(config, d["sliding_window"]) if use else None
        return window, [window is not None] * layers
    # Qwen2MoeConfig: a window (0 without use_sliding_window) and per-layer layer_types
    window = _window(config, d["sliding_window"]) if use else None
    if use and window is None:
        raise config.unsupported(
            "sliding_window must be a number when use_sliding_window is true", "sliding_window"
        )
    types = config.str_list("layer_types")
    if types is None:
        first = config.integer("max_window_layers", d["max_window_layers"], minimum=0)
        # every other layer (the 1st, 3rd, ...) below max_window_layers
        return window, [use and i % 2 == 0 and i < first for i in range(layers)]
    if len(types) != layers:
        raise config.unsupported("layer_types must name every layer", "layer_types")
    unknown = set(types) - {"full_attention", "sliding_attention"}
    if unknown:
        raise config.unsupported(f"layer_types {sorted(unknown)!r} are not modelled", "layer_types")
    sliding = [t == "sliding_attention" for t in types]
    if any(sliding) and window is None:
        raise config.unsupported(
            "layer_types names sliding_attention layers without use_sliding_window: true",
            "layer_types",
        )
    return window, sliding


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS[mt]
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    if "num_key_value_heads" in config.raw and not config.has("num_key_value_heads"):
        if mt != "mixtral":
            # Qwen2MoeConfig / Qwen3MoeConfig keep the null: the attention cannot be built
            raise config.unsupported("num_key_value_heads must be a number", "num_key_value_heads")
        kv_heads = heads  # MixtralConfig: null means one key/value head per head
    else:
        kv_heads = config.integer("num_key_value_heads", d["num_key_value_heads"])
    if not config.has("head_dim") and hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    head_dim = config.integer("head_dim", hidden // heads)
    if heads % kv_heads:
        raise config.unsupported(
            "num_attention_heads must divide by num_key_value_heads", "num_key_value_heads"
        )
    activation = config.text("hidden_act", "silu")
    if ACTIVATION_KEEPS.get(activation, 4) > 1:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    intermediate = config.integer("intermediate_size", d["intermediate_size"])

    experts = _experts(config, d["num_experts"])
    top_k = config.integer("num_experts_per_tok", d["num_experts_per_tok"])
    if experts and top_k > experts:
        raise config.unsupported(
            f"num_experts_per_tok ({top_k}) must be at most the number of experts ({experts})",
            "num_experts_per_tok",
        )
    if mt == "mixtral":
        expert_intermediate, shared, norm_topk = intermediate, 0, True
        sparse = [True] * layers
    else:
        expert_intermediate = config.integer("moe_intermediate_size", d["moe_intermediate_size"])
        shared = 0
        if mt == "qwen2_moe":
            shared = config.integer(
                "shared_expert_intermediate_size", d["shared_expert_intermediate_size"]
            )
        norm_topk = config.flag("norm_topk_prob", False)
        step = config.integer("decoder_sparse_step", 1)
        dense = _layer_list(config, "mlp_only_layers")
        # Qwen*MoeDecoderLayer: sparse unless listed, every step-th layer, with experts
        sparse = [i not in dense and experts > 0 and (i + 1) % step == 0 for i in range(layers)]
    window, sliding = _attention_kinds(config, layers)

    jitter = 0.0
    if mt == "mixtral":
        jitter = config.number("router_jitter_noise", 0.0) or 0.0
        if jitter < 0:
            raise _bad(config, "router_jitter_noise", "a number >= 0")
    attention_bias = config.flag("attention_bias", False) if mt == "qwen3_moe" else False
    spec = MoeSpec(
        experts=experts,
        top_k=top_k,
        expert_intermediate=expert_intermediate,
        shared_intermediate=shared,
        norm_topk=norm_topk,
        fp32_routing_weights=mt == "mixtral",
        qkv_bias=config.flag("qkv_bias", True) if mt == "qwen2_moe" else attention_bias,
        o_bias=attention_bias,
        qk_norm=mt == "qwen3_moe",
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        sliding_window=window,
        layer_kinds=tuple(zip(sparse, sliding, strict=True)),
        aux_loss=config.flag("output_router_logits", False) and any(sparse),
        jitter_noise=jitter,
    )
    return Architecture(
        model_type=mt,
        family=Family.MOE,
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
    spec: MoeSpec = arch.spec
    h, i, v = arch.hidden, arch.intermediate, arch.vocab
    attention = attention_parameters(
        arch, qkv_bias=spec.qkv_bias, o_bias=spec.o_bias, qk_norm=spec.qk_norm
    )
    norms = 2 * h
    dense_mlp = 3 * h * i
    m, e = spec.expert_intermediate, spec.experts
    # router (E×h), the experts' 3-D gate_up (E×2m×h) and down (E×h×m) weights
    sparse_block = e * h + e * 3 * h * m
    if spec.shared_intermediate:
        sparse_block += 3 * h * spec.shared_intermediate + h  # shared expert and its gate
    layers = arch.layers * (attention + norms)
    layers += spec.dense_layers * dense_mlp + spec.sparse_layers * sparse_block
    head = 0 if spec.tie_embeddings else v * h
    return v * h + layers + h + head


def sparse_mlp(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    """What one sparse MLP block keeps besides its norm (bytes per sample)."""
    spec: MoeSpec = arch.spec
    p = inputs.dtype.bytes
    s, h, e, m = inputs.seq, arch.hidden, spec.experts, spec.expert_intermediate
    pairs = spec.top_k * s  # S: (token, expert) pairs
    # gate linear input (the norm output), fp32 softmax output, int64 top-k indices
    router = p * s * h + 4 * s * e + 8 * pairs
    if spec.norm_topk:
        # in-place division by the sum: the fp32 divisor and the fp32 top-k weights
        router += 4 * s + 4 * pairs
    if spec.jitter_noise > 0 and inputs.dropout:
        router += p * s * h  # the uniform noise the router input is multiplied by
    weight = 4 if spec.fp32_routing_weights else p
    dispatch = (
        8 * pairs  # int64 token index of the gather hidden[perm // k]
        + 8 * pairs  # int64 permutation of the weight gather weights[perm]
        + 4 * e  # int32 offsets of grouped_mm
        + p * pairs * h  # gathered tokens (the gate/up grouped_mm input)
        + weight * pairs  # sorted routing weights (kept by the weighting multiply)
        + 8 * pairs  # int64 inverse permutation (undoing the sort)
    )
    # gate/up output (one 2m storage), activation output, product; the down output
    experts = p * pairs * 4 * m + p * pairs * h
    parts = {Part.ROUTER: router, Part.EXPERT_DISPATCH: dispatch, Part.EXPERT_MLP: experts}
    if spec.shared_intermediate:
        si = spec.shared_intermediate
        keeps = ACTIVATION_KEEPS[spec.activation]
        # SwiGLU on the norm output (already kept by the router), sigmoid gate output,
        # the shared expert's output kept by the gating multiply
        parts[Part.SHARED_EXPERT] = (keeps + 3) * p * s * si + p * s + p * s * h
    return parts


def _layer(arch: Architecture, inputs: Inputs, sparse: bool, sliding: bool) -> dict[Part, int]:
    spec: MoeSpec = arch.spec
    window = spec.sliding_window if sliding else None
    parts = layer_parts(
        inputs,
        masked=sdpa_needs_mask(inputs, inputs.seq, window),
        qk_norm=spec.qk_norm,
        activation=spec.activation,
    )
    if sparse:
        # the router (and the shared expert) read the norm output: counted in ROUTER
        for key in (Part.MLP_IN_PROJ_INPUT, Part.MLP_ACTIVATION, Part.MLP_OUT_PROJ_INPUT):
            parts.pop(key, None)
        parts.update(sparse_mlp(arch, inputs))
    return parts


def _stacks(arch: Architecture, inputs: Inputs) -> tuple[Stack, ...]:
    """One stack per kind of layer that keeps different tensors (a sliding window no
    shorter than the sequence, or a padded batch, makes sliding layers like the others)."""
    spec: MoeSpec = arch.spec
    p = inputs.dtype.bytes
    checkpoint = {Part.LAYER_CHECKPOINT: p * inputs.seq * arch.hidden}
    groups: list[tuple[bool, bool, dict[Part, int]]] = []
    counts: list[int] = []
    for sparse, sliding in spec.layer_kinds:
        parts = _layer(arch, inputs, sparse, sliding)
        for n, (_, _, seen) in enumerate(groups):
            if seen == parts:
                counts[n] += 1
                break
        else:
            groups.append((sparse, sliding, parts))
            counts.append(1)
    mlp_varies = len({sparse for sparse, _, _ in groups}) > 1
    stacks = []
    for (sparse, sliding, parts), count in zip(groups, counts, strict=True):
        if len(groups) == 1:
            kind = StackKind.LAYERS
        elif mlp_varies:
            kind = StackKind.SPARSE if sparse else StackKind.DENSE
        else:
            kind = StackKind.SLIDING if sliding else StackKind.GLOBAL
        stacks.append(Stack(kind, count, parts, checkpoint))
    return tuple(stacks)


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    dims = dims_of(inputs)
    outside = dict(hf_outside(inputs, dims))
    aux = aux_loss(arch, inputs)
    if aux:
        outside[Part.AUX_LOSS] = aux
    return ActivationLayout(
        stacks=_stacks(arch, inputs),
        outside=outside,
        logits=logits_transient(inputs, dims.s, dims.v),
        notes=_notes(arch, inputs),
    )


def aux_loss(arch: Architecture, inputs: Inputs) -> int:
    """The load-balancing loss over every sparse layer's router logits."""
    spec: MoeSpec = arch.spec
    if not spec.aux_loss:
        return 0
    p, s = inputs.dtype.bytes, inputs.seq
    # per layer: the softmax in the dtype (its output kept by the sum of probabilities).
    # Its topk discards the values, so the node and its int64 indices are freed before
    # the backward pass (the measuring hook still sees them saved: up to 8·k·s per layer)
    total = spec.sparse_layers * p * s * spec.experts
    # the counts of tokens per expert kept by the final product (fp32, E)
    total += 4 * spec.experts
    if inputs.padded:
        # fp32 flattened mask kept by the masked sum, the masked row count
        total += 4 * s + 4
    return total


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: MoeSpec = arch.spec
    notes: list[str] = [
        trans_late(
            "Activation",
            "Experts run as grouped matrix products (transformers' default "
            "grouped_mm): every top-k copy of a token is gathered, so the bytes do not "
            "depend on how the router spreads the tokens.",
        )
    ]
    if spec.shared_intermediate:
        notes.append(
            trans_late(
                "Activation",
                "Every token also goes through the shared expert, scaled by a sigmoid gate.",
            )
        )
    if spec.dense_layers and spec.sparse_layers:
        notes.append(
            trans_late(
                "Activation",
                "Dense layers (mlp_only_layers, decoder_sparse_step) have an ordinary "
                "SwiGLU MLP of intermediate_size.",
            )
        )
    if spec.qk_norm:
        notes.append(
            trans_late(
                "Activation",
                "Qwen3-MoE normalises every query and key head with an fp32 RMSNorm.",
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
    if spec.jitter_noise > 0 and inputs.dropout:
        notes.append(
            trans_late(
                "Activation",
                "router_jitter_noise: with dropout on, every sparse layer keeps the noise "
                "its router input is multiplied by.",
            )
        )
    if inputs.attention is Attention.SDPA and inputs.recompute is not Recompute.FULL:
        notes.append(
            trans_late(
                "Activation",
                "With an explicit mask (padded batch or sliding window) SDPA keeps a "
                "copy of the mask in every layer and K and V repeated to every head.",
            )
        )
    return tuple(notes)
