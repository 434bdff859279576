"""Hugging Face ``Trainer``: ``train.py`` with its ``TrainingArguments`` (natively or
with DeepSpeed).
"""

from __future__ import annotations

from ...memory.setup import Offload, Precision, TrainingSetup
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from .deepspeed import hf_deepspeed_config
from .model import MODULE
from .shared import header, json_text, launch_sh, torchrun_line

# --------------------------------------------------------------------------- Hugging Face


def _hf_precision(setup: TrainingSetup) -> list[str]:
    if setup.precision is Precision.BF16 and setup.master is MasterWeights.NONE:
        # bf16=True would keep fp32 master weights (accelerate upcasts FSDP2's shards)
        return ["    # pure bf16: the model's own bf16 weights train, without mixed precision"]
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
        header(s).rstrip("\n"),
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


def hf_files(setup: TrainingSetup) -> dict[str, str]:
    deepspeed = _hf_needs_deepspeed(setup)
    files = {"train.py": _hf_train(setup, deepspeed)}
    if deepspeed:
        files["ds_config.json"] = json_text(hf_deepspeed_config(setup))
    files["launch.sh"] = launch_sh(setup, torchrun_line(setup, "train.py"))
    return files


def hf_deepspeed_files(setup: TrainingSetup) -> dict[str, str]:
    return {
        "ds_config.json": json_text(hf_deepspeed_config(setup)),
        "train.py": _hf_train(setup, deepspeed=True),
        "launch.sh": launch_sh(setup, torchrun_line(setup, "train.py")),
    }
