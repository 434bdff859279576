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

Timing (a speed profile for the planner). ``--time-micro-batches 1,2,4,8`` also times
one training micro-step — forward, loss and backward, with the same model, dtype,
``--seq``, attention and ``--checkpointing`` — at each micro-batch size, smallest
first: one warm-up run, then ``--repeats`` (default 3) timed runs, of which the median
is kept (``time.perf_counter``; on CUDA ``torch.cuda.synchronize`` before and after
each run). The gradients accumulate across the runs of one size, as in gradient
accumulation. ``--profile-out profile.json`` writes the result as a
:mod:`gradacc_desktop.core.profile` speed profile (written to a temporary file in the
same folder and renamed over the target, so a failed run never leaves a half-written
or stale-looking file; nothing is written when the run fails). ``--device cuda`` (or
``cuda:N``) moves the model and its batches to a GPU for the whole run; the default
``cpu`` is what the tool always did. Running out of memory at some size stops the
timing there: the sizes already timed are kept (and written), and stderr says so; out
of memory at the first size is an error. ``--json`` adds a ``timing`` object (device,
dtype, repeats, the points with their seconds as decimal strings, where memory ran
out, the profile written) when timing was asked for. From your own script:
:func:`time_micro_step` (median seconds of one forward + backward of ``model(**batch)``).

Heads. The model is built with the head a training run of that family uses, so the
loss in the graph is the right one:

* the first entry of the config's ``architectures`` when transformers has that
  class and it is a language-model head trained with ``labels`` (a class of the
  causal-LM, masked-LM or seq2seq-LM auto mappings, e.g. ``GPT2LMHeadModel``,
  ``BertForMaskedLM``, ``T5ForConditionalGeneration``), a task head (sequence or
  token classification, question answering, multiple choice: random class labels,
  answer spans, 4 candidates per sample) or the bare model (no labels);
* otherwise (no ``architectures``, or an encoder-decoder's task head) by model type:
  encoder-decoders (t5, bart, ...) get
  ``AutoModelForSeq2SeqLM``, encoders (bert, roberta, ...) ``AutoModelForMaskedLM``,
  everything else ``AutoModelForCausalLM``;
* images (``core.families.vision`` and ``vlm``): ``vit`` gets
  ``ViTForImageClassification`` (``ViTModel`` when the file names it), ``clip`` and
  ``siglip`` ``CLIPModel`` / ``SiglipModel`` trained with ``return_loss=True``, and
  ``llava``, ``qwen2_vl``, ``qwen2_5_vl`` and ``gemma3`` their whole
  ``...ForConditionalGeneration`` (vision tower, projector and language model), trained
  as causal LMs; :func:`random_batch` adds ``pixel_values`` (and what each model needs
  with them: image placeholder tokens in ``input_ids``, Gemma 3's ``token_type_ids``,
  Qwen2-VL's ``image_grid_thw`` and ``mm_token_type_ids``).
* speech: ``whisper`` gets ``WhisperForConditionalGeneration`` whatever the file names,
  trained as a seq2seq LM on ``input_features``: 30 s of random log-mel frames
  (``num_mel_bins`` x 2·``max_source_positions``, the only length transformers takes,
  so ``--seq`` must be ``max_source_positions``) and ``--target-seq`` label tokens
  (default: ``--seq``, at most ``max_target_positions``).

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
``--target-seq`` below 1; a ``--time-micro-batches`` list that is not positive
integers separated by commas; ``--repeats`` below 1; ``--profile-out`` in a folder that
does not exist, or without ``--time-micro-batches``; a CUDA ``--device`` where CUDA is
not available), a config file that cannot be read, is not JSON or not a
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
import os
import re
import statistics
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from .core.profile import seconds_text

__all__ = [
    "BASE",
    "CAUSAL_LM",
    "MASKED_LM",
    "MULTIPLE_CHOICE",
    "QUESTION_ANSWERING",
    "SEQ2SEQ_LM",
    "SEQUENCE_CLASSIFICATION",
    "SUPPORTED_MODEL_TYPES",
    "TOKEN_CLASSIFICATION",
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
    "time_micro_step",
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
        tensor = None  # no saved tensor at all (a frozen model) leaves it unbound
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
#: task heads (``architectures[0]`` names them): the bare model and the fine-tuning heads
BASE = "base"
SEQUENCE_CLASSIFICATION = "sequence-classification"
TOKEN_CLASSIFICATION = "token-classification"
QUESTION_ANSWERING = "question-answering"
MULTIPLE_CHOICE = "multiple-choice"
_TASK_MAPPINGS = (
    (SEQUENCE_CLASSIFICATION, "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"),
    (TOKEN_CLASSIFICATION, "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES"),
    (QUESTION_ANSWERING, "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES"),
    (MULTIPLE_CHOICE, "MODEL_FOR_MULTIPLE_CHOICE_MAPPING_NAMES"),
    (BASE, "MODEL_MAPPING_NAMES"),
)

#: The model types this tool is tested with (tests/measure/test_measure_command.py).
#: Other types transformers knows are built the same way when it has an LM head.
SUPPORTED_MODEL_TYPES = (
    "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
    "gemma3", "phi3", "gpt_neox", "falcon", "opt", "mixtral", "qwen2_moe", "qwen3_moe",
    "bert", "roberta", "xlm-roberta", "camembert", "t5", "mt5",
    "distilbert", "deberta-v2", "modernbert",
    "olmo2", "cohere", "starcoder2", "glm4", "stablelm", "granite",
    "vit", "clip", "siglip", "llava", "qwen2_vl", "qwen2_5_vl",
    "deepseek_v2", "deepseek_v3",
    "gpt_oss",
    "mamba", "falcon_mamba", "jamba",
    "bart", "mbart",
    "whisper",
)  # fmt: skip

#: Multimodal configs measured as their text model: model_type -> text-only class.
_TEXT_ONLY: dict[str, str] = {}

#: Speech-to-text encoder-decoders: model_type -> the seq2seq class built whatever the file
#: names (transformers' causal-LM mapping would pick the decoder alone). Their batch is
#: log-mel ``input_features`` of the model's fixed length, not token ids.
_SPEECH_SEQ2SEQ = {"whisper": "WhisperForConditionalGeneration"}

#: Image encoders and language models with a vision tower: model_type -> (class, head).
#: The heads of the image encoders (a VLM is trained as a causal LM with images).
IMAGE_CLASSIFICATION = "image-classification"
CONTRASTIVE = "contrastive"
IMAGE_FEATURES = "image-features"
_IMAGE_MODELS = {
    "vit": ("ViTForImageClassification", IMAGE_CLASSIFICATION),
    "clip": ("CLIPModel", CONTRASTIVE),
    "siglip": ("SiglipModel", CONTRASTIVE),
    "llava": ("LlavaForConditionalGeneration", CAUSAL_LM),
    "qwen2_vl": ("Qwen2VLForConditionalGeneration", CAUSAL_LM),
    "qwen2_5_vl": ("Qwen2_5_VLForConditionalGeneration", CAUSAL_LM),
    "gemma3": ("Gemma3ForConditionalGeneration", CAUSAL_LM),
}

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
    for head, mapping in _TASK_MAPPINGS:
        if name in _class_names(getattr(ma, mapping)):
            return head
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
    image = _IMAGE_MODELS.get(cfg.model_type)
    if image is not None:
        return (cfg, *_image_class(cfg, *image, notes))
    speech = _SPEECH_SEQ2SEQ.get(cfg.model_type)
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
        head = _head_of_class(name)
        config_class = getattr(cls, "config_class", None) or object
        if cls is None:
            passed_over = f"transformers has no class {name}"
        elif head is None:
            passed_over = f"{name} is not a language-model head trained with labels"
        elif head in _TASK_BATCH_HEADS and getattr(cfg, "is_encoder_decoder", False):
            # the estimate describes an encoder-decoder's LM head only
            passed_over = f"{name} is not modelled for an encoder-decoder"
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

    batch = _batch(model, head, _PROBE_SEQ, 1, 0, _PROBE_SEQ)
    with torch.no_grad():
        first = _output_tensor(model(**batch))
        second = _output_tensor(model(**batch))
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
    use_cache: bool = False,
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
    return _build(
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
    return int(_build(config, attention="eager", meta=True).model.num_parameters())


def _model_head(model: Any) -> str:
    image = _IMAGE_HEADS.get(type(model).__name__)
    if image is not None:
        return image
    if getattr(model.config, "is_encoder_decoder", False):
        return SEQ2SEQ_LM
    return _head_of_class(type(model).__name__) or CAUSAL_LM


def _batch(
    model: Any,
    head: str,
    seq: int,
    micro_batch: int,
    seed: int,
    target_seq: int | None,
    images: int = 0,
    image_size: tuple[int, int] | None = None,
) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if type(model).__name__ in _IMAGE_HEADS:
        return _image_batch(model, seq, micro_batch, gen, images, image_size)
    vocab = int(model.config.vocab_size)
    if type(model).__name__ in _SPEECH_SEQ2SEQ.values():
        # 30 s of audio: num_mel_bins x 2·max_source_positions log-mel frames, the only
        # length transformers takes (``seq`` is not used); ``target_seq`` label tokens
        cfg = model.config
        shape = (micro_batch, cfg.num_mel_bins, 2 * cfg.max_source_positions)
        features = torch.randn(shape, generator=gen).to(model.dtype)
        labels = torch.randint(0, vocab, (micro_batch, target_seq or seq), generator=gen)
        return {"input_features": features, "labels": labels}
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    if head == SEQ2SEQ_LM:
        labels = torch.randint(0, vocab, (micro_batch, target_seq or seq), generator=gen)
        return {"input_ids": ids, "labels": labels}
    batch = {"input_ids": ids, "labels": ids.clone()}
    if head in _TASK_BATCH_HEADS:
        return _task_batch(model, head, ids, gen)
    if head == MASKED_LM and getattr(model.config, "type_vocab_size", None):
        batch["token_type_ids"] = torch.zeros_like(ids)
    return batch


_TASK_BATCH_HEADS = (
    BASE, SEQUENCE_CLASSIFICATION, TOKEN_CLASSIFICATION, QUESTION_ANSWERING, MULTIPLE_CHOICE
)  # fmt: skip


def _task_batch(model: Any, head: str, ids: Any, gen: Any) -> dict[str, Any]:
    """A fine-tuning head's inputs: class labels (one per sample or per token), answer
    spans, or ``DEFAULT_CHOICES`` candidate sequences per sample; the bare model none."""
    import torch

    from gradacc_desktop.core.families.heads import DEFAULT_CHOICES

    b, s = ids.shape
    labels = int(getattr(model.config, "num_labels", 2) or 2)
    if head == MULTIPLE_CHOICE:
        ids = ids.unsqueeze(1).repeat(1, DEFAULT_CHOICES, 1)
    batch: dict[str, Any] = {"input_ids": ids}
    if head == SEQUENCE_CLASSIFICATION:
        batch["labels"] = torch.randint(0, labels, (b,), generator=gen)
    elif head == TOKEN_CLASSIFICATION:
        batch["labels"] = torch.randint(0, labels, (b, s), generator=gen)
    elif head == QUESTION_ANSWERING:
        batch["start_positions"] = torch.randint(0, s, (b,), generator=gen)
        batch["end_positions"] = torch.randint(0, s, (b,), generator=gen)
    elif head == MULTIPLE_CHOICE:
        batch["labels"] = torch.randint(0, DEFAULT_CHOICES, (b,), generator=gen)
    if getattr(model.config, "type_vocab_size", None):
        batch["token_type_ids"] = torch.zeros_like(ids)
    return batch


def random_batch(
    model: Any,
    seq: int,
    micro_batch: int = 1,
    seed: int = 0,
    *,
    target_seq: int | None = None,
    images: int = 0,
    image_size: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Random token ids for ``model(**batch)`` with labels, shaped for the model's head.

    Causal LM: ``input_ids`` and ``labels`` (the same ids). Masked LM: the same, every
    position labelled, plus zero ``token_type_ids`` when the config has
    ``type_vocab_size``. Seq2seq LM: ``input_ids`` of ``seq`` tokens and ``labels`` of
    ``target_seq`` tokens (default ``seq``); Whisper: ``input_features`` of 30 s of audio
    (``num_mel_bins`` x 2·``max_source_positions`` log-mel frames, whatever ``seq``).

    Images (``_image_batch``): an image encoder gets one random image per sample
    (``pixel_values``; ViT a class label, CLIP/SigLIP a caption of ``seq`` tokens and
    ``return_loss``); a language model with a vision tower gets ``images`` images per
    sample, their placeholder tokens inside the ``seq`` tokens. ``image_size`` is
    (width, height) in pixels (None: the model's own size; Qwen2-VL 448×448).
    """
    return _batch(model, _model_head(model), seq, micro_batch, seed, target_seq, images, image_size)


# --------------------------------------------------------------------------- images

_IMAGE_HEADS = {name: head for name, head in _IMAGE_MODELS.values()} | {"ViTModel": IMAGE_FEATURES}
#: Qwen2-VL has no native size: the size its processor keeps (448² is 16×16 tokens)
QWEN2_VL_IMAGE = 448


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


def _image_args(args: argparse.Namespace) -> tuple[int, tuple[int, int] | None]:
    """``--images`` and ``--image-size`` (WxH or one number for a square), checked."""
    if args.images < 0:
        raise MeasureError("--images must be 0 or more")
    size = None
    if args.image_size is not None:
        text = str(args.image_size).lower().replace("×", "x")
        pieces = text.split("x") if "x" in text else [text, text]
        if len(pieces) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in pieces):
            raise MeasureError(f"--image-size must be WxH in pixels, not {args.image_size!r}")
        size = (int(pieces[0]), int(pieces[1]))
    return args.images, size


def vision_tower(model: Any) -> Any:
    """The image tower of ``model`` (what ``--freeze-vision`` freezes), or None."""
    if type(model).__name__ == "ViTModel":
        return model
    for path in ("vit", "vision_model", "model.vision_tower", "model.visual"):
        module = model
        for name in path.split("."):
            module = getattr(module, name, None)
        if module is not None:
            return module
    return None


def freeze_vision_tower(model: Any) -> int:
    """Freeze the image tower (``requires_grad_(False)``) as fine-tuning recipes do: the
    projector (Qwen2-VL's ``visual.merger``) keeps training. Returns the parameters
    frozen (0: the model has no tower)."""
    tower = vision_tower(model)
    if tower is None:
        return 0
    tower.requires_grad_(False)
    merger = getattr(tower, "merger", None)
    if merger is not None:
        merger.requires_grad_(True)
    return sum(p.numel() for p in tower.parameters() if not p.requires_grad)


def _native_image(model: Any) -> tuple[int, int]:
    """(width, height) of an image at the model's own size."""
    config = getattr(model.config, "vision_config", model.config)
    size = getattr(config, "image_size", None)
    if size is None:  # Qwen2-VL / Qwen2.5-VL: dynamic resolution
        return QWEN2_VL_IMAGE, QWEN2_VL_IMAGE
    if isinstance(size, list | tuple):
        return int(size[1]), int(size[0])
    return int(size), int(size)


def _smart_resize(width: int, height: int, factor: int) -> tuple[int, int]:
    """Qwen2-VL's image processor: both sides a multiple of ``factor`` (patch × merge),
    between 56×56 and 28×28×1280 pixels, the aspect ratio kept (``smart_resize``)."""
    import math

    min_pixels, max_pixels = 56 * 56, 28 * 28 * 1280
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return w_bar, h_bar


def _image_batch(
    model: Any,
    seq: int,
    micro_batch: int,
    gen: Any,
    images: int,
    image_size: tuple[int, int] | None,
) -> dict[str, Any]:
    import torch

    config = model.config
    name = type(model).__name__
    width, height = image_size or _native_image(model)
    if name in ("ViTForImageClassification", "ViTModel", "CLIPModel", "SiglipModel"):
        vision = getattr(config, "vision_config", config)
        pixels = torch.randn(micro_batch, vision.num_channels, height, width, generator=gen)
        batch: dict[str, Any] = {"pixel_values": pixels}
        if (width, height) != _native_image(model):
            batch["interpolate_pos_encoding"] = True
        if name == "ViTForImageClassification":
            batch["labels"] = torch.randint(0, config.num_labels, (micro_batch,), generator=gen)
        elif name != "ViTModel":
            vocab = int(config.text_config.vocab_size)
            batch["input_ids"] = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
            batch["return_loss"] = True
        return batch
    text = config.get_text_config()
    vocab = int(text.vocab_size)
    image_token = int(config.image_token_id)
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    ids[ids == image_token] = 0
    vision = config.vision_config
    batch = {}
    if name.startswith("Qwen2"):
        merge = int(vision.spatial_merge_size)
        patch = int(vision.patch_size)
        temporal = int(vision.temporal_patch_size)
        w, h = _smart_resize(width, height, patch * merge)
        grid = (1, h // patch, w // patch)
        per_image = grid[1] * grid[2] // merge**2
        ids[ids == int(config.vision_start_token_id)] = 0
        ids[ids == int(config.video_token_id)] = 0
    elif name.startswith("Gemma3"):
        per_image = int(config.mm_tokens_per_image)
    else:  # LLaVA: the patches, and the class token with the "full" strategy
        per_image = (int(vision.image_size) // int(vision.patch_size)) ** 2
        if config.vision_feature_select_strategy == "full":
            per_image += 1
    # Qwen2-VL wraps each image in <|vision_start|> ... <|vision_end|>
    span = images * (per_image + (2 if name.startswith("Qwen2") else 0))
    if images and span + 1 > seq:
        raise MeasureError(
            f"--seq {seq} cannot hold {images} image(s) of {per_image} tokens and a text token"
        )
    labels = ids.clone()
    if images:
        if name.startswith("Qwen2"):
            # <|vision_start|> <|image_pad|>×n <|vision_end|>, one block per image
            start = 0
            for _ in range(images):
                ids[:, start] = int(config.vision_start_token_id)
                ids[:, start + 1 : start + 1 + per_image] = image_token
                start += per_image + 2
            count = micro_batch * images
            batch["pixel_values"] = torch.randn(
                count * grid[0] * grid[1] * grid[2],
                int(vision.in_channels) * temporal * patch * patch,
                generator=gen,
            )
            batch["image_grid_thw"] = torch.tensor([grid] * count)
        else:
            ids[:, 1 : 1 + span] = image_token
            channels = int(vision.num_channels)
            size = int(vision.image_size)
            batch["pixel_values"] = torch.randn(
                micro_batch * images, channels, size, size, generator=gen
            )
        labels[ids == image_token] = -100
    batch["input_ids"] = ids
    batch["labels"] = labels
    if name.startswith("Qwen2"):
        batch["mm_token_type_ids"] = (ids == image_token).int()
    elif name.startswith("Gemma3"):
        batch["token_type_ids"] = (ids == image_token).long()
    return batch


def time_micro_step(model: Any, batch: Mapping[str, Any], repeats: int = 3) -> float:
    """Median seconds of one training micro-step: ``model(**batch).loss.backward()``.

    One warm-up run, then ``repeats`` timed ones (``time.perf_counter``; when the model
    is on CUDA, ``torch.cuda.synchronize`` before and after each run, so the time is the
    GPU's and not the launch queue's). ``batch`` must hold the labels (the loss is part
    of the step) and live on the model's device. The gradients accumulate across the
    runs, as in gradient accumulation, and are cleared (``zero_grad(set_to_none=True)``)
    at the end. Out of memory propagates (``MemoryError`` or a RuntimeError).
    """
    import torch

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    first = next(iter(model.parameters()), None)
    device = first.device if first is not None else torch.device("cpu")

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    was_training = model.training
    model.train()
    times: list[float] = []
    try:
        with torch.enable_grad():
            for run in range(repeats + 1):
                sync()
                start = time.perf_counter()
                loss = model(**batch).loss
                if loss is None:
                    raise MeasureError("the model returned no loss: put labels in the batch")
                loss.backward()
                sync()
                elapsed = time.perf_counter() - start
                del loss
                if run:  # run 0 is the warm-up
                    times.append(elapsed)
    finally:
        model.zero_grad(set_to_none=True)
        model.train(was_training)
    return float(statistics.median(times))


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
    p.add_argument(
        "--images",
        type=int,
        default=0,
        help="images per sample (language models with a vision tower; their tokens are "
        "part of --seq)",
    )
    p.add_argument(
        "--image-size",
        default=None,
        metavar="WxH",
        help="pixels of each image (default: the model's own size)",
    )
    p.add_argument(
        "--freeze-vision", action="store_true", help="freeze the vision tower (requires_grad off)"
    )
    p.add_argument("--dtype", choices=_DTYPES, default="bf16")
    p.add_argument("--attention", choices=_ATTENTIONS, default="sdpa")
    p.add_argument("--checkpointing", action="store_true", help="gradient checkpointing")
    p.add_argument(
        "--no-dropout", action="store_true", help="turn every dropout off (refused if impossible)"
    )
    p.add_argument("--details", action="store_true", help="list saved bytes by module")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help="cpu (default), cuda or cuda:N: where the model runs",
    )
    p.add_argument(
        "--time-micro-batches",
        default=None,
        metavar="LIST",
        help="also time forward+backward at these micro-batch sizes, e.g. 1,2,4,8",
    )
    p.add_argument(
        "--repeats",
        default=None,
        metavar="N",
        help=f"timed runs per size after one warm-up; the median is kept (default {_REPEATS})",
    )
    p.add_argument(
        "--profile-out",
        default=None,
        metavar="PATH",
        help="write the timings as a speed profile (JSON) for the planner",
    )
    return p


_REPEATS = 3
_MAX_TIMED_SIZES = 64
_MAX_TIMED_BATCH = 10**6
_MAX_REPEATS = 1000
_DEVICE = re.compile(r"cpu|cuda(:[0-9]{1,3})?")
_DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


@dataclass(frozen=True)
class _Timing:
    sizes: tuple[int, ...]
    repeats: int
    profile_out: str | None


def _micro_batch_list(text: str) -> tuple[int, ...]:
    """``1,2,4,8`` as ascending sizes; MeasureError (one line) for anything else."""
    flag = "--time-micro-batches"
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise MeasureError(
            f"{flag} must be micro-batch sizes separated by commas, e.g. 1,2,4,8 (got {text!r})"
        )
    sizes: list[int] = []
    for item in items:
        if not re.fullmatch(r"[+-]?[0-9]+", item):
            raise MeasureError(f"{flag}: {item!r} is not an integer (e.g. 1,2,4,8)")
        value = int(item)
        if not 1 <= value <= _MAX_TIMED_BATCH:
            raise MeasureError(
                f"{flag}: every size must be from 1 to {_MAX_TIMED_BATCH} (got {value})"
            )
        if value in sizes:
            raise MeasureError(f"{flag}: {value} is listed twice")
        sizes.append(value)
    if len(sizes) > _MAX_TIMED_SIZES:
        raise MeasureError(f"{flag}: at most {_MAX_TIMED_SIZES} sizes (got {len(sizes)})")
    return tuple(sorted(sizes))


def _timing_args(args: argparse.Namespace) -> _Timing | None:
    """The timing asked for (None: none); MeasureError for a bad combination or value."""
    if not _DEVICE.fullmatch(args.device):
        raise MeasureError(f"--device must be cpu, cuda or cuda:N (got {args.device!r})")
    if args.time_micro_batches is None:
        for flag, value in (("--repeats", args.repeats), ("--profile-out", args.profile_out)):
            if value is not None:
                raise MeasureError(f"{flag} needs --time-micro-batches (the sizes to time)")
        return None
    sizes = _micro_batch_list(args.time_micro_batches)
    repeats = _REPEATS
    if args.repeats is not None:
        text = args.repeats.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise MeasureError(f"--repeats must be an integer (got {args.repeats!r})")
        repeats = int(text)
        if not 1 <= repeats <= _MAX_REPEATS:
            raise MeasureError(f"--repeats must be from 1 to {_MAX_REPEATS} (got {repeats})")
    out = args.profile_out
    if out is not None:
        if not out.strip():
            raise MeasureError("--profile-out needs a file name")
        if os.path.isdir(out):
            raise MeasureError(f"--profile-out {out} is a folder, not a file")
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            raise MeasureError(f"--profile-out: the folder {folder} does not exist")
    return _Timing(sizes, repeats, out)


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


def _glue_negative_values(argv: list[str]) -> list[str]:
    """``--time-micro-batches -1,2`` as ``--time-micro-batches=-1,2``: argparse would take
    the value for an option and print its usage; this way the value is refused in one line."""
    glued: list[str] = []
    index = 0
    while index < len(argv):
        item = argv[index]
        if (
            item in ("--time-micro-batches", "--repeats")
            and index + 1 < len(argv)
            and re.match(r"-[0-9]", argv[index + 1])
        ):
            glued.append(f"{item}={argv[index + 1]}")
            index += 2
            continue
        glued.append(item)
        index += 1
    return glued


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        args = _parser().parse_args(_glue_negative_values(list(argv)))
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
        timing = _timing_args(args)
    except MeasureError as exc:
        return _error(str(exc))
    try:
        return _run(args, out, timing)
    except MeasureError as exc:
        return _error(str(exc))
    except (MemoryError, RuntimeError) as exc:
        if _is_oom(exc):
            return _error(f"out of memory ({_one_line(exc)}); try a smaller --seq or --micro-batch")
        return _error(f"the forward pass failed: {_one_line(exc)}")
    except Exception as exc:  # never a traceback from the command line
        return _error(f"the forward pass failed: {_one_line(exc)}")


def _run(
    args: argparse.Namespace, out: Callable[[str], None], timing: _Timing | None = None
) -> int:
    device = _device(args.device)
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
    images, image_size = _image_args(args)
    if (images or image_size or args.freeze_vision) and vision_tower(model) is None:
        raise MeasureError("--images, --image-size and --freeze-vision need a vision tower")
    if args.freeze_vision:
        freeze_vision_tower(model)
    if device != "cpu":
        model = model.to(device)
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
    if limit is not None and target_seq is not None and target_seq > limit[0]:
        raise MeasureError(
            f"--target-seq {target_seq} is longer than the {limit[0]} positions "
            f"{type(model).__name__}'s decoder has ({limit[1]} in the config)"
        )
    if type(model).__name__ in _SPEECH_SEQ2SEQ.values():
        positions = int(model.config.max_source_positions)
        if args.seq != positions:
            raise MeasureError(
                f"--seq {args.seq}: {type(model).__name__}'s encoder always runs over its "
                f"{positions} positions (30 s of audio, {2 * positions} log-mel frames): "
                f"give --seq {positions}"
            )
        if args.target_seq is None:  # the decoder's learned positions, as the estimate
            target_seq = min(args.seq, int(model.config.max_target_positions))
    batch = _on(
        device,
        _batch(model, head, args.seq, args.micro_batch, 0, target_seq, images, image_size),
    )
    m = measure_saved(model, batch)
    del batch
    per_sample = m.saved_bytes // args.micro_batch
    timed: dict[str, Any] | None = None
    if timing is not None:
        timed = _time_sizes(model, head, args, target_seq, device, timing)
        if timing.profile_out is not None:
            _write_profile(timing.profile_out, timed, args, model, params, ran, target_seq)
    if args.json:
        result = {
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
        if timed is not None:
            result["timing"] = {
                "device": timed["device"],
                "dtype": _DTYPE_NAMES[args.dtype],
                "repeats": timed["repeats"],
                "points": [
                    {"micro_batch": b, "seconds": seconds_text(s), "repeats": timed["repeats"]}
                    for b, s in timed["points"]
                ],
                "out_of_memory_at": timed["out_of_memory_at"],
                "profile": timing.profile_out if timing is not None else None,
            }
        out(json.dumps(result))
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
    if timed is not None and timing is not None:
        out(
            f"micro-step time (forward + backward, median of {timed['repeats']}, "
            f"{timed['device']}):"
        )
        for b, seconds in timed["points"]:
            out(f"  micro-batch {b}: {seconds_text(seconds)} s")
        if timing.profile_out is not None:
            out(f"profile written: {timing.profile_out}")
    return 0


def _device(name: str) -> str:
    """``name`` checked against what this torch can run on (MeasureError if it cannot)."""
    if name == "cpu":
        return name
    import torch

    if not torch.cuda.is_available():
        raise MeasureError(f"--device {name}: CUDA is not available to this torch")
    index = int(name.partition(":")[2] or torch.cuda.current_device())
    count = torch.cuda.device_count()
    if index >= count:
        raise MeasureError(f"--device {name}: this machine has {count} CUDA device(s)")
    return f"cuda:{index}"


def _on(device: str, batch: dict[str, Any]) -> dict[str, Any]:
    if device == "cpu":
        return batch
    return {key: value.to(device) for key, value in batch.items()}


def _device_label(device: str) -> str:
    if device == "cpu":
        return "cpu"
    import torch

    return f"{device} ({torch.cuda.get_device_name(device)})"


def _seconds(value: float) -> Fraction:
    """A measured time as exact nanoseconds (at least 1 ns)."""
    nanoseconds = Decimal(repr(value)).quantize(Decimal("1e-9"), rounding=ROUND_HALF_EVEN)
    return max(Fraction(nanoseconds), Fraction(1, 10**9))


def _time_sizes(
    model: Any,
    head: str,
    args: argparse.Namespace,
    target_seq: int | None,
    device: str,
    timing: _Timing,
) -> dict[str, Any]:
    """Median micro-step seconds at every size, smallest first, until memory runs out."""
    import torch

    points: list[tuple[int, Fraction]] = []
    out_of_memory_at: int | None = None
    reason = ""
    for size in timing.sizes:
        batch = _on(device, _batch(model, head, args.seq, size, 0, target_seq))
        try:
            seconds = time_micro_step(model, batch, timing.repeats)
        except (MemoryError, RuntimeError) as exc:
            if not _is_oom(exc):
                raise
            out_of_memory_at, reason = size, _one_line(exc)
        del batch
        if out_of_memory_at is not None:
            if device != "cpu":
                torch.cuda.empty_cache()
            break
        points.append((size, _seconds(seconds)))
    if out_of_memory_at is not None:
        if not points:
            raise MeasureError(
                f"out of memory timing micro-batch {out_of_memory_at}, the smallest size "
                f"asked for ({reason}); nothing timed"
            )
        kept = ", ".join(str(b) for b, _ in points)
        print(
            f"note: out of memory at micro-batch {out_of_memory_at} ({reason}); timing "
            f"stopped there, kept micro-batch {kept}",
            file=sys.stderr,
        )
    return {
        "device": _device_label(device),
        "repeats": timing.repeats,
        "points": points,
        "out_of_memory_at": out_of_memory_at,
    }


def _model_label(config: str, model: Any) -> str:
    """The profile's ``model``: the class and where the config came from, one line."""
    name = ""
    with contextlib.suppress(MeasureError):
        raw = _load_config(config).get("_name_or_path")
        if isinstance(raw, str):
            name = raw.strip()
    if not name:
        path = os.path.abspath(config)
        name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
    label = " ".join(f"{type(model).__name__} ({name})".split())
    return label if len(label) <= 200 else label[:197] + "..."


def _write_profile(
    path: str,
    timed: dict[str, Any],
    args: argparse.Namespace,
    model: Any,
    params: int,
    attention: str,
    target_seq: int | None,
) -> None:
    """The speed profile, written to a temporary file beside ``path`` then renamed."""
    from .core.compute import Recompute
    from .core.gpus import TrainingPrecision
    from .core.profile import ProfileError, SpeedProfile, profile_to_json

    try:
        profile = SpeedProfile(
            device=timed["device"],
            dtype=TrainingPrecision(args.dtype),
            model=_model_label(args.model_config, model),
            params=params,
            seq_len=args.seq,
            recompute=Recompute.FULL if args.checkpointing else Recompute.NONE,
            attention=attention if attention in ("eager", "sdpa") else args.attention,
            points=tuple(timed["points"]),
            repeats=(timed["repeats"],) * len(timed["points"]),
            target_seq_len=target_seq,
        )
    except ProfileError as exc:
        raise MeasureError(f"cannot write the profile: {exc}") from None
    _write_atomically(path, profile_to_json(profile))


def _write_atomically(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise MeasureError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # what open() would have given the file
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise MeasureError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _position_limit(cfg: Any) -> tuple[int, str] | None:
    """(tokens, config key) for learned absolute position embeddings, else None.

    Rotary, ALiBi and relative (T5) positions have no hard limit in the forward pass.
    """
    model_type = cfg.model_type
    if model_type == "gpt2":
        return int(cfg.n_positions), "n_positions"
    if model_type in ("bert", "opt"):
        return int(cfg.max_position_embeddings), "max_position_embeddings"
    if model_type in ("bart", "mbart"):  # encoder and decoder: a table each, offset by 2
        return int(cfg.max_position_embeddings), "max_position_embeddings"
    if model_type == "roberta":  # positions start after the padding index
        limit = int(cfg.max_position_embeddings) - int(cfg.pad_token_id or 0) - 1
        return limit, "max_position_embeddings - pad_token_id - 1"
    return None


if __name__ == "__main__":
    sys.exit(main())
