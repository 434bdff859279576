"""Scenario files: the planner's settings to and from a file (and the settings
store), with a message for every way a file can be refused."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import final

from gradacc_desktop.core import scenario as scenario_io
from gradacc_desktop.core.compute import Recompute
from gradacc_desktop.core.export import Exported
from gradacc_desktop.core.gpus import CUSTOM_ID, GpuCard
from gradacc_desktop.core.planning import Rounding
from gradacc_desktop.core.scenario import PlanSettings, Reason, Scenario, ScenarioError
from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.viewmodels.files import write_file_atomically
from gradacc_desktop.viewmodels.planner.entries import PlanEntries
from gradacc_desktop.viewmodels.planner.fields import PlanField
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import ScenarioOutcome


def plan_settings(
    entries: PlanEntries,
    recommend: bool,
    rounding: Rounding,
    card: GpuCard | None,
    activation_gb: Decimal,
    setup: tuple[ZeroStage, Precision, Offload] = (ZeroStage.NONE, Precision.BF16, Offload.NONE),
    time: tuple[str | None, Recompute] = (None, Recompute.NONE),
) -> PlanSettings:
    """The planner's settings from what its fields hold (the last valid values where
    they hold none now); ``card`` ``None`` is the custom card."""

    def integer(field: PlanField) -> int | None:
        value = entries.current_or_last(field)
        return None if value is None else int(value)

    target, gpus = integer(PlanField.TARGET), integer(PlanField.GPUS)
    assert target is not None and gpus is not None
    return PlanSettings(
        target_batch=target,
        micro_batch=None if recommend else integer(PlanField.MICRO_BATCH),
        gpus=gpus,
        rounding=rounding,
        gpu_card=CUSTOM_ID if card is None else card.id,
        gpu_memory_gb=(
            entries.current_or_last(PlanField.GPU_MEMORY) if card is None else card.usable_gb
        ),
        other_memory_gb=entries.current_or_last(PlanField.OTHER_MEMORY),
        activation_gb=activation_gb,
        seq_len=integer(PlanField.SEQ_LEN),
        dataset_samples=integer(PlanField.DATASET),
        nodes=integer(PlanField.NODES) or 1,
        zero_stage=setup[0],
        precision=setup[1],
        offload=setup[2],
        tensor_parallel=integer(PlanField.TENSOR_PARALLEL) or 1,
        pipeline_stages=integer(PlanField.PIPELINE_STAGES) or 1,
        recompute=time[1],
        model=time[0],
        model_params=integer(PlanField.MODEL_PARAMS),
        efficiency_percent=entries.current_or_last(PlanField.EFFICIENCY),
        price_per_gpu_hour=entries.current_or_last(PlanField.PRICE),
        training_tokens=integer(PlanField.TOKENS),
        epochs=integer(PlanField.EPOCHS),
        custom_tflops=entries.current_or_last(PlanField.CUSTOM_TFLOPS),
        custom_memory_bandwidth_gbps=entries.current_or_last(PlanField.CUSTOM_BANDWIDTH),
        custom_link_gbps=entries.current_or_last(PlanField.CUSTOM_LINK),
        custom_network_gbps=entries.current_or_last(PlanField.CUSTOM_NETWORK),
    )


def field_values(plan: PlanSettings, card_id: str) -> dict[PlanField, Decimal | None]:
    """The fields a scenario's planner settings fill in (``card_id``: the card chosen
    from them). What the scenario leaves out ("null") keeps what the planner has."""
    values: dict[PlanField, Decimal | None] = {
        PlanField.TARGET: Decimal(plan.target_batch),
        PlanField.GPUS: Decimal(plan.gpus),
        PlanField.NODES: Decimal(plan.nodes),
        PlanField.SEQ_LEN: None if plan.seq_len is None else Decimal(plan.seq_len),
        PlanField.DATASET: (
            None if plan.dataset_samples is None else Decimal(plan.dataset_samples)
        ),
        PlanField.TENSOR_PARALLEL: Decimal(plan.tensor_parallel),
        PlanField.PIPELINE_STAGES: Decimal(plan.pipeline_stages),
        PlanField.MODEL_PARAMS: _optional(plan.model_params),
        PlanField.EFFICIENCY: plan.efficiency_percent,
        PlanField.PRICE: plan.price_per_gpu_hour,
        PlanField.TOKENS: _optional(plan.training_tokens),
        PlanField.EPOCHS: _optional(plan.epochs),
        PlanField.CUSTOM_TFLOPS: plan.custom_tflops,
        PlanField.CUSTOM_BANDWIDTH: plan.custom_memory_bandwidth_gbps,
        PlanField.CUSTOM_LINK: plan.custom_link_gbps,
        PlanField.CUSTOM_NETWORK: plan.custom_network_gbps,
    }
    if plan.micro_batch is not None:
        values[PlanField.MICRO_BATCH] = Decimal(plan.micro_batch)
    if plan.other_memory_gb is not None:
        values[PlanField.OTHER_MEMORY] = plan.other_memory_gb
    if plan.gpu_memory_gb is not None and card_id == CUSTOM_ID:
        values[PlanField.GPU_MEMORY] = plan.gpu_memory_gb
    return values


def _optional(value: int | None) -> Decimal | None:
    return None if value is None else Decimal(value)


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

    def save(self, path: Path, scenario: Scenario, problems: tuple[str, ...]) -> ScenarioOutcome:
        """Write ``scenario`` to ``path`` unless a field has ``problems``."""
        if problems:
            return ScenarioOutcome(
                False,
                self.tr("Nothing saved: correct these fields first. {problems}").format(
                    problems=" ".join(problems)
                ),
            )
        data = scenario_io.save(scenario)
        # all or nothing: a failed save leaves the file that was there untouched
        error = write_file_atomically(path, data)
        if error is not None:
            return ScenarioOutcome(
                False,
                self.tr(
                    "Could not save the scenario to “{name}”: {error}. Nothing was changed."
                ).format(name=path.name, error=error),
            )
        return ScenarioOutcome(True, self.tr("Scenario saved to “{name}”.").format(name=path.name))

    def save_export(
        self, exported: Exported | None, folder: Path, unavailable: str
    ) -> ScenarioOutcome:
        """Write every file of ``exported`` into ``folder``, each all or nothing."""
        if exported is None:
            return ScenarioOutcome(False, unavailable)
        written: list[str] = []
        for name, content in exported.files.items():
            error = write_file_atomically(folder / name, content.encode("utf-8"))
            if error is not None:
                return ScenarioOutcome(
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
        return ScenarioOutcome(
            True,
            self.tr("Saved {names} in “{folder}”.").format(
                names=", ".join(written), folder=folder.name or str(folder)
            ),
        )

    def open(self, path: Path, apply: Callable[[Scenario], None]) -> ScenarioOutcome:
        """Read and validate ``path`` and hand the scenario to ``apply``; on any
        problem ``apply`` is not called."""
        try:
            with path.open("rb") as stream:
                # never read more than the loader accepts: a huge file is refused, not loaded
                data = stream.read(scenario_io.MAX_BYTES + 1)
            loaded = scenario_io.load(data)
        except OSError as exc:
            return ScenarioOutcome(False, self._open_failed(path, str(exc.strerror or exc)))
        except ScenarioError as exc:
            return ScenarioOutcome(False, self._open_failed(path, self.problem(exc)))
        apply(loaded)
        return ScenarioOutcome(
            True, self.tr("Scenario opened from “{name}”.").format(name=path.name)
        )

    def problem(self, error: ScenarioError) -> str:
        """What is wrong with a refused file, as the end of a sentence."""
        key = error.path or error.detail
        if error.reason is Reason.UNSUPPORTED_VERSION:
            key = error.detail
        places = error.limits.places if error.limits is not None else 0
        return self._message(error).format(key=key, decimals=places)

    def _message(self, error: ScenarioError) -> str:
        return {
            Reason.TOO_LARGE: self.tr("the file is larger than {limit} bytes.").format(
                limit=self._formats.format(scenario_io.MAX_BYTES)
            ),
            Reason.NOT_UTF8: self.tr("the file is not UTF-8 text."),
            Reason.BAD_JSON: self.tr(
                "the file is not valid JSON (it may be truncated or damaged)."
            ),
            Reason.TOO_DEEP: self.tr("the file nests its data too deeply to be a scenario."),
            Reason.DUPLICATE_KEY: self.tr("the key “{key}” appears more than once."),
            Reason.NOT_AN_OBJECT: self.tr("“{key}” is not a group of settings.")
            if error.path
            else self.tr("the file does not contain a scenario."),
            Reason.WRONG_FORMAT: self.tr("this is not a scenario file of this app."),
            Reason.UNSUPPORTED_VERSION: self.tr(
                "the file uses scenario version {key}, which this app does not know."
            ),
            Reason.MISSING_KEY: self.tr("the setting “{key}” is missing."),
            Reason.UNKNOWN_KEY: self.tr("the setting “{key}” is unknown."),
            Reason.WRONG_TYPE: self.tr("the setting “{key}” has the wrong type."),
            Reason.NOT_A_NUMBER: self.tr("the setting “{key}” is not a number."),
            Reason.NUMBER_TOO_LARGE: self.tr("the file contains a number with too many digits."),
            Reason.NOT_AN_INTEGER: self.tr("the setting “{key}” must be a whole number."),
            Reason.OUT_OF_RANGE: self.tr("the setting “{key}” is out of range."),
            Reason.TOO_PRECISE: self.tr(
                "the setting “{key}” has more than {decimals} decimal places."
            ),
            Reason.BAD_CHOICE: self.tr("the setting “{key}” has a value this app does not know."),
        }[error.reason]

    def _open_failed(self, path: Path, reason: str) -> str:
        return self.tr(
            "Could not open the scenario “{name}”: {reason} Nothing was changed."
        ).format(name=path.name, reason=reason)
