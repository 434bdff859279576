"""Accelerate: the YAML ``accelerate config`` writes and a ``train.py``."""

from __future__ import annotations

from ...framework import Framework
from ...memory.setup import Offload, Precision, TrainingSetup
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from .model import MODULE, PORT
from .shared import header, launch_sh

# --------------------------------------------------------------------------- Accelerate


def uses_fsdp(setup: TrainingSetup) -> bool:
    """FSDP2 shards the setup: FSDP is what runs it, with ZeRO-2 or 3 and every state or
    none offloaded (FSDP has no ZeRO-1 and no optimizer-only offload: DeepSpeed's file
    then, with the rule book's refusal in the notes)."""
    return (
        setup.framework is Framework.FSDP
        and setup.zero_stage >= ZeroStage.GRADIENTS
        and setup.offload is not Offload.OPTIMIZER
    )


def accelerate_config(setup: TrainingSetup) -> dict[str, object]:
    """What ``accelerate config`` writes for this setup (``default_config.yaml`` keys)."""
    s = setup
    fsdp = uses_fsdp(s)
    uses_deepspeed = s.zero_stage is not ZeroStage.NONE and not fsdp
    distributed = (
        "FSDP" if fsdp else "DEEPSPEED" if uses_deepspeed else "MULTI_GPU" if s.gpus > 1 else "NO"
    )
    # pure bf16 (no master copy): no mixed precision, the model's own bf16 weights train
    pure = s.precision is Precision.FP32 or s.master is MasterWeights.NONE
    config: dict[str, object] = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": distributed,
        "num_machines": s.nodes,
        "num_processes": s.gpus,
        "machine_rank": 0,
        "mixed_precision": "no" if pure else s.precision.value,
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
    if fsdp:
        config["fsdp_config"] = {
            "fsdp_version": 2,
            # keeping the weights gathered after the forward is ZeRO-2, resharding ZeRO-3
            "fsdp_reshard_after_forward": s.zero_stage is ZeroStage.WEIGHTS,
            "fsdp_offload_params": s.offload is Offload.ALL,
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
        }
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


def accelerate_files(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    config = accelerate_config(s)
    yaml_lines = [header(s).rstrip("\n")]
    if s.multi_node:
        yaml_lines.append("# replace MASTER_ADDR with the address of machine 0")
    yaml_lines += _yaml(config)
    train = "\n".join(
        [
            header(s).rstrip("\n"),
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
        "launch.sh": launch_sh(s, command, env),
    }
