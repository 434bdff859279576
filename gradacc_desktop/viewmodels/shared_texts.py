"""Words more than one view-model (or a view-model and a widget) says, written once.

The calculator and the training description name the same inputs, the estimator and
the description the same image fields, and every place that opens a model's
``config.json`` words it the same way. Each is a phrase here (context ``SharedTexts``);
``say`` translates it where it is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import Phrase, trans_late

MICRO_BATCH = trans_late("SharedTexts", "&Micro-batch size")
GPUS = trans_late("SharedTexts", "Data-parallel &GPUs")
ACTIVATION = trans_late("SharedTexts", "Acti&vation per sample")
MICRO_BATCH_HINT = trans_late(
    "SharedTexts", "Samples each GPU processes in one forward and backward pass (b)."
)

#: the description's field, named again by the planner when it is empty
CPU_MEMORY = trans_late("SharedTexts", "CPU memory per node (GB)")

IMAGES = trans_late("SharedTexts", "Images per sample")
IMAGE_WIDTH = trans_late("SharedTexts", "Image width (pixels)")
IMAGE_HEIGHT = trans_late("SharedTexts", "Image height (pixels)")
VISION_FROZEN = trans_late("SharedTexts", "Frozen vision tower")

# a recomputation in a sentence (the estimate's note, a searched layout, a checked file)
RECOMPUTATION: dict[Recompute, Phrase] = {
    Recompute.NONE: trans_late("SharedTexts", "no recomputation"),
    Recompute.SELECTIVE: trans_late("SharedTexts", "selective recomputation"),
    Recompute.SELECTIVE_OP: trans_late("SharedTexts", "per-op selective recomputation"),
    Recompute.FULL: trans_late("SharedTexts", "full recomputation"),
}

# the attention kernel in a list of what a step was estimated for or a file gave
ATTENTION_KERNEL: dict[AttentionKernel, Phrase] = {
    AttentionKernel.SDPA: trans_late("SharedTexts", "SDPA"),
    AttentionKernel.FLASH: trans_late("SharedTexts", "FlashAttention 3/4"),
    AttentionKernel.EAGER: trans_late("SharedTexts", "eager attention"),
}

#: why a tab has nothing to show when not even one sample fits (the chart, the exports)
NOTHING_FITS = trans_late(
    "SharedTexts",
    "not even a micro-batch of 1 fits in a GPU's memory with this description (the plan "
    "says what would fit)",
)

OPEN_CONFIG_BUTTON = trans_late("SharedTexts", "Open config.&json…")
OPEN_CONFIG_TITLE = trans_late("SharedTexts", "Open a model's config.json")
NOT_OPENED = trans_late("SharedTexts", "{file} was not opened: {reason}")


def say(phrase: Phrase) -> str:
    """``phrase`` in the interface's language."""
    return QCoreApplication.translate(phrase.context, phrase)
