"""The plan in words: each card and the pairs table from the one ``Plan`` the training
description gives (no arithmetic here: the core planned, timed and chose)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from gradacc_desktop.core.memory import problem_text
from gradacc_desktop.core.training.alternatives import Alternative
from gradacc_desktop.core.training.figures import GB, Source, shown_gb
from gradacc_desktop.core.training.plan import Plan
from gradacc_desktop.viewmodels.entries import OptionalValue
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.configuration import ConfigurationTexts
from gradacc_desktop.viewmodels.planner.cost import CostTexts, Currency
from gradacc_desktop.viewmodels.planner.deepspeed import DeepSpeedTexts
from gradacc_desktop.viewmodels.planner.extras import ExtrasTexts
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.pairs import PairsTexts
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.planner.views import CostView, PairPoint, PlanView, TimeView


@dataclass(frozen=True)
class Extras:
    """The planner's own inputs: the learning-rate reference (and the dataset size, which
    the description holds for the run)."""

    dataset: OptionalValue = (None, None)
    lr: OptionalValue = (None, None)
    reference_batch: OptionalValue = (None, None)
    #: the currency of the price and the total (display only)
    currency: Currency = Currency.USD
    #: the description's fields of the token budget, the dataset size, the epochs and
    #: the price, as the panel names them (what the cost card asks to type)
    run_fields: tuple[str, str, str, str] = ("", "", "", "")


@final
class PlanResults(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats
        self._configuration = ConfigurationTexts(formats)
        self._deepspeed = DeepSpeedTexts(formats)
        self._fit = FitTexts(formats)
        self._timing = TimingTexts(formats)
        self._pairs = PairsTexts(formats, self._timing)
        self._extras = ExtrasTexts(formats)
        self._cost = CostTexts(formats, self._timing)

    @property
    def cost_texts(self) -> CostTexts:
        return self._cost

    @property
    def fit_texts(self) -> FitTexts:
        return self._fit

    def view(
        self,
        plan: Plan,
        extras: Extras,
        missing: tuple[str, ...],
        found: tuple[Alternative, ...],
    ) -> PlanView:
        """``missing``: what the description cannot derive, worded; ``found``: the single
        changes that would fit when nothing does."""
        d = plan.description
        configuration = deepspeed = extras_view = None
        current = plan.current
        accumulation = plan.accumulation
        if accumulation is not None and current is not None:
            activation = plan.figures.activation.bytes
            configuration = self._configuration.view(
                accumulation,
                None if activation is None else shown_gb(activation),
                recommended=plan.recommending,
            )
            deepspeed = self._deepspeed.view(d.target_batch, configuration, plan.refusals)
            extras_view = self._extras.view(
                current.effective_batch,
                d.seq_len,
                extras.dataset,
                extras.lr,
                extras.reference_batch,
            )
        typed = plan.figures.other.source is Source.GIVEN
        fit = self._fit.of_plan(plan, typed) or self._fit.unknown(missing)
        if plan.refusals:
            fit = self._fit.refused(fit, plan.refusals)
        fit = self._fit.node_memory(fit, plan)
        nothing = None if plan.no_fit is None else self._fit.nothing_fits(plan.no_fit, found, typed)
        table = self._pairs.rows(plan.pairs, None if current is None else current.micro_batch)
        fastest = None if plan.fastest is None else plan.fastest.micro_batch
        points = tuple(
            PairPoint(
                micro_batch=row.micro_batch,
                accumulation_steps=row.accumulation_steps,
                memory_gb=None if pair.per_gpu_bytes is None else pair.per_gpu_bytes / GB,
                per_gpu_bytes=pair.per_gpu_bytes,
                step_seconds=None if pair.time is None else float(pair.time.step_seconds),
                tokens_per_second=(
                    None if pair.time is None else float(pair.time.tokens_per_second)
                ),
                fits=row.fits,
                current=row.current,
                fastest=row.micro_batch == fastest,
                cells=row.cells,
            )
            for row, pair in zip(table, plan.pairs, strict=True)
        )
        usable = plan.figures.usable_bytes
        time = self._timing.view(plan)
        return PlanView(
            configuration=configuration,
            fit=fit,
            nothing_fits=nothing,
            deepspeed=deepspeed,
            pairs=table,
            pairs_note=self._pairs.note(
                current is not None, any(row.fits is False for row in table)
            ),
            extras=extras_view,
            time=time,
            cost=self._cost_view(plan, time, extras),
            points=points,
            capacity_gb=None if usable is None else usable / GB,
            setup_problem=self._setup_problem(plan),
        )

    def _cost_view(self, plan: Plan, time: TimeView, extras: Extras) -> CostView:
        if not time.available:
            return self._cost.unavailable(time.reason)
        return self._cost.view(plan, extras.currency, extras.run_fields)

    def _setup_problem(self, plan: Plan) -> str:
        """Why no framework would run the layout, in words ("" when one would)."""
        if plan.setup_problem is None:
            return ""
        said = problem_text(plan.setup_problem, plan.description.shape)
        return self._formats.said(said)
