"""The task a model is fine-tuned for, from the class ``architectures`` names.

A family module builds its language-model head (causal LM, masked LM, seq2seq LM) with
the once-per-model parts ``LM_HEAD_INPUT``, ``LOSS``, ``MLM_HEAD``, ``LOGIT_SOFTCAP`` and
the loss transient ``ActivationLayout.logits``. Any other head replaces exactly those.
"""

from __future__ import annotations

import enum
from dataclasses import replace
from typing import TYPE_CHECKING

from gradacc_desktop.core.memory.activation_types import Family, Part
from gradacc_desktop.core.memory.families.common import ACTIVATION_KEEPS, dropout_mask, layer_norm
from gradacc_desktop.core.text import trans_late

if TYPE_CHECKING:
    from gradacc_desktop.core.memory.activation_types import Inputs
    from gradacc_desktop.core.memory.families.base import ActivationLayout, Architecture

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
    #: DistilBERT: no pooler; sequence classification and multiple choice put
    #: pre_classifier + ReLU + dropout (``seq_classif_dropout``) on the first token, question
    #: answering drops the hidden states out (``qa_dropout``) first; losses in the dtype
    DISTILBERT = "distilbert"
    #: DeBERTa-v2/v3: no pooler in the bare model; ``ContextPooler`` (dropout, dense,
    #: ``pooler_hidden_act``) + dropout + classifier for sequence classification and
    #: multiple choice; the sequence classifier gathers the labelled rows and upcasts them
    DEBERTA = "deberta"
    #: ModernBERT: no pooler; token classification and question answering run the
    #: prediction head (dense, ``classifier_activation``, LayerNorm) on every token, then
    #: dropout (``classifier_dropout``) and the classifier; losses in the dtype. Sequence
    #: classification and multiple choice pool first by ``classifier_pooling`` (the first
    #: token, or the mean over the tokens the attention mask keeps), then run the head
    MODERNBERT = "modernbert"


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
    Family.DISTILBERT: _Style.DISTILBERT,
    Family.DEBERTA: _Style.DEBERTA,
    Family.MODERNBERT: _Style.MODERNBERT,
}

#: styles with a multiple-choice head (a pooled first token scored once per candidate)
_POOLED = frozenset({_Style.ENCODER, _Style.DISTILBERT, _Style.DEBERTA, _Style.MODERNBERT})

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
    if style is _Style.MODERNBERT and task is Task.MULTIPLE_CHOICE:
        # several candidates through eager attention's batched products copy Q, K and V
        # (one sequence keeps views of the fused Wqkv output): not modelled
        return False
    return task is not Task.MULTIPLE_CHOICE or style in _POOLED


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
    if style is _Style.DISTILBERT or style is _Style.DEBERTA:
        return _bert_like_head_bytes(arch, inputs, task, style)
    if style is _Style.MODERNBERT and task is not Task.BASE:
        return _modernbert_head_bytes(arch, inputs, task)
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


def _modernbert_head_bytes(arch: Architecture, inputs: Inputs, task: Task) -> int:
    """ModernBERT's heads, b = 1 (measured: tests/measure): the prediction head (the dense
    input, the activation, the LayerNorm) and the classifier's input, on every token or
    on the pooled rows; ``classifier_dropout`` taken as off (its default, and the
    published files')."""
    p = inputs.dtype.bytes
    s, h, labels = inputs.seq, arch.hidden, arch.num_labels
    act = ACTIVATION_KEEPS[arch.spec.head_activation]

    def head(rows: int, dense_input: int) -> int:
        return dense_input + act * p * rows * h + layer_norm(inputs, rows, h) + p * rows * h

    if task is Task.TOKEN_CLASSIFICATION:
        return head(s, p * s * h) + _cross_entropy(s, labels, p)
    if task is Task.QUESTION_ANSWERING:
        return head(s, p * s * h) + 2 * _cross_entropy(1, s, p)
    # sequence classification (multiple choice is not modelled: ``modelled``)
    if arch.spec.classifier_pooling == "mean":
        # (hidden · mask).sum(1) / mask.sum(1): the product keeps the mask (the int64
        # attention mask; without one the classifier's own boolean ones), the division
        # its int64 token count; the dense layer reads the mean
        pooled = (8 if inputs.padded else 1) * s + 8 + head(1, p * h)
    else:
        # the first token, a view: the dense layer keeps the last hidden states
        pooled = head(1, p * s * h)
    return pooled + _cross_entropy(1, labels, p)


def _bert_like_head_bytes(arch: Architecture, inputs: Inputs, task: Task, style: _Style) -> int:
    """DistilBERT's and DeBERTa's heads, b = 1 (measured: tests/measure).

    The head dropouts the configuration cannot tell: DistilBERT's ``seq_classif_dropout``
    and ``qa_dropout`` (0.2 and 0.1 by default) are taken as on with dropout; DeBERTa's
    ``cls_dropout`` follows ``hidden_dropout_prob`` (its default) and ``pooler_dropout``
    is taken as off (its default, and the published files'); its ``pooler_hidden_act``
    as GELU (the default), which keeps its input."""
    p = inputs.dtype.bytes
    s, h, labels = inputs.seq, _width(arch), arch.num_labels
    sequence = p * s * h  # the last hidden states, kept by the head's first linear
    hidden_drop = inputs.dropout and bool(getattr(arch.spec, "hidden_dropout", True))
    if style is _Style.DISTILBERT:
        head_drop = inputs.dropout
        # ReLU keeps its output, which the classifier reads unless it is dropped out
        activation = p * h
    else:
        head_drop = hidden_drop
        # GELU keeps its input; the classifier reads the output unless it is dropped out
        activation = p * h + (0 if head_drop else p * h)
    # the dense layer reads the first token, a view of the last hidden states
    pooled = sequence + activation + (dropout_mask(inputs, h) + p * h if head_drop else 0)
    if task is Task.BASE:
        return 0
    if task is Task.SEQUENCE_CLASSIFICATION:
        if style is _Style.DEBERTA:
            # the labelled rows gathered (gather keeps the logits and its int64 index of
            # labels >= 0), then upcast: an fp32 log-softmax, the gathered int64 labels,
            # an fp32 total weight
            return pooled + 8 + p * labels + _cross_entropy(1, labels, 4)
        return pooled + _cross_entropy(1, labels, p)
    if task is Task.MULTIPLE_CHOICE:
        return DEFAULT_CHOICES * pooled + _cross_entropy(1, DEFAULT_CHOICES, p)
    if task is Task.TOKEN_CLASSIFICATION:
        # dropout (``dropout`` / ``hidden_dropout_prob``): its mask, and the classifier
        # reads the dropped copy instead of the hidden states (the same size)
        mask = dropout_mask(inputs, s * h) if hidden_drop else 0
        return sequence + mask + _cross_entropy(s, labels, p)
    # question answering: DistilBERT drops the hidden states out first (``qa_dropout``)
    mask = dropout_mask(inputs, s * h) if style is _Style.DISTILBERT and head_drop else 0
    return sequence + mask + 2 * _cross_entropy(1, s, p)


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


def apply(arch: Architecture, inputs: Inputs, layout: ActivationLayout) -> ActivationLayout:
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
        # (what a forward computes once whatever the batch, e.g. DeBERTa's relative
        # position index and table, is not repeated)
        n = DEFAULT_CHOICES
        layer_once, outside_once = _once_per_forward(arch, inputs)
        stacks = tuple(
            replace(
                st,
                parts={k: n * v - (n - 1) * layer_once.get(k, 0) for k, v in st.parts.items()},
                checkpoint={k: n * v for k, v in st.checkpoint.items()},
            )
            for st in stacks
        )
        outside = {k: v if k in outside_once else n * v for k, v in outside.items()}
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


def _once_per_forward(
    arch: Architecture, inputs: Inputs
) -> tuple[dict[Part, int], frozenset[Part]]:
    """What the family keeps once per forward however many sequences run (measured):
    bytes of a layer's parts — DeBERTa's relative position index (s × s, expanded over
    the batch), its scales, its dropped-out position table — and the parts outside the
    layers that are wholly once per forward (the normalised position table)."""
    if _STYLES.get(arch.family) is not _Style.DEBERTA:
        return {}, frozenset()
    spec = arch.spec
    p, s = inputs.dtype.bytes, inputs.seq
    r, h = spec.relative_rows, arch.hidden
    kinds = spec.position_kinds
    layer: dict[Part, int] = {Part.ATTN_QKV: p}  # the attention's scale
    if kinds:
        bias = kinds * (8 * s * s + p)
        if inputs.dropout and spec.hidden_dropout:
            bias += dropout_mask(inputs, r * h) + p * r * h
        layer[Part.ATTN_POSITION_BIAS] = bias
    return layer, frozenset({Part.SHARED_POSITION_BIAS})


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
    if style is _Style.DISTILBERT:
        # vocab_transform, vocab_layer_norm, the projector's bias; an untied weight
        return h * h + h + 2 * h + v + (0 if tied else v * h)
    if style is _Style.MODERNBERT:
        return (
            _modernbert_head(arch) + (v if arch.spec.decoder_bias else 0) + (0 if tied else v * h)
        )
    if style is _Style.DEBERTA:
        # dense, LayerNorm, the output bias; the legacy decoder's own weight and bias
        own = bool(getattr(arch.spec, "legacy_head", True)) and not tied
        return h * h + h + 2 * h + v + (v * h + v if own else 0)
    return 0 if tied else v * _width(arch)


def _task_head_parameters(arch: Architecture, task: Task, style: _Style) -> int:
    h, labels = _width(arch), arch.num_labels
    pooler = h * h + h
    if task is Task.BASE:
        return pooler if style is _Style.ENCODER else 0
    if style is _Style.MODERNBERT:
        # its prediction head (dense, LayerNorm) before the classifier (one score per
        # label, the start and end of an answer, or one per candidate)
        outputs = {Task.QUESTION_ANSWERING: 2, Task.MULTIPLE_CHOICE: 1}.get(task, labels)
        return _modernbert_head(arch) + h * outputs + outputs
    if task is Task.SEQUENCE_CLASSIFICATION:
        # encoders: the pooler (RoBERTa: its head's dense layer; DistilBERT: its
        # pre_classifier; DeBERTa: its ContextPooler's dense) and a biased classifier;
        # decoders: a score layer without bias
        if style in _POOLED:
            return pooler + h * labels + labels
        return h * labels
    if task is Task.TOKEN_CLASSIFICATION:
        return h * labels + labels
    if task is Task.QUESTION_ANSWERING:
        return h * 2 + 2
    return pooler + h + 1  # multiple choice: the pooler and one score per candidate


def _modernbert_head(arch: Architecture) -> int:
    """``ModernBertPredictionHead``: dense (``classifier_bias``) and LayerNorm
    (``norm_bias``)."""
    h, spec = arch.hidden, arch.spec
    return h * h + (h if spec.classifier_bias else 0) + (2 * h if spec.norm_bias else h)


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
