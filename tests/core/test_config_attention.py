"""The attention kernel a trainer config loads the model with: TRL's and axolotl's
``attn_implementation``, axolotl's legacy flags and LLaMA-Factory's ``flash_attn`` put
into the description, which then keeps what that kernel keeps and times it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.imported import fixed_by
from gradacc_desktop.core.training.plan import plan
from tests.core.test_config_trainer import read, unread

TRL = {"model_name_or_path": "Qwen/Qwen2.5-0.5B", "dataset_name": "x"}
AXOLOTL = {"base_model": "Qwen/Qwen2.5-0.5B", "micro_batch_size": 2, "sequence_len": 4096}
LLAMA_FACTORY = {"model_name_or_path": "m", "stage": "sft", "finetuning_type": "lora"}


@pytest.mark.parametrize(
    ("value", "kernel"),
    [
        ("eager", AttentionKernel.EAGER),
        ("sdpa", AttentionKernel.SDPA),
        ("flash_attention_2", AttentionKernel.SDPA),
        ("flex_attention", AttentionKernel.SDPA),
        ("flash_attention_3", AttentionKernel.FLASH),
        ("kernels-community/vllm-flash-attn3", AttentionKernel.FLASH),
    ],
)
def test_trl_s_attn_implementation(tmp_path: Path, value: str, kernel: AttentionKernel) -> None:
    config = read(tmp_path, "sft.yaml", {**TRL, "attn_implementation": value})
    assert config.attention is kernel
    assert ("attention", "attn_implementation") in config.keys


def test_an_unknown_implementation_is_refused_an_unknown_hub_kernel_said(tmp_path: Path) -> None:
    """transformers refuses a name it does not know; a Hub kernel (owner/name) loads,
    at a speed gradacc does not know: the description's kernel stays."""
    config = read(tmp_path, "sft.yaml", {**TRL, "attn_implementation": "someone/kernel"})
    assert config.attention is None
    reason, refused = unread(config)["attn_implementation"]
    assert "does not know" in reason and not refused
    typo = read(tmp_path, "typo.yaml", {**TRL, "attn_implementation": "flash_attention_9"})
    reason, refused = unread(typo)["attn_implementation"]
    assert typo.attention is None and refused and "loading the model fails" in reason
    assert read(tmp_path, "plain.yaml", TRL).attention is None  # not set: not said


@pytest.mark.parametrize(
    ("keys", "kernel"),
    [
        ({"attn_implementation": "flash_attention_3"}, AttentionKernel.FLASH),
        ({"eager_attention": True}, AttentionKernel.EAGER),
        ({"flash_attention": True}, AttentionKernel.SDPA),
        # axolotl's order: the specific flags before the generic ones
        ({"eager_attention": True, "flash_attention": True}, AttentionKernel.SDPA),
        ({"attn_implementation": "eager", "flash_attention": True}, AttentionKernel.EAGER),
        ({"flash_attention": False}, None),
        ({}, None),
    ],
)
def test_axolotl_s_attention(
    tmp_path: Path, keys: dict[str, Any], kernel: AttentionKernel | None
) -> None:
    assert read(tmp_path, "axolotl.yaml", {**AXOLOTL, **keys}).attention is kernel


@pytest.mark.parametrize(
    ("value", "kernel"),
    [
        ("auto", None),
        ("disabled", AttentionKernel.EAGER),
        ("sdpa", AttentionKernel.SDPA),
        ("fa2", AttentionKernel.SDPA),
    ],
)
def test_llama_factory_s_flash_attn(
    tmp_path: Path, value: str, kernel: AttentionKernel | None
) -> None:
    config = read(tmp_path, "lf.yaml", {**LLAMA_FACTORY, "flash_attn": value})
    assert config.attention is kernel


def test_llama_factory_refuses_fa3_for_a_model_that_is_not_gpt_oss(tmp_path: Path) -> None:
    config = read(tmp_path, "lf.yaml", {**LLAMA_FACTORY, "flash_attn": "fa3"})
    assert config.attention is None
    reason, refused = unread(config)["flash_attn"]
    assert "Unknown attention type" in reason and refused
    # gpt-oss runs FlashAttention 3 (a Hub kernel) whatever flash_attn says
    oss = {**LLAMA_FACTORY, "model_name_or_path": "openai/gpt-oss-20b"}
    for value in ("fa3", "sdpa", None):
        assert read(tmp_path, "oss.yaml", {**oss, "flash_attn": value}).attention is (
            AttentionKernel.FLASH
        )


def test_the_description_takes_the_file_s_kernel_and_keeps_what_it_keeps(tmp_path: Path) -> None:
    """A LLaMA-Factory file with flash_attn disabled runs eager attention: the
    description follows, and one sample then keeps the s² scores."""
    current = TrainingDescription(
        model=ModelSpec.bundled("qwen2.5-0.5b"),
        seq_len=4096,
        card=load_gpu_table().by_id("a100-80gb"),
    )
    files = {
        kernel: read(tmp_path, f"{value}.yaml", {**LLAMA_FACTORY, "flash_attn": value})
        for kernel, value in ((AttentionKernel.EAGER, "disabled"), (AttentionKernel.SDPA, "fa2"))
    }
    activation = {}
    for kernel, config in files.items():
        setup, _ = config.setup(1)
        assert setup is not None
        d = fixed_by(config, setup, current)
        assert d.attention is kernel
        activation[kernel] = plan(d).figures.activation.bytes
    assert activation[AttentionKernel.EAGER] > activation[AttentionKernel.SDPA]  # type: ignore[operator]
