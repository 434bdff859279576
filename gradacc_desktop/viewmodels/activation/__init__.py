"""The view-model of the "estimate activation from the model" dialog
(``ActivationViewModel``, in ``model``) and the rooms it is built from:

* ``fields`` — the number fields and their ranges, the other controls, the options;
* ``views`` — the frozen, display-ready state the widgets show;
* ``texts`` — labels, hints and choices; the core's part and assumption names,
  translated; numbers in the active locale;
* ``estimate`` — one estimate in words (sizes, breakdown, warnings, sources);
* ``remembered`` — the last setup in the settings store, validated on the way back.
"""

from gradacc_desktop.viewmodels.activation.fields import (
    DEFAULT_PRESET,
    FIELD_LIMITS,
    FLAGS,
    IMAGE_FIELDS,
    MEASURE_COMMAND,
    PAPER_CITATION,
    PAPER_URL,
    SHAPE_FIELDS,
    ActivationField,
    Control,
    Option,
    Options,
)
from gradacc_desktop.viewmodels.activation.model import ActivationViewModel
from gradacc_desktop.viewmodels.activation.texts import ActivationTexts
from gradacc_desktop.viewmodels.activation.views import (
    ActivationState,
    BreakdownRow,
    EstimateView,
    RowKind,
)

__all__ = [
    "DEFAULT_PRESET",
    "FIELD_LIMITS",
    "FLAGS",
    "IMAGE_FIELDS",
    "MEASURE_COMMAND",
    "PAPER_CITATION",
    "PAPER_URL",
    "SHAPE_FIELDS",
    "ActivationField",
    "ActivationState",
    "ActivationTexts",
    "ActivationViewModel",
    "BreakdownRow",
    "Control",
    "EstimateView",
    "Option",
    "Options",
    "RowKind",
]
