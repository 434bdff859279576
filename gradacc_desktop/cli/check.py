"""``gradacc check``: read an existing training config and say what it means.

Contract (scripts depend on it)::

    gradacc check FILE [--world-size N] [--json]

FILE is a DeepSpeed JSON, an ``accelerate config`` YAML, an axolotl YAML, Hugging Face
``TrainingArguments`` (a JSON) or a TRL / alignment-handbook recipe YAML, a
LLaMA-Factory YAML, a torchtune YAML or a GPT-NeoX YAML, recognised by its content
(``kind``: ``deepspeed``, ``accelerate``, ``axolotl``, ``transformers``,
``llama-factory``, ``torchtune``, ``gpt-neox``). The output names the kind, whether
the framework would run it (its refusals first), every value read and the key it came
from, the framework's defaults that fill the others, the GPUs and data-parallel
replicas, the effective batch and tokens per step when known, DeepSpeed's and
Megatron's verdicts on the batch values, the keys set to "auto" (the trainer fills
them), unknown keys, each key that could not be read and why, where each file the
config names was found, and what is still missing for a whole training setup.
``--world-size`` is the number of GPUs in all (the processes launched) when the file does
not say it; it overrides accelerate's ``num_processes``. ``--gpus`` is check's older
spelling of the same (every GPU: the file fixes the parallel sizes that divide it), kept
with one line on stderr naming ``--world-size`` (in the other commands ``--gpus`` is the
data-parallel GPUs).

``--json`` prints one object: ``kind``, ``values``, ``effective_batch`` (int or null),
``verdicts`` (``{"deepspeed": …, "megatron": …}`` or null), ``auto_keys``, ``unread``
(``[{key, value, reason}]``), ``missing`` (names), plus ``file``, ``keys``, ``gpus``,
``gpus_from``, ``derived``, ``problem``, ``followed``, ``setup``, ``data_parallel_size``
(int or null), ``parallel`` (``tensor``/``pipeline``/``context``/``shard``/``replicate``),
``framework_accepts``, ``problems`` (the refusals first, then the framework's warnings),
``unknown_keys`` (``[{key, suggestion, refused, reason}]``: keys the framework does not
know, refused by accelerate and by DeepSpeed's ZeRO settings, ignored at DeepSpeed's
top level), ``resolved_files`` (``[{key, reference, path, where}]``: each file the config
names and where it was found, ``path`` null when not found), ``tokens_per_step_at_most``
(true unless the samples are packed; null without tokens) and ``tokens_per_step``
(effective batch x sequence length, or null). Exit code 0: the framework
would run the file as given; 1: it would refuse it (the report is printed, the reason
first); 2: a missing or unreadable file, or one of no known kind.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.frameworks import megatron_text
from ..core.frameworks.config_import import (
    FRAMEWORKS,
    KIND_NAMES,
    ConfigImportError,
    ConfigKind,
    Derived,
    ImportedConfig,
    deepspeed_text,
    read_config,
)
from ..core.frameworks.config_import.verdict import unknown_text, unread_text, verdict
from ..core.memory import TrainingSetup
from ._common import GPUS, UsageError, add_old_name, print_json

LABELS = {
    "micro_batch": "micro-batch per GPU",
    "accumulation_steps": "accumulation steps",
    "train_batch_size": "train batch size",
    "batch_per_gpu": "batch per GPU (micro-batch x steps)",
    "gpus": "GPUs",
    "nodes": "nodes",
    "zero_stage": "ZeRO stage",
    "precision": "precision",
    "offload": "offload",
    "distributed_type": "distributed type",
    "adapter": "adapter",
    "lora_rank": "LoRA rank",
    "lora_targets": "LoRA target modules",
    "base_4bit": "base model in 4 bits",
    "base_8bit": "base model in 8 bits",
    "sequence_length": "sequence length",
    "base_model": "base model",
    "checkpointing": "activation checkpointing",
    "attention": "attention kernel",
    "fused_loss": "fused loss (Liger)",
    "master_weights": "master weights",
    "packing": "samples packed",
}


# What an "auto" precision becomes.
PRECISION_AUTO = {
    ConfigKind.AXOLOTL: '"auto": axolotl uses bf16 where the GPUs support it, else fp16',
    ConfigKind.DEEPSPEED: '"auto": the Hugging Face Trainer or accelerate sets it from its own '
    "arguments",
    ConfigKind.ACCELERATE: '"auto" in the DeepSpeed file: accelerate sets it from mixed_precision',
    ConfigKind.TRAINER: '"auto" in the DeepSpeed file: the Trainer sets it from bf16 / fp16',
    ConfigKind.LLAMA_FACTORY: '"auto" in the DeepSpeed file: the Trainer sets it from bf16 / fp16',
}
PRECISION_AUTO_OTHER = '"auto": set by the program that reads the file'


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="read a training config (DeepSpeed, accelerate, axolotl, Hugging Face "
        "Trainer / TRL, LLaMA-Factory, torchtune, GPT-NeoX) and say what it means",
        description="Read an existing training config (a DeepSpeed JSON, an accelerate "
        "config YAML, an axolotl YAML, Hugging Face TrainingArguments or a TRL recipe, a "
        "LLaMA-Factory, torchtune or GPT-NeoX YAML) as its framework reads it and report "
        "whether the framework would run it, its values, the data-parallel replicas, the "
        "effective batch and tokens per step, DeepSpeed's and Megatron's verdicts, the "
        'keys left to the trainer ("auto"), unknown keys and the keys that could not '
        "be read. Exit status: 0 the framework runs it, 1 it refuses it, 2 unreadable.",
    )
    parser.add_argument("file", metavar="FILE", help="the config file")
    world = parser.add_argument(
        "--world-size",
        type=GPUS,
        metavar="N",
        help="GPUs in all, the processes launched (a DeepSpeed or axolotl file does not "
        "say; overrides accelerate's num_processes)",
    )
    # check's older spelling: every GPU (elsewhere --gpus is the data-parallel GPUs)
    add_old_name(parser, world, "--gpus")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _read(file: str) -> ImportedConfig:
    path = Path(file)
    try:
        return read_config(path, name=file)
    except ConfigImportError as exc:
        raise UsageError(str(exc)) from exc


def _verdicts(d: Derived) -> dict[str, Any] | None:
    if d.deepspeed is None:
        return None
    ds = d.deepspeed
    mg = d.megatron
    return {
        "deepspeed": {
            "ok": ds.ok,
            "reason": ds.reason.value,
            "train_batch_size": ds.train_batch_size,
            "micro_batch": ds.micro_batch,
            "accumulation_steps": ds.grad_acc,
            "gpus": ds.world_size,
            "derived": [{"grad_acc": "accumulation_steps"}.get(name, name) for name in ds.derived],
            "text": deepspeed_text(ds),
        },
        "megatron": None
        if mg is None
        else {
            "ok": mg.ok,
            "global_batch_size": mg.global_batch_size,
            "micro_batch": mg.micro_batch,
            "data_parallel": mg.data_parallel,
            "derived_accumulation_steps": mg.derived_steps,
            "same_accumulation_steps": mg.derived_steps is not None
            and mg.derived_steps == d.accumulation_steps,
            "text": megatron_text(mg, d.accumulation_steps),
        },
    }


def _setup_dict(setup: TrainingSetup | None) -> dict[str, Any] | None:
    if setup is None:
        return None
    return {
        "micro_batch": setup.micro_batch,
        "accumulation_steps": setup.accumulation_steps,
        "gpus": setup.gpus,
        "nodes": setup.nodes,
        "zero_stage": int(setup.zero_stage),
        "precision": setup.precision.value,
        "offload": setup.offload.value,
        "effective_batch": setup.effective_batch,
    }


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)


def run(args: argparse.Namespace) -> int:
    config = _read(args.file)
    world = args.world_size
    flag = "--world-size"
    v = verdict(config, world)
    d, setup, problem = v.derived, v.setup, v.problem
    missing = list(v.missing)
    refusals, problems = list(v.refusals), list(v.problems)
    status = 0 if v.accepts else 1
    values = config.values()
    parallel = dict(d.parallel)
    tokens = v.tokens_per_step
    if args.json:
        print_json(
            {
                "file": config.source,
                "kind": config.kind.value,
                "values": values,
                "keys": dict(config.keys),
                "gpus": d.gpus,
                "gpus_from": d.gpus_from,
                "derived": {
                    "micro_batch": d.micro_batch,
                    "accumulation_steps": d.accumulation_steps,
                    "train_batch_size": d.train_batch_size,
                    "gpus": d.gpus,
                    "names": list(d.derived),
                    "notes": list(d.notes),
                },
                "effective_batch": d.effective_batch,
                "verdicts": _verdicts(d),
                "auto_keys": list(config.auto_keys),
                "unread": [
                    {"key": u.key, "value": u.value, "reason": u.reason} for u in config.unread
                ],
                "missing": missing,
                "problem": problem,
                "followed": list(config.followed),
                "setup": _setup_dict(setup),
                "data_parallel_size": d.data_parallel,
                "parallel": {
                    _PARALLEL_JSON[name]: size
                    for name, size in d.parallel
                    if name in _PARALLEL_JSON
                },
                "framework_accepts": not refusals,
                "problems": problems,
                "unknown_keys": [
                    {
                        "key": u.key,
                        "suggestion": u.suggestion,
                        "refused": u.refused,
                        "reason": u.reason,
                    }
                    for u in config.unknown_keys
                ],
                "resolved_files": [
                    {"key": f.key, "reference": f.reference, "path": f.path, "where": f.where}
                    for f in config.resolved_files
                ],
                "tokens_per_step": tokens,
                "tokens_per_step_at_most": v.tokens_at_most if tokens is not None else None,
            }
        )
        return status
    out = sys.stdout
    out.write(f"{config.source}: {KIND_NAMES[config.kind]}\n")
    for refusal in refusals:
        out.write(f"Refused: {refusal}\n")
    read = [(name, value) for name, value in values.items() if value is not None]
    if read:
        out.write("Values read:\n")
        for name, value in read:
            key = config.key_of(name)
            source = f"  ({key})" if key is not None else ""
            out.write(f"  {LABELS[name]}: {_shown(value)}{source}\n")
    else:
        out.write("Values read: none\n")
    for path in config.followed:
        out.write(f"Also read: {path}\n")
    for f in config.resolved_files:
        if f.path is None:
            out.write(f"Not found: {f.key} = {f.reference}\n")
        elif f.where == "parent folder" or (
            f.where == "config folder" and config.kind is not ConfigKind.ACCELERATE
        ):
            out.write(
                f"Note: {f.reference} was found as {f.path}, not in the current folder: "
                f"{FRAMEWORKS[config.kind]} opens the path from the folder it is launched "
                "in\n"
            )
    if d.gpus is None:
        out.write("GPUs: unknown (give --world-size)\n")
    elif d.gpus_from == "argument":
        note = (
            f"; the file says {config.gpus}"
            if config.gpus is not None and config.gpus != d.gpus
            else ""
        )
        out.write(f"GPUs: {d.gpus} (from {flag}{note}){_sizes_text(parallel, d)}\n")
    elif parallel:
        out.write(f"GPUs: {d.gpus}{_sizes_text(parallel, d)}\n")
    for note in d.notes:
        out.write(f"Derived: {note}\n")
    if d.effective_batch is not None:
        out.write(
            f"Effective batch: {d.micro_batch} (micro-batch) x {d.accumulation_steps} "
            f"(accumulation steps) x {d.data_parallel} "
            f"{'data-parallel replica(s)' if parallel else 'GPU(s)'} = {d.effective_batch}\n"
        )
    else:
        out.write("Effective batch: unknown\n")
    if tokens is not None:
        out.write(
            f"Tokens per step: {d.effective_batch} (effective batch) x "
            f"{config.sequence_length} (sequence length) = {tokens}"
            + (
                " at most (the samples are not packed: each is cut or padded to the "
                "sequence length, not filled)\n"
                if v.tokens_at_most
                else " (the samples are packed into full sequences)\n"
            )
        )
    for warning in d.warnings:
        out.write(f"Warning: {warning}\n")
    if d.deepspeed is not None:
        out.write(deepspeed_text(d.deepspeed) + "\n")
    if d.megatron is not None:
        out.write(megatron_text(d.megatron, d.accumulation_steps) + "\n")
    if config.auto_keys:
        out.write('Set to "auto" (the trainer fills them): ' + ", ".join(config.auto_keys) + "\n")
    if "precision" in config.auto_fields:
        out.write(f"Precision: {PRECISION_AUTO.get(config.kind, PRECISION_AUTO_OTHER)}\n")
    if config.unknown_keys:
        out.write("Unknown keys:\n")
        for unknown in config.unknown_keys:
            out.write(f"  {unknown_text(unknown)}\n")
    if config.unread:
        out.write("Not read:\n")
        for u in config.unread:
            out.write(f"  {unread_text(u)}\n")
    if problem is not None:
        out.write(f"Problem: {problem}\n")
    if missing:
        out.write("Missing for a whole setup: " + ", ".join(missing) + "\n")
    if setup is not None:
        split = [
            f"{name} {size}"
            for name, size in (
                ("tensor", setup.tensor_parallel),
                ("pipeline", setup.pipeline_stages),
                ("context", setup.context_parallel),
            )
            if size > 1
        ]
        gpus = (
            f"{setup.gpus} data-parallel GPU(s) x {' x '.join(split)}"
            if split
            else f"{setup.gpus} GPU(s)"
        )
        out.write(
            f"Setup: micro-batch {setup.micro_batch}, {setup.accumulation_steps} accumulation "
            f"step(s), {gpus} on {setup.nodes} node(s), "
            f"ZeRO-{int(setup.zero_stage)}, {setup.precision.value}, "
            f"offload {setup.offload.value}\n"
        )
    return status


# the JSON names of the parallel sizes
_PARALLEL_JSON = {
    "tensor": "tensor",
    "pipeline": "pipeline",
    "context": "context",
    "shard": "shard",
    "replicate": "replicate",
}


def _sizes_text(parallel: dict[str, int], d: Derived) -> str:
    if not parallel:
        return ""
    shown = ", ".join(f"{name} {size}" for name, size in parallel.items())
    replicas = "" if d.data_parallel is None else f" = {d.data_parallel} data-parallel replica(s)"
    return f"; parallel sizes: {shown}{replicas}"
