"""The estimator's view-model: holds its inputs (a model from a config.json — a
bundled preset's or a file the user opened —, a sized preset or custom sizes, and the
training-step options), calls ``core.activation.estimate`` and emits one
``ActivationState`` per change. Words come from ``texts`` and ``estimate``; no
model arithmetic here: bytes become decimal GB (10^9 bytes) only for display.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QLocale, QObject, Signal

from gradacc_desktop.core.activation import (
    Attention,
    DType,
    Family,
    Inputs,
    InvalidActivationInputs,
    Profile,
    Recompute,
    estimate,
    validate,
)
from gradacc_desktop.core.activation import Problem as CoreProblem
from gradacc_desktop.core.calculator import Field
from gradacc_desktop.core.families import (
    Head,
    ModelConfigError,
    file_name,
    parameters,
    parse_model_config_text,
    read_model_config_text,
)
from gradacc_desktop.core.families.vision_facts import DEFAULT_IMAGES, default_image_size
from gradacc_desktop.core.families.vision_facts import resizable as image_resizable
from gradacc_desktop.core.presets import (
    ConfigPreset,
    Preset,
    PresetError,
    load_config_presets,
    load_presets,
)
from gradacc_desktop.viewmodels.activation.estimate import EstimateTexts
from gradacc_desktop.viewmodels.activation.fields import (
    DEFAULT_PRESET,
    FALLBACK_VALUES,
    FIELD_LIMITS,
    FILE_KEY,
    IMAGE_FIELDS,
    SHAPE_FIELDS,
    ActivationField,
    Options,
)
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel
from gradacc_desktop.viewmodels.activation.remembered import read_setup, setup_snapshot
from gradacc_desktop.viewmodels.activation.texts import ActivationTexts
from gradacc_desktop.viewmodels.activation.views import ActivationState, EstimateView
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import describe, out_of_range

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
        self._numbers: dict[ActivationField, NumberInput] = {}
        if presets is None:
            try:
                presets = load_presets()
            except PresetError as exc:  # the fields start from GPT-2 small instead
                _log.warning("presets not loaded: %s", exc)
                presets = ()
        if config_presets is None:
            try:
                config_presets = load_config_presets()
            except PresetError as exc:  # the sized presets and files still work
                _log.warning("model configs not loaded: %s", exc)
                config_presets = ()
        self._config_presets = config_presets
        shadowed = {c.name.lower() for c in config_presets}
        # a published config.json is more exact than sizes: it replaces a same-named preset
        self._presets = tuple(p for p in presets if p.name.lower() not in shadowed)
        self._preset: Preset | None = None
        self._model: LoadedModel | None = None
        self._opened: LoadedModel | None = None
        self._load_error = ""
        self._options = Options()
        self._raw: dict[ActivationField, Entry] = {
            f: Decimal(v) for f, v in FALLBACK_VALUES.items()
        }
        found = self._find(preset)
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
        config = self._find_config(name)
        if config is not None:
            self._set_model(LoadedModel(config.arch, config.label, config.source, config.name))
            return
        preset = self._find(name)
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

    def open_config(self, path: str) -> bool:
        """Read the user's ``config.json`` at ``path`` (a local file; never a download).
        On success it becomes the model; otherwise the state says why and nothing else
        changes."""
        name = file_name(path)
        try:
            text = read_model_config_text(path)
            arch = parse_model_config_text(text)
        except ModelConfigError as exc:
            self._load_error = self.tr("{file} was not opened: {reason}").format(
                file=name, reason=PlanFormats(self._locale).said(exc.detail)
            )
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

    def set_dtype(self, dtype: DType) -> None:
        self._set_options(replace(self._options, dtype=dtype))

    def set_attention(self, attention: Attention) -> None:
        self._set_options(replace(self._options, attention=attention))

    def set_recompute(self, recompute: Recompute) -> None:
        self._set_options(replace(self._options, recompute=recompute))

    def set_sequence_parallel(self, enabled: bool) -> None:
        self._set_options(replace(self._options, sequence_parallel=enabled))

    def set_dropout(self, enabled: bool) -> None:
        self._set_options(replace(self._options, dropout=enabled))

    def set_padded(self, enabled: bool) -> None:
        self._set_options(replace(self._options, padded=enabled))

    def set_use_cache(self, enabled: bool) -> None:
        self._set_options(replace(self._options, use_cache=enabled))

    def set_vision_frozen(self, enabled: bool) -> None:
        self._set_options(replace(self._options, vision_frozen=enabled))

    def set_profile(self, profile: Profile) -> None:
        self._set_options(replace(self._options, profile=profile))

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
        saved = setup_snapshot(self._preset, values, self._options)
        model = self._model
        if model is not None:
            saved["preset"] = model.key
            if model.key == FILE_KEY:
                saved["model_config"] = model.text
                saved["model_file"] = model.file_name
                saved["model_path"] = model.source
        return saved

    def restore(self, saved: Mapping[str, object]) -> None:
        """Apply a ``snapshot``; a missing, unknown or out-of-range value keeps what is
        there (settings files can be edited or damaged)."""
        setup = read_setup(saved, self._options)
        preset = self._find(setup.preset)
        model = self._remembered_model(saved, setup.preset)
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
    def _remembered_model(self, saved: Mapping[str, object], key: str | None) -> LoadedModel | None:
        if key is None:
            return None
        config = self._find_config(key)
        if config is not None:
            return LoadedModel(config.arch, config.label, config.source, config.name)
        text, name, path = (saved.get(k) for k in ("model_config", "model_file", "model_path"))
        if key != FILE_KEY or not isinstance(text, str) or not isinstance(name, str):
            return None
        try:
            arch = parse_model_config_text(text)
        except ModelConfigError:  # a damaged store: the model stays as it is
            return None
        source = path if isinstance(path, str) and path else name
        label = self._texts.file_label(name, arch.architecture)
        self._opened = LoadedModel(arch, label, source, FILE_KEY, file_name=name, text=text)
        return self._opened

    def _find_config(self, name: str | None) -> ConfigPreset | None:
        if name is None:
            return None
        for config in self._config_presets:
            if config.name.lower() == name.lower():
                return config
        return None

    def _set_model(self, model: LoadedModel, *, emit: bool = True) -> None:
        """Make ``model`` the estimator's model: its sizes fill the (locked) fields, the
        sequence starts at its context length (at most 4 096)."""
        self._model = model
        self._preset = None
        arch = model.arch
        # the file's use_cache, as transformers reads it
        options = replace(self._options, family=arch.family, use_cache=arch.use_cache)
        if not arch.family.typed_sizes:
            # what only GPT-2 and Llama model: the paper profile, tensor parallelism
            options = replace(options, profile=Profile.HF, sequence_parallel=False)
            self._raw[ActivationField.TENSOR_PARALLEL] = Decimal(1)
        self._options = options
        for field in SHAPE_FIELDS:
            self._raw[field] = Decimal(getattr(arch, field.value))
        self._raw[ActivationField.SEQ] = Decimal(arch.default_seq)
        self._raw[ActivationField.TARGET_SEQ] = Decimal(arch.default_target_seq)
        size = default_image_size(arch)
        if size is not None:
            # one image per sample, at the size the model's processor gives it
            self._raw[ActivationField.IMAGES] = Decimal(DEFAULT_IMAGES)
            self._raw[ActivationField.IMAGE_WIDTH] = Decimal(size[0])
            self._raw[ActivationField.IMAGE_HEIGHT] = Decimal(size[1])
        if emit:
            self._refresh()
            self.valuesReplaced.emit({f: self.value(f) for f in ActivationField})

    def _find(self, name: str | None) -> Preset | None:
        if name is None:
            return None
        for preset in self._presets:
            if preset.name.lower() == name.lower():
                return preset
        return None

    def _apply_preset(self, preset: Preset) -> None:
        self._preset = preset
        self._options = replace(self._options, family=preset.family)
        for field in (*SHAPE_FIELDS, ActivationField.SEQ):
            self._raw[field] = Decimal(
                preset.default_seq if field is ActivationField.SEQ else getattr(preset, field.value)
            )

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
            if field in IMAGE_FIELDS and field not in self._image_fields():
                continue
            problem = self._problem(field)
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
            inputs = self._inputs(values)
            try:
                result = estimate(inputs)
            except InvalidActivationInputs as exc:
                message, fields = self._core_problem(exc, inputs)
                problems.append(message)
                invalid.update(fields)
            else:
                view = self._estimate.view(result, self._preset, self._model)

        preset = self._preset
        model = self._model
        if model is not None:
            preset_label = model.label
        elif preset is None:
            preset_label = self._texts.custom_label()
        elif self._modified():
            preset_label = self.tr("{model} (modified)").format(model=preset.label)
        else:
            preset_label = preset.label
        return ActivationState(
            estimate=view,
            prompt=self.tr("Correct the highlighted fields to see the estimate."),
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
                *self._measured_images(),
            ),
            can_use=view is not None and self._estimate.calculator_value(view.result) is not None,
            model_loaded=model is not None,
            model_summary=self._model_summary(),
            load_error=self._load_error,
            encoder_decoder=encoder_decoder,
            typed_family=self._options.family.typed_sizes,
            image_fields=self._image_fields(),
            vision=model is not None and default_image_size(model.arch) is not None,
            fixed_seq=model is not None and model.arch.fixed_seq is not None,
            cache_applies=(model is None or model.arch.head is Head.CAUSAL_LM)
            and self._options.profile is Profile.HF
            and self._options.recompute is not Recompute.FULL,
        )

    def _model_summary(self) -> str:
        """What the model is: its class, the profile that counts it, its parameters."""
        model, preset = self._model, self._preset
        if model is not None:
            arch = model.arch
            family = self._texts.family_text(arch.family)
            count = self._texts.format(parameters(arch))
            if arch.encoder_decoder:
                return self.tr(
                    "{architecture} · profile: {family} · {encoder} encoder and {decoder} "
                    "decoder layers · {count} parameters"
                ).format(
                    architecture=arch.architecture or arch.model_type,
                    family=family,
                    encoder=self._texts.format(arch.layers),
                    decoder=self._texts.format(arch.decoder_layers),
                    count=count,
                )
            if arch.architecture:
                return self.tr("{architecture} · profile: {family} · {count} parameters").format(
                    architecture=arch.architecture, family=family, count=count
                )
            return self.tr("Profile: {family} · {count} parameters").format(
                family=family, count=count
            )
        if preset is not None and not self._modified():
            from gradacc_desktop.core.lora import ModelShape, total_parameters

            count = self._texts.format(total_parameters(ModelShape.from_preset(preset)))
            return self.tr("{count} parameters").format(count=count)
        return ""

    def _measured_images(self) -> tuple[int | None, tuple[int, int] | None]:
        """(images, image size) the measuring command takes for this model (None, None
        without a vision tower)."""
        fields = self._image_fields()
        if not fields and not self._has_tower():
            return None, None
        images = self.value(ActivationField.IMAGES) if ActivationField.IMAGES in fields else 0
        width = self.value(ActivationField.IMAGE_WIDTH)
        height = self.value(ActivationField.IMAGE_HEIGHT)
        if ActivationField.IMAGE_WIDTH not in fields or width is None or height is None:
            return images or 0, None
        return images or 0, (width, height)

    def _has_tower(self) -> bool:
        return self._model is not None and default_image_size(self._model.arch) is not None

    def _image_fields(self) -> tuple[ActivationField, ...]:
        """The image fields the loaded model reads: images per sample (a language model
        with a vision tower), the image size (where it changes the estimate)."""
        if self._model is None or default_image_size(self._model.arch) is None:
            return ()
        arch = self._model.arch
        fields: tuple[ActivationField, ...] = ()
        if arch.family is Family.VLM:
            fields += (ActivationField.IMAGES,)
        if image_resizable(arch):
            fields += (ActivationField.IMAGE_WIDTH, ActivationField.IMAGE_HEIGHT)
        return fields

    def _inputs(self, values: dict[ActivationField, int]) -> Inputs:
        o = self._options
        if self._model is not None:
            arch = self._model.arch
            images: dict[str, Any] = {}
            shown = self._image_fields()
            if shown:
                images["vision_frozen"] = o.vision_frozen
            if ActivationField.IMAGES in shown:
                images["images"] = values[ActivationField.IMAGES]
            if ActivationField.IMAGE_WIDTH in shown:
                images["image_width"] = values[ActivationField.IMAGE_WIDTH]
                images["image_height"] = values[ActivationField.IMAGE_HEIGHT]
            return arch.inputs(
                **images,
                seq=values[ActivationField.SEQ],
                target_seq=values.get(ActivationField.TARGET_SEQ) if arch.encoder_decoder else None,
                dtype=o.dtype,
                dropout=o.dropout,
                attention=o.attention,
                recompute=o.recompute,
                tensor_parallel=values[ActivationField.TENSOR_PARALLEL],
                sequence_parallel=o.sequence_parallel,
                profile=o.profile,
                padded=o.padded,
                use_cache=o.use_cache,
            )
        return Inputs(
            family=o.family,
            hidden=values[ActivationField.HIDDEN],
            layers=values[ActivationField.LAYERS],
            heads=values[ActivationField.HEADS],
            kv_heads=values[ActivationField.KV_HEADS],
            intermediate=values[ActivationField.INTERMEDIATE],
            vocab=values[ActivationField.VOCAB],
            seq=values[ActivationField.SEQ],
            dtype=o.dtype,
            dropout=o.dropout,
            attention=o.attention,
            recompute=o.recompute,
            tensor_parallel=values[ActivationField.TENSOR_PARALLEL],
            sequence_parallel=o.sequence_parallel,
            profile=o.profile,
            padded=o.padded,
            # typed sizes: off unless asked (the core's default for them)
            use_cache=True if o.use_cache else None,
        )

    def _problem(self, field: ActivationField) -> str | None:
        """Why ``field``'s entry is refused (``None``: it is accepted)."""
        return describe(self._texts.label(field), self._raw[field], self.number_input(field))

    def _core_problem(
        self, exc: InvalidActivationInputs, inputs: Inputs
    ) -> tuple[str, set[ActivationField]]:
        """The core's first objection: a message and the fields involved."""
        if exc.problem is CoreProblem.NOT_MODELLED:
            return self._not_modelled(exc)
        field = ActivationField(exc.field)
        label = self._texts.label(field)
        heads = self._texts.format(inputs.heads)
        size = self._texts.format(inputs.tensor_parallel)
        both = {field, ActivationField.HEADS}
        if exc.problem is CoreProblem.MISMATCH:
            message = self.tr(
                "{field}: the GPT-2 family has as many as the attention heads ({heads})."
            )
            return message.format(field=label, heads=heads), both
        if exc.problem is CoreProblem.NOT_DIVISIBLE:
            # Without tensor parallelism only the head checks remain: which one failed?
            try:
                validate(replace(inputs, tensor_parallel=1, sequence_parallel=False))
            except InvalidActivationInputs:
                if field is ActivationField.HIDDEN:
                    message = self.tr(
                        "{field}: must be a multiple of the attention heads ({heads})."
                    )
                else:
                    message = self.tr("{field}: must divide the attention heads ({heads}).")
                return message.format(field=label, heads=heads), both
            if field is ActivationField.SEQ:
                message = self.tr(
                    "{field}: with sequence parallelism, must be a multiple of the "
                    "tensor-parallel size ({size})."
                )
            else:
                message = self.tr(
                    "{field}: must be a multiple of the tensor-parallel size ({size})."
                )
            return message.format(field=label, size=size), {
                field,
                ActivationField.TENSOR_PARALLEL,
            }
        return out_of_range(label, self.number_input(field)), {field}

    def _not_modelled(self, exc: InvalidActivationInputs) -> tuple[str, set[ActivationField]]:
        """A choice the core does not model for this family (the controls normally
        prevent it: a restored or hand-edited setup can still reach it)."""
        if exc.field == "tensor_parallel":
            label = self._texts.label(ActivationField.TENSOR_PARALLEL)
            message = self.tr(
                "{field}: tensor parallelism is modelled for GPT-2 and Llama-like models "
                "only; use 1."
            ).format(field=label)
            return message, {ActivationField.TENSOR_PARALLEL}
        if exc.field == "profile":
            return self.tr(
                "The paper profile counts GPT-2 and Llama-shaped models only (head size = "
                "hidden size / heads): choose the Hugging Face profile."
            ), set()
        reason = PlanFormats(self._locale).said(exc.detail)
        return self.tr("This model cannot be estimated: {reason}").format(reason=reason), set()
