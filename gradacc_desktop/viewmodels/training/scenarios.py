"""Scenario files: the training description (and the calculator's inputs) to and from
a file and the settings store, with a message for every way a file can be refused."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import final

from PySide6.QtCore import QObject

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.frameworks.export import Exported
from gradacc_desktop.core.memory import (
    DEFAULT_OVERHEAD_GB,
    LoraTargets,
    ModelSource,
    ModelSpec,
    known_models,
)
from gradacc_desktop.core.scenario import PlanSettings, ReadProblem, Scenario, ScenarioError
from gradacc_desktop.core.time import CUSTOM_ID
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.files import Outcome, write_file_atomically
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.formatting import Entry
from gradacc_desktop.viewmodels.training.build import OpenedConfig
from gradacc_desktop.viewmodels.training.fields import (
    CONFIG_MODEL,
    NO_MODEL,
    PARAMS_MODEL,
    SHAPE_FIELDS,
    SHAPE_MODEL,
    Choice,
    TrainingField,
)
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

_log = logging.getLogger(__name__)


def settings_of(training: TrainingViewModel) -> PlanSettings:
    """The description as scenario settings: what the fields and choices hold (the last
    valid values where a field holds none now)."""
    c = training.choices
    card = training.card()

    def value(field: TrainingField) -> Decimal | None:
        return training.remembered_value(field)

    def integer(field: TrainingField) -> int | None:
        number = value(field)
        return None if number is None else int(number)

    target, gpus = integer(TrainingField.TARGET), integer(TrainingField.GPUS)
    assert target is not None and gpus is not None
    tensor_parallel = integer(TrainingField.TENSOR_PARALLEL) or 1
    described = training.description
    # an empty nodes field: the nodes the description assumes, written out
    described_nodes = 1 if described is None else described.nodes
    return PlanSettings(
        target_batch=target,
        micro_batch=None if c.recommend else integer(TrainingField.MICRO_BATCH),
        gpus=gpus,
        rounding=c.rounding,
        gpu_card=CUSTOM_ID if card is None else card.id,
        gpu_memory_gb=value(TrainingField.GPU_MEMORY) if card is None else card.usable_gb,
        other_memory_gb=value(TrainingField.OTHER_MEMORY),
        activation_gb=value(TrainingField.ACTIVATION),
        seq_len=integer(TrainingField.SEQ_LEN),
        dataset_samples=integer(TrainingField.DATASET),
        nodes=integer(TrainingField.NODES) or described_nodes,
        zero_stage=c.zero,
        precision=c.precision,
        offload=c.offload,
        tensor_parallel=tensor_parallel,
        pipeline_stages=integer(TrainingField.PIPELINE_STAGES) or 1,
        recompute=c.recompute,
        model=training.model_spec(),
        efficiency_percent=value(TrainingField.EFFICIENCY),
        price_per_gpu_hour=value(TrainingField.PRICE),
        training_tokens=integer(TrainingField.TOKENS),
        epochs=integer(TrainingField.EPOCHS),
        custom_tflops=value(TrainingField.CUSTOM_TFLOPS),
        custom_memory_bandwidth_gbps=value(TrainingField.CUSTOM_BANDWIDTH),
        custom_link_gbps=value(TrainingField.CUSTOM_LINK),
        custom_network_gbps=value(TrainingField.CUSTOM_NETWORK),
        method=c.method,
        lora_rank=integer(TrainingField.LORA_RANK) or 16,
        lora_targets=c.lora_targets,
        trainable_params=integer(TrainingField.TRAINABLE_PARAMS),
        optimizer=c.optimizer,
        master_weights=c.master_weights,
        target_seq=integer(TrainingField.TARGET_SEQ),
        overhead_gb=value(TrainingField.OVERHEAD) or DEFAULT_OVERHEAD_GB,
        virtual_stages=integer(TrainingField.VIRTUAL_STAGES) or 1,
        expert_parallel=integer(TrainingField.EXPERT_PARALLEL) or 1,
        expert_tensor_parallel=integer(TrainingField.EXPERT_TENSOR_PARALLEL),
        context_parallel=integer(TrainingField.CONTEXT_PARALLEL) or 1,
        # what the plan uses: FP8 only where the precision and the card allow it
        fp8=c.fp8 and training.check(Choice.FP8).enabled,
        attention=c.attention,
        # what the plan uses: the fused loss only where the framework runs HF modules
        fused_loss=c.fused_loss and training.check(Choice.FUSED_LOSS).enabled,
        link_gbps=value(TrainingField.LINK),
        network_gbps=value(TrainingField.NETWORK),
        goodput_percent=value(TrainingField.GOODPUT),
        images=integer(TrainingField.IMAGES),
        image_width=integer(TrainingField.IMAGE_WIDTH),
        image_height=integer(TrainingField.IMAGE_HEIGHT),
        vision_frozen=c.vision_frozen,
        framework=c.framework,
        # what the plan uses: sequence parallelism only beside tensor parallelism
        sequence_parallel=c.sequence_parallel and tensor_parallel > 1,
        # what the plan uses: the overlap only where Megatron runs it
        tp_comm_overlap=c.tp_comm_overlap and training.check(Choice.TP_COMM_OVERLAP).enabled,
        grad_reduce_bf16=c.grad_reduce_bf16 and training.check(Choice.GRAD_REDUCE_BF16).enabled,
        cpu_memory_gb=integer(TrainingField.CPU_MEMORY),
    )


def apply_settings(training: TrainingViewModel, plan: PlanSettings) -> None:
    """Put scenario settings into the description (one refresh)."""
    model_key, config, family = NO_MODEL, None, training.choices.family
    values: dict[TrainingField, Entry] = {}
    spec = plan.model
    if spec is not None and spec.source is ModelSource.BUNDLED and spec.name is not None:
        if spec.name.lower() in {name.lower() for name in known_models()}:
            model_key = ModelSpec.bundled(spec.name).name or NO_MODEL
        else:
            _log.warning("unknown bundled model %r: no model is chosen", spec.name)
    elif spec is not None and spec.source is ModelSource.CONFIG and spec.arch is not None:
        model_key, config = CONFIG_MODEL, OpenedConfig(spec.arch, spec.file_name, spec.text)
    elif spec is not None and spec.source is ModelSource.SHAPE and spec.shape is not None:
        shape = spec.shape
        model_key, family = SHAPE_MODEL, shape.family
        values.update(
            zip(
                SHAPE_FIELDS,
                (
                    Decimal(v)
                    for v in (
                        shape.hidden,
                        shape.layers,
                        shape.heads,
                        shape.kv_heads,
                        shape.intermediate,
                        shape.vocab,
                        shape.max_positions,
                    )
                ),
                strict=True,
            )
        )
    elif spec is not None and spec.params is not None:
        model_key = PARAMS_MODEL
        values[TrainingField.MODEL_PARAMS] = Decimal(spec.params)
    known = {card.id for card in training.cards}
    card_id = plan.gpu_card if plan.gpu_card in known else CUSTOM_ID
    targets = plan.lora_targets if isinstance(plan.lora_targets, LoraTargets) else None
    training.set_choices(
        replace(
            training.choices,
            model=model_key,
            config=config if config is not None else training.choices.config,
            family=family,
            method=plan.method,
            lora_targets=targets or LoraTargets.QUERY_VALUE,
            optimizer=plan.optimizer,
            precision=plan.precision,
            master_weights=plan.master_weights,
            fp8=plan.fp8,
            vision_frozen=plan.vision_frozen,
            attention=plan.attention,
            fused_loss=plan.fused_loss,
            card=card_id,
            sequence_parallel=plan.sequence_parallel,
            tp_comm_overlap=plan.tp_comm_overlap,
            grad_reduce_bf16=plan.grad_reduce_bf16,
            framework=plan.framework,
            zero=plan.zero_stage,
            offload=plan.offload,
            recompute=plan.recompute,
            rounding=plan.rounding,
            recommend=plan.micro_batch is None,
        )
    )

    def optional(number: int | Decimal | None) -> Decimal | None:
        return None if number is None else Decimal(number)

    values.update(
        {
            TrainingField.TARGET: Decimal(plan.target_batch),
            TrainingField.GPUS: Decimal(plan.gpus),
            TrainingField.NODES: Decimal(plan.nodes),
            TrainingField.CPU_MEMORY: optional(plan.cpu_memory_gb),
            TrainingField.TENSOR_PARALLEL: Decimal(plan.tensor_parallel),
            TrainingField.PIPELINE_STAGES: Decimal(plan.pipeline_stages),
            TrainingField.VIRTUAL_STAGES: Decimal(plan.virtual_stages),
            TrainingField.EXPERT_PARALLEL: Decimal(plan.expert_parallel),
            TrainingField.EXPERT_TENSOR_PARALLEL: optional(plan.expert_tensor_parallel),
            TrainingField.CONTEXT_PARALLEL: Decimal(plan.context_parallel),
            TrainingField.SEQ_LEN: optional(plan.seq_len),
            TrainingField.TARGET_SEQ: optional(plan.target_seq),
            TrainingField.IMAGES: optional(plan.images),
            TrainingField.IMAGE_WIDTH: optional(plan.image_width),
            TrainingField.IMAGE_HEIGHT: optional(plan.image_height),
            TrainingField.ACTIVATION: plan.activation_gb,
            TrainingField.OTHER_MEMORY: plan.other_memory_gb,
            TrainingField.OVERHEAD: plan.overhead_gb,
            TrainingField.LORA_RANK: Decimal(plan.lora_rank),
            TrainingField.TRAINABLE_PARAMS: optional(plan.trainable_params),
            TrainingField.DATASET: optional(plan.dataset_samples),
            TrainingField.EPOCHS: optional(plan.epochs),
            TrainingField.TOKENS: optional(plan.training_tokens),
            TrainingField.PRICE: plan.price_per_gpu_hour,
            TrainingField.EFFICIENCY: plan.efficiency_percent,
            TrainingField.GOODPUT: plan.goodput_percent,
            TrainingField.LINK: plan.link_gbps,
            TrainingField.NETWORK: plan.network_gbps,
            TrainingField.CUSTOM_TFLOPS: plan.custom_tflops,
            TrainingField.CUSTOM_BANDWIDTH: plan.custom_memory_bandwidth_gbps,
            TrainingField.CUSTOM_LINK: plan.custom_link_gbps,
            TrainingField.CUSTOM_NETWORK: plan.custom_network_gbps,
        }
    )
    if plan.micro_batch is not None:
        values[TrainingField.MICRO_BATCH] = Decimal(plan.micro_batch)
    if plan.gpu_memory_gb is not None and card_id == CUSTOM_ID:
        values[TrainingField.GPU_MEMORY] = plan.gpu_memory_gb
    training.hold(values)
    training.refresh_all()


def remembered_text(scenario: Scenario) -> str:
    """``scenario`` as JSON text, for the settings store."""
    return scenario_io.save(scenario).decode("utf-8")


def read_remembered(text: str) -> Scenario | None:
    """What ``remembered_text`` stored; ``None`` when it is not a valid scenario."""
    try:
        return scenario_io.load(text.encode("utf-8"))
    except (ScenarioError, UnicodeError):
        return None


@final
class ScenarioFiles(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def save(self, path: Path, scenario: Scenario, problems: tuple[str, ...]) -> Outcome:
        """Write ``scenario`` to ``path`` unless a field has ``problems``."""
        if problems:
            return Outcome(
                False,
                self.tr("Nothing saved: correct these fields first. {problems}").format(
                    problems=" ".join(problems)
                ),
            )
        data = scenario_io.save(scenario)
        # all or nothing: a failed save leaves the file that was there untouched
        error = write_file_atomically(path, data)
        if error is not None:
            return Outcome(
                False,
                self.tr(
                    "Could not save the scenario to “{name}”: {error}. Nothing was changed."
                ).format(name=path.name, error=error),
            )
        return Outcome(True, self.tr("Scenario saved to “{name}”.").format(name=path.name))

    def save_export(self, exported: Exported | None, folder: Path, unavailable: str) -> Outcome:
        """Write every file of ``exported`` into ``folder``, each all or nothing."""
        if exported is None:
            return Outcome(False, unavailable)
        written: list[str] = []
        for name, content in exported.files.items():
            error = write_file_atomically(folder / name, content.encode("utf-8"))
            if error is not None:
                return Outcome(
                    False,
                    self.tr("Could not save “{name}” in “{folder}”: {error}.").format(
                        name=name, folder=folder.name or str(folder), error=error
                    )
                    + (
                        " " + self.tr("Already saved: {names}.").format(names=", ".join(written))
                        if written
                        else ""
                    ),
                )
            if name.endswith(".sh"):
                with contextlib.suppress(OSError):  # a launch script is meant to be run
                    (folder / name).chmod(0o755)
            written.append(name)
        return Outcome(
            True,
            self.tr("Saved {names} in “{folder}”.").format(
                names=", ".join(written), folder=folder.name or str(folder)
            ),
        )

    def open(self, path: Path, apply: Callable[[Scenario], None]) -> Outcome:
        """Read and validate ``path`` and hand the scenario to ``apply``; on any
        problem ``apply`` is not called."""
        try:
            with path.open("rb") as stream:
                # never read more than the loader accepts: a huge file is refused, not loaded
                data = stream.read(scenario_io.MAX_BYTES + 1)
            loaded = scenario_io.load(data)
        except OSError as exc:
            return Outcome(False, self._open_failed(path, str(exc.strerror or exc)))
        except ScenarioError as exc:
            return Outcome(False, self._open_failed(path, self.problem(exc)))
        apply(loaded)
        return Outcome(True, self.tr("Scenario opened from “{name}”.").format(name=path.name))

    def problem(self, error: ScenarioError) -> str:
        """What is wrong with a refused file, as the end of a sentence."""
        key = error.path or error.detail
        if error.reason is ReadProblem.UNSUPPORTED_VERSION:
            key = error.detail
        places = error.limits.places if error.limits is not None else 0
        return self._message(error).format(key=key, decimals=places)

    def _message(self, error: ScenarioError) -> str:
        return {
            ReadProblem.TOO_LARGE: self.tr("the file is larger than {limit} bytes.").format(
                limit=self._formats.format(scenario_io.MAX_BYTES)
            ),
            ReadProblem.NOT_UTF8: self.tr("the file is not UTF-8 text."),
            ReadProblem.BAD_JSON: self.tr(
                "the file is not valid JSON (it may be truncated or damaged)."
            ),
            ReadProblem.TOO_DEEP: self.tr("the file nests its data too deeply to be a scenario."),
            ReadProblem.DUPLICATE_KEY: self.tr("the key “{key}” appears more than once."),
            ReadProblem.NOT_AN_OBJECT: self.tr("“{key}” is not a group of settings.")
            if error.path
            else self.tr("the file does not contain a scenario."),
            ReadProblem.WRONG_FORMAT: self.tr("this is not a scenario file of this app."),
            ReadProblem.UNSUPPORTED_VERSION: self.tr(
                "the file uses scenario version {key}, which this app does not know."
            ),
            ReadProblem.MISSING_KEY: self.tr("the setting “{key}” is missing."),
            ReadProblem.UNKNOWN_KEY: self.tr("the setting “{key}” is unknown."),
            ReadProblem.WRONG_TYPE: self.tr("the setting “{key}” has the wrong type."),
            ReadProblem.NOT_A_NUMBER: self.tr("the setting “{key}” is not a number."),
            ReadProblem.NUMBER_TOO_LARGE: self.tr(
                "the file contains a number with too many digits."
            ),
            ReadProblem.NOT_AN_INTEGER: self.tr("the setting “{key}” must be a whole number."),
            ReadProblem.OUT_OF_RANGE: self.tr("the setting “{key}” is out of range."),
            ReadProblem.TOO_PRECISE: self.tr(
                "the setting “{key}” has more than {decimals} decimal places."
            ),
            ReadProblem.BAD_CHOICE: self.tr(
                "the setting “{key}” has a value this app does not know."
            ),
        }[error.reason]

    def _open_failed(self, path: Path, reason: str) -> str:
        return self.tr(
            "Could not open the scenario “{name}”: {reason} Nothing was changed."
        ).format(name=path.name, reason=reason)


class ScenarioViewModel(QObject):
    """Scenario files and the settings store: the calculator's inputs and the training
    description, saved and opened whole (a refused file changes nothing)."""

    def __init__(
        self,
        training: TrainingViewModel,
        calculator: CalculatorViewModel,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._training = training
        self._calc = calculator
        self._files = ScenarioFiles(training.formats)

    def scenario(self) -> Scenario:
        """The calculator's and the description's settings (last valid values where a
        field holds an invalid entry now)."""
        return Scenario(calculator=self._calc.last_valid_inputs, plan=settings_of(self._training))

    def unsaved_problems(self) -> tuple[str, ...]:
        """Why the scenario cannot be saved now: a field holds a value it refuses (a saved
        scenario is what the fields show, never a remembered value behind the user's back)."""
        state = self._training.state
        mine = state.problems + state.run_problems
        theirs = self._calc.state.problems
        return theirs + tuple(p for p in mine if p not in theirs)

    def save(self, path: Path) -> Outcome:
        return self._files.save(path, self.scenario(), self.unsaved_problems())

    def open(self, path: Path) -> Outcome:
        """Read, validate and apply a scenario file; on any problem nothing changes."""
        return self._files.open(path, self.apply)

    def apply(self, loaded: Scenario, with_calculator: bool = True) -> None:
        """Apply a validated scenario; ``with_calculator=False`` leaves the calculator's
        inputs alone (the description restored at start-up: the calculator has its own)."""
        apply_settings(self._training, loaded.plan)
        if with_calculator:
            self._calc.set_inputs(loaded.calculator)

    def remembered(self) -> str:
        """The description as scenario JSON, for the settings store."""
        return remembered_text(self.scenario())

    def restore_remembered(self, text: str) -> bool:
        """Apply what ``remembered`` stored; anything invalid is ignored (False)."""
        loaded = read_remembered(text)
        if loaded is None:
            return False
        self.apply(loaded, with_calculator=False)
        return True

    def problem(self, error: ScenarioError) -> str:
        return self._files.problem(error)
