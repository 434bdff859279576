"""One catalogue of models for every command and dialog."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.models import (
    ModelSource,
    ModelSpec,
    UnknownModelError,
    catalogue,
    facts,
    find_model,
    known_models,
)
from gradacc_desktop.core.memory.presets import load_config_presets, load_presets

PUBLISHED_TOTALS = {
    # model.num_parameters() of the model transformers builds from each file / preset
    "llama-3.1-8b": 8_030_261_248,
    "mistral-7b": 7_241_732_096,
    "gpt2": 124_439_808,
    "llama-3-70b": 70_553_706_496,
    "mixtral-8x7b": 46_702_792_704,
    "bert-base-uncased": 109_514_298,
}


def test_every_bundled_model_is_in_the_catalogue_once() -> None:
    names = [m.lower() for m in known_models()]
    assert len(names) == len(set(names))
    expected = {c.name.lower() for c in load_config_presets()} | {
        p.name.lower() for p in load_presets()
    }
    assert set(names) == expected
    # the published config.json wins over the sized preset of the same name
    assert find_model("mistral-7b").arch is not None


@pytest.mark.parametrize("name", known_models())
def test_every_name_gives_its_facts(name: str) -> None:
    model = facts(ModelSpec.bundled(name))
    assert model.params > 0
    assert model.has_shape
    assert model.size is not None and model.size.layers > 0
    assert model.largest_layer is not None and 0 < model.largest_layer < model.params
    inputs = model.activation_inputs(model.default_seq or 512)
    assert inputs is not None


@pytest.mark.parametrize(("name", "total"), PUBLISHED_TOTALS.items())
def test_parameter_counts_are_the_published_ones(name: str, total: int) -> None:
    assert facts(ModelSpec.bundled(name)).params == total


def test_names_are_case_insensitive_and_unknown_names_list_the_known() -> None:
    assert ModelSpec.bundled("LLAMA-3.1-8B").name == "llama-3.1-8b"
    with pytest.raises(UnknownModelError) as caught:
        find_model("llama-9")
    assert "llama-3.1-8b" in str(caught.value)
    assert caught.value.known == known_models()


def test_a_bare_parameter_count_has_no_shape() -> None:
    model = facts(ModelSpec.typed_params(7_000_000_000))
    assert not model.has_shape
    assert model.params == model.compute_params == 7_000_000_000
    assert model.activation_inputs(2048) is None
    assert model.lora is None and model.largest_layer is None


def test_a_spec_needs_its_value() -> None:
    with pytest.raises(ValueError):
        ModelSpec(ModelSource.PARAMS)
    with pytest.raises(ValueError):
        ModelSpec.typed_params(0)


def test_lora_sizes_llama_like_and_gpt2_models_from_the_catalogue() -> None:
    # PEFT's print_trainable_parameters for Llama-3-8B, r = 16 on q_proj and v_proj
    llama = facts(ModelSpec.bundled("llama-3.1-8b"))
    assert llama.lora is not None
    assert llama.lora.trainable(16, LoraTargets.QUERY_VALUE) == 6_815_744
    # Qwen3's explicit head size (128, not hidden / heads = 64) sizes q_proj
    qwen3 = facts(ModelSpec.bundled("qwen3-0.6b"))
    assert qwen3.lora is not None
    assert dict((n, (i, o)) for n, i, o in qwen3.lora.linears)["q_proj"] == (1024, 2048)
    # families whose projections are not modelled for LoRA
    assert facts(ModelSpec.bundled("mixtral-8x7b")).lora is None
    assert len(catalogue()) == len(known_models())


@pytest.mark.parametrize(
    ("name", "largest"),
    [
        # DeepSpeed's estimate_zero3_model_states_mem_needs_all_live on the model
        # transformers 5 builds: the largest module's own parameters
        ("llama-3.1-8b", 128_256 * 4096),  # the embedding (and the untied head)
        ("mixtral-8x7b", 8 * 3 * 4096 * 14_336),  # one layer's experts, one module
        ("qwen3-30b-a3b", 128 * 3 * 2048 * 768),
        ("bert-base-uncased", 30_522 * 768 + 30_522),  # the tied decoder and its bias
        ("roberta-base", 50_265 * 768 + 50_265),
    ],
)
def test_the_largest_layer_is_the_module_deepspeed_gathers(name: str, largest: int) -> None:
    assert facts(ModelSpec.bundled(name)).largest_layer == largest
