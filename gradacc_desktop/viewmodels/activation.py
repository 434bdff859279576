"""View-model of the "estimate activation from the model" dialog.

Holds the estimator's inputs (a preset or custom sizes, the training-step options),
calls ``core.activation.estimate`` and emits display-ready, locale-formatted state:
saved and peak bytes per sample in GB, the breakdown, the assumptions and sources,
or one message per bad field. No widgets here, and no model arithmetic: the core
does it; bytes become decimal GB (10^9 bytes) only for display.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import TypeVar

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.activation import (
    ASSUMPTION_TEXT,
    GB,
    PART_TEXT,
    SHAPE_LIMITS,
    Assumption,
    Attention,
    DType,
    Family,
    Inputs,
    InvalidActivationInputs,
    Item,
    Part,
    Profile,
    Recompute,
    Result,
    estimate,
    validate,
)
from gradacc_desktop.core.activation import Problem as CoreProblem
from gradacc_desktop.core.calculator import ACTIVATION_DECIMALS, LIMITS, Field
from gradacc_desktop.core.limits import Limits, check
from gradacc_desktop.core.presets import Preset, PresetError, load_presets
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import (
    Entry,
    format_counted,
    format_number,
)
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe, out_of_range

#: the paper behind the PAPER profile (a title: not translated)
PAPER_CITATION = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
    "Table 2"
)
PAPER_URL = "https://arxiv.org/abs/2205.05198"
DEFAULT_PRESET = "gpt2"
#: the example the measuring tool documents, completed from the dialog's options
MEASURE_COMMAND = "python -m gradacc_desktop.measure --model-config config.json"


class ActivationField(enum.Enum):
    """The integer inputs; values are the names of ``core.activation.Inputs`` fields."""

    HIDDEN = "hidden"
    LAYERS = "layers"
    HEADS = "heads"
    KV_HEADS = "kv_heads"
    INTERMEDIATE = "intermediate"
    VOCAB = "vocab"
    SEQ = "seq"
    TENSOR_PARALLEL = "tensor_parallel"


#: the fields a preset fills and compares against (with the family)
SHAPE_FIELDS = (
    ActivationField.HIDDEN,
    ActivationField.LAYERS,
    ActivationField.HEADS,
    ActivationField.KV_HEADS,
    ActivationField.INTERMEDIATE,
    ActivationField.VOCAB,
)

#: accepted ranges (the core's)
FIELD_LIMITS: dict[ActivationField, Limits] = {f: SHAPE_LIMITS[f.value] for f in ActivationField}


class Option(enum.Enum):
    """The other labelled controls of the dialog."""

    PRESET = "preset"
    FAMILY = "family"
    DTYPE = "dtype"
    ATTENTION = "attention"
    RECOMPUTE = "recompute"
    SEQUENCE_PARALLEL = "sequence_parallel"
    DROPOUT = "dropout"
    PROFILE = "profile"


Control = ActivationField | Option


@dataclass(frozen=True)
class Options:
    family: Family = Family.GPT2
    dtype: DType = DType.BF16
    attention: Attention = Attention.SDPA
    recompute: Recompute = Recompute.NONE
    sequence_parallel: bool = False
    dropout: bool = False
    profile: Profile = Profile.HF


#: sizes used when no preset file can be read (GPT-2 small)
_FALLBACK_VALUES: dict[ActivationField, int] = {
    ActivationField.HIDDEN: 768,
    ActivationField.LAYERS: 12,
    ActivationField.HEADS: 12,
    ActivationField.KV_HEADS: 12,
    ActivationField.INTERMEDIATE: 3072,
    ActivationField.VOCAB: 50257,
    ActivationField.SEQ: 1024,
    ActivationField.TENSOR_PARALLEL: 1,
}

_PER_LAYER_PARTS = frozenset(
    {
        Part.ATTN_NORM,
        Part.QKV_PROJ_INPUT,
        Part.ATTN_QKV,
        Part.ATTN_SOFTMAX,
        Part.ATTN_DROPOUT,
        Part.ATTN_FUSED,
        Part.ATTN_OUT_PROJ_INPUT,
        Part.ATTN_RESID_DROPOUT,
        Part.MLP_NORM,
        Part.MLP_IN_PROJ_INPUT,
        Part.MLP_ACTIVATION,
        Part.MLP_OUT_PROJ_INPUT,
        Part.MLP_RESID_DROPOUT,
        Part.LAYER_CHECKPOINT,
    }
)


class RowKind(enum.Enum):
    SECTION = "section"
    ITEM = "item"
    TOTAL = "total"


@dataclass(frozen=True)
class BreakdownRow:
    label: str
    #: GB per layer (per-layer parts and the per-layer heading), else ""
    per_layer: str
    #: GB for the whole sample, "" on headings
    total: str
    kind: RowKind


@dataclass(frozen=True)
class EstimateView:
    """Display strings for one valid estimate (and the raw result behind them)."""

    saved: str
    saved_bytes: str
    peak: str
    peak_bytes: str
    #: what "Use this value" puts in the calculator ("" if out of its range)
    calculator_value: str
    calculator_note: str
    breakdown: tuple[BreakdownRow, ...]
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...]
    result: Result


@dataclass(frozen=True)
class ActivationState:
    # ``None`` is the "no result" state: show ``prompt`` and ``problems`` instead.
    estimate: EstimateView | None
    prompt: str
    problems: tuple[str, ...]
    invalid: frozenset[ActivationField]
    options: Options
    #: name of the chosen preset, ``None`` for custom sizes
    preset: str | None
    #: the preset's label, with "(modified)" once a size differs; "Custom" without one
    preset_label: str
    #: GPT-2 uses one key/value head per attention head: the field follows "heads"
    kv_heads_follow_heads: bool
    sources: tuple[str, ...]
    measure_command: str
    can_use: bool

    @property
    def has_result(self) -> bool:
        return self.estimate is not None


_E = TypeVar("_E", bound=enum.Enum)


class ActivationViewModel(QObject):
    # every change of inputs, results or language: carries an ``ActivationState``
    stateChanged = Signal(object)
    # field values set by the view-model (a preset, GPT-2's key/value heads):
    # carries ``dict[ActivationField, int]`` of the fields whose text should change
    valuesReplaced = Signal(object)

    def __init__(
        self,
        locale: QLocale | None = None,
        parent: QObject | None = None,
        presets: tuple[Preset, ...] | None = None,
        preset: str | None = DEFAULT_PRESET,
    ) -> None:
        super().__init__(parent)
        self._locale = locale if locale is not None else QLocale()
        self._numbers: dict[ActivationField, NumberInput] = {}
        if presets is None:
            try:
                presets = load_presets()
            except PresetError:
                presets = ()
        self._presets = presets
        self._preset: Preset | None = None
        self._options = Options()
        self._raw: dict[ActivationField, Entry] = {
            f: Decimal(v) for f, v in _FALLBACK_VALUES.items()
        }
        found = self._find(preset)
        if found is None and preset is not None and presets:
            found = presets[0]
        if found is not None:
            self._apply_preset(found)
        self._state = self._build_state()

    # -- inputs ---------------------------------------------------------------
    @property
    def locale(self) -> QLocale:
        return self._locale

    @property
    def state(self) -> ActivationState:
        return self._state

    @property
    def presets(self) -> tuple[Preset, ...]:
        return self._presets

    @property
    def options(self) -> Options:
        return self._options

    @property
    def inputs(self) -> Inputs | None:
        """The estimator's inputs when every field is valid, else ``None``."""
        return self._state.estimate.result.inputs if self._state.estimate else None

    def value(self, field: ActivationField) -> int | None:
        """The field's current value, ``None`` if it is empty, not a number or not whole."""
        raw = self._raw[field]
        if isinstance(raw, Decimal) and raw == raw.to_integral_value():
            return int(raw)
        return None

    def select_preset(self, name: str | None) -> None:
        """Fill the sizes and sequence length from preset ``name``; ``None`` means custom
        (the current values stay)."""
        preset = self._find(name)
        if preset is None:
            self._preset = None
            self._refresh()
            return
        self._apply_preset(preset)
        self._refresh()
        self.valuesReplaced.emit({f: self.value(f) for f in (*SHAPE_FIELDS, ActivationField.SEQ)})

    def number_input(self, field: ActivationField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget); it follows
        ``set_locale``."""
        number = self._numbers.get(field)
        if number is None:
            number = self._numbers[field] = NumberInput(FIELD_LIMITS[field], locale=self._locale)
        return number

    def display_text(self, field: ActivationField) -> str:
        """The text ``field`` shows for what it holds (unreadable text stays as typed)."""
        return self.number_input(field).show_entry(self._raw[field])

    def set_text(self, field: ActivationField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale."""
        raw = self.number_input(field).read(text)
        if field is ActivationField.KV_HEADS and self._kv_follows_heads():
            return
        if self._raw[field] == raw and type(self._raw[field]) is type(raw):
            return
        self._raw[field] = raw
        if field is ActivationField.HEADS and self._kv_follows_heads():
            self._raw[ActivationField.KV_HEADS] = raw
            self._refresh()
            self.valuesReplaced.emit({ActivationField.KV_HEADS: self.value(field)})
            return
        self._refresh()

    def set_value(self, field: ActivationField, value: int) -> None:
        self.set_text(field, self.number_input(field).show(value))

    def set_family(self, family: Family) -> None:
        self._set_options(replace(self._options, family=family))
        if self._kv_follows_heads():
            heads = self._raw[ActivationField.HEADS]
            if self._raw[ActivationField.KV_HEADS] != heads:
                self._raw[ActivationField.KV_HEADS] = heads
                self._refresh()
                self.valuesReplaced.emit(
                    {ActivationField.KV_HEADS: self.value(ActivationField.HEADS)}
                )

    def set_dtype(self, dtype: DType) -> None:
        self._set_options(replace(self._options, dtype=dtype))

    def set_attention(self, attention: Attention) -> None:
        self._set_options(replace(self._options, attention=attention))

    def set_recompute(self, recompute: Recompute) -> None:
        self._set_options(replace(self._options, recompute=recompute))

    def set_sequence_parallel(self, enabled: bool) -> None:
        self._set_options(replace(self._options, sequence_parallel=enabled))

    def set_dropout(self, enabled: bool) -> None:
        self._set_options(replace(self._options, dropout=enabled))

    def set_profile(self, profile: Profile) -> None:
        self._set_options(replace(self._options, profile=profile))

    def set_locale(self, locale: QLocale) -> None:
        """Re-render every string for ``locale`` (after a language switch)."""
        self._locale = locale
        for number in self._numbers.values():
            number.locale = locale
        self._refresh(force=True)

    def retranslate(self) -> None:
        self._refresh(force=True)

    # -- remembering the last setup ---------------------------------------------
    def snapshot(self) -> dict[str, str]:
        """The dialog's current setup as plain strings (for the settings store)."""
        saved = {"preset": self._preset.name if self._preset is not None else ""}
        for field in ActivationField:
            value = self.value(field)
            if value is not None:
                saved[field.value] = str(value)
        options = self._options
        for key, member in (
            ("family", options.family),
            ("dtype", options.dtype),
            ("attention", options.attention),
            ("recompute", options.recompute),
            ("profile", options.profile),
        ):
            saved[key] = member.value
        saved["sequence_parallel"] = "true" if options.sequence_parallel else "false"
        saved["dropout"] = "true" if options.dropout else "false"
        return saved

    def restore(self, saved: Mapping[str, object]) -> None:
        """Apply a ``snapshot``; a missing, unknown or out-of-range value keeps what is
        there (settings files can be edited or damaged)."""

        def text(key: str) -> str | None:
            raw = saved.get(key)
            return raw.strip() if isinstance(raw, str) else None

        def member(key: str, enum_type: type[_E], default: _E) -> _E:
            raw = text(key)
            try:
                return enum_type(raw) if raw is not None else default
            except ValueError:
                return default

        def flag(key: str, default: bool) -> bool:
            raw = text(key)
            return {"true": True, "false": False}.get(raw or "", default)

        preset = self._find(text("preset"))
        if preset is not None:
            self._apply_preset(preset)
        elif text("preset") == "":
            self._preset = None
        current = self._options
        self._options = Options(
            family=member("family", Family, current.family),
            dtype=member("dtype", DType, current.dtype),
            attention=member("attention", Attention, current.attention),
            recompute=member("recompute", Recompute, current.recompute),
            sequence_parallel=flag("sequence_parallel", current.sequence_parallel),
            dropout=flag("dropout", current.dropout),
            profile=member("profile", Profile, current.profile),
        )
        for field in ActivationField:
            raw = text(field.value)
            if raw is None or not raw.isdigit():
                continue
            if check(FIELD_LIMITS[field], raw) is None:
                self._raw[field] = Decimal(int(raw))
        if self._kv_follows_heads():
            self._raw[ActivationField.KV_HEADS] = self._raw[ActivationField.HEADS]
        self._refresh(force=True)
        self.valuesReplaced.emit({f: self.value(f) for f in ActivationField})

    # -- the calculator -------------------------------------------------------
    def value_for_calculator(self) -> Decimal | None:
        """Peak per sample in GB rounded up to the calculator's decimals (never 0);
        ``None`` without an estimate or beyond the calculator's range."""
        view = self._state.estimate
        if view is None:
            return None
        return self._calculator_value(view.result)

    def use_value(self, calculator_vm: CalculatorViewModel) -> bool:
        """Put the peak per sample in the calculator's "activation per sample"."""
        value = self.value_for_calculator()
        if value is None:
            return False
        # only this field: the others keep what they show, even a value they refuse
        calculator_vm.set_value(Field.ACTIVATION_GB, value)
        return True

    # -- labels shared by widgets ---------------------------------------------
    def title(self) -> str:
        return self.tr("Estimate activation from the model")

    def label(self, control: Control, mnemonic: bool = False) -> str:
        text = {
            Option.PRESET: self.tr("&Model"),
            Option.FAMILY: self.tr("&Family"),
            ActivationField.HIDDEN: self.tr("&Hidden size"),
            ActivationField.LAYERS: self.tr("&Layers"),
            ActivationField.HEADS: self.tr("Attention h&eads"),
            ActivationField.KV_HEADS: self.tr("&Key/value heads"),
            ActivationField.INTERMEDIATE: self.tr("MLP &intermediate size"),
            ActivationField.VOCAB: self.tr("&Vocabulary size"),
            ActivationField.SEQ: self.tr("&Sequence length"),
            Option.DTYPE: self.tr("&Data type"),
            Option.ATTENTION: self.tr("&Attention"),
            Option.RECOMPUTE: self.tr("&Recomputation"),
            ActivationField.TENSOR_PARALLEL: self.tr("&Tensor-parallel size"),
            Option.SEQUENCE_PARALLEL: self.tr("Se&quence parallelism"),
            Option.DROPOUT: self.tr("Dro&pout enabled"),
            Option.PROFILE: self.tr("Accounting pr&ofile"),
        }[control]
        return text if mnemonic else text.replace("&", "")

    def hint(self, control: Control) -> str:
        return {
            Option.PRESET: self.tr(
                "Fills the sizes from the model's Hugging Face config.json; every field stays "
                "editable."
            ),
            Option.FAMILY: self.tr(
                "GPT-2: LayerNorm, GeLU MLP, one key/value head per attention head. Llama: "
                "RMSNorm, SwiGLU MLP, grouped-query attention, rotary positions."
            ),
            ActivationField.HIDDEN: self.tr("Width of the residual stream (hidden_size, h)."),
            ActivationField.LAYERS: self.tr("Transformer layers (num_hidden_layers, L)."),
            ActivationField.HEADS: self.tr(
                "Attention heads (num_attention_heads, a); they must divide the hidden size."
            ),
            ActivationField.KV_HEADS: self.tr(
                "Key/value heads of grouped-query attention (num_key_value_heads, k); they must "
                "divide the attention heads. GPT-2 has one per attention head."
            ),
            ActivationField.INTERMEDIATE: self.tr(
                "Width of the MLP (intermediate_size, i); GPT-2 uses 4 × hidden size."
            ),
            ActivationField.VOCAB: self.tr(
                "Tokens in the vocabulary (vocab_size, V): the logits and the loss grow with it."
            ),
            ActivationField.SEQ: self.tr("Tokens in one training sample (s)."),
            Option.DTYPE: self.tr("Precision the activations are stored in."),
            Option.ATTENTION: self.tr(
                "Eager attention stores the s² attention scores of every head; fused kernels "
                "(SDPA, FlashAttention) do not."
            ),
            Option.RECOMPUTE: self.tr(
                "Selective recomputes the attention core during the backward pass; full "
                "(gradient checkpointing) keeps only each layer's input."
            ),
            ActivationField.TENSOR_PARALLEL: self.tr(
                "GPUs that split every layer (Megatron-style tensor parallelism, t); 1 without it."
            ),
            Option.SEQUENCE_PARALLEL: self.tr(
                "Also splits norms, dropout and projection inputs along the sequence across the "
                "tensor-parallel GPUs."
            ),
            Option.DROPOUT: self.tr(
                "Dropout probability above zero: its masks are kept for the backward pass."
            ),
            Option.PROFILE: self.tr(
                "Paper: the accounting of Korthikanti et al. 2022 (Table 2). Hugging Face: what "
                "the transformers modules really keep in PyTorch."
            ),
        }[control]

    def custom_label(self) -> str:
        return self.tr("Custom")

    def preset_choices(self) -> tuple[tuple[str | None, str], ...]:
        """(name, label) of every preset, then (``None``, "Custom")."""
        return (*((p.name, p.label) for p in self._presets), (None, self.custom_label()))

    def family_choices(self) -> tuple[tuple[Family, str], ...]:
        return (
            (Family.GPT2, self.tr("GPT-2 (LayerNorm, GeLU)")),
            (Family.LLAMA, self.tr("Llama (RMSNorm, SwiGLU, GQA)")),
        )

    def dtype_choices(self) -> tuple[tuple[DType, str], ...]:
        return tuple((d, d.value) for d in DType)

    def attention_choices(self) -> tuple[tuple[Attention, str], ...]:
        return (
            (Attention.EAGER, self.tr("Eager (stores the s² scores)")),
            (Attention.SDPA, self.tr("Fused/Flash (SDPA)")),
        )

    def recompute_choices(self) -> tuple[tuple[Recompute, str], ...]:
        return (
            (Recompute.NONE, self.tr("None")),
            (Recompute.SELECTIVE, self.tr("Selective (attention core)")),
            (Recompute.FULL, self.tr("Full (gradient checkpointing)")),
        )

    def profile_choices(self) -> tuple[tuple[Profile, str], ...]:
        return (
            (Profile.PAPER, self.tr("Paper (Korthikanti et al.)")),
            (Profile.HF, self.tr("Hugging Face transformers")),
        )

    def part_texts(self) -> dict[Part, str]:
        """Short translated name of every breakdown part."""
        return {
            Part.ATTN_NORM: self.tr("Attention norm"),
            Part.QKV_PROJ_INPUT: self.tr("Q/K/V projection input"),
            Part.ATTN_QKV: self.tr("Q, K and V"),
            Part.ATTN_SOFTMAX: self.tr("Attention scores (softmax)"),
            Part.ATTN_DROPOUT: self.tr("Attention dropout"),
            Part.ATTN_FUSED: self.tr("Fused attention log-sum-exp"),
            Part.ATTN_OUT_PROJ_INPUT: self.tr("Attention output projection input"),
            Part.ATTN_RESID_DROPOUT: self.tr("Attention residual dropout mask"),
            Part.MLP_NORM: self.tr("MLP norm"),
            Part.MLP_IN_PROJ_INPUT: self.tr("MLP up projection input"),
            Part.MLP_ACTIVATION: self.tr("MLP activation function"),
            Part.MLP_OUT_PROJ_INPUT: self.tr("MLP down projection input"),
            Part.MLP_RESID_DROPOUT: self.tr("MLP residual dropout mask"),
            Part.LAYER_CHECKPOINT: self.tr("Layer input (checkpoint)"),
            Part.EMBEDDINGS: self.tr("Embeddings"),
            Part.ROTARY: self.tr("Rotary cos/sin tables"),
            Part.CAUSAL_MASK: self.tr("Causal mask (checkpoint input)"),
            Part.FINAL_NORM: self.tr("Final norm"),
            Part.LM_HEAD_INPUT: self.tr("Output projection input"),
            Part.LOSS: self.tr("Logits and loss"),
            Part.RECOMPUTED_LAYER: self.tr("One layer recomputed in the backward pass"),
            Part.RECOMPUTED_ATTENTION: self.tr(
                "One attention core recomputed in the backward pass"
            ),
            Part.LOGITS_TRANSIENT: self.tr("Logits around the loss"),
        }

    def part_text(self, part: Part) -> str:
        return self.part_texts().get(part, PART_TEXT[part])

    def assumption_texts(self) -> dict[Assumption, str]:
        """Translated text of every assumption the core can report."""
        return {
            Assumption.PER_SAMPLE: self.tr(
                "Bytes per sample (micro-batch b = 1); tensors shared by a batch (rotary "
                "tables, position ids, causal mask) are counted in full."
            ),
            Assumption.HEAD_DIM: self.tr("Head size is hidden size / heads."),
            Assumption.NO_PIPELINE: self.tr(
                "No pipeline parallelism: one stage holds every layer."
            ),
            Assumption.PAPER_TABLE2: self.tr(
                "Korthikanti et al. 2022, Table 2: 16-bit activations (scaled by the chosen "
                "data type) and 1-byte dropout masks."
            ),
            Assumption.PAPER_LLAMA_DERIVED: self.tr(
                "Llama family in the paper's accounting: RMSNorm inputs, Q and K/V with the "
                "key/value heads, SwiGLU keeps the gate and up outputs, the SiLU output and the "
                "product (8·s·i bytes); attention dropout only, no residual dropout."
            ),
            Assumption.PAPER_OUTSIDE_LAYERS: self.tr(
                "Outside the layers (paper §4.3): embedding dropout mask sbh/t, final norm input "
                "2sbh/t, output projection input 2sbh/t, fp32 logits 4sbv/t."
            ),
            Assumption.PAPER_FULL_CHECKPOINT: self.tr(
                "Full recomputation keeps 2sbh per layer (Table 2)."
            ),
            Assumption.PAPER_NO_DROPOUT: self.tr(
                "Without dropout the masks and the separate dropout output are not stored (the "
                "paper's terms with dropout removed)."
            ),
            Assumption.HF_PURE_DTYPE: self.tr(
                "Model weights cast to the data type (model.to(dtype)), no autocast."
            ),
            Assumption.HF_GELU_NEW: self.tr(
                "GPT-2 uses gelu_new (tanh formula in Python): its element-wise operations keep "
                "four tensors of s·i, plus the input of c_proj."
            ),
            Assumption.HF_LAYERNORM: self.tr(
                "LayerNorm keeps its input plus the mean and rstd of every token."
            ),
            Assumption.HF_RMSNORM_FP32: self.tr(
                "LlamaRMSNorm upcasts to fp32: it keeps the fp32 input, the fp32 rsqrt of every "
                "token and the normalised tensor in the model's data type."
            ),
            Assumption.HF_EAGER_GPT2: self.tr(
                "GPT-2 eager attention: softmax in the model's data type, its output (a·s² per "
                "layer) kept; the fused QKV output kept once for Q, K and V."
            ),
            Assumption.HF_EAGER_LLAMA: self.tr(
                "Llama eager attention: softmax in fp32 (kept) then cast (kept by the product "
                "with V); repeat_kv copies K and V to every head."
            ),
            Assumption.HF_SDPA: self.tr(
                "SDPA uses a fused (flash / memory-efficient) kernel: it keeps Q, K, V, the "
                "output and an fp32 log-sum-exp per head and token; GQA without copying K/V."
            ),
            Assumption.HF_SDPA_DROPOUT_CPU: self.tr(
                "On CPU, SDPA with dropout falls back to the math path in fp32: copies of Q, K "
                "and V and three fp32 s² tensors per head."
            ),
            Assumption.HF_ROTARY: self.tr(
                "The rotary embedding keeps only cos and sin, shared by every layer."
            ),
            Assumption.HF_SWIGLU: self.tr(
                "SwiGLU: SiLU keeps its input; the product keeps the SiLU output and the up "
                "projection; the down projection keeps the product."
            ),
            Assumption.HF_LOSS_FP32: self.tr(
                "Loss: logits cast to fp32 (logits.float()), the log_softmax output kept in "
                "fp32 (4·s·V bytes) plus the int64 labels."
            ),
            Assumption.HF_CHECKPOINTING: self.tr(
                "Full recomputation = gradient checkpointing of every decoder layer "
                "(non-reentrant): each layer keeps its input hidden states."
            ),
            Assumption.HF_SELECTIVE_MODELLED: self.tr(
                "Selective recomputation is not built into transformers: modelled as dropping "
                "the attention core's internal tensors."
            ),
            Assumption.DROPOUT_MASK_CUDA: self.tr(
                "CUDA dropout (fused native_dropout) keeps a 1-byte boolean mask."
            ),
            Assumption.DROPOUT_MASK_CPU: self.tr(
                "CPU dropout multiplies by a noise tensor kept in the activation data type."
            ),
            Assumption.TENSOR_PARALLEL: self.tr(
                "Tensor parallelism as in Megatron-LM: attention heads, MLP intermediate size "
                "and vocabulary split over t; norms, projection inputs and residual dropout "
                "masks split only with sequence parallelism."
            ),
            Assumption.VOCAB_PADDED: self.tr(
                "Vocabulary padded up to a multiple of t for the logits."
            ),
            Assumption.PEAK_MODEL: self.tr(
                "Peak = saved for the backward pass + recomputation transient + logits "
                "transient (a conservative upper bound)."
            ),
        }

    def assumption_text(self, assumption: Assumption) -> str:
        """Translated text; the core's English text if a key has no translation."""
        return self.assumption_texts().get(assumption, ASSUMPTION_TEXT[assumption])

    def format(self, value: int | Decimal) -> str:
        return format_number(self._locale, value)

    def format_gb(self, value: Decimal) -> str:
        return self.tr("{value} GB").format(value=self.format(value))

    def format_bytes(self, count: int) -> str:
        return format_counted(self._locale, lambda n: self.tr("%n byte(s)", "", n), count)

    # -- internals ------------------------------------------------------------
    def _find(self, name: str | None) -> Preset | None:
        if name is None:
            return None
        for preset in self._presets:
            if preset.name.lower() == name.lower():
                return preset
        return None

    def _apply_preset(self, preset: Preset) -> None:
        self._preset = preset
        self._options = replace(self._options, family=preset.family)
        for field in (*SHAPE_FIELDS, ActivationField.SEQ):
            self._raw[field] = Decimal(
                preset.default_seq if field is ActivationField.SEQ else getattr(preset, field.value)
            )

    def _kv_follows_heads(self) -> bool:
        return self._options.family is Family.GPT2

    def _set_options(self, options: Options) -> None:
        if options != self._options:
            self._options = options
            self._refresh()

    def _modified(self) -> bool:
        preset = self._preset
        if preset is None:
            return False
        if self._options.family is not preset.family:
            return True
        return any(self.value(f) != getattr(preset, f.value) for f in SHAPE_FIELDS)

    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _build_state(self) -> ActivationState:
        problems: list[str] = []
        invalid: set[ActivationField] = set()
        values: dict[ActivationField, int] = {}
        follows = self._kv_follows_heads()
        for field in ActivationField:
            if follows and field is ActivationField.KV_HEADS:
                continue
            problem = self._problem(field)
            if problem is None:
                value = self.value(field)
                assert value is not None
                values[field] = value
            else:
                problems.append(problem)
                invalid.add(field)
        if follows and ActivationField.HEADS in values:
            values[ActivationField.KV_HEADS] = values[ActivationField.HEADS]

        view: EstimateView | None = None
        if not problems:
            inputs = self._inputs(values)
            try:
                result = estimate(inputs)
            except InvalidActivationInputs as exc:
                message, fields = self._core_problem(exc, inputs)
                problems.append(message)
                invalid.update(fields)
            else:
                view = self._estimate_view(result)

        preset = self._preset
        if preset is None:
            preset_label = self.custom_label()
        elif self._modified():
            preset_label = self.tr("{model} (modified)").format(model=preset.label)
        else:
            preset_label = preset.label
        return ActivationState(
            estimate=view,
            prompt=self.tr("Correct the highlighted fields to see the estimate."),
            problems=tuple(problems),
            invalid=frozenset(invalid),
            options=self._options,
            preset=preset.name if preset is not None else None,
            preset_label=preset_label,
            kv_heads_follow_heads=follows,
            sources=self._sources(preset_label),
            measure_command=self._measure_command(),
            can_use=view is not None and self._calculator_value(view.result) is not None,
        )

    def _inputs(self, values: dict[ActivationField, int]) -> Inputs:
        o = self._options
        return Inputs(
            family=o.family,
            hidden=values[ActivationField.HIDDEN],
            layers=values[ActivationField.LAYERS],
            heads=values[ActivationField.HEADS],
            kv_heads=values[ActivationField.KV_HEADS],
            intermediate=values[ActivationField.INTERMEDIATE],
            vocab=values[ActivationField.VOCAB],
            seq=values[ActivationField.SEQ],
            dtype=o.dtype,
            dropout=o.dropout,
            attention=o.attention,
            recompute=o.recompute,
            tensor_parallel=values[ActivationField.TENSOR_PARALLEL],
            sequence_parallel=o.sequence_parallel,
            profile=o.profile,
        )

    def _problem(self, field: ActivationField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self.label(field), self._raw[field], self.number_input(field))

    def _core_problem(
        self, exc: InvalidActivationInputs, inputs: Inputs
    ) -> tuple[str, set[ActivationField]]:
        """The core's first objection: a message and the fields involved."""
        field = ActivationField(exc.field)
        label = self.label(field)
        heads = self.format(inputs.heads)
        size = self.format(inputs.tensor_parallel)
        both = {field, ActivationField.HEADS}
        if exc.problem is CoreProblem.MISMATCH:
            message = self.tr(
                "{field}: the GPT-2 family has as many as the attention heads ({heads})."
            )
            return message.format(field=label, heads=heads), both
        if exc.problem is CoreProblem.NOT_DIVISIBLE:
            # Without tensor parallelism only the head checks remain: which one failed?
            try:
                validate(replace(inputs, tensor_parallel=1, sequence_parallel=False))
            except InvalidActivationInputs:
                if field is ActivationField.HIDDEN:
                    message = self.tr(
                        "{field}: must be a multiple of the attention heads ({heads})."
                    )
                else:
                    message = self.tr("{field}: must divide the attention heads ({heads}).")
                return message.format(field=label, heads=heads), both
            if field is ActivationField.SEQ:
                message = self.tr(
                    "{field}: with sequence parallelism, must be a multiple of the "
                    "tensor-parallel size ({size})."
                )
            else:
                message = self.tr(
                    "{field}: must be a multiple of the tensor-parallel size ({size})."
                )
            return message.format(field=label, size=size), {
                field,
                ActivationField.TENSOR_PARALLEL,
            }
        return out_of_range(label, self.number_input(field)), {field}

    @staticmethod
    def _gb(nbytes: int) -> Decimal:
        """Exact decimal GB."""
        return Decimal(nbytes) / GB

    def _shown_gb(self, nbytes: int) -> str:
        """GB to 3 decimal places, or 3 significant digits below 1 GB."""
        value = self._gb(nbytes)
        if value.is_zero():
            return self.format_gb(Decimal(0))
        places = max(ACTIVATION_DECIMALS, ACTIVATION_DECIMALS - 1 - value.adjusted())
        rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        return self.format_gb(rounded)

    def _calculator_value(self, result: Result) -> Decimal | None:
        quantum = Decimal(1).scaleb(-ACTIVATION_DECIMALS)
        value = max(self._gb(result.peak_bytes).quantize(quantum, rounding=ROUND_CEILING), quantum)
        minimum, maximum = LIMITS[Field.ACTIVATION_GB].minimum, LIMITS[Field.ACTIVATION_GB].maximum
        return value if minimum <= value <= maximum else None

    def _row(self, item: Item) -> BreakdownRow:
        per_layer = self._shown_gb(item.bytes) if item.key in _PER_LAYER_PARTS else ""
        return BreakdownRow(
            label=self.part_text(item.key),
            per_layer=per_layer,
            total=self._shown_gb(item.total),
            kind=RowKind.ITEM,
        )

    def _breakdown(self, result: Result) -> tuple[BreakdownRow, ...]:
        layers = [item for item in result.breakdown if item.key in _PER_LAYER_PARTS]
        outside = [item for item in result.breakdown if item.key not in _PER_LAYER_PARTS]
        per_layer = format_counted(
            self._locale,
            lambda n: self.tr("Per layer × %n layer(s)", "", n),
            result.inputs.layers,
        )
        rows = [
            BreakdownRow(per_layer, self._shown_gb(result.per_layer_bytes), "", RowKind.SECTION)
        ]
        rows += [self._row(item) for item in layers]
        rows.append(BreakdownRow(self.tr("Once per sample"), "", "", RowKind.SECTION))
        rows += [self._row(item) for item in outside]
        rows.append(
            BreakdownRow(
                self.tr("Saved for the backward pass"),
                "",
                self._shown_gb(result.saved_bytes),
                RowKind.TOTAL,
            )
        )
        rows.append(BreakdownRow(self.tr("Only at the peak"), "", "", RowKind.SECTION))
        rows += [self._row(item) for item in result.peak_extra]
        rows.append(
            BreakdownRow(self.tr("Peak"), "", self._shown_gb(result.peak_bytes), RowKind.TOTAL)
        )
        return tuple(rows)

    def _warnings(self, result: Result) -> tuple[str, ...]:
        warnings: list[str] = []
        preset = self._preset
        if preset is not None and result.inputs.seq > preset.max_position_embeddings:
            warnings.append(
                self.tr(
                    "The sequence is longer than {model} accepts ({maximum} positions)."
                ).format(model=preset.label, maximum=self.format(preset.max_position_embeddings))
            )
        if self._calculator_value(result) is None:
            maximum = LIMITS[Field.ACTIVATION_GB].maximum
            warnings.append(
                self.tr("The peak is above the calculator's maximum of {maximum}.").format(
                    maximum=self.format_gb(maximum)
                )
            )
        return tuple(warnings)

    def _estimate_view(self, result: Result) -> EstimateView:
        value = self._calculator_value(result)
        if value is None:
            calculator_value = ""
            note = ""
        else:
            calculator_value = self.format_gb(value)
            note = self.tr(
                "“Use this value” puts {value} in the calculator's activation per sample: the "
                "peak rounded up to {decimals} decimal places."
            ).format(value=calculator_value, decimals=ACTIVATION_DECIMALS)
        return EstimateView(
            saved=self._shown_gb(result.saved_bytes),
            saved_bytes=self.format_bytes(result.saved_bytes),
            peak=self._shown_gb(result.peak_bytes),
            peak_bytes=self.format_bytes(result.peak_bytes),
            calculator_value=calculator_value,
            calculator_note=note,
            breakdown=self._breakdown(result),
            assumptions=tuple(self.assumption_text(a) for a in result.assumptions),
            warnings=self._warnings(result),
            result=result,
        )

    def _sources(self, preset_label: str) -> tuple[str, ...]:
        sources: list[str] = []
        if self._preset is not None:
            sources.append(
                self.tr("Model sizes: {model}, {url}").format(
                    model=preset_label, url=self._preset.source
                )
            )
        sources.append(
            self.tr("Paper profile: {citation}, {url}").format(
                citation=PAPER_CITATION, url=PAPER_URL
            )
        )
        sources.append(
            self.tr(
                "Hugging Face profile: the transformers 5 modules and PyTorch's autograd, "
                "checked against gradacc_desktop.measure (docs/ACTIVATION.md)."
            )
        )
        return tuple(sources)

    def _measure_command(self) -> str:
        o = self._options
        seq = self.value(ActivationField.SEQ) or 2048
        parts = [
            MEASURE_COMMAND,
            f"--seq {seq}",
            f"--dtype {o.dtype.value}",
            f"--attention {o.attention.value}",
        ]
        if o.recompute is Recompute.FULL:
            parts.append("--checkpointing")
        if not o.dropout:
            parts.append("--no-dropout")
        return " ".join(parts)
