"""The description's check boxes: whether each can be ticked now, and its tooltip — what
it does and, when it is off, why. FP8 products need 16-bit training on a card with an
FP8 peak; the fused loss needs a framework that runs Hugging Face modules; sequence
parallelism needs tensor parallelism; the frozen vision tower is
always open (its row is shown only for a model with a tower)."""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory import Precision
from gradacc_desktop.core.time import GpuCard
from gradacc_desktop.core.training.problems import ProblemKind
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.training.build import (
    Choices,
    fp8_allowed,
    fused_loss_allowed,
    grad_reduce_bf16_allowed,
    sequence_parallel_allowed,
    tp_comm_overlap_allowed,
)
from gradacc_desktop.viewmodels.training.choosing import current_card
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from gradacc_desktop.viewmodels.training.texts import TrainingTexts


@dataclass(frozen=True)
class CheckState:
    #: the box can be ticked now (else it is disabled and shows unticked; the choice waits)
    enabled: bool
    #: what it does, and why it is off when it is
    hint: str


def check_state(
    texts: TrainingTexts,
    choice: Choice,
    choices: Choices,
    entries: Entries[TrainingField],
    cards: tuple[GpuCard, ...],
) -> CheckState:
    """The state of the check box of ``choice`` with these choices and entries."""
    why = ""
    enabled = True
    if choice is Choice.FP8:
        card = current_card(choices, entries, cards)
        enabled = fp8_allowed(choices.precision, card)
        if choices.precision is Precision.FP32:
            why = texts.off_now(ProblemKind.FP8_PRECISION)
        elif not enabled:
            name = card.name if card is not None else texts.custom_card_name()
            why = texts.off_now(ProblemKind.FP8_CARD, card=name)
    elif choice is Choice.FUSED_LOSS:
        enabled = fused_loss_allowed(choices.framework)
        if not enabled:
            why = texts.off_now(ProblemKind.FUSED_LOSS_MEGATRON)
    elif choice is Choice.SEQUENCE_PARALLEL:
        enabled = sequence_parallel_allowed(entries)
        if not enabled:
            why = texts.off_now(ProblemKind.SEQUENCE_PARALLEL)
    elif choice is Choice.GRAD_REDUCE_BF16:
        enabled = grad_reduce_bf16_allowed(choices)
        if not enabled:
            why = texts.off_now(ProblemKind.GRAD_REDUCE_BF16)
    elif choice is Choice.TP_COMM_OVERLAP:
        enabled = tp_comm_overlap_allowed(choices, entries)
        if not enabled:
            why = texts.off_now(ProblemKind.TP_COMM_OVERLAP)
    hint = texts.choice_hint(choice)
    return CheckState(enabled, hint + (f"\n\n{why}" if why else ""))
