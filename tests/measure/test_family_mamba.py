"""Mamba and Falcon-Mamba read from a config: the estimate against the bytes autograd
really saves (transformers' PyTorch scan: no mamba-ssm kernels on a CPU), and the exact
parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    "mamba": {
        "model_type": "mamba",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "state_size": 8,
        "vocab_size": 500,
    },
    # biases in in_proj/out_proj, none in the convolution, a residual in the dtype, an
    # untied head, expand 3, a kernel of 3, an explicit time_step_rank
    "mamba-bias-dtype-residual": {
        "model_type": "mamba",
        "hidden_size": 48,
        "num_hidden_layers": 3,
        "state_size": 4,
        "expand": 3,
        "conv_kernel": 3,
        "time_step_rank": 5,
        "use_bias": True,
        "use_conv_bias": False,
        "residual_in_fp32": False,
        "tie_word_embeddings": False,
        "vocab_size": 300,
    },
    # the file's intermediate_size wins over expand (as in Falcon-Mamba 7B)
    "falcon_mamba": {
        "model_type": "falcon_mamba",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "state_size": 8,
        "expand": 16,
        "intermediate_size": 160,
        "tie_word_embeddings": False,
        "vocab_size": 500,
    },
}

SEQ = {"mamba": 40, "mamba-bias-dtype-residual": 24, "falcon_mamba": 33}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(name: str, checkpointing: bool, padded: bool) -> None:
    # transformers builds Mamba with eager attention only (there is no attention)
    c = compare(
        SMALL[name], SEQ[name], attention="eager", checkpointing=checkpointing, padded=padded
    )
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_second_length_and_dropout_on(name: str) -> None:
    # no dropout anywhere in a Mamba model: turning it on changes nothing
    c = compare(SMALL[name], 16, attention="eager", dropout=True)
    assert c.measured == c.estimated, (c.measured, c.estimated)
    assert abs(c.error) <= TOLERANCE


def _measured(config: dict[str, Any], seq: int, dtype: str, *, padded: bool = False) -> int:
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(dict(config), dtype=dtype, attention="eager", dropout=False)
    batch = random_batch(model, seq, 1)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    return int(measure_saved(model, batch).saved_bytes)


def _estimated(config: dict[str, Any], seq: int, dtype: str, *, padded: bool = False) -> int:
    from gradacc_desktop.core.memory.activation import Attention, Device, Precision, estimate
    from gradacc_desktop.core.memory.families import parse_model_config

    inputs = parse_model_config(config).inputs(
        seq=seq, dtype=Precision(dtype), attention=Attention.EAGER, device=Device.CPU, padded=padded
    )
    return estimate(inputs).saved_bytes


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["mamba", "falcon_mamba"])
def test_other_dtypes(name: str, dtype: str) -> None:
    """fp32 weights make the .float() casts no-ops (no copies, fp32 states kept once)."""
    config = SMALL[name]
    assert _measured(config, 16, dtype) == _estimated(config, 16, dtype)


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_other_convolution_activations(activation: str) -> None:
    # ReLU keeps its output, not the convolution output; with a padded batch the masked
    # copy of its output is another tensor
    config = SMALL["mamba"] | {"hidden_act": activation}
    for padded in (False, True):
        assert _measured(config, 16, "bf16", padded=padded) == _estimated(
            config, 16, "bf16", padded=padded
        )


PUBLISHED = (
    "state-spaces__mamba-130m-hf.json",
    "state-spaces__mamba-2.8b-hf.json",
    "tiiuae__falcon-mamba-7b.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
