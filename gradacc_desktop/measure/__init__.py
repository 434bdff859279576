"""Measure the activation memory a real PyTorch model saves for backward.

This module is the empirical counterpart of :mod:`gradacc_desktop.core.memory.activation`:
it runs one *training* forward pass and adds up the bytes of every tensor that
autograd keeps from the forward pass until the backward pass. It needs ``torch``
(and ``transformers`` for the command line), which the desktop app itself does not:
both are imported only inside the functions of this package.

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
:mod:`gradacc_desktop.core.time.profile` speed profile (written to a temporary file in the
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
* images (``core.memory.families.vision`` and ``vlm``): ``vit`` gets
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

The package, by job: ``heads`` (the classes and heads built), ``building`` (the model),
``batches`` (its random inputs), ``saved`` (the counting), ``timing`` (micro-step times
and the speed profile), ``command`` (the command line; ``__main__`` runs it).
"""

from __future__ import annotations

from .batches import freeze_vision_tower, random_batch, vision_tower
from .building import build_model, count_parameters, head_kind
from .command import main
from .errors import MeasureError
from .heads import (
    BASE,
    CAUSAL_LM,
    CONTRASTIVE,
    IMAGE_CLASSIFICATION,
    IMAGE_FEATURES,
    IMAGE_MODELS,
    MASKED_LM,
    MULTIPLE_CHOICE,
    QUESTION_ANSWERING,
    SEQ2SEQ_LM,
    SEQUENCE_CLASSIFICATION,
    SUPPORTED_MODEL_TYPES,
    TOKEN_CLASSIFICATION,
)
from .saved import Measurement, SavedTensor, measure_activation, measure_saved
from .timing import time_micro_step

__all__ = [
    "BASE",
    "CAUSAL_LM",
    "CONTRASTIVE",
    "IMAGE_CLASSIFICATION",
    "IMAGE_FEATURES",
    "IMAGE_MODELS",
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
    "freeze_vision_tower",
    "head_kind",
    "main",
    "measure_activation",
    "measure_saved",
    "random_batch",
    "time_micro_step",
    "vision_tower",
]
