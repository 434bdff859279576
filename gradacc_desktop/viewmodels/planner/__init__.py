"""The view-model of "Plan a run" (``PlannerViewModel``, in ``model``): the training
description's plan in words, and the rooms it is built from:

* ``views`` — the frozen, display-ready state the widgets show;
* ``texts`` — titles, the pairs table's headings and notes;
* ``results`` — the plan's cards and table in words, from ``configuration``,
  ``deepspeed``, ``fit`` (the memory verdict, what is missing, what would fit),
  ``pairs``, ``extras``, ``timing`` (the time per step, the fastest pair) and
  ``cost`` (the run's time and cost in the chosen currency);
* ``clipboard`` — the plan as plain text.
"""

from gradacc_desktop.viewmodels.planner.model import PlannerViewModel
from gradacc_desktop.viewmodels.planner.views import (
    ConfigurationView,
    CostView,
    DeepSpeedView,
    ExtrasView,
    FitView,
    NothingFitsView,
    PairPoint,
    PairRow,
    PlannerState,
    PlanView,
    TimePart,
    TimeView,
)

__all__ = [
    "ConfigurationView",
    "CostView",
    "DeepSpeedView",
    "ExtrasView",
    "FitView",
    "NothingFitsView",
    "PairPoint",
    "PairRow",
    "PlanView",
    "PlannerState",
    "PlannerViewModel",
    "TimePart",
    "TimeView",
]
