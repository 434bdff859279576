"""gpt-oss read from a config: the estimate against the bytes autograd really saves, and
the exact parameter count. transformers 5.24 runs gpt-oss with eager attention only
(``_supports_sdpa = False``: SDPA cannot add the attention sinks), so every comparison is
eager; the estimate for SDPA is the eager one."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    # grouped-query attention (K and V copied to every head), the default alternating
    # sliding/full layers with a window shorter than the sequence, top-2 of 4
    "gpt_oss": {
        "model_type": "gpt_oss",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "intermediate_size": 48,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "sliding_window": 16,
        "vocab_size": 500,
    },
    # one key/value head (the repeat is a view), head_dim left to its default of 64
    # (a·d ≠ h), own layer_types, no attention biases, tied embeddings, top-3 of 8 and
    # the load-balancing loss
    "gpt_oss-mqa-aux": {
        "model_type": "gpt_oss",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "num_key_value_heads": 1,
        "intermediate_size": 40,
        "num_experts": 8,
        "num_experts_per_tok": 3,
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention"],
        "sliding_window": 32,
        "attention_bias": False,
        "tie_word_embeddings": True,
        "output_router_logits": True,
        "vocab_size": 700,
    },
    # every head its own K and V (nothing repeated), top-1
    "gpt_oss-mha": {
        "model_type": "gpt_oss",
        "hidden_size": 48,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "head_dim": 12,
        "intermediate_size": 56,
        "num_local_experts": 3,
        "num_experts_per_tok": 1,
        "vocab_size": 300,
    },
}


# the first shape at two lengths (the s² softmax against the s-linear terms); the first
# two shapes' windows are shorter than their sequences, the third keeps the default 128
CASES = [("gpt_oss", 40), ("gpt_oss", 97), ("gpt_oss-mqa-aux", 72), ("gpt_oss-mha", 33)]


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(("name", "seq"), CASES)
def test_estimate_equals_what_autograd_saves(
    name: str, seq: int, checkpointing: bool, padded: bool
) -> None:
    c = compare(SMALL[name], seq, attention="eager", checkpointing=checkpointing, padded=padded)
    assert c.estimated == c.measured, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("name", sorted(SMALL))
def test_with_attention_dropout_on_a_cpu(name: str) -> None:
    # attention_dropout 0.1: the dropout's noise tensor and output (a·s² each)
    c = compare(SMALL[name], 64, attention="eager", dropout=True)
    assert c.estimated == c.measured, (c.measured, c.estimated)


def test_transformers_refuses_sdpa_and_the_estimate_is_eager() -> None:
    from gradacc_desktop.core.memory.activation import Attention, Device, estimate
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import MeasureError, build_model

    with pytest.raises(MeasureError, match="eager"):
        build_model(dict(SMALL["gpt_oss"]), attention="sdpa", dropout=False)
    arch = parse_model_config(SMALL["gpt_oss"])
    sdpa, eager = (
        estimate(arch.inputs(seq=64, attention=a, device=Device.CPU))
        for a in (Attention.SDPA, Attention.EAGER)
    )
    assert sdpa.saved_bytes == eager.saved_bytes
    assert any("eager" in note for note in sdpa.notes)


def test_the_bytes_do_not_depend_on_the_routing() -> None:
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(SMALL["gpt_oss-mqa-aux"]), attention="eager", dropout=False)
    batch = random_batch(model, 64, 1)
    saved = [measure_saved(model, batch).saved_bytes]
    with torch.no_grad():
        for layer in model.model.layers:
            layer.mlp.router.weight.zero_()
            layer.mlp.router.bias.zero_()  # every token: the same experts
    saved.append(measure_saved(model, batch).saved_bytes)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.mlp.router.weight.normal_(0.0, 10.0)  # tokens spread over the experts
    saved.append(measure_saved(model, batch).saved_bytes)
    assert saved[0] == saved[1] == saved[2]


def test_the_experts_ran_the_grouped_path() -> None:
    from gradacc_desktop.measure import build_model

    model = build_model(dict(SMALL["gpt_oss"]), attention="eager", dropout=False)
    assert model.config._experts_implementation == "grouped_mm"
    assert model.config._attn_implementation == "eager"


PUBLISHED = ("openai__gpt-oss-20b.json", "openai__gpt-oss-120b.json")


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config
    from gradacc_desktop.core.memory.families.gpt_oss import idle_parameters, routed_experts

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
    experts = model.model.layers[0].mlp.experts
    one_layer = sum(p.numel() for p in experts.parameters())
    assert routed_experts(arch)[3] == one_layer
    assert (
        idle_parameters(arch)
        == arch.layers * one_layer * (arch.spec.experts - arch.spec.top_k) // arch.spec.experts
    )
