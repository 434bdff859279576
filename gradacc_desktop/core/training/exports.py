"""What each framework's files hold of a training description: the setup (batch,
layout, ZeRO, precision, offload) and, beside it, the model's name, the sequence
length, LoRA's settings and recomputation (``core.frameworks.export.ExportModel``)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from ..frameworks.export import Exported, ExportFormat, ExportModel, LoraExport, export
from ..memory.models import ModelSource, UnknownModelError, facts
from ..memory.setup import TrainingSetup
from ..recompute import Recompute
from ..text import Message, trans_late
from .description import Method, TrainingDescription
from .figures import figures, shown_gb

# what the files need without the plan's recomputation (one that they do not run)
WITHOUT_FITS = trans_late(
    "Export",
    "Without it one GPU holds {total} GB at micro-batch {micro}, within the {usable} GB it has.",
)
WITHOUT_OVER = trans_late(
    "Export",
    "Without it one GPU needs {total} GB at micro-batch {micro}, more than the {usable} GB "
    "it has: these files will not run on this card as planned.",
)

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
        tp_comm_overlap=d.tp_overlapped,
        grad_reduce_bf16=d.bf16_gradients,
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
    exported = export(fmt, setup, export_model(description), shape)
    said = _without(fmt, description, setup)
    return exported if said is None else replace(exported, notes=(*exported.notes, said))


def _without(
    fmt: ExportFormat, description: TrainingDescription, setup: TrainingSetup
) -> Message | None:
    """The memory the files of ``fmt`` need when they cannot run the plan's selective or
    per-op selective recomputation (they train without any), against the card's."""
    counted = description.recomputed
    runs = counted is not Recompute.SELECTIVE_OP and (
        counted is not Recompute.SELECTIVE or fmt is ExportFormat.MEGATRON
    )
    if runs:
        return None
    without = figures(replace(description, recompute=Recompute.NONE))
    total = without.per_gpu_bytes(setup.micro_batch)
    usable = without.usable_bytes
    if total is None or usable is None:
        return None
    phrase = WITHOUT_FITS if total <= usable else WITHOUT_OVER
    # GB to the MB, written out (80, not 8E+1)
    gb = {
        name: Decimal(format(shown_gb(n), "f"))
        for name, n in (("total", total), ("usable", usable))
    }
    return phrase.format(micro=setup.micro_batch, **gb)
