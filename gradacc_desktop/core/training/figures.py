"""The memory figures a training description fixes, in bytes.

* **Activation per sample** — one sample of the whole model on one GPU, the activation
  estimator's modelled peak (``core.memory.activation.estimate``, Hugging Face profile, SDPA,
  the description's precision and recomputation), exactly ``gradacc activation``'s
  ``peak_bytes_per_sample``. The first pipeline stage's GPU holds it divided by the
  tensor-parallel size (``p`` micro-batches of ``1/p`` of the layers: ``stage_peak``)
  and by the context-parallel size (each of the ``cp`` GPUs keeps ``s/cp`` tokens of every layer:
  Korthikanti et al.'s activations are linear in the tokens with a fused attention).
* **Model states per GPU** — weights, gradients and optimizer states as DeepSpeed's
  estimators count them (``core.memory.model_states``), for the method (LoRA/QLoRA adapters on a
  frozen base), the optimizer, the precision, the ZeRO stage and offload; with tensor and
  pipeline parallelism, for one GPU's shard of the parameters; with expert parallelism,
  the dense shard plus ``1/EP`` of a mixture of experts' routed experts, each part
  partitioned by ZeRO over its own replicas (dense over dp, experts over dp/EP); with
  context parallelism the partitions run over ``dp · cp`` ranks (megatron-core's
  distributed optimizer and gradient reduction use the data-parallel group "with
  context parallel", ``parallel_state.get_data_parallel_group(with_context_parallel=
  True)``; FSDP2 meshes shard over ``dp_shard · cp`` the same way in torchtitan).
  **Other memory** is model states plus the framework overhead.
* **Usable memory** — the card's.

A figure typed in the description is used as given, and the derived one is still
reported beside it. What cannot be derived says why (``Missing``).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

from ..framework import Framework
from ..memory.activation import (
    Accounting,
    Device,
    Inputs,
    Part,
    Result,
    estimate,
    repeated_products,
)
from ..memory.families.vision_facts import DEFAULT_IMAGES
from ..memory.framework_states import framework_states
from ..memory.lora import base_weight_bytes_per_param
from ..memory.model_states import ModelStates
from ..memory.models import ModelFacts, UnknownModelError, facts
from ..memory.pipeline_split import StageShare, heaviest_stage
from ..memory.setup import SetupProblem, setup_problem
from ..recompute import Recompute
from ..time.compute import TokenCost, token_cost
from .description import OPTIMIZER_STATE_BYTES, TrainingDescription

__all__ = [
    "GB",
    "Figure",
    "Figures",
    "Missing",
    "Source",
    "figures",
    "repeated_share",
    "shown_gb",
    "to_bytes",
]

GB = 10**9


class Source(enum.Enum):
    ESTIMATED = "estimated"
    GIVEN = "given"
    MISSING = "missing"


class Missing(enum.Enum):
    """Why a figure is not derived."""

    NO_MODEL = "no_model"
    NO_SEQ_LEN = "no_seq_len"
    #: a bare parameter count: the activation needs the model's shape
    NO_SHAPE = "no_shape"
    #: longer than the model's learned position table
    SEQ_TOO_LONG = "seq_too_long"
    #: the estimator does not model this model (``Figure.detail`` says why)
    NOT_ESTIMATED = "not_estimated"
    #: per-op selective recomputation is not modelled for the model (a problem says so)
    RECOMPUTE = "recompute"
    #: adapters on a model whose projections are not known, and no trainable count typed
    LORA_NOT_SIZED = "lora_not_sized"
    #: no framework runs the layout (``Figures.setup_problem`` says which rule)
    LAYOUT = "layout"
    #: a custom card whose memory was not given
    NO_CAPACITY = "no_capacity"
    #: a bundled model this build does not ship (an old scenario)
    UNKNOWN_MODEL = "unknown_model"


@dataclass(frozen=True)
class Figure:
    #: what the plan uses (None: neither derived nor given)
    bytes: int | None
    source: Source
    #: what the description derives (None: it cannot, see ``missing``)
    derived: int | None = None
    missing: Missing | None = None
    #: English detail of ``missing`` (the estimator's refusal)
    detail: str = ""

    @property
    def overridden(self) -> bool:
        """Typed over a value the description derives."""
        return self.source is Source.GIVEN and self.derived is not None


#: what the caching allocator reserves beyond what the tensors hold, per framework (its
#: blocks are rounded up and freed ones kept for reuse): Megatron's from the measured
#: reserved over allocated peaks of benchmarks/measured_runs.json (SimuMax's 43 B200
#: runs: 1.03 to 1.09, median 1.04); FSDP2's gathers and frees a layer's weights at a
#: time (10 %); DeepSpeed's is the overhead's share, as DeepSpeed's own estimators leave
#: it (the per-GPU figure stays today's: model states + activations + overhead)
ALLOCATOR_SLACK = {
    Framework.DEEPSPEED: Fraction(0),
    Framework.MEGATRON: Fraction(4, 100),
    Framework.FSDP: Fraction(10, 100),
}

#: the parts of a sample's activations outside the layers that the first pipeline stage
#: holds (the embeddings' side); the others are the last stage's (the norm, the head, the
#: loss)
_FIRST_STAGE = frozenset(
    {
        Part.EMBEDDINGS,
        Part.ROTARY,
        Part.CAUSAL_MASK,
        Part.SHARED_MASK,
        Part.SHARED_POSITION_BIAS,
        Part.EMBEDDING_PROJECTION,
        Part.VISION_EMBEDDINGS,
    }
)


def stage_peak(result: Result, stages: int, interleaving: Fraction) -> Fraction:
    """One sample's activation peak on the pipeline stage that holds the most: the first
    keeps ``p`` micro-batches of its ``1/p`` of the layers in flight (more with virtual
    stages) and the embeddings' side, the last one micro-batch of its layers, the head,
    the loss and the logits; every stage recomputes one layer at a time. One stage: the
    estimator's peak."""
    if stages == 1:
        return Fraction(result.peak_bytes)
    layers = sum((i.total for i in result.breakdown if i.stack is not None), 0)
    first = sum((i.total for i in result.breakdown if i.stack is None and i.key in _FIRST_STAGE), 0)
    last = sum(
        (i.total for i in result.breakdown if i.stack is None and i.key not in _FIRST_STAGE), 0
    )
    logits = sum((i.total for i in result.peak_extra if i.key is Part.LOGITS_TRANSIENT), 0)
    again = sum((i.total for i in result.peak_extra if i.key is not Part.LOGITS_TRANSIENT), 0)
    first_stage = layers * interleaving + first + again
    last_stage = Fraction(layers, stages) + last + logits + again
    return max(first_stage, last_stage)


@dataclass(frozen=True)
class Figures:
    facts: ModelFacts | None
    #: one sample of the whole model on one GPU
    activation: Figure
    #: the estimate behind a derived activation (its breakdown, assumptions)
    estimate: Result | None
    #: per GPU (the derived model states; kept when other memory is typed over)
    states: ModelStates | None
    #: parameters the method trains (LoRA: the adapters)
    trainable: int | None
    overhead_bytes: int
    #: everything but activations, per GPU, as the card holds it (reserved)
    other: Figure
    usable_bytes: int | None
    tensor_parallel: int
    setup_problem: SetupProblem | None
    #: the first stage's activations over plain 1F1B's (interleaved 1F1B holds more)
    interleaving: Fraction = Fraction(1)
    #: GPUs each sequence is split over (each keeps 1/cp of its activations)
    context_parallel: int = 1
    #: one sample's activations on the GPU that holds the most, allocated (None: from
    #: the activation per sample, A / (tp · cp) on the first stage)
    stage_share: Fraction | None = None
    #: the caching allocator's reserve over what the tensors hold
    slack: Fraction = Fraction(0)
    #: Megatron's uneven pipeline split: what the stage the states are counted for holds
    #: (None: every stage holds an even share)
    pipeline_stage: StageShare | None = None
    #: the share of the layers' products the backward computes again (None: per-op
    #: selective recomputation, not modelled for the model)
    repeated: Fraction | None = Fraction(0)

    @property
    def known(self) -> bool:
        """Every figure a memory verdict needs is there."""
        return None not in (self.activation.bytes, self.other.bytes, self.usable_bytes)

    @cached_property
    def allocated_share(self) -> Fraction | None:
        """One sample's activation bytes on the GPU that holds the most, as its tensors
        hold them: the stage peak (``stage_peak``, scaled by a typed figure over the
        derived one), or A / (tp · cp) on the first stage (times ``1 + (p − 1)/(p·v)``
        with ``v`` virtual stages) when A is typed and nothing is derived."""
        if self.activation.bytes is None:
            return None
        derived = self.activation.derived
        if self.stage_share is not None and derived:
            # a typed figure scales the derived share: typing the derived one changes
            # nothing
            return self.stage_share * Fraction(self.activation.bytes, derived)
        shards = self.tensor_parallel * self.context_parallel
        return Fraction(self.activation.bytes, shards) * self.interleaving

    @cached_property
    def activation_per_gpu(self) -> Fraction | None:
        """One sample's bytes on the GPU that holds the most, as the card holds them
        (the allocator's reserve included)."""
        share = self.allocated_share
        return None if share is None else share * (1 + self.slack)

    def per_gpu_bytes(self, micro_batch: int) -> int | None:
        """Other memory + b · the activation per GPU, rounded up to a whole byte: what
        the card must hold (the figure "fits" compares)."""
        share = self.activation_per_gpu
        if share is None or self.other.bytes is None:
            return None
        return self.other.bytes + math.ceil(micro_batch * share)

    def allocated_bytes(self, micro_batch: int) -> int | None:
        """What the tensors hold at the peak (``torch.cuda.max_memory_allocated``): the
        per-GPU figure without the overhead (the CUDA context) and the allocator's
        reserve; model states + b · the activation per GPU when both are derived."""
        total = self.per_gpu_bytes(micro_batch)
        if total is None or total < self.overhead_bytes:
            return None
        return math.floor((total - self.overhead_bytes) / (1 + self.slack))

    def token_cost(self, d: TrainingDescription, seq: int | None) -> TokenCost | None:
        """FLOPs per token of ``d``'s model: 6N (4N + 6T for adapters), plus the attention
        term at ``seq`` (None: without it), with what the recomputation repeats; None
        without the model or with a recomputation not modelled for it."""
        model = self.facts
        if model is None or self.repeated is None:
            return None
        adapters = d.method.adapters and isinstance(self.trainable, int)
        trained = self.trainable if adapters else None
        shape = None if seq is None else model.attention_shape
        at = None if shape is None else seq
        return token_cost(model.compute_params, shape, at, d.recomputed, trained, self.repeated)

    def max_micro_batch(self) -> int | None:
        """The largest b with other + b · the activation per GPU <= usable (0: not even
        one sample)."""
        share = self.activation_per_gpu
        if share is None or self.other.bytes is None or self.usable_bytes is None:
            return None
        free = self.usable_bytes - self.other.bytes
        if free < 0:
            return 0
        if share == 0:
            raise ValueError("the activation per sample must be more than 0 bytes")
        return math.floor(free / share)


def shown_gb(nbytes: int) -> Decimal:
    """Bytes as decimal GB to the MB, rounded up: a memory figure is never shown lower
    than it is (the one rule for every GB a user reads of a derived figure)."""
    return (-(-nbytes // 10**6) * Decimal("0.001")).normalize()


def shown_free_gb(nbytes: int) -> Decimal:
    """Free memory (the headroom) as decimal GB to the MB, rounded down: what is left is
    never shown higher than it is, and a total shown rounded up plus the headroom shown
    rounded down is the memory they share."""
    return ((nbytes // 10**6) * Decimal("0.001")).normalize()


def to_bytes(gb: Decimal) -> int:
    """Decimal GB to whole bytes (rounded up past the ninth decimal)."""
    return math.ceil(Fraction(gb) * GB)


@lru_cache(maxsize=128)
def _estimate(inputs: Inputs) -> Result:
    """The estimator is the costly part: the same model, length and options are
    estimated once (a search asks for them for every layout)."""
    return estimate(inputs)


def _activation(
    description: TrainingDescription, model: ModelFacts | None
) -> tuple[int | None, Result | None, Missing | None, str]:
    """(bytes, estimate, why not, detail) of the derived activation per sample."""
    if model is None:
        return None, None, Missing.NO_MODEL, ""
    if not model.has_shape:
        return None, None, Missing.NO_SHAPE, ""
    seq = description.seq_len
    if seq is None:
        return None, None, Missing.NO_SEQ_LEN, ""
    longest = max(seq, description.target_seq or 0)  # an encoder-decoder's target too
    if model.learned_positions is not None and longest > model.learned_positions:
        return None, None, Missing.SEQ_TOO_LONG, str(model.learned_positions)
    inputs = model.activation_inputs(
        seq,
        description.target_seq,
        dtype=description.precision,
        recompute=description.recomputed,
        attention=description.attention.kept,
        fused_loss=description.loss_fused,
        profile=Accounting.HF,
        device=Device.CUDA,
        **image_options(description, model),
    )
    assert inputs is not None
    try:
        result = _estimate(inputs)
    except ValueError as exc:  # InvalidActivationInputs: a shape the estimator refuses
        field = getattr(exc, "field", "")
        why = Missing.RECOMPUTE if field == "recompute" else Missing.NOT_ESTIMATED
        return None, None, why, str(exc)
    return result.peak_bytes, result, None, ""


def _per_rank(
    description: TrainingDescription, model: ModelFacts, result: Result
) -> tuple[Result, bool]:
    """What one tensor-parallel rank keeps per sample, as the framework keeps it, and
    whether that is still the whole model's, for the caller to divide by the ranks.

    Megatron keeps what Korthikanti et al. 2022 count (the estimator's paper accounting:
    its fused kernels, the norms, dropouts and residuals on 1/tp of the tokens only with
    sequence parallelism), where the paper accounting covers the model (GPT-2- and
    Llama-shaped layers). DeepSpeed's AutoTP splits only the linear layers: a rank keeps
    what the Hugging Face modules save with the projections and attention on 1/tp and
    the norms and residuals whole (the estimator's own tensor-parallel accounting, the
    figure ``gradacc activation --tensor-parallel`` gives). FSDP's tensor parallelism
    (torchtitan's plan) shards the norms' tokens too (sequence parallelism): what the
    modules save, split evenly over the ranks — returned whole, the caller divides it
    (the measured torchtitan runs agree: docs/MEMORY.md). So is any shape the estimator
    does not split (heads that do not divide, a family it does not split); under
    Megatron its eager attention then keeps the softmax as Megatron's fused kernel does
    (``Inputs.fused_softmax``)."""
    d = description
    megatron = d.framework is Framework.MEGATRON
    autotp = d.framework is Framework.DEEPSPEED and d.tensor_parallel > 1
    if d.seq_len is None or not (megatron or autotp):
        return result, True
    whole = result
    if megatron and not d.attention.fused:
        whole = _estimate(replace(result.inputs, fused_softmax=True))
    inputs = model.activation_inputs(
        d.seq_len,
        d.target_seq,
        dtype=d.precision,
        recompute=d.recomputed,
        attention=d.attention.kept,
        fused_loss=d.loss_fused,
        profile=Accounting.PAPER if megatron else Accounting.HF,
        device=Device.CUDA,
        tensor_parallel=d.tensor_parallel,
        sequence_parallel=megatron and d.sequence_parallel and d.tensor_parallel > 1,
        **image_options(d, model),
    )
    if inputs is None:
        return whole, True
    try:
        return _estimate(inputs), False
    except ValueError:  # not a shape the accounting splits: the modules' even split
        return whole, True


def image_options(description: TrainingDescription, model: ModelFacts) -> dict[str, Any]:
    """The activation estimator's image inputs for ``model`` (none without a tower): one
    image per sample unless told, at the model's own size unless told."""
    vision = model.vision
    if vision is None:
        return {}
    options: dict[str, Any] = {"vision_frozen": description.vision_frozen}
    if vision.takes_images:
        given = description.images
        options["images"] = DEFAULT_IMAGES if given is None else given
    if vision.resizable:
        width, height = vision.default_size
        options["image_width"] = description.image_width or width
        options["image_height"] = description.image_height or height
    return options


def _trainable(description: TrainingDescription, model: ModelFacts) -> int | Missing:
    """Parameters the method trains: every one (but a frozen vision tower's), or
    LoRA's adapters."""
    if not description.method.adapters:
        trained = model.params - model.frozen_params
        if description.vision_frozen and model.vision is not None:
            return trained - model.vision.tower_params
        return trained
    if model.lora is not None:
        try:
            return model.lora.trainable(description.lora_rank, description.lora_targets)
        except ValueError:  # target names the model does not have (checked by the callers)
            return Missing.LORA_NOT_SIZED
    if description.trainable_params is not None:
        return description.trainable_params
    return Missing.LORA_NOT_SIZED


def _megatron_stage(d: TrainingDescription, model: ModelFacts) -> StageShare | None:
    """Megatron's pipeline GPU that holds the most (None: an even share per stage)."""
    if d.framework is not Framework.MEGATRON:
        return None
    return heaviest_stage(model, d.pipeline_stages, d.layout.virtual)


def _states(description: TrainingDescription, model: ModelFacts, trainable: int) -> ModelStates:
    """The framework's rules for one GPU's shard of the model: ``1/tp`` of the pipeline
    stage that holds the most (an even ``1/pp`` share, or Megatron's split:
    ``pipeline_split``)."""
    d = description
    stage = _megatron_stage(d, model)
    # of the whole model, the part one GPU holds
    share = Fraction(1, d.model_parallel)
    if stage is not None:
        share = Fraction(stage.params, model.params * d.tensor_parallel)
    # how many times more ways the routed experts are split than the dense weights:
    # EP × the expert tensor-parallel size over the tensor-parallel size
    experts, ep = model.experts, d.shape.expert_spread
    largest = model.largest_layer or 0
    spread = 0  # the routed experts of one GPU's shard (before expert parallelism)
    if experts is not None and ep != 1:
        largest = experts.largest_layer(ep)
        held = experts.params if stage is None else stage.experts * d.pipeline_stages
        spread = math.ceil(Fraction(held, d.model_parallel))
    if d.method.adapters:
        if model.lora is not None:
            frozen = model.lora.frozen_bytes(d.base_format)
        else:  # no shape: every frozen weight at the base format's rate
            frozen = model.params * base_weight_bytes_per_param(d.base_format)
        total = model.params + trainable
    else:
        frozen = None
        total = model.params
    mp = d.model_parallel
    return framework_states(
        d.framework,
        math.ceil(total * share),
        d.gpus,
        d.zero_stage,
        d.offload,
        d.precision,
        nodes=d.nodes,
        largest_layer=math.ceil(Fraction(largest, mp)),
        optimizer_state_bytes=OPTIMIZER_STATE_BYTES[d.optimizer],
        trainable=min(math.ceil(trainable * share), math.ceil(total * share)),
        frozen_weight_bytes=None if frozen is None else frozen * share,
        model_parallel=mp,
        experts=spread,
        expert_parallel=ep if spread else 1,
        context_parallel=d.context_parallel,
        master=d.master,
        bf16_gradients=d.bf16_gradients,
    )


def figures(description: TrainingDescription, model: ModelFacts | None = None) -> Figures:
    """Every memory figure ``description`` fixes (see the module's docstring); ``model``:
    the facts of ``description.model`` when the caller already has them."""
    d = description
    unknown = False
    if model is None and d.model is not None:
        try:
            model = facts(d.model)
        except UnknownModelError:
            unknown = True
    problem = setup_problem(d.shape)

    # activation per sample
    derived, result, missing, detail = _activation(d, model)
    if unknown:
        missing = Missing.UNKNOWN_MODEL
    if d.activation_gb is not None:
        activation = Figure(to_bytes(d.activation_gb), Source.GIVEN, derived, missing, detail)
    elif derived is not None:
        activation = Figure(derived, Source.ESTIMATED, derived)
    else:
        activation = Figure(None, Source.MISSING, None, missing, detail)

    # model states and other memory per GPU
    overhead = to_bytes(d.overhead_gb)
    states: ModelStates | None = None
    trainable: int | None = None
    why: Missing | None = Missing.UNKNOWN_MODEL if unknown else Missing.NO_MODEL
    if problem is not None:
        why = Missing.LAYOUT
    elif model is not None and d.expert_problem(model) is not None:
        why = Missing.LAYOUT  # expert parallelism on a model whose experts it cannot spread
    elif d.context_problem() is not None:
        why = Missing.LAYOUT  # a sequence the context-parallel GPUs cannot split evenly
    elif model is not None:
        counted = _trainable(d, model)
        if isinstance(counted, Missing):
            why = counted
        else:
            trainable = counted
            states = _states(d, model, counted)
            why = None
    slack = ALLOCATOR_SLACK[d.framework]
    derived_other = None
    if states is not None:
        derived_other = math.ceil(states.gpu_bytes * (1 + slack)) + overhead
    share = None
    if result is not None and model is not None:
        ranked, whole = _per_rank(d, model, result)
        shards = d.context_parallel * (d.tensor_parallel if whole else 1)
        share = stage_peak(ranked, d.pipeline_stages, d.layout.interleaving) / shards
    if d.other_memory_gb is not None:
        other = Figure(to_bytes(d.other_memory_gb), Source.GIVEN, derived_other, why)
    elif derived_other is not None:
        other = Figure(derived_other, Source.ESTIMATED, derived_other)
    else:
        other = Figure(None, Source.MISSING, None, why)

    usable = None if d.card is None else to_bytes(d.card.usable_gb)
    return Figures(
        facts=model,
        activation=activation,
        estimate=result,
        states=states,
        trainable=trainable,
        overhead_bytes=overhead,
        other=other,
        usable_bytes=usable,
        tensor_parallel=d.tensor_parallel,
        setup_problem=problem,
        interleaving=d.layout.interleaving,
        context_parallel=d.context_parallel,
        stage_share=share,
        slack=slack,
        pipeline_stage=None if model is None else _megatron_stage(d, model),
        repeated=repeated_share(d, model),
    )


@lru_cache(maxsize=128)
def _repeated_share(inputs: Inputs) -> Fraction | None:
    try:
        return repeated_products(inputs)
    except ValueError:  # InvalidActivationInputs: not modelled for the model
        return None


def repeated_share(d: TrainingDescription, model: ModelFacts | None) -> Fraction | None:
    """The share of the layers' products ``d``'s recomputation repeats (None: per-op
    selective recomputation, not modelled for the model, its attention or dropout)."""
    recompute = d.recomputed
    if recompute is not Recompute.SELECTIVE_OP:
        return Fraction(1 if recompute.repeats_layers else 0)
    if model is None or not model.has_shape:
        return None
    inputs = model.activation_inputs(
        d.seq_len or 1,
        recompute=recompute,
        attention=d.attention.kept,
        dtype=d.precision,
        profile=Accounting.HF,
        device=Device.CUDA,
    )
    return None if inputs is None else _repeated_share(inputs)
