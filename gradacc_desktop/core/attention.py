"""The attention kernel of a training: what it keeps for the backward pass and how fast
it runs.

``AttentionKernel`` is the description's choice (the window's *Attention kernel*, the
command line's ``--attention``, a scenario's ``attention``):

* ``SDPA``: a fused kernel — PyTorch's ``scaled_dot_product_attention`` (its flash,
  memory-efficient or cuDNN backend), FlashAttention 2, Transformer Engine's fused
  attention. It keeps no s² scores; it runs at the fused-kernel speed the measured runs
  fit for the card's generation, and under Megatron at ``FLASH``'s (Transformer Engine
  runs cuDNN's flash kernel on Hopper and later: ``Framework.flash_attention``).
* ``FLASH``: the flash-attn packages' own kernel for the card — FlashAttention 3 on
  Hopper, FlashAttention 4 on Blackwell (transformers' ``attn_implementation``
  ``flash_attention_3``, ``flash_attention_4``). It keeps what the fused kernels keep
  and runs at its own fitted speed where measured runs give one (Hopper, Blackwell);
  before Hopper the package's kernel is FlashAttention 2, SDPA's speed.
* ``EAGER``: softmax(QKᵀ)V in separate kernels, every score written to memory and kept.

The activation estimator counts what the kernel keeps (``kept``: eager or fused); the
time model reads which kernel runs.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the memory package is loaded on first use, not at start-up
    from gradacc_desktop.core.memory.activation_types import Attention

__all__ = ["AttentionKernel"]


class AttentionKernel(enum.Enum):
    SDPA = "sdpa"
    FLASH = "flash"
    EAGER = "eager"

    @property
    def kept(self) -> Attention:
        """What the activation estimator counts: the scores (eager) or none (fused)."""
        from gradacc_desktop.core.memory.activation_types import Attention

        return Attention.EAGER if self is AttentionKernel.EAGER else Attention.SDPA

    @property
    def fused(self) -> bool:
        """A fused kernel: no s² scores written out or kept."""
        return self is not AttentionKernel.EAGER
