"""The calculator's inputs as a table: the input panel is built from it."""

from __future__ import annotations

import enum
from typing import NamedTuple

from gradacc_desktop.core.calculator import Field


class Group(enum.Enum):
    BATCHES = "batches"
    MEMORY = "memory"


class FieldSpec(NamedTuple):
    field: Field
    group: Group
    # a button under the field opens the estimator ("Estimar a partir do modelo…")
    estimator: bool = False

    @property
    def object_name(self) -> str:
        return f"input_{self.field.value}"


FIELD_SPECS: tuple[FieldSpec, ...] = (
    FieldSpec(Field.MICRO_BATCH, Group.BATCHES),
    FieldSpec(Field.ACCUMULATION_STEPS, Group.BATCHES),
    FieldSpec(Field.GPUS, Group.BATCHES),
    FieldSpec(Field.ACTIVATION_GB, Group.MEMORY, estimator=True),
)
