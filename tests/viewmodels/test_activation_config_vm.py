"""The estimator's view-model with a model read from a config.json: a file the user
opens, a bundled config preset, what is locked, what is remembered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.memory.activation import Accounting, Attention, Family, estimate
from gradacc_desktop.core.memory.families import read_model_config
from gradacc_desktop.viewmodels.activation import ActivationField, ActivationViewModel, Option
from gradacc_desktop.viewmodels.activation.fields import FILE_KEY
from tests.configs import config_path

F = ActivationField
QWEN3 = config_path("Qwen__Qwen3-0.6B.json")


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _vm() -> ActivationViewModel:
    return ActivationViewModel(QLocale("en"), preset="gpt2")


def _copy(tmp_path: Path, name: str = "config.json", **changes: object) -> Path:
    raw = json.loads(QWEN3.read_text(encoding="utf-8")) | changes
    path = tmp_path / name
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_opening_a_config_fills_every_size_and_names_the_model(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    replaced: list[dict] = []
    vm.valuesReplaced.connect(replaced.append)
    assert vm.open_config(str(_copy(tmp_path)))
    state = vm.state
    assert state.model_loaded and state.preset == FILE_KEY
    assert state.preset_label == "config.json (Qwen3ForCausalLM)"
    assert [vm.value(f) for f in (F.HIDDEN, F.LAYERS, F.HEADS, F.KV_HEADS)] == [1024, 28, 16, 8]
    assert vm.value(F.SEQ) == 4096  # the context (40 960), at most 4 096
    assert replaced and F.HIDDEN in replaced[-1]
    assert state.model_summary == (
        "Qwen3ForCausalLM · profile: Llama-like (Llama, Mistral, Qwen2, Qwen3) · "
        "596,049,920 parameters"
    )
    arch = read_model_config(QWEN3)
    expected = estimate(arch.inputs(seq=4096, use_cache=arch.use_cache))
    assert state.estimate is not None and state.estimate.result == expected
    assert (FILE_KEY, "config.json (Qwen3ForCausalLM)") in vm.preset_choices()
    assert any("Qwen3 normalises" in a for a in state.estimate.assumptions)
    assert "--model-config config.json --seq 4096" in state.measure_command


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{ not json", "not valid JSON"),
        ('{"model_type": "rwkv"}', "supported types are"),
        ('{"model_type": "qwen3", "hidden_size": 0}', "hidden_size"),
        ("[]", "not a JSON object"),
    ],
)
def test_a_bad_file_says_why_and_changes_nothing(  # type: ignore[no-untyped-def]
    qapp, tmp_path: Path, content: str, reason: str
) -> None:
    vm = _vm()
    vm.set_text(F.LAYERS, "7")
    before = (vm.state.estimate, [vm.value(f) for f in F], vm.state.preset)
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert not vm.open_config(str(path))
    assert vm.state.load_error.startswith("bad.json was not opened: ")
    assert reason in vm.state.load_error
    assert (vm.state.estimate, [vm.value(f) for f in F], vm.state.preset) == before
    assert not vm.state.model_loaded
    assert not vm.open_config(str(tmp_path / "missing.json"))
    assert "cannot read" in vm.state.load_error
    vm.select_preset("gpt2")
    assert vm.state.load_error == ""


def test_a_padded_batch_costs_more_under_sdpa_only(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.open_config(str(_copy(tmp_path)))
    vm.set_text(F.SEQ, "1024")
    plain = vm.state.estimate
    vm.set_option(Option.PADDED, True)
    padded = vm.state.estimate
    assert plain is not None and padded is not None
    assert padded.result.saved_bytes > plain.result.saved_bytes
    assert padded.result.inputs.padded
    vm.set_option(Option.ATTENTION, Attention.EAGER)
    eager_padded = vm.state.estimate
    vm.set_option(Option.PADDED, False)
    assert eager_padded is not None and vm.state.estimate is not None
    assert eager_padded.result.saved_bytes == vm.state.estimate.result.saved_bytes


def test_custom_sizes_after_a_config_keep_the_values_and_unlock(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.open_config(str(_copy(tmp_path)))
    vm.select_preset(None)
    assert not vm.state.model_loaded
    assert vm.value(F.HIDDEN) == 1024
    assert vm.options.family is Family.LLAMA
    # the opened file stays among the choices and comes back
    vm.select_preset(FILE_KEY)
    assert vm.state.model_loaded and vm.state.preset == FILE_KEY


def test_bundled_configs_are_choices_and_shadow_same_named_presets(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    keys = [key for key, _label in vm.preset_choices()]
    assert keys.count("mistral-7b") == 1
    vm.select_preset("mistral-7b")
    assert vm.state.model_loaded and vm.model is not None
    assert vm.model.arch.spec.sliding_window == 4096
    assert "huggingface.co/mistralai/Mistral-7B-v0.1" in " ".join(vm.state.sources)


def test_paper_profile_on_a_qwen3_head_size_is_explained(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.open_config(str(_copy(tmp_path)))
    vm.set_option(Option.PROFILE, Accounting.PAPER)
    assert vm.state.estimate is None
    assert any("paper profile" in p for p in vm.state.problems)


def test_snapshot_reopens_the_same_file_even_when_it_moved(qapp, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    path = _copy(tmp_path, "my-model.json")
    vm.open_config(str(path))
    vm.set_text(F.SEQ, "777")
    saved = vm.snapshot()
    path.unlink()
    again = _vm()
    again.restore(saved)
    assert again.state.model_loaded and again.state.preset == FILE_KEY
    assert again.value(F.SEQ) == 777
    assert again.state.preset_label == "my-model.json (Qwen3ForCausalLM)"
    assert again.state.estimate is not None
    assert again.state.estimate.result.inputs.arch == vm.state.estimate.result.inputs.arch  # type: ignore[union-attr]


def test_damaged_remembered_config_keeps_a_working_setup(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.restore(
        {"preset": FILE_KEY, "model_config": "{broken", "model_file": "x.json", "family": "t5"}
    )
    assert not vm.state.model_loaded
    assert vm.options.family.typed_sizes
    assert vm.state.estimate is not None
    vm.restore({"preset": "qwen3-0.6b", "hidden": "5"})
    assert vm.state.model_loaded and vm.value(F.HIDDEN) == 1024


def test_an_encoder_decoder_asks_for_its_target_length(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.select_preset("flan-t5-base")
    state = vm.state
    assert state.encoder_decoder and state.model_loaded
    assert "12 encoder and 12 decoder layers" in state.model_summary
    assert "247,577,856 parameters" in state.model_summary
    assert vm.value(F.TARGET_SEQ) == vm.value(F.SEQ) == 512
    before = state.estimate
    vm.set_text(F.TARGET_SEQ, "64")
    after = vm.state.estimate
    assert before is not None and after is not None
    assert after.result.inputs.decoder_seq == 64
    assert after.result.saved_bytes < before.result.saved_bytes
    assert "--target-seq 64" in vm.state.measure_command
    headings = [row.label for row in after.breakdown if row.kind.value == "section"]
    assert headings[:2] == ["Per encoder layer × 12 layers", "Per decoder layer × 12 layers"]
    vm.set_text(F.TARGET_SEQ, "0")
    assert vm.state.estimate is None and F.TARGET_SEQ in vm.state.invalid
    # a decoder-only model ignores (and does not validate) the hidden target field
    vm.select_preset("qwen3-0.6b")
    assert not vm.state.encoder_decoder and vm.state.estimate is not None
