"""A model with a vision tower in the training description: images per sample, their
size and a frozen tower reach the plan's activation and trainable parameters, exactly
as the activation command estimates them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gradacc_desktop.cli import main

QWEN_VL = "qwen2-vl-2b-instruct"
PLAN = ["plan", "--model", QWEN_VL, "--seq-len", "2048", "--gpu-card", "h100-80gb",
        "--gpus", "8", "--target-batch", "64"]  # fmt: skip


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data: dict[str, Any] = json.loads(out)
    return data


def _activation(capsys: pytest.CaptureFixture[str], *flags: str) -> int:
    """What ``gradacc activation`` estimates for the plan's inputs (bf16, CUDA, SDPA)."""
    data = _json(capsys, "activation", "--model", QWEN_VL, "--seq-len", "2048", *flags)
    return int(data["peak_bytes_per_sample"])


def test_one_image_at_the_models_size_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    plan = _json(capsys, *PLAN)
    assert plan["activation_bytes_per_sample"] == _activation(
        capsys, "--images", "1", "--image-size", "448x448"
    )


def test_images_and_their_size_reach_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ("--images", "2", "--image-size", "896x448")
    plan = _json(capsys, *PLAN, *flags)
    assert plan["activation_bytes_per_sample"] == _activation(capsys, *flags)
    assert plan["activation_bytes_per_sample"] > _json(capsys, *PLAN)["activation_bytes_per_sample"]


def test_a_frozen_tower_trains_nothing_and_keeps_less(capsys: pytest.CaptureFixture[str]) -> None:
    trained = _json(capsys, *PLAN)
    frozen = _json(capsys, *PLAN, "--freeze-vision")
    assert frozen["params"] == trained["params"] == 2_208_985_600
    # the tower (merger included) has no gradients or optimizer states
    assert frozen["trainable_params"] == trained["params"] - 665_271_296
    assert frozen["activation_bytes_per_sample"] < trained["activation_bytes_per_sample"]
    assert frozen["activation_bytes_per_sample"] == _activation(
        capsys, "--images", "1", "--freeze-vision"
    )


@pytest.mark.parametrize("flag", [["--images", "1"], ["--image-size", "64"], ["--freeze-vision"]])
def test_image_flags_need_a_vision_tower(
    capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    argv = ["plan", "--model", "llama-3.1-8b", "--seq-len", "2048", "--gpu-card", "h100-80gb",
            "--gpus", "8", "--target-batch", "64", *flag]  # fmt: skip
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "vision tower" in err
