"""Activation estimate: Korthikanti et al. 2022 Table 2 in exact integers, presets, properties."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.memory.activation import (
    ASSUMPTION_TEXT,
    PART_TEXT,
    Accounting,
    Assumption,
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    Precision,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.presets import (
    PresetError,
    load_presets,
    parse_presets,
)
from tests.configs import bundled_preset

# Table 3 of the paper: (attention heads, hidden, layers, tensor-parallel size), s = 2048
PAPER_MODELS = {
    "22B": (64, 6144, 48, 8),
    "175B": (96, 12288, 96, 8),
    "530B": (128, 20480, 105, 8),
    "1T": (160, 25600, 128, 8),
}
SEQ = 2048
VOCAB = 51200


def paper_table2_layer_bytes(
    s: int, h: int, a: int, t: int = 1, *, sp: bool = False, recompute: Recompute = Recompute.NONE
) -> int:
    """Table 2 of Korthikanti et al. 2022 written literally (b = 1): the published
    expression the estimator's paper profile is checked against.

    Raises ``ValueError`` if the expression is not an integer for these sizes.
    """
    sbh = Fraction(s * h)
    if recompute is Recompute.FULL:
        value = 2 * sbh
    elif recompute is Recompute.SELECTIVE:
        value = sbh * (Fraction(34, t) if sp else 10 + Fraction(24, t))
    elif sp:
        value = sbh * (Fraction(34, t) + Fraction(5 * a * s, h * t))
    else:
        value = sbh * (10 + Fraction(24, t) + Fraction(5 * a * s, h * t))
    if value.denominator != 1:
        raise ValueError("Table 2 expression is not an integer for these sizes")
    return int(value)


def paper(a: int, h: int, layers: int, t: int = 1, **changes: object) -> Inputs:
    base: dict[str, object] = {
        "family": Family.GPT2,
        "hidden": h,
        "layers": layers,
        "heads": a,
        "kv_heads": a,
        "intermediate": 4 * h,
        "vocab": VOCAB,
        "seq": SEQ,
        "dtype": Precision.FP16,
        "dropout": True,
        "attention": Attention.EAGER,
        "profile": Accounting.PAPER,
        "tensor_parallel": t,
    }
    base.update(changes)
    return Inputs(**base)  # type: ignore[arg-type]


def layer(inputs: Inputs) -> int:
    return estimate(inputs).per_layer_bytes


def test_gpt3_175b_table2_rows_exact() -> None:
    a, h, L, t = PAPER_MODELS["175B"]
    s = SEQ
    # sbh(34 + 5as/h) = 34sbh + 5as²b
    assert layer(paper(a, h, L)) == 34 * s * h + 5 * a * s * s == 2_868_903_936
    # sbh(10 + 24/t + 5as/(ht))
    assert layer(paper(a, h, L, t)) == 10 * s * h + 24 * s * h // t + 5 * a * s * s // t
    assert layer(paper(a, h, L, t)) == 578_813_952
    # sbh(34/t + 5as/(ht))
    assert layer(paper(a, h, L, t, sequence_parallel=True)) == (34 * s * h + 5 * a * s * s) // t
    assert layer(paper(a, h, L, t, sequence_parallel=True)) == 358_612_992
    # sbh(34/t)
    selective = paper(a, h, L, t, sequence_parallel=True, recompute=Recompute.SELECTIVE)
    assert layer(selective) == 34 * s * h // t == 106_954_752
    # 2sbh
    assert layer(paper(a, h, L, t, recompute=Recompute.FULL)) == 2 * s * h == 50_331_648


@pytest.mark.parametrize("name", sorted(PAPER_MODELS))
def test_table2_matches_literal_expressions(name: str) -> None:
    a, h, L, t = PAPER_MODELS[name]
    s = SEQ
    cases = [
        (paper(a, h, L), paper_table2_layer_bytes(s, h, a)),
        (paper(a, h, L, t), paper_table2_layer_bytes(s, h, a, t)),
        (
            paper(a, h, L, t, sequence_parallel=True),
            paper_table2_layer_bytes(s, h, a, t, sp=True),
        ),
        (
            paper(a, h, L, t, sequence_parallel=True, recompute=Recompute.SELECTIVE),
            paper_table2_layer_bytes(s, h, a, t, sp=True, recompute=Recompute.SELECTIVE),
        ),
        (
            paper(a, h, L, t, recompute=Recompute.FULL),
            paper_table2_layer_bytes(s, h, a, t, recompute=Recompute.FULL),
        ),
    ]
    for inputs, expected in cases:
        assert layer(inputs) == expected


@pytest.mark.parametrize(
    ("name", "no_parallel", "tp", "tp_sp", "selective", "full"),
    [
        # explicit integers, computed by hand from Table 2 (b = 1, s = 2048)
        ("22B", 1_769_996_288, 331_350_016, 221_249_536, 53_477_376, 25_165_824),
        ("530B", 4_110_417_920, 880_803_840, 513_802_240, 178_257_920, 83_886_080),
        ("1T", 5_138_022_400, 1_101_004_800, 642_252_800, 222_822_400, 104_857_600),
    ],
)
def test_table2_other_models(
    name: str, no_parallel: int, tp: int, tp_sp: int, selective: int, full: int
) -> None:
    a, h, L, t = PAPER_MODELS[name]
    assert layer(paper(a, h, L)) == no_parallel
    assert layer(paper(a, h, L, t)) == tp
    assert layer(paper(a, h, L, t, sequence_parallel=True)) == tp_sp
    sel = paper(a, h, L, t, sequence_parallel=True, recompute=Recompute.SELECTIVE)
    assert layer(sel) == selective
    assert layer(paper(a, h, L, t, recompute=Recompute.FULL)) == full


def test_paper_total_adds_outside_layers() -> None:
    """§4.3: embedding dropout sbh/t plus 4sbh/t·(1 + v/h) for norm, projection, logits."""
    a, h, L, t = PAPER_MODELS["175B"]
    s, v = SEQ, VOCAB
    inputs = paper(a, h, L, t, sequence_parallel=True)
    result = estimate(inputs)
    outside = s * h // t + 4 * s * h // t + 4 * s * v // t
    assert result.saved_bytes == L * result.per_layer_bytes + outside
    assert sum(item.total for item in result.breakdown) == result.saved_bytes


def test_paper_llama_accounting() -> None:
    # h=4096, a=32, k=8, i=14336, no dropout, t=1: 8sh + 2sh(Q) + 4s·k·d + 2sh + 8si + 2as²
    s, h, a, k, i = 4096, 4096, 32, 8, 14336
    d = h // a
    inputs = Inputs(
        Family.LLAMA, h, 32, a, k, i, 128256, s, attention=Attention.EAGER, profile=Accounting.PAPER
    )
    expected = 8 * s * h + 2 * s * h + 4 * s * k * d + 2 * s * h + 8 * s * i + 2 * a * s * s
    assert layer(inputs) == expected
    sdpa = Inputs(Family.LLAMA, h, 32, a, k, i, 128256, s, profile=Accounting.PAPER)
    assert layer(sdpa) == expected - 2 * a * s * s + 4 * a * s


def test_full_recompute_peak_adds_one_layer_and_logits() -> None:
    inputs = bundled_preset("llama-3-8b").inputs(recompute=Recompute.FULL)
    full = estimate(inputs)
    none = estimate(bundled_preset("llama-3-8b").inputs())
    extra = {item.key: item.total for item in full.peak_extra}
    s, v = inputs.seq, inputs.vocab
    assert extra[Part.LOGITS_TRANSIENT] == 2 * s * v + 4 * s * v
    assert full.peak_bytes == full.saved_bytes + extra[Part.RECOMPUTED_LAYER] + (6 * s * v)
    assert extra[Part.RECOMPUTED_LAYER] == none.per_layer_bytes
    assert full.per_layer_bytes == 2 * s * inputs.hidden


def test_hf_gpt2_layer_terms() -> None:
    # GPT-2 small, eager, bf16, CUDA, dropout: 58sh + 5as² + 4 LayerNorm stats
    s, h, a = 1024, 768, 12
    inputs = Inputs(
        Family.GPT2, h, 12, a, a, 4 * h, 50257, s, dropout=True, attention=Attention.EAGER
    )
    assert layer(inputs) == 58 * s * h + 5 * a * s * s + 2 * 2 * 4 * s


def test_every_key_has_text() -> None:
    assert set(PART_TEXT) == set(Part)
    assert set(ASSUMPTION_TEXT) == set(Assumption)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"hidden": 65}, "hidden"),
        ({"kv_heads": 3}, "kv_heads"),
        ({"seq": 0}, "seq"),
        ({"tensor_parallel": 3}, "heads"),
        ({"family": Family.GPT2, "kv_heads": 2}, "kv_heads"),
        ({"tensor_parallel": 2, "sequence_parallel": True, "seq": 33}, "seq"),
    ],
)
def test_invalid_inputs(changes: dict[str, object], field: str) -> None:
    base: dict[str, object] = {
        "family": Family.LLAMA,
        "hidden": 64,
        "layers": 2,
        "heads": 4,
        "kv_heads": 2,
        "intermediate": 176,
        "vocab": 1000,
        "seq": 32,
    }
    base.update(changes)
    with pytest.raises(InvalidActivationInputs) as info:
        estimate(Inputs(**base))  # type: ignore[arg-type]
    assert info.value.field == field


# --------------------------------------------------------------------------- presets


def test_presets_load_and_validate() -> None:
    presets = load_presets()
    names = {p.name for p in presets}
    assert {
        "gpt2",
        "gpt2-medium",
        "gpt2-large",
        "gpt2-xl",
        "llama-3.2-1b",
        "llama-3.2-3b",
        "llama-3-8b",
        "llama-3-70b",
        "mistral-7b",
        "qwen2.5-0.5b",
        "qwen2.5-7b",
    } <= names
    for p in presets:
        assert p.source.startswith("https://huggingface.co/") and p.source.endswith("config.json")
        estimate(p.inputs())
    gpt2 = bundled_preset("GPT2")
    assert (gpt2.hidden, gpt2.layers, gpt2.heads, gpt2.vocab) == (768, 12, 12, 50257)
    llama = bundled_preset("llama-3-8b")
    assert (llama.hidden, llama.kv_heads, llama.intermediate) == (4096, 8, 14336)


def test_presets_reject_bad_data(tmp_path: Path) -> None:
    good = json.loads(
        Path(__file__)
        .resolve()
        .parents[2]
        .joinpath("resources", "data", "model_presets.json")
        .read_text(encoding="utf-8")
    )
    bad = json.loads(json.dumps(good))
    bad["presets"][0]["heads"] = 7
    with pytest.raises(PresetError):
        parse_presets(bad)
    bad = json.loads(json.dumps(good))
    bad["presets"][0]["layers"] = "12"
    with pytest.raises(PresetError):
        parse_presets(bad)
    bad = json.loads(json.dumps(good))
    bad["presets"].append(dict(bad["presets"][0]))
    with pytest.raises(PresetError):
        parse_presets(bad)
    broken = tmp_path / "p.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(PresetError):
        load_presets(broken)


# --------------------------------------------------------------------------- properties


@st.composite
def shapes(draw: st.DrawFn) -> Inputs:
    t = draw(st.sampled_from([1, 2, 4, 8]))
    kv = t * draw(st.integers(1, 4))
    heads = kv * draw(st.sampled_from([1, 2, 4]))
    family = draw(st.sampled_from([f for f in Family if f.typed_sizes]))
    if family is Family.GPT2:
        kv = heads
    head_dim = draw(st.sampled_from([8, 16, 64, 128]))
    hidden = heads * head_dim
    return Inputs(
        family=family,
        hidden=hidden,
        layers=draw(st.integers(1, 80)),
        heads=heads,
        kv_heads=kv,
        intermediate=t * draw(st.integers(1, 4096)),
        vocab=draw(st.integers(1, 200_000)),
        seq=t * draw(st.integers(1, 4096)),
        dtype=draw(st.sampled_from(list(Precision))),
        dropout=draw(st.booleans()),
        attention=draw(st.sampled_from(list(Attention))),
        tensor_parallel=t,
        sequence_parallel=draw(st.booleans()),
        profile=draw(st.sampled_from(list(Accounting))),
        device=Device.CUDA,
    )


def _with(inputs: Inputs, **changes: object) -> Inputs:
    values = {f: getattr(inputs, f) for f in inputs.__dataclass_fields__}
    values.update(changes)
    return Inputs(**values)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_properties(inputs: Inputs) -> None:
    result = estimate(inputs)
    assert result.saved_bytes > 0
    assert result.peak_bytes >= result.saved_bytes
    assert sum(item.total for item in result.breakdown) == result.saved_bytes
    assert all(isinstance(item.bytes, int) for item in result.breakdown)

    # the HF GPT-2 eager checkpoint also keeps the s² causal mask (not a layer activation)
    by = {
        r: sum(
            item.total
            for item in estimate(_with(inputs, recompute=r)).breakdown
            if item.key is not Part.CAUSAL_MASK
        )
        for r in (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)
    }
    assert by[Recompute.SELECTIVE] <= by[Recompute.NONE]
    if not (inputs.profile is Accounting.PAPER and inputs.sequence_parallel):
        # Table 2 keeps the full-recompute checkpoint unsharded (2sbh) even with SP
        assert by[Recompute.FULL] <= by[Recompute.SELECTIVE]

    if inputs.seq >= 2:
        eager = estimate(_with(inputs, attention=Attention.EAGER)).saved_bytes
        sdpa = estimate(_with(inputs, attention=Attention.SDPA)).saved_bytes
        assert sdpa <= eager

    t = inputs.tensor_parallel
    longer = estimate(_with(inputs, seq=inputs.seq + t))
    assert longer.saved_bytes > result.saved_bytes
    assert longer.peak_bytes > result.peak_bytes
