"""The planner's inputs as a table: the planner's input panel is built from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.core.calculator import ACTIVATION_DECIMALS
from gradacc_desktop.viewmodels.planner import LR_DECIMALS, PlanField


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
    decimals: int = 0
    step: float = 1.0
    unit_suffix: bool = False
    # empty is allowed: shown as "—"
    optional: bool = False
    extra: Extra | None = None

    @property
    def object_name(self) -> str:
        name = self.field.value if self.field is not None else self.kind.value
        return f"plan_{name}"


_GB = ACTIVATION_DECIMALS

PLANNER_FIELD_SPECS: tuple[PlannerFieldSpec, ...] = (
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.TARGET),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.GPUS),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.INT, PlanField.MICRO_BATCH, extra=Extra.RECOMMEND),
    PlannerFieldSpec(PlanGroup.TARGET, Kind.ROUNDING),
    PlannerFieldSpec(PlanGroup.MEMORY, Kind.CARD),
    PlannerFieldSpec(
        PlanGroup.MEMORY, Kind.DECIMAL, PlanField.GPU_MEMORY, _GB, 1.0, unit_suffix=True
    ),
    PlannerFieldSpec(
        PlanGroup.MEMORY,
        Kind.DECIMAL,
        PlanField.OTHER_MEMORY,
        _GB,
        1.0,
        unit_suffix=True,
        extra=Extra.ESTIMATE,
    ),
    PlannerFieldSpec(
        PlanGroup.MEMORY, Kind.DECIMAL, PlanField.ACTIVATION, _GB, 0.1, unit_suffix=True
    ),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.INT, PlanField.SEQ_LEN, optional=True),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.BIG_INT, PlanField.DATASET, optional=True),
    PlannerFieldSpec(
        PlanGroup.TOKENS, Kind.DECIMAL, PlanField.REFERENCE_LR, LR_DECIMALS, 0.0001, optional=True
    ),
    PlannerFieldSpec(PlanGroup.TOKENS, Kind.INT, PlanField.REFERENCE_BATCH, optional=True),
)
