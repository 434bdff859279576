"""Activation memory per sample of a decoder-only transformer in one training step.

Pure Python, exact integer arithmetic in bytes; nothing here knows about Qt,
``torch`` or locales. Two accounting *profiles*:

``Accounting.PAPER``
    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
    Models" (arXiv:2205.05198), Table 2: 16-bit activations (2 bytes; the
    ``dtype`` scales them), 1-byte dropout masks, per layer and per sample (b = 1)::

        no parallelism                      sbh(34 + 5as/h)
        tensor parallel (t)                 sbh(10 + 24/t + 5as/(ht))
        tensor + sequence parallel          sbh(34/t + 5as/(ht))
        tensor + sequence + selective       sbh(34/t)
        full recomputation                  2sbh

    GPT-2 family uses exactly those terms (4h MLP). For the Llama family the same
    accounting is applied to RMSNorm, GQA with ``kv_heads`` and SwiGLU with
    ``intermediate`` size *i* (see ``_paper_layer``). Outside the layers the paper
    (§4.3) adds the input-embedding dropout mask (sbh·p/t, p = 1 here), the final
    layer norm input (2sbh/t), the output-projection input (2sbh/t) and the fp32
    logits kept by the cross-entropy (4sbv/t): 4sbh/t·(1 + v/h) plus the mask.

``Accounting.HF``
    What Hugging Face ``transformers`` 5.x PyTorch modules really save for backward
    when the model runs in ``dtype`` (weights cast to it, no autocast), derived from
    the module source and PyTorch's ``derivatives.yaml`` and checked against
    ``gradacc_desktop.measure`` (docs/ACTIVATION.md has the table). The layers are the
    family modules' (``core.memory.families.gpt2`` and ``.llama`` for sizes typed
    in, with the defaults of their configuration classes): one accounting per family.

Symbols: s sequence length, h hidden size, a attention heads, k key/value heads,
d = h/a head size, i MLP intermediate size, V vocabulary, t tensor-parallel size,
B bytes per activation element.

The *peak* is a documented model, not a measurement: everything saved for backward,
plus the recomputation transient (one whole layer re-materialised with FULL, one
layer's attention core with SELECTIVE), plus the logits transient (HF: the logits in
the model dtype, which the returned output keeps, and their fp32 copy/gradient;
PAPER: the fp32 gradient of the logits). It is a conservative upper bound: in
practice the logits are often freed before the first layer is recomputed.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from gradacc_desktop.core.limits import Limits, whole
from gradacc_desktop.core.memory import families, per_op
from gradacc_desktop.core.memory.activation_texts import ASSUMPTION_TEXT, PART_TEXT, STACK_TEXT
from gradacc_desktop.core.memory.activation_types import (
    ATTENTION_CORE,
    GB,
    Accounting,
    ActivationLayout,
    Assumption,
    Attention,
    Device,
    Dims,
    Family,
    Inputs,
    InvalidActivationInputs,
    Item,
    Part,
    Result,
    ShapeProblem,
    Stack,
    StackKind,
    dims_of,
)
from gradacc_desktop.core.memory.families import Architecture, gpt2, llama
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute

# the vocabulary of an estimate lives in ``activation_types`` (the families speak it
# too); it is named here as well, where the front ends have always imported it
__all__ = [
    "ASSUMPTION_TEXT",
    "GB",
    "PART_TEXT",
    "SHAPE_LIMITS",
    "STACK_TEXT",
    "Accounting",
    "Assumption",
    "Attention",
    "Device",
    "Family",
    "Inputs",
    "InvalidActivationInputs",
    "Item",
    "Part",
    "Precision",
    "Recompute",
    "Result",
    "ShapeProblem",
    "StackKind",
    "estimate",
    "layout",
    "repeated_products",
    "validate",
]


# What the estimator accepts for each shape input (the formulas take any positive
# integer; these bounds keep the fields sane), by ``Inputs`` field name.
SHAPE_LIMITS: dict[str, Limits] = {
    "hidden": whole(1, 1_000_000),
    "layers": whole(1, 10_000),
    "heads": whole(1, 100_000),
    "kv_heads": whole(1, 100_000),
    "intermediate": whole(1, 10_000_000),
    "vocab": whole(1, 10_000_000),
    "seq": whole(1, 10_000_000),
    "target_seq": whole(1, 10_000_000),
    "tensor_parallel": whole(1, 1_024),
    "images": whole(0, 1_000),
    "image_width": whole(1, 100_000),
    "image_height": whole(1, 100_000),
}


# --------------------------------------------------------------------------- validation


def validate(inputs: Inputs) -> None:
    """Raise ``InvalidActivationInputs`` for shapes the model cannot describe exactly."""
    for name in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab", "seq"):
        if getattr(inputs, name) < 1:
            raise InvalidActivationInputs(name, ShapeProblem.NOT_POSITIVE, "must be >= 1")
    t = inputs.tensor_parallel
    if t < 1:
        raise InvalidActivationInputs("tensor_parallel", ShapeProblem.NOT_POSITIVE, "must be >= 1")
    if inputs.target_seq is not None and inputs.target_seq < 1:
        raise InvalidActivationInputs("target_seq", ShapeProblem.NOT_POSITIVE, "must be >= 1")
    if inputs.images < 0:
        raise InvalidActivationInputs("images", ShapeProblem.NOT_POSITIVE, "must be >= 0")
    for name in ("image_width", "image_height"):
        if getattr(inputs, name) is not None and getattr(inputs, name) < 1:
            raise InvalidActivationInputs(name, ShapeProblem.NOT_POSITIVE, "must be >= 1")
    imaged = inputs.images or inputs.vision_frozen or inputs.image_width or inputs.image_height
    if imaged and inputs.family not in (Family.VISION, Family.VLM):
        raise InvalidActivationInputs(
            "images", ShapeProblem.NOT_MODELLED, "this model has no vision tower"
        )
    arch = inputs.arch
    if arch is not None:
        _validate_arch(inputs, arch)
    elif not inputs.family.typed_sizes:
        raise InvalidActivationInputs(
            "family", ShapeProblem.NOT_MODELLED, "this family is read from a config.json"
        )
    if arch is None and inputs.hidden % inputs.heads:
        raise InvalidActivationInputs("hidden", ShapeProblem.NOT_DIVISIBLE, "must divide by heads")
    if inputs.heads % inputs.kv_heads:
        raise InvalidActivationInputs("kv_heads", ShapeProblem.NOT_DIVISIBLE, "must divide heads")
    if inputs.family is Family.GPT2 and inputs.kv_heads != inputs.heads:
        raise InvalidActivationInputs(
            "kv_heads", ShapeProblem.MISMATCH, "GPT-2 needs kv_heads = heads"
        )
    for name in ("heads", "kv_heads", "intermediate", "hidden"):
        if getattr(inputs, name) % t:
            raise InvalidActivationInputs(
                name, ShapeProblem.NOT_DIVISIBLE, "must divide by the tensor-parallel size"
            )
    if inputs.sequence_parallel and inputs.seq % t:
        raise InvalidActivationInputs(
            "seq", ShapeProblem.NOT_DIVISIBLE, "must divide by the tensor-parallel size"
        )
    if inputs.recompute is Recompute.SELECTIVE_OP and (
        inputs.profile is Accounting.PAPER
        or inputs.attention is not Attention.SDPA
        or inputs.dropout
    ):
        raise InvalidActivationInputs(
            "recompute",
            ShapeProblem.NOT_MODELLED,
            "per-op selective recomputation is modelled with fused attention (SDPA), "
            "without dropout, in the Hugging Face accounting",
        )


def _validate_arch(inputs: Inputs, arch: Architecture) -> None:
    shape = ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab")
    if inputs.family is not arch.family or any(
        getattr(inputs, name) != getattr(arch, name) for name in shape
    ):
        raise InvalidActivationInputs(
            "family", ShapeProblem.MISMATCH, "the sizes differ from the configuration's"
        )
    if inputs.profile is Accounting.PAPER and (
        not arch.family.typed_sizes or arch.head_dim * arch.heads != arch.hidden
    ):
        raise InvalidActivationInputs(
            "profile",
            ShapeProblem.NOT_MODELLED,
            "the paper profile covers GPT-2 and Llama-shaped models only",
        )
    if inputs.tensor_parallel > 1 and not arch.family.typed_sizes:
        raise InvalidActivationInputs(
            "tensor_parallel",
            ShapeProblem.NOT_MODELLED,
            "tensor parallelism is modelled for GPT-2 and Llama-like models only",
        )


# --------------------------------------------------------------------------- paper profile


def _paper_layer(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    """One layer, no recomputation, Korthikanti et al. accounting (b = 1).

    A different model of the layers ``core.memory.families.gpt2`` and ``core.memory.families.llama``
    describe: the paper's Table 2 terms (what Megatron-LM keeps), not what
    ``transformers`` and PyTorch autograd save; the HF profile uses the family modules.

    GPT-2 (i = 4h, k = a): attention 11sh + 5as², MLP 19sh, norms 4sh: sh(34 + 5as/h).
    With tensor parallelism the 24sh inside the parallel regions and the 5as² split by t;
    the remaining 10sh (norm inputs, projection inputs, two dropout masks) split only with
    sequence parallelism.
    """
    p = inputs.dtype.bytes  # 2 in the paper
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    gpt2 = inputs.family is Family.GPT2
    parts: dict[Part, int] = {
        Part.ATTN_NORM: p * r * h,  # norm input
        Part.QKV_PROJ_INPUT: p * r * h,
        # QKᵀ keeps Q and K; attention over V keeps V (k kv heads of size d)
        Part.ATTN_QKV: p * s * a * d + 2 * p * s * k * d,
        Part.ATTN_OUT_PROJ_INPUT: p * s * a * d,
        Part.MLP_NORM: p * r * h,
        Part.MLP_IN_PROJ_INPUT: p * r * h,
    }
    if inputs.attention is Attention.EAGER:
        parts[Part.ATTN_SOFTMAX] = p * a * s * s
        if drop:
            # 1-byte mask plus the dropout output kept by the matmul with V
            parts[Part.ATTN_DROPOUT] = a * s * s + p * a * s * s
    else:
        # flash-style kernel (as in Megatron-LM): no s² term; its output is the output
        # projection input already counted; only the fp32 log-sum-exp is added
        parts[Part.ATTN_FUSED] = 4 * a * s
    if gpt2:
        parts[Part.MLP_ACTIVATION] = p * s * i  # GeLU input
        parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
        if drop:
            parts[Part.ATTN_RESID_DROPOUT] = r * h
            parts[Part.MLP_RESID_DROPOUT] = r * h
    else:
        parts[Part.MLP_ACTIVATION] = 3 * p * s * i  # gate out, up out, SiLU out
        parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def _paper_outside(inputs: Inputs, dims: Dims) -> dict[Part, int]:
    p = inputs.dtype.bytes
    parts: dict[Part, int] = {
        Part.FINAL_NORM: p * dims.s_sp * dims.h,
        Part.LM_HEAD_INPUT: p * dims.s_sp * dims.h,
        Part.LOSS: 4 * dims.s * dims.v,
    }
    if inputs.dropout and inputs.family is Family.GPT2:
        parts[Part.EMBEDDINGS] = dims.s_sp * dims.h
    return parts


def _paper_layout(inputs: Inputs) -> ActivationLayout:
    """GPT-2 and Llama in the paper's accounting: one stack of identical layers."""
    sizes = dims_of(inputs)
    p = inputs.dtype.bytes
    # Table 2: 2sbh per layer; the peak adds the fp32 gradient of the logits
    checkpoint = {Part.LAYER_CHECKPOINT: p * sizes.s * sizes.h}
    return ActivationLayout(
        stacks=(Stack(StackKind.LAYERS, inputs.layers, _paper_layer(inputs, sizes), checkpoint),),
        outside=_paper_outside(inputs, sizes),
        logits=4 * sizes.s * sizes.v,
    )


# --------------------------------------------------------------------------- estimate


def _assumptions(inputs: Inputs) -> tuple[Assumption, ...]:
    out = [Assumption.PER_SAMPLE]
    if inputs.head_dim * inputs.heads == inputs.hidden:
        out.append(Assumption.HEAD_DIM)
    out.append(Assumption.NO_PIPELINE)
    gpt2 = inputs.family is Family.GPT2
    if not inputs.family.typed_sizes:
        # the family module's notes say what its layers keep
        out.append(Assumption.HF_PURE_DTYPE)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.HF_CHECKPOINTING)
        if inputs.recompute is Recompute.SELECTIVE:
            out.append(Assumption.HF_SELECTIVE_MODELLED)
        if inputs.recompute is Recompute.SELECTIVE_OP:
            out.append(Assumption.PER_OP)
        if inputs.dropout:
            out.append(
                Assumption.DROPOUT_MASK_CUDA
                if inputs.device is Device.CUDA
                else Assumption.DROPOUT_MASK_CPU
            )
        if fuses_loss(inputs):
            out.append(Assumption.FUSED_LOSS)
        if inputs.fused_softmax and inputs.attention is Attention.EAGER:
            out.append(Assumption.FUSED_SOFTMAX)
        out.append(Assumption.PEAK_MODEL)
        return tuple(out)
    if inputs.profile is Accounting.PAPER:
        out.append(Assumption.PAPER_TABLE2)
        if not gpt2:
            out.append(Assumption.PAPER_LLAMA_DERIVED)
        out.append(Assumption.PAPER_OUTSIDE_LAYERS)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.PAPER_FULL_CHECKPOINT)
        if not inputs.dropout:
            out.append(Assumption.PAPER_NO_DROPOUT)
    else:
        out.append(Assumption.HF_PURE_DTYPE)
        if gpt2:
            out += [Assumption.HF_GELU_NEW, Assumption.HF_LAYERNORM]
        else:
            out += [Assumption.HF_RMSNORM_FP32, Assumption.HF_ROTARY, Assumption.HF_SWIGLU]
        if inputs.attention is Attention.EAGER:
            out.append(Assumption.HF_EAGER_GPT2 if gpt2 else Assumption.HF_EAGER_LLAMA)
        else:
            out.append(Assumption.HF_SDPA)
            if inputs.dropout and inputs.device is Device.CPU:
                out.append(Assumption.HF_SDPA_DROPOUT_CPU)
        out.append(Assumption.FUSED_LOSS if fuses_loss(inputs) else Assumption.HF_LOSS_FP32)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.HF_CHECKPOINTING)
        if inputs.recompute is Recompute.SELECTIVE:
            out.append(Assumption.HF_SELECTIVE_MODELLED)
        if inputs.recompute is Recompute.SELECTIVE_OP:
            out.append(Assumption.PER_OP)
        if inputs.dropout:
            out.append(
                Assumption.DROPOUT_MASK_CUDA
                if inputs.device is Device.CUDA
                else Assumption.DROPOUT_MASK_CPU
            )
    if inputs.tensor_parallel > 1:
        out.append(Assumption.TENSOR_PARALLEL)
        if inputs.vocab % inputs.tensor_parallel:
            out.append(Assumption.VOCAB_PADDED)
    out.append(Assumption.PEAK_MODEL)
    return tuple(out)


def layout(inputs: Inputs) -> ActivationLayout:
    """Per-layer and once-per-model bytes of ``inputs`` before the recomputation choice."""
    if inputs.profile is Accounting.PAPER:
        return _paper_layout(inputs)
    if inputs.arch is not None:
        return families.layout(inputs.arch, inputs)
    # sizes typed in: the family module's layers, with its configuration's defaults
    if inputs.family is Family.GPT2:
        return gpt2.sizes_layout(inputs)
    return llama.sizes_layout(inputs)


#: what a causal LM's head and loss keep that a fused linear cross-entropy does not
_UNFUSED_LOSS = (Part.LM_HEAD_INPUT, Part.LOSS, Part.LOGIT_SOFTCAP)


def fuses_loss(inputs: Inputs) -> bool:
    """Whether the loss is fused (asked for, and the model is a causal LM: Liger's fused
    linear cross-entropy replaces a language model's head and loss only)."""
    causal = inputs.arch is None or inputs.arch.head.value == "causal-lm"
    return inputs.fused_loss and causal and inputs.profile is Accounting.HF


def _fused_loss(inputs: Inputs, shape: ActivationLayout) -> ActivationLayout:
    """Liger's fused linear cross-entropy (linkedin/Liger-Kernel,
    ``ops/fused_linear_cross_entropy.py``): the head and the loss run over chunks of the
    tokens, each chunk's logits (chunk = the next power of two of s·⌈V/h⌉⁻¹ tokens, at
    most 2·s·h elements) made, turned into their gradient in place and freed; the
    gradient of the head's input (s·h, the data type) is made in the forward pass and
    kept for the backward one, beside the int64 labels. Nothing of the whole logits is
    kept: not the head's input, the fp32 log-softmax, nor a soft-capped copy."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    outside = {k: n for k, n in shape.outside.items() if k not in _UNFUSED_LOSS}
    outside[Part.FUSED_LOSS] = p * dims.s * dims.h + 8 * (dims.s + 1)
    return ActivationLayout(shape.stacks, outside, 2 * p * dims.s * dims.h, shape.notes)


#: the layers whose attention is causal self-attention over the whole sequence
_SELF_ATTENTION = (
    StackKind.LAYERS,
    StackKind.SLIDING,
    StackKind.GLOBAL,
    StackKind.DENSE,
    StackKind.SPARSE,
)


def _fused_softmax(inputs: Inputs, shape: ActivationLayout) -> ActivationLayout:
    """Megatron's unfused attention (``--attention-backend unfused``): its scores go
    through ``FusedScaleMaskSoftmax``, one kernel that scales, masks and normalises
    them and keeps only its output, in the data type — p·a·s² per layer on a rank's
    ``a`` heads, Korthikanti et al.'s 2as² — where the modules keep an fp32 softmax and
    its cast. Dropout's mask and output stay as the modules keep them."""
    heads = inputs.heads // inputs.tensor_parallel
    kept = inputs.dtype.bytes * heads * inputs.seq * inputs.seq
    stacks = tuple(
        replace(stack, parts={**stack.parts, Part.ATTN_SOFTMAX: kept})
        if stack.kind in _SELF_ATTENTION and Part.ATTN_SOFTMAX in stack.parts
        else stack
        for stack in shape.stacks
    )
    return replace(shape, stacks=stacks)


def repeated_products(inputs: Inputs) -> Fraction:
    """The share of the layers' product FLOPs the backward computes again: all of them
    with full recomputation, none without or with selective (the attention core is
    apart), the products per-op selective recomputation does not keep."""
    if inputs.recompute is Recompute.FULL:
        return Fraction(1)
    if inputs.recompute is not Recompute.SELECTIVE_OP:
        return Fraction(0)
    validate(inputs)
    stacks = layout(inputs).stacks
    per_op.require_products(stacks)
    return per_op.repeated_share(stacks)


def estimate(inputs: Inputs) -> Result:
    """Activation bytes per sample: saved for backward, modelled peak, breakdown."""
    validate(inputs)
    shape = layout(inputs)
    if inputs.recompute is Recompute.SELECTIVE_OP:
        per_op.require_products(shape.stacks)
    fused = fuses_loss(inputs)
    if fused:
        shape = _fused_loss(inputs, shape)
    if inputs.fused_softmax and inputs.attention is Attention.EAGER:
        shape = _fused_softmax(inputs, shape)
    per_layer: list[Item] = []
    extra: list[Item] = []
    recomputed = 0
    attention_core = 0
    again = 0
    largest_layer = 0
    for stack in shape.stacks:
        if stack.count < 1:
            continue
        if inputs.recompute is Recompute.FULL:
            kept = dict(stack.checkpoint)
        elif inputs.recompute is Recompute.SELECTIVE:
            kept = {k: v for k, v in stack.parts.items() if k not in ATTENTION_CORE}
        elif inputs.recompute is Recompute.SELECTIVE_OP:
            kept = per_op.kept(inputs, stack)
            # the rest of the layer's forward, made again in its backward
            again = max(again, sum(stack.parts.values()) - sum(kept.values()))
        else:
            kept = dict(stack.parts)
        per_layer += [
            Item(key, n, stack.count, stack.kind)
            for key, n in sorted(kept.items(), key=_order)
            if n
        ]
        largest_layer = max(largest_layer, sum(kept.values()))
        recomputed = max(recomputed, sum(stack.parts.values()))
        attention_core = max(
            attention_core, sum(n for k, n in stack.parts.items() if k in ATTENTION_CORE)
        )
    outside = [Item(key, n, 1) for key, n in sorted(shape.outside.items(), key=_order) if n]
    breakdown = tuple(per_layer + outside)
    saved = sum(item.total for item in breakdown)

    if inputs.recompute is Recompute.FULL:
        extra.append(Item(Part.RECOMPUTED_LAYER, recomputed, 1))
    elif inputs.recompute is Recompute.SELECTIVE and attention_core:
        extra.append(Item(Part.RECOMPUTED_ATTENTION, attention_core, 1))
    elif inputs.recompute is Recompute.SELECTIVE_OP and again:
        extra.append(Item(Part.RECOMPUTED_LAYER, again, 1))
    extra.append(Item(Part.LOSS_CHUNK if fused else Part.LOGITS_TRANSIENT, shape.logits, 1))
    peak = saved + sum(item.total for item in extra)

    return Result(
        inputs=inputs,
        saved_bytes=saved,
        peak_bytes=peak,
        per_layer_bytes=largest_layer,
        breakdown=breakdown,
        peak_extra=tuple(extra),
        assumptions=_assumptions(inputs),
        notes=shape.notes,
    )


_PART_ORDER = {part: n for n, part in enumerate(Part)}


def _order(entry: tuple[Part, int]) -> int:
    return _PART_ORDER[entry[0]]
