"""The description's choices without Qt: what a choice holds, what picking a value
makes of the choices, what applying a whole description puts in the choices and the
fields, and which fields and choices the description shows."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from decimal import Decimal
from typing import Any

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
    ZeroStage,
    catalogue,
    facts,
)
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.time import (
    CUSTOM_ID,
    GpuCard,
    GpuTable,
    GpuTableError,
    Recompute,
    custom_card,
    custom_performance,
    load_gpu_table,
)
from gradacc_desktop.core.training.description import Method, Optimizer, TrainingDescription
from gradacc_desktop.core.training.plan import Plan
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.training.build import Choices, fp8_allowed
from gradacc_desktop.viewmodels.training.fields import (
    CONFIG_MODEL,
    DEFAULT_CARD,
    DEFAULT_CUSTOM_GB,
    IMAGE_FIELDS,
    NO_MODEL,
    PARAMS_MODEL,
    SHAPE_FIELDS,
    SHAPE_MODEL,
    SPEED_FIELDS,
    Choice,
    TrainingField,
)
from gradacc_desktop.viewmodels.training.texts import TrainingTexts

_log = logging.getLogger(__name__)

#: what can go in a choice (``TrainingViewModel.set_choice``)
ChoiceValue = object

#: the choices that hold one member of an enum: the Choices attribute and the enum
ENUM_CHOICES: dict[Choice, tuple[str, Callable[[Any], Any]]] = {
    Choice.ATTENTION: ("attention", AttentionKernel),
    Choice.FAMILY: ("family", Family),
    Choice.METHOD: ("method", Method),
    Choice.LORA_TARGETS: ("lora_targets", LoraTargets),
    Choice.OPTIMIZER: ("optimizer", Optimizer),
    Choice.PRECISION: ("precision", Precision),
    Choice.MASTER_WEIGHTS: ("master_weights", MasterWeights),
    Choice.FRAMEWORK: ("framework", Framework),
    Choice.ZERO: ("zero", ZeroStage),
    Choice.OFFLOAD: ("offload", Offload),
    Choice.RECOMPUTE: ("recompute", Recompute),
    Choice.ROUNDING: ("rounding", Rounding),
}


def refused_choices(plan: Plan | None) -> frozenset[Choice]:
    """The choices a problem of the plan's description concerns (the window marks their
    labels, as it marks a refused field's)."""
    fields = set() if plan is None else {p.field for p in plan.problems}
    return frozenset(c for c, (key, _) in ENUM_CHOICES.items() if key in fields)


def table_cards(gpu_table: GpuTable | None) -> tuple[GpuCard, ...]:
    """The cards of ``gpu_table``, else of the bundled table (none when it is broken:
    only the custom card is offered then)."""
    if gpu_table is None:
        try:
            gpu_table = load_gpu_table()
        except GpuTableError as exc:  # a broken bundle leaves the custom card
            _log.warning("GPU table not usable, only the custom card is offered: %s", exc)
    return gpu_table.cards if gpu_table else ()


def first_card(cards: tuple[GpuCard, ...]) -> str:
    """The card chosen at first: the default one, else the table's first, else custom."""
    ids = [c.id for c in cards]
    return DEFAULT_CARD if DEFAULT_CARD in ids else (ids[0] if ids else CUSTOM_ID)


def choice_value(c: Choices, choice: Choice) -> ChoiceValue:
    """What ``choice`` holds in ``c``."""
    return {
        Choice.MODEL: c.model,
        Choice.FAMILY: c.family,
        Choice.METHOD: c.method,
        Choice.LORA_TARGETS: c.lora_targets,
        Choice.OPTIMIZER: c.optimizer,
        Choice.PRECISION: c.precision,
        Choice.MASTER_WEIGHTS: c.master_weights,
        Choice.FP8: c.fp8,
        Choice.VISION_FROZEN: c.vision_frozen,
        Choice.ATTENTION: c.attention,
        Choice.FUSED_LOSS: c.fused_loss,
        Choice.CARD: c.card,
        Choice.SEQUENCE_PARALLEL: c.sequence_parallel,
        Choice.TP_COMM_OVERLAP: c.tp_comm_overlap,
        Choice.GRAD_REDUCE_BF16: c.grad_reduce_bf16,
        Choice.FRAMEWORK: c.framework,
        Choice.ZERO: c.zero,
        Choice.OFFLOAD: c.offload,
        Choice.RECOMPUTE: c.recompute,
        Choice.ROUNDING: c.rounding,
        Choice.RECOMMEND: c.recommend,
    }[choice]


def options(
    t: TrainingTexts, choice: Choice, c: Choices, cards: tuple[GpuCard, ...]
) -> list[tuple[object, str]]:
    """(data, text) of each option of ``choice``, in the order shown."""
    if choice is Choice.MODEL:
        bundled = [(m.name, m.label) for m in catalogue()]
        config = c.config
        return list(t.model_options(bundled, "" if config is None else config.file_name))
    table: dict[Choice, list[tuple[object, str]]] = {
        Choice.FAMILY: list(t.family_options()),
        Choice.METHOD: list(t.method_options()),
        Choice.LORA_TARGETS: list(t.target_options()),
        Choice.OPTIMIZER: list(t.optimizer_options()),
        Choice.PRECISION: list(t.precision_options()),
        Choice.MASTER_WEIGHTS: list(t.master_options()),
        Choice.ATTENTION: list(t.attention_options()),
        Choice.CARD: list(t.card_options(cards)),
        Choice.FRAMEWORK: list(t.framework_options()),
        Choice.ZERO: list(t.zero_options()),
        Choice.OFFLOAD: list(t.offload_options()),
        Choice.RECOMPUTE: list(t.recompute_options()),
        Choice.ROUNDING: list(t.rounding_options()),
    }
    return table[choice]


def chosen(
    c: Choices, cards: Iterable[GpuCard], choice: Choice, value: ChoiceValue
) -> Choices | None:
    """The choices with ``value`` in ``choice`` (None: not a value it takes)."""
    try:
        if choice is Choice.MODEL and isinstance(value, str):
            known = {m.name for m in catalogue()} | {NO_MODEL, SHAPE_MODEL, PARAMS_MODEL}
            if c.config is not None:
                known.add(CONFIG_MODEL)
            return replace(c, model=value) if value in known else None
        if choice is Choice.CARD and isinstance(value, str):
            known_card = value in {card.id for card in cards}
            return replace(c, card=value if known_card else CUSTOM_ID)
        if choice is Choice.RECOMMEND and isinstance(value, bool):
            return replace(c, recommend=value)
        if choice is Choice.FP8 and isinstance(value, bool):
            return replace(c, fp8=value)
        if choice is Choice.VISION_FROZEN and isinstance(value, bool):
            return replace(c, vision_frozen=value)
        if choice is Choice.SEQUENCE_PARALLEL and isinstance(value, bool):
            return replace(c, sequence_parallel=value)
        if choice is Choice.TP_COMM_OVERLAP and isinstance(value, bool):
            return replace(c, tp_comm_overlap=value)
        if choice is Choice.GRAD_REDUCE_BF16 and isinstance(value, bool):
            return replace(c, grad_reduce_bf16=value)
        if choice is Choice.FUSED_LOSS and isinstance(value, bool):
            return replace(c, fused_loss=value)
        enum_choice = ENUM_CHOICES.get(choice)
        if enum_choice is not None:
            attribute, kind = enum_choice
            changes: dict[str, Any] = {attribute: kind(value)}
            return replace(c, **changes)
    except ValueError:
        return None
    return None


def model_length(c: Choices) -> int | None:
    """The context the chosen model gives the sequence length (at most 4 096 tokens),
    when a bundled model or a file is chosen (the others need fields first)."""
    spec: ModelSpec | None = None
    if c.model == CONFIG_MODEL and c.config is not None:
        spec = ModelSpec.config(c.config.arch, c.config.file_name, c.config.text)
    elif c.model in {m.name for m in catalogue()}:
        spec = ModelSpec.bundled(c.model)
    if spec is None or spec.source is ModelSource.PARAMS:
        return None
    try:
        return facts(spec).default_seq
    except (LookupError, ValueError):
        return None


def current_card(
    c: Choices, entries: Entries[TrainingField], cards: tuple[GpuCard, ...]
) -> GpuCard | None:
    """The card the description uses: a catalogue card, or the custom one (None while
    the custom card's figures are not all given)."""
    card = next((card for card in cards if card.id == c.card), None)
    if card is not None:
        return card
    speed = [entries.optional_value(f)[0] for f in SPEED_FIELDS]
    if any(v is None for v in speed):
        return None
    tflops, bandwidth, link, network = (v for v in speed if v is not None)
    memory = entries.accepted(TrainingField.GPU_MEMORY) or DEFAULT_CUSTOM_GB
    return custom_card(memory, custom_performance(tflops, bandwidth, link, network))


def applied(
    c: Choices, cards: Iterable[GpuCard], d: TrainingDescription
) -> tuple[Choices, dict[TrainingField, Entry]]:
    """The choices and the field values that make ``d``'s setup and batch the user's
    (the model and what the run costs stay as in ``c`` unless ``d`` names a model)."""
    c = replace(
        c,
        method=d.method,
        optimizer=d.optimizer,
        precision=d.precision,
        master_weights=d.master_weights,
        attention=d.attention,
        framework=d.framework,
        zero=d.zero_stage,
        offload=d.offload,
        recompute=d.recompute,
        rounding=d.rounding,
        recommend=d.micro_batch is None,
    )
    targets = targets_choice(d)
    if targets is not None:
        c = replace(c, lora_targets=targets)
    if d.card is not None and any(card.id == d.card.id for card in cards):
        c = replace(c, card=d.card.id)
    if d.model is not None and d.model.source is ModelSource.BUNDLED and d.model.name:
        c = replace(c, model=d.model.name)
    if d.fp8 or fp8_allowed(d.precision, d.card):  # else the choice waits for a card
        c = replace(c, fp8=d.fp8)
    c = replace(c, vision_frozen=d.vision_frozen, fused_loss=d.fused_loss)
    if d.sequence_parallel or d.tensor_parallel > 1:  # else the choice waits for tp > 1
        c = replace(c, sequence_parallel=d.sequence_parallel)
    if d.tp_comm_overlap or d.framework is Framework.MEGATRON:
        c = replace(c, tp_comm_overlap=d.tp_comm_overlap)
    if d.grad_reduce_bf16 or d.framework is Framework.MEGATRON:
        c = replace(c, grad_reduce_bf16=d.grad_reduce_bf16)
    values: dict[TrainingField, Entry] = {
        TrainingField.TARGET: Decimal(d.target_batch),
        TrainingField.GPUS: Decimal(d.gpus),
        TrainingField.NODES: Decimal(d.nodes),
        TrainingField.TENSOR_PARALLEL: Decimal(d.tensor_parallel),
        TrainingField.PIPELINE_STAGES: Decimal(d.pipeline_stages),
        TrainingField.VIRTUAL_STAGES: Decimal(d.virtual_stages),
        TrainingField.EXPERT_PARALLEL: Decimal(d.expert_parallel),
        TrainingField.EXPERT_TENSOR_PARALLEL: (
            None if d.expert_tensor_parallel is None else Decimal(d.expert_tensor_parallel)
        ),
        TrainingField.CONTEXT_PARALLEL: Decimal(d.context_parallel),
        TrainingField.LORA_RANK: Decimal(d.lora_rank),
        TrainingField.ACTIVATION: d.activation_gb,
        TrainingField.OTHER_MEMORY: d.other_memory_gb,
    }
    if d.micro_batch is not None:
        values[TrainingField.MICRO_BATCH] = Decimal(d.micro_batch)
    if d.seq_len is not None:
        values[TrainingField.SEQ_LEN] = Decimal(d.seq_len)
    for field, given in (
        (TrainingField.IMAGES, d.images),
        (TrainingField.IMAGE_WIDTH, d.image_width),
        (TrainingField.IMAGE_HEIGHT, d.image_height),
    ):
        if given is not None:
            values[field] = Decimal(given)
    return c, values


def targets_choice(d: TrainingDescription) -> LoraTargets | None:
    """The choice of adapted layers that ``d``'s targets are (PEFT names that match one
    of the choices for its model), or None."""
    if isinstance(d.lora_targets, LoraTargets):
        return d.lora_targets
    if d.model is None:
        return None
    try:
        layout = facts(d.model).lora
    except (LookupError, ValueError):
        return None
    if layout is None:
        return None
    wanted = set(d.lora_targets)
    return next((t for t in LoraTargets if set(layout.names(t)) == wanted), None)


def visible(c: Choices, plan_: Plan | None) -> frozenset[TrainingField | Choice]:
    """The fields and choices the description shows with ``c`` and its plan."""
    shown: set[TrainingField | Choice] = {
        f
        for f in TrainingField
        if f not in SHAPE_FIELDS
        and f not in SPEED_FIELDS
        and f
        not in (
            TrainingField.MODEL_PARAMS,
            TrainingField.LORA_RANK,
            TrainingField.TRAINABLE_PARAMS,
            TrainingField.TARGET_SEQ,
            *IMAGE_FIELDS,
            TrainingField.REFERENCE_LR,
            TrainingField.REFERENCE_BATCH,
        )
    }
    hidden_choices = (
        Choice.FAMILY,
        Choice.LORA_TARGETS,
        Choice.VISION_FROZEN,
        Choice.TP_COMM_OVERLAP,
        Choice.GRAD_REDUCE_BF16,
    )
    shown |= {ch for ch in Choice if ch not in hidden_choices}
    if c.framework is Framework.MEGATRON:  # switches only Megatron has
        shown.update((Choice.TP_COMM_OVERLAP, Choice.GRAD_REDUCE_BF16))
    if c.model == PARAMS_MODEL:  # any other model states its count in its note
        shown.add(TrainingField.MODEL_PARAMS)
    if c.model == SHAPE_MODEL:
        shown.update(SHAPE_FIELDS)
        shown.add(Choice.FAMILY)
    model = None if plan_ is None else plan_.figures.facts
    if c.method.adapters:
        shown.add(TrainingField.LORA_RANK)
        if model is not None and model.lora is None:
            shown.add(TrainingField.TRAINABLE_PARAMS)
        else:
            shown.add(Choice.LORA_TARGETS)
    if model is not None and model.encoder_decoder:
        shown.add(TrainingField.TARGET_SEQ)
    vision = None if model is None else model.vision
    if vision is not None:
        shown.add(Choice.VISION_FROZEN)
        if vision.takes_images:
            shown.add(TrainingField.IMAGES)
        if vision.resizable:
            shown.update((TrainingField.IMAGE_WIDTH, TrainingField.IMAGE_HEIGHT))
    return frozenset(shown)


def card_speed(card: GpuCard, field: TrainingField) -> Decimal:
    """A catalogue card's figure for one of the custom card's speed fields."""
    perf = card.performance
    assert perf is not None
    if field is TrainingField.CUSTOM_TFLOPS:
        return perf.bf16_tflops if perf.bf16_tflops is not None else perf.fp16_tflops
    if field is TrainingField.CUSTOM_BANDWIDTH:
        return perf.memory_bandwidth_gbps
    if field is TrainingField.CUSTOM_LINK:
        return perf.link_gbps
    return perf.inter_node_gbps
