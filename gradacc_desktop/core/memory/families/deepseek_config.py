"""DeepSeek-V2 and DeepSeek-V3 as their ``config.json`` describes them: the sizes of the
multi-head latent attention, the experts and the routing, with the defaults of
``transformers`` 5.24 ``DeepseekV2Config`` / ``DeepseekV3Config`` where a key is absent,
and the refusals for what transformers would not build or run. ``core.memory.families.deepseek``
counts the parameters and activations of the model read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import Family
from gradacc_desktop.core.memory.families.base import Architecture, ConfigReader, Head
from gradacc_desktop.core.memory.families.common import ACTIVATION_KEEPS
from gradacc_desktop.core.text import trans_late

# transformers 5.24 DeepseekV2Config / DeepseekV3Config defaults for keys a file may omit
_DEFAULTS: dict[str, dict[str, int | None]] = {
    "deepseek_v2": {"vocab_size": 102400, "hidden_size": 4096, "intermediate_size": 11008,
                    "num_hidden_layers": 32, "num_attention_heads": 32,
                    "max_position_embeddings": 2048, "first_k_dense_replace": 0,
                    "kv_lora_rank": 512, "q_lora_rank": 1536, "n_group": None,
                    "topk_group": None, "n_routed_experts": 64, "n_shared_experts": 2,
                    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                    "num_experts_per_tok": None, "moe_intermediate_size": 1407},
    "deepseek_v3": {"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432,
                    "num_hidden_layers": 61, "num_attention_heads": 128,
                    "max_position_embeddings": 4096, "first_k_dense_replace": 3,
                    "kv_lora_rank": 512, "q_lora_rank": 1536, "n_group": 8,
                    "topk_group": 4, "n_routed_experts": 256, "n_shared_experts": 1,
                    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                    "num_experts_per_tok": 8, "moe_intermediate_size": 2048},
}  # fmt: skip

_TOPK_METHODS = ("greedy", "group_limited_greedy")


@dataclass(frozen=True)
class DeepseekSpec:
    """The latent attention's sizes and the experts.

    ``Architecture.head_dim`` is (qk + v) / 2: the attention's two products (QKᵀ over qk,
    the product with V over v) cost 12·L·a·head_dim FLOPs per token, and a context-
    parallel ring passes a·(qk + v) = 2·a·head_dim key and value numbers per token, as
    for a model with one head size.
    """

    #: ``q_lora_rank`` (None: a plain ``q_proj``)
    q_lora_rank: int | None
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    #: routed experts of a sparse layer
    experts: int
    #: experts each token is sent to
    top_k: int
    #: intermediate size of one routed expert
    expert_intermediate: int
    #: shared experts (one MLP of ``n_shared_experts`` · ``expert_intermediate``)
    shared_experts: int
    #: the first ``dense_layers`` layers have a dense MLP of ``intermediate_size``
    dense_layers: int
    #: V2: "greedy" or "group_limited_greedy"; V3: "sigmoid" (its one routing)
    routing: str
    #: V3: the top-k weights are divided by their sum
    norm_topk: bool
    n_group: int | None
    topk_group: int | None
    attention_bias: bool
    #: V2: biases on the dense and shared MLPs
    mlp_bias: bool
    tie_embeddings: bool
    activation: str
    #: V3's ``num_nextn_predict_layers``: multi-token prediction layers transformers does
    #: not build (counted nowhere)
    mtp_layers: int
    #: the file has a ``quantization_config`` (ignored: the model is built unquantized)
    quantized: bool
    #: the RoPE type (``yarn`` scales the softmax by a number only)
    rope_type: str

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    @property
    def shared_intermediate(self) -> int:
        return self.expert_intermediate * self.shared_experts

    @property
    def v3(self) -> bool:
        return self.routing == "sigmoid"


def _rope_type(config: ConfigReader) -> str:
    """``rope_type`` (or the older ``type``) of ``rope_scaling`` / ``rope_parameters``."""
    for key in ("rope_scaling", "rope_parameters"):
        value = config.raw.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise config.bad(key, trans_late("ModelConfig", "an object").format())
        kind = value.get("rope_type", value.get("type", "default"))
        if not isinstance(kind, str):
            raise config.unsupported(
                trans_late("ModelConfig", "{key} must name its rope_type").format(key=key), key
            )
        return kind
    return "default"


def _size(config: ConfigReader, key: str, default: int | None, *, minimum: int = 1) -> int:
    """A size the DeepSeek attention or routing needs: the class default when absent, a
    refusal when the file sets it to null and the model cannot be built without it."""
    if not config.has(key) and (key in config.raw or default is None):
        raise config.unsupported(
            trans_late("ModelConfig", "{key} must be a number for this model").format(key=key),
            key,
        )
    return config.integer(key, default, minimum=minimum)


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS[mt]
    v3 = mt == "deepseek_v3"
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    kv_heads = config.integer("num_key_value_heads", heads)
    if kv_heads != heads:
        # kv_b_proj makes K and V for every query head; repeat_kv would repeat them again
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "num_key_value_heads must equal num_attention_heads: multi-head latent "
                "attention expands K and V to every head",
            ).format(),
            "num_key_value_heads",
        )
    if not v3 and hidden % heads:
        # DeepseekV2Config.validate_architecture refuses it
        raise config.unsupported(
            trans_late("ModelConfig", "hidden_size must divide by num_attention_heads").format(),
            "hidden_size",
        )
    activation = config.text("hidden_act", "silu")
    if ACTIVATION_KEEPS.get(activation, 4) > 1:
        raise config.unsupported(
            trans_late("ModelConfig", "hidden_act {name} is not modelled").format(
                name=repr(activation)
            ),
            "hidden_act",
        )
    q_lora = config.optional_int("q_lora_rank") if "q_lora_rank" in config.raw else d["q_lora_rank"]
    nope = _size(config, "qk_nope_head_dim", d["qk_nope_head_dim"])
    rope = _size(config, "qk_rope_head_dim", d["qk_rope_head_dim"])
    if rope % 2:
        raise config.unsupported(
            trans_late("ModelConfig", "qk_rope_head_dim must be even (rotary pairs)").format(),
            "qk_rope_head_dim",
        )
    v_dim = _size(config, "v_head_dim", d["v_head_dim"])
    kv_lora = _size(config, "kv_lora_rank", d["kv_lora_rank"])

    # the configuration classes map an alias onto n_routed_experts
    alias = "num_local_experts" if v3 else "num_experts"
    experts_key = alias if config.has(alias) and "n_routed_experts" not in config.raw else ""
    experts = _size(config, experts_key or "n_routed_experts", d["n_routed_experts"])
    top_k = _size(config, "num_experts_per_tok", d["num_experts_per_tok"])
    if top_k > experts:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "num_experts_per_tok ({k}) must be at most n_routed_experts ({e})",
            ).format(k=top_k, e=experts),
            "num_experts_per_tok",
        )
    dense = _size(config, "first_k_dense_replace", d["first_k_dense_replace"], minimum=0)
    if config.has("moe_layer_freq") and config.raw["moe_layer_freq"] != 1:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "moe_layer_freq other than 1 is not built by transformers (every layer "
                "from first_k_dense_replace on has experts)",
            ).format(),
            "moe_layer_freq",
        )
    shared = _size(config, "n_shared_experts", d["n_shared_experts"], minimum=0)
    routing, n_group, topk_group = _routing(config, experts, top_k)
    mtp = 0
    if v3:  # DeepseekV3Config maps num_nextn_predict_layers onto num_mtp_layers (default 1)
        key = "num_mtp_layers" if "num_nextn_predict_layers" not in config.raw else ""
        mtp = config.integer(key or "num_nextn_predict_layers", 1, minimum=0)
    spec = DeepseekSpec(
        q_lora_rank=q_lora,
        kv_lora_rank=kv_lora,
        qk_nope_head_dim=nope,
        qk_rope_head_dim=rope,
        v_head_dim=v_dim,
        experts=experts,
        top_k=top_k,
        expert_intermediate=_size(config, "moe_intermediate_size", d["moe_intermediate_size"]),
        shared_experts=shared,
        dense_layers=min(dense, layers),
        routing=routing,
        # DeepseekV3Config keeps a null (falsy: no renormalisation)
        norm_topk=v3
        and ("norm_topk_prob" not in config.raw or config.flag("norm_topk_prob", False)),
        n_group=n_group,
        topk_group=topk_group,
        attention_bias=config.flag("attention_bias", False),
        mlp_bias=False if v3 else config.flag("mlp_bias", False),
        tie_embeddings=config.flag("tie_word_embeddings", False),
        activation=activation,
        mtp_layers=mtp,
        quantized=config.has("quantization_config"),
        rope_type=_rope_type(config),
    )
    return Architecture(
        model_type=mt,
        family=Family.DEEPSEEK,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=max(1, (spec.qk_head_dim + v_dim) // 2),
        intermediate=config.integer("intermediate_size", d["intermediate_size"]),
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=config.integer("max_position_embeddings", d["max_position_embeddings"]),
        spec=spec,
    )


def _routing(config: ConfigReader, experts: int, top_k: int) -> tuple[str, int | None, int | None]:
    """(routing, n_group, topk_group) as each router runs them."""
    mt = config.model_type
    d = _DEFAULTS[mt]
    if mt == "deepseek_v2":
        method = config.text("topk_method", "greedy")
        if method not in _TOPK_METHODS:
            # DeepseekV2TopkRouter knows these two; anything else fails in its forward
            raise config.unsupported(
                trans_late(
                    "ModelConfig",
                    "topk_method {name} is not run by transformers' DeepSeek-V2 (greedy or "
                    "group_limited_greedy)",
                ).format(name=repr(method)),
                "topk_method",
            )
        scoring = config.text("scoring_func", "softmax")
        if scoring != "softmax":
            raise config.unsupported(
                trans_late(
                    "ModelConfig",
                    "scoring_func {name}: transformers' DeepSeek-V2 routes with a softmax",
                ).format(name=repr(scoring)),
                "scoring_func",
            )
        if method == "greedy":
            return method, config.optional_int("n_group"), config.optional_int("topk_group")
    else:
        method = "sigmoid"
        scoring = config.text("scoring_func", "sigmoid")
        if scoring != "sigmoid":
            raise config.unsupported(
                trans_late(
                    "ModelConfig",
                    "scoring_func {name}: transformers' DeepSeek-V3 routes with a sigmoid",
                ).format(name=repr(scoring)),
                "scoring_func",
            )
    n_group = _size(config, "n_group", d["n_group"])
    topk_group = _size(config, "topk_group", d["topk_group"])
    if experts % n_group:
        raise config.unsupported(
            trans_late("ModelConfig", "n_routed_experts must divide by n_group").format(),
            "n_group",
        )
    if topk_group > n_group:
        raise config.unsupported(
            trans_late("ModelConfig", "topk_group must be at most n_group").format(),
            "topk_group",
        )
    if method == "sigmoid" and experts // n_group < 2:
        # each group is scored by its two best experts
        raise config.unsupported(
            trans_late(
                "ModelConfig", "DeepSeek-V3 needs at least two experts in every group (n_group)"
            ).format(),
            "n_group",
        )
    return method, n_group, topk_group
