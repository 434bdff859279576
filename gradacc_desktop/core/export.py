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
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass

from .memory import ZeroStage
from .setup import Offload, Precision, TrainingSetup, problem_text, setup_problem

__all__ = ["ExportFormat", "Exported", "export", "render"]

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
class Exported:
    format: ExportFormat
    setup: TrainingSetup
    # file name -> content, in the order a user reads them (the main file first)
    files: dict[str, str]

    @property
    def text(self) -> str:
        """All files as one text (a ``# ==> name <==`` line before each when several)."""
        if len(self.files) == 1:
            return next(iter(self.files.values()))
        parts = []
        for name, content in self.files.items():
            parts.append(f"# ==> {name} <==\n{content}")
        return "\n".join(parts)


# --------------------------------------------------------------------------- shared


def _layout(setup: TrainingSetup) -> str:
    if setup.multi_node:
        return f"{setup.nodes} nodes x {setup.gpus_per_node} GPUs"
    return f"{setup.gpus} GPU(s)"


def _header(setup: TrainingSetup) -> str:
    s = setup
    zero = f"ZeRO-{int(s.zero_stage)}" if s.zero_stage else "no ZeRO"
    offload = {Offload.NONE: "", Offload.OPTIMIZER: ", optimizer offloaded to CPU"}.get(
        s.offload, ", optimizer and parameters offloaded to CPU"
    )
    return (
        f"# effective batch = {s.micro_batch} (micro-batch) x {s.accumulation_steps} "
        f"(accumulation steps) x {s.gpus} GPU(s) = {s.effective_batch}\n"
        f"# layout: {_layout(s)}; {zero}; {s.precision.value}{offload}\n"
    )


def _torchrun(setup: TrainingSetup, script: str) -> str:
    if setup.multi_node:
        return (
            f"torchrun --nnodes {setup.nodes} --nproc_per_node {setup.gpus_per_node} "
            f'--node_rank "$NODE_RANK" --master_addr "$MASTER_ADDR" --master_port {PORT} '
            f"{script}"
        )
    return f"torchrun --nnodes 1 --nproc_per_node {setup.gpus} {script}"


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


def deepspeed_config(setup: TrainingSetup) -> dict[str, object]:
    s = setup
    return {
        "train_batch_size": s.effective_batch,
        "train_micro_batch_size_per_gpu": s.micro_batch,
        "gradient_accumulation_steps": s.accumulation_steps,
        "zero_optimization": _zero_section(s),
        "bf16": {"enabled": s.precision is Precision.BF16},
        "fp16": {"enabled": s.precision is Precision.FP16},
    }


def hf_deepspeed_config(setup: TrainingSetup) -> dict[str, object]:
    """The JSON for ``TrainingArguments(deepspeed=…)``: batch and precision "auto"."""
    return {
        "train_batch_size": "auto",
        "train_micro_batch_size_per_gpu": "auto",
        "gradient_accumulation_steps": "auto",
        "zero_optimization": _zero_section(setup),
        "bf16": {"enabled": "auto"},
        "fp16": {"enabled": "auto"},
    }


def _deepspeed(setup: TrainingSetup) -> dict[str, str]:
    return {"ds_config.json": _json(deepspeed_config(setup))}


# --------------------------------------------------------------------------- Hugging Face


def _hf_precision(setup: TrainingSetup) -> list[str]:
    return {
        Precision.BF16: ["    bf16=True,"],
        Precision.FP16: ["    fp16=True,"],
        Precision.FP32: [],
    }[setup.precision]


def _hf_needs_deepspeed(setup: TrainingSetup) -> bool:
    """ZeRO-1 and optimizer-only offload have no FSDP counterpart: they need DeepSpeed."""
    return setup.zero_stage is ZeroStage.OPTIMIZER or setup.offload is Offload.OPTIMIZER


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
    if s.zero_stage is ZeroStage.NONE:
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
        "--tensor-model-parallel-size 1",
        "--pipeline-model-parallel-size 1",
    ]
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


def export(fmt: ExportFormat, setup: TrainingSetup) -> Exported:
    """The files of ``fmt`` for ``setup``; ``ValueError`` when no framework would run it."""
    problem = setup_problem(setup)
    if problem is not None:
        raise ValueError(problem_text(problem, setup))
    return Exported(format=fmt, setup=setup, files=_RENDERERS[ExportFormat(fmt)](setup))


def render(fmt: ExportFormat, micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    """The files of ``fmt`` for a one-node setup without ZeRO, as one text."""
    return export(fmt, TrainingSetup(micro_batch, accumulation_steps, gpus)).text
