"""From what the description's fields and choices hold to a ``TrainingDescription``:
every refused entry the description needs is a problem (no plan until it is
corrected); a refused optional entry of the run is left out and said."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch import Rounding
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory import (
    Family,
    LoraTargets,
    ModelSource,
    ModelSpec,
    Offload,
    Precision,
    TypedShape,
    UnknownModelError,
    ZeroStage,
    facts,
)
from gradacc_desktop.core.memory.families import Architecture
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.time import (
    GpuCard,
    Recompute,
    SpeedProfile,
    custom_card,
    custom_performance,
)
from gradacc_desktop.core.training.description import (
    Method,
    Optimizer,
    RunBudget,
    TrainingDescription,
    nodes_of,
)
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.training.fields import (
    CONFIG_MODEL,
    NO_MODEL,
    PARAMS_MODEL,
    RUN_FIELDS,
    SHAPE_FIELDS,
    SHAPE_MODEL,
    SPEED_FIELDS,
    TrainingField,
)


@dataclass(frozen=True)
class OpenedConfig:
    """A config.json the user opened: what it describes, its name and its text."""

    arch: Architecture
    file_name: str
    text: str


@dataclass(frozen=True)
class Choices:
    """Everything the description's combo boxes (and the recommend box) hold."""

    model: str = NO_MODEL
    config: OpenedConfig | None = None
    family: Family = Family.LLAMA
    method: Method = Method.FULL
    lora_targets: LoraTargets = LoraTargets.QUERY_VALUE
    optimizer: Optimizer = Optimizer.ADAM
    precision: Precision = Precision.BF16
    master_weights: MasterWeights = MasterWeights.FP32
    #: FP8 matrix products, when the precision and the card allow them (``fp8_allowed``)
    fp8: bool = False
    #: the vision tower does not train (a model with one)
    vision_frozen: bool = False
    attention: AttentionKernel = AttentionKernel.SDPA
    #: Liger's fused linear cross-entropy, when the framework runs Hugging Face modules
    #: (``fused_loss_allowed``)
    fused_loss: bool = False
    #: a card id, or the custom card's
    card: str = ""
    #: Megatron's sequence parallelism, when tensor parallelism is used
    #: (``sequence_parallel_allowed``)
    sequence_parallel: bool = False
    #: Megatron's --tp-comm-overlap, when sequence parallelism runs under Megatron
    #: (``tp_comm_overlap_allowed``)
    tp_comm_overlap: bool = False
    #: Megatron's --grad-reduce-in-bf16, in bf16 training (``grad_reduce_bf16_allowed``)
    grad_reduce_bf16: bool = False
    framework: Framework = Framework.DEEPSPEED
    zero: ZeroStage = ZeroStage.NONE
    offload: Offload = Offload.NONE
    recompute: Recompute = Recompute.NONE
    rounding: Rounding = Rounding.CEIL
    recommend: bool = True


@dataclass(frozen=True)
class BuiltDescription:
    #: None while a needed entry is refused (see ``problems``)
    description: TrainingDescription | None
    problems: tuple[str, ...]
    #: refused optional entries of the run, left out of ``description``
    run_problems: tuple[str, ...]


class InvalidShape(ValueError):
    """Sizes that describe no model (the message is already worded)."""


#: the typed sizes' own rules, worded: (family, hidden, heads, key/value heads) -> why not
ShapeCheck = Callable[[Family, int, int, int], str]


def model_spec(
    choices: Choices, entries: Entries[TrainingField], shape_problem: ShapeCheck
) -> ModelSpec | None:
    key = choices.model
    if key == NO_MODEL:
        return None
    if key == CONFIG_MODEL:
        if choices.config is None:
            return None
        c = choices.config
        return ModelSpec(ModelSource.CONFIG, arch=c.arch, file_name=c.file_name, text=c.text)
    if key == PARAMS_MODEL:
        params = entries.accepted(TrainingField.MODEL_PARAMS)
        return None if params is None else ModelSpec.typed_params(int(params))
    if key == SHAPE_MODEL:
        values = [entries.accepted(f) for f in SHAPE_FIELDS]
        if any(v is None for v in values):
            return None
        hidden, layers, heads, kv, intermediate, vocab, positions = (int(v or 0) for v in values)
        problem = shape_problem(choices.family, hidden, heads, kv)
        if problem:
            raise InvalidShape(problem)
        return ModelSpec.typed_shape(
            TypedShape(choices.family, hidden, layers, heads, kv, intermediate, vocab, positions)
        )
    try:
        return ModelSpec.bundled(key)
    except UnknownModelError:
        return None


def fp8_allowed(precision: Precision, card: GpuCard | None) -> bool:
    """Whether FP8 products can be chosen: 16-bit training on a card with an FP8 peak."""
    if precision is Precision.FP32 or card is None or card.performance is None:
        return False
    return card.performance.peak_tflops(Precision.BF16, fp8=True) is not None


def fused_loss_allowed(framework: Framework) -> bool:
    """Whether the fused loss can be chosen: a framework that runs Hugging Face modules
    (Megatron runs its own head and loss)."""
    return framework is not Framework.MEGATRON


def sequence_parallel_allowed(entries: Entries[TrainingField]) -> bool:
    """Whether sequence parallelism can be chosen: tensor parallelism over more than one
    GPU (it splits the tokens over the tensor-parallel group)."""
    size = entries.accepted(TrainingField.TENSOR_PARALLEL)
    return size is not None and size > 1


def tp_comm_overlap_allowed(choices: Choices, entries: Entries[TrainingField]) -> bool:
    """Whether Megatron's tensor-parallel overlap can be chosen: Megatron, with sequence
    parallelism over two or more tensor-parallel GPUs (the collectives it overlaps)."""
    size = entries.accepted(TrainingField.TENSOR_PARALLEL)
    return choices.framework.overlaps_tensor_parallel(
        choices.sequence_parallel, 1 if size is None else int(size)
    )


def grad_reduce_bf16_allowed(choices: Choices) -> bool:
    """Whether Megatron's bf16 gradients can be chosen: Megatron, in bf16 training (its
    fp32 gradient buffer is what the switch replaces)."""
    return choices.framework.reduces_bf16_gradients(choices.precision)


def has_experts(spec: ModelSpec | None) -> bool:
    """Whether the model routes tokens to experts (the expert-parallel GPUs are read)."""
    if spec is None:
        return False
    try:
        return facts(spec).experts is not None
    except UnknownModelError:
        return False


def folds_experts(choices: Choices, spec: ModelSpec | None) -> bool:
    """Whether the description reads Megatron's expert tensor parallelism: a mixture of
    experts under Megatron."""
    return has_experts(spec) and choices.framework is Framework.MEGATRON


def pipelined(entries: Entries[TrainingField]) -> bool:
    """Whether the pipeline stages hold more than one (the virtual stages are read)."""
    stages = entries.accepted(TrainingField.PIPELINE_STAGES)
    return stages is not None and stages > 1


def needed(
    choices: Choices, cards: tuple[GpuCard, ...], entries: Entries[TrainingField]
) -> list[TrainingField]:
    """The fields the description reads now (each must hold an accepted number)."""
    fields = [
        TrainingField.TARGET,
        TrainingField.GPUS,
        TrainingField.TENSOR_PARALLEL,
        TrainingField.PIPELINE_STAGES,
        TrainingField.CONTEXT_PARALLEL,
        TrainingField.OVERHEAD,
    ]
    if pipelined(entries):
        fields.append(TrainingField.VIRTUAL_STAGES)
    if not choices.recommend:
        fields.append(TrainingField.MICRO_BATCH)
    if not any(c.id == choices.card for c in cards):
        fields.append(TrainingField.GPU_MEMORY)
    if choices.model == PARAMS_MODEL:
        fields.append(TrainingField.MODEL_PARAMS)
    if choices.model == SHAPE_MODEL:
        fields += SHAPE_FIELDS
    if choices.method.adapters:
        fields.append(TrainingField.LORA_RANK)
    return fields


def build(
    choices: Choices,
    entries: Entries[TrainingField],
    cards: tuple[GpuCard, ...],
    profile: SpeedProfile | None,
    shape_words: ShapeCheck,
) -> BuiltDescription:
    e = entries
    required = needed(choices, cards, e)
    # entries the description reads when they hold something (empty is fine)
    optional = [
        TrainingField.SEQ_LEN,
        TrainingField.TARGET_SEQ,
        TrainingField.ACTIVATION,
        TrainingField.OTHER_MEMORY,
        TrainingField.TRAINABLE_PARAMS,
        TrainingField.NODES,
    ]
    problems = [p for f in required if (p := e.problem(f)) is not None]
    problems += [p for f in optional if e.entry(f) is not None and (p := e.problem(f)) is not None]
    # the custom card's speed is read only while the custom card is chosen
    custom = all(c.id != choices.card for c in cards)
    run_fields = [f for f in RUN_FIELDS if custom or f not in SPEED_FIELDS]
    run_problems = tuple(p for f in run_fields if (p := e.optional_value(f)[1]) is not None)
    try:
        spec = model_spec(choices, e, shape_words)
    except InvalidShape as exc:
        problems.append(str(exc))
        spec = None
    routed = has_experts(spec)
    if routed and (problem := e.problem(TrainingField.EXPERT_PARALLEL)) is not None:
        problems.append(problem)
    # Megatron's expert tensor parallelism, read for a mixture of experts under Megatron
    folds = folds_experts(choices, spec)
    etp = TrainingField.EXPERT_TENSOR_PARALLEL
    if folds and e.entry(etp) is not None and (problem := e.problem(etp)) is not None:
        problems.append(problem)
    if problems:
        return BuiltDescription(None, tuple(problems), run_problems)

    def whole(field: TrainingField) -> int | None:
        value = e.accepted(field)
        return None if value is None else int(value)

    def number(field: TrainingField) -> Decimal:
        value = e.accepted(field)
        assert value is not None
        return value

    card = next((c for c in cards if c.id == choices.card), None)
    if card is None:
        speed = [e.optional_value(f)[0] for f in SPEED_FIELDS]
        performance = None
        if all(v is not None for v in speed):
            tflops, bandwidth, link, network = (v for v in speed if v is not None)
            performance = custom_performance(tflops, bandwidth, link, network)
        card = custom_card(number(TrainingField.GPU_MEMORY), performance)
    efficiency = e.optional_value(TrainingField.EFFICIENCY)[0]
    goodput = e.optional_value(TrainingField.GOODPUT)[0]
    virtual = whole(TrainingField.VIRTUAL_STAGES) if pipelined(e) else None
    experts = whole(TrainingField.EXPERT_PARALLEL) if routed else None
    expert_tensor = whole(TrainingField.EXPERT_TENSOR_PARALLEL) if folds else None

    description = TrainingDescription(
        model=spec,
        method=choices.method,
        lora_rank=whole(TrainingField.LORA_RANK) or 16,
        lora_targets=choices.lora_targets,
        trainable_params=whole(TrainingField.TRAINABLE_PARAMS),
        precision=choices.precision,
        fp8=choices.fp8 and fp8_allowed(choices.precision, card),
        optimizer=choices.optimizer,
        master_weights=choices.master_weights,
        seq_len=whole(TrainingField.SEQ_LEN),
        target_seq=whole(TrainingField.TARGET_SEQ),
        images=whole(TrainingField.IMAGES),
        image_width=whole(TrainingField.IMAGE_WIDTH),
        image_height=whole(TrainingField.IMAGE_HEIGHT),
        vision_frozen=choices.vision_frozen,
        attention=choices.attention,
        fused_loss=choices.fused_loss and fused_loss_allowed(choices.framework),
        card=card,
        gpus=int(number(TrainingField.GPUS)),
        nodes=nodes_of(
            whole(TrainingField.NODES),
            int(number(TrainingField.GPUS)),
            int(number(TrainingField.TENSOR_PARALLEL)),
            int(number(TrainingField.PIPELINE_STAGES)),
            int(number(TrainingField.CONTEXT_PARALLEL)),
        ),
        tensor_parallel=int(number(TrainingField.TENSOR_PARALLEL)),
        pipeline_stages=int(number(TrainingField.PIPELINE_STAGES)),
        virtual_stages=virtual or 1,
        expert_parallel=experts or 1,
        expert_tensor_parallel=expert_tensor,
        context_parallel=int(number(TrainingField.CONTEXT_PARALLEL)),
        zero_stage=choices.zero,
        offload=choices.offload,
        recompute=choices.recompute,
        framework=choices.framework,
        sequence_parallel=choices.sequence_parallel and sequence_parallel_allowed(e),
        tp_comm_overlap=choices.tp_comm_overlap and tp_comm_overlap_allowed(choices, e),
        grad_reduce_bf16=choices.grad_reduce_bf16 and grad_reduce_bf16_allowed(choices),
        target_batch=int(number(TrainingField.TARGET)),
        rounding=choices.rounding,
        micro_batch=None if choices.recommend else int(number(TrainingField.MICRO_BATCH)),
        activation_gb=e.accepted(TrainingField.ACTIVATION),
        other_memory_gb=e.accepted(TrainingField.OTHER_MEMORY),
        overhead_gb=number(TrainingField.OVERHEAD),
        efficiency=None if efficiency is None else efficiency / 100,
        link_gbps=e.optional_value(TrainingField.LINK)[0],
        network_gbps=e.optional_value(TrainingField.NETWORK)[0],
        cpu_memory_gb=e.optional_value(TrainingField.CPU_MEMORY)[0],
        profile=profile,
        run=RunBudget(
            dataset_samples=_int(e.optional_value(TrainingField.DATASET)[0]),
            epochs=_int(e.optional_value(TrainingField.EPOCHS)[0]),
            tokens=_int(e.optional_value(TrainingField.TOKENS)[0]),
            price_per_gpu_hour=e.optional_value(TrainingField.PRICE)[0],
            goodput=None if goodput is None else goodput / 100,
        ),
    )
    return BuiltDescription(description, (), run_problems)


def _int(value: Decimal | None) -> int | None:
    return None if value is None else int(value)
