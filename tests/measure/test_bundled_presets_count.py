"""The bundled presets of the large published models (resources/data/models, see its
SOURCES.md) count what transformers builds from the same file. Built on the meta device:
no weights are allocated, so a 405B model is cheap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

MODELS = Path(__file__).resolve().parents[2] / "resources" / "data" / "models"

#: causal language models (the Gemma 3 27B vision-language file is counted in
#: test_family_vlm.py)
FILES = (
    "meta-llama__Llama-3.1-405B.json",
    "meta-llama__Llama-3.3-70B-Instruct.json",
    "mistralai__Mixtral-8x22B-v0.1.json",
    "Qwen__Qwen3-235B-A22B.json",
    "mistralai__Mistral-Nemo-Base-2407.json",
    "Qwen__Qwen2.5-1.5B-Instruct.json",
    "Qwen__Qwen2.5-72B-Instruct.json",
    "Qwen__Qwen3-4B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-1.5B.json",
    "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B.json",
    # the files of DeepSeek-R1-Distill-Qwen 14B and 32B (their base models'; the Llama
    # distills read the Llama 3.1 8B and 3.3 70B files counted above and in
    # test_family_llama.py)
    "Qwen__Qwen2.5-14B.json",
    "Qwen__Qwen2.5-32B.json",
    "mistralai__Mistral-Small-24B-Instruct-2501.json",
)


@pytest.mark.parametrize("name", FILES)
def test_bundled_preset_counts_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForCausalLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    path = MODELS / name
    raw = json.loads(path.read_text(encoding="utf-8"))
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(read_model_config(path)) == model.num_parameters()
