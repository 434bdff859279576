"""What a window or the command line says about a model's image tower: its share of an
estimate, the image size and images per sample an estimate assumes by default."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from gradacc_desktop.core.memory.activation_types import (
    Family,
    Part,
    Result,
    StackKind,
)
from gradacc_desktop.core.memory.families import family_module, hooks
from gradacc_desktop.core.memory.families.base import Architecture
from gradacc_desktop.core.memory.families.vision_tower import tower_tokens
from gradacc_desktop.core.memory.families.vlm_qwen import QWEN_DEFAULT_IMAGE

#: the once-per-model parts that belong to an image tower (and a VLM's projector)
TOWER_PARTS = frozenset({Part.VISION_EMBEDDINGS, Part.VISION_POOLING, Part.VISION_PROJECTOR})


TOWER_STACKS = frozenset({StackKind.VISION, StackKind.VISION_WINDOW})


@dataclass(frozen=True)
class VisionSummary:
    """What a window or the command line says about a model's image tower."""

    #: parameters of the tower (ViT / CLIP / SigLIP image encoder; a VLM's vision tower,
    #: Qwen's merger included, without LLaVA's / Gemma 3's projector)
    tower_parameters: int
    #: images per sample the estimate assumes
    images: int
    #: tokens one image gives: patch tokens of an image encoder, language-model tokens
    #: of a VLM
    tokens_per_image: int
    #: of the saved bytes: the tower's layers and parts (and the projector)
    tower_bytes: int
    saved_bytes: int

    @property
    def share(self) -> Fraction:
        return Fraction(self.tower_bytes, self.saved_bytes) if self.saved_bytes else Fraction(0)


def summary(result: Result) -> VisionSummary | None:
    """The image tower's facts for an estimate of a ViT/CLIP/SigLIP or VLM model (None
    for a model without one)."""
    inputs = result.inputs
    arch = inputs.arch
    if arch is None or inputs.family not in (Family.VISION, Family.VLM):
        return None
    count = hooks.optional(family_module(arch), "tower_parameters")
    tower_bytes = sum(
        item.total
        for item in result.breakdown
        if item.stack in TOWER_STACKS or item.key in TOWER_PARTS
    )
    if inputs.family is Family.VISION:
        images = 1
        per_image = tower_tokens(arch.spec.vision, inputs)
    else:
        images = inputs.images
        per_image = arch.spec.tokens_per_image(inputs.image_width, inputs.image_height)
    return VisionSummary(
        tower_parameters=int(count(arch)),
        images=images,
        tokens_per_image=per_image,
        tower_bytes=tower_bytes,
        saved_bytes=result.saved_bytes,
    )


def default_image_size(arch: Architecture) -> tuple[int, int] | None:
    """(width, height) in pixels the estimate assumes when none is given: the tower's
    native size (Qwen2-VL: its processor's 448 × 448); None without an image tower."""
    spec = arch.spec
    if arch.family is Family.VISION:
        height, width = spec.vision.image_size
        return width, height
    if arch.family is Family.VLM:
        if spec.qwen is not None:
            return QWEN_DEFAULT_IMAGE, QWEN_DEFAULT_IMAGE
        if spec.tower is not None:
            height, width = spec.tower.image_size
            return width, height
    return None


def resizable(arch: Architecture) -> bool:
    """Whether the image size changes the estimate (an image encoder, Qwen2-VL's dynamic
    resolution); LLaVA's and Gemma 3's processors resize every image to the tower's."""
    if arch.family is Family.VISION:
        return True
    return arch.family is Family.VLM and arch.spec.qwen is not None


#: images per sample a language model with a vision tower is estimated with unless told
DEFAULT_IMAGES = 1


def default_images(arch: Architecture) -> int:
    """Images per sample when none is given: one for a language model reading images,
    none otherwise (an image encoder's sample is its one image)."""
    return DEFAULT_IMAGES if arch.family is Family.VLM else 0
