"""The one recomputation of a training: which activations the backward pass recomputes.

``Recompute`` is what the activation estimator (what one sample keeps), the time model
(the work done again) and the training description all read:

* ``NONE`` keeps every activation the backward pass needs;
* ``SELECTIVE`` recomputes the attention core — QKᵀ, softmax, dropout, ·V —
  (Korthikanti et al. 2022, Megatron's ``--recompute-granularity selective``): the
  s² scores are not kept, and the attention core's forward runs again in the backward;
* ``FULL`` keeps each layer's input only and runs the whole layer's forward again in
  the backward (gradient checkpointing; Chen et al. 2016).

A training description may say any of the three (the window's *Recomputation*, the
command line's ``--recompute``), the scenario files keep it, and the activation
estimator and the time model count each. Every framework switches full recomputation
on or off; selective recomputation is Megatron's (``--recompute-granularity
selective``): the other frameworks' files train without it. The measure tool times
``NONE`` and ``FULL`` only (``MEASURED``), what a speed profile can record.
"""

from __future__ import annotations

import enum

__all__ = ["MEASURED", "Recompute"]


class Recompute(enum.Enum):
    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"

    @property
    def repeats_layers(self) -> bool:
        """The whole layers' forward runs again (its products, its collectives)."""
        return self is Recompute.FULL

    @property
    def repeats_attention(self) -> bool:
        """The attention core's forward runs again (selective or full)."""
        return self is not Recompute.NONE


#: what the measure tool times (and a speed profile records): no recomputation or full
MEASURED = (Recompute.NONE, Recompute.FULL)
