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

import enum
import json
import textwrap
from dataclasses import dataclass, replace

from .memory import ZeroStage
from .setup import Offload, Precision, TrainingSetup, problem_text, setup_problem
from .text import trans_late

__all__ = [
    "ExportFormat",
    "ExportModel",
    "Exported",
    "LoraExport",
    "export",
    "layout_notes",
]

PORT = 29500
MODULE = "my_training"


class ExportFormat(enum.Enum):
    DEEPSPEED = "deepspeed"
    HF = "hf"
    HF_DEEPSPEED = "hf-deepspeed"
    ACCELERATE = "accelerate"
    LIGHTNING = "lightning"
    TORCHRUN = "torchrun"
    MEGATRON = "megatron"


@dataclass(frozen=True)
class LoraExport:
    """PEFT's LoRA settings (``adapter_config.json``): rank, alpha, the adapted modules,
    and whether the frozen base is 4-bit NF4 (QLoRA)."""

    rank: int
    target_modules: tuple[str, ...]
    quantized: bool = False

    @property
    def alpha(self) -> int:
        """``lora_alpha``: twice the rank, the common choice (PEFT's default is 8)."""
        return 2 * self.rank

    def adapter_config(self) -> dict[str, object]:
        """What ``LoraConfig.from_pretrained`` reads (PEFT's ``adapter_config.json``)."""
        return {
            "peft_type": "LORA",
            "task_type": "CAUSAL_LM",
            "r": self.rank,
            "lora_alpha": self.alpha,
            "lora_dropout": 0.0,
            "target_modules": list(self.target_modules),
            "bias": "none",
        }


@dataclass(frozen=True)
class ExportModel:
    """What the files carry of the training description besides the setup: the model's
    name (a comment), the sequence length, LoRA and activation recomputation."""

    name: str | None = None
    seq_len: int | None = None
    lora: LoraExport | None = None
    recompute: bool = False


@dataclass(frozen=True)
class Exported:
    format: ExportFormat
    setup: TrainingSetup
    # file name -> content, in the order a user reads them (the main file first)
    files: dict[str, str]
    # English sentences on the parallel layout and the model: what the files carry and
    # what the framework cannot (empty when they carry everything); marked with
    # trans_late("Export", ...) so the app can translate them, then filled with
    # ``note_values`` ({seq_len})
    notes: tuple[str, ...] = ()
    note_values: tuple[tuple[str, str], ...] = ()

    @property
    def english_notes(self) -> tuple[str, ...]:
        """The notes with their values, in English (the command line's)."""
        values = dict(self.note_values)
        return tuple(note.format(**values) for note in self.notes)

    @property
    def text(self) -> str:
        """All files as one text (a ``# ==> name <==`` line before each when several)."""
        if len(self.files) == 1:
            return next(iter(self.files.values()))
        parts = []
        for name, content in self.files.items():
            parts.append(f"# ==> {name} <==\n{content}")
        return "\n".join(parts)


# --------------------------------------------------------------------------- layout notes

# What each framework does with the parallel layout, in English (context "Export").
# Each is a sentence the app shows as it is; the numbers are in the files.
NOTE_MEGATRON = trans_late(
    "Export",
    "Megatron carries the whole layout: the tensor-parallel size (with sequence "
    "parallelism), the pipeline stages and the world size; it derives the data-parallel "
    "size as world / (tensor parallel x pipeline stages).",
)
NOTE_DEEPSPEED_AUTOTP = trans_late(
    "Export",
    "Tensor parallelism is DeepSpeed AutoTP (tensor_parallel.autotp_size). DeepSpeed then "
    "checks train_batch_size against every process, tensor-parallel ranks included, so "
    "ds_config.json leaves it out and gives the micro-batch and the accumulation steps; "
    "the effective batch is unchanged, as a tensor-parallel group shares its samples.",
)
NOTE_DEEPSPEED_PIPELINE = trans_late(
    "Export",
    "DeepSpeed's pipeline stages are set in code, not in ds_config.json: build the model "
    "as deepspeed.pipe.PipelineModule(layers, num_stages=P) and train with "
    "engine.train_batch(); its accumulation steps are the micro-batches of each "
    "pipeline step.",
)
NOTE_DEEPSPEED_PIPELINE_TP = trans_late(
    "Export",
    "With pipeline stages DeepSpeed takes tensor parallelism from the PipelineModule's "
    "topology (PipeModelDataParallelTopology with your own tensor-parallel layers), not "
    "from AutoTP, so ds_config.json has no tensor_parallel section.",
)
NOTE_DEEPSPEED_INTERLEAVED = trans_late(
    "Export",
    "DeepSpeed's pipeline engine runs plain 1F1B: it has no virtual stages, so its "
    "pipeline idles longer than the interleaved schedule planned. Use the megatron export "
    "for interleaved 1F1B.",
)
NOTE_DEEPSPEED_PIPELINE_ZERO = trans_late(
    "Export",
    "DeepSpeed's pipeline engine refuses ZeRO stages 2 and 3: use ZeRO-1 with pipeline stages.",
)
NOTE_HF_TENSOR = trans_late(
    "Export",
    "Tensor parallelism goes through DeepSpeed AutoTP (tensor_parallel.autotp_size in "
    "ds_config.json), which the Trainer reads; it counts world / tensor-parallel size "
    "data-parallel ranks.",
)
NOTE_HF_PIPELINE = trans_late(
    "Export",
    "The Hugging Face Trainer has no pipeline stages: these files leave them out and run "
    "the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for "
    "pipeline stages.",
)
NOTE_ACCELERATE_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is not in these files: Accelerate's config file composes it only "
    "with FSDP2 (parallelism_config needs fsdp_version 2, which shards the data-parallel "
    "replicas like ZeRO-3), so the files run the data-parallel part alone on fewer GPUs.",
)
NOTE_ACCELERATE_PIPELINE = trans_late(
    "Export",
    "Accelerate has no pipeline stages for training: these files leave them out and run "
    "the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for "
    "pipeline stages.",
)
NOTE_LIGHTNING_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is Lightning's ModelParallelStrategy: apply your tensor-parallel "
    "plan (and fully_shard over the data-parallel mesh for ZeRO) in your LightningModule's "
    "configure_model() with self.device_mesh; it replaces the DeepSpeed strategy.",
)
NOTE_LIGHTNING_PIPELINE = trans_late(
    "Export",
    "Lightning has no pipeline stages: these files leave them out and run the rest of the "
    "layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.",
)
NOTE_TORCH_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is not in this loop: plain PyTorch needs a tensor-parallel plan "
    'for your model (init_device_mesh with "dp" and "tp", then parallelize_module), so '
    "the files run the data-parallel part alone on fewer GPUs.",
)
NOTE_TORCH_PIPELINE = trans_late(
    "Export",
    "Pipeline stages are not in this loop: torch.distributed.pipelining needs your model "
    "split into stages, so the files leave them out and run the rest of the layout on "
    "fewer GPUs. Use the megatron or deepspeed export for pipeline stages.",
)


NOTE_MEGATRON_EXPERTS = trans_late(
    "Export",
    "Megatron spreads each MoE layer's routed experts over {expert_parallel} GPUs of the "
    "data-parallel group (--expert-model-parallel-size); give the experts themselves "
    "(--num-experts, --moe-router-topk) with your model's arguments.",
)
NOTE_DEEPSPEED_EXPERTS = trans_late(
    "Export",
    "DeepSpeed's expert parallelism is set in code, not in ds_config.json: build each MoE "
    "layer as deepspeed.moe.layer.MoE(..., ep_size={expert_parallel}); DeepSpeed then "
    "reduces and partitions each GPU's experts over the GPUs that hold the same ones.",
)
NOTE_DEEPSPEED_EXPERTS_ZERO3 = trans_late(
    "Export",
    "DeepSpeed's own MoE layers refuse ZeRO-3 (only its AutoEP layers accept it): use "
    "ZeRO-1 or ZeRO-2 with deepspeed.moe.layer.MoE.",
)
NOTE_MEGATRON_CONTEXT = trans_late(
    "Export",
    "Megatron splits each sequence over {context_parallel} GPUs (--context-parallel-size, "
    "ring attention through Transformer Engine): the data-parallel size is world / "
    "(tensor parallel x pipeline stages x context parallel), and the sequence length must "
    "be divisible by 2 x {context_parallel}.",
)
NOTE_NO_CONTEXT = trans_late(
    "Export",
    "These files leave context parallelism out: this framework has no setting that splits "
    "a sequence over GPUs (ring attention), so they run the rest of the layout on fewer "
    "GPUs and each GPU holds whole sequences, more activation memory than the plan's "
    "{context_parallel}-way context parallelism counts. Use the megatron export for it.",
)
NOTE_NO_EXPERTS = trans_late(
    "Export",
    "These files leave expert parallelism out: this framework has no setting that spreads "
    "a model's experts over GPUs, so every data-parallel GPU holds all the routed experts, "
    "more memory than the plan's {expert_parallel}-way expert parallelism counts. Use the "
    "megatron export to spread them.",
)


NOTE_SCRIPT_MODEL = trans_late(
    "Export",
    "The model, LoRA and the sequence length live in your training script, not in "
    "ds_config.json: adapter_config.json is PEFT's own file (LoraConfig.from_pretrained "
    "reads it), and your samples should be {seq_len} tokens long.",
)
NOTE_MEGATRON_LORA = trans_late(
    "Export",
    "Megatron-LM trains every parameter: it has no LoRA. These arguments train the whole "
    "model; use the hf, hf-deepspeed, accelerate or torchrun export for LoRA.",
)
NOTE_LIGHTNING_LORA = trans_late(
    "Export",
    "LoRA belongs in your LightningModule: wrap its model with "
    'get_peft_model(model, LoraConfig.from_pretrained(".")), which reads adapter_config.json.',
)
NOTE_RECOMPUTE_CODE = trans_late(
    "Export",
    "Activation recomputation is set in code here: call model.gradient_checkpointing_enable() "
    "on a Hugging Face model in build_model(), or wrap your blocks with "
    "torch.utils.checkpoint.",
)
NOTE_QLORA = trans_late(
    "Export",
    "QLoRA: build_model() must load the frozen base with quantization_config=QUANTIZATION "
    "(4-bit NF4 with double quantization, bitsandbytes).",
)


def _note_comment(notes: tuple[str, ...] | list[str]) -> list[str]:
    """Each note as ``# note: ...`` comment lines."""
    lines: list[str] = []
    for note in notes:
        lines += textwrap.wrap(note, width=88, initial_indent="# note: ", subsequent_indent="#   ")
    return lines


def _carried(
    setup: TrainingSetup,
    tensor: bool,
    pipeline: bool,
    experts: bool = False,
    context: bool = False,
) -> TrainingSetup:
    """The part of ``setup``'s layout a framework runs: the dimensions it cannot carry
    are dropped, on as many of the nodes as still split it evenly."""
    tp = setup.tensor_parallel if tensor else 1
    pp = setup.pipeline_stages if pipeline else 1
    ep = setup.expert_parallel if experts else 1
    cp = setup.context_parallel if context else 1
    if (tp, pp, cp) == (setup.tensor_parallel, setup.pipeline_stages, setup.context_parallel):
        return setup if ep == setup.expert_parallel else replace(setup, expert_parallel=ep)
    world = setup.gpus * tp * pp * cp
    nodes = max(
        n
        for n in range(1, setup.nodes + 1)
        if setup.nodes % n == 0 and world % n == 0 and (world // n) % tp == 0
    )
    virtual = setup.virtual_stages if pp > 1 else 1
    return replace(
        setup,
        tensor_parallel=tp,
        pipeline_stages=pp,
        virtual_stages=virtual,
        nodes=nodes,
        expert_parallel=ep,
        context_parallel=cp,
    )


# --------------------------------------------------------------------------- shared


def _layout(setup: TrainingSetup) -> str:
    if setup.multi_node:
        return f"{setup.nodes} nodes x {setup.gpus_per_node} GPUs"
    return f"{setup.world} GPU(s)"


def _header(setup: TrainingSetup) -> str:
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
            f"{s.pipeline_stages} pipeline stage(s){_context_text(s)} = {s.world} "
            f"GPUs{_experts_text(s)}\n"
        )
    return text


def _context_text(setup: TrainingSetup) -> str:
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
    if model.recompute:
        parts.append("full activation recomputation")
    if not parts:
        return None
    return "\n".join(
        textwrap.wrap(
            "; ".join(parts), width=88, initial_indent="# model: ", subsequent_indent="#   "
        )
    )


def _with_model(
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
        if model.recompute and fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED):
            text = text.replace(
                "    gradient_accumulation_steps=",
                "    gradient_checkpointing=True,  # full activation recomputation\n"
                "    gradient_accumulation_steps=",
                1,
            )
        elif model.recompute:
            notes.append(NOTE_RECOMPUTE_CODE)
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
            out["adapter_config.json"] = _json(lora.adapter_config())
        if fmt is ExportFormat.LIGHTNING:
            notes.append(NOTE_LIGHTNING_LORA)
        if lora.quantized and fmt is not ExportFormat.MEGATRON:
            notes.append(NOTE_QLORA)
    if fmt is ExportFormat.DEEPSPEED and (lora is not None or model.seq_len is not None):
        notes.append(NOTE_SCRIPT_MODEL)
    if fmt is ExportFormat.DEEPSPEED and model.recompute:
        notes.append(NOTE_RECOMPUTE_CODE)
    if fmt is ExportFormat.MEGATRON and "megatron_args.sh" in out:
        extra = []
        if model.seq_len is not None:
            extra.append(f"  --seq-length {model.seq_len}")
        if model.recompute:
            extra.append(
                "  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1"
            )
        if extra:
            out["megatron_args.sh"] = out["megatron_args.sh"].replace(
                "\n)\n", "\n" + "\n".join(extra) + "\n)\n", 1
            )
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


def _annotate(
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
            f"{_context_text(asked)} = {asked.world} "
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
            insert += _note_comment(notes)
            main = False
        at = header[-1] + 1
        out[name] = "\n".join(lines[:at] + insert + lines[at:])
    return out


def _torchrun(setup: TrainingSetup, script: str) -> str:
    if setup.multi_node:
        return (
            f"torchrun --nnodes {setup.nodes} --nproc_per_node {setup.gpus_per_node} "
            f'--node_rank "$NODE_RANK" --master_addr "$MASTER_ADDR" --master_port {PORT} '
            f"{script}"
        )
    return f"torchrun --nnodes 1 --nproc_per_node {setup.world} {script}"


def _launch_sh(setup: TrainingSetup, command: str, env: str = "") -> str:
    lines = ["#!/usr/bin/env bash", _header(setup).rstrip("\n"), "set -euo pipefail"]
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


def _zero_section(setup: TrainingSetup) -> dict[str, object]:
    section: dict[str, object] = {"stage": int(setup.zero_stage)}
    if setup.offload is not Offload.NONE:
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if setup.offload is Offload.ALL:
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    return section


def _json(config: dict[str, object]) -> str:
    return json.dumps(config, indent=2) + "\n"


# --------------------------------------------------------------------------- DeepSpeed


def _autotp(setup: TrainingSetup) -> bool:
    """Tensor parallelism through DeepSpeed AutoTP (not with pipeline stages, whose
    PipelineModule topology brings its own tensor parallelism)."""
    return setup.tensor_parallel > 1 and setup.pipeline_stages == 1


def deepspeed_config(setup: TrainingSetup) -> dict[str, object]:
    s = setup
    config: dict[str, object] = {
        "train_batch_size": s.effective_batch,
        "train_micro_batch_size_per_gpu": s.micro_batch,
        "gradient_accumulation_steps": s.accumulation_steps,
        "zero_optimization": _zero_section(s),
        "bf16": {"enabled": s.precision is Precision.BF16},
        "fp16": {"enabled": s.precision is Precision.FP16},
    }
    if _autotp(s):
        # AutoTP: DeepSpeed checks train_batch_size against every process (dp x tp),
        # so give it the micro-batch and the steps and let it multiply
        del config["train_batch_size"]
        config["tensor_parallel"] = {"autotp_size": s.tensor_parallel}
    return config


def hf_deepspeed_config(setup: TrainingSetup) -> dict[str, object]:
    """The JSON for ``TrainingArguments(deepspeed=…)``: batch and precision "auto"."""
    config: dict[str, object] = {
        "train_batch_size": "auto",
        "train_micro_batch_size_per_gpu": "auto",
        "gradient_accumulation_steps": "auto",
        "zero_optimization": _zero_section(setup),
        "bf16": {"enabled": "auto"},
        "fp16": {"enabled": "auto"},
    }
    if _autotp(setup):
        config["tensor_parallel"] = {"autotp_size": setup.tensor_parallel}
    return config


def _deepspeed(setup: TrainingSetup) -> dict[str, str]:
    files = {"ds_config.json": _json(deepspeed_config(setup))}
    if setup.parallel:
        # the JSON cannot say how many processes: the launch line does
        command = _torchrun(setup, 'train.py --deepspeed_config ds_config.json "$@"')
        files["launch.sh"] = _launch_sh(
            setup,
            command,
            '# train.py is yours: deepspeed.initialize(model=..., config="ds_config.json")',
        )
    return files


# --------------------------------------------------------------------------- Hugging Face


def _hf_precision(setup: TrainingSetup) -> list[str]:
    return {
        Precision.BF16: ["    bf16=True,"],
        Precision.FP16: ["    fp16=True,"],
        Precision.FP32: [],
    }[setup.precision]


def _hf_needs_deepspeed(setup: TrainingSetup) -> bool:
    """ZeRO-1 and optimizer-only offload have no FSDP counterpart, and tensor
    parallelism goes through AutoTP: they need DeepSpeed."""
    return (
        setup.zero_stage is ZeroStage.OPTIMIZER
        or setup.offload is Offload.OPTIMIZER
        or setup.tensor_parallel > 1
    )


def _hf_train(setup: TrainingSetup, deepspeed: bool) -> str:
    s = setup
    lines = [
        _header(s).rstrip("\n"),
        "import torch",
        "from transformers import Trainer, TrainingArguments",
        "",
        f"from {MODULE} import build_model, train_dataset  # your model and data",
        "",
        "args = TrainingArguments(",
        '    output_dir="output",',
        f"    per_device_train_batch_size={s.micro_batch},",
        f"    gradient_accumulation_steps={s.accumulation_steps},",
        *_hf_precision(s),
    ]
    if deepspeed:
        lines.append('    deepspeed="ds_config.json",')
    elif s.zero_stage >= ZeroStage.GRADIENTS:
        # FSDP2: keeping the weights gathered after forward is ZeRO-2, resharding ZeRO-3
        config = f'"reshard_after_forward": {s.zero_stage is ZeroStage.WEIGHTS}'
        if s.offload is Offload.ALL:
            config += ', "cpu_offload": True'
        lines.append(f"    fsdp=True,  # ZeRO-{int(s.zero_stage)} with PyTorch FSDP")
        lines.append(f"    fsdp_config={{{config}}},")
    lines += [
        ")",
        "",
        'if __name__ == "__main__":',
        "    Trainer(model=build_model(), args=args, train_dataset=train_dataset).train()",
        "    if torch.distributed.is_initialized():",
        "        torch.distributed.destroy_process_group()  # a clean exit for every process",
    ]
    return "\n".join(lines) + "\n"


def _hf(setup: TrainingSetup) -> dict[str, str]:
    deepspeed = _hf_needs_deepspeed(setup)
    files = {"train.py": _hf_train(setup, deepspeed)}
    if deepspeed:
        files["ds_config.json"] = _json(hf_deepspeed_config(setup))
    files["launch.sh"] = _launch_sh(setup, _torchrun(setup, "train.py"))
    return files


def _hf_deepspeed(setup: TrainingSetup) -> dict[str, str]:
    return {
        "ds_config.json": _json(hf_deepspeed_config(setup)),
        "train.py": _hf_train(setup, deepspeed=True),
        "launch.sh": _launch_sh(setup, _torchrun(setup, "train.py")),
    }


# --------------------------------------------------------------------------- Accelerate


def accelerate_config(setup: TrainingSetup) -> dict[str, object]:
    """What ``accelerate config`` writes for this setup (``default_config.yaml`` keys)."""
    s = setup
    uses_deepspeed = s.zero_stage is not ZeroStage.NONE
    distributed = "DEEPSPEED" if uses_deepspeed else "MULTI_GPU" if s.gpus > 1 else "NO"
    config: dict[str, object] = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": distributed,
        "num_machines": s.nodes,
        "num_processes": s.gpus,
        "machine_rank": 0,
        "mixed_precision": "no" if s.precision is Precision.FP32 else s.precision.value,
        "use_cpu": False,
        "rdzv_backend": "static",
        "same_network": True,
    }
    if s.multi_node:
        config["main_process_ip"] = "MASTER_ADDR"
        config["main_process_port"] = PORT
    if uses_deepspeed:
        ds: dict[str, object] = {
            "gradient_accumulation_steps": s.accumulation_steps,
            "zero_stage": int(s.zero_stage),
            "offload_optimizer_device": "none" if s.offload is Offload.NONE else "cpu",
            "offload_param_device": "cpu" if s.offload is Offload.ALL else "none",
        }
        if s.zero_stage is ZeroStage.WEIGHTS:
            ds["zero3_init_flag"] = True
        if s.multi_node:
            ds["deepspeed_multinode_launcher"] = "standard"
        config["deepspeed_config"] = ds
    return config


# Strings YAML 1.1 (PyYAML, what accelerate reads with) would turn into booleans or
# null; accelerate itself writes mixed_precision: 'no'.
_YAML_SPECIAL = {"no", "yes", "on", "off", "true", "false", "null", "y", "n", "~"}


def _yaml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return f"'{text}'" if text.lower() in _YAML_SPECIAL else text


def _yaml(config: dict[str, object], indent: str = "") -> list[str]:
    """A flat or one-level nested mapping of scalars as YAML (what accelerate writes)."""
    lines: list[str] = []
    for key, value in config.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines += _yaml(value, indent + "  ")
        else:
            lines.append(f"{indent}{key}: {_yaml_value(value)}")
    return lines


def _accelerate(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    config = accelerate_config(s)
    yaml_lines = [_header(s).rstrip("\n")]
    if s.multi_node:
        yaml_lines.append("# replace MASTER_ADDR with the address of machine 0")
    yaml_lines += _yaml(config)
    train = "\n".join(
        [
            _header(s).rstrip("\n"),
            "import torch",
            "from accelerate import Accelerator",
            "from torch.utils.data import DataLoader",
            "",
            f"from {MODULE} import build_model, compute_loss, train_dataset  # yours",
            "",
            f"MICRO_BATCH = {s.micro_batch}",
            f"ACCUMULATION_STEPS = {s.accumulation_steps}",
            "",
            "",
            "def main():",
            "    accelerator = Accelerator(gradient_accumulation_steps=ACCUMULATION_STEPS)",
            "    # ACCELERATE_GRADIENT_ACCUMULATION_STEPS, if set, beats the argument above",
            "    assert accelerator.gradient_accumulation_steps == ACCUMULATION_STEPS",
            "    model = build_model()",
            "    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)",
            "    loader = DataLoader(train_dataset, batch_size=MICRO_BATCH, shuffle=True)",
            "    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)",
            "    model.train()",
            "    for batch in loader:",
            "        with accelerator.accumulate(model):",
            "            loss = compute_loss(model, batch)",
            "            accelerator.backward(loss)",
            "            optimizer.step()",
            "            optimizer.zero_grad()",
            "    accelerator.end_training()  # closes the process group cleanly",
            "",
            "",
            'if __name__ == "__main__":',
            "    main()",
        ]
    )
    command = "accelerate launch --config_file accelerate_config.yaml"
    if s.multi_node:
        command += ' --machine_rank "$NODE_RANK" --main_process_ip "$MASTER_ADDR"'
    command += " train.py"
    env = f"export ACCELERATE_GRADIENT_ACCUMULATION_STEPS={s.accumulation_steps}"
    return {
        "accelerate_config.yaml": "\n".join(yaml_lines) + "\n",
        "train.py": train + "\n",
        "launch.sh": _launch_sh(s, command, env),
    }


# --------------------------------------------------------------------------- Lightning


LIGHTNING_PRECISION = {
    Precision.BF16: "bf16-mixed",
    Precision.FP16: "16-mixed",
    Precision.FP32: "32-true",
}


def _lightning(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    imports = ["import lightning as L"]
    if s.tensor_parallel > 1:
        # your configure_model() applies the plan over self.device_mesh
        imports.append("from lightning.pytorch.strategies import ModelParallelStrategy")
        strategy = (
            f"ModelParallelStrategy(data_parallel_size={s.gpus}, "
            f"tensor_parallel_size={s.tensor_parallel})"
        )
    elif s.zero_stage is ZeroStage.NONE:
        strategy = '"ddp"'
    else:
        imports.append("from lightning.pytorch.strategies import DeepSpeedStrategy")
        strategy = (
            f"DeepSpeedStrategy(stage={int(s.zero_stage)}, "
            f"offload_optimizer={s.offload is not Offload.NONE}, "
            f"offload_parameters={s.offload is Offload.ALL})"
        )
    imports.append("from torch.utils.data import DataLoader")
    train = "\n".join(
        [
            _header(s).rstrip("\n"),
            *imports,
            "",
            f"from {MODULE} import build_module, train_dataset  # your LightningModule and data",
            "",
            "trainer = L.Trainer(",
            '    accelerator="auto",  # the GPUs when there are any',
            f"    devices={s.gpus_per_node},  # GPUs per node",
            f"    num_nodes={s.nodes},",
            f"    accumulate_grad_batches={s.accumulation_steps},",
            f'    precision="{LIGHTNING_PRECISION[s.precision]}",',
            f"    strategy={strategy},",
            ")",
            "",
            'if __name__ == "__main__":',
            f"    loader = DataLoader(train_dataset, batch_size={s.micro_batch}, shuffle=True)",
            "    trainer.fit(build_module(), loader)",
        ]
    )
    if s.multi_node:
        command = _torchrun(s, "train.py")
    else:
        command = "python train.py  # Lightning starts one process per GPU itself"
    return {"train.py": train + "\n", "launch.sh": _launch_sh(s, command)}


# --------------------------------------------------------------------------- torchrun


def _torch_parallel(setup: TrainingSetup) -> tuple[list[str], list[str], list[str]]:
    """Imports, model wrapping and optimizer lines of the plain PyTorch loop."""
    s = setup
    adam = "torch.optim.AdamW"
    if s.zero_stage is ZeroStage.NONE:
        return (
            ["from torch.nn.parallel import DistributedDataParallel as DDP"],
            ["    model = DDP(build_model().to(device))"],
            [f"    optimizer = {adam}(model.parameters(), lr=1e-4)"],
        )
    if s.zero_stage is ZeroStage.OPTIMIZER:
        return (
            [
                "from torch.distributed.optim import ZeroRedundancyOptimizer",
                "from torch.nn.parallel import DistributedDataParallel as DDP",
            ],
            ["    model = DDP(build_model().to(device))"],
            [
                "    # ZeRO-1: each rank keeps the optimizer states of its share",
                "    optimizer = ZeroRedundancyOptimizer(",
                f"        model.parameters(), optimizer_class={adam}, lr=1e-4",
                "    )",
            ],
        )
    shard = "ZeRO-3: weights, gradients" if s.zero_stage is ZeroStage.WEIGHTS else "ZeRO-2"
    wrap = [
        f"    # {shard} and optimizer states sharded with FSDP",
        "    model = FSDP(",
        "        build_model().to(device),",
        f"        sharding_strategy=ShardingStrategy.{'FULL_SHARD' if s.zero_stage is ZeroStage.WEIGHTS else 'SHARD_GRAD_OP'},",  # noqa: E501
    ]
    imports = ["from torch.distributed.fsdp import FullyShardedDataParallel as FSDP"]
    if s.offload is Offload.ALL:
        imports.append("from torch.distributed.fsdp import CPUOffload, ShardingStrategy")
        wrap.append("        cpu_offload=CPUOffload(offload_params=True),")
    else:
        imports.append("from torch.distributed.fsdp import ShardingStrategy")
        if s.offload is Offload.OPTIMIZER:
            wrap.insert(
                0,
                "    # FSDP cannot offload the optimizer alone: the deepspeed export can",
            )
    wrap.append("    )")
    return imports, wrap, [f"    optimizer = {adam}(model.parameters(), lr=1e-4)"]


def _torchrun_files(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    imports, wrap, optimizer = _torch_parallel(s)
    autocast = {
        Precision.BF16: "torch.autocast(device.type, dtype=torch.bfloat16)",
        Precision.FP16: "torch.autocast(device.type, dtype=torch.float16)",
        Precision.FP32: "contextlib.nullcontext()",
    }[s.precision]
    scaler = s.precision is Precision.FP16
    lines = [
        _header(s).rstrip("\n"),
        "import contextlib",
        "import os",
        "",
        "import torch",
        "import torch.distributed as dist",
        *imports,
        "from torch.utils.data import DataLoader, DistributedSampler",
        "",
        f"from {MODULE} import build_model, compute_loss, train_dataset  # yours",
        "",
        f"MICRO_BATCH = {s.micro_batch}",
        f"ACCUMULATION_STEPS = {s.accumulation_steps}",
        "",
        "",
        "def main():",
        '    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")',
        '    local_rank = int(os.environ["LOCAL_RANK"])',
        "    if torch.cuda.is_available():",
        "        torch.cuda.set_device(local_rank)",
        '        device = torch.device("cuda", local_rank)',
        "    else:",
        '        device = torch.device("cpu")',
        *wrap,
        *optimizer,
    ]
    if scaler:
        lines.append("    scaler = torch.amp.GradScaler(device.type)")
    lines += [
        "    sampler = DistributedSampler(train_dataset, shuffle=True)",
        "    loader = DataLoader(train_dataset, batch_size=MICRO_BATCH, sampler=sampler)",
        "    model.train()",
        "    for step, batch in enumerate(loader):",
        "        last = (step + 1) % ACCUMULATION_STEPS == 0",
        "        # no all-reduce of the gradients on the micro-steps in between",
        "        sync = contextlib.nullcontext() if last else model.no_sync()",
        "        with sync:",
        f"            with {autocast}:",
        "                loss = compute_loss(model, batch) / ACCUMULATION_STEPS",
        f"            {'scaler.scale(loss).backward()' if scaler else 'loss.backward()'}",
        "        if last:",
        f"            {'scaler.step(optimizer)' if scaler else 'optimizer.step()'}",
    ]
    if scaler:
        lines.append("            scaler.update()")
    lines += [
        "            optimizer.zero_grad(set_to_none=True)",
        "    dist.destroy_process_group()",
        "",
        "",
        'if __name__ == "__main__":',
        "    main()",
    ]
    return {
        "train.py": "\n".join(lines) + "\n",
        "launch.sh": _launch_sh(s, _torchrun(s, "train.py")),
    }


# --------------------------------------------------------------------------- Megatron


def megatron_arguments(setup: TrainingSetup) -> list[str]:
    """Megatron-LM's command-line arguments for the batch, layout, ZeRO and precision."""
    s = setup
    args = [
        f"--micro-batch-size {s.micro_batch}",
        f"--global-batch-size {s.effective_batch}",
        f"--tensor-model-parallel-size {s.tensor_parallel}",
        f"--pipeline-model-parallel-size {s.pipeline_stages}",
    ]
    if s.virtual_stages > 1:
        args.append(f"--num-virtual-stages-per-pipeline-rank {s.virtual_stages}")
    if s.expert_parallel > 1:
        args.append(f"--expert-model-parallel-size {s.expert_parallel}")
    if s.context_parallel > 1:
        # each sequence split over CP GPUs (ring attention, cp_comm_type p2p)
        args.append(f"--context-parallel-size {s.context_parallel}")
    if s.tensor_parallel > 1:
        args.append("--sequence-parallel")
    if s.precision is Precision.BF16:
        args.append("--bf16")
    elif s.precision is Precision.FP16:
        args.append("--fp16")
    if s.zero_stage is ZeroStage.OPTIMIZER:
        args.append("--use-distributed-optimizer")
    elif s.zero_stage is ZeroStage.GRADIENTS:
        args += ["--use-megatron-fsdp", "--data-parallel-sharding-strategy optim_grads"]
    elif s.zero_stage is ZeroStage.WEIGHTS:
        args += ["--use-megatron-fsdp", "--data-parallel-sharding-strategy optim_grads_params"]
    if s.offload is not Offload.NONE:
        args.append("--optimizer-cpu-offload")
    return args


def _megatron(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    args = megatron_arguments(s)
    body = "\n".join(
        [
            "#!/usr/bin/env bash",
            _header(s).rstrip("\n"),
            f"# Megatron derives the accumulation steps: {s.effective_batch} / "
            f"({s.micro_batch} x {s.gpus}) = {s.accumulation_steps}",
        ]
        + (
            [
                f"# and the data-parallel size: {s.world} GPUs / ({s.tensor_parallel} "
                f"tensor-parallel x {s.pipeline_stages} pipeline stages"
                f"{_context_text(s)}) = {s.gpus}"
            ]
            if s.parallel or s.context_parallel > 1
            else []
        )
        + (
            ["# Megatron has no parameter offload: only the optimizer is offloaded"]
            if s.offload is Offload.ALL
            else []
        )
        + [
            "set -euo pipefail",
            "BATCH_ARGS=(",
            *[f"  {a}" for a in args],
            ")",
        ]
    )
    launch = _launch_sh(s, _torchrun(s, 'pretrain_gpt.py "${BATCH_ARGS[@]}" "$@"'))
    launch = launch.replace(
        "set -euo pipefail\n", "set -euo pipefail\nsource megatron_args.sh\n", 1
    )
    return {"megatron_args.sh": body + "\n", "launch.sh": launch}


_RENDERERS = {
    ExportFormat.DEEPSPEED: _deepspeed,
    ExportFormat.HF: _hf,
    ExportFormat.HF_DEEPSPEED: _hf_deepspeed,
    ExportFormat.ACCELERATE: _accelerate,
    ExportFormat.LIGHTNING: _lightning,
    ExportFormat.TORCHRUN: _torchrun_files,
    ExportFormat.MEGATRON: _megatron,
}


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
            if setup.zero_stage >= ZeroStage.GRADIENTS:
                notes.append(NOTE_DEEPSPEED_PIPELINE_ZERO)
        elif tp:
            notes.append(NOTE_DEEPSPEED_AUTOTP)
        if ep:
            notes.append(NOTE_DEEPSPEED_EXPERTS)
            if setup.zero_stage is ZeroStage.WEIGHTS:
                notes.append(NOTE_DEEPSPEED_EXPERTS_ZERO3)
        if cp:
            notes.append(NOTE_NO_CONTEXT)
            return _carried(setup, tensor=True, pipeline=True, experts=True), tuple(notes)
        return setup, tuple(notes)
    if fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED):
        carried = _carried(setup, tensor=True, pipeline=False)
        notes += [NOTE_HF_TENSOR] if tp else []
        notes += [NOTE_HF_PIPELINE] if pp else []
    elif fmt is ExportFormat.LIGHTNING:
        carried = _carried(setup, tensor=True, pipeline=False)
        notes += [NOTE_LIGHTNING_TENSOR] if tp else []
        notes += [NOTE_LIGHTNING_PIPELINE] if pp else []
    elif fmt is ExportFormat.ACCELERATE:
        carried = _carried(setup, tensor=False, pipeline=False)
        notes += [NOTE_ACCELERATE_TENSOR] if tp else []
        notes += [NOTE_ACCELERATE_PIPELINE] if pp else []
    else:
        carried = _carried(setup, tensor=False, pipeline=False)
        notes += [NOTE_TORCH_TENSOR] if tp else []
        notes += [NOTE_TORCH_PIPELINE] if pp else []
    notes += [NOTE_NO_EXPERTS] if ep else []
    notes += [NOTE_NO_CONTEXT] if cp else []
    return carried, tuple(notes)


def export(fmt: ExportFormat, setup: TrainingSetup, model: ExportModel | None = None) -> Exported:
    """The files of ``fmt`` for ``setup`` (and what they can hold of ``model``);
    ``ValueError`` when no framework would run it."""
    problem = setup_problem(setup)
    if problem is not None:
        raise ValueError(problem_text(problem, setup))
    fmt = ExportFormat(fmt)
    carried, notes = layout_notes(fmt, setup)
    files = _RENDERERS[fmt](carried)
    if model is not None and model != ExportModel():
        files, model_notes = _with_model(fmt, files, model, carried)
        notes = (*notes, *model_notes)
    values: tuple[tuple[str, str], ...] = (
        ("seq_len", str(model.seq_len) if model and model.seq_len else "N"),
    )
    if setup.expert_parallel > 1:
        values += (("expert_parallel", str(setup.expert_parallel)),)
    if setup.context_parallel > 1:
        values += (("context_parallel", str(setup.context_parallel)),)
    english = tuple(note.format(**dict(values)) for note in notes)
    files = _annotate(files, carried, setup, english)
    return Exported(format=fmt, setup=setup, files=files, notes=notes, note_values=values)
