"""A checked config's own batch held by the description (``core.training.imported.
HeldBatch``): the target and micro-batch the file gives on the GPUs the fields hold now."""

from __future__ import annotations

from decimal import Decimal

from gradacc_desktop.core.training.imported import HeldBatch
from gradacc_desktop.viewmodels.entries import Entries
from gradacc_desktop.viewmodels.training.fields import TrainingField
from gradacc_desktop.viewmodels.training.texts import TrainingTexts

#: the fields a held file sets; typing either makes the batch the user's own again
HELD_FIELDS = frozenset({TrainingField.TARGET, TrainingField.MICRO_BATCH})

_WORLD_FIELDS = (
    TrainingField.GPUS,
    TrainingField.TENSOR_PARALLEL,
    TrainingField.PIPELINE_STAGES,
    TrainingField.CONTEXT_PARALLEL,
)


def held_values(
    held: HeldBatch, entries: Entries[TrainingField]
) -> tuple[HeldBatch, dict[TrainingField, Decimal]] | None:
    """``held`` on the GPUs the fields hold (all of them: data-parallel × tensor ×
    pipeline × context) and the target and micro-batch that make its pair the
    description's; None while one of those fields is refused."""
    sizes = [entries.accepted(f) for f in _WORLD_FIELDS]
    if any(size is None for size in sizes):
        return None
    gpus, tensor, pipeline, context = (int(size) for size in sizes if size is not None)
    held = held.on(gpus * tensor * pipeline * context)
    effective = held.micro_batch * held.accumulation_steps * gpus
    return held, {
        TrainingField.TARGET: Decimal(effective),
        TrainingField.MICRO_BATCH: Decimal(held.micro_batch),
    }


def held_note(texts: TrainingTexts, held: HeldBatch | None, entries: Entries[TrainingField]) -> str:
    """What the batch section says of a held file's pair ("" when none is held)."""
    gpus = entries.accepted(TrainingField.GPUS)
    if held is None or gpus is None:
        return ""
    return texts.held_batch(held.file_name, held.micro_batch, held.accumulation_steps, int(gpus))
