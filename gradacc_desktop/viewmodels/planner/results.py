"""The plan for valid inputs: one call of the core's ``recommend_with_pairs``, then
each card and the pairs table in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import final

from gradacc_desktop.core.layout import first_stage_activation_gb
from gradacc_desktop.core.planning import (
    AccumulationPlan,
    NothingFits,
    PlanPair,
    Recommendation,
    Rounding,
    fit,
    recommend_with_pairs,
    solve_accumulation,
)
from gradacc_desktop.core.steptime import StepModel, StepTime, fastest
from gradacc_desktop.viewmodels.planner.configuration import ConfigurationTexts
from gradacc_desktop.viewmodels.planner.deepspeed import DeepSpeedTexts
from gradacc_desktop.viewmodels.planner.extras import ExtrasTexts, OptionalValue
from gradacc_desktop.viewmodels.planner.fields import PlanField
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.formats import PlanFormats
from gradacc_desktop.viewmodels.planner.pairs import PairsTexts
from gradacc_desktop.viewmodels.planner.timing import PairTime, TimeRequest, TimingTexts
from gradacc_desktop.viewmodels.planner.views import PairPoint, PlanView, TimeView


@dataclass(frozen=True)
class PlanRequest:
    """The planner's valid inputs."""

    target: int
    gpus: int
    # the user's own micro-batch; ``None`` while the planner recommends one
    micro_batch: int | None
    capacity: Decimal
    other_gb: Decimal
    activation_gb: Decimal
    rounding: Rounding
    # (value, problem) of each optional field, (None, None) when it is empty
    optional: Mapping[PlanField, OptionalValue]
    # the first pipeline stage holds one sample's activations split this many ways
    tensor_parallel: int = 1
    # what the time per step needs (None: no time card)
    time: TimeRequest | None = None


@final
class PlanResults:
    def __init__(self, formats: PlanFormats) -> None:
        self._configuration = ConfigurationTexts(formats)
        self._deepspeed = DeepSpeedTexts(formats)
        self._fit = FitTexts(formats)
        self._pairs = PairsTexts(formats)
        self._extras = ExtrasTexts(formats)
        self._timing = TimingTexts(formats)

    def view(self, request: PlanRequest) -> PlanView:
        r = request
        # 1F1B's first stage: p micro-batches of 1/p of the layers, each split tp ways
        share = first_stage_activation_gb(r.activation_gb, r.tensor_parallel)
        memory = (r.capacity, r.other_gb, share)
        candidates = recommend_with_pairs(r.target, r.gpus, *memory, r.rounding)
        outcome = candidates.outcome
        micro = r.micro_batch
        if micro is None and isinstance(outcome, Recommendation):
            micro = outcome.recommended.micro_batch
        configuration = deepspeed = extras = plan = None
        if micro is not None:
            plan = solve_accumulation(r.target, micro, r.gpus, r.rounding)
            configuration = self._configuration.view(
                plan, r.activation_gb, recommended=r.micro_batch is None
            )
            deepspeed = self._deepspeed.view(r.target, configuration)
            extras = self._extras.view(plan.effective_batch, r.optional)
            fit_result = fit(*memory, micro)
        else:
            assert isinstance(outcome, NothingFits)
            fit_result = outcome.fit
        nothing = outcome if isinstance(outcome, NothingFits) else None
        rows = self._pairs.pairs(candidates.pairs, plan)
        time_view, cells, times, best = self._time(r.time, rows, fit_result.max_micro_batch, plan)
        table = self._pairs.rows(rows, fit_result.max_micro_batch, plan, r.gpus, cells)
        points = tuple(
            PairPoint(
                micro_batch=row.micro_batch,
                accumulation_steps=row.accumulation_steps,
                memory_gb=float(row.micro_batch * share + r.other_gb),
                step_seconds=(
                    float(times[row.micro_batch].step_seconds) if row.micro_batch in times else None
                ),
                tokens_per_second=(
                    float(times[row.micro_batch].tokens_per_second)
                    if row.micro_batch in times
                    else None
                ),
                fits=row.fits,
                current=row.current,
                fastest=best is not None and best.micro_batch == row.micro_batch,
                cells=row.cells,
            )
            for row in table
        )
        return PlanView(
            configuration=configuration,
            fit=self._fit.fit(fit_result, r.tensor_parallel),
            nothing_fits=self._fit.nothing_fits(nothing) if nothing is not None else None,
            deepspeed=deepspeed,
            pairs=table,
            pairs_note=self._pairs.note(),
            extras=extras,
            time=time_view,
            points=points,
            capacity_gb=float(r.capacity),
        )

    def _time(
        self,
        request: TimeRequest | None,
        rows: dict[int, PlanPair],
        largest_fit: int,
        plan: AccumulationPlan | None,
    ) -> tuple[TimeView | None, dict[int, PairTime] | None, dict[int, StepTime], StepTime | None]:
        """The time card, each row's time cells (None: no time to show), each pair's
        step time and the fastest pair that fits."""
        if request is None:
            return None, None, {}, None
        model = self._timing.step_model(request)
        if not isinstance(model, StepModel):
            return self._timing.unavailable(model), None, {}, None
        times, cells = self._timing.pair_times(model, rows)
        current = times.get(plan.micro_batch) if plan is not None else None
        best = None
        if current is not None:
            best = fastest(
                [
                    t
                    for b, t in times.items()
                    if b <= largest_fit and t.effective_batch == current.effective_batch
                ]
            )
        return self._timing.view(request, model, current, best), cells, times, best
