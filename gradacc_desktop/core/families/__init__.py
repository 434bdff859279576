"""Model families read from a Hugging Face ``config.json``: shape, parameters, activations.

Pure Python, no Qt and no ``torch``. A ``config.json`` (already decoded, or read from
a local file by ``read_model_config``; nothing is ever downloaded) becomes an
``Architecture``: its ``model_type``, the family profile that estimates it, the head
(causal LM, masked LM, sequence-to-sequence LM), the sizes every family has and the
family's own details (``spec``). Each family lives in one module of this package with
four names:

``MODEL_TYPES``
    the ``model_type`` values it reads;
``parse(config: ConfigReader) -> Architecture``
    the sizes, with the defaults of the ``transformers`` configuration class where a
    key is absent (the same model ``transformers`` would build);
``parameters(arch) -> int``
    the exact number of parameters (``model.num_parameters()``: tied weights once);
``layout(arch, inputs) -> Layout``
    what autograd keeps for backward, in bytes per sample (``activation.Part`` keys):
    per layer (one ``Stack`` per kind of layer) and once per model.

``activation.estimate`` turns a ``Layout`` into a ``Result`` the same way for every
family (full recomputation keeps each stack's ``checkpoint``; selective drops the
attention core; the peak adds one recomputed layer and the logits transient).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from gradacc_desktop.core.activation import Family, Part, StackKind
from gradacc_desktop.core.families.heads import DEFAULT_PAD_TOKEN, Task, task_of_class
from gradacc_desktop.core.text import trans_late

if TYPE_CHECKING:
    from gradacc_desktop.core.activation import Inputs

#: a config.json larger than this is not a model configuration (real ones are < 20 kB)
MAX_CONFIG_BYTES = 2_000_000


class Head(enum.Enum):
    """What the model is trained as (the loss the measure tool and the estimate use)."""

    CAUSAL_LM = "causal-lm"
    MASKED_LM = "masked-lm"
    SEQ2SEQ_LM = "seq2seq-lm"
    # image encoders (core.families.vision)
    IMAGE_CLASSIFICATION = "image-classification"
    CONTRASTIVE = "contrastive"
    IMAGE_FEATURES = "image-features"


FAMILY_TEXT: dict[Family, str] = {
    Family.GPT2: trans_late("Activation", "GPT-2"),
    Family.LLAMA: trans_late("Activation", "Llama-like (Llama, Mistral, Qwen2, Qwen3)"),
    Family.GEMMA: trans_late("Activation", "Gemma (1, 2, 3)"),
    Family.PHI3: trans_late("Activation", "Phi-3"),
    Family.GPT_NEOX: trans_late("Activation", "GPT-NeoX / Pythia"),
    Family.FALCON: trans_late("Activation", "Falcon"),
    Family.OPT: trans_late("Activation", "OPT"),
    Family.MOE: trans_late("Activation", "Mixture of experts (Mixtral, Qwen-MoE)"),
    Family.BERT: trans_late("Activation", "BERT / RoBERTa encoder"),
    Family.T5: trans_late("Activation", "T5 encoder-decoder"),
    Family.LLAMA_VARIANT: trans_late(
        "Activation", "Llama variant (OLMo 2, Command-R, StarCoder2, GLM-4, StableLM, Granite)"
    ),
    Family.DISTILBERT: trans_late("Activation", "DistilBERT encoder"),
    Family.DEBERTA: trans_late("Activation", "DeBERTa-v2/v3 encoder"),
    Family.MODERNBERT: trans_late("Activation", "ModernBERT encoder"),
    Family.BART: trans_late("Activation", "BART / mBART encoder-decoder"),
    Family.DEEPSEEK: trans_late("Activation", "DeepSeek-V2/V3 (latent attention, experts)"),
    Family.GPT_OSS: trans_late("Activation", "gpt-oss (mixture of experts)"),
    Family.MAMBA: trans_late("Activation", "Mamba state-space model (Mamba, Falcon-Mamba)"),
    Family.JAMBA: trans_late("Activation", "Jamba (Mamba + attention + experts)"),
    Family.WHISPER: trans_late("Activation", "Whisper speech encoder-decoder"),
    Family.VISION: trans_late("Activation", "Image encoder (ViT, CLIP, SigLIP)"),
    Family.VLM: trans_late("Activation", "Language model with a vision tower"),
}


@dataclass(frozen=True)
class Stack:
    """``count`` layers that keep the same tensors.

    ``parts``: one layer without recomputation. ``checkpoint``: what one layer keeps
    when every layer is recomputed (the checkpoint's inputs).
    """

    kind: StackKind
    count: int
    parts: Mapping[Part, int]
    checkpoint: Mapping[Part, int]


@dataclass(frozen=True)
class Layout:
    """Bytes per sample autograd keeps, as one family builds them for ``inputs``."""

    stacks: tuple[Stack, ...]
    #: once per model (already reflecting the recomputation choice)
    outside: Mapping[Part, int]
    #: peak transient around the loss (logits in the model dtype, fp32 copy/gradient)
    logits: int
    #: the family's own assumptions, English, marked with ``trans_late("Activation", …)``
    notes: tuple[str, ...] = ()


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
        from gradacc_desktop.core.families.heads import modelled

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
        from gradacc_desktop.core.activation import Inputs

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

    def _bad(self, key: str, what: str) -> ModelConfigError:
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
            raise self._bad(
                key,
                trans_late("ModelConfig", "a whole number >= {minimum}").format(minimum=minimum),
            )
        if value > 10**9:
            raise self._bad(key, trans_late("ModelConfig", "at most 1 000 000 000").format())
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
            raise self._bad(key, trans_late("ModelConfig", "true or false").format())
        return value

    def number(self, key: str, default: float | None) -> float | None:
        if not self.has(key):
            return default
        value = self.raw[key]
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self._bad(key, trans_late("ModelConfig", "a number").format())
        return float(value)

    def text(self, key: str, default: str) -> str:
        if not self.has(key):
            return default
        value = self.raw[key]
        if not isinstance(value, str):
            raise self._bad(key, trans_late("ModelConfig", "a string").format())
        return value

    def str_list(self, key: str) -> tuple[str, ...] | None:
        if not self.has(key):
            return None
        value = self.raw[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, trans_late("ModelConfig", "a list of strings").format())
        return tuple(value)

    def unsupported(self, what: str, key: str = "") -> ModelConfigError:
        return ModelConfigError(ConfigProblem.UNSUPPORTED, what, key)

    def architecture(self) -> str:
        names = self.str_list("architectures")
        return names[0] if names else ""


# --------------------------------------------------------------------------- registry


class FamilyModule(Protocol):
    MODEL_TYPES: tuple[str, ...]

    def parse(self, config: ConfigReader) -> Architecture: ...

    def parameters(self, arch: Architecture) -> int: ...

    def layout(self, arch: Architecture, inputs: Inputs) -> Layout: ...


def _load() -> dict[str, ModuleType]:
    from gradacc_desktop.core.families.registry import MODULES

    table: dict[str, ModuleType] = {}
    for module in MODULES:
        for model_type in module.MODEL_TYPES:
            table[model_type] = module
    return table


_REGISTRY: dict[str, ModuleType] | None = None


def _registry() -> dict[str, ModuleType]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY


def supported_model_types() -> tuple[str, ...]:
    """Every ``model_type`` a config may have, sorted (case aside)."""
    return tuple(sorted(_registry(), key=str.lower))


def family_module(arch_or_type: Architecture | str) -> FamilyModule:
    model_type = arch_or_type if isinstance(arch_or_type, str) else arch_or_type.model_type
    module: FamilyModule = _registry()[model_type]
    return module


def parse_model_config(raw: Any) -> Architecture:
    """The ``Architecture`` of a decoded ``config.json``; ``ModelConfigError`` if not one."""
    if not isinstance(raw, Mapping):
        raise ModelConfigError(
            ConfigProblem.NOT_OBJECT,
            trans_late("ModelConfig", "the file is not a JSON object").format(),
        )
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        guess = _type_of_class(raw)
        if guess:
            detail = trans_late(
                "ModelConfig",
                "the file has no model_type key; its architectures name a {guess} model: "
                'add "model_type": "{guess}"',
            ).format(guess=guess)
        else:
            detail = trans_late(
                "ModelConfig", "the file has no model_type key; supported types are {types}"
            ).format(types=", ".join(supported_model_types()))
        raise ModelConfigError(ConfigProblem.NO_MODEL_TYPE, detail, "model_type")
    try:
        module = family_module(model_type)
    except KeyError:
        raise ModelConfigError(
            ConfigProblem.UNKNOWN_MODEL_TYPE, _unknown_type(raw, model_type), "model_type"
        ) from None
    config = ConfigReader(raw, model_type)
    arch = module.parse(config)
    if not arch.architecture:
        arch = replace(arch, architecture=config.architecture())
    return replace(
        arch,
        # a family that builds the heads its files name itself (image encoders: ViTModel,
        # CLIPModel) declares OWN_HEADS: the generic task heads do not apply
        task=Task.LM if getattr(module, "OWN_HEADS", False) else task_of_class(arch.architecture),
        num_labels=_num_labels(config),
        pad_token=config.has("pad_token_id")
        or ("pad_token_id" not in raw and model_type in DEFAULT_PAD_TOKEN),
        use_cache=config.flag("use_cache", True),
    )


def _num_labels(config: ConfigReader) -> int:
    """``PretrainedConfig``'s rule: ``num_labels`` when given, else the size of
    ``id2label``, else 2."""
    if config.has("num_labels"):
        return config.integer("num_labels")
    labels = config.raw.get("id2label")
    if isinstance(labels, Mapping) and labels:
        return len(labels)
    return 2


def _type_of_class(raw: Mapping[str, Any]) -> str:
    """The supported ``model_type`` whose classes ``architectures[0]`` names
    (``XLMRobertaForMaskedLM`` -> ``xlm-roberta``), or ""."""
    names = raw.get("architectures")
    if not isinstance(names, list) or not names or not isinstance(names[0], str):
        return ""
    prefix = names[0].split("For", 1)[0].removesuffix("Model").removesuffix("LMHead")
    wanted = prefix.lower()
    for model_type in supported_model_types():
        if model_type.replace("-", "").replace("_", "").lower() == wanted:
            return model_type
    return ""


#: model types published with remote code only (transformers 5.24 has no class for them)
REMOTE_CODE_TYPES = frozenset({"internlm2"})


def _unknown_type(raw: Mapping[str, Any], model_type: str) -> str:
    """Why ``model_type`` is refused, naming what comes nearest."""
    import difflib

    types = supported_model_types()
    if model_type in REMOTE_CODE_TYPES:
        return trans_late(
            "ModelConfig",
            "model_type {model_type} needs remote code (trust_remote_code): transformers "
            "has no class for it, so it is not modelled; supported types are {types}",
        ).format(model_type=repr(model_type), types=", ".join(types))
    if isinstance(raw.get("auto_map"), Mapping):
        return trans_late(
            "ModelConfig",
            "model_type {model_type} is remote code (the file has an auto_map): "
            "transformers has no class for it, so it is not modelled; supported types are "
            "{types}",
        ).format(model_type=repr(model_type), types=", ".join(types))
    folded = {t.lower().replace("-", "_"): t for t in types}
    near = difflib.get_close_matches(model_type.lower().replace("-", "_"), folded, n=1)
    if near:
        return trans_late(
            "ModelConfig",
            "model_type {model_type} is not supported (the closest supported name is "
            "{near}); supported types are {types}",
        ).format(model_type=repr(model_type), near=folded[near[0]], types=", ".join(types))
    return trans_late(
        "ModelConfig",
        "model_type {model_type} is not supported; supported types are {types}",
    ).format(model_type=repr(model_type), types=", ".join(types))


def file_name(path: str) -> str:
    """The last part of a path the user chose, whichever separator it uses."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] or path


def read_model_config_text(path: str | Path) -> str:
    """The text of a local ``config.json`` (never a download), size-checked and decoded."""
    file = Path(path)
    try:
        with file.open("rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ModelConfigError(
            ConfigProblem.UNREADABLE,
            trans_late("ModelConfig", "cannot read {name}: {why}").format(
                name=file.name, why=exc.strerror or str(exc)
            ),
        ) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ModelConfigError(
            ConfigProblem.TOO_LARGE,
            trans_late("ModelConfig", "{name} is larger than a model configuration").format(
                name=file.name
            ),
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ModelConfigError(
            ConfigProblem.NOT_JSON,
            trans_late("ModelConfig", "not valid JSON: not UTF-8 text").format(),
        ) from None


def read_model_config(path: str | Path) -> Architecture:
    """Read a local ``config.json`` (never a download) and parse it."""
    return parse_model_config_text(read_model_config_text(path))


def parse_model_config_text(data: bytes | str) -> Architecture:
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ModelConfigError(
            ConfigProblem.NOT_JSON,
            trans_late("ModelConfig", "not valid JSON: {why}").format(why=str(exc)),
        ) from None
    return parse_model_config(raw)


def parameters(arch: Architecture) -> int:
    """Exact parameter count (``num_parameters()`` of the model ``transformers`` builds,
    with the head ``architectures`` names)."""
    from gradacc_desktop.core.families import heads

    return heads.parameters(arch, family_module(arch).parameters(arch))


def layout(arch: Architecture, inputs: Inputs) -> Layout:
    """What ``arch`` keeps for ``inputs``: the family's layers and its task head."""
    from gradacc_desktop.core.families import heads

    shape = heads.apply(arch, inputs, family_module(arch).layout(arch, inputs))
    if inputs.fills_cache:
        shape = replace(shape, notes=(*shape.notes, CACHE_NOTE))
    return shape


CACHE_NOTE = trans_late(
    "Activation",
    "use_cache is on and no layer is recomputed: transformers fills its generation cache "
    "during the training forward. Where K and V are views of a fused projection (Phi-3, "
    "GPT-NeoX, GPT-2) the cache's copies change what autograd keeps; elsewhere the cache "
    "holds tensors autograd keeps anyway. Set use_cache to false to train without it.",
)


# --------------------------------------------------------------------------- shared pieces


def linear(n_in: int, n_out: int, bias: bool) -> int:
    """Parameters of ``nn.Linear(n_in, n_out, bias)``."""
    return n_in * n_out + (n_out if bias else 0)


def single_stack(
    count: int, parts: Mapping[Part, int], checkpoint: Mapping[Part, int]
) -> tuple[Stack, ...]:
    return (Stack(StackKind.LAYERS, count, parts, checkpoint),)
