"""What makes a training description invalid, in one place: the rules the window and
every command check, each with the input it concerns and one sentence (context
"Description") they all say the same way.

A problem is not a framework's refusal (``frameworks.rules``: a setup a framework would
not start); it is a description that asks for something the model, the card or the
layout cannot give — FP8 products on a card without them, virtual stages without
pipeline stages, a sequence the context-parallel GPUs cannot split, an expert-parallel
size the model's experts cannot take, images for a model without an image tower. The
plan returns them (``Plan.problems``); whatever they make unknown (the time, a figure)
says why through them, and nothing is dropped silently.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..attention import AttentionKernel
from ..framework import Framework
from ..memory.models import ModelFacts
from ..memory.setup import PROBLEM_TEXT, Offload, SetupProblem
from ..memory.zero import ZeroStage
from ..precision import MasterWeights, Precision
from ..recompute import Recompute
from ..text import Message, Phrase, trans_late
from .description import TrainingDescription
from .figures import repeated_share

__all__ = ["SETUP_KINDS", "Problem", "ProblemKind", "problem_text", "problems"]


class ProblemKind(enum.Enum):
    FP8_PRECISION = "fp8_precision"
    FP8_CARD = "fp8_card"
    FLASH_CARD = "flash_card"
    VIRTUAL_STAGES = "virtual_stages"
    SEQUENCE_PARALLEL = "sequence_parallel"
    TP_COMM_OVERLAP = "tp_comm_overlap"
    GRAD_REDUCE_BF16 = "grad_reduce_bf16"
    FUSED_LOSS_MEGATRON = "fused_loss_megatron"
    FUSED_LOSS_HEAD = "fused_loss_head"
    RECOMPUTE_PER_OP = "recompute_per_op"
    RECOMPUTE_PER_OP_MODEL = "recompute_per_op_model"
    MASTER_PRECISION = "master_precision"
    MASTER_DEEPSPEED = "master_deepspeed"
    MASTER_FSDP = "master_fsdp"
    MASTER_MEGATRON = "master_megatron"
    UNEVEN_NODES = "uneven_nodes"
    OFFLOAD_NEEDS_ZERO = "offload_needs_zero"
    PARAMETER_OFFLOAD_NEEDS_ZERO3 = "parameter_offload_needs_zero3"
    EXPERTS_NOT_MOE = "experts_not_moe"
    EXPERTS_SPLIT = "experts_split"
    EXPERTS_DATA = "experts_data"
    EXPERTS_MESH = "experts_mesh"
    EXPERTS_TENSOR = "experts_tensor"
    CONTEXT_SPLIT = "context_split"
    IMAGES = "images"
    TARGET_SEQ = "target_seq"
    SEQ_TOO_LONG = "seq_too_long"


#: the input each kind concerns (the window marks it; the command line names its flag)
FIELD: dict[ProblemKind, str] = {
    ProblemKind.FP8_PRECISION: "fp8",
    ProblemKind.FP8_CARD: "fp8",
    ProblemKind.FLASH_CARD: "attention",
    ProblemKind.VIRTUAL_STAGES: "virtual_stages",
    ProblemKind.SEQUENCE_PARALLEL: "sequence_parallel",
    ProblemKind.TP_COMM_OVERLAP: "tp_comm_overlap",
    ProblemKind.GRAD_REDUCE_BF16: "grad_reduce_bf16",
    ProblemKind.FUSED_LOSS_MEGATRON: "fused_loss",
    ProblemKind.FUSED_LOSS_HEAD: "fused_loss",
    ProblemKind.RECOMPUTE_PER_OP: "recompute",
    ProblemKind.RECOMPUTE_PER_OP_MODEL: "recompute",
    ProblemKind.MASTER_PRECISION: "master_weights",
    ProblemKind.MASTER_DEEPSPEED: "master_weights",
    ProblemKind.MASTER_FSDP: "master_weights",
    ProblemKind.MASTER_MEGATRON: "master_weights",
    ProblemKind.UNEVEN_NODES: "nodes",
    ProblemKind.OFFLOAD_NEEDS_ZERO: "offload",
    ProblemKind.PARAMETER_OFFLOAD_NEEDS_ZERO3: "offload",
    ProblemKind.EXPERTS_NOT_MOE: "expert_parallel",
    ProblemKind.EXPERTS_SPLIT: "expert_parallel",
    ProblemKind.EXPERTS_DATA: "expert_parallel",
    ProblemKind.EXPERTS_MESH: "expert_tensor_parallel",
    ProblemKind.EXPERTS_TENSOR: "expert_tensor_parallel",
    ProblemKind.CONTEXT_SPLIT: "context_parallel",
    ProblemKind.IMAGES: "images",
    ProblemKind.TARGET_SEQ: "target_seq",
    ProblemKind.SEQ_TOO_LONG: "seq_len",
}

#: why each framework does not keep a master copy it was asked for
MASTER_KINDS = {
    Framework.DEEPSPEED: ProblemKind.MASTER_DEEPSPEED,
    Framework.FSDP: ProblemKind.MASTER_FSDP,
    Framework.MEGATRON: ProblemKind.MASTER_MEGATRON,
}

_TEXT: dict[ProblemKind, Phrase] = {
    ProblemKind.FP8_PRECISION: trans_late(
        "Description",
        "FP8 products run beside 16-bit training (bf16 or fp16), not with fp32.",
    ),
    ProblemKind.FP8_CARD: trans_late(
        "Description",
        "The {card} has no FP8 products (FP8 Tensor Cores start with Ada and Hopper).",
    ),
    ProblemKind.FLASH_CARD: trans_late(
        "Description",
        "FlashAttention 3 and 4 run on Hopper and Blackwell: on the {card} the flash-attn "
        "package's kernel is FlashAttention 2, timed as the fused kernels (SDPA).",
    ),
    ProblemKind.VIRTUAL_STAGES: trans_late(
        "Description",
        "Virtual stages interleave pipeline stages: give two or more pipeline stages.",
    ),
    ProblemKind.SEQUENCE_PARALLEL: trans_late(
        "Description",
        "Sequence parallelism splits the work of a tensor-parallel group: give a "
        "tensor-parallel size of two or more.",
    ),
    ProblemKind.TP_COMM_OVERLAP: trans_late(
        "Description",
        "Overlapping the tensor-parallel communication with the products is Megatron's "
        "(Transformer Engine, --tp-comm-overlap) and needs sequence parallelism over two or "
        "more tensor-parallel GPUs.",
    ),
    ProblemKind.GRAD_REDUCE_BF16: trans_late(
        "Description",
        "Reducing the gradients in bf16 is Megatron's --grad-reduce-in-bf16, in bf16 "
        "training (DeepSpeed already reduces a bf16 training's gradients in bf16).",
    ),
    ProblemKind.FUSED_LOSS_MEGATRON: trans_late(
        "Description",
        "The fused loss (Liger) replaces the head and loss of Hugging Face models: Megatron "
        "runs its own. Choose DeepSpeed or FSDP.",
    ),
    ProblemKind.FUSED_LOSS_HEAD: trans_late(
        "Description",
        "The fused loss (Liger) replaces a language model's head and loss: this model has "
        "another head.",
    ),
    ProblemKind.MASTER_PRECISION: trans_late(
        "Description",
        "A bf16 master copy, or none, belongs to bf16 training: with {precision} the "
        "optimizer keeps an fp32 master copy, and the figures count it.",
    ),
    ProblemKind.MASTER_DEEPSPEED: trans_late(
        "Description",
        "DeepSpeed's optimizers always keep a master copy, in fp32 or in bf16: the figures "
        "count the fp32 one.",
    ),
    ProblemKind.RECOMPUTE_PER_OP: trans_late(
        "Description",
        "Per-op selective recomputation is torchtitan's (FSDP2, selective_ac_option "
        "'op'): {framework} trains without it, and the figures count no recomputation; "
        "choose the FSDP2 (PyTorch) framework, or another recomputation.",
    ),
    ProblemKind.RECOMPUTE_PER_OP_MODEL: trans_late(
        "Description",
        "Per-op selective recomputation is modelled for Llama-like layers (Llama, Mistral, "
        "Qwen2, Qwen3) with fused attention (SDPA) and no dropout: choose another "
        "recomputation.",
    ),
    ProblemKind.MASTER_FSDP: trans_late(
        "Description",
        "FSDP2's shards are the master copy: fp32 shards (a mixed-precision policy) or "
        "none (bf16 shards); the figures count the fp32 one.",
    ),
    ProblemKind.MASTER_MEGATRON: trans_late(
        "Description",
        "Megatron keeps fp32 main parameters and gradients (its precision-aware optimizer "
        "is not described here): the figures count them.",
    ),
    ProblemKind.EXPERTS_NOT_MOE: trans_late(
        "Description",
        "Expert parallelism ({expert_parallel}) spreads a mixture of experts' routed "
        "experts: this model has none.",
    ),
    ProblemKind.EXPERTS_TENSOR: trans_late(
        "Description",
        "An expert tensor-parallel size apart from the tensor-parallel one is Megatron's "
        "(--expert-tensor-parallel-size): {framework} splits the experts as the other "
        "layers; clear the field or choose Megatron.",
    ),
    ProblemKind.EXPERTS_SPLIT: trans_late(
        "Description",
        "The expert-parallel size {expert_parallel} must divide the model's {experts} routed "
        "experts per layer: each GPU holds an equal share.",
    ),
    ProblemKind.CONTEXT_SPLIT: trans_late(
        "Description",
        "The sequence length {seq_len} must be divisible by 2 x the context-parallel size "
        "({chunks}): Megatron splits each sequence into 2·CP equal chunks.",
    ),
    ProblemKind.IMAGES: trans_late(
        "Description", "This model reads no images: the images per sample are not used."
    ),
    ProblemKind.TARGET_SEQ: trans_late(
        "Description",
        "Only an encoder-decoder has a target length: this model reads one sequence.",
    ),
    ProblemKind.SEQ_TOO_LONG: trans_late(
        "Description",
        "The model's learned positions stop at {positions} tokens: a sequence of "
        "{seq_len} does not fit them.",
    ),
}

# the layouts no framework runs: the setup's own sentences (``memory.setup``), which
# the exports and the config readers say too
_TEXT.update(
    {
        ProblemKind.UNEVEN_NODES: PROBLEM_TEXT[SetupProblem.UNEVEN_NODES],
        ProblemKind.OFFLOAD_NEEDS_ZERO: PROBLEM_TEXT[SetupProblem.OFFLOAD_NEEDS_ZERO],
        ProblemKind.PARAMETER_OFFLOAD_NEEDS_ZERO3: PROBLEM_TEXT[
            SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3
        ],
        ProblemKind.EXPERTS_DATA: PROBLEM_TEXT[SetupProblem.EXPERT_PARALLEL_DATA],
        ProblemKind.EXPERTS_MESH: PROBLEM_TEXT[SetupProblem.EXPERT_MESH],
    }
)


#: the kinds that are layouts no framework runs (``memory.setup.setup_problem``)
SETUP_KINDS = frozenset(
    {
        ProblemKind.UNEVEN_NODES,
        ProblemKind.OFFLOAD_NEEDS_ZERO,
        ProblemKind.PARAMETER_OFFLOAD_NEEDS_ZERO3,
        ProblemKind.EXPERTS_DATA,
        ProblemKind.EXPERTS_MESH,
    }
)


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    #: the English sentence with the description's numbers (a ``Message``)
    message: Message

    @property
    def field(self) -> str:
        """The description's input it concerns."""
        return FIELD[self.kind]

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of a refusal: ``{framework, rule, message}`` (no framework)."""
        return {"framework": None, "rule": self.kind.value, "message": str(self.message)}


def problem_text(kind: ProblemKind, **values: Any) -> Message:
    """The sentence of ``kind`` with ``values`` (what the window says where it keeps the
    problem from arising, e.g. beside a switched-off check box)."""
    return _TEXT[kind].format(**values)


def _problem(kind: ProblemKind, **values: Any) -> Problem:
    return Problem(kind, problem_text(kind, **values))


def problems(d: TrainingDescription, model: ModelFacts | None) -> tuple[Problem, ...]:
    """Everything ``d`` asks for that its model, card or layout cannot give, in the
    order of ``ProblemKind`` (``model``: the description's, None when there is none)."""
    found: list[Problem] = []
    if d.fp8:
        if d.precision is Precision.FP32:
            found.append(_problem(ProblemKind.FP8_PRECISION))
        elif d.card is not None and not _has_fp8(d):
            found.append(_problem(ProblemKind.FP8_CARD, card=d.card.name))
    if d.attention is AttentionKernel.FLASH and d.card is not None and not _has_flash(d):
        found.append(_problem(ProblemKind.FLASH_CARD, card=d.card.name))
    if d.virtual_stages > 1 and d.pipeline_stages == 1:
        found.append(_problem(ProblemKind.VIRTUAL_STAGES))
    if d.sequence_parallel and d.tensor_parallel == 1:
        found.append(_problem(ProblemKind.SEQUENCE_PARALLEL))
    if d.tp_comm_overlap and not d.tp_overlapped:
        found.append(_problem(ProblemKind.TP_COMM_OVERLAP))
    if d.grad_reduce_bf16 and not d.bf16_gradients:
        found.append(_problem(ProblemKind.GRAD_REDUCE_BF16))
    if d.fused_loss and d.framework is Framework.MEGATRON:
        found.append(_problem(ProblemKind.FUSED_LOSS_MEGATRON))
    elif d.fused_loss and model is not None and not model.causal_lm:
        found.append(_problem(ProblemKind.FUSED_LOSS_HEAD))
    if d.recompute is Recompute.SELECTIVE_OP:
        if d.recompute not in d.framework.recomputations:
            name = "DeepSpeed" if d.framework is Framework.DEEPSPEED else "Megatron"
            found.append(_problem(ProblemKind.RECOMPUTE_PER_OP, framework=name))
        elif model is not None and model.has_shape and repeated_share(d, model) is None:
            found.append(_problem(ProblemKind.RECOMPUTE_PER_OP_MODEL))
    master = d.master_weights
    if master is not MasterWeights.FP32:
        if d.precision is not Precision.BF16:
            found.append(_problem(ProblemKind.MASTER_PRECISION, precision=d.precision.value))
        elif not d.framework.keeps(master):
            found.append(_problem(MASTER_KINDS[d.framework]))
    if d.world % d.nodes:
        found.append(_problem(ProblemKind.UNEVEN_NODES, gpus=d.world, nodes=d.nodes))
    if d.offload is not Offload.NONE and d.zero_stage is ZeroStage.NONE:
        found.append(_problem(ProblemKind.OFFLOAD_NEEDS_ZERO))
    elif d.offload is Offload.ALL and d.zero_stage is not ZeroStage.WEIGHTS:
        found.append(_problem(ProblemKind.PARAMETER_OFFLOAD_NEEDS_ZERO3))
    ep = d.expert_parallel
    if ep > 1 and model is not None:
        if model.experts is None:
            found.append(_problem(ProblemKind.EXPERTS_NOT_MOE, expert_parallel=ep))
        elif model.experts.experts % ep:
            found.append(
                _problem(
                    ProblemKind.EXPERTS_SPLIT, expert_parallel=ep, experts=model.experts.experts
                )
            )
    etp = d.expert_tensor_parallel
    if etp is not None and etp != d.tensor_parallel and d.framework is not Framework.MEGATRON:
        name = "DeepSpeed" if d.framework is Framework.DEEPSPEED else "FSDP2"
        found.append(_problem(ProblemKind.EXPERTS_TENSOR, framework=name))
    setup = d.shape
    if setup.expert_span % setup.expert_group:
        if d.framework is Framework.MEGATRON:
            found.append(
                _problem(ProblemKind.EXPERTS_MESH, group=setup.expert_group, span=setup.expert_span)
            )
        else:
            found.append(_problem(ProblemKind.EXPERTS_DATA, expert_parallel=ep, gpus=d.gpus))
    cp = d.context_parallel
    if cp > 1 and d.seq_len is not None and d.seq_len % (2 * cp):
        found.append(_problem(ProblemKind.CONTEXT_SPLIT, seq_len=d.seq_len, chunks=2 * cp))
    if model is not None:
        vision = model.vision
        if d.images is not None and (vision is None or not vision.takes_images):
            found.append(_problem(ProblemKind.IMAGES))
        if d.target_seq is not None and not model.encoder_decoder:
            found.append(_problem(ProblemKind.TARGET_SEQ))
        positions = model.learned_positions
        longest = max(d.seq_len or 0, d.target_seq or 0)
        if positions is not None and longest > positions:
            found.append(_problem(ProblemKind.SEQ_TOO_LONG, positions=positions, seq_len=longest))
    return tuple(found)


def _has_flash(d: TrainingDescription) -> bool:
    """The card runs FlashAttention 3 or 4 (Hopper, Blackwell; a custom card: unknown)."""
    assert d.card is not None
    performance = d.card.performance
    return performance is None or performance.generation.flash_kernel


def _has_fp8(d: TrainingDescription) -> bool:
    card = d.card
    assert card is not None
    if card.performance is None:  # a custom card whose speed was not given: unknown
        return True
    return card.performance.peak_tflops(Precision.BF16, fp8=True) is not None
