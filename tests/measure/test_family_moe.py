"""Mixture of experts (Mixtral, Qwen2-MoE, Qwen3-MoE) read from a config: the estimate
against the bytes autograd really saves, and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    "mixtral": {
        "model_type": "mixtral",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 192,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "vocab_size": 2000,
    },
    # explicit head_dim, a sliding window shorter than the longer sequence, tied
    # embeddings, top-3 of 8 and the load-balancing loss
    "mixtral-window-aux": {
        "model_type": "mixtral",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 6,
        "num_key_value_heads": 3,
        "head_dim": 32,
        "intermediate_size": 160,
        "num_local_experts": 8,
        "num_experts_per_tok": 3,
        "sliding_window": 64,
        "tie_word_embeddings": True,
        "output_router_logits": True,
        "vocab_size": 1500,
    },
    "qwen2_moe": {
        "model_type": "qwen2_moe",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 256,
        "moe_intermediate_size": 64,
        "shared_expert_intermediate_size": 192,
        "num_experts": 6,
        "num_experts_per_tok": 2,
        "vocab_size": 3000,
    },
    # a dense first layer, sliding layers 0 and 2 (max_window_layers 3), renormalised
    # top-k, no q/k/v biases: four kinds of layers
    "qwen2_moe-dense-sliding": {
        "model_type": "qwen2_moe",
        "hidden_size": 96,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 224,
        "moe_intermediate_size": 48,
        "shared_expert_intermediate_size": 80,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "mlp_only_layers": [0],
        "use_sliding_window": True,
        "sliding_window": 64,
        "max_window_layers": 3,
        "norm_topk_prob": True,
        "qkv_bias": False,
        "vocab_size": 2500,
    },
    "qwen3_moe": {
        "model_type": "qwen3_moe",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 48,
        "intermediate_size": 256,
        "moe_intermediate_size": 64,
        "num_experts": 8,
        "num_experts_per_tok": 4,
        "norm_topk_prob": True,
        "vocab_size": 3000,
    },
    # every other layer sparse, a window on every layer, attention biases, top-1,
    # GELU, the load-balancing loss
    "qwen3_moe-step-window-aux": {
        "model_type": "qwen3_moe",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "intermediate_size": 160,
        "moe_intermediate_size": 40,
        "num_experts": 4,
        "num_experts_per_tok": 1,
        "decoder_sparse_step": 2,
        "use_sliding_window": True,
        "sliding_window": 64,
        "attention_bias": True,
        "hidden_act": "gelu",
        "output_router_logits": True,
        "vocab_size": 1000,
    },
}


# one sequence length per shape (the windowed shapes: longer than their window of 64)
SEQ = {
    "mixtral": 160,
    "mixtral-window-aux": 96,
    "qwen2_moe": 200,
    "qwen2_moe-dense-sliding": 96,
    "qwen3_moe": 48,
    "qwen3_moe-step-window-aux": 128,
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(
        SMALL[name], SEQ[name], attention=attention, checkpointing=checkpointing, padded=padded
    )
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_with_dropout_on_a_cpu(name: str, attention: str) -> None:
    # attention dropout 0.1; Mixtral's router noise multiplies the router input
    config = SMALL[name] | ({"router_jitter_noise": 0.05} if "mixtral" in name else {})
    c = compare(config, 96, attention=attention, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


def _live_saved_bytes(model: Any, batch: dict[str, Any]) -> int:
    """Bytes of the distinct storages autograd still holds once the forward is done
    (``measure_saved`` also counts tensors whose graph node died during the forward)."""
    import gc
    import weakref

    packed: list[Any] = []

    def pack(tensor: Any) -> Any:
        packed.append(weakref.ref(tensor))
        return tensor

    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    params |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    model.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = model(**batch)
    gc.collect()
    storages: dict[int, int] = {}
    for ref in packed:
        tensor = ref()
        if tensor is not None:
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in params:
                storages[storage.data_ptr()] = storage.nbytes()
    del out
    return sum(storages.values())


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["mixtral-window-aux", "qwen3_moe-step-window-aux"])
def test_the_load_balancing_loss_keeps_no_top_k_indices(
    name: str, attention: str, checkpointing: bool
) -> None:
    """The loss's topk discards its values: the node and its int64 indices die before the
    backward pass. ``measure_saved`` counts them (8·k·s per sparse layer, less when a later
    storage reuses their address); the estimate leaves them out and equals what is alive."""
    from gradacc_desktop.core.memory.activation import Attention, Device, Recompute, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, random_batch

    config = SMALL[name]
    model = build_model(
        dict(config), attention=attention, checkpointing=checkpointing, dropout=False
    )
    live = _live_saved_bytes(model, random_batch(model, SEQ[name], 1))
    inputs = parse_model_config(config).inputs(
        seq=SEQ[name],
        attention=Attention(attention),
        recompute=Recompute.FULL if checkpointing else Recompute.NONE,
        device=Device.CPU,
    )
    assert estimate(inputs).saved_bytes == live


def test_the_bytes_do_not_depend_on_the_routing() -> None:
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(SMALL["qwen3_moe"]), attention="sdpa", dropout=False)
    batch = random_batch(model, 64, 1)
    saved = [measure_saved(model, batch).saved_bytes]
    with torch.no_grad():
        for layer in model.model.layers:
            layer.mlp.gate.weight.zero_()  # every token: the same (first) experts
    saved.append(measure_saved(model, batch).saved_bytes)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.mlp.gate.weight.normal_(0.0, 10.0)  # tokens spread over the experts
    saved.append(measure_saved(model, batch).saved_bytes)
    assert saved[0] == saved[1] == saved[2]


PUBLISHED = (
    "mistralai__Mixtral-8x7B-v0.1.json",
    "mistralai__Mixtral-8x22B-v0.1.json",
    "Qwen__Qwen1.5-MoE-A2.7B-Chat.json",
    "Qwen__Qwen3-30B-A3B.json",
    "Qwen__Qwen3-30B-A3B-Instruct-2507.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_moe_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
