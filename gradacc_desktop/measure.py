"""Measure the activation memory a real PyTorch model saves for backward.

This module is the empirical counterpart of :mod:`gradacc_desktop.core.activation`:
it runs one *training* forward pass and adds up the bytes of every tensor that
autograd keeps from the forward pass until the backward pass. It needs ``torch``
(and ``transformers`` for the command line), which the desktop app itself does not:
both are imported only inside the functions here.

Use it from your own training script in three lines::

    from gradacc_desktop.measure import measure_activation
    saved = measure_activation(model, {"input_ids": ids, "labels": ids})
    print(saved / ids.shape[0], "bytes per sample")

or from the command line, with a random-weight model built from a Hugging Face
``config.json`` (nothing is downloaded: the local file is read and the model is
built with ``AutoConfig.for_model``)::

    python -m gradacc_desktop.measure --model-config config.json --seq 2048 \\
        --micro-batch 1 --dtype bf16 --attention sdpa [--checkpointing] \\
        [--no-dropout] [--target-seq 512] [--json]

It prints the class built (``model: <Class> (<head>)``), the attention
implementation that actually ran, the parameter count (tied weights once) and the
bytes saved per sample; ``--json`` prints one JSON object instead.

Heads. The model is built with the head a training run of that family uses, so the
loss in the graph is the right one:

* the first entry of the config's ``architectures`` when transformers has that
  class and it is a language-model head trained with ``labels`` (a class of the
  causal-LM, masked-LM or seq2seq-LM auto mappings, e.g. ``GPT2LMHeadModel``,
  ``BertForMaskedLM``, ``T5ForConditionalGeneration``);
* otherwise (no ``architectures``, or a head such as ``BertForSequenceClassification``
  or ``BertModel``) by model type: encoder-decoders (t5, bart, ...) get
  ``AutoModelForSeq2SeqLM``, encoders (bert, roberta, ...) ``AutoModelForMaskedLM``,
  everything else ``AutoModelForCausalLM``;
* a multimodal ``gemma3`` config is measured as its text model: the text-only
  ``Gemma3ForCausalLM`` is built from its ``text_config`` (no vision tower), and the
  output says so.

The random batch follows the head. Causal LM: ``input_ids`` and ``labels`` (the same
ids). Masked LM: ``input_ids``, ``labels`` equal to the ids at *every* position (so
the loss covers every token, the upper bound of a masking rate; the logits and their
float32 log-softmax are computed for every position whatever the rate, so this
changes little) and all-zero ``token_type_ids`` when the config has
``type_vocab_size``. Seq2seq: ``input_ids`` of ``--seq`` tokens and ``labels`` of
``--target-seq`` tokens (default ``--seq``); the model derives ``decoder_input_ids``
from the labels (behind ``decoder_start_token_id``; a config without one, which
transformers 5 no longer defaults for T5, starts from ``pad_token_id`` as T5 does,
and the output says so).

Dropout. Every config attribute, nested sub-configs (``text_config``) included,
whose name contains ``dropout`` or ``pdrop`` and whose value is a number or None is
a dropout probability. ``--no-dropout`` (``dropout=False``) sets them all to 0.0, and
also the other training-time random regularisers (``layerdrop``, ``drop_path_rate``,
router ``*jitter_noise``). The built model is then checked: no ``torch.nn.Dropout``
module with ``p > 0``, no module attribute named ``*drop*`` holding a probability
above 0 (the value families pass to ``nn.functional.dropout``), and two training
forwards of one small batch give identical logits (no functional dropout is left).
If any of that fails the measurement is refused. ``dropout=True`` keeps the config's
probabilities and sets 0.1 where the config has 0 or None; ``None`` (the command's
default) keeps the config as it is.

Attention. ``--attention eager|sdpa`` is passed to transformers. A family that
cannot run the one asked for is refused (Gemma 2 has ``_supports_sdpa = False``
because of its attention soft-capping, and transformers 5.24 raises ValueError for
``sdpa``: use ``eager``). If transformers ran another implementation than the one
asked for, the output says which one ran.

Exit codes of the command line: 0 measured; 2 refused, with one line ``error: ...``
on stderr and no traceback: bad arguments (``--seq``, ``--micro-batch`` or
``--target-seq`` below 1), a config file that cannot be read, is not JSON or not a
JSON object, an unknown ``model_type``, a config transformers rejects, an attention
implementation the family does not support, dropout that cannot be turned off, a
forward pass that fails (e.g. ``--seq`` beyond the position embeddings) and running
out of memory (``MemoryError`` or a RuntimeError saying so; a model whose float32
weights alone exceed the available memory is refused before it is built, counted on
the meta device).

How it counts: a ``torch.autograd.graph.saved_tensors_hooks`` pack hook sees every
tensor an autograd node saves (``ctx.save_for_backward`` and the built-in
derivative formulas alike). When the forward ends, the saved tensors still alive
(held by the graph the output keeps) are counted: a node whose output is thrown away
during the forward (e.g. the top-k a load-balancing loss only indexes) frees its
saved tensors before backward, and they are not counted. Tensors are deduplicated by
the address of their underlying storage, and the *whole* storage is counted (a saved
view keeps its base alive). Parameters and buffers of the model are excluded: they are not
activations. With non-reentrant activation checkpointing the checkpoint's own
hooks take over inside each checkpointed region, so what is held there is the
checkpoint's inputs, which the hook below also sees because the checkpoint saves
them explicitly (reentrant) or keeps them alive through its frame (counted via the
boundary tensors the next autograd node saves).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = [
    "CAUSAL_LM",
    "MASKED_LM",
    "SEQ2SEQ_LM",
    "SUPPORTED_MODEL_TYPES",
    "MeasureError",
    "Measurement",
    "SavedTensor",
    "build_model",
    "count_parameters",
    "head_kind",
    "main",
    "measure_activation",
    "measure_saved",
    "random_batch",
]

_DTYPES = ("bf16", "fp16", "fp32")


@dataclass(frozen=True)
class SavedTensor:
    """One distinct storage autograd held for backward."""

    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    module: str


@dataclass
class Measurement:
    """What one training forward saved for backward (whole micro-batch)."""

    saved_bytes: int = 0
    tensors: list[SavedTensor] = field(default_factory=list)

    def by_module(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for t in self.tensors:
            totals[t.module] = totals.get(t.module, 0) + t.nbytes
        return totals


def measure_saved(model: Any, batch: Mapping[str, Any]) -> Measurement:
    """Run ``model(**batch)`` in training mode; return every storage saved for backward.

    The forward runs with gradients enabled (the model is put in ``train()`` mode and
    restored afterwards). No backward pass is run; the graph is released at the end.
    """
    import torch

    excluded: set[int] = set()
    for p in model.parameters():
        excluded.add(p.untyped_storage().data_ptr())
    for b in model.buffers():
        excluded.add(b.untyped_storage().data_ptr())

    packed: list[tuple[Any, str]] = []  # (weak reference to the saved tensor, module)
    stack: list[str] = ["<model>"]
    names = {id(m): n or "<model>" for n, m in model.named_modules()}

    def pre_hook(module: Any, _args: Any) -> None:
        stack.append(names.get(id(module), type(module).__name__))

    def post_hook(_module: Any, _args: Any, _out: Any) -> None:
        if len(stack) > 1:
            stack.pop()

    handles = []
    for m in model.modules():
        handles.append(m.register_forward_pre_hook(pre_hook))
        handles.append(m.register_forward_hook(post_hook))

    def pack(tensor: Any) -> Any:
        # Only remembered here: what counts is what is still held when the forward ends
        # (a node whose output is thrown away, e.g. top-k values nobody uses, frees its
        # saved tensors during the forward, and their addresses can be reused).
        if isinstance(tensor, torch.Tensor) and tensor.device.type != "meta":
            packed.append((weakref.ref(tensor), stack[-1]))
        return tensor

    def unpack(tensor: Any) -> Any:
        return tensor

    result = Measurement()
    was_training = model.training
    model.train()
    try:
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = model(**batch)
        # autograd's graph (held by ``out``) keeps every saved tensor it still needs
        seen: set[int] = set()
        for ref, module in packed:
            tensor = ref()
            if tensor is None:
                continue
            storage = tensor.untyped_storage()
            ptr = storage.data_ptr()
            if ptr in excluded or ptr in seen or storage.nbytes() == 0:
                continue
            seen.add(ptr)
            result.saved_bytes += storage.nbytes()
            result.tensors.append(
                SavedTensor(
                    shape=tuple(tensor.shape),
                    dtype=str(tensor.dtype).removeprefix("torch."),
                    nbytes=storage.nbytes(),
                    module=module,
                )
            )
        del tensor, out
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    return result


def measure_activation(model: Any, batch: Mapping[str, Any]) -> int:
    """Bytes autograd saves for backward in one training forward of ``model(**batch)``.

    ``batch`` is the keyword arguments of the forward call, e.g.
    ``{"input_ids": ids, "labels": ids}``; include ``labels`` so the loss (and its
    float32 log-softmax) is part of the graph, as in training. Divide the result by
    the micro-batch size to get the "activation per sample" the calculator asks for.
    Parameters and buffers are not counted; each storage is counted once.
    """
    return measure_saved(model, batch).saved_bytes


CAUSAL_LM = "causal-lm"
MASKED_LM = "masked-lm"
SEQ2SEQ_LM = "seq2seq-lm"

#: The model types this tool is tested with (tests/measure/test_measure_command.py).
#: Other types transformers knows are built the same way when it has an LM head.
SUPPORTED_MODEL_TYPES = (
    "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
    "gemma3", "phi3", "gpt_neox", "falcon", "opt", "mixtral", "qwen2_moe", "qwen3_moe",
    "bert", "roberta", "t5",
)  # fmt: skip

#: Multimodal configs measured as their text model: model_type -> text-only class.
_TEXT_ONLY = {"gemma3": "Gemma3ForCausalLM"}

_ATTENTIONS = ("eager", "sdpa")
# dropout probabilities (set to 0.0 by dropout=False, to 0.1 where 0/None by True)
_DROPOUT_NAME = re.compile(r"dropout|pdrop", re.IGNORECASE)
# other training-time random regularisers: only turned off (never turned on)
_STOCHASTIC_NAME = re.compile(r"layerdrop|layer_drop|drop_path|jitter_noise", re.IGNORECASE)
_PROBE_SEQ = 4


class MeasureError(ValueError):
    """Why a model cannot be built or measured; the command line prints it (exit 2)."""


@dataclass
class _Built:
    model: Any
    head: str
    notes: list[str] = field(default_factory=list)


def _load_config(config: Mapping[str, Any] | str) -> dict[str, Any]:
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

    raw = _load_config(config)
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
            f"transformers rejects this {model_type} config: {_one_line(exc)}"
        ) from None


def _one_line(exc: BaseException, limit: int = 400) -> str:
    """``Type: message`` on one line (multi-line messages joined, long ones cut)."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _class_names(mapping: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for value in mapping.values():
        names.update([value] if isinstance(value, str) else value)
    return names


def _head_of_class(name: str) -> str | None:
    """The head kind of an LM class name, None when it is not a labels-trained LM head."""
    from transformers.models.auto import modeling_auto as ma

    if name in _class_names(ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES):
        return SEQ2SEQ_LM
    if name in _class_names(ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES):
        return MASKED_LM
    if name in _class_names(ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES):
        return CAUSAL_LM
    return None


def _head_of_type(cfg: Any) -> str:
    from transformers.models.auto import modeling_auto as ma

    model_type = cfg.model_type
    if getattr(cfg, "is_encoder_decoder", False) and (
        model_type in ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES
    ):
        return SEQ2SEQ_LM
    if model_type in ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return MASKED_LM
    if model_type in ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return CAUSAL_LM
    if model_type in ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES:
        return SEQ2SEQ_LM
    raise MeasureError(
        f"transformers has no language-model head for model_type {model_type!r}; "
        "supported model types: " + ", ".join(SUPPORTED_MODEL_TYPES)
    )


def _resolve(cfg: Any) -> tuple[Any, Any, str, list[str]]:
    """(config to build from, model class, head kind, notes) for a transformers config."""
    import transformers

    notes: list[str] = []
    text_only = _TEXT_ONLY.get(cfg.model_type)
    if text_only is not None:
        text_cfg = cfg.get_text_config()
        notes.append(
            f"{cfg.model_type}: measured the text model only, {text_only} built from "
            "text_config (no vision tower)"
        )
        text_cfg.architectures = [text_only]
        cfg = text_cfg
    archs = getattr(cfg, "architectures", None) or []
    name = archs[0] if isinstance(archs[0] if archs else None, str) else None
    passed_over = None
    if name is not None:
        cls = getattr(transformers, name, None)
        head = _head_of_class(name)
        config_class = getattr(cls, "config_class", None) or object
        if cls is None:
            passed_over = f"transformers has no class {name}"
        elif head is None:
            passed_over = f"{name} is not a language-model head trained with labels"
        elif not isinstance(cfg, config_class):
            passed_over = f"{name} does not take a {type(cfg).__name__}"
        else:
            return cfg, cls, head, notes
    head = _head_of_type(cfg)
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
    """The head :func:`build_model` builds: "causal-lm", "masked-lm" or "seq2seq-lm"."""
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

    batch = _batch(model, head, _PROBE_SEQ, 1, 0, _PROBE_SEQ)
    with torch.no_grad():
        first = model(**batch).logits
        second = model(**batch).logits
    # random fp16 weights may overflow: NaN where the first has NaN is still "the same"
    return bool(torch.allclose(first, second, rtol=0.0, atol=0.0, equal_nan=True))


def _build(
    config: Mapping[str, Any] | str,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    dropout: bool | None = None,
    meta: bool = False,
) -> _Built:
    import torch
    import transformers

    if dtype not in _DTYPES:
        raise MeasureError(f"dtype must be one of {', '.join(_DTYPES)}, not {dtype!r}")
    if attention not in _ATTENTIONS:
        raise MeasureError(f"attention must be eager or sdpa, not {attention!r}")
    cfg, cls, head, notes = _resolve(_hf_config(config))
    untied = _load_config(config).get("tie_word_embeddings") is False
    if dropout is not None:
        _set_dropout(cfg, dropout)
    for c in _configs(cfg):
        if hasattr(c, "use_cache"):
            c.use_cache = False
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
        if _is_oom(exc):
            raise
        raise MeasureError(_cannot_build(cls, exc)) from None
    except Exception as exc:  # whatever transformers raises for a config it cannot build
        if "attn_implementation" in str(exc) or "attention implementation" in str(exc):
            raise MeasureError(
                f"{cls.__name__} cannot run --attention {attention} in transformers "
                f"{transformers.__version__} ({_one_line(exc)}); supported: "
                + ", ".join(a for a in _ATTENTIONS if a != attention)
            ) from None
        raise MeasureError(_cannot_build(cls, exc)) from None
    if untied and _untie_output_embeddings(model):
        notes.append(
            "tie_word_embeddings is false: lm_head untied from the input embeddings, as "
            "from_pretrained leaves it when the checkpoint holds its own lm_head"
        )
    if meta:
        return _Built(model, head, notes)
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
    return _Built(model, head, notes)


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
    return f"transformers cannot build {cls.__name__} from this config: {_one_line(exc)}"


def _is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text
    )


def build_model(
    config: Mapping[str, Any] | str,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    dropout: bool | None = None,
) -> Any:
    """Random-weight LM from a config dict or local ``config.json`` path, in train mode.

    The head follows the config (see the module docstring): the class ``architectures``
    names when it is an LM head, else masked LM for encoders, seq2seq LM for
    encoder-decoders, causal LM otherwise; a ``gemma3`` config gives the text-only
    ``Gemma3ForCausalLM``. ``dropout``: None keeps the config's dropout probabilities;
    False sets every one to 0.0 and checks that the model drops nothing out; True
    keeps them (and sets 0.1 where the config has none or 0). Raises
    :class:`MeasureError` (a ValueError) for what cannot be built or measured.
    """
    return _build(
        config, dtype=dtype, attention=attention, checkpointing=checkpointing, dropout=dropout
    ).model


def count_parameters(config: Mapping[str, Any] | str) -> int:
    """Parameters of the model :func:`build_model` builds (tied weights once).

    The model is built on the meta device, so nothing is allocated.
    """
    return int(_build(config, attention="eager", meta=True).model.num_parameters())


def _model_head(model: Any) -> str:
    if getattr(model.config, "is_encoder_decoder", False):
        return SEQ2SEQ_LM
    return _head_of_class(type(model).__name__) or CAUSAL_LM


def _batch(
    model: Any, head: str, seq: int, micro_batch: int, seed: int, target_seq: int | None
) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    vocab = int(model.config.vocab_size)
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    if head == SEQ2SEQ_LM:
        labels = torch.randint(0, vocab, (micro_batch, target_seq or seq), generator=gen)
        return {"input_ids": ids, "labels": labels}
    batch = {"input_ids": ids, "labels": ids.clone()}
    if head == MASKED_LM and getattr(model.config, "type_vocab_size", None):
        batch["token_type_ids"] = torch.zeros_like(ids)
    return batch


def random_batch(
    model: Any, seq: int, micro_batch: int = 1, seed: int = 0, *, target_seq: int | None = None
) -> dict[str, Any]:
    """Random token ids for ``model(**batch)`` with labels, shaped for the model's head.

    Causal LM: ``input_ids`` and ``labels`` (the same ids). Masked LM: the same, every
    position labelled, plus zero ``token_type_ids`` when the config has
    ``type_vocab_size``. Seq2seq LM: ``input_ids`` of ``seq`` tokens and ``labels`` of
    ``target_seq`` tokens (default ``seq``).
    """
    return _batch(model, _model_head(model), seq, micro_batch, seed, target_seq)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m gradacc_desktop.measure",
        description="Measure bytes autograd saves for backward per sample (random weights).",
        epilog="Exit codes: 0 measured; 2 refused (one line 'error: ...' on stderr).",
    )
    p.add_argument("--model-config", required=True, help="path to a Hugging Face config.json")
    p.add_argument("--seq", type=int, required=True, help="sequence length (source tokens)")
    p.add_argument(
        "--target-seq", type=int, default=None, help="seq2seq target length (default --seq)"
    )
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--dtype", choices=_DTYPES, default="bf16")
    p.add_argument("--attention", choices=_ATTENTIONS, default="sdpa")
    p.add_argument("--checkpointing", action="store_true", help="gradient checkpointing")
    p.add_argument(
        "--no-dropout", action="store_true", help="turn every dropout off (refused if impossible)"
    )
    p.add_argument("--details", action="store_true", help="list saved bytes by module")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes, None where there is no such file."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed usage and the error
        return exc.code if isinstance(exc.code, int) else 2
    for flag, value in (
        ("--seq", args.seq),
        ("--micro-batch", args.micro_batch),
        ("--target-seq", args.target_seq),
    ):
        if value is not None and value < 1:
            return _error(f"{flag} must be >= 1 (got {value})")
    try:
        return _run(args, out)
    except MeasureError as exc:
        return _error(str(exc))
    except (MemoryError, RuntimeError) as exc:
        if _is_oom(exc):
            return _error(f"out of memory ({_one_line(exc)}); try a smaller --seq or --micro-batch")
        return _error(f"the forward pass failed: {_one_line(exc)}")
    except Exception as exc:  # never a traceback from the command line
        return _error(f"the forward pass failed: {_one_line(exc)}")


def _run(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    try:
        params: int | None = count_parameters(args.model_config)
    except MeasureError:
        params = None  # the real build below says what is wrong (or counts them itself)
    available = _available_memory()
    if params is not None and available is not None and params * 4 > available:
        # the model is built in float32 then cast: refuse before the OOM killer steps in
        raise MeasureError(
            f"out of memory: {params:,d} parameters need {params * 4 / 1e9:.1f} GB to build, "
            f"{available / 1e9:.1f} GB available"
        )
    built = _build(
        args.model_config,
        dtype=args.dtype,
        attention=args.attention,
        checkpointing=args.checkpointing,
        dropout=False if args.no_dropout else None,
    )
    model, head, notes = built.model, built.head, list(built.notes)
    if params is None:
        params = int(model.num_parameters())
    ran = getattr(model.config, "_attn_implementation", None) or args.attention
    if ran != args.attention:
        notes.append(f"asked for --attention {args.attention}, transformers ran {ran}")
    target_seq = None
    if head == SEQ2SEQ_LM:
        target_seq = args.target_seq or args.seq
    elif args.target_seq is not None:
        notes.append(f"--target-seq ignored: {type(model).__name__} is not a seq2seq model")
    limit = _position_limit(model.config)
    if limit is not None and args.seq > limit[0]:
        raise MeasureError(
            f"--seq {args.seq} is longer than the {limit[0]} positions "
            f"{type(model).__name__} has ({limit[1]} in the config)"
        )
    batch = _batch(model, head, args.seq, args.micro_batch, 0, target_seq)
    m = measure_saved(model, batch)
    per_sample = m.saved_bytes // args.micro_batch
    if args.json:
        out(
            json.dumps(
                {
                    "model_class": type(model).__name__,
                    "head": head,
                    "attention": ran,
                    "parameters": params,
                    "saved_bytes": m.saved_bytes,
                    "saved_bytes_per_sample": per_sample,
                    "micro_batch": args.micro_batch,
                    "seq": args.seq,
                    "target_seq": target_seq,
                    "notes": notes,
                }
            )
        )
        return 0
    out(f"model: {type(model).__name__} ({head})")
    out(f"attention: {ran}")
    out(f"parameters: {params}")
    for note in notes:
        out(f"note: {note}")
    if args.details:
        for name, nbytes in m.by_module().items():
            out(f"{nbytes:>16,d}  {name}")
    out(f"saved bytes (micro-batch {args.micro_batch}): {m.saved_bytes}")
    out(f"saved bytes per sample: {per_sample}")
    out(f"activation per sample: {Decimal(per_sample) / Decimal(10**9):.3f} GB")
    return 0


def _position_limit(cfg: Any) -> tuple[int, str] | None:
    """(tokens, config key) for learned absolute position embeddings, else None.

    Rotary, ALiBi and relative (T5) positions have no hard limit in the forward pass.
    """
    model_type = cfg.model_type
    if model_type == "gpt2":
        return int(cfg.n_positions), "n_positions"
    if model_type in ("bert", "opt"):
        return int(cfg.max_position_embeddings), "max_position_embeddings"
    if model_type == "roberta":  # positions start after the padding index
        limit = int(cfg.max_position_embeddings) - int(cfg.pad_token_id or 0) - 1
        return limit, "max_position_embeddings - pad_token_id - 1"
    return None


if __name__ == "__main__":
    sys.exit(main())
