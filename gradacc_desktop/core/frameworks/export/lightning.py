"""Lightning: a ``Trainer`` script and its launch line."""

from __future__ import annotations

from ...memory.setup import Offload, Precision, TrainingSetup
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from .model import MODULE
from .shared import header, launch_sh, torchrun_line

# --------------------------------------------------------------------------- Lightning


LIGHTNING_PRECISION = {
    Precision.BF16: "bf16-mixed",
    Precision.FP16: "16-mixed",
    Precision.FP32: "32-true",
}


def _deepspeed(setup: TrainingSetup) -> bool:
    """DeepSpeed's strategy runs the step: ZeRO without tensor parallelism (which
    Lightning's ModelParallelStrategy runs)."""
    return setup.tensor_parallel == 1 and setup.zero_stage is not ZeroStage.NONE


def _precision(setup: TrainingSetup) -> str:
    """Lightning's precision: pure bf16 is "bf16-true" (no fp32 master weights) where
    DeepSpeed's strategy does not run the step (it keeps a master copy of its own)."""
    pure = setup.precision is Precision.BF16 and setup.master is MasterWeights.NONE
    if pure and not _deepspeed(setup):
        return "bf16-true"
    return LIGHTNING_PRECISION[setup.precision]


def lightning_files(setup: TrainingSetup) -> dict[str, str]:
    s = setup
    imports = ["import lightning as L"]
    if s.tensor_parallel > 1:
        # your configure_model() applies the plan over self.device_mesh
        imports.append("from lightning.pytorch.strategies import ModelParallelStrategy")
        strategy = (
            f"ModelParallelStrategy(data_parallel_size={s.gpus}, "
            f"tensor_parallel_size={s.tensor_parallel})"
        )
    elif not _deepspeed(s):
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
            header(s).rstrip("\n"),
            *imports,
            "",
            f"from {MODULE} import build_module, train_dataset  # your LightningModule and data",
            "",
            "trainer = L.Trainer(",
            '    accelerator="auto",  # the GPUs when there are any',
            f"    devices={s.gpus_per_node},  # GPUs per node",
            f"    num_nodes={s.nodes},",
            f"    accumulate_grad_batches={s.accumulation_steps},",
            f'    precision="{_precision(s)}",',
            f"    strategy={strategy},",
            ")",
            "",
            'if __name__ == "__main__":',
            f"    loader = DataLoader(train_dataset, batch_size={s.micro_batch}, shuffle=True)",
            "    trainer.fit(build_module(), loader)",
        ]
    )
    if s.multi_node:
        command = torchrun_line(s, "train.py")
    else:
        command = "python train.py  # Lightning starts one process per GPU itself"
    return {"train.py": train + "\n", "launch.sh": launch_sh(s, command)}
