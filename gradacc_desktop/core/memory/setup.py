"""The whole training setup an export describes: batch, layout, ZeRO, precision, offload.

``TrainingSetup`` is what every framework file is written from. ``setup_problem``
names the first combination no framework would run (GPUs not split evenly over the
nodes, a tensor-parallel group spanning nodes, an expert-parallel size that does not
divide the data-parallel GPUs, CPU offload without ZeRO, parameter offload below
ZeRO-3); the CLI reports it with exit code 2 and the planner shows it
instead of a configuration.

``gpus`` is the data-parallel size: the effective batch is ``b·a·gpus`` whatever the
tensor-parallel size and pipeline stages. Every process is a GPU, so the world size is
``gpus · tensor_parallel · pipeline_stages · context_parallel`` and the nodes split the
world. Context parallelism adds GPUs: each sequence is split over ``context_parallel``
GPUs of a replica (Megatron's ``--context-parallel-size``). Expert
parallelism adds no GPUs: it spreads a mixture of experts' routed experts over
``expert_parallel`` GPUs of the data-parallel group — with Megatron, groups of
``expert_parallel × expert_tensor_parallel`` GPUs folded into each pipeline stage's
tensor × context × data-parallel GPUs (megatron-core's MoE parallel folding,
``--expert-tensor-parallel-size``, the tensor-parallel size by default).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from ..framework import Framework
from ..precision import MasterWeights, Precision
from ..text import Message, trans_late
from .zero import ZeroStage

__all__ = [
    "Offload",
    "Precision",
    "SetupProblem",
    "TrainingSetup",
    "ZeroStage",
    "setup_problem",
]


class Offload(enum.Enum):
    NONE = "none"
    # optimizer states (and their fp32 copies) to CPU memory: ZeRO-Offload
    OPTIMIZER = "optimizer"
    # optimizer states and the parameters: ZeRO-Infinity's CPU offload (ZeRO-3 only)
    ALL = "all"


class SetupProblem(enum.Enum):
    UNEVEN_NODES = "uneven_nodes"
    #: the expert-parallel groups must tile the data-parallel GPUs
    EXPERT_PARALLEL_DATA = "expert_parallel_data"
    #: Megatron's expert groups (EP × expert TP) must tile a stage's tp × cp × dp GPUs
    EXPERT_MESH = "expert_mesh"
    OFFLOAD_NEEDS_ZERO = "offload_needs_zero"
    PARAMETER_OFFLOAD_NEEDS_ZERO3 = "parameter_offload_needs_zero3"


# English messages (the CLI prints them; the planner translates them, context "Setup").
PROBLEM_TEXT = {
    SetupProblem.UNEVEN_NODES: trans_late(
        "Setup", "{gpus} GPUs cannot be split evenly over {nodes} nodes."
    ),
    SetupProblem.EXPERT_PARALLEL_DATA: trans_late(
        "Setup",
        "The expert-parallel size must divide the data-parallel GPUs: each group of that "
        "many GPUs holds every routed expert once.",
    ),
    SetupProblem.EXPERT_MESH: trans_late(
        "Setup",
        "Megatron spreads the routed experts over groups of {group} GPUs (expert-parallel "
        "× expert tensor-parallel size): {group} must divide the {span} GPUs of a "
        "pipeline stage (tensor × context × data parallel).",
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
    # data-parallel GPUs in all (the world size without tensor or pipeline parallelism)
    gpus: int
    nodes: int = 1
    zero_stage: ZeroStage = ZeroStage.NONE
    precision: Precision = Precision.BF16
    offload: Offload = Offload.NONE
    # GPUs each layer is split over (inside one node), and pipeline stages
    tensor_parallel: int = 1
    pipeline_stages: int = 1
    # interleaved 1F1B: model chunks per pipeline GPU (Megatron's virtual stages)
    virtual_stages: int = 1
    # a mixture of experts' routed experts spread over this many GPUs of the
    # data-parallel group (Megatron's --expert-model-parallel-size)
    expert_parallel: int = 1
    # GPUs each sequence is split over (Megatron's --context-parallel-size)
    context_parallel: int = 1
    # GPUs each routed expert is split over (Megatron's --expert-tensor-parallel-size;
    # 0: the tensor-parallel size, its default)
    expert_tensor_parallel: int = 0
    # what a bf16 training's optimizer updates (DeepSpeed's bf16 master copy, or none)
    master: MasterWeights = MasterWeights.FP32
    # what runs the step: accelerate's file is FSDP's for FSDP (ZeRO-2/3), else DeepSpeed's
    framework: Framework = Framework.DEEPSPEED

    def __post_init__(self) -> None:
        for name in (
            "micro_batch",
            "accumulation_steps",
            "gpus",
            "nodes",
            "tensor_parallel",
            "pipeline_stages",
            "virtual_stages",
            "expert_parallel",
            "context_parallel",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        etp = self.expert_tensor_parallel
        if isinstance(etp, bool) or not isinstance(etp, int) or etp < 0:
            raise ValueError(f"expert_tensor_parallel must be an integer >= 0, got {etp!r}")
        if self.virtual_stages > 1 and self.pipeline_stages == 1:
            raise ValueError("virtual_stages interleave pipeline stages: give pipeline_stages")
        object.__setattr__(self, "zero_stage", ZeroStage(self.zero_stage))
        object.__setattr__(self, "precision", Precision(self.precision))
        object.__setattr__(self, "offload", Offload(self.offload))
        object.__setattr__(self, "master", MasterWeights(self.master))
        object.__setattr__(self, "framework", Framework(self.framework))

    @property
    def effective_batch(self) -> int:
        return self.micro_batch * self.accumulation_steps * self.gpus

    @property
    def world(self) -> int:
        """GPUs (processes) in all: data-parallel × tensor-parallel × pipeline stages ×
        context-parallel."""
        return self.gpus * self.tensor_parallel * self.pipeline_stages * self.context_parallel

    @property
    def expert_tensor(self) -> int:
        """GPUs each routed expert is split over (the tensor-parallel size unless told)."""
        return self.expert_tensor_parallel or self.tensor_parallel

    @property
    def expert_group(self) -> int:
        """GPUs that hold every routed expert once: expert-parallel × expert tensor."""
        return self.expert_parallel * self.expert_tensor

    @property
    def expert_span(self) -> int:
        """The GPUs of a pipeline stage the expert groups tile: Megatron folds them into
        tensor × context × data parallel; DeepSpeed-MoE and FSDP into the data-parallel
        GPUs, each split as the dense layers are."""
        span = self.gpus * self.tensor_parallel
        return span * self.context_parallel if self.framework is Framework.MEGATRON else span

    @property
    def expert_spread(self) -> Fraction:
        """How many times more ways a GPU's routed experts are split than its dense
        weights: expert-parallel × expert tensor / tensor-parallel size."""
        return Fraction(self.expert_group, self.tensor_parallel)

    @property
    def parallel(self) -> bool:
        """Whether a model replica spans several GPUs (tensor parallelism or pipeline stages)."""
        return self.tensor_parallel > 1 or self.pipeline_stages > 1

    @property
    def gpus_per_node(self) -> int:
        """GPUs on each node (only meaningful when ``setup_problem`` is ``None``)."""
        return self.world // self.nodes

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1


class SetupNote(enum.Enum):
    """What a framework runs, but slowly or unusually: said beside the plan."""

    #: tensor-parallel groups reach over the network (Megatron and DeepSpeed run them)
    TENSOR_PARALLEL_ACROSS_NODES = "tensor_parallel_across_nodes"
    #: more GPUs in a node than a server holds (8: HGX and DGX boards)
    LARGE_NODE = "large_node"


#: the GPUs of the usual training server (8-GPU HGX and DGX boards, the cloud's nodes)
SERVER_GPUS = 8

# English notes (the CLI prints them; the planner translates them, context "Setup").
NOTE_TEXT = {
    SetupNote.TENSOR_PARALLEL_ACROSS_NODES: trans_late(
        "Setup",
        "A tensor-parallel group of {tensor_parallel} GPUs spans nodes of {gpus_per_node} "
        "GPUs: its all-reduces run over the network on every layer, much slower than inside "
        "a node (the time per step counts them there).",
    ),
    SetupNote.LARGE_NODE: trans_late(
        "Setup",
        "{gpus_per_node} GPUs a node: most servers hold {server} (HGX and DGX boards; a "
        "DGX-2 16), and the time per step counts all {gpus_per_node} as one node's links. Give "
        "more nodes if yours hold fewer.",
    ),
}


def setup_notes(setup: TrainingSetup) -> tuple[SetupNote, ...]:
    """What is slow or unusual about ``setup`` (nothing when its nodes do not split it
    evenly: that is a problem)."""
    if setup.world % setup.nodes:
        return ()
    found: tuple[SetupNote, ...] = ()
    if setup.gpus_per_node > SERVER_GPUS:
        found += (SetupNote.LARGE_NODE,)
    # tensor-parallel groups are consecutive ranks (Megatron's order): each stays inside
    # one node only when the GPUs per node are a multiple of the group
    if setup.gpus_per_node % setup.tensor_parallel:
        found += (SetupNote.TENSOR_PARALLEL_ACROSS_NODES,)
    return found


def note_text(note: SetupNote, setup: TrainingSetup) -> str:
    """The English note for ``setup``."""
    return NOTE_TEXT[note].format(
        tensor_parallel=setup.tensor_parallel,
        gpus_per_node=setup.gpus_per_node,
        server=SERVER_GPUS,
    )


def setup_problem(setup: TrainingSetup) -> SetupProblem | None:
    """The first reason no framework would run ``setup``, or ``None``."""
    if setup.world % setup.nodes:
        return SetupProblem.UNEVEN_NODES
    # DeepSpeed-MoE builds the expert-parallel groups inside the data-parallel group
    # (dp / EP replicas hold the same experts); Megatron inside a stage's tp · cp · dp
    if setup.expert_span % setup.expert_group:
        if setup.framework is Framework.MEGATRON:
            return SetupProblem.EXPERT_MESH
        return SetupProblem.EXPERT_PARALLEL_DATA
    if setup.offload is not Offload.NONE and setup.zero_stage is ZeroStage.NONE:
        return SetupProblem.OFFLOAD_NEEDS_ZERO
    if setup.offload is Offload.ALL and setup.zero_stage is not ZeroStage.WEIGHTS:
        return SetupProblem.PARAMETER_OFFLOAD_NEEDS_ZERO3
    return None


def problem_text(problem: SetupProblem, setup: TrainingSetup) -> Message:
    """The English message of ``problem`` for ``setup`` (a ``Message``: the window
    translates it with its values)."""
    return PROBLEM_TEXT[problem].format(
        gpus=setup.world,
        nodes=setup.nodes,
        tensor_parallel=setup.tensor_parallel,
        gpus_per_node=setup.gpus_per_node,
        group=setup.expert_group,
        span=setup.expert_span,
    )
