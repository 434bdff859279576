"""The estimator's controls as a table: the dialog is built from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gradacc_desktop.viewmodels.activation import ActivationField, Control, Option


class Section(enum.Enum):
    MODEL = "model"
    STEP = "step"


class Kind(enum.Enum):
    NUMBER = "number"
    CHOICE = "choice"
    CHECK = "check"


@dataclass(frozen=True)
class ControlSpec:
    control: Control
    section: Section
    kind: Kind

    @property
    def object_name(self) -> str:
        return f"activation_{self.control.value}"


CONTROL_SPECS: tuple[ControlSpec, ...] = (
    ControlSpec(Option.PRESET, Section.MODEL, Kind.CHOICE),
    ControlSpec(Option.FAMILY, Section.MODEL, Kind.CHOICE),
    ControlSpec(ActivationField.HIDDEN, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.LAYERS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.HEADS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.KV_HEADS, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.INTERMEDIATE, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.VOCAB, Section.MODEL, Kind.NUMBER),
    ControlSpec(ActivationField.SEQ, Section.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.TARGET_SEQ, Section.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGES, Section.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGE_WIDTH, Section.STEP, Kind.NUMBER),
    ControlSpec(ActivationField.IMAGE_HEIGHT, Section.STEP, Kind.NUMBER),
    ControlSpec(Option.VISION_FROZEN, Section.STEP, Kind.CHECK),
    ControlSpec(Option.DTYPE, Section.STEP, Kind.CHOICE),
    ControlSpec(Option.ATTENTION, Section.STEP, Kind.CHOICE),
    ControlSpec(Option.RECOMPUTE, Section.STEP, Kind.CHOICE),
    ControlSpec(ActivationField.TENSOR_PARALLEL, Section.STEP, Kind.NUMBER),
    ControlSpec(Option.SEQUENCE_PARALLEL, Section.STEP, Kind.CHECK),
    ControlSpec(Option.DROPOUT, Section.STEP, Kind.CHECK),
    ControlSpec(Option.PADDED, Section.STEP, Kind.CHECK),
    ControlSpec(Option.USE_CACHE, Section.STEP, Kind.CHECK),
    ControlSpec(Option.PROFILE, Section.STEP, Kind.CHOICE),
)
