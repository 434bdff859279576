"""The view-model of "Plan a run" (``PlannerViewModel``, in ``model``) and the rooms it
is built from:

* ``fields`` — the fields, their ranges, steps and first values;
* ``entries`` — what each field holds, its last valid number, how it reads text;
* ``views`` — the frozen, display-ready state the widgets show;
* ``formats`` — translation for plain classes; numbers, gigabytes and counts;
* ``texts`` — labels, hints, choices, titles and notes;
* ``results`` — the plan for valid inputs (one core call), worded by
  ``configuration``, ``deepspeed``, ``fit``, ``pairs``, ``extras`` and ``timing``
  (the time per step of every pair, the fastest pair that fits, the run's totals);
* ``clipboard`` — the plan as plain text;
* ``scenarios`` — scenario files and the settings store, with their messages.
"""

from gradacc_desktop.viewmodels.planner.fields import (
    CHOICES,
    DEFAULT_CARD,
    DEFAULT_CUSTOM_GB,
    DEFAULT_PARAMETERS,
    FIELD_LIMITS,
    FIELD_STEPS,
    GB_FIELDS,
    OPTIONAL_FIELDS,
    PlanField,
)
from gradacc_desktop.viewmodels.planner.model import PlannerViewModel
from gradacc_desktop.viewmodels.planner.views import (
    ConfigurationView,
    DeepSpeedView,
    ExtrasView,
    FitView,
    NothingFitsView,
    PairPoint,
    PairRow,
    PlannerState,
    PlanView,
    ScenarioOutcome,
    TimeView,
)

__all__ = [
    "CHOICES",
    "DEFAULT_CARD",
    "DEFAULT_CUSTOM_GB",
    "DEFAULT_PARAMETERS",
    "FIELD_LIMITS",
    "FIELD_STEPS",
    "GB_FIELDS",
    "OPTIONAL_FIELDS",
    "ConfigurationView",
    "DeepSpeedView",
    "ExtrasView",
    "FitView",
    "NothingFitsView",
    "PairPoint",
    "PairRow",
    "PlanField",
    "PlanView",
    "PlannerState",
    "PlannerViewModel",
    "ScenarioOutcome",
    "TimeView",
]
