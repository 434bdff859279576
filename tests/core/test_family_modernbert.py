"""ModernBERT read from its published config.json files (masked-LM training, alternating
global and sliding-window attention)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Recompute,
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    Task,
    family_module,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.families import modernbert as modernbert_family
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import breakdown_parts, config_path, raw_config

BASE = "answerdotai__ModernBERT-base.json"
LARGE = "answerdotai__ModernBERT-large.json"

# ModernBertForMaskedLM.num_parameters() in transformers 5.24 (decoder tied, with its
# bias); the bare ModernBertModel is 149,014,272 and 394,781,696 (the cards' 149M, 395M)
PUBLISHED = {BASE: 149_655_232, LARGE: 395_881_664}


def _stack(result: Any, kind: StackKind) -> dict[Part, int]:
    return {i.key: i.bytes for i in result.breakdown if i.stack is kind}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_transformers_parameter_count(name: str) -> None:
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (
        "modernbert",
        Family.MODERNBERT,
        Head.MASKED_LM,
    )
    assert parameters(arch) == PUBLISHED[name]
    assert family_module(arch) is modernbert_family


def test_base_sizes_and_spec() -> None:
    arch = read_model_config(config_path(BASE))
    assert (arch.hidden, arch.layers, arch.heads, arch.head_dim, arch.intermediate) == (
        768,
        22,
        12,
        64,
        1152,
    )
    assert (arch.vocab, arch.max_positions, arch.default_seq) == (50368, 8192, 4096)
    spec = arch.spec
    # every third layer from the first attends globally: 0, 3, …, 21
    assert (spec.global_layers, spec.sliding_layers) == (8, 14)
    assert (spec.local_attention, spec.sliding_window) == (128, 64)
    assert not (spec.norm_bias or spec.attention_bias or spec.mlp_bias or spec.classifier_bias)
    assert spec.decoder_bias and spec.tie_embeddings and not spec.sparse_prediction
    assert not (spec.attention_dropout or spec.embedding_dropout or spec.mlp_dropout)
    assert arch.task is Task.LM
    large = read_model_config(config_path(LARGE))
    assert (large.spec.global_layers, large.spec.sliding_layers) == (10, 18)


def test_defaults_and_layer_patterns() -> None:
    # ModernBertConfig() is ModernBERT-base
    assert parameters(parse_model_config({"model_type": "modernbert"})) == PUBLISHED[BASE]
    raw = raw_config(BASE)
    every = parse_model_config(raw | {"global_attn_every_n_layers": 1}).spec
    assert (every.global_layers, every.sliding_layers) == (22, 0)
    types = ["full_attention", "sliding_attention"] * 11
    listed = parse_model_config(raw | {"layer_types": types}).spec
    assert (listed.global_layers, listed.sliding_layers) == (11, 11)


def test_bias_and_head_variants_count_like_transformers() -> None:
    raw = raw_config(BASE)
    h, i, v, layers = 768, 1152, 50368, 22
    base = PUBLISHED[BASE]
    # norms: embeddings, 21 attention norms (none in the first layer), 22 MLP norms,
    # final, head
    assert (
        parameters(parse_model_config(raw | {"norm_bias": True})) - base
        == (1 + 21 + 22 + 1 + 1) * h
    )
    assert parameters(parse_model_config(raw | {"attention_bias": True})) - base == (
        layers * (3 * h + h)
    )
    assert parameters(parse_model_config(raw | {"mlp_bias": True})) - base == layers * (2 * i + h)
    assert parameters(parse_model_config(raw | {"decoder_bias": False})) - base == -v
    assert parameters(parse_model_config(raw | {"tie_word_embeddings": False})) - base == v * h
    untied = parse_model_config(raw | {"tie_word_embeddings": False})
    assert size_of("m", untied).compute_params == parameters(untied) - v * h
    assert size_of("m", read_model_config(config_path(BASE))).compute_params == base


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"hidden_size": 0}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"layer_types": "full_attention"}, "layer_types", ConfigProblem.BAD_VALUE),
        ({"norm_bias": 1}, "norm_bias", ConfigProblem.BAD_VALUE),
        ({"mlp_dropout": 1.5}, "mlp_dropout", ConfigProblem.BAD_VALUE),
        ({"num_attention_heads": 10}, "num_attention_heads", ConfigProblem.UNSUPPORTED),
        ({"head_dim": 32}, "head_dim", ConfigProblem.UNSUPPORTED),
        ({"hidden_activation": "swiglu"}, "hidden_activation", ConfigProblem.UNSUPPORTED),
        ({"classifier_activation": "mish"}, "classifier_activation", ConfigProblem.UNSUPPORTED),
        ({"layer_types": ["full_attention"] * 21}, "layer_types", ConfigProblem.UNSUPPORTED),
        ({"layer_types": ["chunked_attention"] * 22}, "layer_types", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(BASE) | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail


def test_base_bytes_by_hand_cpu_sdpa() -> None:
    # bf16 (p = 2), CPU (LayerNorm statistics in the dtype), SDPA, no dropout, s = 512
    arch = read_model_config(config_path(BASE))
    p, s, h, i, a, d, v = 2, 512, 768, 1152, 12, 64, 50368
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    norm = p * s * h + 2 * p * s
    full = {
        Part.ATTN_NORM: norm,
        Part.QKV_PROJ_INPUT: p * s * h,
        # the whole Wqkv output (V is a view), the rotated Q and K
        Part.ATTN_QKV: 3 * p * s * h + 2 * p * s * h,
        Part.ATTN_FUSED: 4 * a * s,
        Part.ATTN_OUT_PROJ_INPUT: p * s * h,
        Part.MLP_NORM: norm,
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        # the whole Wi output (input and gate) and the GELU output
        Part.MLP_ACTIVATION: 2 * p * s * i + p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    assert _stack(result, StackKind.GLOBAL) == full
    # s ≥ 64: the sliding layers get a window mask, of which SDPA keeps a bf16 copy
    assert _stack(result, StackKind.SLIDING) == full | {Part.ATTN_MASK: p * s * s}
    counts = {i.stack: i.count for i in result.breakdown if i.stack is not None}
    assert counts == {StackKind.GLOBAL: 8, StackKind.SLIDING: 14}
    assert breakdown_parts(result, per_layer=False) == {
        Part.EMBEDDINGS: 8 * s + norm,
        # cos and sin of the global and the local table
        Part.ROTARY: 2 * 2 * p * s * d,
        Part.MLM_HEAD: 2 * p * s * h + norm,
        Part.LM_HEAD_INPUT: p * s * h,
        # fp32 log-softmax, int64 labels, fp32 total weight
        Part.LOSS: 4 * s * v + 8 * s + 4,
    }


def test_the_window_mask_starts_at_half_the_window() -> None:
    arch = read_model_config(config_path(BASE))
    below = estimate(arch.inputs(seq=63, device=Device.CPU))
    at = estimate(arch.inputs(seq=64, device=Device.CPU))
    assert Part.ATTN_MASK not in _stack(below, StackKind.SLIDING)
    assert _stack(at, StackKind.SLIDING)[Part.ATTN_MASK] == 2 * 64 * 64
    # a padded batch: every layer gets a mask
    padded = estimate(arch.inputs(seq=63, device=Device.CPU, padded=True))
    assert _stack(padded, StackKind.GLOBAL)[Part.ATTN_MASK] == 2 * 63 * 63
    # eager adds the masks to the scores: nothing kept
    eager = arch.inputs(seq=256, attention=Attention.EAGER)
    assert estimate(eager).saved_bytes == estimate(replace(eager, padded=True)).saved_bytes


def test_full_recomputation_counts_the_final_norm() -> None:
    arch = read_model_config(config_path(BASE))
    p, s, h = 2, 1024, 768
    full = estimate(arch.inputs(seq=s, recompute=Recompute.FULL, device=Device.CPU))
    outside = breakdown_parts(full, per_layer=False)
    assert outside[Part.FINAL_NORM] == p * s * h + 2 * p * s
    assert Part.ROTARY not in outside
    # the masks and cos/sin are keyword arguments: padding changes nothing
    padded = arch.inputs(seq=s, recompute=Recompute.FULL, device=Device.CPU, padded=True)
    assert estimate(padded).saved_bytes == full.saved_bytes
    none = breakdown_parts(estimate(arch.inputs(seq=s)), per_layer=False)
    assert Part.FINAL_NORM not in none


def test_eager_keeps_the_fp32_softmax_and_its_cast() -> None:
    arch = read_model_config(config_path(BASE))
    s, a = 256, 12
    parts = _stack(estimate(arch.inputs(seq=s, attention=Attention.EAGER)), StackKind.GLOBAL)
    assert parts[Part.ATTN_SOFTMAX] == 4 * a * s * s + 2 * a * s * s
    # the published file trains without dropout: asking for it changes nothing
    off = estimate(arch.inputs(seq=s, attention=Attention.EAGER, dropout=True))
    assert off.saved_bytes == estimate(arch.inputs(seq=s, attention=Attention.EAGER)).saved_bytes
    assert any("every dropout probability to 0" in n for n in off.notes)
    on = parse_model_config(raw_config(BASE) | {"attention_dropout": 0.1})
    dropped = estimate(on.inputs(seq=s, attention=Attention.EAGER, dropout=True))
    parts = _stack(dropped, StackKind.GLOBAL)
    assert parts[Part.ATTN_SOFTMAX] == 4 * a * s * s
    assert parts[Part.ATTN_DROPOUT] == a * s * s + 2 * a * s * s
    # out_drop after Wo; the embedding and MLP dropouts stay off
    assert parts[Part.ATTN_RESID_DROPOUT] == s * 768 and Part.MLP_RESID_DROPOUT not in parts
    assert not any("every dropout probability to 0" in n for n in dropped.notes)


def test_sparse_prediction_adds_the_selection() -> None:
    raw = raw_config(BASE)
    sparse = parse_model_config(raw | {"sparse_prediction": True})
    s = 512
    loss = breakdown_parts(estimate(sparse.inputs(seq=s)), per_layer=False)[Part.LOSS]
    dense = read_model_config(config_path(BASE))
    assert loss - breakdown_parts(estimate(dense.inputs(seq=s)), per_layer=False)[Part.LOSS] == s
    assert any("sparse_prediction" in n for n in estimate(sparse.inputs(seq=s)).notes)


def test_rotary_positions_run_past_the_context_with_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    known = facts(ModelSpec.bundled("modernbert-base"))
    assert (known.params, known.learned_positions, known.context) == (
        PUBLISHED[BASE],
        None,
        8192,
    )
    path = str(config_path(BASE))
    assert main(["activation", "--model-config", path, "--seq-len", "8192"]) == 0
    capsys.readouterr()
    assert main(["activation", "--model-config", path, "--seq-len", "9000"]) == 0
    assert "8192" in capsys.readouterr().err


def test_notes_name_the_unmeasured_flash_path() -> None:
    arch = read_model_config(config_path(BASE))
    notes = estimate(arch.inputs(seq=512)).notes
    assert any("not measured" in n and "flash" in n for n in notes)


@pytest.mark.parametrize(("name", "bare"), [(BASE, 149_014_272), (LARGE, 394_781_696)])
def test_the_bare_model_and_token_heads_are_estimated(name: str, bare: int) -> None:
    raw = raw_config(name)
    h = raw["hidden_size"]
    model = parse_model_config(raw | {"architectures": ["ModernBertModel"]})
    assert model.task is Task.BASE and model.task_modelled
    assert parameters(model) == bare  # ModernBertModel.num_parameters()
    tokens = parse_model_config(
        raw | {"architectures": ["ModernBertForTokenClassification"], "num_labels": 9}
    )
    assert tokens.task_modelled
    # the prediction head (dense without bias, LayerNorm without bias) and the classifier
    assert parameters(tokens) == bare + h * h + h + 9 * h + 9
    notes = estimate(tokens.inputs(seq=128)).notes
    assert notes[0].startswith("Token classification (ModernBertForTokenClassification")


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_the_sequence_classifier_is_estimated(pooling: str) -> None:
    raw = raw_config(BASE) | {"classifier_pooling": pooling}
    h, bare = raw["hidden_size"], 149_014_272
    arch = parse_model_config(raw | {"architectures": ["ModernBertForSequenceClassification"]})
    assert arch.task_modelled and arch.spec.classifier_pooling == pooling
    # the prediction head (dense and LayerNorm without bias) and the classifier
    assert parameters(arch) == bare + h * h + h + 2 * h + 2
    notes = estimate(arch.inputs(seq=128)).notes
    assert not any("not modelled for this family" in n for n in notes)


def test_multiple_choice_is_estimated_as_the_masked_lm_and_says_so() -> None:
    raw = raw_config(BASE) | {"architectures": ["ModernBertForMultipleChoice"]}
    arch = parse_model_config(raw)
    assert not arch.task_modelled
    notes = estimate(arch.inputs(seq=128)).notes
    assert any("not modelled for this family" in n for n in notes)


def test_an_unknown_pooling_is_refused() -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(BASE) | {"classifier_pooling": "max"})
    assert (err.value.key, err.value.problem) == ("classifier_pooling", ConfigProblem.UNSUPPORTED)
