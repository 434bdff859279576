"""What every family module builds on: the ``Architecture`` a ``config.json`` becomes,
the ``ConfigReader`` that reads its keys, the errors it raises and the shared pieces
(``linear``, ``single_stack``).

The family modules import these from here; ``core.memory.families`` re-exports them for the
rest of the app.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gradacc_desktop.core.memory.activation_types import ActivationLayout as ActivationLayout
from gradacc_desktop.core.memory.activation_types import Family, Inputs, Part, Product, StackKind
from gradacc_desktop.core.memory.activation_types import Stack as Stack
from gradacc_desktop.core.memory.families.heads import Task, modelled
from gradacc_desktop.core.text import trans_late


class Head(enum.Enum):
    """What the model is trained as (the loss the measure tool and the estimate use)."""

    CAUSAL_LM = "causal-lm"
    MASKED_LM = "masked-lm"
    SEQ2SEQ_LM = "seq2seq-lm"
    # image encoders (core.memory.families.vision)
    IMAGE_CLASSIFICATION = "image-classification"
    CONTRASTIVE = "contrastive"
    IMAGE_FEATURES = "image-features"


@dataclass(frozen=True)
class Architecture:
    """One model as its ``config.json`` describes it.

    ``layers`` is the number of decoder layers (encoder layers for encoders; T5: the
    encoder's, the decoder's count is in ``spec``). ``head_dim`` may differ from
    hidden / heads (Gemma, Qwen3). ``max_positions`` is None where positions are
    relative (T5). ``spec`` is the family module's own frozen dataclass.
    """

    model_type: str
    family: Family
    head: Head
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    max_positions: int | None
    spec: Any = field(default=None, compare=True)
    #: ``architectures[0]`` of the file, when it names one
    architecture: str = ""
    #: the head on top (``architectures[0]``): the language-model head unless it names a
    #: bare model or a fine-tuning head
    task: Task = Task.LM
    #: classes of a classification head (``num_labels``, else ``id2label``'s size)
    num_labels: int = 2
    #: the file sets ``pad_token_id`` (a decoder's classifier then looks for the last
    #: token that is not padding)
    pad_token: bool = False
    #: the file's ``use_cache`` (on unless it says false)
    use_cache: bool = True

    @property
    def task_modelled(self) -> bool:
        """Whether the estimate describes ``task`` (else the language-model head)."""
        return modelled(self, self.task)

    @property
    def default_seq(self) -> int:
        """A sequence length to start from: the context length, at most 4 096."""
        return min(self.max_positions or 512, 4096)

    @property
    def default_target_seq(self) -> int:
        """An encoder-decoder's target length to start from: ``default_seq``, at most the
        decoder's own learned positions (``max_target_positions``)."""
        return self._target_for(self.default_seq)

    @property
    def max_target_positions(self) -> int | None:
        """The longest target the decoder takes when its positions stop elsewhere than
        the encoder's (``spec.max_target_positions``: Whisper's 448); else None."""
        limit = getattr(self.spec, "max_target_positions", None)
        return int(limit) if limit else None

    def _target_for(self, seq: int) -> int:
        limit = self.max_target_positions
        return min(seq, limit) if limit is not None else seq

    @property
    def fixed_seq(self) -> int | None:
        """The only sequence length the model runs (Whisper's 1 500 encoder positions),
        None when any length up to its positions is fine."""
        fixed = getattr(self.spec, "fixed_seq", None)
        return int(fixed) if fixed is not None else None

    @property
    def encoder_decoder(self) -> bool:
        return self.head is Head.SEQ2SEQ_LM

    @property
    def decoder_layers(self) -> int:
        """An encoder-decoder's decoder layers (``layers`` are its encoder's); else 0."""
        return int(getattr(self.spec, "decoder_layers", 0)) if self.encoder_decoder else 0

    def inputs(self, seq: int | None = None, **options: Any) -> Inputs:
        """``activation.Inputs`` for this model (the other Inputs fields in ``options``)."""
        seq = self.default_seq if seq is None else seq
        if self.encoder_decoder and options.get("target_seq") is None:
            # the target defaults to the source length, within the decoder's positions
            target = self._target_for(seq)
            if target != seq:
                options["target_seq"] = target
        return Inputs(
            family=self.family,
            hidden=self.hidden,
            layers=self.layers,
            heads=self.heads,
            kv_heads=self.kv_heads,
            intermediate=self.intermediate,
            vocab=self.vocab,
            seq=seq,
            arch=self,
            **options,
        )


# --------------------------------------------------------------------------- errors


class ConfigProblem(enum.Enum):
    UNREADABLE = "unreadable"
    TOO_LARGE = "too_large"
    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    NO_MODEL_TYPE = "no_model_type"
    UNKNOWN_MODEL_TYPE = "unknown_model_type"
    BAD_VALUE = "bad_value"
    UNSUPPORTED = "unsupported"


class ModelConfigError(ValueError):
    """The file is not a configuration this app can estimate; ``detail`` says why."""

    def __init__(self, problem: ConfigProblem, detail: str, key: str = "") -> None:
        super().__init__(detail)
        self.problem = problem
        self.detail = detail
        self.key = key


# --------------------------------------------------------------------------- reading


class ConfigReader:
    """Typed, validating access to the keys of one decoded ``config.json``."""

    def __init__(self, raw: Mapping[str, Any], model_type: str) -> None:
        self.raw = raw
        self.model_type = model_type

    def has(self, key: str) -> bool:
        return key in self.raw and self.raw[key] is not None

    def bad(self, key: str, what: str) -> ModelConfigError:
        return ModelConfigError(
            ConfigProblem.BAD_VALUE,
            trans_late("ModelConfig", "{key} must be {what}, got {value}").format(
                key=key, what=what, value=repr(self.raw.get(key))
            ),
            key,
        )

    def integer(self, key: str, default: int | None = None, *, minimum: int = 1) -> int:
        """A whole number >= ``minimum``; ``default`` when absent (or null)."""
        if not self.has(key):
            if default is None:
                raise ModelConfigError(
                    ConfigProblem.BAD_VALUE,
                    trans_late("ModelConfig", "{key} is missing").format(key=key),
                    key,
                )
            return default
        value = self.raw[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.bad(
                key,
                trans_late("ModelConfig", "a whole number >= {minimum}").format(minimum=minimum),
            )
        if value > 10**9:
            raise self.bad(key, trans_late("ModelConfig", "at most 1 000 000 000").format())
        return value

    def first_int(self, keys: Iterable[str], default: int | None = None) -> int:
        """The first of ``keys`` present (configs name the same size differently)."""
        names = tuple(keys)
        for key in names:
            if self.has(key):
                return self.integer(key)
        if default is None:
            raise ModelConfigError(
                ConfigProblem.BAD_VALUE,
                trans_late("ModelConfig", "{key} is missing").format(key=" or ".join(names)),
                names[0],
            )
        return default

    def optional_int(self, key: str) -> int | None:
        return self.integer(key) if self.has(key) else None

    def flag(self, key: str, default: bool) -> bool:
        if not self.has(key):
            return default
        value = self.raw[key]
        if not isinstance(value, bool):
            raise self.bad(key, trans_late("ModelConfig", "true or false").format())
        return value

    def number(self, key: str, default: float | None) -> float | None:
        if not self.has(key):
            return default
        value = self.raw[key]
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.bad(key, trans_late("ModelConfig", "a number").format())
        return float(value)

    def text(self, key: str, default: str) -> str:
        if not self.has(key):
            return default
        value = self.raw[key]
        if not isinstance(value, str):
            raise self.bad(key, trans_late("ModelConfig", "a string").format())
        return value

    def str_list(self, key: str) -> tuple[str, ...] | None:
        if not self.has(key):
            return None
        value = self.raw[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(key, trans_late("ModelConfig", "a list of strings").format())
        return tuple(value)

    def unsupported(self, what: str, key: str = "") -> ModelConfigError:
        return ModelConfigError(ConfigProblem.UNSUPPORTED, what, key)

    def architecture(self) -> str:
        names = self.str_list("architectures")
        return names[0] if names else ""


# --------------------------------------------------------------------------- shared pieces


def linear(n_in: int, n_out: int, bias: bool) -> int:
    """Parameters of ``nn.Linear(n_in, n_out, bias)``."""
    return n_in * n_out + (n_out if bias else 0)


def single_stack(
    count: int,
    parts: Mapping[Part, int],
    checkpoint: Mapping[Part, int],
    products: tuple[Product, ...] = (),
) -> tuple[Stack, ...]:
    return (Stack(StackKind.LAYERS, count, parts, checkpoint, products),)
