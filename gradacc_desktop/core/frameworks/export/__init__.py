"""Each framework's own files for a training setup, ready to save and run.

``export(fmt, setup)`` returns the files (name -> text) a framework reads: a complete
``ds_config.json``, a Hugging Face ``train.py`` with its ``TrainingArguments``, the YAML
``accelerate config`` writes, a Lightning ``Trainer``, a plain PyTorch DDP loop or
Megatron's arguments, each with its launch line (``launch.sh``) where one is needed.

The Python files import what only the user has — ``build_model``, ``train_dataset``
and ``compute_loss`` — from ``my_training``; everything about the batch, the layout,
ZeRO, precision and offload is written out. Names and keys were read in the
frameworks themselves (deepspeed 0.19.8, transformers 5.24, accelerate 1.16,
lightning 2.6.6, megatron-core 0.16.1) and every file is loaded by them in the
trainer test tier (``make test-trainers``).

Deliberate choices:

* DeepSpeed's JSON carries the whole batch triple, so it is valid at exactly
  ``gpus`` GPUs; the ``hf-deepspeed`` variant leaves the batch values and the
  precision to the Trainer (``"auto"``), so its JSON follows the launch.
* Accelerate's config file has no accumulation key outside ``deepspeed_config``;
  ``accelerate launch`` turns ``ACCELERATE_GRADIENT_ACCUMULATION_STEPS`` into the
  Accelerator's steps and that variable beats the constructor argument. The launch
  line sets it explicitly and ``train.py`` asserts the value it ended up with.
* ZeRO without DeepSpeed: Hugging Face's native path uses FSDP2 (stage 2:
  ``reshard_after_forward=False``, stage 3: ``True``); plain PyTorch uses
  ``ZeroRedundancyOptimizer`` for stage 1 and FSDP for 2 and 3; Megatron uses its
  distributed optimizer (stage 1) and Megatron-FSDP (stages 2 and 3).

The parallel layout (``tensor_parallel`` × ``pipeline_stages`` on top of the ``gpus``
data-parallel replicas) goes into each file where the framework has a setting for it;
where it has none, ``Exported.notes`` says so in English (marked for translation) and
so does a comment at the top of the main file. A dimension a framework cannot run is
left out of its files, which then describe the rest of the layout (fewer GPUs), never
a different batch. With ``tensor_parallel = pipeline_stages = expert_parallel = 1``
there are no notes and every file is exactly what it was before layouts existed.

* Megatron carries all of it: ``--tensor-model-parallel-size``,
  ``--pipeline-model-parallel-size`` (``--sequence-parallel`` with tensor
  parallelism, ``--num-virtual-stages-per-pipeline-rank`` for interleaved 1F1B), the
  global batch ``b·a·dp`` and ``torchrun`` over the whole world.
* DeepSpeed: pipeline stages are code (``deepspeed.pipe.PipelineModule``), whose grid
  gives DeepSpeed the data-parallel size, so the batch triple holds with ``dp``.
  Tensor parallelism without stages is AutoTP, ``"tensor_parallel": {"autotp_size": t}``;
  DeepSpeed 0.19.8 then checks ``train_batch_size`` against every process (no
  ``mpu``: ``dist.get_world_size()``), so the JSON leaves it out and gives the
  micro-batch and accumulation steps, which it accepts at any world size.
* Hugging Face: tensor parallelism through DeepSpeed AutoTP (the Trainer reads
  ``autotp_size`` and counts ``world / tp`` data-parallel ranks); no pipeline stages.
* Lightning: ``ModelParallelStrategy(data_parallel_size, tensor_parallel_size)``; no
  pipeline stages.
* Accelerate and plain PyTorch: neither dimension (see the notes for why).

Expert parallelism (a mixture of experts' routed experts spread over
``expert_parallel`` GPUs of the data-parallel group) adds no GPUs. Megatron carries it
(``--expert-model-parallel-size``); DeepSpeed sets it in code
(``deepspeed.moe.layer.MoE(..., ep_size=E)``), which a note says; the other formats have
no such setting: their files leave it out (every GPU holds every expert) and a note says
so. With ``expert_parallel = 1`` nothing changes.

Context parallelism (each sequence split over ``context_parallel`` GPUs of a replica)
adds GPUs. Megatron carries it (``--context-parallel-size``, its data-parallel size is
then world / (tp · pp · cp)); the other formats have no setting for ring attention
(DeepSpeed's Ulysses sequence parallelism is another scheme, set in code): their files
leave it out, run the rest of the layout on fewer GPUs, and a note says so.
"""

from __future__ import annotations

from dataclasses import replace

from ...framework import Framework
from ...memory.models import ModelFacts
from ...memory.setup import TrainingSetup, problem_text, setup_problem
from ..rules import refusals
from .accelerate import accelerate_config, accelerate_files
from .deepspeed import deepspeed_config, deepspeed_files, hf_deepspeed_config
from .hf import hf_deepspeed_files, hf_files
from .lightning import lightning_files
from .megatron import megatron_arguments, megatron_files
from .model import Exported, ExportFormat, ExportModel, LoraExport
from .notes import (
    NOTE_ACCELERATE_PIPELINE,
    NOTE_ACCELERATE_TENSOR,
    NOTE_DEEPSPEED_AUTOTP,
    NOTE_DEEPSPEED_EXPERTS,
    NOTE_DEEPSPEED_INTERLEAVED,
    NOTE_DEEPSPEED_PIPELINE,
    NOTE_DEEPSPEED_PIPELINE_TP,
    NOTE_HF_PIPELINE,
    NOTE_HF_TENSOR,
    NOTE_LIGHTNING_PIPELINE,
    NOTE_LIGHTNING_TENSOR,
    NOTE_MEGATRON,
    NOTE_MEGATRON_CONTEXT,
    NOTE_MEGATRON_EXPERTS,
    NOTE_NO_CONTEXT,
    NOTE_NO_EXPERTS,
    NOTE_TORCH_PIPELINE,
    NOTE_TORCH_TENSOR,
    carried_layout,
)
from .shared import annotate, master_notes, with_model
from .torchrun import torchrun_files

# one module per framework; these are the names the rest of the app uses
__all__ = [
    "ExportFormat",
    "ExportModel",
    "Exported",
    "LoraExport",
    "accelerate_config",
    "deepspeed_config",
    "export",
    "framework_of",
    "hf_deepspeed_config",
    "layout_notes",
    "megatron_arguments",
]

_RENDERERS = {
    ExportFormat.DEEPSPEED: deepspeed_files,
    ExportFormat.HF: hf_files,
    ExportFormat.HF_DEEPSPEED: hf_deepspeed_files,
    ExportFormat.ACCELERATE: accelerate_files,
    ExportFormat.LIGHTNING: lightning_files,
    ExportFormat.TORCHRUN: torchrun_files,
    ExportFormat.MEGATRON: megatron_files,
}


#: the framework each format's files run under, whose rules the export names (plain
#: PyTorch: none of the rule book's); see ``framework_of``
_FRAMEWORK_OF: dict[ExportFormat, Framework | None] = {
    ExportFormat.DEEPSPEED: Framework.DEEPSPEED,
    ExportFormat.HF: Framework.DEEPSPEED,
    ExportFormat.HF_DEEPSPEED: Framework.DEEPSPEED,
    ExportFormat.ACCELERATE: Framework.DEEPSPEED,
    ExportFormat.LIGHTNING: Framework.DEEPSPEED,
    ExportFormat.TORCHRUN: None,
    ExportFormat.MEGATRON: Framework.MEGATRON,
}


def framework_of(fmt: ExportFormat, setup: TrainingSetup) -> Framework | None:
    """The framework the files of ``fmt`` run ``setup`` under, whose rules they answer
    to: accelerate's FSDP plugin for an FSDP setup, else the format's own."""
    if fmt is ExportFormat.ACCELERATE and setup.framework is Framework.FSDP:
        return Framework.FSDP
    return _FRAMEWORK_OF[fmt]


def layout_notes(fmt: ExportFormat, setup: TrainingSetup) -> tuple[TrainingSetup, tuple[str, ...]]:
    """The part of ``setup``'s layout the files of ``fmt`` carry, and the notes saying
    what they do with the rest (none without tensor parallelism and pipeline stages)."""
    fmt = ExportFormat(fmt)
    tp, pp = setup.tensor_parallel > 1, setup.pipeline_stages > 1
    ep = setup.expert_parallel > 1
    cp = setup.context_parallel > 1
    if not (tp or pp or ep or cp):
        return setup, ()
    notes: list[str] = []
    if fmt is ExportFormat.MEGATRON:
        notes += [NOTE_MEGATRON] if tp or pp else []
        notes += [NOTE_MEGATRON_EXPERTS] if ep else []
        notes += [NOTE_MEGATRON_CONTEXT] if cp else []
        return setup, tuple(notes)
    if fmt is ExportFormat.DEEPSPEED:
        if pp:
            notes.append(NOTE_DEEPSPEED_PIPELINE)
            if tp:
                notes.append(NOTE_DEEPSPEED_PIPELINE_TP)
            if setup.virtual_stages > 1:
                notes.append(NOTE_DEEPSPEED_INTERLEAVED)
        elif tp:
            notes.append(NOTE_DEEPSPEED_AUTOTP)
        if ep:
            notes.append(NOTE_DEEPSPEED_EXPERTS)
        if cp:
            notes.append(NOTE_NO_CONTEXT)
            return carried_layout(setup, tensor=True, pipeline=True, experts=True), tuple(notes)
        return setup, tuple(notes)
    if fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED):
        carried = carried_layout(setup, tensor=True, pipeline=False)
        notes += [NOTE_HF_TENSOR] if tp else []
        notes += [NOTE_HF_PIPELINE] if pp else []
    elif fmt is ExportFormat.LIGHTNING:
        carried = carried_layout(setup, tensor=True, pipeline=False)
        notes += [NOTE_LIGHTNING_TENSOR] if tp else []
        notes += [NOTE_LIGHTNING_PIPELINE] if pp else []
    elif fmt is ExportFormat.ACCELERATE:
        carried = carried_layout(setup, tensor=False, pipeline=False)
        notes += [NOTE_ACCELERATE_TENSOR] if tp else []
        notes += [NOTE_ACCELERATE_PIPELINE] if pp else []
    else:
        carried = carried_layout(setup, tensor=False, pipeline=False)
        notes += [NOTE_TORCH_TENSOR] if tp else []
        notes += [NOTE_TORCH_PIPELINE] if pp else []
    notes += [NOTE_NO_EXPERTS] if ep else []
    notes += [NOTE_NO_CONTEXT] if cp else []
    return carried, tuple(notes)


def export(
    fmt: ExportFormat,
    setup: TrainingSetup,
    model: ExportModel | None = None,
    shape: ModelFacts | None = None,
) -> Exported:
    """The files of ``fmt`` for ``setup`` (and what they can hold of ``model``);
    ``shape``: the model's facts, for the rule book's shape rules (heads, key/value
    groups, layers over the tensor-parallel and pipeline sizes the files carry).
    ``ValueError`` when no framework would run it."""
    problem = setup_problem(setup)
    if problem is not None:
        raise ValueError(problem_text(problem, setup))
    fmt = ExportFormat(fmt)
    carried, notes = layout_notes(fmt, setup)
    # what the files' framework refuses of the setup: the rule book's own sentences
    framework = framework_of(fmt, carried)
    found = () if framework is None else refusals(carried, shape, framework)
    notes = (*(r.message for r in found), *notes)
    files = _RENDERERS[fmt](carried)
    if model is not None and model != ExportModel():
        files, model_notes = with_model(fmt, files, model, carried)
        notes = (*notes, *model_notes)
    notes = (*notes, *master_notes(fmt, files, carried))
    values: tuple[tuple[str, str], ...] = (
        ("seq_len", str(model.seq_len) if model and model.seq_len else "N"),
    )
    if setup.expert_parallel > 1:
        values += (("expert_parallel", str(setup.expert_parallel)),)
    if setup.context_parallel > 1:
        values += (("context_parallel", str(setup.context_parallel)),)
    exported = Exported(
        format=fmt,
        setup=setup,
        files=files,
        notes=notes,
        note_values=values,
        refusals=found,
        carried=None if carried == setup else carried,
    )
    return replace(exported, files=annotate(files, carried, setup, exported.english_notes))
