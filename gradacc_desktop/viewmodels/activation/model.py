"""The estimator's view-model: its inputs (a bundled or opened config.json, a sized preset
or custom sizes; the step's options) to ``core.memory.activation.estimate``, one
``ActivationState`` per change; words from ``texts``; bytes become GB only for display."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.memory import (
    Accounting,
    ConfigPreset,
    Family,
    Inputs,
    InvalidActivationInputs,
    Preset,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    Head,
    ModelConfigError,
    file_name,
    parse_model_config_text,
    read_model_config_text,
)
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.viewmodels.activation.estimate import EstimateTexts
from gradacc_desktop.viewmodels.activation.fields import (
    DEFAULT_PRESET,
    FALLBACK_VALUES,
    FIELD_LIMITS,
    FILE_KEY,
    IMAGE_FIELDS,
    OPTION_KINDS,
    SHAPE_FIELDS,
    ActivationField,
    Option,
    Options,
)
from gradacc_desktop.viewmodels.activation.inputs import (
    estimator_inputs,
    find_named,
    has_tower,
    image_fields,
    measured_images,
    model_choices,
    model_setup,
    preset_values,
)
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel
from gradacc_desktop.viewmodels.activation.outcomes import ActivationOutcomes
from gradacc_desktop.viewmodels.activation.remembered import (
    read_setup,
    remembered_model,
    setup_snapshot,
)
from gradacc_desktop.viewmodels.activation.texts import ActivationTexts
from gradacc_desktop.viewmodels.activation.views import ActivationState, EstimateView
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe

_log = logging.getLogger(__name__)


class ActivationViewModel(QObject):
    # every change of inputs, results or language: carries an ``ActivationState``
    stateChanged = Signal(object)
    # field values set by the view-model (a preset, GPT-2's key/value heads):
    # carries ``dict[ActivationField, int]`` of the fields whose text should change
    valuesReplaced = Signal(object)

    def __init__(
        self,
        locale: QLocale | None = None,
        parent: QObject | None = None,
        presets: tuple[Preset, ...] | None = None,
        preset: str | None = DEFAULT_PRESET,
        config_presets: tuple[ConfigPreset, ...] | None = None,
    ) -> None:
        super().__init__(parent)
        self._locale = locale if locale is not None else QLocale()
        self._texts = ActivationTexts(self._locale)
        self._estimate = EstimateTexts(self._texts)
        self._outcomes = ActivationOutcomes(self._texts)
        self._numbers: dict[ActivationField, NumberInput] = {}
        self._presets, self._config_presets = model_choices(presets, config_presets)
        self._preset: Preset | None = None
        self._model: LoadedModel | None = None
        self._opened: LoadedModel | None = None
        self._load_error = ""
        self._options = Options()
        self._raw: dict[ActivationField, Entry] = {
            f: Decimal(v) for f, v in FALLBACK_VALUES.items()
        }
        found = find_named(self._presets, preset)
        if found is None and preset is not None and self._presets:
            found = self._presets[0]
        if found is not None:
            self._apply_preset(found)
        self._state = self._build_state()

    # -- inputs ---------------------------------------------------------------
    @property
    def locale(self) -> QLocale:
        return self._locale

    @property
    def state(self) -> ActivationState:
        return self._state

    @property
    def presets(self) -> tuple[Preset, ...]:
        return self._presets

    @property
    def texts(self) -> ActivationTexts:
        """Labels, hints and choices for the widgets, in the current language."""
        return self._texts

    def preset_choices(self) -> tuple[tuple[str | None, str], ...]:
        """(key, label) of every model choice — sized presets, config presets, the file
        the user opened — then (``None``, "Custom")."""
        items = [(p.name, p.label) for p in self._presets]
        items += [(c.name, c.label) for c in self._config_presets]
        if self._opened is not None:
            items.append((FILE_KEY, self._opened.label))
        return self._texts.preset_choices(tuple(items))

    def family_choices(self) -> tuple[tuple[Family, str], ...]:
        return self._texts.family_choices(self._model.arch.family if self._model else None)

    @property
    def model(self) -> LoadedModel | None:
        """The model read from a config.json, ``None`` for a sized preset or custom sizes."""
        return self._model

    @property
    def options(self) -> Options:
        return self._options

    @property
    def inputs(self) -> Inputs | None:
        """The estimator's inputs when every field is valid, else ``None``."""
        return self._state.estimate.result.inputs if self._state.estimate else None

    def value(self, field: ActivationField) -> int | None:
        """The field's current value, ``None`` if it is empty, not a number or not whole."""
        raw = self._raw[field]
        if isinstance(raw, Decimal) and raw == raw.to_integral_value():
            return int(raw)
        return None

    def select_preset(self, name: str | None) -> None:
        """Fill the sizes and sequence length from model choice ``name``: a sized preset,
        a config preset or the opened file; ``None`` means custom (the current values stay
        and become editable)."""
        self._load_error = ""
        if name == FILE_KEY and self._opened is not None:
            self._set_model(self._opened)
            return
        config = find_named(self._config_presets, name)
        if config is not None:
            self._set_model(LoadedModel(config.arch, config.label, config.source, config.name))
            return
        preset = find_named(self._presets, name)
        if preset is None:
            self._preset = None
            if self._model is not None:
                self._model = None
                if not self._options.family.typed_sizes:
                    self._options = replace(self._options, family=Family.LLAMA)
            self._refresh()
            return
        self._model = None
        self._apply_preset(preset)
        self._refresh()
        self.valuesReplaced.emit({f: self.value(f) for f in (*SHAPE_FIELDS, ActivationField.SEQ)})

    def start_from(self, described: TrainingDescription | None) -> None:
        """Begin with the training description's step: its bundled model, sequence
        length, precision, attention kernel, recomputation and loss."""
        if described is None:
            return
        name = None if described.model is None else described.model.name
        if name is not None and name in dict(self.preset_choices()):
            self.select_preset(name)
        if described.seq_len is not None:
            self.set_value(ActivationField.SEQ, described.seq_len)
        o, d = self._options, described
        step = (d.precision, d.attention.kept, d.recomputed, d.loss_fused)
        self._set_options(replace(o, dtype=step[0], attention=step[1], recompute=step[2],
                                  fused_loss=step[3]))  # fmt: skip

    def open_config(self, path: str) -> bool:
        """Read the user's ``config.json`` at ``path`` (a local file; never a download).
        On success it becomes the model; otherwise the state says why and nothing else
        changes."""
        name = file_name(path)
        try:
            text = read_model_config_text(path)
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            self._load_error = self._outcomes.not_opened(name, exc.detail)
            self._refresh()
            return False
        self._load_error = ""
        label = self._texts.file_label(name, arch.architecture)
        self._opened = LoadedModel(arch, label, path, FILE_KEY, file_name=name, text=text)
        self._set_model(self._opened)
        return True

    def number_input(self, field: ActivationField) -> NumberInput:
        """How ``field`` reads, shows and steps its text (for its widget); it follows
        ``set_language``."""
        number = self._numbers.get(field)
        if number is None:
            number = self._numbers[field] = NumberInput(FIELD_LIMITS[field], locale=self._locale)
        return number

    def display_text(self, field: ActivationField) -> str:
        """The text ``field`` shows for what it holds (unreadable text stays as typed)."""
        return self.number_input(field).show_entry(self._raw[field])

    def set_text(self, field: ActivationField, text: str) -> None:
        """The user edited ``field``; ``text`` is in the active locale."""
        raw = self.number_input(field).read(text)
        if field is ActivationField.KV_HEADS and self._kv_follows_heads():
            return
        if self._raw[field] == raw and type(self._raw[field]) is type(raw):
            return
        self._raw[field] = raw
        if field is ActivationField.HEADS and self._kv_follows_heads():
            self._raw[ActivationField.KV_HEADS] = raw
            self._refresh()
            self.valuesReplaced.emit({ActivationField.KV_HEADS: self.value(field)})
            return
        self._refresh()

    def set_value(self, field: ActivationField, value: int) -> None:
        self.set_text(field, self.number_input(field).show(value))

    def set_family(self, family: Family) -> None:
        self._set_options(replace(self._options, family=family))
        if self._kv_follows_heads():
            heads = self._raw[ActivationField.HEADS]
            if self._raw[ActivationField.KV_HEADS] != heads:
                self._raw[ActivationField.KV_HEADS] = heads
                self._refresh()
                self.valuesReplaced.emit(
                    {ActivationField.KV_HEADS: self.value(ActivationField.HEADS)}
                )

    def set_option(self, option: Option, value: object) -> None:
        """A choice (data type, attention, recomputation, profile) or a check box
        (``FLAGS``): the ``Options`` field of the option's name."""
        kind = OPTION_KINDS[option]
        changes: dict[str, Any] = {option.value: value if kind is bool else kind(value)}
        self._set_options(replace(self._options, **changes))

    def set_language(self, locale: QLocale) -> None:
        """After a language switch (the new translators are installed): read and show
        numbers in ``locale`` and re-render every string, in one new state."""
        self._locale = self._texts.locale = locale
        for number in self._numbers.values():
            number.locale = locale
        self._refresh(force=True)

    # -- remembering the last setup ---------------------------------------------
    def snapshot(self) -> dict[str, str]:
        """The dialog's current setup as plain strings (for the settings store)."""
        values = {f: self.value(f) for f in ActivationField}
        return setup_snapshot(self._preset, values, self._options, self._model)

    def restore(self, saved: Mapping[str, object]) -> None:
        """Apply a ``snapshot``; a missing, unknown or out-of-range value keeps what is
        there (settings files can be edited or damaged)."""
        setup = read_setup(saved, self._options)
        preset = find_named(self._presets, setup.preset)
        model = remembered_model(saved, setup.preset, self._config_presets, self._texts.file_label)
        if model is not None and model.key == FILE_KEY:
            self._opened = model
        if model is not None:
            self._set_model(model, emit=False)
        elif preset is not None:
            self._apply_preset(preset)
        elif setup.preset == "":
            self._preset = None
        family = setup.options.family
        if model is not None:
            family = model.arch.family
        elif not family.typed_sizes:
            family = self._options.family if self._options.family.typed_sizes else Family.LLAMA
        self._options = replace(setup.options, family=family)
        values = dict(setup.values)
        if model is not None:  # the sizes are the config's, not what was stored
            for field in SHAPE_FIELDS:
                values.pop(field, None)
        self._raw.update(values)
        if self._kv_follows_heads():
            self._raw[ActivationField.KV_HEADS] = self._raw[ActivationField.HEADS]
        self._refresh(force=True)
        self.valuesReplaced.emit({f: self.value(f) for f in ActivationField})

    # -- the calculator -------------------------------------------------------
    def value_for_calculator(self) -> Decimal | None:
        """Peak per sample in GB rounded up to the calculator's decimals (never 0);
        ``None`` without an estimate or beyond the calculator's range."""
        view = self._state.estimate
        if view is None:
            return None
        return self._estimate.calculator_value(view.result)

    def use_value(self, calculator_vm: CalculatorViewModel) -> bool:
        """Put the peak per sample in the calculator's "activation per sample"."""
        value = self.value_for_calculator()
        if value is None:
            return False
        # only this field: the others keep what they show, even a value they refuse
        calculator_vm.set_value(Field.ACTIVATION_GB, value)
        return True

    # -- internals ------------------------------------------------------------
    def _set_model(self, model: LoadedModel, *, emit: bool = True) -> None:
        """Make ``model`` the estimator's model: its sizes fill the (locked) fields, the
        sequence starts at its context length (at most 4 096)."""
        self._model = model
        self._preset = None
        self._options, values = model_setup(model, self._options)
        self._raw.update(values)
        if emit:
            self._refresh()
            self.valuesReplaced.emit({f: self.value(f) for f in ActivationField})

    def _apply_preset(self, preset: Preset) -> None:
        self._preset = preset
        self._options = replace(self._options, family=preset.family)
        self._raw.update(preset_values(preset))

    def _kv_follows_heads(self) -> bool:
        return self._options.family is Family.GPT2 and self._model is None

    def _set_options(self, options: Options) -> None:
        if options != self._options:
            self._options = options
            self._refresh()

    def _modified(self) -> bool:
        preset = self._preset
        if preset is None:
            return False
        if self._options.family is not preset.family:
            return True
        return any(self.value(f) != getattr(preset, f.value) for f in SHAPE_FIELDS)

    def _refresh(self, force: bool = False) -> None:
        state = self._build_state()
        if force or state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _build_state(self) -> ActivationState:
        problems: list[str] = []
        invalid: set[ActivationField] = set()
        values: dict[ActivationField, int] = {}
        follows = self._kv_follows_heads()
        encoder_decoder = self._model is not None and self._model.arch.encoder_decoder
        for field in ActivationField:
            if follows and field is ActivationField.KV_HEADS:
                continue
            if field is ActivationField.TARGET_SEQ and not encoder_decoder:
                continue
            if field in IMAGE_FIELDS and field not in image_fields(self._model):
                continue
            problem = describe(self._texts.label(field), self._raw[field], self.number_input(field))
            if problem is None:
                value = self.value(field)
                assert value is not None
                values[field] = value
            else:
                problems.append(problem)
                invalid.add(field)
        if follows and ActivationField.HEADS in values:
            values[ActivationField.KV_HEADS] = values[ActivationField.HEADS]

        view: EstimateView | None = None
        if not problems:
            inputs = estimator_inputs(self._model, self._options, values)
            try:
                result = estimate(inputs)
            except InvalidActivationInputs as exc:
                message, fields = self._outcomes.core_problem(exc, inputs, self.number_input)
                problems.append(message)
                invalid.update(fields)
            else:
                view = self._estimate.view(result, self._preset, self._model)

        preset = self._preset
        model = self._model
        causal = model is None or model.arch.head is Head.CAUSAL_LM
        causal = causal and self._options.profile is Accounting.HF
        preset_label = self._outcomes.preset_label(model, preset, self._modified())
        return ActivationState(
            estimate=view,
            prompt=self._outcomes.prompt(),
            problems=tuple(problems),
            invalid=frozenset(invalid),
            options=self._options,
            preset=model.key if model is not None else preset.name if preset is not None else None,
            preset_label=preset_label,
            kv_heads_follow_heads=follows,
            sources=self._estimate.sources(preset, preset_label, model),
            measure_command=self._estimate.measure_command(
                self._options,
                self.value(ActivationField.SEQ),
                model,
                self.value(ActivationField.TARGET_SEQ),
                *measured_images(model, self.value),
            ),
            can_use=view is not None and self._estimate.calculator_value(view.result) is not None,
            model_loaded=model is not None,
            model_summary=self._outcomes.model_summary(
                model, preset if preset is not None and not self._modified() else None
            ),
            load_error=self._load_error,
            encoder_decoder=encoder_decoder,
            typed_family=self._options.family.typed_sizes,
            image_fields=image_fields(self._model),
            vision=has_tower(model),
            fixed_seq=model is not None and model.arch.fixed_seq is not None,
            cache_applies=causal and self._options.recompute is not Recompute.FULL,
            loss_fuses=causal,
        )
