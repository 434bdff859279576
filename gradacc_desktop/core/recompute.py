"""The one recomputation of a training: which activations the backward pass recomputes.

``Recompute`` is what the activation estimator (what one sample keeps), the time model
(the work done again) and the training description all read:

* ``NONE`` keeps every activation the backward pass needs;
* ``SELECTIVE`` recomputes the attention core — QKᵀ, softmax, dropout, ·V —
  (Korthikanti et al. 2022, Megatron's ``--recompute-granularity selective``): the
  s² scores are not kept, and the attention core's forward runs again in the backward;
* ``SELECTIVE_OP`` is torchtitan's per-op selective checkpointing
  (``selective_ac_option = "op"``, ``_save_list`` in its ``parallelize_llama.py``): each
  layer keeps its input, the outputs of every second matrix product (``aten.mm``, counted
  in forward order; a product with a bias is an ``addmm``, neither kept nor counted),
  the fused attention's output and log-sum-exp and, under tensor parallelism, the
  reduce-scatters' outputs; the backward runs the rest of the layer's forward again —
  its other products and all its element-wise work, not the attention;
* ``FULL`` keeps each layer's input only and runs the whole layer's forward again in
  the backward (gradient checkpointing; Chen et al. 2016).

A training description may say any of the four (the window's *Recomputation*, the
command line's ``--recompute``), the scenario files keep it, and the activation
estimator and the time model count each. Every framework switches full recomputation
on or off; selective recomputation is Megatron's (``--recompute-granularity
selective``) and per-op selective recomputation is torchtitan's (FSDP2): the other
frameworks' files train without them. The measure tool times
``NONE`` and ``FULL`` only (``MEASURED``), what a speed profile can record.
"""

from __future__ import annotations

import enum

__all__ = ["MEASURED", "Recompute"]


class Recompute(enum.Enum):
    NONE = "none"
    SELECTIVE = "selective"
    SELECTIVE_OP = "selective-op"
    FULL = "full"

    @property
    def repeats_layers(self) -> bool:
        """The whole layers' forward runs again (its products, its collectives)."""
        return self is Recompute.FULL

    @property
    def repeats_attention(self) -> bool:
        """The attention core's forward runs again (selective or full; per-op selective
        recomputation keeps the fused attention's output)."""
        return self in (Recompute.SELECTIVE, Recompute.FULL)

    @property
    def repeats_elementwise(self) -> bool:
        """The layers' element-wise work (norms, rotary, activation, residuals) and the
        host's work of launching it run again (full or per-op selective)."""
        return self in (Recompute.FULL, Recompute.SELECTIVE_OP)


#: what the measure tool times (and a speed profile records): no recomputation or full
MEASURED = (Recompute.NONE, Recompute.FULL)
