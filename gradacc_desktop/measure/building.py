"""Building the model to measure: a random-weight ``transformers`` model from a
``config.json`` (never downloaded) with the head a training run uses, the dtype, the
attention implementation, checkpointing, and dropout turned on or off and checked
(``gradacc_desktop.measure`` describes the rules). ``torch`` and ``transformers`` are
imported only inside the functions."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .batches import make_batch
from .errors import MeasureError, is_oom, one_line
from .heads import (
    CAUSAL_LM,
    IMAGE_FEATURES,
    IMAGE_MODELS,
    MASKED_LM,
    SEQ2SEQ_LM,
    SPEECH_SEQ2SEQ,
    SUPPORTED_MODEL_TYPES,
    TASK_BATCH_HEADS,
    TEXT_ONLY,
    head_of_class,
    head_of_type,
)

DTYPES = ("bf16", "fp16", "fp32")
ATTENTIONS = ("eager", "sdpa")
# dropout probabilities (set to 0.0 by dropout=False, to 0.1 where 0/None by True)
_DROPOUT_NAME = re.compile(r"dropout|pdrop", re.IGNORECASE)
# other training-time random regularisers: only turned off (never turned on)
_STOCHASTIC_NAME = re.compile(r"layerdrop|layer_drop|drop_path|jitter_noise", re.IGNORECASE)
_PROBE_SEQ = 4


@dataclass
class BuiltModel:
    model: Any
    head: str
    notes: list[str] = field(default_factory=list)


def load_config(config: Mapping[str, Any] | str) -> dict[str, Any]:
    """The config as a dict: a mapping as given, or a local JSON file (never downloaded)."""
    if isinstance(config, str):
        try:
            with open(config, encoding="utf-8") as fh:
                raw = json.load(fh)
        except OSError as exc:
            raise MeasureError(f"cannot read {config}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MeasureError(f"{config} is not a JSON file: {exc}") from None
        where = config
    else:
        raw = config
        where = "the config"
    if not isinstance(raw, Mapping):
        raise MeasureError(f"{where} is not a JSON object (found {type(raw).__name__})")
    return dict(raw)


def _hf_config(config: Mapping[str, Any] | str) -> Any:
    """``AutoConfig.for_model`` of the config, with a clear error for what it rejects."""
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    raw = load_config(config)
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise MeasureError(
            "the config has no model_type; supported model types: "
            + ", ".join(SUPPORTED_MODEL_TYPES)
        )
    if model_type not in CONFIG_MAPPING_NAMES:
        raise MeasureError(
            f"unknown model_type {model_type!r} (transformers {transformers.__version__} "
            "does not know it); supported model types: " + ", ".join(SUPPORTED_MODEL_TYPES)
        )
    try:
        return AutoConfig.for_model(**raw)
    except Exception as exc:  # whatever the config class raises for bad values
        raise MeasureError(
            f"transformers rejects this {model_type} config: {one_line(exc)}"
        ) from None


def _resolve(cfg: Any) -> tuple[Any, Any, str, list[str]]:
    """(config to build from, model class, head kind, notes) for a transformers config."""
    import transformers

    notes: list[str] = []
    text_only = TEXT_ONLY.get(cfg.model_type)
    if text_only is not None:
        text_cfg = cfg.get_text_config()
        notes.append(
            f"{cfg.model_type}: measured the text model only, {text_only} built from "
            "text_config (no vision tower)"
        )
        text_cfg.architectures = [text_only]
        cfg = text_cfg
    image = IMAGE_MODELS.get(cfg.model_type)
    if image is not None:
        return (cfg, *_image_class(cfg, *image, notes))
    speech = SPEECH_SEQ2SEQ.get(cfg.model_type)
    if speech is not None:
        named = (getattr(cfg, "architectures", None) or [speech])[0]
        if named != speech:
            notes.append(f"{named}: built {speech} ({SEQ2SEQ_LM}) for its model_type")
        return cfg, getattr(transformers, speech), SEQ2SEQ_LM, notes
    archs = getattr(cfg, "architectures", None) or []
    name = archs[0] if isinstance(archs[0] if archs else None, str) else None
    passed_over = None
    if name is not None:
        cls = getattr(transformers, name, None)
        head = head_of_class(name)
        config_class = getattr(cls, "config_class", None) or object
        if cls is None:
            passed_over = f"transformers has no class {name}"
        elif head is None:
            passed_over = f"{name} is not a language-model head trained with labels"
        elif head in TASK_BATCH_HEADS and getattr(cfg, "is_encoder_decoder", False):
            # the estimate describes an encoder-decoder's LM head only
            passed_over = f"{name} is not modelled for an encoder-decoder"
        elif not isinstance(cfg, config_class):
            passed_over = f"{name} does not take a {type(cfg).__name__}"
        else:
            return cfg, cls, head, notes
    head = head_of_type(cfg)
    auto = {
        CAUSAL_LM: transformers.AutoModelForCausalLM,
        MASKED_LM: transformers.AutoModelForMaskedLM,
        SEQ2SEQ_LM: transformers.AutoModelForSeq2SeqLM,
    }[head]
    try:
        cls = auto._model_mapping[type(cfg)]
    except KeyError:
        raise MeasureError(
            f"transformers has no {head} class for model_type {cfg.model_type!r}"
        ) from None
    if passed_over is not None:
        notes.append(f"{passed_over}: built {cls.__name__} ({head}) for its model_type")
    return cfg, cls, head, notes


def head_kind(config_dict: Mapping[str, Any] | str) -> str:
    """The head :func:`build_model` builds: "causal-lm", "masked-lm", "seq2seq-lm", a
    task head ("sequence-classification", ...) or "base"."""
    return _resolve(_hf_config(config_dict))[2]


def _configs(cfg: Any) -> list[Any]:
    """The config and its nested sub-configs (``text_config`` etc.), depth first."""
    found = [cfg]
    for key in getattr(cfg, "sub_configs", {}) or {}:
        sub = getattr(cfg, key, None)
        if sub is not None and hasattr(sub, "to_dict"):
            found.extend(_configs(sub))
    return found


def _is_probability(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _dropout_keys(cfg: Any) -> list[tuple[Any, str, bool]]:
    """(config, attribute, is_dropout) of every dropout-like probability in the config."""
    keys = []
    for c in _configs(cfg):
        subs = set(getattr(c, "sub_configs", {}) or {})
        for key in c.to_dict():
            if key in subs or key.startswith("_"):
                continue
            is_dropout = bool(_DROPOUT_NAME.search(key))
            if not (is_dropout or _STOCHASTIC_NAME.search(key)):
                continue
            if _is_probability(getattr(c, key, None)):
                keys.append((c, key, is_dropout))
    return keys


def _set_dropout(cfg: Any, dropout: bool) -> None:
    if not dropout and getattr(cfg, "classifier_dropout", None) is None:
        # the generic token-classification head drops out 0.1 when the file sets no
        # classifier_dropout (or hidden_dropout): turned off with the rest
        with contextlib.suppress(Exception):
            cfg.classifier_dropout = 0.0
    for c, key, is_dropout in _dropout_keys(cfg):
        value = getattr(c, key)
        new = 0.0 if not dropout else 0.1 if is_dropout and not value else value
        if new != value:
            # a value the config refuses stays: the check after the build sees it
            with contextlib.suppress(Exception):
                setattr(c, key, new)


def _dropout_left(model: Any) -> list[str]:
    """Where the built model still drops out (empty when every dropout is off)."""
    import torch

    left = [
        f"config {key}={getattr(c, key)}"
        for c, key, _ in _dropout_keys(model.config)
        if getattr(c, key)
    ]
    for name, module in model.named_modules():
        where = name or "<model>"
        if isinstance(module, torch.nn.modules.dropout._DropoutNd) and module.p > 0:
            left.append(f"{where} ({type(module).__name__} p={module.p})")
        for attr, value in vars(module).items():
            if (
                "drop" in attr.lower()
                and isinstance(value, int | float)
                and not isinstance(value, bool)
                and value > 0
            ):
                left.append(f"{where}.{attr}={value}")
    return left


def _probe_deterministic(model: Any, head: str) -> bool:
    """Two training forwards of one tiny batch give the same logits (no dropout left)."""
    import torch

    batch = make_batch(model, head, _PROBE_SEQ, 1, 0, _PROBE_SEQ)
    with torch.no_grad():
        first = _output_tensor(model(**batch))
        second = _output_tensor(model(**batch))
    # random fp16 weights may overflow: NaN where the first has NaN is still "the same"
    return bool(torch.allclose(first, second, rtol=0.0, atol=0.0, equal_nan=True))


def build(
    config: Mapping[str, Any] | str,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    dropout: bool | None = None,
    meta: bool = False,
    use_cache: bool = False,
) -> BuiltModel:
    import torch
    import transformers

    if dtype not in DTYPES:
        raise MeasureError(f"dtype must be one of {', '.join(DTYPES)}, not {dtype!r}")
    if attention not in ATTENTIONS:
        raise MeasureError(f"attention must be eager or sdpa, not {attention!r}")
    cfg, cls, head, notes = _resolve(_hf_config(config))
    untied = load_config(config).get("tie_word_embeddings") is False
    if dropout is not None:
        _set_dropout(cfg, dropout)
    for c in _configs(cfg):
        if hasattr(c, "use_cache"):
            # off unless asked: with it on, a training forward without checkpointing
            # also fills a key/value cache (transformers turns it off under checkpointing)
            c.use_cache = use_cache
    if head == SEQ2SEQ_LM and getattr(cfg, "decoder_start_token_id", None) is None:
        # the labels are shifted right behind this token; T5 configs without the key
        # (transformers 5 no longer defaults it) start from the padding token, as T5 does
        pad = getattr(cfg, "pad_token_id", None)
        if pad is None:
            raise MeasureError(
                "the seq2seq config has neither decoder_start_token_id nor pad_token_id"
            )
        cfg.decoder_start_token_id = pad
        notes.append(f"decoder_start_token_id not in the config: used pad_token_id {pad}")
    if attention == "sdpa" and getattr(cls, "_supports_sdpa", None) is False:
        # what transformers would raise (ValueError) at construction, said plainly
        raise MeasureError(
            f"{cls.__name__} cannot run --attention sdpa in transformers "
            f"{transformers.__version__}; supported: eager" + _why_no_sdpa(cfg)
        )
    try:
        if meta:
            with torch.device("meta"):
                model = cls._from_config(cfg, attn_implementation=attention)
        else:
            model = cls._from_config(cfg, attn_implementation=attention)
    except (MemoryError, MeasureError):
        raise
    except RuntimeError as exc:
        if is_oom(exc):
            raise
        raise MeasureError(_cannot_build(cls, exc)) from None
    except Exception as exc:  # whatever transformers raises for a config it cannot build
        if "attn_implementation" in str(exc) or "attention implementation" in str(exc):
            raise MeasureError(
                f"{cls.__name__} cannot run --attention {attention} in transformers "
                f"{transformers.__version__} ({one_line(exc)}); supported: "
                + ", ".join(a for a in ATTENTIONS if a != attention)
            ) from None
        raise MeasureError(_cannot_build(cls, exc)) from None
    if untied and _untie_output_embeddings(model):
        notes.append(
            "tie_word_embeddings is false: lm_head untied from the input embeddings, as "
            "from_pretrained leaves it when the checkpoint holds its own lm_head"
        )
    if meta:
        return BuiltModel(model, head, notes)
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
    model = model.to(torch_dtype)
    model.train()
    if dropout is False:
        left = _dropout_left(model)
        if left:
            raise MeasureError(
                f"cannot turn dropout off in {cls.__name__}: still on in "
                + "; ".join(left[:5])
                + (f" (+{len(left) - 5} more)" if len(left) > 5 else "")
                + "; refusing to measure with dropout on"
            )
        if not _probe_deterministic(model, head):
            raise MeasureError(
                f"cannot turn dropout off in {cls.__name__}: two training forwards of the "
                "same batch differ (a dropout no config key controls); refusing to measure"
            )
    if checkpointing:
        enable = getattr(model, "activation_checkpointing_enable", None)
        (enable or model.gradient_checkpointing_enable)()
    model.train()
    return BuiltModel(model, head, notes)


def _untie_output_embeddings(model: Any) -> bool:
    """Give the LM head its own weight when the model was built sharing the input
    embedding's (T5 in transformers 5.24 ties whatever the file says; a published
    checkpoint with its own lm_head is loaded untied). True when it untied."""
    import torch

    out, inp = model.get_output_embeddings(), model.get_input_embeddings()
    if out is None or inp is None or out.weight is not inp.weight:
        return False
    out.weight = torch.nn.Parameter(out.weight.detach().clone())
    return True


def _why_no_sdpa(cfg: Any) -> str:
    if cfg.model_type == "gemma2":
        return " (Gemma 2's attention logit soft-capping is implemented in eager only)"
    return ""


def _cannot_build(cls: Any, exc: BaseException) -> str:
    return f"transformers cannot build {cls.__name__} from this config: {one_line(exc)}"


def build_model(
    config: Mapping[str, Any] | str,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    dropout: bool | None = None,
    use_cache: bool = False,
) -> Any:
    """Random-weight LM from a config dict or local ``config.json`` path, in train mode.

    The head follows the config (see the module docstring): the class ``architectures``
    names when it is an LM head, else masked LM for encoders, seq2seq LM for
    encoder-decoders, causal LM otherwise; a ``gemma3`` config gives the text-only
    ``Gemma3ForCausalLM``. ``dropout``: None keeps the config's dropout probabilities;
    False sets every one to 0.0 and checks that the model drops nothing out; True
    keeps them (and sets 0.1 where the config has none or 0). ``use_cache``: the
    training forward also fills a key/value cache (off by default). Raises
    :class:`MeasureError` (a ValueError) for what cannot be built or measured.
    """
    return build(
        config,
        dtype=dtype,
        attention=attention,
        checkpointing=checkpointing,
        dropout=dropout,
        use_cache=use_cache,
    ).model


def count_parameters(config: Mapping[str, Any] | str) -> int:
    """Parameters of the model :func:`build_model` builds (tied weights once).

    The model is built on the meta device, so nothing is allocated.
    """
    return int(build(config, attention="eager", meta=True).model.num_parameters())


def _image_class(cfg: Any, name: str, head: str, notes: list[str]) -> tuple[Any, str, list[str]]:
    import transformers

    archs = getattr(cfg, "architectures", None) or []
    if cfg.model_type == "vit" and archs[:1] == ["ViTModel"]:
        name, head = "ViTModel", IMAGE_FEATURES
    elif archs and archs[0] != name:
        notes.append(f"{archs[0]}: built {name} ({head}), the head the estimate describes")
    return getattr(transformers, name), head, notes


def _output_tensor(out: Any) -> Any:
    """The tensor two forwards are compared on (logits, else the image-text scores or
    the last hidden state)."""
    for key in ("logits", "logits_per_image", "start_logits", "last_hidden_state"):
        value = getattr(out, key, None)
        if value is not None:
            return value
    raise MeasureError("the model returned neither logits nor hidden states")
