"""What the time model needs of one GPU and its links: the card's peak for the
precision the products run in, its memory bandwidth, the link inside a node and the
network between nodes (the card's, or typed over), and how close its kernels come to
the peak (the kernel model of its generation, or one typed share).

Pure Python, exact (``Fraction`` FLOP/s and bytes/s).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from ..framework import Framework
from ..limits import require_positive_int
from ..precision import FP8, Precision
from .compute import TERA
from .gpus import GpuCard, Link
from .kernels import KernelModel, kernel_model

GIGA = 10**9


class NoSpeedError(ValueError):
    """The card has no speed figures, or cannot compute in the chosen precision."""


def _rate(name: str, value: Fraction) -> Fraction:
    if not isinstance(value, Fraction) or value <= 0:
        raise ValueError(f"{name} must be a positive Fraction, got {value!r}")
    return value


@dataclass(frozen=True)
class Hardware:
    """What the time model needs of one GPU and its links (FLOP/s, bytes/s): the kernel
    efficiency model of its generation, or one typed share of the peak."""

    peak_flops: Fraction
    memory_bandwidth: Fraction
    #: per direction, between GPUs of one node
    link_bandwidth: Fraction
    #: per direction, per GPU, between nodes
    network_bandwidth: Fraction
    gpus_per_node: int
    #: one typed share of the peak for every kernel (None: ``kernels``)
    efficiency: Fraction | None = None
    kernels: KernelModel | None = None
    #: the products run in FP8 (``peak_flops`` is the FP8 peak); attention runs at
    #: ``attention_peak_flops``, the 16-bit peak (None: ``peak_flops``)
    fp8: bool = False
    attention_peak_flops: Fraction | None = None
    #: the GPUs of a node talk over PCIe (no NVLink): collectives inside a node reach
    #: the kernel model's ``pcie_efficiency`` of the link, not NCCL's NVLink share
    pcie: bool = False

    def __post_init__(self) -> None:
        for name in ("peak_flops", "memory_bandwidth", "link_bandwidth", "network_bandwidth"):
            _rate(name, getattr(self, name))
        if (self.efficiency is None) == (self.kernels is None):
            raise ValueError("give a typed efficiency or a kernel model, one of them")
        if self.efficiency is not None and (
            not isinstance(self.efficiency, Fraction) or not 0 < self.efficiency <= 1
        ):
            raise ValueError(f"efficiency must be in (0, 1], got {self.efficiency!r}")
        require_positive_int("gpus_per_node", self.gpus_per_node)

    @property
    def typed(self) -> bool:
        return self.efficiency is not None


@lru_cache(maxsize=64)
def hardware(
    card: GpuCard,
    precision: Precision,
    gpus_per_node: int,
    efficiency: Decimal | None = None,
    *,
    fp8: bool = False,
    link_gbps: Decimal | None = None,
    network_gbps: Decimal | None = None,
    framework: Framework = Framework.DEEPSPEED,
) -> Hardware:
    """The card's figures for ``precision``; ``efficiency`` replaces the kernel model,
    ``link_gbps``/``network_gbps`` the card's links (GB/s per GPU per direction). (Kept
    for the same arguments: a search asks for them for every layout.)"""
    perf = card.performance
    if perf is None:
        raise NoSpeedError(f"{card.name} has no speed figures")
    peak = perf.peak_tflops(precision, fp8)
    if peak is None:
        raise NoSpeedError(f"{card.name} cannot compute in {FP8 if fp8 else precision.value}")
    link = perf.link_gbps if link_gbps is None else link_gbps
    network = perf.inter_node_gbps if network_gbps is None else network_gbps
    attention_peak = None
    if fp8:
        sixteen = perf.peak_tflops(Precision.BF16) or perf.fp16_tflops
        attention_peak = Fraction(sixteen) * TERA
    return Hardware(
        peak_flops=Fraction(peak) * TERA,
        memory_bandwidth=Fraction(perf.memory_bandwidth_gbps) * GIGA,
        link_bandwidth=Fraction(link) * GIGA,
        network_bandwidth=Fraction(network) * GIGA,
        gpus_per_node=gpus_per_node,
        efficiency=None if efficiency is None else Fraction(efficiency),
        kernels=kernel_model(perf.generation, framework) if efficiency is None else None,
        fp8=fp8,
        attention_peak_flops=attention_peak,
        pcie=perf.link is Link.PCIE,
    )
