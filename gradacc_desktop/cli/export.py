"""``gradacc export``: each framework's own files for a training setup.

Contract (scripts depend on it)::

    gradacc export --format {deepspeed,hf,hf-deepspeed,accelerate,lightning,torchrun,megatron}
        --micro-batch B --accumulation-steps A --gpus G [--nodes N] [--zero-stage {0,1,2,3}]
        [--precision {bf16,fp16,fp32}] [--offload {none,optimizer,all}]
        [--tensor-parallel TP] [--pipeline-stages PP] [--expert-parallel EP]
        [--context-parallel CP]
        [--json] [--out DIR]
        [the description's flags: --model/--model-config/--params, --seq-len,
         --lora-rank R [--lora-targets ...] [--base-bits {16,4}], --recompute ...]

``--gpus`` is the total of data-parallel GPUs (``--world-size N``, every GPU, instead
divides by the model-parallel sizes); with ``--tensor-parallel``,
``--pipeline-stages`` and ``--context-parallel`` (default 1) the world is
``gpus x TP x PP x CP`` GPUs and ``--nodes``
splits the world evenly (a tensor-parallel group stays inside one node). Without
``--json`` the files are printed (a ``# ==> name <==`` line before each when there are
several); ``--json`` prints one object whose ``files`` maps each file name to its
content, ``notes`` lists what the framework does with the parallel layout (empty
without one) and ``layout`` gives ``data_parallel``, ``tensor_parallel``,
``pipeline_stages``, ``expert_parallel``, ``context_parallel`` and ``world_size``
(``files_layout``: the same of the layout the files run, without what the format
cannot hold);
``--out DIR`` writes the files into DIR. The notes go to standard error when the files
are printed or written.

The training description's flags (``cli.description``) put into the files what each
framework can hold of them: PEFT's ``adapter_config.json`` and the adapters in the
Python files for ``--lora-rank`` (a 4-bit quantization config with ``--base-bits 4``),
the sequence length (``MAX_SEQ_LENGTH``, Megatron's ``--seq-length``), recomputation
(``gradient_checkpointing``, Megatron's ``--recompute-*``); ``notes`` says what a
framework cannot hold.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..core.batch import TARGET_LIMITS
from ..core.frameworks import batch_verdicts
from ..core.frameworks.export import ExportFormat
from ..core.memory import TrainingSetup, note_text, problem_text, setup_notes, setup_problem
from ..core.training.description import TrainingDescription
from ..core.training.exports import export_description
from ._common import ACCUMULATION_STEPS, MICRO_BATCH, UsageError, int_type, print_json
from .description import (
    add_description_arguments,
    add_gpus_arguments,
    check_expert_groups,
    data_parallel,
    description_from,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a framework's own config files for a training setup",
        description="Print (or write with --out) the files a training framework reads for "
        "this micro-batch, accumulation steps and GPU layout.",
    )
    parser.add_argument("--format", required=True, choices=[f.value for f in ExportFormat])
    parser.add_argument("--micro-batch", type=MICRO_BATCH, required=True, metavar="B")
    parser.add_argument("--accumulation-steps", type=ACCUMULATION_STEPS, required=True, metavar="A")
    add_gpus_arguments(parser, gpus_help="data-parallel GPUs in all (or --world-size)")
    add_description_arguments(
        parser,
        nodes_help="split the world (data x tensor x pipeline x context GPUs) evenly over N nodes",
    )
    parser.add_argument(
        "--target-batch",
        type=int_type(TARGET_LIMITS),
        metavar="T",
        help="the recipe's batch: report whether the setup reaches it and whether DeepSpeed "
        "and Megatron would accept it as train_batch_size / --global-batch-size",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", metavar="DIR", help="write the files into DIR")
    parser.set_defaults(handler=run)


def description_of(args: argparse.Namespace) -> TrainingDescription:
    """The training description of the flags, with the pair given."""
    target = args.target_batch
    if target is None:
        target = args.micro_batch * args.accumulation_steps * args.gpus
    return description_from(args, gpus=args.gpus, target_batch=target, micro_batch=args.micro_batch)


def setup_from(args: argparse.Namespace) -> TrainingSetup:
    d = description_of(args)
    check_expert_groups(d)
    setup = d.setup(args.micro_batch, args.accumulation_steps)
    problem = setup_problem(setup)
    if problem is not None:
        raise UsageError(problem_text(problem, setup))
    return setup


def verdicts_dict(setup: TrainingSetup, target: int | None) -> dict[str, Any]:
    """DeepSpeed's and Megatron's verdicts on ``target`` (the effective batch without one)."""
    batch = setup.effective_batch if target is None else target
    v = batch_verdicts(batch, setup.micro_batch, setup.accumulation_steps, setup.gpus)
    return {
        "deepspeed": {
            "ok": v.deepspeed.ok,
            "reason": v.deepspeed.reason.value,
            "train_batch_size": batch,
        },
        "megatron": {
            "ok": v.megatron.ok,
            "global_batch_size": batch,
            "derived_accumulation_steps": v.megatron.derived_steps,
            "same_accumulation_steps": v.megatron.derived_steps == setup.accumulation_steps,
        },
    }


def _write(out: str, files: dict[str, str]) -> None:
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            path = folder / name
            path.write_text(content, encoding="utf-8")
            if name.endswith(".sh"):
                path.chmod(0o755)
    except OSError as exc:
        raise UsageError(f"--out: cannot write into {out}: {exc.strerror or exc}") from exc


def _layout(setup: TrainingSetup) -> dict[str, int]:
    return {
        "data_parallel": setup.gpus,
        "tensor_parallel": setup.tensor_parallel,
        "pipeline_stages": setup.pipeline_stages,
        "expert_parallel": setup.expert_parallel,
        "expert_tensor_parallel": setup.expert_tensor,
        "context_parallel": setup.context_parallel,
        "world_size": setup.world,
    }


def run(args: argparse.Namespace) -> int:
    args.gpus, args.world_size = data_parallel(args), None  # --world-size: every GPU
    setup = setup_from(args)
    exported = export_description(ExportFormat(args.format), description_of(args), setup)
    if args.out is not None:
        _write(args.out, exported.files)
    target = args.target_batch
    if args.json:
        print_json(
            {
                "format": exported.format.value,
                "micro_batch": setup.micro_batch,
                "accumulation_steps": setup.accumulation_steps,
                "gpus": setup.gpus,
                "nodes": setup.nodes,
                "gpus_per_node": setup.gpus_per_node,
                "zero_stage": int(setup.zero_stage),
                "precision": setup.precision.value,
                "offload": setup.offload.value,
                "effective_batch": setup.effective_batch,
                "target_batch": target,
                "exact": None if target is None else setup.effective_batch == target,
                "verdicts": verdicts_dict(setup, target),
                "files": exported.files,
                # every file as one text (what the window's preview shows)
                "snippet": exported.text,
                # what the framework does with the parallel layout (empty without one),
                # and what it runs, but slowly
                "notes": [*exported.english_notes, *setup_note_texts(setup)],
                # what the files' framework refuses of the layout (the rule book's)
                "refusals": [r.as_dict() for r in exported.refusals],
                "layout": _layout(setup),
                # the layout the files run (the notes say what they leave out)
                "files_layout": _layout(exported.files_setup),
            }
        )
        return 0
    if args.out is not None:
        for name in exported.files:
            sys.stdout.write(f"wrote {os.path.join(args.out, name)}\n")
    else:
        sys.stdout.write(exported.text)
    for note in (*exported.english_notes, *setup_note_texts(setup)):
        sys.stderr.write(f"note: {note}\n")
    return 0


def setup_note_texts(setup: TrainingSetup) -> tuple[str, ...]:
    """What frameworks run, but slowly (tensor parallelism across nodes), in English."""
    return tuple(note_text(note, setup) for note in setup_notes(setup))
