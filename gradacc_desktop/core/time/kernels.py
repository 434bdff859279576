"""How close a card's kernels come to its peak: the efficiency model of one micro-step.

Pure Python, exact (``Fraction``). A training micro-step on one GPU runs three kinds of
kernel one after another, and each reaches its own share of the card:

* **Matrix products** (the ``6N`` FLOPs): ``peak · matmul · w / (w + w½)`` where ``w`` is
  the width a GPU's products have after the tensor-parallel split (``h / tp``) — narrow
  products waste tiles and waves — and each micro-step pays ``t½`` tokens' worth of
  products on top of its ``b · s`` (the fixed cost of reading the weights and filling
  the card, which makes small micro-batches slower per token). With ``b · s`` tokens the
  products run at ``b · s / (b · s + t½)`` of the wide-product rate.
  FP8 products run ``fp8_gain`` times as fast as 16-bit ones (not the datasheet's 2:
  scaling, casts and the 16-bit parts around them take some of it).
* **Attention** (PaLM's ``12·L·H·Q·T``), a fused flash kernel: ``peak · attention ·
  s / (s + s½)`` — short sequences leave the kernel's tiles part empty. It runs in
  16 bits, against the 16-bit peak, also when the products run in FP8. A causal kernel
  computes half of PaLM's count, so the share may exceed 1. The flash-attn packages'
  own kernels (FlashAttention 3 on Hopper, 4 on Blackwell) have their own share,
  ``flash``, where measured runs fit one.
  Eager attention (no fused kernel) runs its two products at the matrix products' rate
  and reads and writes ``score_values`` times each of its ``heads · s²`` scores per
  layer (softmax, mask, dropout; forward and backward) at the memory bandwidth.
* **Element-wise work** (norms, activations, dropout, residuals, rotary, the loss's
  softmax): memory-bound, ``values`` reads and writes of ``h / tp`` values per token and
  layer (fwd + bwd) at the memory bandwidth, plus the loss's reads and writes of the
  vocabulary's logits in fp32.
* **The host**: Python, launches and framework hooks take a fixed time per layer and
  micro-step; a micro-step never ends sooner (``layer_seconds``, per framework).
* **Contention**: data-parallel collectives that run beside the kernels take some of
  the card's cores and memory bandwidth; the kernels slow by ``contention`` times the
  communication they hide.

``matmul``, ``attention``, ``flash`` and ``expert_matmul`` depend on the card's
generation; the widths, tokens and byte counts are the same for every card. All of them
are fitted on measured and published training runs (``make measured-fit``;
``benchmarks/measured_runs.json``, ``benchmarks/published_runs.json``; the tables and
the held-out errors are in ``docs/TIME.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..framework import Framework
from .gpus import Generation

#: a node's CPU memory bandwidth, GB/s, before a fit (a two-socket server)
HOST_MEMORY_GBPS = 100


@dataclass(frozen=True)
class KernelModel:
    """One card generation's kernel efficiencies (see the module's docstring)."""

    #: share of the peak wide matrix products reach
    matmul: Fraction
    #: how many times faster FP8 products run than 16-bit ones (the datasheet says 2;
    #: scaling, casts and the 16-bit parts of each product take some of it)
    fp8_gain: Fraction
    #: share of the peak the fused attention kernels (forward and backward) reach, of
    #: PaLM's count, which counts every score: a causal kernel skips the masked half,
    #: so the share may exceed 1 (at most 2)
    attention: Fraction
    #: per-GPU product width at which products run at half of ``matmul``
    width_half: int
    #: tokens' worth of products each micro-step pays on top of its own
    tokens_half: int
    #: sequence length at which attention runs at half of ``attention``
    seq_half: int
    #: element-wise values read or written per hidden unit, token and layer (fwd + bwd)
    elementwise_values: int
    #: fp32 logits values read or written per vocabulary entry and token by the loss
    logit_values: int
    #: eager attention: 16-bit values read or written per score (fwd + bwd)
    score_values: int
    #: host-side work per layer and micro-step (forward + backward): Python, kernel
    #: launches, framework hooks. A micro-step takes at least this long per layer even
    #: when its kernels are shorter (the GPU waits for the host), seconds
    layer_seconds: Fraction
    #: the kernels' slowdown per second of communication hidden behind them
    contention: Fraction = Fraction(0)
    #: share of the matrix products' rate a mixture of experts' grouped expert products
    #: reach (narrow products, few tokens per expert)
    expert_matmul: Fraction = Fraction(1)
    #: values read or written per hidden unit of each routed token copy and sparse
    #: layer (forward + backward): the token permutation around the experts
    permute_values: int = 0
    #: the framework's own work once per optimizer step (zeroing, scaling, clipping,
    #: logging), seconds
    step_seconds: Fraction = Fraction(0)
    #: fixed time of one collective call inside a node and across nodes, seconds
    latency_intra: Fraction = Fraction(0)
    latency_inter: Fraction = Fraction(0)
    #: share of a PCIe link's rate collectives reach (no NVLink: rings cross the PCIe
    #: switches and the host bridge)
    pcie_efficiency: Fraction = Fraction(8, 10)
    #: a node's CPU memory bandwidth its GPUs' CPU optimizers share (ZeRO-Offload), GB/s
    host_memory_gbps: int = HOST_MEMORY_GBPS
    #: the flash-attn packages' own kernel's share, as ``attention`` (FlashAttention 3
    #: on Hopper, 4 on Blackwell); None: no measured run to fit, ``attention``'s
    flash: Fraction | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fp8_gain, Fraction) or not 1 <= self.fp8_gain <= 2:
            raise ValueError(f"fp8_gain must be a Fraction in [1, 2], got {self.fp8_gain!r}")
        for name in ("matmul", "expert_matmul", "pcie_efficiency"):
            value = getattr(self, name)
            if not isinstance(value, Fraction) or not 0 < value <= 1:
                raise ValueError(f"{name} must be a Fraction in (0, 1], got {value!r}")
        for name in ("attention", "flash"):
            value = getattr(self, name)
            if name == "flash" and value is None:
                continue
            if not isinstance(value, Fraction) or not 0 < value <= 2:
                raise ValueError(f"{name} must be a Fraction in (0, 2], got {value!r}")
        for name in (
            "width_half",
            "tokens_half",
            "seq_half",
            "elementwise_values",
            "logit_values",
            "score_values",
            "permute_values",
            "host_memory_gbps",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        for name in (
            "layer_seconds",
            "contention",
            "step_seconds",
            "latency_intra",
            "latency_inter",
        ):
            value = getattr(self, name)
            if not isinstance(value, Fraction) or value < 0:
                raise ValueError(f"{name} must be a Fraction >= 0, got {value!r}")

    def matmul_share(self, width: int | None) -> Fraction:
        """Share of the 16-bit peak products ``width`` wide reach (None: unknown, the
        widest); FP8 products run ``fp8_gain`` times as fast."""
        if width is None:
            return self.matmul
        return self.matmul * Fraction(width, width + self.width_half)

    def attention_share(self, seq_len: int, flash: bool = False) -> Fraction:
        """Share of the 16-bit peak the fused attention kernels reach on ``seq_len``
        tokens (``flash``: the flash-attn packages' own kernel)."""
        share = self.flash if flash and self.flash is not None else self.attention
        return share * Fraction(seq_len, seq_len + self.seq_half)


#: shared by every generation (``make measured-table`` --fit on the measured runs that
#: are not held out, then copied here by a person)
SHARED: dict[str, int | Fraction] = {
    "width_half": 115,
    "tokens_half": 616,
    "seq_half": 2786,
    "elementwise_values": 31,
    "logit_values": 6,
    "score_values": 27,
    "permute_values": 3,
    "contention": Fraction(27, 269765),
    "fp8_gain": Fraction(1416602, 726665),
    "latency_intra": Fraction(57, 668240),
    "latency_inter": Fraction(0, 1),
    "pcie_efficiency": Fraction(217561, 649636),
    "host_memory_gbps": 142,
}

#: per fitted generation: matmul, attention, expert_matmul
SHARES: dict[Generation, dict[str, Fraction]] = {
    Generation.AMPERE: {
        "matmul": Fraction(504, 593),
        "attention": Fraction(579, 1000),
        "expert_matmul": Fraction(1, 1),
    },
    Generation.BLACKWELL: {
        "matmul": Fraction(128, 265),
        "attention": Fraction(334, 395),
        "expert_matmul": Fraction(321, 790),
        "flash": Fraction(673, 666),
    },
    Generation.HOPPER: {
        "matmul": Fraction(218, 345),
        "attention": Fraction(197, 605),
        "expert_matmul": Fraction(425, 853),
        "flash": Fraction(237, 221),
    },
}

#: per framework: the host's work per layer and micro-step, the framework's own work
#: per optimizer step (the frameworks run different Python around the same kernels)
FRAMEWORKS: dict[Framework, dict[str, Fraction]] = {
    Framework.DEEPSPEED: {
        "layer_seconds": Fraction(960, 364463),
        "step_seconds": Fraction(11145, 740584),
    },
    Framework.MEGATRON: {
        "layer_seconds": Fraction(5474, 993887),
        "step_seconds": Fraction(7093, 904257),
    },
    Framework.FSDP: {
        "layer_seconds": Fraction(577, 516952),
        "step_seconds": Fraction(6052, 493709),
    },
}

#: generations without measured runs to fit take the nearest one's shares
_LIKE = {
    Generation.VOLTA: Generation.AMPERE,
    Generation.TURING: Generation.AMPERE,
    Generation.ADA: Generation.AMPERE,
    Generation.AMPERE: Generation.AMPERE,
    Generation.HOPPER: Generation.HOPPER,
    Generation.BLACKWELL: Generation.BLACKWELL,
    Generation.CDNA3: Generation.HOPPER,
}

#: generations whose shares were fitted on measured runs (the others borrow them)
FITTED = frozenset(SHARES)


def fitted_like(generation: Generation) -> Generation:
    """The fitted generation whose shares ``generation`` takes."""
    return _LIKE[generation]


def kernel_model(generation: Generation, framework: Framework = Framework.DEEPSPEED) -> KernelModel:
    """The efficiency model of ``generation`` (borrowed from the nearest fitted one) under
    ``framework``."""
    values: dict[str, Any] = {**SHARED, **SHARES[_LIKE[generation]], **FRAMEWORKS[framework]}
    return KernelModel(**values)
