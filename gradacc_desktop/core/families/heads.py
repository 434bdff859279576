"""The task a model is fine-tuned for, from the class ``architectures`` names.

A family module builds its language-model head (causal LM, masked LM, seq2seq LM) with
the once-per-model parts ``LM_HEAD_INPUT``, ``LOSS``, ``MLM_HEAD``, ``LOGIT_SOFTCAP`` and
the loss transient ``Layout.logits``. Any other head replaces exactly those.
"""

from __future__ import annotations

import enum
from dataclasses import replace
from typing import TYPE_CHECKING

from gradacc_desktop.core.activation import Family, Part
from gradacc_desktop.core.families.common import dropout_mask
from gradacc_desktop.core.text import trans_late

if TYPE_CHECKING:
    from gradacc_desktop.core.activation import Inputs
    from gradacc_desktop.core.families import Architecture, Layout

#: candidate sequences per sample of a multiple-choice head when none is given (SWAG's 4)
DEFAULT_CHOICES = 4


class Task(enum.Enum):
    """What sits on top of the model's last hidden states."""

    #: the family's language-model head (``Head``)
    LM = "lm"
    #: the bare model (``AutoModel``): the last hidden states, the user's own head and loss
    BASE = "base"
    SEQUENCE_CLASSIFICATION = "sequence-classification"
    TOKEN_CLASSIFICATION = "token-classification"
    QUESTION_ANSWERING = "question-answering"
    MULTIPLE_CHOICE = "multiple-choice"


_SUFFIXES = (
    ("ForSequenceClassification", Task.SEQUENCE_CLASSIFICATION),
    ("ForTokenClassification", Task.TOKEN_CLASSIFICATION),
    ("ForQuestionAnswering", Task.QUESTION_ANSWERING),
    ("ForMultipleChoice", Task.MULTIPLE_CHOICE),
)


def task_of_class(name: str) -> Task:
    """The task of a ``transformers`` class name (``LlamaForSequenceClassification``,
    ``BertModel``); the language-model head for anything else."""
    for suffix, task in _SUFFIXES:
        if name.endswith(suffix):
            return task
    if name.endswith("Model") and "For" not in name and not name.endswith("LMHeadModel"):
        return Task.BASE
    return Task.LM


#: decoders whose ``transformers`` configuration sets a ``pad_token_id`` when the file
#: names none (the sequence classifier then looks for the last token that is not padding)
DEFAULT_PAD_TOKEN = frozenset(
    {"gemma", "gemma2", "gemma3_text", "gemma3", "phi3", "opt", "olmo2", "cohere", "glm4",
     "mamba", "falcon_mamba", "jamba"}
)  # fmt: skip


class _Style(enum.Enum):
    """How a family's ``transformers`` classes build the task heads (measured)."""

    #: ``Generic*`` heads of ``modeling_layers`` (and GPT-NeoX's): score / classifier /
    #: qa_outputs on the last hidden states; the token-classification loss upcasts to fp32
    DECODER = "decoder"
    #: GPT-2's and Falcon's own heads: the same, the token loss in the model's dtype
    DECODER_DTYPE_LOSS = "decoder-dtype-loss"
    #: BERT-style encoders: a pooler (dense + tanh on the first token) for the bare model,
    #: sequence classification and multiple choice; losses in the model's dtype
    ENCODER = "encoder"


_STYLES = {
    Family.LLAMA: _Style.DECODER,
    Family.GEMMA: _Style.DECODER,
    Family.PHI3: _Style.DECODER,
    Family.MOE: _Style.DECODER,
    Family.GPT_NEOX: _Style.DECODER,
    Family.OPT: _Style.DECODER,
    Family.LLAMA_VARIANT: _Style.DECODER,
    Family.DEEPSEEK: _Style.DECODER,
    Family.GPT_OSS: _Style.DECODER,
    Family.MAMBA: _Style.DECODER,
    Family.JAMBA: _Style.DECODER,
    Family.GPT2: _Style.DECODER_DTYPE_LOSS,
    Family.FALCON: _Style.DECODER_DTYPE_LOSS,
    Family.BERT: _Style.ENCODER,
}

#: the language-model head's once-per-model parts, which any other head replaces
LM_PARTS = frozenset(
    {Part.LM_HEAD_INPUT, Part.LOSS, Part.MLM_HEAD, Part.LOGIT_SOFTCAP, Part.AUX_LOSS}
)


def modelled(arch: Architecture, task: Task) -> bool:
    """Whether ``task`` is estimated for ``arch`` (else its language-model head is)."""
    if task is Task.LM:
        return True
    style = _STYLES.get(arch.family)
    if style is None or arch.encoder_decoder:
        return False
    return task is not Task.MULTIPLE_CHOICE or style is _Style.ENCODER


def _cross_entropy(rows: int, labels: int, item: int) -> int:
    """``cross_entropy`` of ``rows`` × ``labels`` logits: the log-softmax output (``item``
    bytes per element), the int64 targets and the total weight (one ``item``)."""
    return item * rows * labels + 8 * rows + item


def _head_bytes(arch: Architecture, inputs: Inputs, task: Task, style: _Style) -> int:
    """What the head keeps for backward, b = 1 (measured: tests/measure)."""
    p = inputs.dtype.bytes
    s, h, labels = inputs.seq, _width(arch), arch.num_labels
    sequence = p * s * h  # the last hidden states, kept by the head's first linear
    if style is _Style.ENCODER:
        roberta_head = getattr(arch.spec, "positions_from_ids", False)
        drop = inputs.dropout
        pooled = p * h  # tanh output, kept by tanh's backward (and the classifier)
        dropped = dropout_mask(inputs, h) + p * h if drop else 0
        if task is Task.BASE:
            return sequence + pooled
        if task is Task.SEQUENCE_CLASSIFICATION:
            loss = _cross_entropy(1, labels, p)
            if roberta_head and drop:
                # dropout before the dense layer: the dense input is the dropped copy of
                # the first token, not a view of the last hidden states
                return 2 * dropped + pooled + loss
            return sequence + pooled + dropped + loss
        if task is Task.MULTIPLE_CHOICE:
            return DEFAULT_CHOICES * (sequence + pooled + dropped) + _cross_entropy(
                1, DEFAULT_CHOICES, p
            )
    if task is Task.BASE:
        return 0
    if task is Task.SEQUENCE_CLASSIFICATION:
        # the score of every token, then the last one's picked by an int64 index (and the
        # position of the last non-padding token, when the file has a pad_token_id)
        index = 8 + (8 if arch.pad_token else 0)
        return sequence + _cross_entropy(1, labels, p) + index
    if task is Task.TOKEN_CLASSIFICATION:
        fp32 = style is _Style.DECODER
        mask = dropout_mask(inputs, s * h) if inputs.dropout else 0
        return sequence + mask + _cross_entropy(s, labels, 4 if fp32 else p)
    # question answering: start and end logits (one per token each), two losses
    return sequence + 2 * _cross_entropy(1, s, p)


_TASK_NOTES = {
    Task.BASE: trans_late(
        "Activation",
        "The file names the bare model ({name}): no head and no loss are counted; the "
        "head and loss you put on its last hidden states come on top.",
    ),
    Task.SEQUENCE_CLASSIFICATION: trans_late(
        "Activation",
        "Sequence classification ({name}, {labels} labels): the head keeps the last "
        "hidden states it scores; the loss is a cross-entropy over one row per sample.",
    ),
    Task.TOKEN_CLASSIFICATION: trans_late(
        "Activation",
        "Token classification ({name}, {labels} labels): the head keeps the last hidden "
        "states; the loss keeps a log-softmax over every token's labels.",
    ),
    Task.QUESTION_ANSWERING: trans_late(
        "Activation",
        "Question answering ({name}): the head keeps the last hidden states; the start "
        "and end losses keep one log-softmax over the sequence each.",
    ),
    Task.MULTIPLE_CHOICE: trans_late(
        "Activation",
        "Multiple choice ({name}): every sample is {choices} candidate sequences, each "
        "run through the whole model; the figures are per sample, all candidates "
        "together.",
    ),
}
_NOT_MODELLED = trans_late(
    "Activation",
    "The file names {name}, a head that is not modelled for this family: the estimate "
    "is for its language-model head.",
)


def task_note(arch: Architecture) -> str:
    """What the estimate assumes about the head the file names ("" for an LM head)."""
    if arch.task is Task.LM:
        return ""
    if not modelled(arch, arch.task):
        return _NOT_MODELLED.format(name=arch.architecture)
    return _TASK_NOTES[arch.task].format(
        name=arch.architecture, labels=arch.num_labels, choices=DEFAULT_CHOICES
    )


def apply(arch: Architecture, inputs: Inputs, layout: Layout) -> Layout:
    """``layout`` with the task head of ``arch`` in place of its language-model head."""
    task = arch.task
    if task is Task.LM:
        return layout
    if not modelled(arch, task):
        return replace(layout, notes=(*layout.notes, task_note(arch)))
    style = _STYLES[arch.family]
    stacks = layout.stacks
    outside = {k: v for k, v in layout.outside.items() if k not in LM_PARTS}
    if task is Task.MULTIPLE_CHOICE:
        # every candidate is a sequence of its own through the whole model
        n = DEFAULT_CHOICES
        stacks = tuple(
            replace(
                st,
                parts={k: n * v for k, v in st.parts.items()},
                checkpoint={k: n * v for k, v in st.checkpoint.items()},
            )
            for st in stacks
        )
        outside = {k: n * v for k, v in outside.items()}
    head = _head_bytes(arch, inputs, task, style)
    if head:
        outside[Part.TASK_HEAD] = head
    logits = 0
    if task is Task.TOKEN_CLASSIFICATION:
        logits = (inputs.dtype.bytes + 4) * inputs.seq * arch.num_labels
    # the family's notes about its logits (soft-capping, the router's loss) leave with
    # the language-model head
    notes = tuple(n for n in layout.notes if "logit" not in n)
    return replace(
        layout,
        stacks=stacks,
        outside=outside,
        logits=logits,
        notes=(task_note(arch), *notes),
    )


def _width(arch: Architecture) -> int:
    """Width of the last hidden states (OPT projects them out to its embedding width)."""
    return int(getattr(arch.spec, "embed_dim", arch.hidden))


def _lm_head_parameters(arch: Architecture, style: _Style) -> int:
    """Parameters of the language-model head the family counts (a tied output layer
    shares the input embedding: nothing of its own)."""
    h, v = arch.hidden, arch.vocab
    tied = bool(getattr(arch.spec, "tie_embeddings", True))
    if style is _Style.ENCODER:
        # transform (dense + LayerNorm), the output bias, an untied decoder's own weight
        # and bias
        return h * h + h + 2 * h + v + (0 if tied else v * h + v)
    return 0 if tied else v * _width(arch)


def _task_head_parameters(arch: Architecture, task: Task, style: _Style) -> int:
    h, labels = _width(arch), arch.num_labels
    pooler = h * h + h
    if task is Task.BASE:
        return pooler if style is _Style.ENCODER else 0
    if task is Task.SEQUENCE_CLASSIFICATION:
        # encoders: the pooler (RoBERTa: its head's dense layer) and a biased classifier;
        # decoders: a score layer without bias
        return pooler + h * labels + labels if style is _Style.ENCODER else h * labels
    if task is Task.TOKEN_CLASSIFICATION:
        return h * labels + labels
    if task is Task.QUESTION_ANSWERING:
        return h * 2 + 2
    return pooler + h + 1  # multiple choice: the pooler and one score per candidate


def parameters(arch: Architecture, with_lm_head: int) -> int:
    """``num_parameters()`` of the model with the task head, from the family's count
    with its language-model head."""
    if arch.task is Task.LM or not modelled(arch, arch.task):
        return with_lm_head
    style = _STYLES[arch.family]
    return (
        with_lm_head
        - _lm_head_parameters(arch, style)
        + _task_head_parameters(arch, arch.task, style)
    )
