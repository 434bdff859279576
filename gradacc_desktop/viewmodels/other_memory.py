"""View-model of the "other memory" helper: weights, gradients, optimizer states and
overhead per GPU, as DeepSpeed computes them (``core.model_states``), from the model
size, the training recipe and the planner's setup (GPUs, nodes, ZeRO, offload); LoRA
and QLoRA from a model's shape (``core.lora``)."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

from PySide6.QtCore import QCoreApplication, QLocale, QObject, Signal

from gradacc_desktop.core import lora
from gradacc_desktop.core.families import ModelConfigError, file_name, parameters, read_model_config
from gradacc_desktop.core.limits import Limits, whole
from gradacc_desktop.core.memory import (
    DEFAULT_OVERHEAD_GB,
    PARAMETERS_LIMITS,
    RECIPES,
    TRAINABLE_FRACTION_LIMITS,
    ZERO_SOURCE,
    Recipe,
    ZeroStage,
)
from gradacc_desktop.core.model_states import (
    LARGEST_LAYER_LIMITS,
    ModelStates,
    Part,
    model_states,
)
from gradacc_desktop.core.planning import OTHER_MEMORY_LIMITS
from gradacc_desktop.core.presets import Preset, PresetError, load_presets
from gradacc_desktop.core.setup import (
    Offload,
    Precision,
    SetupProblem,
    TrainingSetup,
    setup_problem,
)
from gradacc_desktop.viewmodels.formatting import Entry, format_approx
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner import DEFAULT_PARAMETERS, PlanField, PlannerViewModel
from gradacc_desktop.viewmodels.problems import describe

# Significant digits of a bytes-per-parameter figure (ZeRO shares can repeat forever).
BYTES_DIGITS = 6
_GB = Fraction(10**9)
_GB_QUANTUM = Decimal("0.001")
# Bytes of optimizer state per trained parameter by recipe (DeepSpeed's estimators: 8).
STATE_BYTES = {
    Recipe.ADAM_MIXED: 8,
    Recipe.ADAM_FP32: 8,
    Recipe.ADAM_8BIT: 2,
    Recipe.SGD_MOMENTUM: 4,
    Recipe.LORA: 8,
}
# "Custom" in the model choice: LoRA from the trainable fraction, no shape
CUSTOM_MODEL = ""


class MemoryField(enum.Enum):
    PARAMETERS = "parameters"
    LARGEST_LAYER = "largest_layer"
    TRAINABLE_FRACTION = "trainable_fraction"
    LORA_RANK = "lora_rank"
    OVERHEAD = "overhead_gb"


FIELD_LIMITS: dict[MemoryField, Limits] = {
    MemoryField.PARAMETERS: PARAMETERS_LIMITS,
    MemoryField.LARGEST_LAYER: LARGEST_LAYER_LIMITS,
    MemoryField.TRAINABLE_FRACTION: TRAINABLE_FRACTION_LIMITS,
    MemoryField.LORA_RANK: whole(1, 4096),
    MemoryField.OVERHEAD: OTHER_MEMORY_LIMITS,
}
OPTIONAL_FIELDS = frozenset({MemoryField.LARGEST_LAYER})


class LoraTargets(enum.Enum):
    """Which projections LoRA adapts (PEFT's ``target_modules``)."""

    QUERY_VALUE = "query_value"  # the LoRA paper's choice: q and v
    ATTENTION = "attention"  # every attention projection
    ALL_LINEAR = "all_linear"  # every linear layer (QLoRA's choice)


_TARGETS: dict[LoraTargets, dict[str, tuple[str, ...]]] = {
    LoraTargets.QUERY_VALUE: {
        "llama": ("q_proj", "v_proj"),
        "gpt2": ("c_attn",),
    },
    LoraTargets.ATTENTION: {
        "llama": ("q_proj", "k_proj", "v_proj", "o_proj"),
        "gpt2": ("c_attn", "attn.c_proj"),
    },
    LoraTargets.ALL_LINEAR: {"llama": ("all-linear",), "gpt2": ("all-linear",)},
}


@dataclass(frozen=True)
class OtherMemoryView:
    # (component, GB on one GPU, bytes per parameter) rows, the total row last
    rows: tuple[tuple[str, str, str], ...]
    states: str
    total: str
    cpu: str
    source: str
    sharding: str
    # what goes into the planner: model states + overhead, rounded up to 0.001 GB
    total_gb: Decimal
    # the parameters LoRA trains and the model's total (LoRA with a model), in words
    lora: str
    estimate: ModelStates


@dataclass(frozen=True)
class OtherMemoryState:
    results: OtherMemoryView | None
    problems: tuple[str, ...]
    #: where the parameter count came from, when a config.json gave it
    config_note: str = ""
    #: why the last config.json was not read ("" otherwise)
    config_error: str = ""


class OtherMemoryViewModel(QObject):
    stateChanged = Signal(object)

    def __init__(self, planner: PlannerViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._planner = planner
        self._recipe = Recipe.ADAM_MIXED
        self._model = CUSTOM_MODEL
        self._targets = LoraTargets.QUERY_VALUE
        self._base = lora.BaseFormat.BF16
        self._loaded: tuple[Preset, ...] | None = None  # read on first use
        self._config_note = ""
        self._config_error = ""
        self._raw: dict[MemoryField, Entry] = {
            MemoryField.PARAMETERS: Decimal(DEFAULT_PARAMETERS),
            MemoryField.LARGEST_LAYER: None,
            MemoryField.TRAINABLE_FRACTION: Decimal("0.01"),
            MemoryField.LORA_RANK: Decimal(16),
            MemoryField.OVERHEAD: DEFAULT_OVERHEAD_GB,
        }
        steps = {
            MemoryField.PARAMETERS: Decimal(10**9),
            MemoryField.LARGEST_LAYER: Decimal(10**6),
            MemoryField.TRAINABLE_FRACTION: Decimal("0.01"),
            MemoryField.LORA_RANK: Decimal(8),
            MemoryField.OVERHEAD: Decimal("0.5"),
        }
        self._numbers = {
            f: NumberInput(
                FIELD_LIMITS[f],
                step=steps[f],
                unit=planner.formats.unit_gb() if f is MemoryField.OVERHEAD else "",
                optional=f in OPTIONAL_FIELDS,
                locale=planner.locale,
            )
            for f in MemoryField
        }
        self._layout = self._planner_layout()
        self._state = self._build_state()
        # ZeRO shards over the planner's GPUs, and its setup (nodes, ZeRO, offload,
        # precision) is the one the exports describe: follow their changes
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
        return self._planner.zero_stage

    @property
    def offload(self) -> Offload:
        return self._planner.offload

    @property
    def model(self) -> str:
        """The preset LoRA is sized from ("" for a custom model and fraction)."""
        return self._model

    @property
    def lora_targets(self) -> LoraTargets:
        return self._targets

    @property
    def base_format(self) -> lora.BaseFormat:
        return self._base

    def value(self, field: MemoryField) -> Decimal | None:
        raw = self._raw[field]
        return raw if isinstance(raw, Decimal) else None

    def number_input(self, field: MemoryField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget)."""
        return self._numbers[field]

    def display_text(self, field: MemoryField) -> str:
        if field is MemoryField.PARAMETERS and self._shape() is not None:
            shape = self._shape()
            assert shape is not None
            return self.number_input(field).show(Decimal(lora.total_parameters(shape)))
        return self.number_input(field).show_entry(self._raw[field])

    def uses_shape(self) -> bool:
        """LoRA sized from a model preset: the parameter count comes from its shape."""
        return self._shape() is not None

    # -- editing --------------------------------------------------------------
    def set_text(self, field: MemoryField, text: str) -> None:
        raw = self.number_input(field).read(text)
        if field is MemoryField.PARAMETERS and raw != self._raw[field]:
            self._config_note = ""  # another count than the file's
        self._raw[field] = raw
        self.refresh()

    def open_config(self, path: str) -> bool:
        """Take the exact parameter count from a model's ``config.json`` (a local file;
        never a download). A file that is not one says why; nothing else changes."""
        name = file_name(path)
        try:
            arch = read_model_config(path)
        except ModelConfigError as exc:
            self._config_error = self.tr("{file} was not opened: {reason}").format(
                file=name, reason=exc.detail
            )
            self.refresh()
            return False
        count = parameters(arch)
        self._raw[MemoryField.PARAMETERS] = Decimal(count)
        self._model = CUSTOM_MODEL
        self._config_error = ""
        model = arch.architecture or arch.model_type
        self._config_note = self.tr("{count} parameters, exactly, from {file} ({model}).").format(
            count=self._planner.formats.format(count), file=name, model=model
        )
        self.refresh()
        return True

    def set_recipe(self, recipe: Recipe) -> None:
        self._recipe = recipe
        self.refresh()

    def set_zero_stage(self, stage: ZeroStage) -> None:
        """The planner's ZeRO stage (the exports use the same one)."""
        self._planner.set_zero_stage(stage)
        self.refresh()

    def set_offload(self, offload: Offload) -> None:
        self._planner.set_offload(offload)
        self.refresh()

    def set_model(self, preset_id: str) -> None:
        known = {p.name for p in self._presets}
        self._model = preset_id if preset_id in known else CUSTOM_MODEL
        self.refresh()

    def set_lora_targets(self, targets: LoraTargets) -> None:
        self._targets = targets
        self.refresh()

    def set_base_format(self, fmt: lora.BaseFormat) -> None:
        self._base = fmt
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the state for the planner's current layout and emit it."""
        self._layout = self._planner_layout()
        self._state = self._build_state()
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
        self._planner.set_other_memory(view.total_gb)
        return True

    # -- labels ---------------------------------------------------------------
    def field_label(self, field: MemoryField, mnemonic: bool = False) -> str:
        text = {
            MemoryField.PARAMETERS: self.tr("Model &parameters"),
            MemoryField.LARGEST_LAYER: self.tr("&Largest layer (parameters)"),
            MemoryField.TRAINABLE_FRACTION: self.tr("&Trainable fraction (LoRA)"),
            MemoryField.LORA_RANK: self.tr("LoRA ra&nk"),
            MemoryField.OVERHEAD: self.tr("Framework o&verhead"),
        }[field]
        return text if mnemonic else text.replace("&", "")

    def field_hint(self, field: MemoryField) -> str:
        return {
            MemoryField.PARAMETERS: self.tr(
                "Parameters in the model, in full: a 7B model is 7,000,000,000."
            ),
            MemoryField.LARGEST_LAYER: self.tr(
                "ZeRO-3 gathers one layer at a time: the parameters of the largest one "
                "(often the embedding, vocabulary × hidden size). Optional."
            ),
            MemoryField.TRAINABLE_FRACTION: self.tr(
                "Share of the parameters LoRA trains, from 0.001 to 1 (0.01 = 1%)."
            ),
            MemoryField.LORA_RANK: self.tr(
                "The rank r of the adapters: each adapted projection gains r × (in + out) "
                "trained parameters per layer."
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

    def offload_label(self, mnemonic: bool = False) -> str:
        text = self.tr("CPU &offload")
        return text if mnemonic else text.replace("&", "")

    def model_label(self, mnemonic: bool = False) -> str:
        text = self.tr("&Model (for LoRA)")
        return text if mnemonic else text.replace("&", "")

    def targets_label(self, mnemonic: bool = False) -> str:
        text = self.tr("&Adapted layers")
        return text if mnemonic else text.replace("&", "")

    def base_label(self, mnemonic: bool = False) -> str:
        text = self.tr("&Base weights")
        return text if mnemonic else text.replace("&", "")

    def recipe_options(self) -> list[tuple[Recipe, str]]:
        return [
            (Recipe.ADAM_MIXED, self.tr("Adam, mixed precision")),
            (Recipe.ADAM_8BIT, self.tr("8-bit Adam (bitsandbytes)")),
            (Recipe.SGD_MOMENTUM, self.tr("SGD with momentum, mixed precision")),
            (Recipe.LORA, self.tr("LoRA / QLoRA (frozen base, trained adapters)")),
            (Recipe.ADAM_FP32, self.tr("Adam, full fp32")),
        ]

    def zero_options(self) -> list[tuple[ZeroStage, str]]:
        return self._planner.texts.zero_options()

    def offload_options(self) -> list[tuple[Offload, str]]:
        return self._planner.texts.offload_options()

    @property
    def _presets(self) -> tuple[Preset, ...]:
        if self._loaded is None:
            try:
                self._loaded = load_presets()
            except PresetError:  # a broken bundle leaves the custom model
                self._loaded = ()
        return self._loaded

    def model_options(self) -> list[tuple[str, str]]:
        custom = self.tr("Other model (trainable fraction)")
        return [(CUSTOM_MODEL, custom)] + [(p.name, p.label) for p in self._presets]

    def target_options(self) -> list[tuple[LoraTargets, str]]:
        return [
            (LoraTargets.QUERY_VALUE, self.tr("Query and value (the LoRA paper)")),
            (LoraTargets.ATTENTION, self.tr("All attention projections")),
            (LoraTargets.ALL_LINEAR, self.tr("All linear layers (QLoRA)")),
        ]

    def base_options(self) -> list[tuple[lora.BaseFormat, str]]:
        return [
            (lora.BaseFormat.BF16, self.tr("16-bit (LoRA)")),
            (lora.BaseFormat.NF4, self.tr("4-bit NF4 (QLoRA)")),
        ]

    def source(self, recipe: Recipe) -> str:
        """Where the recipe's bytes per parameter come from (the core's text, translated)."""
        zero = QCoreApplication.translate("Recipes", ZERO_SOURCE)
        return QCoreApplication.translate("Recipes", RECIPES[recipe].source).format(zero=zero)

    def part_name(self, part: Part) -> str:
        return {
            Part.WEIGHTS: self.tr("Weights"),
            Part.GRADIENTS: self.tr("Gradients"),
            Part.FP32_GRADIENTS: self.tr("fp32 gradients"),
            Part.MASTER_WEIGHTS: self.tr("fp32 master weights"),
            Part.OPTIMIZER_STATES: self.tr("Optimizer states"),
            Part.LARGEST_LAYER: self.tr("Largest layer, gathered"),
            Part.CPU_MODEL: self.tr("fp32 model while loading"),
            Part.CPU_OFFLOAD: self.tr("Offloaded states"),
            Part.CPU_BUFFER: self.tr("DeepSpeed's 1.5× buffer"),
        }[part]

    # -- internals --------------------------------------------------------------
    def _problem(self, field: MemoryField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self.field_label(field), self._raw[field], self._numbers[field])

    def _planner_layout(self) -> tuple[int, int, ZeroStage, Offload, Precision]:
        """The planner's GPUs and nodes (last valid counts while a field is not), its
        ZeRO stage, offload and precision."""
        gpus = self._planner.last_valid(PlanField.GPUS)
        nodes = self._planner.last_valid(PlanField.NODES)
        return (
            int(gpus) if gpus is not None else 1,
            int(nodes) if nodes is not None else 1,
            self._planner.zero_stage,
            self._planner.offload,
            self._planner.precision,
        )

    def _on_planner_state(self, _state: object) -> None:
        if self._planner_layout() != self._layout:
            self.refresh()

    def _shape(self) -> lora.ModelShape | None:
        if self._recipe is not Recipe.LORA or not self._model:
            return None
        preset = next((p for p in self._presets if p.name == self._model), None)
        return lora.ModelShape.from_preset(preset) if preset is not None else None

    def _build_state(self) -> OtherMemoryState:
        shape = self._shape()
        fields = [MemoryField.OVERHEAD, MemoryField.LARGEST_LAYER]
        if shape is None:
            fields.insert(0, MemoryField.PARAMETERS)
        if self._recipe is Recipe.LORA:
            fields.append(
                MemoryField.LORA_RANK if shape is not None else MemoryField.TRAINABLE_FRACTION
            )
        if self._raw[MemoryField.LARGEST_LAYER] is None:  # optional: empty is fine
            fields.remove(MemoryField.LARGEST_LAYER)
        problems = [p for f in fields if (p := self._problem(f)) is not None]
        gpus, nodes, zero, offload, precision = self._layout
        # the same rule as the exports (core.setup), worded for this dialog
        layout = TrainingSetup(1, 1, gpus, nodes=nodes, zero_stage=zero, offload=offload)
        reason = setup_problem(layout)
        if reason is SetupProblem.UNEVEN_NODES:
            problems.append(
                self.tr(
                    "The planner's {gpus} GPUs cannot be split evenly over {nodes} nodes."
                ).format(gpus=gpus, nodes=nodes)
            )
        elif reason is SetupProblem.OFFLOAD_NEEDS_ZERO:
            problems.append(self.tr("CPU offload needs ZeRO stage 1, 2 or 3."))
        elif reason is SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3:
            problems.append(self.tr("Offloading the parameters needs ZeRO stage 3."))
        notes = {"config_note": self._config_note, "config_error": self._config_error}
        if problems:
            return OtherMemoryState(None, tuple(problems), **notes)
        overhead = self.value(MemoryField.OVERHEAD)
        assert overhead is not None
        largest = self.value(MemoryField.LARGEST_LAYER)
        frozen: Fraction | None = None
        lora_text = ""
        if shape is not None:
            rank = self.value(MemoryField.LORA_RANK)
            assert rank is not None
            targets = _TARGETS[self._targets]["gpt2" if shape.family.value == "gpt2" else "llama"]
            base = lora.total_parameters(shape)
            trained = lora.lora_trainable_parameters(shape, int(rank), targets)
            parameters = base + trained
            frozen = lora.frozen_weight_bytes(shape, self._base)
            if largest is None:
                largest = Decimal(
                    max(
                        shape.vocab * shape.hidden,
                        *(i * o for i, o in lora.linear_shapes(shape).values()),
                    )
                )
            f = self._planner.formats.format
            lora_text = self.tr("LoRA trains {trained} of {total} parameters ({share} %).").format(
                trained=f(trained),
                total=f(parameters),
                share=format_approx(self.locale, Decimal(trained * 100) / parameters, 3),
            )
        else:
            value = self.value(MemoryField.PARAMETERS)
            assert value is not None
            parameters = int(value)
            trained = parameters
            if self._recipe is Recipe.LORA:
                fraction = self.value(MemoryField.TRAINABLE_FRACTION)
                assert fraction is not None
                trained = max(1, math.ceil(Fraction(fraction) * parameters))
                if self._base.quantized:
                    # no shape: every frozen weight counted at the 4-bit rate
                    rate = lora.base_weight_bytes_per_param(self._base)
                    frozen = rate * (parameters - trained)
                else:
                    frozen = Fraction(2 * (parameters - trained))
        estimate = model_states(
            parameters,
            gpus,
            zero,
            offload,
            Precision.FP32 if self._recipe is Recipe.ADAM_FP32 else precision,
            nodes=nodes,
            largest_layer=int(largest) if largest is not None else 0,
            optimizer_state_bytes=STATE_BYTES[self._recipe],
            trainable=trained,
            frozen_weight_bytes=frozen,
        )
        return OtherMemoryState(self._view(estimate, overhead, lora_text), (), **notes)

    def _bytes(self, value: Decimal) -> str:
        """A byte count in the plural form it takes: "1 byte", "2 bytes", "≈ 1,33333 bytes"."""
        # %n picks the form: a whole count by itself, a fraction by a plural count
        selector = int(value) if value == value.to_integral_value() else 2
        text = self.tr("%n byte(s)", "", selector)
        shown = format_approx(self._planner.locale, value, BYTES_DIGITS)
        return text.replace(str(selector), shown, 1)

    def _per_param(self, amount: Fraction, parameters: int) -> Decimal:
        share = amount / parameters
        return Decimal(share.numerator) / Decimal(share.denominator)

    def _gb(self, amount: Fraction) -> Decimal:
        gb = amount / _GB
        return (Decimal(gb.numerator) / Decimal(gb.denominator)).quantize(
            _GB_QUANTUM, rounding=ROUND_CEILING
        )

    def _view(self, e: ModelStates, overhead: Decimal, lora_text: str) -> OtherMemoryView:
        gb = self._planner.formats.format_gb
        gpu = [c for c in e.components if c.where == "gpu" and c.bytes]
        rows = tuple(
            (
                self.part_name(c.part),
                gb(self._gb(c.bytes)),
                self._bytes(self._per_param(c.bytes, e.parameters)),
            )
            for c in gpu
        )
        states_gb = self._gb(Fraction(e.gpu_bytes))
        rows += (
            (
                self.tr("Model states per GPU"),
                gb(states_gb),
                self._bytes(self._per_param(Fraction(e.gpu_bytes), e.parameters)),
            ),
        )
        total_gb = (states_gb + overhead).quantize(_GB_QUANTUM, rounding=ROUND_CEILING)
        states = self._planner.formats.counted(
            lambda n: self.tr("%n parameter(s): {gb} of model states on each GPU", "", n),
            e.parameters,
        ).format(gb=gb(states_gb))
        total = self.tr("Other memory per GPU: {states} + {overhead} overhead = {total}").format(
            states=gb(states_gb), overhead=gb(overhead), total=gb(total_gb)
        )
        cpu_parts = ", ".join(
            f"{self.part_name(c.part)} {gb(self._gb(c.bytes))}"
            for c in e.components
            if c.where == "cpu" and c.bytes
        )
        cpu = self.tr("CPU memory per node: {total} ({parts}).").format(
            total=gb(self._gb(Fraction(e.cpu_bytes))), parts=cpu_parts
        )
        if e.zero_stage is ZeroStage.NONE:
            sharding = self.tr("No sharding: every GPU holds a full copy.")
        else:
            sharding = self._planner.formats.counted(
                lambda n: self.tr("Sharded over the planner's %n data-parallel GPU(s).", "", n),
                e.gpus,
            )
        source = QCoreApplication.translate("ModelStates", e.source).format(stage=int(e.zero_stage))
        if self._recipe is not Recipe.ADAM_MIXED:
            source += " · " + self.source(self._recipe)
        return OtherMemoryView(
            rows=rows,
            states=states,
            total=total,
            cpu=cpu,
            source=source,
            sharding=sharding,
            total_gb=total_gb,
            lora=lora_text,
            estimate=e,
        )
