"""What the estimator's view-model says about its own state: a file not opened, a
preset modified, the model's summary, why the core refused the inputs.

The sentences keep the translation context they were first written in, the
view-model's ("ActivationViewModel"), so their translations stay where they are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import final

from PySide6.QtCore import QCoreApplication

from gradacc_desktop.core.memory import (
    Inputs,
    InvalidActivationInputs,
    ModelShape,
    Preset,
    total_parameters,
    validate,
)
from gradacc_desktop.core.memory import ShapeProblem as CoreProblem
from gradacc_desktop.core.memory.families import parameters
from gradacc_desktop.core.training.problems import ProblemKind, problem_text
from gradacc_desktop.viewmodels.activation.fields import ActivationField
from gradacc_desktop.viewmodels.activation.loaded import LoadedModel
from gradacc_desktop.viewmodels.activation.texts import ActivationTexts
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.problems import out_of_range
from gradacc_desktop.viewmodels.shared_texts import NOT_OPENED, say


@final
class ActivationOutcomes:
    def __init__(self, texts: ActivationTexts) -> None:
        self._texts = texts

    def _said(self, detail: str) -> str:
        return PlanFormats(self._texts.locale).said(detail)

    def not_opened(self, name: str, detail: str) -> str:
        return say(NOT_OPENED).format(file=name, reason=self._said(detail))

    def preset_label(self, model: LoadedModel | None, preset: Preset | None, modified: bool) -> str:
        """What the model choice shows: the loaded model, the sized preset (modified or
        not), or custom sizes."""
        if model is not None:
            return model.label
        if preset is None:
            return self._texts.custom_label()
        if modified:
            return QCoreApplication.translate("ActivationViewModel", "{model} (modified)").format(
                model=preset.label
            )
        return preset.label

    def prompt(self) -> str:
        return QCoreApplication.translate(
            "ActivationViewModel", "Correct the highlighted fields to see the estimate."
        )

    def model_summary(self, model: LoadedModel | None, preset: Preset | None) -> str:
        """What the model is: its class, the profile that counts it, its parameters
        (``preset``: an unmodified sized preset)."""
        t = self._texts
        if model is not None:
            arch = model.arch
            family = t.family_text(arch.family)
            count = t.format(parameters(arch))
            if arch.encoder_decoder:
                return QCoreApplication.translate(
                    "ActivationViewModel",
                    "{architecture} · profile: {family} · {encoder} encoder and {decoder} "
                    "decoder layers · {count} parameters",
                ).format(
                    architecture=arch.architecture or arch.model_type,
                    family=family,
                    encoder=t.format(arch.layers),
                    decoder=t.format(arch.decoder_layers),
                    count=count,
                )
            if arch.architecture:
                return QCoreApplication.translate(
                    "ActivationViewModel", "{architecture} · profile: {family} · {count} parameters"
                ).format(architecture=arch.architecture, family=family, count=count)
            return QCoreApplication.translate(
                "ActivationViewModel", "Profile: {family} · {count} parameters"
            ).format(family=family, count=count)
        if preset is not None:
            count = t.format(total_parameters(ModelShape.from_preset(preset)))
            return QCoreApplication.translate("ActivationViewModel", "{count} parameters").format(
                count=count
            )
        return ""

    def core_problem(
        self,
        exc: InvalidActivationInputs,
        inputs: Inputs,
        number_input: Callable[[ActivationField], NumberInput],
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
            message = QCoreApplication.translate(
                "ActivationViewModel",
                "{field}: the GPT-2 family has as many as the attention heads ({heads}).",
            )
            return message.format(field=label, heads=heads), both
        if exc.problem is CoreProblem.NOT_DIVISIBLE:
            # Without tensor parallelism only the head checks remain: which one failed?
            try:
                validate(replace(inputs, tensor_parallel=1, sequence_parallel=False))
            except InvalidActivationInputs:
                if field is ActivationField.HIDDEN:
                    message = QCoreApplication.translate(
                        "ActivationViewModel",
                        "{field}: must be a multiple of the attention heads ({heads}).",
                    )
                else:
                    message = QCoreApplication.translate(
                        "ActivationViewModel", "{field}: must divide the attention heads ({heads})."
                    )
                return message.format(field=label, heads=heads), both
            if field is ActivationField.SEQ:
                message = QCoreApplication.translate(
                    "ActivationViewModel",
                    "{field}: with sequence parallelism, must be a multiple of the "
                    "tensor-parallel size ({size}).",
                )
            else:
                message = QCoreApplication.translate(
                    "ActivationViewModel",
                    "{field}: must be a multiple of the tensor-parallel size ({size}).",
                )
            return message.format(field=label, size=size), {
                field,
                ActivationField.TENSOR_PARALLEL,
            }
        return out_of_range(label, number_input(field)), {field}

    def _not_modelled(self, exc: InvalidActivationInputs) -> tuple[str, set[ActivationField]]:
        """A choice the core does not model for this family (the controls normally
        prevent it: a restored or hand-edited setup can still reach it)."""
        if exc.field == "tensor_parallel":
            label = self._texts.label(ActivationField.TENSOR_PARALLEL)
            message = QCoreApplication.translate(
                "ActivationViewModel",
                "{field}: tensor parallelism is modelled for GPT-2 and Llama-like models "
                "only; use 1.",
            ).format(field=label)
            return message, {ActivationField.TENSOR_PARALLEL}
        if exc.field == "recompute":  # per-op selective: the description's words
            return self._said(problem_text(ProblemKind.RECOMPUTE_PER_OP_MODEL)), set()
        if exc.field == "profile":
            return QCoreApplication.translate(
                "ActivationViewModel",
                "The paper profile counts GPT-2 and Llama-shaped models only (head size = "
                "hidden size / heads): choose the Hugging Face profile.",
            ), set()
        return QCoreApplication.translate(
            "ActivationViewModel", "This model cannot be estimated: {reason}"
        ).format(reason=self._said(exc.detail)), set()
