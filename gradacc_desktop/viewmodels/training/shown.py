"""What a field of the training description shows where the description, not the user,
decides it (a catalogue card's memory and speed, the recommended micro-batch, a chosen
model's exact parameters), and what an empty field stands for."""

from __future__ import annotations

from decimal import Decimal

from gradacc_desktop.core.time import GpuCard
from gradacc_desktop.core.training.plan import Plan
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.training.build import Choices
from gradacc_desktop.viewmodels.training.choosing import card_speed, current_card
from gradacc_desktop.viewmodels.training.fields import PARAMS_MODEL, SPEED_FIELDS, TrainingField
from gradacc_desktop.viewmodels.training.notes import DescriptionNotes, NoteTexts
from gradacc_desktop.viewmodels.training.texts import TrainingTexts


def decided_text(
    field: TrainingField,
    number: NumberInput,
    card: GpuCard | None,
    choices: Choices,
    plan: Plan | None,
) -> str | None:
    """What ``field`` shows when the description decides it (None: what it holds)."""
    if field is TrainingField.GPU_MEMORY and card is not None:
        return number.show(card.usable_gb)
    if field in SPEED_FIELDS and card is not None and card.performance is not None:
        return number.show(card_speed(card, field))
    if field is TrainingField.MICRO_BATCH and choices.recommend:
        current = None if plan is None else plan.current
        # nothing to recommend (nothing fits): no number that would look like one
        return "" if current is None else number.show(Decimal(current.micro_batch))
    if field is TrainingField.MODEL_PARAMS and choices.model != PARAMS_MODEL:
        model = None if plan is None else plan.figures.facts
        return "" if model is None else number.show(Decimal(model.params))
    return None


def placeholder_text(
    field: TrainingField,
    texts: TrainingTexts,
    note_texts: NoteTexts,
    notes: DescriptionNotes,
    choices: Choices,
    entries: Entries[TrainingField],
    cards: tuple[GpuCard, ...],
    plan: Plan | None,
) -> str:
    """What an empty field stands for: a derived figure, the efficiency model, the
    card's links, a goodput of 100 %, a node's memory not given."""
    if field is TrainingField.EFFICIENCY:
        return texts.modelled_efficiency()
    if field is TrainingField.GOODPUT:
        return texts.full_goodput()
    if field is TrainingField.CPU_MEMORY:
        return texts.node_memory_not_given()
    if field is TrainingField.NODES:
        return texts.nodes_not_given(None if plan is None else plan.description.nodes)
    if field is TrainingField.EXPERT_TENSOR_PARALLEL:
        return texts.expert_tensor_not_given(entries.accepted(TrainingField.TENSOR_PARALLEL))
    if field in (TrainingField.LINK, TrainingField.NETWORK):
        card = current_card(choices, entries, cards)
        if card is None or card.performance is None:
            return ""
        perf = card.performance
        speed = perf.link_gbps if field is TrainingField.LINK else perf.inter_node_gbps
        return texts.card_link(speed)
    if field is TrainingField.MICRO_BATCH and choices.recommend:
        return "—"  # shown only while there is nothing to recommend
    return note_texts.field_placeholder(field, notes)
