from __future__ import annotations

import ast
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.export import (
    ExportFormat,
    accelerate_snippet,
    deepspeed_json,
    hf_training_arguments,
    lightning_snippet,
    render,
)

ints = st.integers(min_value=1, max_value=1_000_000)


def test_deepspeed_json_is_consistent() -> None:
    config = json.loads(deepspeed_json(4, 8, 2))
    assert config == {
        "train_batch_size": 64,
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 8,
    }


def test_hf_training_arguments() -> None:
    text = hf_training_arguments(4, 8, 2)
    assert "per_device_train_batch_size=4," in text
    assert "gradient_accumulation_steps=8," in text
    assert "= 64" in text
    ast.parse(text)


def test_accelerate() -> None:
    text = accelerate_snippet(4, 8, 2)
    assert "Accelerator(gradient_accumulation_steps=8)" in text
    assert "batch_size=4" in text
    assert "accelerator.accumulate(model)" in text
    ast.parse(text)


def test_lightning() -> None:
    text = lightning_snippet(4, 8, 2)
    assert "Trainer(accumulate_grad_batches=8, devices=2)" in text
    assert "batch_size=4" in text
    ast.parse(text)


@given(ints, ints, ints, st.sampled_from(list(ExportFormat)))
def test_every_format_renders_valid_text(b: int, a: int, g: int, fmt: ExportFormat) -> None:
    text = render(fmt, b, a, g)
    assert text.endswith("\n")
    if fmt is ExportFormat.DEEPSPEED:
        config = json.loads(text)
        assert config["train_batch_size"] == b * a * g
    else:
        ast.parse(text)
        assert str(b * a * g) in text


@pytest.mark.parametrize("bad", [0, -3, True])
def test_rejects_bad_values(bad: int) -> None:
    for fmt in ExportFormat:
        with pytest.raises(ValueError):
            render(fmt, bad, 1, 1)
