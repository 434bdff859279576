"""LoRA/QLoRA arithmetic through ``LoraLayout``: published parameter counts, exact NF4
constants, properties."""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.memory.activation import Family
from gradacc_desktop.core.memory.lora import (
    BaseFormat,
    LoraLayout,
    LoraTargets,
    ModelShape,
    base_weight_bytes_per_param,
    layout_of_projections,
    layout_of_shape,
    nf4_constant_bits_per_param,
    total_parameters,
)
from gradacc_desktop.core.memory.presets import load_presets
from tests.configs import bundled_preset

# meta-llama/Llama-2-7b-hf config.json; not a bundled preset
LLAMA2_7B = ModelShape(
    hidden=4096,
    layers=32,
    heads=32,
    kv_heads=32,
    intermediate=11008,
    vocab=32000,
    family=Family.LLAMA,
)
LLAMA2_7B_LORA = layout_of_shape(LLAMA2_7B)

# Published totals (model.num_parameters() / the Hub's safetensors metadata) of every
# bundled preset. All of them match the config arithmetic.
PUBLISHED = {
    "gpt2": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    "llama-3.2-1b": 1_235_814_400,  # tied embeddings
    "llama-3.2-3b": 3_212_749_824,  # tied embeddings
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    "mistral-7b": 7_241_732_096,
    "qwen2.5-0.5b": 494_032_768,  # tied embeddings, q/k/v biases
    "qwen2.5-7b": 7_615_616_512,  # q/k/v biases
}


def preset_shape(name: str) -> ModelShape:
    return ModelShape.from_preset(bundled_preset(name))


def preset_layout(name: str) -> LoraLayout:
    return layout_of_shape(preset_shape(name))


# --------------------------------------------------------------------------- totals


def test_llama2_7b_total() -> None:
    # embeddings + LM head 2·32000·4096 = 262,144,000
    # per layer 4·4096² + 3·4096·11008 + 2·4096 = 67,108,864 + 135,266,304 + 8,192
    #   = 202,383,360; · 32 = 6,476,267,520; final norm 4,096
    assert total_parameters(LLAMA2_7B) == 6_738_415_616


def test_gpt2_total() -> None:
    # wte 50257·768 = 38,597,376, wpe 1024·768 = 786,432, ln_f 1,536
    # per layer 1,536 + 1,771,776 + 590,592 + 1,536 + 2,362,368 + 2,360,064 = 7,087,872
    #   · 12 = 85,054,464
    assert total_parameters(preset_shape("gpt2")) == 124_439_808


def test_every_preset_has_a_published_count() -> None:
    assert {p.name for p in load_presets()} == set(PUBLISHED)


@pytest.mark.parametrize(("name", "published"), sorted(PUBLISHED.items()))
def test_preset_matches_published_count(name: str, published: int) -> None:
    assert total_parameters(preset_shape(name)) == published


def test_from_preset_overrides() -> None:
    preset = bundled_preset("llama-3.2-1b")
    untied = ModelShape.from_preset(preset, tied_embeddings=False)
    assert total_parameters(untied) - PUBLISHED["llama-3.2-1b"] == 128256 * 2048
    biased = ModelShape.from_preset(preset, qkv_bias=True)
    # q 2048 + k 512 + v 512 per layer, 16 layers
    assert total_parameters(biased) - PUBLISHED["llama-3.2-1b"] == 16 * 3072
    gpt2 = preset_shape("gpt2")
    assert gpt2.tied_embeddings is True
    assert gpt2.position_embeddings == 1024
    assert preset_shape("llama-3-8b").tied_embeddings is False


def test_tied_default_follows_family() -> None:
    assert LLAMA2_7B.tied_embeddings is False
    gpt2 = ModelShape(768, 12, 12, 12, 3072, 50257, Family.GPT2, position_embeddings=1024)
    assert gpt2.tied_embeddings is True
    assert total_parameters(replace(gpt2, tied_embeddings=False)) == 124_439_808 + 50257 * 768


# --------------------------------------------------------------------------- shapes


def test_projections_llama() -> None:
    layout = preset_layout("llama-3-8b")
    assert layout.naming == "llama"
    assert layout.layers == 32
    # head_dim 4096 / 32 = 128; k/v out 8 · 128 = 1024
    assert layout.linears == (
        ("q_proj", 4096, 4096),
        ("k_proj", 4096, 1024),
        ("v_proj", 4096, 1024),
        ("o_proj", 4096, 4096),
        ("gate_proj", 4096, 14336),
        ("up_proj", 4096, 14336),
        ("down_proj", 14336, 4096),
    )
    assert layout.total == PUBLISHED["llama-3-8b"]


def test_projections_gpt2() -> None:
    layout = preset_layout("gpt2")
    assert layout.naming == "gpt2"
    assert layout.linears == (
        ("c_attn", 768, 2304),
        ("attn.c_proj", 768, 768),
        ("c_fc", 768, 3072),
        ("mlp.c_proj", 3072, 768),
    )
    assert layout.total == PUBLISHED["gpt2"]


def test_projections_with_an_explicit_head_size() -> None:
    # a config.json whose head_dim is not hidden / heads (Gemma, Qwen3): q is a·d wide
    layout = layout_of_projections(
        naming="llama",
        hidden=2048,
        heads=16,
        kv_heads=8,
        head_dim=256,
        intermediate=8192,
        layers=2,
        total=10**9,
    )
    assert layout.linears[:4] == (
        ("q_proj", 2048, 4096),
        ("k_proj", 2048, 2048),
        ("v_proj", 2048, 2048),
        ("o_proj", 4096, 2048),
    )


@pytest.mark.parametrize("name", ["gpt2", "llama-3-8b"])
def test_all_linear_names_every_projection(name: str) -> None:
    layout = preset_layout(name)
    own = tuple(module for module, _, _ in layout.linears)
    assert layout.names(LoraTargets.ALL_LINEAR) == own
    assert layout.names(("all-linear",)) == own


def test_target_choices() -> None:
    llama, gpt2 = LLAMA2_7B_LORA, preset_layout("gpt2")
    assert llama.names(LoraTargets.QUERY_VALUE) == ("q_proj", "v_proj")
    assert llama.names(LoraTargets.ATTENTION) == ("q_proj", "k_proj", "v_proj", "o_proj")
    assert gpt2.names(LoraTargets.QUERY_VALUE) == ("c_attn",)
    assert gpt2.names(LoraTargets.ATTENTION) == ("c_attn", "attn.c_proj")


# --------------------------------------------------------------------------- LoRA


def test_peft_llama2_7b_r8_qv() -> None:
    # 32 layers · 2 modules · 8 · (4096 + 4096) = 4,194,304, as PEFT prints:
    # "trainable params: 4,194,304 || all params: 6,742,609,920"
    trainable = LLAMA2_7B_LORA.trainable(8, ("q_proj", "v_proj"))
    assert trainable == 4_194_304
    assert LLAMA2_7B_LORA.total + trainable == 6_742_609_920
    assert LLAMA2_7B_LORA.trainable(8, LoraTargets.QUERY_VALUE) == trainable


def test_llama2_7b_r16_all_linear() -> None:
    # attention 4 · 16 · (4096 + 4096) = 524,288
    # MLP 3 · 16 · (4096 + 11008) = 724,992
    # (524,288 + 724,992) · 32 = 1,249,280 · 32 = 39,976,960
    all_seven = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    assert LLAMA2_7B_LORA.trainable(16, all_seven) == 39_976_960
    assert LLAMA2_7B_LORA.trainable(16, ("all-linear",)) == 39_976_960
    assert LLAMA2_7B_LORA.trainable(16, LoraTargets.ALL_LINEAR) == 39_976_960


def test_llama3_8b_r16_all_linear() -> None:
    # GQA: k/v are 4096 -> 1024. Per layer 16 · (2·8192 + 2·5120 + 3·18432)
    # = 16 · 81,920 = 1,310,720; · 32 = 41,943,040
    assert preset_layout("llama-3-8b").trainable(16, ("all-linear",)) == 41_943_040


def test_gpt2_c_proj_selects_both() -> None:
    gpt2 = preset_layout("gpt2")
    assert gpt2.names(("c_proj",)) == ("attn.c_proj", "mlp.c_proj")
    # 12 · 8 · ((768 + 768) + (3072 + 768)) = 12 · 8 · 5,376 = 516,096
    assert gpt2.trainable(8, ("c_proj",)) == 516_096
    assert gpt2.trainable(8, ("attn.c_proj", "mlp.c_proj")) == 516_096
    # PEFT's default for gpt2 is c_attn: 12 · 8 · (768 + 2304) = 294,912
    assert gpt2.trainable(8, ("c_attn",)) == 294_912
    assert gpt2.trainable(8, LoraTargets.QUERY_VALUE) == 294_912


def test_repeated_targets_count_once() -> None:
    assert LLAMA2_7B_LORA.names(("q_proj", "q_proj")) == ("q_proj",)
    assert LLAMA2_7B_LORA.trainable(8, ("q_proj", "q_proj")) == 2_097_152
    assert LLAMA2_7B_LORA.trainable(8, ("all-linear", "q_proj")) == (
        LLAMA2_7B_LORA.trainable(8, ("all-linear",))
    )
    gpt2 = preset_layout("gpt2")
    assert gpt2.trainable(8, ("c_proj", "mlp.c_proj")) == 516_096


# --------------------------------------------------------------------------- bytes


def test_nf4_constants_exact() -> None:
    # QLoRA §3: 32/64 = 0.5 bits without Double Quantization,
    # 8/64 + 32/(64·256) = 64/512 + 1/512 = 65/512 bits with it
    assert nf4_constant_bits_per_param(double_quant=False) == Fraction(1, 2)
    dq = nf4_constant_bits_per_param()
    assert dq == Fraction(65, 512)
    assert Decimal(dq.numerator) / Decimal(dq.denominator) == Decimal("0.126953125")
    rounded = (Decimal(65) / Decimal(512)).quantize(Decimal("0.001"), ROUND_HALF_EVEN)
    assert rounded == Decimal("0.127")  # the paper's figure
    # the paper's saving: 0.5 - 0.127 = 0.373 bits per parameter
    assert Fraction(1, 2) - dq == Fraction(191, 512)


def test_bytes_per_param() -> None:
    assert base_weight_bytes_per_param(BaseFormat.FP32) == 4
    assert base_weight_bytes_per_param(BaseFormat.BF16) == 2
    assert base_weight_bytes_per_param(BaseFormat.FP16) == 2
    assert base_weight_bytes_per_param(BaseFormat.INT8) == 1
    # (4 + 65/512) / 8 = 2113/4096; (4 + 1/2) / 8 = 9/16
    assert base_weight_bytes_per_param(BaseFormat.NF4) == Fraction(2113, 4096)
    assert base_weight_bytes_per_param(BaseFormat.NF4, double_quant=False) == Fraction(9, 16)
    # double_quant is irrelevant outside NF4
    assert base_weight_bytes_per_param(BaseFormat.BF16, double_quant=False) == 2


def test_llama2_7b_frozen_bytes() -> None:
    # projection weights 32 · (4·4096² + 3·4096·11008) = 6,476,005,376
    linear = LLAMA2_7B_LORA.quantized
    assert linear == 6_476_005_376
    rest = LLAMA2_7B_LORA.total - linear
    # 2·32000·4096 + 32·2·4096 + 4096 = 262,410,240 parameters stay 16-bit
    assert rest == 262_410_240
    assert LLAMA2_7B_LORA.frozen_bytes(BaseFormat.BF16) == 13_476_831_232
    # NF4 + DQ: 6,476,005,376 / 4096 = 1,581,056; · 2113 = 3,340,771,328;
    # + 2 · 262,410,240 = 524,820,480 -> 3,865,591,808 bytes
    assert LLAMA2_7B_LORA.frozen_bytes(BaseFormat.NF4) == 3_865_591_808
    # NF4 alone: 6,476,005,376 · 9/16 = 3,642,753,024; + 524,820,480
    assert LLAMA2_7B_LORA.frozen_bytes(BaseFormat.NF4, False) == 4_167_573_504
    # INT8: one byte per projection weight, 2 for the rest = 7,000,825,856
    assert LLAMA2_7B_LORA.frozen_bytes(BaseFormat.INT8) == linear + 2 * rest == 7_000_825_856


# --------------------------------------------------------------------------- properties


@st.composite
def shapes(draw: st.DrawFn) -> ModelShape:
    family = draw(st.sampled_from([f for f in Family if f.typed_sizes]))
    kv_heads = draw(st.integers(1, 8))
    heads = kv_heads * (1 if family is Family.GPT2 else draw(st.integers(1, 4)))
    gpt2 = family is Family.GPT2
    return ModelShape(
        hidden=heads * draw(st.integers(1, 64)),
        layers=draw(st.integers(1, 12)),
        heads=heads,
        kv_heads=kv_heads,
        intermediate=draw(st.integers(1, 1024)),
        vocab=draw(st.integers(1, 5000)),
        family=family,
        tied_embeddings=draw(st.booleans()),
        position_embeddings=draw(st.integers(1, 2048)) if gpt2 else 0,
        qkv_bias=False if gpt2 else draw(st.booleans()),
    )


@st.composite
def shapes_and_targets(draw: st.DrawFn) -> tuple[ModelShape, tuple[str, ...]]:
    shape = draw(shapes())
    own = [name for name, _, _ in layout_of_shape(shape).linears]
    return shape, tuple(draw(st.lists(st.sampled_from(own), min_size=1)))


@given(shapes_and_targets(), st.integers(1, 256))
def test_lora_linear_and_increasing_in_rank(
    case: tuple[ModelShape, tuple[str, ...]], rank: int
) -> None:
    shape, targets = case
    layout = layout_of_shape(shape)
    one = layout.trainable(1, targets)
    at_rank = layout.trainable(rank, targets)
    assert at_rank == rank * one
    assert layout.trainable(rank + 1, targets) > at_rank


@given(shapes_and_targets(), st.integers(1, 64))
def test_lora_grows_with_targets(case: tuple[ModelShape, tuple[str, ...]], rank: int) -> None:
    shape, targets = case
    layout = layout_of_shape(shape)
    chosen = set(targets)
    parts = sum(layout.trainable(rank, (t,)) for t in chosen)
    assert layout.trainable(rank, tuple(chosen)) == parts
    every = layout.trainable(rank, LoraTargets.ALL_LINEAR)
    assert every >= parts
    assert (every > parts) == (chosen != set(layout.names(LoraTargets.ALL_LINEAR)))


@given(shapes(), st.integers(1, 64))
def test_lora_grows_with_layers(shape: ModelShape, rank: int) -> None:
    deeper = layout_of_shape(replace(shape, layers=shape.layers + 1))
    assert deeper.trainable(rank, LoraTargets.ALL_LINEAR) > layout_of_shape(shape).trainable(
        rank, LoraTargets.ALL_LINEAR
    )


@given(shapes())
def test_total_grows_with_every_size(shape: ModelShape) -> None:
    total = total_parameters(shape)
    assert layout_of_shape(shape).total == total
    assert total > layout_of_shape(shape).quantized
    for field in ("layers", "intermediate", "vocab"):
        bigger = replace(shape, **{field: getattr(shape, field) + 1})
        assert total_parameters(bigger) > total
    # each layer adds the same amount
    step = total_parameters(replace(shape, layers=shape.layers + 1)) - total
    assert total_parameters(replace(shape, layers=shape.layers + 2)) - total == 2 * step
    if shape.tied_embeddings:
        untied = replace(shape, tied_embeddings=False)
        assert total_parameters(untied) - total == shape.vocab * shape.hidden


@given(shapes())
def test_frozen_bytes_order(shape: ModelShape) -> None:
    layout = layout_of_shape(shape)
    size = layout.frozen_bytes
    total = layout.total
    assert size(BaseFormat.FP32) == 4 * total
    assert size(BaseFormat.BF16) == size(BaseFormat.FP16) == 2 * total
    assert size(BaseFormat.NF4) < size(BaseFormat.NF4, False) < size(BaseFormat.INT8)
    assert size(BaseFormat.INT8) < size(BaseFormat.BF16)
    rest = total - layout.quantized
    assert size(BaseFormat.NF4) == Fraction(2113, 4096) * layout.quantized + 2 * rest


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("rank", [0, -1, True, 1.5, "8"])
def test_bad_rank(rank: object) -> None:
    with pytest.raises(ValueError, match="LoRA rank must be a positive integer"):
        LLAMA2_7B_LORA.trainable(rank, ("q_proj",))  # type: ignore[arg-type]


def test_empty_targets() -> None:
    with pytest.raises(ValueError, match="LoRA needs at least one target module"):
        LLAMA2_7B_LORA.trainable(8, ())


def test_targets_as_a_single_string() -> None:
    with pytest.raises(ValueError, match="LoRA needs at least one target module"):
        LLAMA2_7B_LORA.trainable(8, "q_proj")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="LoRA needs at least one target module"):
        LLAMA2_7B_LORA.names("q_proj")  # type: ignore[arg-type]


def test_target_of_another_family() -> None:
    with pytest.raises(
        ValueError, match="unknown target module 'c_attn'; this model has q_proj, k_proj"
    ):
        LLAMA2_7B_LORA.trainable(8, ("c_attn",))
    with pytest.raises(
        ValueError, match=r"unknown target module 'q_proj'; this model has c_attn, attn\.c_proj"
    ):
        preset_layout("gpt2").trainable(8, ("q_proj",))
    # plain c_proj is a GPT-2 name only
    with pytest.raises(ValueError, match="unknown target module 'c_proj'"):
        LLAMA2_7B_LORA.trainable(8, ("c_proj",))


def test_unknown_target_name() -> None:
    with pytest.raises(
        ValueError,
        match=r"unknown target module 'lm_head'; this model has c_attn, attn\.c_proj, c_fc, "
        r"mlp\.c_proj$",
    ):
        preset_layout("gpt2").trainable(8, ("lm_head",))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"layers": 0}, "layers must be a positive integer, got 0"),
        ({"hidden": True}, "hidden must be a positive integer, got True"),
        ({"heads": 3}, r"hidden \(4096\) must be a multiple of heads \(3\)"),
        ({"kv_heads": 5}, r"heads \(32\) must be a multiple of kv_heads \(5\)"),
        ({"position_embeddings": 4096}, "rotary positions without parameters"),
        ({"tied_embeddings": 1}, "tied_embeddings must be a bool"),
        ({"family": "llama"}, "family must be a Family"),
    ],
)
def test_bad_llama_shape(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(LLAMA2_7B, **changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kv_heads": 4}, "no grouped-query attention"),
        ({"position_embeddings": 0}, "position_embeddings .GPT-2's n_positions. must be"),
        ({"qkv_bias": True}, "qkv_bias is for the Llama family"),
    ],
)
def test_bad_gpt2_shape(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(preset_shape("gpt2"), **changes)


def test_bad_format() -> None:
    with pytest.raises(ValueError, match="fmt must be a BaseFormat"):
        base_weight_bytes_per_param("nf4")  # type: ignore[arg-type]
