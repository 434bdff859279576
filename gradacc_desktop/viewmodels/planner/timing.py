"""Time per step in words: the pairs table's time cells, the "Time per step" card
(the configuration in use, where its step's time goes, the fastest pair that fits and
which parts make it faster; the run's totals are ``cost``'s) — all from the one plan
(``core.training.plan``), which times every pair and picks the fastest."""

from __future__ import annotations

from fractions import Fraction
from typing import final

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.memory import NOTE_TEXT
from gradacc_desktop.core.memory.setup import SERVER_GPUS
from gradacc_desktop.core.time import (
    CUSTOM_ID,
    FITTED,
    PART_NAMES,
    Generation,
    Mismatch,
    StepModel,
    StepTime,
    Uncounted,
    fitted_like,
    profile_mismatches,
    significant,
    to_decimal,
)
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import Plan, TimeMissing
from gradacc_desktop.core.training.problems import ProblemKind, problem_text
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import TimePart, TimeView

#: significant digits of a time or a rate
DIGITS = 3
#: a part that moves the step by less than this share of it does not explain a difference
#: between two pairs (unless nothing moves more)
NOTABLE_SHARE = Fraction(1, 100)
#: at most this many parts explain a difference
DIFFERENCE_PARTS = 3
#: a typographic minus for the signed seconds of a difference ("−0.62 s")
MINUS = "\u2212"
NBSP = "\u00a0"
#: the architectures' names (proper names: not translated)
GENERATION_NAMES = {
    Generation.VOLTA: "Volta",
    Generation.TURING: "Turing",
    Generation.AMPERE: "Ampere",
    Generation.ADA: "Ada Lovelace",
    Generation.HOPPER: "Hopper",
    Generation.BLACKWELL: "Blackwell",
    Generation.CDNA3: "CDNA 3",
}


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

    def share(self, value: Fraction) -> str:
        """A part's share of the step: one decimal, "< 0.1 %" for a sliver."""
        if 0 < value < Fraction(1, 2000):
            return self.tr("< {value} %").format(
                value=self._formats.format(to_decimal(Fraction(1, 10), 1))
            )
        return self.percent(value)

    def signed_seconds(self, value: Fraction) -> str:
        """A change of time with its sign: "−0.62 s", "+0.1 s" ("−2.5 ms" when short)."""
        sign = MINUS if value < 0 else "+"
        return sign + self.short_seconds(abs(value))

    def short_seconds(self, value: Fraction) -> str:
        """A part of a step: seconds, or milliseconds under a hundredth of a second."""
        if value < Fraction(1, 100):
            return self.tr("{value} ms").format(value=self._n(value * 1000))
        return self.seconds(value)

    # -- the parts of a step ------------------------------------------------------------
    def part_name(self, key: str) -> str:
        """A part of the step as the breakdown lists it."""
        return {
            "matmul": self.tr("Matrix products"),
            "expert_matmul": self.tr("Expert products"),
            "attention": self.tr("Attention"),
            "memory": self.tr("Memory-bound work"),
            "permutation": self.tr("Token permutation"),
            "overhead": self.tr("Host work per layer"),
            "measured": self.tr("Measured micro-steps"),
            "tensor_parallel": self.tr("Tensor-parallel communication"),
            "pipeline": self.tr("Pipeline sends"),
            "expert_parallel": self.tr("Expert all-to-all"),
            "context_parallel": self.tr("Context-parallel key/value sends"),
            "data_parallel": self.tr("Data-parallel communication"),
            "offload": self.tr("Weights fetched from the CPU"),
            "bubble": self.tr("Pipeline bubble"),
            "optimizer": self.tr("Optimizer update"),
            "framework": self.tr("Framework work per step"),
        }[key]

    def part_in_sentence(self, key: str) -> str:
        """A part of the step inside a sentence ("… faster: pipeline bubble −0.62 s")."""
        return {
            "matmul": self.tr("matrix products"),
            "expert_matmul": self.tr("expert products"),
            "attention": self.tr("attention"),
            "memory": self.tr("memory-bound work"),
            "permutation": self.tr("token permutation"),
            "overhead": self.tr("host work per layer"),
            "measured": self.tr("measured micro-steps"),
            "tensor_parallel": self.tr("tensor-parallel communication"),
            "pipeline": self.tr("pipeline sends"),
            "expert_parallel": self.tr("expert all-to-all"),
            "context_parallel": self.tr("context-parallel key/value sends"),
            "data_parallel": self.tr("data-parallel communication"),
            "offload": self.tr("weights fetched from the CPU"),
            "bubble": self.tr("pipeline bubble"),
            "optimizer": self.tr("optimizer update"),
            "framework": self.tr("framework work per step"),
        }[key]

    def parts(self, step: StepTime) -> tuple[TimePart, ...]:
        """Every part of ``step`` that takes any time, with its seconds and share."""
        total = step.step_seconds
        found = []
        for key in PART_NAMES:
            seconds = Fraction(getattr(step.parts, key))
            if seconds <= 0:
                continue
            found.append(
                TimePart(
                    key=key,
                    name=self.part_name(key),
                    seconds=self.short_seconds(seconds),
                    share=self.share(seconds / total),
                    fraction=float(seconds / total),
                )
            )
        return tuple(found)

    def difference(self, current: StepTime, fastest: StepTime) -> str:
        """Which parts make ``fastest`` faster than ``current``: the ones that move the
        step most (at most three), each with its change of seconds."""
        changes = [
            (key, Fraction(getattr(fastest.parts, key)) - Fraction(getattr(current.parts, key)))
            for key in PART_NAMES
        ]
        changes = sorted((c for c in changes if c[1] != 0), key=lambda c: -abs(c[1]))
        notable = [c for c in changes if abs(c[1]) >= NOTABLE_SHARE * current.step_seconds]
        shown = (notable or changes)[:DIFFERENCE_PARTS]
        f = self._formats.format
        gain = fastest.tokens_per_second / current.tokens_per_second - 1
        return self.tr("{micro} × {steps} is {gain} faster: {parts}.").format(
            micro=f(fastest.micro_batch),
            steps=f(fastest.accumulation_steps),
            gain=self.percent(gain),
            parts=", ".join(
                # the figure and its unit stay on one line
                f"{self.part_in_sentence(key)} {self.signed_seconds(change).replace(' ', NBSP)}"
                for key, change in shown
            ),
        )

    def rate(self, value: Fraction) -> str:
        rounded = significant(value, DIGITS)
        if rounded >= 1000:
            rounded = rounded.to_integral_value()
        return self._formats.format(rounded)

    # -- why there is no time ---------------------------------------------------------
    def missing(self, why: TimeMissing, detail: str, description: TrainingDescription) -> str:
        """Why the plan has no time per step, and what to give."""
        card = description.card
        return {
            TimeMissing.NO_MODEL: self.tr(
                "Choose the model in the training description to see the time per step."
            ),
            TimeMissing.NO_SEQ_LEN: self.tr(
                "Type the sequence length in the training description to see the time."
            ),
            TimeMissing.SEQ_TOO_LONG: self.tr(
                "The model's learned positions stop at {length} tokens: no time for a longer "
                "sequence."
            ).format(length=self._formats.digits(detail)),
            TimeMissing.NO_SPEED: self.tr(
                "The custom card has no speed figures: type them under “The card's speed…” "
                "(training description, GPUs), or choose a GPU model."
            ),
            TimeMissing.PRECISION: self.tr(
                "{card} cannot compute in {precision}: choose another precision."
            ).format(
                card="" if card is None else card.name,
                precision=description.precision.value,
            ),
            TimeMissing.LAYOUT: self.tr(
                "The GPUs do not split evenly over the nodes: no time per step."
            ),
            TimeMissing.RECOMPUTE: self._formats.said(
                problem_text(ProblemKind.RECOMPUTE_PER_OP_MODEL)
            ),
        }[why]

    def unavailable(self, message: str, reason: str = "") -> TimeView:
        return TimeView(available=False, message=message, reason=reason or message)

    def view(self, plan: Plan) -> TimeView:
        """The card: the configuration in use, the fastest fitting pair."""
        if plan.step_model is None:
            assert plan.time_missing is not None
            if plan.problems and plan.time_missing is not TimeMissing.NO_SPEED:
                # the description's problem is why (the same words as gradacc plan)
                why = self._formats.said(plan.problems[0].message)
                said = self.tr("No time per step: {why}").format(why=why)
                return self.unavailable(said, why)
            return self.unavailable(
                self.missing(plan.time_missing, plan.time_detail, plan.description)
            )
        model = plan.step_model
        current = None if plan.current is None else plan.current.time
        fastest = None if plan.fastest is None else plan.fastest.time
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
        layout = plan.description.layout
        world = self.tr(
            "World size {world} = {data} data-parallel × {tensor} tensor × {pipeline} pipeline"
        ).format(
            world=f(layout.world),
            data=f(layout.data),
            tensor=f(layout.tensor),
            pipeline=f(layout.pipeline),
        )
        fastest_text, fastest_micro = self._fastest(t, fastest)
        parts = self.parts(t)
        return TimeView(
            available=True,
            message="",
            summary=summary,
            utilisation=utilisation,
            shares=shares,
            layout=world,
            parts_title=self.tr("Where one optimizer step's time goes") if parts else "",
            parts=parts,
            fastest=fastest_text,
            difference=(
                "" if fastest is None or fastest_micro is None else self.difference(t, fastest)
            ),
            fastest_micro_batch=fastest_micro,
            note=" ".join([*self._setup_notes(plan), self._note(plan.description, model, t)]),
        )

    def _setup_notes(self, plan: Plan) -> list[str]:
        """What frameworks run, but slowly (tensor parallelism across nodes), in words."""
        setup = plan.description.shape
        f = self._formats.format
        return [
            QCoreApplication.translate("Setup", NOTE_TEXT[note]).format(
                tensor_parallel=f(setup.tensor_parallel),
                gpus_per_node=f(setup.gpus_per_node),
                server=f(SERVER_GPUS),
            )
            for note in plan.notes
        ]

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
        if what is Mismatch.SEQ_LEN:
            measured, planned = self._formats.digits(measured), self._formats.digits(planned)
        return text.format(measured=measured, planned=planned)

    def _fastest(self, current: StepTime, fastest: StepTime | None) -> tuple[str, int | None]:
        if fastest is None:
            return "", None
        f = self._formats.format
        if fastest.micro_batch == current.micro_batch:
            return self.tr("This is the fastest pair that fits and reaches this batch."), None
        text = self.tr(
            "Fastest pair that fits: {micro} × {steps} — {step} per step, {tokens} tokens/s."
        ).format(
            micro=f(fastest.micro_batch),
            steps=f(fastest.accumulation_steps),
            step=self.seconds(fastest.step_seconds),
            tokens=self.rate(fastest.tokens_per_second),
        )
        return text, fastest.micro_batch

    def _note(self, description: TrainingDescription, model: StepModel, current: StepTime) -> str:
        profile = description.profile
        hw = model.hardware
        if profile is None and hw.efficiency is not None:
            parts = [
                self.tr(
                    "The typed efficiency applies: every kernel at {efficiency} of the peak, "
                    "or at the memory bandwidth where that is slower (a roofline), plus the "
                    "communication not hidden behind them."
                ).format(efficiency=self.percent(hw.efficiency))
            ]
        elif profile is None:
            parts = [
                self.tr(
                    "The kernels' efficiency is modelled from the model's shape: the products' "
                    "width and tokens per micro-step, the attention kernel, the memory-bound "
                    "work; plus the communication not hidden behind them."
                )
            ]
            generation = self._generation(description)
            if generation is not None and generation not in FITTED:
                parts.append(
                    self.tr(
                        "No published {generation} runs to fit: its kernels take {like}'s shares."
                    ).format(
                        generation=GENERATION_NAMES[generation],
                        like=GENERATION_NAMES[fitted_like(generation)],
                    )
                )
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
        uncounted = model.workload.uncounted
        if uncounted:
            parts.append(
                self.tr(
                    "Without the model's shape the time leaves out {terms}: choose a bundled "
                    "model or open its config.json."
                ).format(terms=", ".join(self._uncounted(term) for term in uncounted))
            )
        return " ".join(parts)

    def _uncounted(self, term: Uncounted) -> str:
        return {
            Uncounted.ATTENTION: self.tr("the attention FLOPs"),
            Uncounted.KERNEL_SHAPES: self.tr(
                "the products' width, the memory-bound work and the host's work per layer"
            ),
            Uncounted.TENSOR_PARALLEL: self.tr("the tensor-parallel communication"),
            Uncounted.PIPELINE: self.tr("the pipeline sends"),
            Uncounted.CONTEXT_PARALLEL: self.tr("the context-parallel key/value sends"),
            Uncounted.LAYER_OVERLAP: self.tr(
                "how much data-parallel traffic hides behind each layer"
            ),
        }[term]

    @staticmethod
    def _generation(description: TrainingDescription) -> Generation | None:
        card = description.card
        if card is None or card.performance is None or card.id == CUSTOM_ID:
            return None
        return card.performance.generation
