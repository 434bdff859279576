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
  16 bits, against the 16-bit peak, also when the products run in FP8.
  Eager attention (no fused kernel) runs its two products at the matrix products' rate
  and reads and writes ``score_values`` times each of its ``heads · s²`` scores per
  layer (softmax, mask, dropout; forward and backward) at the memory bandwidth.
* **Element-wise work** (norms, activations, dropout, residuals, rotary, the loss's
  softmax): memory-bound, ``values`` reads and writes of ``h / tp`` values per token and
  layer (fwd + bwd) at the memory bandwidth, plus the loss's reads and writes of the
  vocabulary's logits in fp32.
* **Launch gaps**: a fixed time per layer and micro-step.
* **Contention**: data-parallel collectives that run beside the kernels take some of
  the card's cores and memory bandwidth; the kernels slow by ``contention`` times the
  communication they hide.

``matmul`` and ``attention`` depend on the card's generation; the widths, tokens and
byte counts are the same for every card. All of them were fitted on published training
runs (``benchmarks/published_runs.json``; ``make time-table`` prints the fit and the
held-out error into ``docs/TIME.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .gpus import Generation


@dataclass(frozen=True)
class KernelModel:
    """One card generation's kernel efficiencies (see the module's docstring)."""

    #: share of the peak wide matrix products reach
    matmul: Fraction
    #: how many times faster FP8 products run than 16-bit ones (the datasheet says 2;
    #: scaling, casts and the 16-bit parts of each product take some of it)
    fp8_gain: Fraction
    #: share of the peak the flash-attention kernels (forward and backward) reach
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
    #: launch gaps per layer and micro-step (forward + backward), seconds
    layer_seconds: Fraction
    #: the kernels' slowdown per second of communication hidden behind them
    contention: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if not isinstance(self.fp8_gain, Fraction) or not 1 <= self.fp8_gain <= 2:
            raise ValueError(f"fp8_gain must be a Fraction in [1, 2], got {self.fp8_gain!r}")
        for name in ("matmul", "attention"):
            value = getattr(self, name)
            if not isinstance(value, Fraction) or not 0 < value <= 1:
                raise ValueError(f"{name} must be a Fraction in (0, 1], got {value!r}")
        for name in (
            "width_half",
            "tokens_half",
            "seq_half",
            "elementwise_values",
            "logit_values",
            "score_values",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        for name in ("layer_seconds", "contention"):
            value = getattr(self, name)
            if not isinstance(value, Fraction) or value < 0:
                raise ValueError(f"{name} must be a Fraction >= 0, got {value!r}")

    def matmul_share(self, width: int | None) -> Fraction:
        """Share of the 16-bit peak products ``width`` wide reach (None: unknown, the
        widest); FP8 products run ``fp8_gain`` times as fast."""
        if width is None:
            return self.matmul
        return self.matmul * Fraction(width, width + self.width_half)

    def attention_share(self, seq_len: int) -> Fraction:
        return self.attention * Fraction(seq_len, seq_len + self.seq_half)


#: shared by every generation: fitted widths, tokens and bytes (``make time-table``
#: --fit; the fit leaves attention's sequence dependence and the launch gaps at almost
#: nothing on these runs: every one had sequences of 2 048 or more)
_WIDTH_HALF = 317
_TOKENS_HALF = 87
_SEQ_HALF = 2
_ELEMENTWISE_VALUES = 73
_LOGIT_VALUES = 6
_SCORE_VALUES = 16
_LAYER_SECONDS = Fraction(1, 10_000_000)
_CONTENTION = Fraction(59, 1000)

#: the fit ends at the datasheet's 2 (Transformer Engine's FP8 on H100 and B200)
_FP8_GAIN = Fraction(2)

#: (matmul, attention) per fitted generation
_SHARES = {
    Generation.AMPERE: (Fraction(720, 1000), Fraction(750, 1000)),
    Generation.HOPPER: (Fraction(564, 1000), Fraction(681, 1000)),
}

#: generations without published runs to fit take the nearest one's shares
_LIKE = {
    Generation.VOLTA: Generation.AMPERE,
    Generation.TURING: Generation.AMPERE,
    Generation.ADA: Generation.AMPERE,
    Generation.AMPERE: Generation.AMPERE,
    Generation.HOPPER: Generation.HOPPER,
    Generation.BLACKWELL: Generation.HOPPER,
    Generation.CDNA3: Generation.HOPPER,
}

#: generations whose shares were fitted on published runs (the others borrow them)
FITTED = frozenset({Generation.AMPERE, Generation.HOPPER})


def fitted_like(generation: Generation) -> Generation:
    """The fitted generation whose shares ``generation`` takes."""
    return _LIKE[generation]


def kernel_model(generation: Generation) -> KernelModel:
    """The efficiency model of ``generation`` (borrowed from the nearest fitted one)."""
    matmul, attention = _SHARES[_LIKE[generation]]
    return KernelModel(
        matmul=matmul,
        fp8_gain=_FP8_GAIN,
        attention=attention,
        width_half=_WIDTH_HALF,
        tokens_half=_TOKENS_HALF,
        seq_half=_SEQ_HALF,
        elementwise_values=_ELEMENTWISE_VALUES,
        logit_values=_LOGIT_VALUES,
        score_values=_SCORE_VALUES,
        layer_seconds=_LAYER_SECONDS,
        contention=_CONTENTION,
    )
