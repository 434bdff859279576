"""Pieces every framework's files share: the header, the model lines, the launch script
and the ZeRO section.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

from ...memory.setup import Offload, TrainingSetup
from ...precision import MasterWeights
from ...recompute import Recompute
from .model import MODULE, PORT, ExportFormat, ExportModel
from .notes import (
    NOTE_BF16_MASTER_DROPPED,
    NOTE_FUSED_LOSS_CODE,
    NOTE_FUSED_LOSS_MEGATRON,
    NOTE_LIGHTNING_LORA,
    NOTE_MEGATRON_LORA,
    NOTE_PURE_BF16,
    NOTE_PURE_BF16_DROPPED,
    NOTE_QLORA,
    NOTE_RECOMPUTE_CODE,
    NOTE_SCRIPT_LORA,
    NOTE_SCRIPT_SEQ,
    NOTE_SELECTIVE,
    NOTE_SELECTIVE_OP,
    note_comment,
)

# --------------------------------------------------------------------------- shared


def _layout(setup: TrainingSetup) -> str:
    if setup.multi_node:
        return f"{setup.nodes} nodes x {setup.gpus_per_node} GPUs"
    return f"{setup.world} GPU(s)"


def header(setup: TrainingSetup) -> str:
    s = setup
    zero = f"ZeRO-{int(s.zero_stage)}" if s.zero_stage else "no ZeRO"
    offload = {Offload.NONE: "", Offload.OPTIMIZER: ", optimizer offloaded to CPU"}.get(
        s.offload, ", optimizer and parameters offloaded to CPU"
    )
    text = (
        f"# effective batch = {s.micro_batch} (micro-batch) x {s.accumulation_steps} "
        f"(accumulation steps) x {s.gpus} GPU(s) = {s.effective_batch}\n"
        f"# layout: {_layout(s)}; {zero}; {s.precision.value}{offload}\n"
    )
    if s.parallel or s.expert_parallel > 1 or s.context_parallel > 1:
        text += (
            f"# parallel: {s.gpus} data-parallel x {s.tensor_parallel} tensor-parallel x "
            f"{s.pipeline_stages} pipeline stage(s){context_text(s)} = {s.world} "
            f"GPUs{_experts_text(s)}\n"
        )
    return text


def context_text(setup: TrainingSetup) -> str:
    """`` x CP context-parallel`` with context parallelism, else nothing."""
    if setup.context_parallel == 1:
        return ""
    return f" x {setup.context_parallel} context-parallel"


def _experts_text(setup: TrainingSetup) -> str:
    """``; routed experts over E …`` with expert parallelism, else nothing."""
    if setup.expert_parallel == 1:
        return ""
    return (
        f"; routed experts spread over {setup.expert_parallel} of the data-parallel GPUs "
        "(expert parallel)"
    )


def _model_line(model: ExportModel) -> str | None:
    """``# model: …`` — what the files were written for, besides the setup."""
    parts = []
    if model.name:
        parts.append(model.name)
    if model.lora is not None:
        kind = "QLoRA (4-bit NF4 base)" if model.lora.quantized else "LoRA"
        parts.append(f"{kind} r={model.lora.rank} on {', '.join(model.lora.target_modules)}")
    if model.seq_len is not None:
        parts.append(f"sequence length {model.seq_len}")
    if model.recompute is Recompute.SELECTIVE_OP:  # no export format is torchtitan's
        parts.append(
            "planned with per-op selective recomputation (torchtitan's, not in these files)"
        )
    elif model.recompute is not Recompute.NONE:
        parts.append(f"{model.recompute.value} activation recomputation")
    if model.fused_loss:
        parts.append("fused loss (Liger)")
    if not parts:
        return None
    return "\n".join(
        textwrap.wrap(
            "; ".join(parts), width=88, initial_indent="# model: ", subsequent_indent="#   "
        )
    )


def _runs_deepspeed(fmt: ExportFormat, files: dict[str, str]) -> bool:
    """The files start DeepSpeed's engine: its JSON, accelerate's DeepSpeed plugin or
    Lightning's DeepSpeed strategy."""
    if fmt in (ExportFormat.DEEPSPEED, ExportFormat.HF_DEEPSPEED) or "ds_config.json" in files:
        return True
    if "distributed_type: DEEPSPEED" in files.get("accelerate_config.yaml", ""):
        return True
    return "DeepSpeedStrategy(" in files.get("train.py", "")


def master_notes(fmt: ExportFormat, files: dict[str, str], setup: TrainingSetup) -> list[str]:
    """What the files say of the setup's master copy: where pure bf16 goes in code, or
    that the copy the plan counts is not what they run."""
    master = setup.master
    if master is MasterWeights.NONE:
        if fmt is ExportFormat.MEGATRON:
            return [NOTE_PURE_BF16_DROPPED.format(framework="Megatron")]
        if _runs_deepspeed(fmt, files):
            return [NOTE_PURE_BF16_DROPPED.format(framework="DeepSpeed")]
        return [NOTE_PURE_BF16.format()]
    if master is MasterWeights.BF16:
        written = '"bf16_master_weights_and_grads": true'
        if not any(written in text for name, text in files.items() if name.endswith(".json")):
            return [NOTE_BF16_MASTER_DROPPED.format()]
    return []


def with_model(
    fmt: ExportFormat, files: dict[str, str], model: ExportModel, setup: TrainingSetup
) -> tuple[dict[str, str], list[str]]:
    """The files with what they can hold of the model, and notes on what they cannot."""
    notes: list[str] = []
    out = dict(files)
    lora = model.lora
    python = fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED, ExportFormat.ACCELERATE,
                     ExportFormat.TORCHRUN, ExportFormat.LIGHTNING)  # fmt: skip
    if "train.py" in out and python:
        block: list[str] = []
        if model.seq_len is not None:
            block.append(
                f"MAX_SEQ_LENGTH = {model.seq_len}  # the plan's sequence length: "
                "tokenize or pack your samples to it"
            )
        if lora is not None and fmt is not ExportFormat.LIGHTNING:
            block += [
                "# LoRA: PEFT reads the adapters' settings from adapter_config.json (run from "
                "this folder)",
                'LORA = LoraConfig.from_pretrained(".")',
            ]
        if lora is not None and lora.quantized:
            block += [
                "# QLoRA: build_model() loads the frozen base with "
                "quantization_config=QUANTIZATION",
                "QUANTIZATION = BitsAndBytesConfig(",
                '    load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,',
                '    bnb_4bit_compute_dtype="bfloat16",',
                ")",
            ]
        text = out["train.py"]
        imports = []
        if lora is not None and fmt is not ExportFormat.LIGHTNING:
            imports.append("from peft import LoraConfig, get_peft_model")
            text = text.replace(
                "    Trainer(model=build_model(),",
                "    model = get_peft_model(build_model(), LORA)\n    Trainer(model=model,",
            )
            text = text.replace("build_model()", "get_peft_model(build_model(), LORA)")
            text = text.replace("get_peft_model(get_peft_model(build_model(), LORA), LORA)",
                                "get_peft_model(build_model(), LORA)")  # fmt: skip
        hf = fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED)
        if model.recompute is Recompute.FULL and hf:
            text = text.replace(
                "    gradient_accumulation_steps=",
                "    gradient_checkpointing=True,  # full activation recomputation\n"
                "    gradient_accumulation_steps=",
                1,
            )
        elif model.recompute is Recompute.FULL:
            notes.append(NOTE_RECOMPUTE_CODE)
        if model.fused_loss and hf:
            text = text.replace(
                "    gradient_accumulation_steps=",
                "    use_liger_kernel=True,  # the fused loss (pip install liger-kernel)\n"
                "    gradient_accumulation_steps=",
                1,
            )
        elif model.fused_loss:
            notes.append(NOTE_FUSED_LOSS_CODE)
        lines = text.split("\n")
        if lora is not None and lora.quantized:
            found = next(
                (i for i, line in enumerate(lines) if line.startswith("from transformers import ")),
                None,
            )
            if found is None:
                imports.append("from transformers import BitsAndBytesConfig")
            else:
                names = lines[found].removeprefix("from transformers import ").split(", ")
                lines[found] = "from transformers import " + ", ".join(
                    sorted([*names, "BitsAndBytesConfig"])
                )
        mine = next(i for i, line in enumerate(lines) if line.startswith(f"from {MODULE} import"))
        # the third-party imports end at the blank line before the user's module
        lines[mine - 1 : mine - 1] = sorted(imports)
        mine += len(imports)
        lines[mine + 1 : mine + 1] = (["", *block]) if block else []
        out["train.py"] = "\n".join(lines)
    if lora is not None:
        if fmt is ExportFormat.MEGATRON:
            notes.append(NOTE_MEGATRON_LORA)
        else:
            out["adapter_config.json"] = json_text(lora.adapter_config())
        if fmt is ExportFormat.LIGHTNING:
            notes.append(NOTE_LIGHTNING_LORA)
        if lora.quantized and fmt is not ExportFormat.MEGATRON:
            notes.append(NOTE_QLORA)
    if fmt is ExportFormat.DEEPSPEED and model.seq_len is not None:
        notes.append(NOTE_SCRIPT_SEQ)
    if fmt is ExportFormat.DEEPSPEED and lora is not None:
        notes.append(NOTE_SCRIPT_LORA)
    if fmt is ExportFormat.DEEPSPEED and model.recompute is Recompute.FULL:
        notes.append(NOTE_RECOMPUTE_CODE)
    if fmt is ExportFormat.DEEPSPEED and model.fused_loss:
        notes.append(NOTE_FUSED_LOSS_CODE)
    if fmt is not ExportFormat.MEGATRON and model.recompute is Recompute.SELECTIVE:
        notes.append(NOTE_SELECTIVE)
    if model.recompute is Recompute.SELECTIVE_OP:
        notes.append(NOTE_SELECTIVE_OP)
    if fmt is ExportFormat.MEGATRON and "megatron_args.sh" in out:
        if model.sequence_parallel is False:  # the description plans without it
            out["megatron_args.sh"] = out["megatron_args.sh"].replace(
                "  --sequence-parallel\n", "", 1
            )
        extra = []
        if model.tp_comm_overlap:
            extra.append("  --tp-comm-overlap")
        if model.grad_reduce_bf16:
            extra.append("  --grad-reduce-in-bf16")
        if model.seq_len is not None:
            extra.append(f"  --seq-length {model.seq_len}")
        if model.recompute is Recompute.FULL:
            extra.append(
                "  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1"
            )
        elif model.recompute is Recompute.SELECTIVE:
            extra.append("  --recompute-granularity selective")
        if extra:
            out["megatron_args.sh"] = out["megatron_args.sh"].replace(
                "\n)\n", "\n" + "\n".join(extra) + "\n)\n", 1
            )
    if fmt is ExportFormat.MEGATRON and model.fused_loss:
        notes.append(NOTE_FUSED_LOSS_MEGATRON)
        model = replace(model, fused_loss=False)  # not what Megatron's files run
    line = _model_line(model)
    if line is not None:
        for name, content in out.items():
            if name.endswith(".json"):
                continue
            rows = content.split("\n")
            heads = [
                i for i, row in enumerate(rows) if row.startswith(("# layout: ", "# parallel: "))
            ]
            if heads:
                rows.insert(heads[-1] + 1, line)
                out[name] = "\n".join(rows)
    return out, notes


def annotate(
    files: dict[str, str], carried: TrainingSetup, asked: TrainingSetup, notes: tuple[str, ...]
) -> dict[str, str]:
    """The notes as comments after the header of the main (first commentable) file, and
    in every file a line with the layout asked for when the files carry less of it."""
    if not notes and carried == asked:
        return files
    extra = []
    if carried != asked:
        extra.append(
            f"# asked for: {asked.gpus} data-parallel x {asked.tensor_parallel} "
            f"tensor-parallel x {asked.pipeline_stages} pipeline stage(s)"
            f"{context_text(asked)} = {asked.world} "
            f"GPUs on {asked.nodes} node(s){_experts_text(asked)}: these files carry the "
            "layout above"
        )
    out: dict[str, str] = {}
    main = True
    for name, content in files.items():
        lines = content.split("\n")
        header = [
            i
            for i, line in enumerate(lines)
            if line.startswith(("# layout: ", "# parallel: ", "# model: ", "#   "))
        ]
        if name.endswith(".json") or not header:
            out[name] = content
            continue
        insert = list(extra)
        if main:
            insert += note_comment(notes)
            main = False
        at = header[-1] + 1
        out[name] = "\n".join(lines[:at] + insert + lines[at:])
    return out


def torchrun_line(setup: TrainingSetup, script: str) -> str:
    if setup.multi_node:
        return (
            f"torchrun --nnodes {setup.nodes} --nproc_per_node {setup.gpus_per_node} "
            f'--node_rank "$NODE_RANK" --master_addr "$MASTER_ADDR" --master_port {PORT} '
            f"{script}"
        )
    return f"torchrun --nnodes 1 --nproc_per_node {setup.world} {script}"


def launch_sh(setup: TrainingSetup, command: str, env: str = "") -> str:
    lines = ["#!/usr/bin/env bash", header(setup).rstrip("\n"), "set -euo pipefail"]
    if setup.multi_node:
        lines += [
            f"# run on each of the {setup.nodes} nodes with NODE_RANK = 0 .. {setup.nodes - 1};",
            "# MASTER_ADDR is the address of node 0",
            ': "${NODE_RANK:?set NODE_RANK}" "${MASTER_ADDR:?set MASTER_ADDR}"',
        ]
    if env:
        lines.append(env)
    lines.append(command)
    return "\n".join(lines) + "\n"


def zero_section(setup: TrainingSetup) -> dict[str, object]:
    section: dict[str, object] = {"stage": int(setup.zero_stage)}
    if setup.offload is not Offload.NONE:
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if setup.offload is Offload.ALL:
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    return section


def json_text(config: dict[str, object]) -> str:
    return json.dumps(config, indent=2) + "\n"
