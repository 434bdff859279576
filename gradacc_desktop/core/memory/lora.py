"""LoRA and QLoRA arithmetic: parameter counts and frozen base-weight bytes, exactly.

Pure Python, exact arithmetic (``int`` and ``fractions.Fraction``); nothing here knows
about Qt, ``torch`` or locales.

One engine, ``LoraLayout``: a model's block projections (PEFT module name, in_features,
out_features), its number of blocks and its total parameter count. ``layout_of_shape``
builds it from a typed ``ModelShape`` (a GPT-2 or Llama preset, total by
``total_parameters``), ``layout_of_projections`` from the sizes of a config.json (total
counted by the caller). ``LoraLayout.names`` turns a ``LoraTargets`` choice or PEFT
``target_modules`` names into the adapted projections, ``LoraLayout.trainable`` counts
the adapters and ``LoraLayout.frozen_bytes`` the frozen base in a ``BaseFormat``.

Sources
-------
* Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models"
  (arXiv:2106.09685), §4.1: a frozen weight W₀ ∈ ℝ^(d×k) is adapted as W₀ + BA with
  B ∈ ℝ^(d×r), A ∈ ℝ^(r×k), r ≪ min(d, k); only A and B are trained.
* Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs"
  (arXiv:2305.14314), §2 (block-wise quantization) and §3 (4-bit NormalFloat, Double
  Quantization): the frozen linear weights are stored as NF4 in blocks of 64, each
  block with one quantization constant (absmax).
* Hugging Face PEFT (``LoraConfig``, ``get_peft_model``,
  ``PeftModel.print_trainable_parameters``) and bitsandbytes as used through
  ``transformers.BitsAndBytesConfig``: which modules are adapted or quantized.

Model parameters (``total_parameters``)
---------------------------------------
Symbols: h hidden size, L layers, a heads, k key/value heads, d = h/a head size, i MLP
intermediate size, V vocabulary, P learned positions (GPT-2 only).

GPT-2 style (``Family.GPT2``; LayerNorm with weight and bias, every projection biased,
LM head tied to the token embedding)::

    V·h + P·h                                   token and position embeddings
    + L·(4h                                     two LayerNorms
         + h·3h + 3h  + h·h + h                 c_attn, attn.c_proj
         + h·i + i    + i·h + h)                c_fc, mlp.c_proj
    + 2h                                        final LayerNorm (ln_f)

Llama style (``Family.LLAMA``; RMSNorm with weight only, bias-free projections)::

    V·h                                         token embedding
    + L·(2h                                     two RMSNorms
         + 2·h·h + 2·h·(k·d)                    q_proj, o_proj, k_proj, v_proj
         + 3·h·i)                               gate_proj, up_proj, down_proj
    + h                                         final norm
    + V·h                                       LM head, unless tied
    + L·(h + 2·k·d)                             q/k/v biases, Qwen2 only (``qkv_bias``)

Projections (``layout_of_projections``)
---------------------------------------
Per block, (in_features, out_features) with d the head size (h/a for a ``ModelShape``,
config.json's ``head_dim`` where it has one)::

    llama   q_proj h -> a·d    k_proj h -> k·d    v_proj h -> k·d    o_proj a·d -> h
            gate_proj h -> i   up_proj h -> i     down_proj i -> h
    gpt2    c_attn h -> 3h (fused q, k, v)        attn.c_proj h -> h
            c_fc h -> i        mlp.c_proj i -> h

PEFT matches a ``target_modules`` entry against the end of each module's dotted name, so
GPT-2's plain ``"c_proj"`` selects both output projections; ``"all-linear"`` selects
every block projection (not the LM head). GPT-2's projections are ``transformers``
``Conv1D`` rather than ``nn.Linear``, with the same counts.

LoRA (``LoraLayout.trainable``)
-------------------------------
Each adapted projection with ``in`` input and ``out`` output features gains A (r × in)
and B (out × r), i.e. r·(in + out) trainable parameters, in every layer. PEFT's
defaults are assumed: ``bias="none"`` (no bias is trained), no ``rank_pattern``, no
``modules_to_save``. For Llama-2-7B with r = 8 on q_proj and v_proj this gives
32 · 2 · 8 · (4096 + 4096) = 4,194,304, the "trainable params" PEFT prints.

Frozen base weights (``LoraLayout.frozen_bytes``)
-------------------------------------------------
16-bit formats store 2 bytes per parameter, FP32 4. With INT8 (LLM.int8()) and NF4
(QLoRA) only the weights of the block projections (``LoraLayout.quantized``) are
quantized; embeddings, the LM head, norms and biases stay in 16 bits, as loaded (PEFT's
``prepare_model_for_kbit_training``, which casts them to fp32, is not counted). Per
quantized parameter, NF4 costs 4 bits plus its share of the quantization constants:

* without Double Quantization one fp32 absmax per 64-block: 32/64 = 1/2 bit;
* with Double Quantization the absmax values are themselves quantized to 8 bits in
  blocks of 256, each with one fp32 constant: 8/64 + 32/(64·256) = 65/512 bit
  = 0.126953125 bit (the paper's "0.127 bits per parameter").

So NF4 costs (4 + 65/512)/8 = 2113/4096 bytes per parameter with Double Quantization
and (4 + 1/2)/8 = 9/16 without.

Left out, all per tensor or per row and negligible at these sizes: bitsandbytes' 16- or
256-entry code tables and the fp32 absmax mean of Double Quantization, padding of a last
partial block, and LLM.int8()'s fp32 scale per output row (4/in bytes per parameter).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from gradacc_desktop.core.limits import whole
from gradacc_desktop.core.memory.activation import Family
from gradacc_desktop.core.memory.presets import Preset

# QLoRA §3: NF4 block size (one absmax per 64 weights) and the Double Quantization
# block size (one fp32 constant per 256 quantized absmax values).
NF4_BLOCKSIZE = 64
DOUBLE_QUANT_BLOCKSIZE = 256

# Presets whose Hugging Face config.json differs from the family default (see
# ``ModelShape.from_preset``). These belong in model_presets.json one day.
_TIED_PRESETS = frozenset({"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-0.5b"})
_QKV_BIAS_PRESETS = frozenset({"qwen2.5-0.5b", "qwen2.5-7b"})


def _positive(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


@dataclass(frozen=True)
class ModelShape:
    """The sizes that fix a decoder-only model's parameter count.

    ``tied_embeddings``: whether the LM head shares the token embedding's weight
    (``tie_word_embeddings`` in the Hugging Face config). ``None`` means the family's
    Hugging Face default: tied for GPT-2 (``GPT2Config``), untied for Llama
    (``LlamaConfig``); after construction it is always a ``bool``.

    ``position_embeddings``: rows of the learned position table (GPT-2's
    ``n_positions``); must be 0 for the Llama family, whose rotary positions have no
    parameters.

    ``qkv_bias``: biases on q_proj, k_proj and v_proj but not o_proj, as in Qwen2
    (Llama family only; GPT-2 always has all its biases).
    """

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    family: Family
    tied_embeddings: bool | None = None
    position_embeddings: int = 0
    qkv_bias: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.family, Family):
            raise ValueError(f"family must be a Family, got {self.family!r}")
        for name in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab"):
            _positive(name, getattr(self, name))
        if self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be a multiple of heads ({self.heads})")
        if self.heads % self.kv_heads:
            raise ValueError(
                f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})"
            )
        if self.tied_embeddings is None:
            object.__setattr__(self, "tied_embeddings", self.family is Family.GPT2)
        elif not isinstance(self.tied_embeddings, bool):
            raise ValueError(f"tied_embeddings must be a bool, got {self.tied_embeddings!r}")
        if not isinstance(self.qkv_bias, bool):
            raise ValueError(f"qkv_bias must be a bool, got {self.qkv_bias!r}")
        if self.family is Family.GPT2:
            if self.kv_heads != self.heads:
                raise ValueError(
                    f"GPT-2 style models have no grouped-query attention: kv_heads "
                    f"({self.kv_heads}) must equal heads ({self.heads})"
                )
            _positive("position_embeddings (GPT-2's n_positions)", self.position_embeddings)
            if self.qkv_bias:
                raise ValueError(
                    "qkv_bias is for the Llama family; GPT-2 style models always have biases"
                )
        elif self.position_embeddings != 0:
            raise ValueError(
                "Llama style models use rotary positions without parameters: "
                f"position_embeddings must be 0, got {self.position_embeddings!r}"
            )

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @classmethod
    def from_preset(
        cls,
        preset: Preset,
        *,
        tied_embeddings: bool | None = None,
        qkv_bias: bool | None = None,
    ) -> ModelShape:
        """The shape of a bundled preset.

        ``tied_embeddings`` and ``qkv_bias`` default to what the preset's config.json
        says (Llama 3.2 1B/3B and Qwen2.5 0.5B tie their embeddings; Qwen2.5 has
        q/k/v biases); pass them to override.
        """
        if tied_embeddings is None:
            tied_embeddings = preset.name in _TIED_PRESETS or preset.family is Family.GPT2
        if qkv_bias is None:
            qkv_bias = preset.name in _QKV_BIAS_PRESETS
        return cls(
            hidden=preset.hidden,
            layers=preset.layers,
            heads=preset.heads,
            kv_heads=preset.kv_heads,
            intermediate=preset.intermediate,
            vocab=preset.vocab,
            family=preset.family,
            tied_embeddings=tied_embeddings,
            position_embeddings=(
                preset.max_position_embeddings if preset.family is Family.GPT2 else 0
            ),
            qkv_bias=qkv_bias,
        )


def _naming(shape: ModelShape) -> str:
    return "gpt2" if shape.family is Family.GPT2 else "llama"


def _projections(
    naming: str, hidden: int, heads: int, kv_heads: int, head_dim: int, intermediate: int
) -> tuple[tuple[str, int, int], ...]:
    """(PEFT module name, in_features, out_features) of each projection of one block, in
    module order: the one table of projection shapes."""
    h, i = hidden, intermediate
    if naming == "gpt2":
        return (
            ("c_attn", h, 3 * h),  # fused q, k, v
            ("attn.c_proj", h, h),  # attention output
            ("c_fc", h, i),
            ("mlp.c_proj", i, h),
        )
    q, kv = heads * head_dim, kv_heads * head_dim
    return (
        ("q_proj", h, q),
        ("k_proj", h, kv),
        ("v_proj", h, kv),
        ("o_proj", q, h),
        ("gate_proj", h, i),
        ("up_proj", h, i),
        ("down_proj", i, h),
    )


def _bias_parameters(shape: ModelShape, linears: tuple[tuple[str, int, int], ...]) -> int:
    """Biases of one layer's projections."""
    if shape.family is Family.GPT2:
        return sum(n_out for _, _, n_out in linears)
    if shape.qkv_bias:
        return sum(n_out for name, _, n_out in linears if name in ("q_proj", "k_proj", "v_proj"))
    return 0


def _norm_parameters(shape: ModelShape) -> int:
    """One norm: LayerNorm has weight and bias, RMSNorm a weight only."""
    return 2 * shape.hidden if shape.family is Family.GPT2 else shape.hidden


def total_parameters(shape: ModelShape) -> int:
    """Every parameter of the model, counted once (a tied LM head adds nothing)."""
    h = shape.hidden
    linears = _projections(
        _naming(shape), h, shape.heads, shape.kv_heads, shape.head_dim, shape.intermediate
    )
    embeddings = shape.vocab * h + shape.position_embeddings * h
    lm_head = 0 if shape.tied_embeddings else shape.vocab * h
    weights = shape.layers * sum(n_in * n_out for _, n_in, n_out in linears)
    per_layer = 2 * _norm_parameters(shape) + _bias_parameters(shape, linears)
    return embeddings + weights + shape.layers * per_layer + _norm_parameters(shape) + lm_head


class BaseFormat(enum.Enum):
    """How the frozen base model's weights are stored."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    # bitsandbytes LLM.int8() (load_in_8bit): 1 byte per weight
    INT8 = "int8"
    # bitsandbytes 4-bit NormalFloat (load_in_4bit, bnb_4bit_quant_type="nf4"), QLoRA
    NF4 = "nf4"

    @property
    def quantized(self) -> bool:
        return self in (BaseFormat.INT8, BaseFormat.NF4)


def nf4_constant_bits_per_param(double_quant: bool = True) -> Fraction:
    """Bits of quantization constants per NF4 weight (QLoRA §3).

    Without Double Quantization: 32/64 = 1/2. With it: 8/64 + 32/(64·256) = 65/512.
    """
    if double_quant:
        return Fraction(8, NF4_BLOCKSIZE) + Fraction(32, NF4_BLOCKSIZE * DOUBLE_QUANT_BLOCKSIZE)
    return Fraction(32, NF4_BLOCKSIZE)


def base_weight_bytes_per_param(fmt: BaseFormat, double_quant: bool = True) -> Fraction:
    """Bytes one frozen weight takes in ``fmt``.

    ``double_quant`` only matters for NF4. It defaults to True as in the QLoRA paper and
    its reference script; note that ``transformers.BitsAndBytesConfig`` defaults
    ``bnb_4bit_use_double_quant`` to False.
    """
    if not isinstance(fmt, BaseFormat):
        raise ValueError(f"fmt must be a BaseFormat, got {fmt!r}")
    if fmt is BaseFormat.NF4:
        return (4 + nf4_constant_bits_per_param(double_quant)) / 8
    return Fraction({BaseFormat.FP32: 4, BaseFormat.INT8: 1}.get(fmt, 2))


# --------------------------------------------------------------------------- one layout for
# every model whose projections are known: a typed shape, a sized preset, a config.json


class LoraTargets(enum.Enum):
    """Which projections a LoRA run adapts, as the training description offers it."""

    #: the LoRA paper's choice: the query and value projections (GPT-2: the fused c_attn)
    QUERY_VALUE = "query_value"
    #: every attention projection
    ATTENTION = "attention"
    #: every linear layer of the blocks (PEFT's "all-linear"; QLoRA's choice)
    ALL_LINEAR = "all_linear"


def _module_names(naming: str) -> tuple[str, ...]:
    """Every block projection's PEFT module name, in module order."""
    return tuple(name for name, _, _ in _projections(naming, 1, 1, 1, 1, 1))


#: PEFT ``target_modules`` of each choice, by the naming of the model's projections
TARGET_NAMES: dict[str, dict[LoraTargets, tuple[str, ...]]] = {
    "llama": {
        LoraTargets.QUERY_VALUE: ("q_proj", "v_proj"),
        LoraTargets.ATTENTION: ("q_proj", "k_proj", "v_proj", "o_proj"),
        LoraTargets.ALL_LINEAR: _module_names("llama"),
    },
    "gpt2": {
        LoraTargets.QUERY_VALUE: ("c_attn",),
        LoraTargets.ATTENTION: ("c_attn", "attn.c_proj"),
        LoraTargets.ALL_LINEAR: _module_names("gpt2"),
    },
}


@dataclass(frozen=True)
class LoraLayout:
    """What LoRA and QLoRA need of a model: every block's projections (PEFT module name
    -> (in_features, out_features)), the blocks, and every parameter of the model.

    ``naming`` is ``"llama"`` (q/k/v/o, gate/up/down: Llama, Mistral, Qwen, Gemma) or
    ``"gpt2"`` (c_attn, attn.c_proj, c_fc, mlp.c_proj)."""

    naming: str
    layers: int
    linears: tuple[tuple[str, int, int], ...]
    total: int

    def names(self, targets: LoraTargets | tuple[str, ...]) -> tuple[str, ...]:
        """The PEFT ``target_modules`` of ``targets`` for this model: a choice's names,
        or PEFT names checked against the model's projections (``"all-linear"``, and
        GPT-2's plain ``"c_proj"`` for both output projections, are PEFT's own)."""
        if isinstance(targets, LoraTargets):
            return TARGET_NAMES[self.naming][targets]
        if isinstance(targets, str) or not targets:
            raise ValueError("LoRA needs at least one target module")
        own = [name for name, _, _ in self.linears]
        found: list[str] = []
        for name in targets:
            if name == "all-linear":
                found += own
            elif name == "c_proj" and self.naming == "gpt2":
                found += ["attn.c_proj", "mlp.c_proj"]
            elif name in own:
                found.append(name)
            else:
                raise ValueError(f"unknown target module {name!r}; this model has {', '.join(own)}")
        return tuple(dict.fromkeys(found))

    def trainable(self, rank: int, targets: LoraTargets | tuple[str, ...]) -> int:
        """L · Σ r·(in + out) over the adapted projections (PEFT's trainable count)."""
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 1:
            raise ValueError(f"LoRA rank must be a positive integer, got {rank!r}")
        chosen = set(self.names(targets))
        return self.layers * sum(
            rank * (n_in + n_out) for name, n_in, n_out in self.linears if name in chosen
        )

    @property
    def quantized(self) -> int:
        """Weights INT8/NF4 quantize: every block projection's (not biases, embeddings,
        norms or the LM head)."""
        return self.layers * sum(n_in * n_out for _, n_in, n_out in self.linears)

    @property
    def largest_layer(self) -> int:
        """Parameters of the largest single weight ZeRO-3 gathers (a projection, or the
        embedding when the vocabulary is large) — the projections here; callers add the
        embedding."""
        return max(n_in * n_out for _, n_in, n_out in self.linears)

    def frozen_bytes(self, fmt: BaseFormat, double_quant: bool = True) -> Fraction:
        """Bytes of the frozen base model (adapters not included): every parameter in
        ``fmt``, except that INT8 and NF4 quantize only the block projections'
        weights (``quantized``) and keep the rest in 16 bits (see the module
        docstring)."""
        rate = base_weight_bytes_per_param(fmt, double_quant)
        if not fmt.quantized:
            return rate * self.total
        return rate * self.quantized + 2 * (self.total - self.quantized)


def layout_of_shape(shape: ModelShape) -> LoraLayout:
    """The layout of a typed GPT-2 or Llama shape (or a sized preset's)."""
    return layout_of_projections(
        naming=_naming(shape),
        hidden=shape.hidden,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
        head_dim=shape.head_dim,
        intermediate=shape.intermediate,
        layers=shape.layers,
        total=total_parameters(shape),
    )


def layout_of_projections(
    *,
    naming: str,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate: int,
    layers: int,
    total: int,
) -> LoraLayout:
    """The layout of a model read from its config.json whose blocks are Llama-style
    (q/k/v/o with an explicit head size, gate/up/down) or GPT-2's."""
    linears = _projections(naming, hidden, heads, kv_heads, head_dim, intermediate)
    return LoraLayout(naming=naming, layers=layers, linears=linears, total=total)


#: the LoRA ranks the description and the command line accept
LORA_RANK_LIMITS = whole(1, 4096)
