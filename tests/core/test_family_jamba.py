"""Jamba (Mamba + attention + mixture of experts) read from its published config.json
(and small ones whose bytes were measured on a CPU)."""

from __future__ import annotations

from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Recompute,
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    jamba,
    mamba,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import config_path, raw_config

MINI = "ai21labs__AI21-Jamba-1.5-Mini.json"
# num_parameters() of JambaForCausalLM (transformers 5.24, meta device): the published
# 52B total (Jamba-v0.1 and Jamba 1.5 Mini share the architecture)
MINI_PARAMETERS = 51_570_323_328

TINY: dict[str, Any] = {
    "model_type": "jamba",
    "hidden_size": 64,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 96,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "attn_layer_period": 4,
    "attn_layer_offset": 2,
    "expert_layer_period": 2,
    "expert_layer_offset": 1,
    "mamba_d_state": 8,
    "vocab_size": 500,
}


def test_published_config_gives_the_published_parameter_count() -> None:
    arch = read_model_config(config_path(MINI))
    assert (arch.model_type, arch.family, arch.head) == ("jamba", Family.JAMBA, Head.CAUSAL_LM)
    assert parameters(arch) == MINI_PARAMETERS
    # JambaConfig's defaults are Jamba-v0.1's sizes (mamba_dt_rank "auto" = 4096 / 16)
    assert parameters(parse_model_config({"model_type": "jamba"})) == MINI_PARAMETERS


def test_jamba_mini_layout() -> None:
    arch = read_model_config(config_path(MINI))
    spec = arch.spec
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        4096,
        32,
        32,
        8,
        128,
    )
    assert [i for i, a in enumerate(spec.attention_layers) if a] == [4, 12, 20, 28]
    assert [i for i, (s, _) in enumerate(spec.layer_kinds) if s] == list(range(1, 32, 2))
    assert (spec.attention_count, spec.mamba_count) == (4, 28)
    assert (spec.sparse_layers, spec.dense_layers) == (16, 16)
    assert (spec.experts, spec.top_k, spec.expert_intermediate) == (16, 2, 14336)
    m = spec.mixer
    assert (m.d_inner, m.state, m.dt_rank, m.conv_kernel) == (8192, 16, 256, 4)
    assert m.conv_bias and not m.proj_bias and m.bcdt_norm == mamba.WEIGHTED_NORM
    assert not spec.tie_embeddings and not spec.aux_loss
    assert arch.max_positions == 262144


def test_active_parameters_and_the_planner_sees_the_experts() -> None:
    arch = read_model_config(config_path(MINI))
    idle = 16 * 14 * 3 * 4096 * 14336  # 14 of 16 experts idle in 16 sparse layers
    assert jamba.idle_parameters(arch) == idle
    size = size_of("jamba-1.5-mini", arch)
    # the published 12B active, less the untied input embedding (a lookup)
    assert size.compute_params == MINI_PARAMETERS - idle - 65536 * 4096
    assert MINI_PARAMETERS - idle == 12_110_311_296
    model = facts(ModelSpec.bundled("jamba-1.5-mini"))
    assert model.params == MINI_PARAMETERS
    assert model.experts is not None
    assert (model.experts.experts, model.experts.top_k, model.experts.sparse_layers) == (16, 2, 16)


def test_breakdown_has_one_stack_per_kind_of_layer() -> None:
    arch = read_model_config(config_path(MINI))
    result = estimate(arch.inputs(seq=1024))
    stacks = {(i.stack, i.count) for i in result.breakdown if i.stack is not None}
    assert stacks == {(StackKind.GLOBAL, 4), (StackKind.DENSE, 12), (StackKind.SPARSE, 16)}
    attention = {i.key for i in result.breakdown if i.stack is StackKind.GLOBAL}
    assert Part.ATTN_QKV in attention and Part.MLP_ACTIVATION in attention
    assert Part.OTHER_LAYER not in attention
    sparse = {i.key for i in result.breakdown if i.stack is StackKind.SPARSE}
    assert {Part.OTHER_LAYER, Part.ROUTER, Part.EXPERT_MLP} <= sparse
    assert Part.MLP_ACTIVATION not in sparse
    dense = {i.key for i in result.breakdown if i.stack is StackKind.DENSE}
    assert {Part.OTHER_LAYER, Part.MLP_ACTIVATION} <= dense and Part.ROUTER not in dense
    # no rotary embedding
    assert Part.ROTARY not in {i.key for i in result.breakdown}
    assert any("sequence × d_inner × state_size" in note for note in result.notes)


def test_hand_computed_layers() -> None:
    """Jamba 1.5 Mini, s = 1024, bf16."""
    arch = read_model_config(config_path(MINI))
    s, h, a, k, d, i, p = 1024, 4096, 32, 8, 128, 14336, 2
    result = estimate(arch.inputs(seq=s, attention=Attention.SDPA))
    layers: dict[StackKind, dict[Part, int]] = {}
    for item in result.breakdown:
        if item.stack is not None:
            layers.setdefault(item.stack, {})[item.key] = item.bytes
    norm = 4 * s * h + 4 * s + p * s * h
    attention = layers[StackKind.GLOBAL]
    # Llama's attention layer without rotary: q/k/v outputs kept by SDPA (enable_gqa)
    assert attention[Part.ATTN_NORM] == attention[Part.MLP_NORM] == norm
    assert attention[Part.ATTN_QKV] == p * s * (a + 2 * k) * d
    assert attention[Part.ATTN_FUSED] == 4 * a * s
    assert attention[Part.MLP_ACTIVATION] == 3 * p * s * i
    # a Mamba layer's norm, in_proj input and mixer are the other tensors of the layer
    mixer = mamba.mixer_bytes(arch.spec.mixer, arch.inputs(seq=s)).total
    assert layers[StackKind.DENSE][Part.OTHER_LAYER] == norm + p * s * h + mixer
    dn, n, r = 8192, 16, 256
    assert mixer > (12 + p) * s * dn * n
    # the weighted dt/B/C norms: fp32 input, rsqrt and normalised tensor each, the weighted
    # dt and C (kept by dt_proj and the products with C), B's fp32 copy
    dt = 4 * s * r + 4 * s + p * s * r + p * s * r
    b = 4 * s * n + 4 * s + p * s * n + 4 * s * n
    c = 4 * s * n + 4 * s + p * s * n + p * s * n
    assert mamba._bcdt(arch.spec.mixer, p, s) == dt + b + c
    # the experts as moe.py counts them: Qwen-style routing (no renormalisation, dtype)
    pairs, e = 2 * s, 16
    assert layers[StackKind.SPARSE][Part.ROUTER] == p * s * h + 4 * s * e + 8 * pairs


# bytes autograd saved for one sample (bf16, CPU), as measured by gradacc_desktop.measure
MEASURED = [
    ("eager", 16, False, False, 1_080_620),
    ("sdpa", 16, False, False, 1_072_684),
    ("sdpa", 16, False, True, 1_075_372),
    ("sdpa", 40, False, False, 2_648_236),
    ("eager", 40, True, False, 121_772),
]


@pytest.mark.parametrize(("attention", "seq", "full", "padded", "saved"), MEASURED)
def test_measured_bytes(attention: str, seq: int, full: bool, padded: bool, saved: int) -> None:
    inputs = parse_model_config(TINY).inputs(
        seq=seq,
        attention=Attention(attention),
        device=Device.CPU,
        recompute=Recompute.FULL if full else Recompute.NONE,
        padded=padded,
    )
    assert estimate(inputs).saved_bytes == saved
    assert parameters(parse_model_config(TINY)) == 350_460


def test_padded_batches() -> None:
    arch = read_model_config(config_path(MINI))
    padded = estimate(arch.inputs(seq=512, padded=True, attention=Attention.SDPA))
    outside = {i.key: i.bytes for i in padded.breakdown if i.stack is None}
    assert outside[Part.SHARED_MASK] == 8 * 512  # the int64 mask of the Mamba mixers
    masks = [(i.stack, i.bytes) for i in padded.breakdown if i.key is Part.ATTN_MASK]
    assert masks == [(StackKind.GLOBAL, 2 * 512 * 512)]


def test_experts_and_the_load_balancing_loss() -> None:
    dense = parse_model_config(raw_config(MINI) | {"num_experts": 1})
    assert dense.spec.sparse_layers == 0 and jamba.idle_parameters(dense) == 0
    stacks = {i.stack for i in estimate(dense.inputs(seq=256)).breakdown if i.stack}
    assert stacks == {StackKind.GLOBAL, StackKind.DENSE}
    aux = parse_model_config(raw_config(MINI) | {"output_router_logits": True})
    result = estimate(aux.inputs(seq=256))
    outside = {i.key: i.bytes for i in result.breakdown if i.stack is None}
    # a softmax of each sparse layer's router logits (dtype) and the fp32 token counts
    assert outside[Part.AUX_LOSS] == 16 * 2 * 256 * 16 + 4 * 16
    # no attention layer at all: only Mamba layers
    mamba_only = parse_model_config(raw_config(MINI) | {"num_hidden_layers": 4})
    assert mamba_only.spec.attention_count == 0
    stacks = {i.stack for i in estimate(mamba_only.inputs(seq=256)).breakdown if i.stack}
    assert stacks == {StackKind.DENSE, StackKind.SPARSE}


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"attn_layer_offset": 8}, "attn_layer_offset"),
        ({"expert_layer_offset": 2}, "expert_layer_offset"),
        ({"num_experts_per_tok": 17}, "num_experts_per_tok"),
        ({"num_key_value_heads": 5}, "num_key_value_heads"),
        ({"head_dim": 512}, "head_dim"),
        ({"hidden_act": "gelu_new"}, "hidden_act"),
        ({"mamba_dt_rank": "full"}, "mamba_dt_rank"),
        ({"mamba_dt_rank": None}, "mamba_dt_rank"),
        # attention every 3rd layer, experts every 2nd: attention layers of two kinds
        ({"attn_layer_period": 3, "attn_layer_offset": 0}, "expert_layer_period"),
    ],
)
def test_refusals_name_the_key(change: dict[str, Any], key: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        parse_model_config(raw_config(MINI) | change)
    assert caught.value.problem is ConfigProblem.UNSUPPORTED
    assert caught.value.key == key
    assert key.split("_")[0] in caught.value.detail
