"""The planner's inputs as a table: the planner's input panel is built from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.viewmodels.planner import PlanField


class PlanGroup(enum.Enum):
    TARGET = "target"
    MEMORY = "memory"
    TOKENS = "tokens"


class Kind(enum.Enum):
    INT = "int"  # whole numbers (NumberField)
    BIG_INT = "big_int"  # whole numbers beyond 32 bits (NumberField)
    DECIMAL = "decimal"  # decimal numbers (NumberField)
    ROUNDING = "rounding"  # combo of rounding modes
    CARD = "card"  # combo of GPU cards


class Extra(enum.Enum):
    """A widget beside the field."""

    RECOMMEND = "recommend"  # "Recomendar" check box beside the micro-batch
    ESTIMATE = "estimate"  # "Estimar…" button beside the other memory


@dataclass(frozen=True)
class PlannerFieldSpec:
    group: PlanGroup
    kind: Kind
    field: PlanField | None = None  # None for the two combos
    extra: Extra | None = None

    @property
    def object_name(self) -> str:
        name = self.field.value if self.field is not None else self.kind.value
        return f"plan_{name}"


PLANNER_FIELD_SPECS: tuple[PlannerFieldSpec, ...] = (
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.TARGET),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.GPUS),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.MICRO_BATCH, extra=Extra.RECOMMEND),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.ROUNDING),
    PlannerFieldSpec(PlanGroup.MEMORY, Kind.CARD),
    PlannerFieldSpec(PlanGroup.MEMORY, Kind.DECIMAL, PlanField.GPU_MEMORY),
    PlannerFieldSpec(PlanGroup.MEMORY, Kind.DECIMAL, PlanField.OTHER_MEMORY, extra=Extra.ESTIMATE),
    PlannerFieldSpec(PlanGroup.MEMORY, Kind.DECIMAL, PlanField.ACTIVATION),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.INT, PlanField.SEQ_LEN),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.BIG_INT, PlanField.DATASET),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.DECIMAL, PlanField.REFERENCE_LR),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.INT, PlanField.REFERENCE_BATCH),
)
