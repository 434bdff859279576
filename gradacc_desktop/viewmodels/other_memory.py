"""View-model of the "other memory" helper: weights, gradients, optimizer states and
overhead per GPU from the parameter count and a training recipe (``core.memory``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal

from PySide6.QtCore import QCoreApplication, QLocale, QObject, Signal

from gradacc_desktop.core.limits import Limits
from gradacc_desktop.core.memory import (
    DEFAULT_OVERHEAD_GB,
    PARAMETERS_LIMITS,
    RECIPES,
    TRAINABLE_FRACTION_LIMITS,
    ZERO_SOURCE,
    OtherMemoryEstimate,
    Recipe,
    ZeroStage,
    estimate_other_memory,
)
from gradacc_desktop.core.planning import OTHER_MEMORY_LIMITS
from gradacc_desktop.viewmodels.formatting import Entry, format_approx
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner import DEFAULT_PARAMETERS, PlanField, PlannerViewModel
from gradacc_desktop.viewmodels.problems import describe

# Significant digits of a bytes-per-parameter figure (ZeRO shares can repeat forever).
BYTES_DIGITS = 6


class MemoryField(enum.Enum):
    PARAMETERS = "parameters"
    TRAINABLE_FRACTION = "trainable_fraction"
    OVERHEAD = "overhead_gb"


FIELD_LIMITS: dict[MemoryField, Limits] = {
    MemoryField.PARAMETERS: PARAMETERS_LIMITS,
    MemoryField.TRAINABLE_FRACTION: TRAINABLE_FRACTION_LIMITS,
    MemoryField.OVERHEAD: OTHER_MEMORY_LIMITS,
}


@dataclass(frozen=True)
class OtherMemoryView:
    # (component, bytes per parameter) rows, then the total row
    rows: tuple[tuple[str, str], ...]
    states: str
    total: str
    source: str
    sharding: str
    estimate: OtherMemoryEstimate


@dataclass(frozen=True)
class OtherMemoryState:
    results: OtherMemoryView | None
    problems: tuple[str, ...]


class OtherMemoryViewModel(QObject):
    stateChanged = Signal(object)

    def __init__(self, planner: PlannerViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._planner = planner
        self._recipe = Recipe.ADAM_MIXED
        self._zero = ZeroStage.NONE
        self._raw: dict[MemoryField, Entry] = {
            MemoryField.PARAMETERS: Decimal(DEFAULT_PARAMETERS),
            MemoryField.TRAINABLE_FRACTION: Decimal("0.01"),
            MemoryField.OVERHEAD: DEFAULT_OVERHEAD_GB,
        }
        steps = {
            MemoryField.PARAMETERS: Decimal(10**9),
            MemoryField.TRAINABLE_FRACTION: Decimal("0.01"),
            MemoryField.OVERHEAD: Decimal("0.5"),
        }
        self._numbers = {
            f: NumberInput(
                FIELD_LIMITS[f],
                step=steps[f],
                unit=planner.formats.unit_gb() if f is MemoryField.OVERHEAD else "",
                locale=planner.locale,
            )
            for f in MemoryField
        }
        self._gpus = self._planner_gpus()
        self._state = self._build_state(self._gpus)
        # ZeRO shards over the planner's data-parallel GPUs: follow their changes
        planner.stateChanged.connect(self._on_planner_state)

    @property
    def state(self) -> OtherMemoryState:
        return self._state

    @property
    def locale(self) -> QLocale:
        return self._planner.locale

    @property
    def recipe(self) -> Recipe:
        return self._recipe

    @property
    def zero_stage(self) -> ZeroStage:
        return self._zero

    def value(self, field: MemoryField) -> Decimal | None:
        raw = self._raw[field]
        return raw if isinstance(raw, Decimal) else None

    def number_input(self, field: MemoryField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget)."""
        return self._numbers[field]

    def display_text(self, field: MemoryField) -> str:
        return self.number_input(field).show_entry(self._raw[field])

    # -- editing --------------------------------------------------------------
    def set_text(self, field: MemoryField, text: str) -> None:
        self._raw[field] = self.number_input(field).read(text)
        self.refresh()

    def set_recipe(self, recipe: Recipe) -> None:
        self._recipe = recipe
        self.refresh()

    def set_zero_stage(self, stage: ZeroStage) -> None:
        self._zero = stage
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the state for the planner's current GPUs and emit it."""
        self._gpus = self._planner_gpus()
        self._state = self._build_state(self._gpus)
        self.stateChanged.emit(self._state)

    def set_language(self, locale: QLocale) -> None:
        """After the planner's ``set_language``: read and show numbers in ``locale``,
        words in the new language; the state is rebuilt and emitted once."""
        for field, number in self._numbers.items():
            number.locale = locale
            if field is MemoryField.OVERHEAD:
                number.unit = self._planner.formats.unit_gb()
        self.refresh()

    def apply(self) -> bool:
        """Put the estimate into the planner's "other memory"; False when there is none."""
        view = self._state.results
        if view is None:
            return False
        self._planner.set_other_memory(view.estimate.total_gb)
        return True

    # -- labels ---------------------------------------------------------------
    def field_label(self, field: MemoryField, mnemonic: bool = False) -> str:
        text = {
            MemoryField.PARAMETERS: self.tr("Model &parameters"),
            MemoryField.TRAINABLE_FRACTION: self.tr("&Trainable fraction (LoRA)"),
            MemoryField.OVERHEAD: self.tr("Framework o&verhead"),
        }[field]
        return text if mnemonic else text.replace("&", "")

    def field_hint(self, field: MemoryField) -> str:
        return {
            MemoryField.PARAMETERS: self.tr(
                "Parameters in the model, in full: a 7B model is 7,000,000,000."
            ),
            MemoryField.TRAINABLE_FRACTION: self.tr(
                "Share of the parameters LoRA trains, from 0.001 to 1 (0.01 = 1%)."
            ),
            MemoryField.OVERHEAD: self.tr(
                "CUDA context and allocator slack per GPU; about 1 GB is a cautious figure."
            ),
        }[field]

    def recipe_label(self, mnemonic: bool = False) -> str:
        text = self.tr("Training &recipe")
        return text if mnemonic else text.replace("&", "")

    def zero_label(self, mnemonic: bool = False) -> str:
        text = self.tr("&ZeRO stage")
        return text if mnemonic else text.replace("&", "")

    def recipe_options(self) -> list[tuple[Recipe, str]]:
        return [
            (Recipe.ADAM_MIXED, self.tr("Adam, mixed precision")),
            (Recipe.ADAM_8BIT, self.tr("8-bit Adam (bitsandbytes)")),
            (Recipe.SGD_MOMENTUM, self.tr("SGD with momentum, mixed precision")),
            (Recipe.LORA, self.tr("LoRA (frozen base, trained adapters)")),
            (Recipe.ADAM_FP32, self.tr("Adam, full fp32")),
        ]

    def zero_options(self) -> list[tuple[ZeroStage, str]]:
        return [
            (ZeroStage.NONE, self.tr("None")),
            (ZeroStage.OPTIMIZER, self.tr("ZeRO-1 (optimizer states)")),
            (ZeroStage.GRADIENTS, self.tr("ZeRO-2 (+ gradients)")),
            (ZeroStage.WEIGHTS, self.tr("ZeRO-3 (+ weights)")),
        ]

    def source(self, recipe: Recipe) -> str:
        """Where the recipe's bytes per parameter come from (the core's text, translated)."""
        zero = QCoreApplication.translate("Recipes", ZERO_SOURCE)
        return QCoreApplication.translate("Recipes", RECIPES[recipe].source).format(zero=zero)

    # -- internals --------------------------------------------------------------
    def _problem(self, field: MemoryField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self.field_label(field), self._raw[field], self._numbers[field])

    def _planner_gpus(self) -> int:
        """The planner's data-parallel GPUs (its last valid count while the field is not)."""
        gpus = self._planner.last_valid(PlanField.GPUS)
        return int(gpus) if gpus is not None else 1

    def _on_planner_state(self, _state: object) -> None:
        if self._planner_gpus() != self._gpus:
            self.refresh()

    def _build_state(self, gpus: int) -> OtherMemoryState:
        fields = [MemoryField.PARAMETERS, MemoryField.OVERHEAD]
        if self._recipe is Recipe.LORA:
            fields.insert(1, MemoryField.TRAINABLE_FRACTION)
        problems = tuple(p for f in fields if (p := self._problem(f)) is not None)
        if problems:
            return OtherMemoryState(None, problems)
        parameters = self.value(MemoryField.PARAMETERS)
        overhead = self.value(MemoryField.OVERHEAD)
        fraction = self.value(MemoryField.TRAINABLE_FRACTION)
        assert parameters is not None and overhead is not None
        estimate = estimate_other_memory(
            int(parameters),
            self._recipe,
            gpus=gpus,
            zero_stage=self._zero,
            trainable_fraction=fraction
            if self._recipe is Recipe.LORA and fraction is not None
            else Decimal(1),
            overhead_gb=overhead,
        )
        return OtherMemoryState(self._view(estimate), ())

    def _bytes(self, value: Decimal) -> str:
        """A byte count in the plural form it takes: "1 byte", "2 bytes", "≈ 1,33333 bytes"."""
        # %n picks the form: a whole count by itself, a fraction by a plural count
        selector = int(value) if value == value.to_integral_value() else 2
        text = self.tr("%n byte(s)", "", selector)
        shown = format_approx(self._planner.locale, value, BYTES_DIGITS)
        return text.replace(str(selector), shown, 1)

    def _view(self, e: OtherMemoryEstimate) -> OtherMemoryView:
        gb = self._planner.formats.format_gb
        rows = (
            (self.tr("Weights"), self._bytes(e.weights_bytes_per_param)),
            (self.tr("Gradients"), self._bytes(e.gradients_bytes_per_param)),
            (self.tr("Optimizer states"), self._bytes(e.optimizer_bytes_per_param)),
            (self.tr("fp32 master weights"), self._bytes(e.master_bytes_per_param)),
            (self.tr("Total per parameter"), self._bytes(e.bytes_per_param)),
        )
        states = self._planner.formats.counted(
            lambda n: self.tr("%n parameter(s) × {bytes} = {gb}", "", n), e.parameters
        ).format(
            bytes=self._bytes(e.bytes_per_param),
            gb=gb(e.states_gb),
        )
        total = self.tr("Other memory per GPU: {states} + {overhead} overhead = {total}").format(
            states=gb(e.states_gb), overhead=gb(e.overhead_gb), total=gb(e.total_gb)
        )
        if e.zero_stage is ZeroStage.NONE:
            sharding = self.tr("No sharding: every GPU holds a full copy.")
        else:
            sharding = self._planner.formats.counted(
                lambda n: self.tr("Sharded over the planner's %n data-parallel GPU(s).", "", n),
                e.gpus,
            )
        return OtherMemoryView(
            rows=rows,
            states=states,
            total=total,
            source=self.source(e.recipe),
            sharding=sharding,
            estimate=e,
        )
