"""The display-ready state the estimator's widgets show (frozen: compared, not edited)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.core.memory import Result
from gradacc_desktop.viewmodels.activation.fields import ActivationField, Options


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

    #: the cards' titles (the breakdown's total row says the first too)
    saved_title: str
    peak_title: str
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
    #: the image tower's parameters, tokens per image and share of the estimate ("" for
    #: a model without one)
    vision: str = ""


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
    #: the sizes come from a config.json: their fields are read-only
    model_loaded: bool = False
    #: the model's class, profile and parameters ("" for custom sizes)
    model_summary: str = ""
    #: why the last config.json the user chose was not opened ("" otherwise)
    load_error: str = ""
    #: the model has a decoder reading a target: its length is asked for
    encoder_decoder: bool = False
    #: the family is GPT-2 or Llama (tensor parallelism and the paper profile apply)
    typed_family: bool = True
    #: the model can fill a key/value cache in training (a causal LM, the HF profile,
    #: no full recomputation)
    cache_applies: bool = True
    #: the fused loss applies: a causal LM's head in the Hugging Face accounting
    loss_fuses: bool = True
    #: the image fields the model reads (shown), empty without a vision tower
    image_fields: tuple[ActivationField, ...] = ()
    #: the model has a vision tower (the frozen-tower check box shows)
    vision: bool = False
    #: the model runs one sequence length only (Whisper's encoder): the field is locked
    fixed_seq: bool = False

    @property
    def has_result(self) -> bool:
        return self.estimate is not None
