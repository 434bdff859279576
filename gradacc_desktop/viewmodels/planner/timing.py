"""Time per step in words: the pairs table's time cells, the "Time per step" card
(the configuration in use, the fastest pair that fits, the run's totals).

One ``StepModel`` per refresh times every candidate pair (``core.steptime``)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import final

from gradacc_desktop.core.compute import Recompute, significant, to_decimal, token_cost
from gradacc_desktop.core.gpus import GpuCard, TrainingPrecision
from gradacc_desktop.core.layout import ParallelLayout
from gradacc_desktop.core.memory import ZeroStage
from gradacc_desktop.core.model_size import ModelSize
from gradacc_desktop.core.planning import PlanPair, steps_per_epoch
from gradacc_desktop.core.profile import Mismatch, SpeedProfile, profile_mismatches
from gradacc_desktop.core.steptime import (
    NoSpeedError,
    RunTotals,
    StepModel,
    StepTime,
    Workload,
    hardware,
    run_totals,
)
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import TimeView

#: significant digits of a time or a rate
DIGITS = 3


@dataclass(frozen=True)
class TimeRequest:
    """What the time model needs besides the pairs."""

    #: a bundled model, or None when the parameters are typed in
    model: ModelSize | None
    params: int | None
    seq_len: int | None
    card: GpuCard | None
    precision: TrainingPrecision
    zero: ZeroStage
    nodes: int
    layout: ParallelLayout
    recompute: Recompute
    #: None: the card's own
    efficiency_percent: Decimal | None
    price: Decimal | None
    tokens: int | None
    dataset: int | None
    #: activation per sample of the whole model on one GPU (GB)
    activation_gb: Decimal
    #: passes over the dataset (None: one)
    epochs: int | None = None
    #: a refused optional time field, already worded (no time while there is one)
    problem: str | None = None
    #: measured micro-step times in place of the roofline
    profile: SpeedProfile | None = None


@dataclass(frozen=True)
class PairTime:
    step: str
    throughput: str


@final
class TimingTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    # -- numbers ----------------------------------------------------------------
    def _n(self, value: Fraction, digits: int = DIGITS) -> str:
        return self._formats.format(significant(value, digits))

    def seconds(self, value: Fraction) -> str:
        return self.tr("{value} s").format(value=self._n(value))

    def duration(self, seconds: Fraction) -> str:
        """A run's wall-clock time: seconds, minutes, hours or days as fits."""
        if seconds < 60:
            return self.seconds(seconds)
        if seconds < 3600:
            return self.tr("{value} min").format(value=self._n(seconds / 60))
        if seconds < 2 * 86_400:
            return self.tr("{value} h").format(value=self._n(seconds / 3600))
        return self.tr("{value} days").format(value=self._n(seconds / 86_400))

    def percent(self, value: Fraction) -> str:
        return self.tr("{value} %").format(value=self._formats.format(to_decimal(value * 100, 1)))

    def rate(self, value: Fraction) -> str:
        rounded = significant(value, DIGITS)
        if rounded >= 1000:
            rounded = rounded.to_integral_value()
        return self._formats.format(rounded)

    # -- the model ----------------------------------------------------------------
    def step_model(self, request: TimeRequest) -> StepModel | str:
        """The step model for ``request``, or why there is none (a sentence)."""
        r = request
        if r.problem is not None:
            return r.problem
        if r.model is None and r.params is None:
            return self.tr(
                "Choose the model, or type its parameters, under “Time and cost” in the "
                "Trainer configs tab to see the time per step."
            )
        if r.seq_len is None:
            return self.tr("Type the sequence length (under Tokens and steps) to see the time.")
        if r.card is None or r.card.performance is None:
            return self.tr(
                "The custom card has no speed figures: type them under “View the card’s "
                "speed…” (Trainer configs tab), or choose a GPU model."
            )
        if r.layout.world % r.nodes:
            return self.tr("The GPUs do not split evenly over the nodes: no time per step.")
        efficiency = None
        if r.efficiency_percent is not None:
            efficiency = r.efficiency_percent / 100
        try:
            hw = hardware(r.card, r.precision, r.layout.world // r.nodes, efficiency)
        except NoSpeedError:
            return self.tr(
                "{card} cannot compute in {precision}: choose another precision."
            ).format(card=r.card.name, precision=r.precision.value)
        hidden: int | None = None
        layers: int | None = None
        if r.model is not None:
            cost = token_cost(r.model.compute_params, r.model.shape, r.seq_len, r.recompute)
            hidden, layers = r.model.hidden, r.model.layers
        else:
            assert r.params is not None
            cost = token_cost(r.params, recompute=r.recompute)
        workload = Workload(
            cost=cost,
            seq_len=r.seq_len,
            layout=r.layout,
            zero_stage=r.zero,
            precision=r.precision,
            hidden=hidden,
            layers=layers,
            activation_bytes_per_sample=int(r.activation_gb * 10**9),
        )
        return StepModel(workload, hw, r.profile)

    # -- the views ------------------------------------------------------------------
    def pair_times(
        self, model: StepModel, pairs: dict[int, PlanPair]
    ) -> tuple[dict[int, StepTime], dict[int, PairTime]]:
        times = {b: model.time(b, p.accumulation_steps) for b, p in pairs.items()}
        cells = {
            b: PairTime(
                self.seconds(t.step_seconds),
                self.rate(t.tokens_per_second),
            )
            for b, t in times.items()
        }
        return times, cells

    def unavailable(self, reason: str) -> TimeView:
        return TimeView(available=False, message=reason)

    def view(
        self,
        request: TimeRequest,
        model: StepModel,
        current: StepTime | None,
        fastest: StepTime | None,
    ) -> TimeView:
        """The card: the configuration in use, the fastest fitting pair, the run."""
        if current is None:
            return self.unavailable(self.tr("No configuration to time."))
        f = self._formats.format
        t = current
        summary = self.tr(
            "{step} per optimizer step · {tokens} tokens/s ({per_gpu} per GPU)"
        ).format(
            step=self.seconds(t.step_seconds),
            tokens=self.rate(t.tokens_per_second),
            per_gpu=self.rate(t.tokens_per_second_per_gpu),
        )
        utilisation = self.tr("MFU {mfu} · HFU {hfu} of {peak} TFLOP/s per GPU").format(
            mfu=self.percent(t.mfu),
            hfu=self.percent(t.hfu),
            peak=f(significant(t.peak_flops / 10**12, 4)),
        )
        shares = self.tr(
            "Exposed communication {communication} of the step · pipeline bubble {bubble}"
        ).format(
            communication=self.percent(t.communication_fraction),
            bubble=self.percent(t.bubble_fraction),
        )
        if t.memory_bound:
            shares += " · " + self.tr("memory-bound micro-step")
        layout = request.layout
        world = self.tr(
            "World size {world} = {data} data-parallel × {tensor} tensor × {pipeline} pipeline"
        ).format(
            world=f(layout.world),
            data=f(layout.data),
            tensor=f(layout.tensor),
            pipeline=f(layout.pipeline),
        )
        fastest_text, fastest_micro = self._fastest(t, fastest)
        return TimeView(
            available=True,
            message="",
            summary=summary,
            utilisation=utilisation,
            shares=shares,
            layout=world,
            fastest=fastest_text,
            fastest_micro_batch=fastest_micro,
            run=self._run(request, t),
            note=self._note(request, model, t),
        )

    def _mismatch(self, what: Mismatch, measured: str, planned: str) -> str:
        text = {
            Mismatch.SEQ_LEN: self.tr(
                "Warning: measured at sequence length {measured}, planned at {planned}."
            ),
            Mismatch.DTYPE: self.tr("Warning: measured in {measured}, planned in {planned}."),
            Mismatch.RECOMPUTE: self.tr(
                "Warning: measured with recomputation {measured}, planned with {planned}."
            ),
        }[what]
        return text.format(measured=measured, planned=planned)

    def _fastest(self, current: StepTime, fastest: StepTime | None) -> tuple[str, int | None]:
        if fastest is None:
            return "", None
        f = self._formats.format
        if fastest.micro_batch == current.micro_batch:
            return self.tr("This is the fastest pair that fits and reaches this batch."), None
        gain = fastest.tokens_per_second / current.tokens_per_second - 1
        text = self.tr(
            "Fastest pair that fits: {micro} × {steps} — {step} per step, {tokens} tokens/s "
            "({gain} faster)."
        ).format(
            micro=f(fastest.micro_batch),
            steps=f(fastest.accumulation_steps),
            step=self.seconds(fastest.step_seconds),
            tokens=self.rate(fastest.tokens_per_second),
            gain=self.percent(gain),
        )
        return text, fastest.micro_batch

    def _run(self, request: TimeRequest, step: StepTime) -> tuple[str, ...]:
        """The run's totals: one epoch of the dataset, the token budget."""
        lines = []
        f, price = self._formats.format, request.price
        if request.dataset is not None:
            epochs = request.epochs or 1
            steps = epochs * steps_per_epoch(request.dataset, step.effective_batch).keep_last
            totals = run_totals(step, steps=steps, price_per_gpu_hour=price)
            if epochs == 1:
                head = self.tr("One epoch ({steps} steps)").format(steps=f(steps))
            else:
                head = self._formats.counted(
                    lambda n: self.tr("%n epoch(s) ({steps} steps)", "", n), epochs
                ).format(steps=f(steps))
            lines.append(self._totals(head, totals))
        if request.tokens is not None:
            totals = run_totals(step, tokens=request.tokens, price_per_gpu_hour=price)
            head = self.tr("{tokens} tokens ({steps} steps)").format(
                tokens=f(request.tokens), steps=f(totals.steps)
            )
            lines.append(self._totals(head, totals))
        return tuple(lines)

    def _totals(self, head: str, totals: RunTotals) -> str:
        text = self.tr("{head}: {time}, {gpu_hours} GPU-hours").format(
            head=head,
            time=self.duration(totals.seconds),
            gpu_hours=self._formats.format(to_decimal(totals.gpu_hours, 1)),
        )
        if totals.cost is not None:
            text += self.tr(", cost {cost}").format(
                cost=self._formats.format(to_decimal(totals.cost, 2))
            )
        return text

    def _note(self, request: TimeRequest, model: StepModel, current: StepTime) -> str:
        profile = request.profile
        if profile is None:
            parts = [
                self.tr(
                    "A roofline estimate (docs/TIME.md): compute at {efficiency} of the peak "
                    "or memory bandwidth, whichever is slower, plus the communication not "
                    "hidden behind it."
                ).format(efficiency=self.percent(model.hardware.efficiency))
            ]
        else:
            parts = [
                self.tr(
                    "Micro-steps measured on {device} ({model}), interpolated between the "
                    "measured sizes; communication, bubble and optimizer estimated."
                ).format(device=profile.device, model=profile.model)
            ]
            if not profile.covers(current.micro_batch):
                parts.append(
                    self.tr(
                        "Micro-batch {micro} is outside the measured {low}–{high}: extrapolated."
                    ).format(
                        micro=self._formats.format(current.micro_batch),
                        low=self._formats.format(profile.smallest),
                        high=self._formats.format(profile.largest),
                    )
                )
            w = model.workload
            for what, measured, planned in profile_mismatches(
                profile, w.seq_len, w.precision, w.cost.recompute
            ):
                parts.append(self._mismatch(what, measured, planned))
        if not model.workload.counts_model_traffic:
            parts.append(
                self.tr(
                    "Tensor- and pipeline-parallel traffic is not counted without the "
                    "model's shape: choose a bundled model."
                )
            )
        return " ".join(parts)
