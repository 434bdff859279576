"""Compute per token, FLOPs utilisation and the end-to-end training-time estimate.

Pure Python, exact (``Fraction`` inside, ``Decimal`` for what a user reads).

* Model FLOPs per token (PaLM, Chowdhery et al. 2022, appendix B): ``6N + 12·L·H·Q·T``
  for a dense decoder with ``N`` parameters, ``L`` layers, ``H`` heads of size ``Q`` and
  sequence length ``T``: 2N for the forward pass's matrix products, 4N for the backward
  pass's, and the attention scores and their weighted sum (``QKᵀ`` and ``AV``, 2·2·L·H·Q·T
  forward, twice that backward). Without the model's shape only ``6N`` is counted.
* Hardware FLOPs: with full activation recomputation the forward runs twice, so every
  token costs ``4/3`` of the model FLOPs (``8N + 16·L·H·Q·T``); with selective
  recomputation only the attention core's forward runs twice (``6N + 16·L·H·Q·T``,
  Korthikanti et al. 2022); with per-op selective recomputation the products it does not
  keep run once more (``6N·(1 + r/3)``, ``r`` their share of the layers' product FLOPs:
  about 0.36 for Llama 3). Model FLOPs utilisation
  (MFU) divides the *model* FLOPs a second achieves by the peak; hardware FLOPs
  utilisation (HFU) divides the *hardware* FLOPs (PaLM, section 4.1 and appendix B).
* Training time (Narayanan et al. 2021, section 5.1): ``8·T·P / (n·X)`` seconds for ``T``
  tokens, ``P`` parameters, ``n`` GPUs at ``X`` hardware FLOP/s each, with full
  recomputation; in general ``T · hardware FLOPs per token / (n·X)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cached_property

from ..limits import Limits, require_positive_int, whole
from ..recompute import Recompute

SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400
TERA = 10**12


# Input ranges (the CLI's and the window's fields)
PARAMS_LIMITS = whole(1, 10**15)
TOKENS_LIMITS = whole(1, 10**18)
EPOCHS_LIMITS = whole(1, 100_000)
GPU_COUNT_LIMITS = whole(1, 10**7)
#: rates and shares as logs and papers print them (up to six decimals: 0.4625, 147.25)
TFLOPS_LIMITS = Limits(Decimal("0.000001"), Decimal(100_000), integer=False, decimals=6)
UTILISATION_LIMITS = Limits(Decimal("0.000001"), Decimal(1), integer=False, decimals=6)
#: the share of the wall-clock time spent training (restarts and checkpoints take the rest)
GOODPUT_LIMITS = Limits(Decimal("0.01"), Decimal(1), integer=False, decimals=4)
#: a link's or the network's rate per GPU and direction (GB/s)
BANDWIDTH_LIMITS = Limits(Decimal("0.001"), Decimal(100_000), integer=False, decimals=3)
PRICE_LIMITS = Limits(Decimal(0), Decimal(1_000_000), integer=False, decimals=4)
#: the share of the peak a card's kernels reach, as the window asks it: in percent
EFFICIENCY_PERCENT_LIMITS = Limits(Decimal("0.1"), Decimal(100), integer=False, decimals=1)


#: a term's hardware FLOPs over its model FLOPs when its forward runs once more: the
#: forward is a third of forward + backward (2N of 6N, and a third of the attention's)
REPEATED = Fraction(4, 3)


ONCE = Fraction(1)


def attention_factor(recompute: Recompute) -> Fraction:
    """Hardware over model FLOPs of the attention core: 4/3 when it is recomputed,
    selectively or with its layer."""
    return REPEATED if recompute.repeats_attention else ONCE


def _positive_number(name: str, value: Fraction | Decimal | int) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, Fraction | Decimal | int):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if isinstance(value, Decimal) and not value.is_finite():
        raise ValueError(f"{name} must be finite, got {value!r}")
    exact = Fraction(value)
    if exact <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return exact


@dataclass(frozen=True)
class Shape:
    """What the attention term needs: layers, heads and the size of one head."""

    layers: int
    heads: int
    head_dim: int

    def __post_init__(self) -> None:
        require_positive_int("layers", self.layers)
        require_positive_int("heads", self.heads)
        require_positive_int("head_dim", self.head_dim)


@dataclass(frozen=True)
class TokenCost:
    """FLOPs to train on one token (forward and backward)."""

    #: N, the parameters counted in 6N
    params: int
    #: 6N; with adapters on a frozen base, 4N + 6T (see ``token_cost``)
    dense: int
    #: 12·L·H·Q·T (0 without the model's shape)
    attention: int
    recompute: Recompute
    #: T, the adapters' parameters (None: every parameter is trained)
    trained: int | None = None
    #: the share of the layers' product FLOPs whose forward runs again (1 with full
    #: recomputation; ``core.memory.activation.repeated_products``)
    repeated: Fraction = Fraction(0)

    @property
    def dense_passes(self) -> Fraction:
        """Hardware over model FLOPs of the dense products: 1 + r/3 (4/3 with the
        layers recomputed)."""
        return 1 + (REPEATED - 1) * self.repeated

    @property
    def elementwise_passes(self) -> Fraction:
        """How many times the layers' element-wise work runs per forward + backward."""
        return REPEATED if self.recompute.repeats_elementwise else ONCE

    @property
    def model(self) -> int:
        """Model FLOPs per token: the dense term + 12·L·H·Q·T."""
        return self.dense + self.attention

    @cached_property  # the step time asks for it once per pair
    def hardware(self) -> Fraction:
        """Hardware FLOPs per token: the model FLOPs with the recomputed forwards — × 4/3
        with full recomputation; the attention term's × 4/3 only with selective (the
        attention core's forward, a third of its 12·L·H·Q·T, runs once more)."""
        return self.dense * self.dense_passes + self.attention * attention_factor(self.recompute)

    @property
    def recompute_factor(self) -> Fraction:
        """Hardware FLOPs over model FLOPs (HFU over MFU)."""
        return self.hardware / self.model


def token_cost(
    params: int,
    shape: Shape | None = None,
    seq_len: int | None = None,
    recompute: Recompute = Recompute.NONE,
    trained: int | None = None,
    repeated: Fraction | None = None,
) -> TokenCost:
    """FLOPs per token for ``params`` parameters; the attention term needs the shape
    and the sequence length (both or neither).

    ``trained``: the adapters' parameters T when only they train (LoRA): the frozen
    base still runs its forward (2N) and passes the gradient back through every layer
    (2N), but computes no gradient for its own weights, which is 2N less than 6N; the
    adapters cost 6T. Hu et al. 2021 (LoRA, §4.2) report the same saving.

    ``repeated``: the share of the products recomputed (None: all with full
    recomputation, none otherwise; per-op selective recomputation needs it)."""
    require_positive_int("params", params)
    if trained is not None:
        require_positive_int("trained", trained)
    if (shape is None) != (seq_len is None):
        raise ValueError("the attention term needs both the shape and the sequence length")
    attention = 0
    if shape is not None and seq_len is not None:
        require_positive_int("seq_len", seq_len)
        attention = 12 * shape.layers * shape.heads * shape.head_dim * seq_len
    dense = 6 * params if trained is None else 4 * params + 6 * trained
    if repeated is None:
        if recompute is Recompute.SELECTIVE_OP:
            raise ValueError("per-op selective recomputation needs the share it repeats")
        repeated = Fraction(1 if recompute.repeats_layers else 0)
    if not 0 <= repeated <= 1:
        raise ValueError(f"the repeated share must be in [0, 1], got {repeated}")
    return TokenCost(params, dense, attention, recompute, trained, repeated)


def utilisation(
    flops_per_token: Fraction | int, tokens_per_second: Fraction, peak: Fraction
) -> Fraction:
    """Achieved FLOP/s over the peak: MFU with model FLOPs, HFU with hardware FLOPs.

    ``tokens_per_second`` and ``peak`` are per device (or both totals)."""
    return Fraction(flops_per_token) * tokens_per_second / _positive_number("peak", peak)


@dataclass(frozen=True)
class TrainingTime:
    """Wall-clock time, GPU time and cost of training on a number of tokens."""

    tokens: int
    gpus: int
    cost_per_token: TokenCost
    #: hardware FLOP/s per GPU
    achieved_flops: Fraction
    #: the card's dense peak FLOP/s (None when the speed was given as achieved FLOP/s)
    peak_flops: Fraction | None
    #: wall-clock: the training time over the goodput
    seconds: Fraction
    price_per_gpu_hour: Decimal | None
    #: share of the wall-clock time spent training (None: all of it)
    goodput: Decimal | None = None

    @property
    def training_seconds(self) -> Fraction:
        """The time spent training, without restarts and checkpoints."""
        return self.seconds * (1 if self.goodput is None else Fraction(self.goodput))

    @property
    def tokens_per_second(self) -> Fraction:
        """While training (the goodput does not slow a step)."""
        return self.tokens / self.training_seconds

    @property
    def tokens_per_second_per_gpu(self) -> Fraction:
        return self.tokens_per_second / self.gpus

    @property
    def model_flops_per_gpu(self) -> Fraction:
        """Model FLOP/s per GPU (what MFU divides)."""
        return self.achieved_flops / self.cost_per_token.recompute_factor

    @property
    def mfu(self) -> Fraction | None:
        return None if self.peak_flops is None else self.model_flops_per_gpu / self.peak_flops

    @property
    def hfu(self) -> Fraction | None:
        return None if self.peak_flops is None else self.achieved_flops / self.peak_flops

    @property
    def hours(self) -> Fraction:
        return self.seconds / SECONDS_PER_HOUR

    @property
    def days(self) -> Fraction:
        return self.seconds / SECONDS_PER_DAY

    @property
    def gpu_hours(self) -> Fraction:
        return self.hours * self.gpus

    @property
    def cost(self) -> Fraction | None:
        if self.price_per_gpu_hour is None:
            return None
        return self.gpu_hours * Fraction(self.price_per_gpu_hour)


def training_time(
    tokens: int,
    gpus: int,
    cost_per_token: TokenCost,
    *,
    achieved_flops: Fraction | Decimal | int | None = None,
    peak_flops: Fraction | Decimal | int | None = None,
    mfu: Fraction | Decimal | None = None,
    price_per_gpu_hour: Decimal | None = None,
    goodput: Decimal | None = None,
) -> TrainingTime:
    """Narayanan et al.'s estimate ``T · FLOPs per token / (n · X)``.

    Give the speed one way: ``achieved_flops`` (hardware FLOP/s per GPU, counting
    recomputation; ``peak_flops`` optional, for MFU/HFU), or ``peak_flops`` with ``mfu``
    (model FLOPs utilisation; the hardware rate is then ``mfu · peak · 4/3`` with full
    recomputation). ``goodput``: the share of the wall-clock time spent training; the
    time, GPU-hours and cost are stretched by its inverse.

    The tokens flow at the given rate, with no optimizer step to round to: this is the
    estimate of a rate typed in (``gradacc time --achieved-tflops`` / ``--mfu``). A run
    whose step is modelled is whole steps: ``step_results.run_totals``."""
    require_positive_int("tokens", tokens)
    require_positive_int("gpus", gpus)
    peak = None if peak_flops is None else _positive_number("peak_flops", peak_flops)
    factor = cost_per_token.recompute_factor
    if achieved_flops is not None:
        if mfu is not None:
            raise ValueError("give achieved_flops or mfu, not both")
        rate = _positive_number("achieved_flops", achieved_flops)
    else:
        if mfu is None or peak is None:
            raise ValueError("without achieved_flops, give peak_flops and mfu")
        utilisation_ = _positive_number("mfu", mfu)
        if utilisation_ > 1:
            raise ValueError(f"mfu must be at most 1, got {mfu!r}")
        rate = utilisation_ * peak * factor
    require_price(price_per_gpu_hour)
    seconds = tokens * cost_per_token.hardware / (gpus * rate) / require_goodput(goodput)
    return TrainingTime(
        tokens, gpus, cost_per_token, rate, peak, seconds, price_per_gpu_hour, goodput
    )


def require_goodput(goodput: Decimal | None) -> Fraction:
    """``goodput`` as a Fraction in (0, 1] (None: 1); ``ValueError`` otherwise. The one
    check of a goodput: the token estimate here and a run's totals
    (``step_results.run_totals``) both call it."""
    if goodput is None:
        return Fraction(1)
    if not isinstance(goodput, Decimal) or not goodput.is_finite() or not 0 < goodput <= 1:
        raise ValueError(f"goodput must be in (0, 1], got {goodput!r}")
    return Fraction(goodput)


def require_price(price_per_gpu_hour: Decimal | None) -> None:
    """Raise ``ValueError`` unless the price is None or a finite Decimal >= 0."""
    if price_per_gpu_hour is not None and (
        not price_per_gpu_hour.is_finite() or price_per_gpu_hour < 0
    ):
        raise ValueError(f"price_per_gpu_hour must be >= 0, got {price_per_gpu_hour!r}")


def to_decimal(value: Fraction, places: int = 6) -> Decimal:
    """``value`` rounded half-even to ``places`` decimal places, as a Decimal for display."""
    quantum = Decimal(1).scaleb(-places)
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(quantum).normalize() if exact != 0 else Decimal(0)


def significant(value: Fraction, digits: int = 4) -> Decimal:
    """``value`` to ``digits`` significant digits (half-even), as a plain Decimal."""
    if value == 0:
        return Decimal(0)
    with localcontext() as ctx:
        ctx.prec = max(digits + 30, 40)
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        ctx.prec = digits
        rounded = +exact
    return rounded
