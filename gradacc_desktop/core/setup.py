"""The whole training setup an export describes: batch, layout, ZeRO, precision, offload.

``TrainingSetup`` is what every framework file is written from. ``setup_problem``
names the first combination no framework would run (GPUs not split evenly over the
nodes, CPU offload without ZeRO, parameter offload below ZeRO-3); the CLI reports it
with exit code 2 and the planner shows it instead of a configuration.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .memory import ZeroStage
from .text import trans_late

__all__ = [
    "Offload",
    "Precision",
    "SetupProblem",
    "TrainingSetup",
    "ZeroStage",
    "setup_problem",
]


class Precision(enum.Enum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"


class Offload(enum.Enum):
    NONE = "none"
    # optimizer states (and their fp32 copies) to CPU memory: ZeRO-Offload
    OPTIMIZER = "optimizer"
    # optimizer states and the parameters: ZeRO-Infinity's CPU offload (ZeRO-3 only)
    ALL = "all"


class SetupProblem(enum.Enum):
    UNEVEN_NODES = "uneven_nodes"
    OFFLOAD_NEEDS_ZERO = "offload_needs_zero"
    PARAMETER_OFFLOAD_NEEDS_ZERO3 = "parameter_offload_needs_zero3"


# English messages (the CLI prints them; the planner translates them, context "Setup").
PROBLEM_TEXT = {
    SetupProblem.UNEVEN_NODES: trans_late(
        "Setup", "{gpus} GPUs cannot be split evenly over {nodes} nodes."
    ),
    SetupProblem.OFFLOAD_NEEDS_ZERO: trans_late(
        "Setup", "CPU offload needs ZeRO stage 1, 2 or 3 (DeepSpeed ignores it without ZeRO)."
    ),
    SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3: trans_late(
        "Setup", "Offloading the parameters needs ZeRO stage 3 (DeepSpeed's offload_param)."
    ),
}


@dataclass(frozen=True)
class TrainingSetup:
    micro_batch: int
    accumulation_steps: int
    # data-parallel GPUs in all (world size without tensor or pipeline parallelism)
    gpus: int
    nodes: int = 1
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: Precision = Precision.BF16
    offload: Offload = Offload.NONE

    def __post_init__(self) -> None:
        for name in ("micro_batch", "accumulation_steps", "gpus", "nodes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        object.__setattr__(self, "zero_stage", ZeroStage(self.zero_stage))
        object.__setattr__(self, "precision", Precision(self.precision))
        object.__setattr__(self, "offload", Offload(self.offload))

    @property
    def effective_batch(self) -> int:
        return self.micro_batch * self.accumulation_steps * self.gpus

    @property
    def gpus_per_node(self) -> int:
        """GPUs on each node (only meaningful when ``setup_problem`` is ``None``)."""
        return self.gpus // self.nodes

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1


def setup_problem(setup: TrainingSetup) -> SetupProblem | None:
    """The first reason no framework would run ``setup``, or ``None``."""
    if setup.gpus % setup.nodes:
        return SetupProblem.UNEVEN_NODES
    if setup.offload is not Offload.NONE and setup.zero_stage is ZeroStage.NONE:
        return SetupProblem.OFFLOAD_NEEDS_ZERO
    if setup.offload is Offload.ALL and setup.zero_stage is not ZeroStage.WEIGHTS:
        return SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3
    return None


def problem_text(problem: SetupProblem, setup: TrainingSetup) -> str:
    """The English message of ``problem`` for ``setup``."""
    return PROBLEM_TEXT[problem].format(gpus=setup.gpus, nodes=setup.nodes)
