"""Megatron's expert tensor parallelism (MoE parallel folding): groups of EP × expert-TP
GPUs tile a pipeline stage's tensor × context × data-parallel GPUs, so expert parallelism
may take tensor-parallel GPUs; each GPU holds experts / (EP · expert TP) of a stage's
routed experts (megatron-core's ``expert_tensor_parallel_size``, the tensor-parallel size
by default). The other frameworks split the experts as their other layers."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.setup import SetupProblem, setup_problem
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.exports import export_description
from gradacc_desktop.core.training.plan import plan
from gradacc_desktop.core.training.problems import ProblemKind, problems

QWEN = ModelSpec.bundled("qwen3-30b-a3b")
# 16 GPUs: tensor 4 × data 4, Megatron's distributed optimizer
D = TrainingDescription(
    model=QWEN, seq_len=4096, card=load_gpu_table().by_id("h100-80gb"), gpus=4, nodes=2,
    tensor_parallel=4, zero_stage=ZeroStage.OPTIMIZER, framework=Framework.MEGATRON,
    target_batch=1024, micro_batch=1,
)  # fmt: skip


def _held(d: TrainingDescription) -> Fraction:
    """The routed expert parameters one GPU holds, as the plan counts them."""
    states = plan(d).figures.states
    assert states is not None
    return Fraction(states.experts) / states.expert_parallel


def test_expert_groups_may_take_the_tensor_parallel_gpus() -> None:
    folded = replace(D, expert_parallel=16, expert_tensor_parallel=1)
    assert setup_problem(folded.shape) is None and problems(folded, facts(QWEN)) == ()
    # without folding EP · tp = 64 does not tile the 16 GPUs
    plain = replace(D, expert_parallel=16)
    assert setup_problem(plain.shape) is SetupProblem.EXPERT_MESH
    assert [p.kind for p in problems(plain, facts(QWEN))] == [ProblemKind.EXPERTS_MESH]


def test_each_gpu_holds_experts_over_ep_times_expert_tp() -> None:
    experts = facts(QWEN).experts
    assert experts is not None
    # (EP 2 × expert TP 1: fewer ways than the dense weights' 4, half the experts each)
    for ep, etp in ((16, 1), (4, None), (4, 2), (8, 1), (2, 1)):
        d = replace(D, expert_parallel=ep, expert_tensor_parallel=etp)
        group = ep * (etp or D.tensor_parallel)
        assert abs(_held(d) - Fraction(experts.params, group)) <= 1, (ep, etp)
    # the same experts a GPU: the same model states, folded or not
    folded = plan(replace(D, expert_parallel=16, expert_tensor_parallel=1)).figures
    plain = plan(replace(D, expert_parallel=4)).figures
    assert folded.states is not None and plain.states is not None
    assert folded.states.gpu_bytes == plain.states.gpu_bytes


def test_the_all_to_all_crosses_nodes_with_a_group_wider_than_a_node() -> None:
    inside = plan(replace(D, expert_parallel=4, expert_tensor_parallel=2)).current
    across = plan(replace(D, expert_parallel=16, expert_tensor_parallel=1)).current
    assert inside is not None and inside.time is not None
    assert across is not None and across.time is not None
    # 8 GPUs of one node against 16 over two
    assert across.time.parts.expert_parallel > inside.time.parts.expert_parallel


def test_other_frameworks_split_the_experts_as_their_other_layers() -> None:
    deepspeed = replace(D, framework=Framework.DEEPSPEED, expert_parallel=4,
                        expert_tensor_parallel=1)  # fmt: skip
    assert [p.kind for p in problems(deepspeed, facts(QWEN))] == [ProblemKind.EXPERTS_TENSOR]
    counted = replace(deepspeed, expert_tensor_parallel=None)
    assert _held(deepspeed) == _held(counted)


def test_megatrons_arguments_carry_it_when_given() -> None:
    folded = replace(D, expert_parallel=16, expert_tensor_parallel=1)
    files = export_description(ExportFormat.MEGATRON, folded, folded.setup(1, 64)).files
    assert "--expert-tensor-parallel-size 1" in files["megatron_args.sh"]
    plain = replace(D, expert_parallel=4)
    files = export_description(ExportFormat.MEGATRON, plain, plain.setup(1, 64)).files
    assert "--expert-tensor-parallel-size" not in files["megatron_args.sh"]
