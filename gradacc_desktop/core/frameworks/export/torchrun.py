"""Plain PyTorch: a DDP / FSDP / ZeroRedundancyOptimizer loop launched by torchrun."""

from __future__ import annotations

from ...memory.setup import Offload, Precision, TrainingSetup
from ...memory.zero import ZeroStage
from .model import MODULE
from .shared import header, launch_sh, torchrun_line

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


def torchrun_files(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    imports, wrap, optimizer = _torch_parallel(s)
    autocast = {
        Precision.BF16: "torch.autocast(device.type, dtype=torch.bfloat16)",
        Precision.FP16: "torch.autocast(device.type, dtype=torch.float16)",
        Precision.FP32: "contextlib.nullcontext()",
    }[s.precision]
    scaler = s.precision is Precision.FP16
    lines = [
        header(s).rstrip("\n"),
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
        "launch.sh": launch_sh(s, torchrun_line(s, "train.py")),
    }
