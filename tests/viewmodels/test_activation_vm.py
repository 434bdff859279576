from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.calculator import DEFAULTS, Field
from gradacc_desktop.core.memory.activation import (
    ASSUMPTION_TEXT,
    PART_TEXT,
    Accounting,
    Assumption,
    Attention,
    Family,
    Part,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.presets import load_config_presets, load_presets
from gradacc_desktop.viewmodels.activation import (
    ActivationField,
    ActivationState,
    ActivationViewModel,
    Option,
    RowKind,
)
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from tests.configs import bundled_preset

F = ActivationField
GPT2 = bundled_preset("gpt2")
LLAMA_8B = bundled_preset("llama-3-8b")


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def _vm(locale: str = "en", preset: str | None = "gpt2") -> ActivationViewModel:
    return ActivationViewModel(QLocale(locale), preset=preset)


def _estimate(vm: ActivationViewModel):  # type: ignore[no-untyped-def]
    view = vm.state.estimate
    assert view is not None, vm.state.problems
    return view


def test_starts_with_gpt2_and_the_core_numbers(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    expected = estimate(GPT2.inputs())
    assert expected.saved_bytes == 738_299_916
    assert expected.peak_bytes == 1_047_078_924
    view = _estimate(vm)
    assert view.result == expected
    assert view.saved == "0.738 GB"
    assert view.peak == "1.047 GB"
    assert view.saved_bytes.startswith("738,299,916 byte")
    assert view.peak_bytes.startswith("1,047,078,924 byte")
    assert view.calculator_value == "1.048 GB"
    assert vm.state.preset == "gpt2"
    assert vm.state.preset_label == "GPT-2 small (124M)"
    assert [vm.value(f) for f in F] == [768, 12, 12, 12, 3072, 50257, 1024, 512, 1, 1, 224, 224]


def test_choosing_a_preset_fills_every_size(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm(preset=None)
    assert vm.state.preset is None
    assert vm.state.preset_label == "Custom"
    with qtbot.waitSignal(vm.valuesReplaced) as blocker:
        vm.select_preset("llama-3-8b")
    assert blocker.args[0] == {
        F.HIDDEN: 4096,
        F.LAYERS: 32,
        F.HEADS: 32,
        F.KV_HEADS: 8,
        F.INTERMEDIATE: 14336,
        F.VOCAB: 128256,
        F.SEQ: 8192,
    }
    assert vm.options.family is Family.LLAMA
    assert vm.inputs == LLAMA_8B.inputs()
    vm.select_preset("gpt2")
    assert vm.inputs == GPT2.inputs()
    family: Family = vm.options.family  # (mypy narrowed it to LLAMA above)
    assert family is Family.GPT2


def test_editing_a_size_marks_the_preset_modified(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_text(F.LAYERS, "24")
    assert vm.state.preset == "gpt2"
    assert vm.state.preset_label == "GPT-2 small (124M) (modified)"
    assert any("(modified)" in s for s in vm.state.sources)
    vm.set_text(F.LAYERS, "12")
    assert vm.state.preset_label == "GPT-2 small (124M)"
    # the sequence length is a training choice, not part of the model
    vm.set_text(F.SEQ, "512")
    assert vm.state.preset_label == "GPT-2 small (124M)"
    vm.set_text(F.LAYERS, "6")
    vm.select_preset(None)
    assert vm.state.preset_label == "Custom"
    assert vm.value(F.LAYERS) == 6
    assert not any("huggingface.co" in s for s in vm.state.sources)


def test_sequence_length_updates_the_figures(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    with qtbot.waitSignal(vm.stateChanged) as blocker:
        vm.set_text(F.SEQ, "512")
    state = blocker.args[0]
    assert isinstance(state, ActivationState)
    assert state.estimate is not None
    assert state.estimate.result == estimate(GPT2.inputs(seq=512))
    assert state.estimate.peak == "0.524 GB"


def test_same_text_emits_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    with qtbot.assertNotEmitted(vm.stateChanged):
        vm.set_text(F.SEQ, "1024")
        vm.set_text(F.SEQ, "1,024")


def test_full_recomputation_lowers_what_is_saved(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    before = _estimate(vm).result.saved_bytes
    vm.set_option(Option.RECOMPUTE, Recompute.FULL)
    after = _estimate(vm).result
    assert after.saved_bytes < before
    assert after == estimate(GPT2.inputs(recompute=Recompute.FULL))
    labels = [row.label for row in _estimate(vm).breakdown]
    assert "Layer input (checkpoint)" in labels
    assert "One layer recomputed in the backward pass" in labels


def test_per_op_recomputation_is_refused_for_gpt2_in_words(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_option(Option.RECOMPUTE, Recompute.SELECTIVE_OP)
    assert vm.state.estimate is None
    assert vm.state.problems == (
        "Per-op selective recomputation is modelled for Llama-like layers (Llama, Mistral, "
        "Qwen2, Qwen3) with fused attention (SDPA) and no dropout: choose another "
        "recomputation.",
    )
    llama = _vm(preset="llama-3-8b")
    llama.set_option(Option.RECOMPUTE, Recompute.SELECTIVE_OP)
    labels = [row.label for row in _estimate(llama).breakdown]
    assert "Every second product's output (per-op)" in labels


def test_eager_attention_stores_the_scores(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    sdpa = _estimate(vm)
    vm.set_option(Option.ATTENTION, Attention.EAGER)
    eager = _estimate(vm)
    assert eager.result.saved_bytes > sdpa.result.saved_bytes
    assert eager.result == estimate(GPT2.inputs(attention=Attention.EAGER))
    assert "Attention scores (softmax)" in [r.label for r in eager.breakdown]
    assert "Attention scores (softmax)" not in [r.label for r in sdpa.breakdown]
    assert "Fused attention log-sum-exp" in [r.label for r in sdpa.breakdown]


def test_options_reach_the_core(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.select_preset("llama-3-8b")
    vm.set_option(Option.PROFILE, Accounting.PAPER)
    vm.set_option(Option.DROPOUT, True)
    vm.set_text(F.TENSOR_PARALLEL, "8")
    vm.set_option(Option.SEQUENCE_PARALLEL, True)
    from gradacc_desktop.core.memory.activation import Precision

    vm.set_option(Option.DTYPE, Precision.FP32)
    assert vm.inputs == LLAMA_8B.inputs(
        profile=Accounting.PAPER,
        dropout=True,
        tensor_parallel=8,
        sequence_parallel=True,
        dtype=Precision.FP32,
    )


def test_breakdown_rows(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    rows = _estimate(vm).breakdown
    first = rows[0]
    assert first.kind is RowKind.SECTION
    assert first.label.startswith("Per layer × 12 layer")
    assert first.per_layer == "0.0441 GB"
    assert rows[1].label == "Attention norm"
    assert rows[1].per_layer == "0.00158 GB"  # 3 significant digits below 1 GB
    by_label = {row.label: row for row in rows}
    assert by_label["Embeddings"].total == "0.0000164 GB"
    assert by_label["Logits and loss"].total == "0.206 GB"
    assert by_label["Saved for the backward pass"].kind is RowKind.TOTAL
    assert by_label["Saved for the backward pass"].total == "0.738 GB"
    assert rows[-1].label == "Peak"
    assert rows[-1].total == "1.047 GB"
    assert [r.label for r in rows if r.kind is RowKind.SECTION][1:] == [
        "Once per sample",
        "Only at the peak",
    ]


def test_parts_and_assumptions_show_the_cores_text_translated(catalogue) -> None:  # type: ignore[no-untyped-def]
    """The rows and assumptions of a real estimate name what the core's result holds,
    by the core's English text, and the same estimate in Portuguese shows the
    catalogue's translations of those texts (every one translated but "Embeddings")."""
    vm = _vm(preset="llama-3-8b")
    view = _estimate(vm)
    result = view.result
    parts = [item.key for item in (*result.breakdown, *result.peak_extra)]
    assert parts and result.assumptions  # something to show
    labels = [row.label for row in view.breakdown if row.kind is RowKind.ITEM]
    assert labels == [PART_TEXT[p] for p in parts]
    assert list(view.assumptions[: len(result.assumptions)]) == [
        ASSUMPTION_TEXT[a] for a in result.assumptions
    ]

    catalogue("pt_BR")
    vm = _vm("pt_BR", preset="llama-3-8b")
    view = _estimate(vm)
    assert [item.key for item in (*view.result.breakdown, *view.result.peak_extra)] == parts
    labels = [row.label for row in view.breakdown if row.kind is RowKind.ITEM]
    untranslated = [p for p, label in zip(parts, labels, strict=True) if label == PART_TEXT[p]]
    assert untranslated in ([], [Part.EMBEDDINGS])  # the same word in Portuguese
    assert all(label for label in labels)
    shown = view.assumptions[: len(result.assumptions)]
    assert not set(shown) & set(ASSUMPTION_TEXT.values())
    if Assumption.HEAD_DIM in result.assumptions:
        assert "O tamanho de cada cabeça é dimensão oculta / cabeças." in shown
    # and the catalogue covers every part and assumption, not only this estimate's
    texts = vm.texts
    missing: list[Part | Assumption] = [p for p in Part if texts.part_text(p) == PART_TEXT[p]]
    missing += [a for a in Assumption if texts.assumption_text(a) == ASSUMPTION_TEXT[a]]
    assert missing == [Part.EMBEDDINGS]


def test_assumptions_and_sources(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    view = _estimate(vm)
    assert len(view.assumptions) == len(view.result.assumptions)
    assert "Head size is hidden size / heads." in view.assumptions
    assert view.assumptions[-1].startswith("Peak = saved for the backward pass")
    sources = vm.state.sources
    assert sources[0] == f"Model sizes: GPT-2 small (124M), {GPT2.source}"
    assert sources[1] == (
        "Paper profile: Korthikanti et al. 2022, Reducing Activation Recomputation in Large "
        "Transformer Models, Table 2, https://arxiv.org/abs/2205.05198"
    )


def test_value_for_calculator_rounds_the_peak_up(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    assert vm.value_for_calculator() == Decimal("1.048")  # 1.047078924 GB
    for field, text in ((F.HIDDEN, "8"), (F.HEADS, "1"), (F.LAYERS, "1"), (F.VOCAB, "2")):
        vm.set_text(field, text)
    vm.set_text(F.INTERMEDIATE, "8")
    vm.set_text(F.SEQ, "1")
    assert _estimate(vm).result.peak_bytes < 10_000
    assert vm.value_for_calculator() == Decimal("0.001")  # never 0


def test_use_value_sets_the_calculator(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    calculator = CalculatorViewModel(QLocale("en"))
    with qtbot.waitSignal(calculator.fieldReplaced) as blocker:
        assert vm.use_value(calculator)
    assert blocker.args == [Field.ACTIVATION_GB]  # only the activation changes
    assert calculator.inputs == DEFAULTS.replace(activation_gb=Decimal("1.048"))
    assert calculator.state.results is not None
    assert calculator.state.results.activation == "4.192 GB"


def test_heads_must_divide_the_hidden_size(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.select_preset("llama-3-8b")
    vm.set_text(F.HEADS, "30")
    state = vm.state
    assert state.estimate is None
    assert state.prompt == "Correct the highlighted fields to see the estimate."
    assert state.problems == ("Hidden size: must be a multiple of the attention heads (30).",)
    assert state.invalid == {F.HIDDEN, F.HEADS}
    assert not state.can_use
    assert vm.value_for_calculator() is None
    assert not vm.use_value(CalculatorViewModel(QLocale("en")))


def test_kv_heads_must_divide_the_heads(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.select_preset("llama-3-8b")
    vm.set_text(F.KV_HEADS, "5")
    assert vm.state.problems == ("Key/value heads: must divide the attention heads (32).",)
    assert vm.state.invalid == {F.KV_HEADS, F.HEADS}


def test_tensor_parallel_must_divide_the_sizes(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.select_preset("llama-3-8b")
    vm.set_text(F.TENSOR_PARALLEL, "3")
    assert vm.state.problems == (
        "Attention heads: must be a multiple of the tensor-parallel size (3).",
    )
    assert vm.state.invalid == {F.HEADS, F.TENSOR_PARALLEL}
    vm.set_text(F.TENSOR_PARALLEL, "8")
    vm.set_text(F.SEQ, "8191")
    assert vm.state.has_result
    vm.set_option(Option.SEQUENCE_PARALLEL, True)
    assert vm.state.problems == (
        "Sequence length: with sequence parallelism, must be a multiple of the "
        "tensor-parallel size (8).",
    )


def test_field_problems_name_the_field(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_text(F.LAYERS, "0")
    vm.set_text(F.VOCAB, "")
    vm.set_text(F.SEQ, "x")
    vm.set_text(F.HIDDEN, "1.5")
    assert vm.state.problems == (
        "Hidden size: enter a whole number.",
        "Layers: enter a value from 1 to 10,000.",
        "Vocabulary size: enter a value.",
        "Sequence length: “x” is not a number.",
    )
    assert vm.state.invalid == {F.HIDDEN, F.LAYERS, F.VOCAB, F.SEQ}
    assert vm.inputs is None


def test_gpt2_key_value_heads_follow_the_heads(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    assert vm.state.kv_heads_follow_heads
    with qtbot.waitSignal(vm.valuesReplaced) as blocker:
        vm.set_text(F.HEADS, "16")
    assert blocker.args[0] == {F.KV_HEADS: 16}
    assert vm.inputs is not None
    assert vm.inputs.kv_heads == 16
    vm.set_text(F.KV_HEADS, "4")  # ignored: the field is disabled for GPT-2
    assert vm.value(F.KV_HEADS) == 16
    vm.set_family(Family.LLAMA)
    assert not vm.state.kv_heads_follow_heads
    vm.set_text(F.KV_HEADS, "4")
    assert vm.inputs is not None
    assert vm.inputs.kv_heads == 4
    with qtbot.waitSignal(vm.valuesReplaced) as blocker:
        vm.set_family(Family.GPT2)
    assert blocker.args[0] == {F.KV_HEADS: 16}
    assert vm.inputs is not None
    assert vm.inputs.kv_heads == 16


def test_warnings(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    vm.set_text(F.SEQ, "2048")
    assert _estimate(vm).warnings == (
        "The sequence is longer than GPT-2 small (124M) accepts (1,024 positions).",
    )
    vm.select_preset("llama-3-70b")
    vm.set_option(Option.ATTENTION, Attention.EAGER)
    vm.set_text(F.SEQ, "1000000")
    view = _estimate(vm)
    assert view.calculator_value == ""
    assert "The peak is above the calculator's maximum of 100,000 GB." in view.warnings
    assert not vm.state.can_use
    assert vm.value_for_calculator() is None


def test_portuguese_numbers(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("pt_BR")
    view = _estimate(vm)
    assert view.saved.startswith("0,738")
    assert view.peak.startswith("1,047")
    assert view.peak_bytes.startswith("1.047.078.924")
    vm.set_text(F.SEQ, "2.048")
    assert vm.inputs is not None
    assert vm.inputs.seq == 2048


def test_locale_switch_rerenders(qtbot) -> None:  # type: ignore[no-untyped-def]
    vm = _vm("pt_BR")
    states: list[object] = []
    vm.stateChanged.connect(states.append)
    vm.set_language(QLocale("en"))
    assert len(states) == 1
    assert _estimate(vm).peak_bytes.startswith("1,047,078,924")


def test_measure_command_follows_the_options(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    assert vm.state.measure_command == (
        "python -m gradacc_desktop.measure --model-config config.json --seq 1024 "
        "--dtype bf16 --attention sdpa --no-dropout"
    )
    vm.set_option(Option.RECOMPUTE, Recompute.FULL)
    vm.set_option(Option.ATTENTION, Attention.EAGER)
    vm.set_option(Option.DROPOUT, True)
    vm.set_text(F.SEQ, "2048")
    assert vm.state.measure_command == (
        "python -m gradacc_desktop.measure --model-config config.json --seq 2048 "
        "--dtype bf16 --attention eager --checkpointing"
    )


def test_every_preset_gives_an_estimate(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = _vm()
    for preset in load_presets():
        vm.select_preset(preset.name)
        assert vm.state.has_result, preset.name
        assert vm.value_for_calculator() is not None
    configs = load_config_presets()
    for config in configs:
        vm.select_preset(config.name)
        assert vm.state.has_result, config.name
        assert vm.state.model_loaded and vm.state.preset == config.name
        assert "parameters" in vm.state.model_summary
    names = [name for name, _label in vm.preset_choices()]
    assert names[-1] is None
    # a published config replaces a sized preset of the same name
    shadowed = {c.name for c in configs}
    sized = [p.name for p in load_presets() if p.name not in shadowed]
    assert names[:-1] == sized + [c.name for c in configs]


def test_snapshot_round_trip(qapp) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QLocale

    from gradacc_desktop.core.memory.activation import Attention, Recompute
    from gradacc_desktop.viewmodels.activation import ActivationField, ActivationViewModel

    first = ActivationViewModel(QLocale("en"))
    first.select_preset("mistral-7b")
    first.set_option(Option.ATTENTION, Attention.EAGER)
    first.set_option(Option.RECOMPUTE, Recompute.FULL)
    first.set_option(Option.DROPOUT, True)
    first.set_option(Option.FUSED_LOSS, True)
    first.set_value(ActivationField.SEQ, 4096)
    saved = first.snapshot()
    second = ActivationViewModel(QLocale("en"))
    second.restore(saved)
    assert second.snapshot() == saved
    assert second.options == first.options
    assert second.state.estimate is not None and first.state.estimate is not None
    assert second.state.estimate.result == first.state.estimate.result
