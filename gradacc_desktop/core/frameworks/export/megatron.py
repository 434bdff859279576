"""Megatron-LM: the arguments of ``pretrain_gpt.py`` and the launch line."""

from __future__ import annotations

from ...memory.setup import Offload, Precision, TrainingSetup
from ...memory.zero import ZeroStage
from .shared import context_text, header, launch_sh, torchrun_line

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
    if s.expert_tensor_parallel:  # given apart from the tensor-parallel size
        args.append(f"--expert-tensor-parallel-size {s.expert_tensor_parallel}")
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


def megatron_files(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    args = megatron_arguments(s)
    body = "\n".join(
        [
            "#!/usr/bin/env bash",
            header(s).rstrip("\n"),
            f"# Megatron derives the accumulation steps: {s.effective_batch} / "
            f"({s.micro_batch} x {s.gpus}) = {s.accumulation_steps}",
        ]
        + (
            [
                f"# and the data-parallel size: {s.world} GPUs / ({s.tensor_parallel} "
                f"tensor-parallel x {s.pipeline_stages} pipeline stages"
                f"{context_text(s)}) = {s.gpus}"
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
    launch = launch_sh(s, torchrun_line(s, 'pretrain_gpt.py "${BATCH_ARGS[@]}" "$@"'))
    launch = launch.replace(
        "set -euo pipefail\n", "set -euo pipefail\nsource megatron_args.sh\n", 1
    )
    return {"megatron_args.sh": body + "\n", "launch.sh": launch}
