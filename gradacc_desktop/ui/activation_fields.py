"""The estimator's controls as a table: the dialog is built from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.viewmodels.activation import ActivationField, Control, Option


class ActivationSection(enum.Enum):
    MODEL = "model"
    STEP = "step"


class Kind(enum.Enum):
    NUMBER = "number"
    CHOICE = "choice"
    CHECK = "check"


@dataclass(frozen=True)
class ControlSpec:
    control: Control
    section: ActivationSection
    kind: Kind

    @property
    def object_name(self) -> str:
        return f"activation_{self.control.value}"


CONTROL_SPECS: tuple[ControlSpec, ...] = (
    ControlSpec(Option.PRESET, ActivationSection.MODEL, Kind.CHOICE),
    ControlSpec(Option.FAMILY, ActivationSection.MODEL, Kind.CHOICE),
    ControlSpec(ActivationField.HIDDEN, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.LAYERS, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.HEADS, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.KV_HEADS, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.INTERMEDIATE, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.VOCAB, ActivationSection.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.SEQ, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.TARGET_SEQ, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGES, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGE_WIDTH, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGE_HEIGHT, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(Option.VISION_FROZEN, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.DTYPE, ActivationSection.STEP, Kind.CHOICE),
    ControlSpec(Option.ATTENTION, ActivationSection.STEP, Kind.CHOICE),
    ControlSpec(Option.RECOMPUTE, ActivationSection.STEP, Kind.CHOICE),
    ControlSpec(ActivationField.TENSOR_PARALLEL, ActivationSection.STEP, Kind.NUMBER),
    ControlSpec(Option.SEQUENCE_PARALLEL, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.DROPOUT, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.PADDED, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.USE_CACHE, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.FUSED_LOSS, ActivationSection.STEP, Kind.CHECK),
    ControlSpec(Option.PROFILE, ActivationSection.STEP, Kind.CHOICE),
)
