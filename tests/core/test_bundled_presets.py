"""The bundled presets added from published ``config.json`` files (see
``resources/data/models/SOURCES.md``): each one loads, counts the parameters its model is
published with, and plans."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.memory.models import ModelSpec, catalogue, facts
from tests.cli.helpers import run_json

#: name -> the published parameter count. "Hub" is the parameter count the model's Hugging
#: Face page gives from its safetensors; where a checkpoint also stores the tied output
#: matrix, the Hub counts it twice and the model card's total (one shared matrix, what
#: transformers' ``num_parameters()`` gives) is the published one.
PUBLISHED_PARAMS = {
    # Hub 70.6B; Meta's model card 70B; = the bundled llama-3-70b preset (same shape)
    "llama-3.1-70b": 70_553_706_496,
    # Hub 70.6B; Meta's model card: the Llama 3.1 70B architecture
    "llama-3.3-70b": 70_553_706_496,
    # Hub 1.24B (tied embeddings); Meta's model card 1.23B
    "llama-3.2-1b": 1_235_814_400,
    # Hub 3.21B (tied embeddings); Meta's model card 3.21B
    "llama-3.2-3b": 3_212_749_824,
    # Hub 1.54B; model card "Number of Parameters: 1.54B" (tied embeddings)
    "qwen2.5-1.5b": 1_543_714_304,
    # Hub 3.09B; Qwen2.5 model card "Number of Parameters: 3.09B" (tied embeddings)
    "qwen2.5-3b": 3_085_938_688,
    # Hub 7.62B; model card 7.61B
    "qwen2.5-7b": 7_615_616_512,
    # Hub 14.8B; model card 14.7B
    "qwen2.5-14b": 14_770_033_664,
    # Hub 32.8B; model card 32.5B
    "qwen2.5-32b": 32_763_876_352,
    # Hub 72.7B; model card "Number of Parameters: 72.7B"
    "qwen2.5-72b": 72_706_203_648,
    # model card 1.7B (tied embeddings; the Hub's 2.03B counts the stored lm_head again)
    "qwen3-1.7b": 1_720_574_976,
    # model card 4.0B (tied embeddings); Hub 4.02B
    "qwen3-4b": 4_022_468_096,
    # Hub 8.19B; model card 8.2B
    "qwen3-8b": 8_190_735_360,
    # Hub 14.8B; model card 14.8B
    "qwen3-14b": 14_768_307_200,
    # Hub 32.8B; model card 32.8B
    "qwen3-32b": 32_762_123_264,
    # Hub 9.24B
    "gemma-2-9b": 9_241_705_984,
    # Hub 27.2B
    "gemma-2-27b-it": 27_227_128_320,
    # Hub 7.25B
    "mistral-7b-v0.3": 7_248_023_552,
    # Hub 3.82B; model card 3.8B
    "phi-3.5-mini": 3_821_079_552,
    # Hub 14.7B; Microsoft's model card 14B
    "phi-4": 14_659_507_200,
    # Hub 135M (tied embeddings)
    "smollm2-135m": 134_515_008,
    # Hub 362M (tied embeddings)
    "smollm2-360m": 361_821_120,
    # Hub 406B; Meta's model card 405B; maxtext's llama3.1-405b sizes
    "llama-3.1-405b": 405_853_388_800,
    # Hub 141B; Mistral's announcement "141B parameters, 39B active"
    "mixtral-8x22b": 140_620_634_112,
    # Hub 235B; model card "235B in total and 22B activated"
    "qwen3-235b-a22b": 235_093_634_560,
    # Hub 27.4B (the whole vision-language model, as transformers counts it)
    "gemma-3-27b-it": 27_432_406_640,
    # Hub 12.2B; Mistral's model card 12B
    "mistral-nemo-12b": 12_247_782_400,
    # Hub 1.78B (untied embeddings, unlike Qwen2.5-1.5B)
    "deepseek-r1-distill-qwen-1.5b": 1_777_088_000,
    # Hub 7.62B; the shapes of Qwen2.5-7B
    "deepseek-r1-distill-qwen-7b": 7_615_616_512,
    # The distills DeepSeek-R1's README names with their base models: the base's file.
    # Hub 8.03B, as Llama-3.1-8B
    "deepseek-r1-distill-llama-8b": 8_030_261_248,
    # Hub 14.8B, as Qwen2.5-14B
    "deepseek-r1-distill-qwen-14b": 14_770_033_664,
    # the Hub's safetensors total, to the parameter
    "deepseek-r1-distill-qwen-32b": 32_763_876_352,
    # Hub 70.6B, as Llama-3.3-70B-Instruct
    "deepseek-r1-distill-llama-70b": 70_553_706_496,
    # The Qwen2.5-Coder report's Table 1 has Qwen2.5's sizes: Qwen2.5's files.
    # Hub 7.62B, as Qwen2.5-7B
    "qwen2.5-coder-7b": 7_615_616_512,
    # Hub 32.8B, as Qwen2.5-32B
    "qwen2.5-coder-32b": 32_763_876_352,
    # model.safetensors.index.json beside the copied file: total_size 47,144,806,400
    # bytes of bf16 weights, two a parameter; Hub 23.6B
    "mistral-small-24b": 23_572_403_200,
    # the model card: the Instruct model is a fine-tune of this base (Hub 23.6B)
    "mistral-small-24b-base": 23_572_403_200,
}


def test_every_new_preset_is_in_the_catalogue_from_its_config() -> None:
    by_name = {model.name: model for model in catalogue()}
    for name in PUBLISHED_PARAMS:
        assert name in by_name
        assert by_name[name].arch is not None  # the published config, not a sized preset
        assert by_name[name].source.startswith("https://huggingface.co/")


@pytest.mark.parametrize(("name", "params"), PUBLISHED_PARAMS.items())
def test_the_count_is_the_published_one(name: str, params: int) -> None:
    assert facts(ModelSpec.bundled(name)).params == params


@pytest.mark.parametrize("name", PUBLISHED_PARAMS)
def test_plan_takes_every_new_preset(capsys: pytest.CaptureFixture[str], name: str) -> None:
    data = run_json(
        capsys,
        "plan",
        "--model", name,
        "--seq-len", "2048",
        "--gpu-card", "h100-80gb",
        "--gpus", "8",
        "--target-batch", "64",
    )  # fmt: skip
    assert data


@pytest.mark.parametrize(
    ("base_model", "name"),
    [
        ("meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b"),
        ("mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b"),
        ("Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"),
        ("google/gemma-3-27b-it", "gemma-3-27b-it"),
        ("mistralai/Mistral-Nemo-Base-2407", "mistral-nemo-12b"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("Qwen/Qwen3-4B", "qwen3-4b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill-qwen-7b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b"),
        # the base, not the distill that reads the same file
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("Qwen/Qwen2.5-32B", "qwen2.5-32b"),
        ("Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder-7b"),
        ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-24b"),
        ("mistralai/Mistral-Small-24B-Base-2501", "mistral-small-24b-base"),
    ],
)
def test_a_training_config_naming_the_repository_finds_the_preset(
    base_model: str, name: str
) -> None:
    from gradacc_desktop.core.training.imported import bundled_model_of

    assert bundled_model_of(base_model) == name


def test_a_distill_reads_its_base_models_file_and_no_other() -> None:
    from pathlib import Path

    from gradacc_desktop.core.memory.presets import PresetError, parse_config_presets
    from gradacc_desktop.paths import resource_path

    folder = Path(resource_path("data", "models"))
    base = {
        "name": "llama-3.1-8b",
        "label": "Llama 3.1 8B",
        "file": "meta-llama__Llama-3.1-8B.json",
        "source": "https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json",
    }
    distill = {
        "name": "distill-8b",
        "label": "Distill 8B",
        "shapes_of": "llama-3.1-8b",
        "file": "meta-llama__Llama-3.1-8B.json",
        "source": "https://huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
    }
    read = parse_config_presets({"format": 1, "models": [base, distill]}, folder)
    assert read[1].arch == read[0].arch and read[1].label == "Distill 8B"
    other = {**distill, "file": "Qwen__Qwen2.5-7B.json"}
    with pytest.raises(PresetError, match="with its file"):
        parse_config_presets({"format": 1, "models": [base, other]}, folder)
    with pytest.raises(PresetError, match="with its file"):  # the base comes first
        parse_config_presets({"format": 1, "models": [distill, base]}, folder)
