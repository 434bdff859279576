"""DeepSpeed: ``ds_config.json`` and its launch line."""

from __future__ import annotations

from ...memory.setup import Precision, TrainingSetup
from ...precision import MasterWeights
from .shared import json_text, launch_sh, torchrun_line, zero_section

# --------------------------------------------------------------------------- DeepSpeed


def _autotp(setup: TrainingSetup) -> bool:
    """Tensor parallelism through DeepSpeed AutoTP (not with pipeline stages, whose
    PipelineModule topology brings its own tensor parallelism)."""
    return setup.tensor_parallel > 1 and setup.pipeline_stages == 1


def _bf16(setup: TrainingSetup, enabled: object = None) -> dict[str, object]:
    """The bf16 section: on with bf16 (``enabled``: what to write instead), and a bf16
    master copy with bf16 optimizer states when the setup keeps one."""
    section: dict[str, object] = {
        "enabled": setup.precision is Precision.BF16 if enabled is None else enabled
    }
    if setup.master is MasterWeights.BF16 and setup.precision is Precision.BF16:
        section["bf16_master_weights_and_grads"] = True
        section["bf16_optimizer_states"] = True
    return section


def deepspeed_config(setup: TrainingSetup) -> dict[str, object]:
    s = setup
    config: dict[str, object] = {
        "train_batch_size": s.effective_batch,
        "train_micro_batch_size_per_gpu": s.micro_batch,
        "gradient_accumulation_steps": s.accumulation_steps,
        "zero_optimization": zero_section(s),
        "bf16": _bf16(s),
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
        "zero_optimization": zero_section(setup),
        "bf16": _bf16(setup, "auto"),
        "fp16": {"enabled": "auto"},
    }
    if _autotp(setup):
        config["tensor_parallel"] = {"autotp_size": setup.tensor_parallel}
    return config


def deepspeed_files(setup: TrainingSetup) -> dict[str, str]:
    files = {"ds_config.json": json_text(deepspeed_config(setup))}
    if setup.parallel:
        # the JSON cannot say how many processes: the launch line does
        command = torchrun_line(setup, 'train.py --deepspeed_config ds_config.json "$@"')
        files["launch.sh"] = launch_sh(
            setup,
            command,
            '# train.py is yours: deepspeed.initialize(model=..., config="ds_config.json")',
        )
    return files
