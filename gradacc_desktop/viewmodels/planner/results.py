"""The plan for valid inputs: one call of the core's ``recommend_with_pairs``, then
each card and the pairs table in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import final

from gradacc_desktop.core.planning import (
    NothingFits,
    Recommendation,
    Rounding,
    fit,
    recommend_with_pairs,
    solve_accumulation,
)
from gradacc_desktop.viewmodels.planner.configuration import ConfigurationTexts
from gradacc_desktop.viewmodels.planner.deepspeed import DeepSpeedTexts
from gradacc_desktop.viewmodels.planner.extras import ExtrasTexts, OptionalValue
from gradacc_desktop.viewmodels.planner.fields import PlanField
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.formats import PlanFormats
from gradacc_desktop.viewmodels.planner.pairs import PairsTexts
from gradacc_desktop.viewmodels.planner.views import PlanView


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


@final
class PlanResults:
    def __init__(self, formats: PlanFormats) -> None:
        self._configuration = ConfigurationTexts(formats)
        self._deepspeed = DeepSpeedTexts(formats)
        self._fit = FitTexts(formats)
        self._pairs = PairsTexts(formats)
        self._extras = ExtrasTexts(formats)

    def view(self, request: PlanRequest) -> PlanView:
        r = request
        memory = (r.capacity, r.other_gb, r.activation_gb)
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
        return PlanView(
            configuration=configuration,
            fit=self._fit.fit(fit_result),
            nothing_fits=self._fit.nothing_fits(nothing) if nothing is not None else None,
            deepspeed=deepspeed,
            pairs=self._pairs.rows(candidates.pairs, fit_result.max_micro_batch, plan, r.gpus),
            pairs_note=self._pairs.note(),
            extras=extras,
        )
