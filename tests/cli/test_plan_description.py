"""``gradacc plan`` from the training description: memory derived from the model, the
same flags and model names for every command, and ``--auto``."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from gradacc_desktop.core.memory.models import ModelSpec, facts, known_models
from gradacc_desktop.paths import resource_path
from tests.cli.helpers import fails, run_json

MODELS = resource_path("data", "models")

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
LLAMA = (
    "plan", "--model", "llama-3.1-8b", "--seq-len", "4096", "--gpu-card", "a100-80gb",
    "--target-batch", "512",
)  # fmt: skip
SOURCES = {"activation_source", "other_memory_source"}


def test_the_issues_llama_plan_derives_its_memory_and_does_not_fit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = run_json(capsys, *LLAMA, "--gpus", "1")
    activation = run_json(capsys, "activation", "--model", "llama-3.1-8b", "--seq-len", "4096")
    memory = run_json(
        capsys, "memory", "--model", "llama-3.1-8b", "--gpus", "1", "--zero-stage", "0"
    )
    assert data["activation_bytes_per_sample"] == activation["peak_bytes_per_sample"]
    assert data["activation_source"] == "estimated"
    assert data["model_states_bytes"] == memory["gpu_bytes"] == 20 * 8_030_261_248
    assert data["other_memory_source"] == "estimated"
    assert data["usable_bytes"] == 80 * 10**9
    assert data["fits"] is False and data["micro_batch"] is None
    assert data["why"].startswith("161.606 GB of model states and overhead + 1 x ")
    assert D(data["other_memory_gb"]) == D("161.605224960")
    # and what would fit, with one change each
    changes = {a["change"]: a for a in data["alternatives"]}
    assert changes["qlora"]["method"] == "qlora" and changes["qlora"]["max_micro_batch"] >= 1
    assert changes["gpus"]["gpus"] > 1 and changes["gpus"]["zero_stage"] == 3


def test_zero_over_eight_gpus_fits_with_the_same_rules(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *LLAMA, "--gpus", "8", "--zero-stage", "3", "--recompute", "full")
    memory = run_json(
        capsys, "memory", "--model", "llama-3.1-8b", "--gpus", "8", "--zero-stage", "3"
    )
    assert data["model_states_bytes"] == memory["gpu_bytes"]
    assert data["fits"] is True and data["effective_batch"] == 512
    per_sample = data["activation_bytes_per_sample"]
    expected = memory["gpu_bytes"] + 10**9 + data["micro_batch"] * per_sample
    assert data["per_gpu_bytes"] == expected <= data["usable_bytes"]
    assert "why" not in data and set(data) >= {"step_seconds", "fastest"}


@pytest.mark.parametrize(
    "extra",
    [
        ("--gpus", "8", "--zero-stage", "2"),
        ("--gpus", "2", "--tensor-parallel", "4", "--recompute", "full"),
        ("--gpus", "4", "--micro-batch", "3", "--zero-stage", "3", "--offload", "optimizer"),
        ("--gpus", "1", "--lora-rank", "16", "--base-bits", "4", "--lora-targets", "all_linear"),
    ],
)
def test_typing_the_derived_figures_gives_the_same_plan(
    capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]
) -> None:
    derived = run_json(capsys, *LLAMA, *extra)
    a = D(derived["activation_bytes_per_sample"]) / 10**9
    o = (D(derived["model_states_bytes"]) + 10**9) / 10**9
    typed = run_json(capsys, *LLAMA, *extra, "--activation-gb", str(a), "--other-memory-gb", str(o))
    assert typed["activation_source"] == typed["other_memory_source"] == "given"
    for key in SOURCES:
        del derived[key], typed[key]
    assert typed == derived


def test_a_time_plan_from_a_parameter_count_needs_no_memory_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's refused example: parameters, a length, a card and pipeline stages, and
    a micro-batch of its own (without the memory none is recommended)."""
    data = run_json(
        capsys, "plan", "--params", "70000000000", "--seq-len", "4096", "--gpu-card",
        "h100-80gb", "--pipeline-stages", "4", "--tensor-parallel", "8", "--nodes", "4",
        "--gpus", "4", "--target-batch", "512", "--micro-batch", "1",
    )  # fmt: skip
    assert D(data["step_seconds"]) > 0 and data["layout"]["world_size"] == 128
    assert data["fits"] is None and data["missing"] == {"activation": "no_shape"}
    assert data["model_states_bytes"] == 20 * -(-70_000_000_000 // 32)
    # given the activation, the verdict follows
    data = run_json(
        capsys, "plan", "--params", "70000000000", "--seq-len", "4096", "--gpu-card",
        "h100-80gb", "--pipeline-stages", "4", "--tensor-parallel", "8", "--nodes", "4",
        "--gpus", "4", "--target-batch", "512", "--activation-gb", "40",
    )  # fmt: skip
    assert data["fits"] is True and "missing" not in data


def test_lora_flags_size_the_adapters_as_memory_does(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, *LLAMA, "--gpus", "1", "--lora-rank", "16", "--lora-targets", "all-linear",
        "--base-bits", "4",
    )  # fmt: skip
    memory = run_json(
        capsys, "memory", "--model", "llama-3.1-8b", "--gpus", "1", "--zero-stage", "0",
        "--recipe", "lora", "--lora-targets", "all-linear", "--base-bits", "4",
    )  # fmt: skip
    assert data["model_states_bytes"] == memory["gpu_bytes"]
    assert fails(capsys, *LLAMA, "--gpus", "1", "--base-bits", "4").endswith(
        "--base-bits goes with --lora-rank\n"
    )
    assert "--trainable-params" in fails(
        capsys, *LLAMA, "--gpus", "1", "--lora-rank", "8", "--model", "mixtral-8x7b"
    )


def test_a_config_file_is_a_model_too(capsys: pytest.CaptureFixture[str]) -> None:
    config = str(CONFIGS / "google__gemma-2b.json")
    data = run_json(
        capsys, "plan", "--model-config", config, "--seq-len", "2048", "--gpu-card",
        "a100-40gb", "--gpus", "2", "--target-batch", "64", "--zero-stage", "2",
    )  # fmt: skip
    activation = run_json(capsys, "activation", "--model-config", config, "--seq-len", "2048")
    assert data["activation_bytes_per_sample"] == activation["peak_bytes_per_sample"]
    assert data["fits"] in (True, False)
    missing = fails(capsys, "plan", "--model-config", "/nonexistent.json", "--gpus", "1",
                    "--target-batch", "8", "--seq-len", "8")  # fmt: skip
    assert missing.startswith("gradacc: error: --model-config: ")


def test_auto_finds_the_best_setup_and_ranks_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *LLAMA, "--auto", "--world-size", "8")
    setup = data["setup"]
    assert set(setup) == {
        "zero_stage", "offload", "recompute", "tensor_parallel", "pipeline_stages",
        "expert_parallel", "context_parallel", "gpus",
    }  # fmt: skip
    ranking = data["ranking"]
    first = ranking[0]
    assert {k: first[k] for k in setup} == setup
    assert set(first) >= {
        "micro_batch", "accumulation_steps", "effective_batch", "fits", "step_seconds",
        "per_gpu_bytes",
    }  # fmt: skip
    # the top level is the chosen plan
    assert data["micro_batch"] == first["micro_batch"]
    assert data["accumulation_steps"] == first["accumulation_steps"]
    assert data["gpus"] == setup["gpus"] and data["fits"] is True
    assert data["per_gpu_bytes"] == first["per_gpu_bytes"]
    assert D(data["step_seconds"]) == D(first["step_seconds"])
    seconds = [D(r["step_seconds"]) for r in ranking]
    assert seconds == sorted(seconds)
    assert all(r["effective_batch"] == 512 and r["fits"] for r in ranking)
    assert data["exclusions"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("--gpus", "8", "--auto", "--world-size", "8"), "give --world-size, not --gpus"),
        (("--auto",), "--auto needs --world-size"),
        (("--gpus", "8", "--world-size", "8"), "--world-size goes with --auto"),
        (("--auto", "--world-size", "8", "--micro-batch", "2"), "leave --micro-batch out"),
    ],
)
def test_auto_refusals(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], says: str
) -> None:
    assert says in fails(capsys, *LLAMA, *argv)
    assert "--auto needs a model" in fails(
        capsys, "plan", "--target-batch", "8", "--auto", "--world-size", "2"
    )


@pytest.mark.parametrize("name", known_models())
def test_every_command_takes_every_bundled_model(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    # Whisper's encoder runs over 1 500 positions whatever the audio: no other length;
    # image encoders read at most their caption (CLIP 77, SigLIP 64) or patch tokens
    known = facts(ModelSpec.bundled(name))
    context = known.context or 512
    seq = "1500" if name.startswith("whisper") else str(min(512, context))
    if known.vision is not None and known.vision.takes_images:
        seq = "2048"  # one image (LLaVA: 576 tokens) and its text
    memory = run_json(capsys, "memory", "--model", name, "--gpus", "1", "--zero-stage", "3")
    time = run_json(
        capsys, "time", "--model", name, "--tokens", "1000000", "--gpus", "8", "--gpu-card",
        "a100-80gb", "--seq-len", seq,
    )  # fmt: skip
    activation = run_json(capsys, "activation", "--model", name, "--seq-len", seq)
    plan = run_json(
        capsys, "plan", "--model", name, "--seq-len", seq, "--gpu-card", "h100-80gb",
        "--gpus", "1", "--target-batch", "8", "--zero-stage", "3",
    )  # fmt: skip
    assert memory["params"] == time["params"] or time["params"] < memory["params"]
    assert plan["activation_bytes_per_sample"] == activation["peak_bytes_per_sample"]
    assert plan["model_states_bytes"] == memory["gpu_bytes"]


def test_export_writes_what_each_framework_holds_of_the_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ("export", "--micro-batch", "2", "--accumulation-steps", "8", "--gpus", "4",
            "--model", "llama-3.1-8b", "--seq-len", "4096", "--lora-rank", "16")  # fmt: skip
    hf = run_json(capsys, *base, "--format", "hf", "--recompute", "full")
    adapter = hf["files"]["adapter_config.json"]
    assert '"r": 16' in adapter and '"q_proj"' in adapter and '"v_proj"' in adapter
    train = hf["files"]["train.py"]
    assert "MAX_SEQ_LENGTH = 4096" in train
    assert 'LoraConfig.from_pretrained(".")' in train
    assert "gradient_checkpointing=True" in train
    megatron = run_json(capsys, *base, "--format", "megatron")
    assert "--seq-length 4096" in megatron["files"]["megatron_args.sh"]
    assert any("no LoRA" in note for note in megatron["notes"])
    plain = run_json(
        capsys, "export", "--micro-batch", "2", "--accumulation-steps", "8", "--gpus", "4",
        "--format", "hf",
    )  # fmt: skip
    assert set(plain["files"]) == {"train.py", "launch.sh"} and plain["notes"] == []


def test_the_plan_counts_the_parameters_and_what_the_method_trains(capsys) -> None:  # type: ignore[no-untyped-def]
    base = ["plan", "--model", "qwen2.5-0.5b", "--seq-len", "512", "--gpu-card", "a100-80gb"]
    base += ["--gpus", "1", "--target-batch", "8", "--json"]
    full = run_json(capsys, *base)
    assert full["params"] == full["trainable_params"] == 494_032_768
    lora = run_json(capsys, *base, "--lora-rank", "8")
    # PEFT's count for r = 8 on q_proj and v_proj of 24 layers: 8 · (896 + 896 + 896 + 128)
    assert lora["params"] == 494_032_768
    assert lora["trainable_params"] == 24 * 8 * (896 + 896 + 896 + 128)


def test_memory_takes_the_same_lora_targets_as_plan(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["memory", "--recipe", "lora", "--model", "llama-3-8b", "--gpus", "1"]
    args += ["--zero-stage", "0", "--json"]
    named = run_json(capsys, *args, "--lora-targets", "all-linear")
    chosen = run_json(capsys, *args, "--lora-targets", "all_linear")
    assert named["trainable_params"] == chosen["trainable_params"] == 41_943_040


def test_activation_takes_a_bundled_encoder_decoders_target_length(capsys) -> None:  # type: ignore[no-untyped-def]
    by_name = run_json(
        capsys,
        "activation",
        "--model",
        "t5-base",
        "--seq-len",
        "512",
        "--target-seq",
        "128",
        "--json",
    )
    by_file = run_json(
        capsys, "activation", "--model-config", str(MODELS / "google-t5__t5-base.json"),
        "--seq-len", "512", "--target-seq", "128", "--json",
    )  # fmt: skip
    assert by_name["saved_bytes_per_sample"] == by_file["saved_bytes_per_sample"]
    assert fails(capsys, "activation", "--model", "gpt2", "--seq-len", "64", "--target-seq", "8")
