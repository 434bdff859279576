"""What each framework's files hold of a training description: the setup (batch,
layout, ZeRO, precision, offload) and, beside it, the model's name, the sequence
length, LoRA's settings and recomputation (``core.frameworks.export.ExportModel``)."""

from __future__ import annotations

from ..frameworks.export import Exported, ExportFormat, ExportModel, LoraExport, export
from ..memory.models import ModelSource, UnknownModelError, facts
from ..memory.setup import TrainingSetup
from .description import Method, TrainingDescription

__all__ = ["export_description", "export_model"]


def export_model(description: TrainingDescription) -> ExportModel:
    """The model part of the exports for ``description``."""
    d = description
    name = None
    lora = None
    if d.model is not None:
        spec = d.model
        if spec.source is ModelSource.BUNDLED:
            name = spec.name
        elif spec.source is ModelSource.CONFIG:
            name = spec.file_name or None
        if d.method.adapters:
            try:
                layout = facts(spec).lora
            except UnknownModelError:
                layout = None
            if layout is not None:
                try:
                    modules = layout.names(d.lora_targets)
                except ValueError:
                    modules = ()
                if modules:
                    lora = LoraExport(d.lora_rank, modules, d.method is Method.QLORA)
            elif isinstance(d.lora_targets, tuple):
                lora = LoraExport(d.lora_rank, d.lora_targets, d.method is Method.QLORA)
    return ExportModel(
        name=name,
        seq_len=d.seq_len,
        lora=lora,
        recompute=d.recompute,
        sequence_parallel=d.sequence_parallel,
        fused_loss=d.loss_fused,
    )


def export_description(
    fmt: ExportFormat, description: TrainingDescription, setup: TrainingSetup
) -> Exported:
    """The files of ``fmt`` for ``setup`` (the description's, with its pair), the
    rule book read with the description's model."""
    shape = None
    if description.model is not None:
        try:
            shape = facts(description.model)
        except UnknownModelError:
            shape = None
    return export(fmt, setup, export_model(description), shape)
