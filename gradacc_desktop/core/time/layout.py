"""The parallel layout: data-parallel × tensor-parallel × pipeline stages.

Pure Python, exact. The seed's ``g`` is the data-parallel size: the effective batch stays
``b·a·dp`` however many tensor-parallel ranks and pipeline stages each replica spans.

* World size = ``dp · tp · pp · cp``; the tensor-parallel group sits inside one node
  (its all-reduces run on every layer), then the pipeline stages, then the data-parallel
  replicas (Megatron-LM's default rank order, Narayanan et al. 2021 section 3.3).
* Context parallelism (Megatron's ``--context-parallel-size``, Llama 3's CP) splits
  every sequence over ``cp`` GPUs of a replica: each keeps ``s/cp`` tokens of every
  layer and holds the same weights; megatron-core orders the ranks tp-cp-ep-dp-pp, so
  the context-parallel group comes right after the tensor-parallel one.
* Tensor parallelism divides every layer's weights and, with sequence parallelism
  (Korthikanti et al. 2022), its activations by ``tp``; pipeline stages divide the
  layers by ``pp``.
* 1F1B schedule (PipeDream-Flush, Narayanan et al. 2021 section 2.2.1): with ``m``
  micro-batches per optimizer step (the accumulation steps) the pipeline is idle for
  ``(p − 1)`` micro-batch times out of ``(m + p − 1)``: the bubble's share of the step
  is ``(p − 1) / (m + p − 1)``. Stage ``s`` (0-based) keeps at most ``min(p − s, m)``
  micro-batches of activations in flight, so the first stage holds up to ``p``.
* Interleaved 1F1B (Narayanan et al. 2021 section 2.2.2): each GPU holds ``v`` chunks
  of ``L / (p·v)`` layers (virtual stages); a micro-batch crosses ``v`` times as many
  stage boundaries, and the bubble shrinks to ``(p − 1) / v`` micro-step times:
  ``(p − 1) / (v·m + p − 1)`` of the step. The first stage holds ``1 + (p − 1)/(p·v)``
  times the activations of plain 1F1B (Korthikanti et al. 2022, section 4.2.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..limits import require_positive_int, whole

#: tensor-parallel size and pipeline stages a user may ask for
LAYOUT_LIMITS = whole(1, 100_000)


@dataclass(frozen=True)
class ParallelLayout:
    data: int = 1
    tensor: int = 1
    pipeline: int = 1
    #: virtual stages per GPU (interleaved 1F1B; 1: plain 1F1B)
    virtual: int = 1
    #: GPUs each sequence is split over (context parallelism; 1: none)
    context: int = 1

    def __post_init__(self) -> None:
        require_positive_int("data", self.data)
        require_positive_int("tensor", self.tensor)
        require_positive_int("pipeline", self.pipeline)
        require_positive_int("virtual", self.virtual)
        require_positive_int("context", self.context)
        if self.virtual > 1 and self.pipeline == 1:
            raise ValueError("virtual stages need pipeline stages")

    @property
    def interleaving(self) -> Fraction:
        """The first stage's activations over plain 1F1B's: 1 + (p − 1)/(p·v) with
        virtual stages, 1 without."""
        if self.virtual == 1:
            return Fraction(1)
        return 1 + Fraction(self.pipeline - 1, self.pipeline * self.virtual)

    @property
    def world(self) -> int:
        """GPUs in all: dp · tp · pp · cp."""
        return self.data * self.tensor * self.pipeline * self.context

    @property
    def gradient_ranks(self) -> int:
        """GPUs the data-parallel collectives run over: dp · cp (megatron-core reduces
        the gradients and shards the distributed optimizer over its data-parallel group
        "with context parallel": each context-parallel rank holds the same weights)."""
        return self.data * self.context

    @property
    def model_shards(self) -> int:
        """GPUs one replica's weights are split over: tp · pp (context-parallel ranks
        hold the same weights)."""
        return self.tensor * self.pipeline

    def fits_in_node(self, gpus_per_node: int) -> bool:
        """Whether every tensor-parallel group sits inside one node: the node's GPUs
        are a whole number of groups (ranks are numbered tensor-parallel first)."""
        require_positive_int("gpus_per_node", gpus_per_node)
        return gpus_per_node % self.tensor == 0


def bubble_fraction(stages: int, micro_batches: int, virtual: int = 1) -> Fraction:
    """The 1F1B pipeline bubble's share of a step: (p − 1) / (v·m + p − 1) (``v``
    virtual stages per GPU; 1: plain 1F1B)."""
    require_positive_int("stages", stages)
    require_positive_int("micro_batches", micro_batches)
    require_positive_int("virtual", virtual)
    return Fraction(stages - 1, virtual * micro_batches + stages - 1)
