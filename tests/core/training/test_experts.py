"""Expert parallelism end to end in the core: a mixture of experts' routed experts spread
over ``EP`` GPUs of the data-parallel group — the memory each GPU holds, the all-to-alls
and the data-parallel traffic of the time model, the search and the exports."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from gradacc_desktop.core.frameworks.export import ExportFormat, export, megatron_arguments
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.setup import Offload, SetupProblem, setup_problem
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.communication import CollectiveKind, What, When
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import (
    ExpertProblem,
    TrainingDescription,
    expert_problem,
)
from gradacc_desktop.core.training.figures import Missing, figures
from gradacc_desktop.core.training.plan import TimeMissing, plan
from gradacc_desktop.core.training.search import Blocked, search

H100 = load_gpu_table().by_id("h100-80gb")
MIXTRAL = TrainingDescription(
    model=ModelSpec.bundled("mixtral-8x7b"), seq_len=4096, card=H100, gpus=8,
    target_batch=64, micro_batch=1, zero_stage=ZeroStage.OPTIMIZER,
)  # fmt: skip
QWEN = replace(
    MIXTRAL, model=ModelSpec.bundled("qwen3-30b-a3b"), gpus=16, nodes=2, target_batch=256,
    recompute=Recompute.FULL, micro_batch=2,
)  # fmt: skip
P = 46_702_792_704  # Mixtral-8x7B's parameters
X = 32 * 8 * 3 * 4096 * 14_336  # its routed experts: 32 layers of 8 experts of 3 h x m


def test_the_catalogue_knows_the_routed_experts() -> None:
    mixtral = facts(ModelSpec.bundled("mixtral-8x7b"))
    assert mixtral.experts is not None
    assert (mixtral.experts.experts, mixtral.experts.top_k) == (8, 2)
    assert mixtral.experts.sparse_layers == 32 and mixtral.experts.params == X
    # ZeRO-3 gathers one layer's fused experts; spread 8 ways the embedding is larger
    assert mixtral.largest_layer == mixtral.experts.largest_layer() == X // 32
    assert mixtral.experts.largest_layer(8) == X // 32 // 8
    assert mixtral.experts.largest_layer(64 // 8) < mixtral.experts.largest_layer(2)
    qwen = facts(ModelSpec.bundled("qwen3-30b-a3b")).experts
    assert qwen is not None and (qwen.experts, qwen.top_k, qwen.sparse_layers) == (128, 8, 48)
    assert facts(ModelSpec.bundled("llama-3.1-8b")).experts is None


# --------------------------------------------------------------------------- memory


def test_each_gpu_holds_its_dense_shard_and_one_ep_th_of_the_experts() -> None:
    one = figures(MIXTRAL).states
    eight = figures(replace(MIXTRAL, expert_parallel=8)).states
    assert one is not None and eight is not None
    # ZeRO-1: 16-bit weights and gradients whole (4 bytes per parameter held), the
    # optimizer side partitioned: P/8 either way (dense over 8, experts over 8/8)
    assert one.gpu_bytes == 4 * P + 16 * P // 8
    assert eight.gpu_bytes == 4 * (P - X + X // 8) + 16 * P // 8
    assert one.from_deepspeed is False and eight.expert_parallel == 8
    two = figures(replace(MIXTRAL, expert_parallel=2)).states
    assert two is not None and eight.gpu_bytes < two.gpu_bytes < one.gpu_bytes


@pytest.mark.parametrize("offload", [Offload.NONE, Offload.OPTIMIZER])
def test_zero2_partitions_are_unchanged_and_the_weights_shrink(offload: Offload) -> None:
    d = replace(MIXTRAL, zero_stage=ZeroStage.GRADIENTS, offload=offload)
    one, four = figures(d).states, figures(replace(d, expert_parallel=4)).states
    assert one is not None and four is not None
    assert one.gpu_bytes - four.gpu_bytes == 2 * (X - X // 4)


def test_zero3_gathers_a_smaller_largest_layer() -> None:
    d = replace(MIXTRAL, zero_stage=ZeroStage.WEIGHTS)
    one, eight = figures(d).states, figures(replace(d, expert_parallel=8)).states
    assert one is not None and eight is not None
    assert one.largest_layer == X // 32 and eight.largest_layer == X // 32 // 8
    # the partitions are P/N with or without expert parallelism: only the gathered
    # layer changes (4 bytes per parameter: 16-bit weights and gradients)
    assert one.gpu_bytes == 4 * (X // 32) + 18 * P // 8
    assert one.gpu_bytes - eight.gpu_bytes == 4 * (X // 32 - X // 32 // 8)


def test_expert_parallel_one_is_the_plan_as_before() -> None:
    d = replace(MIXTRAL, zero_stage=ZeroStage.WEIGHTS)
    assert figures(d).states == figures(replace(d, expert_parallel=1)).states
    states = figures(d).states
    assert states is not None and states.experts == 0 and states.expert_parallel == 1


def test_dense_models_and_bad_sizes_refuse_expert_parallelism() -> None:
    llama = replace(MIXTRAL, model=ModelSpec.bundled("llama-3.1-8b"), expert_parallel=2)
    llama_facts = facts(ModelSpec.bundled("llama-3.1-8b"))
    assert llama.expert_problem(llama_facts) is ExpertProblem.NOT_MOE
    assert figures(llama).other.missing is Missing.LAYOUT
    assert plan(llama).time_missing is TimeMissing.LAYOUT
    mixtral_facts = facts(ModelSpec.bundled("mixtral-8x7b"))
    assert expert_problem(3, mixtral_facts) is ExpertProblem.EXPERTS  # 8 experts
    assert expert_problem(16, mixtral_facts) is ExpertProblem.EXPERTS
    assert expert_problem(8, mixtral_facts) is None and expert_problem(1, llama_facts) is None
    # it must divide the data-parallel GPUs: the setup's rule
    uneven = replace(MIXTRAL, gpus=6, target_batch=60, expert_parallel=4)
    assert setup_problem(uneven.shape) is SetupProblem.EXPERT_PARALLEL_DATA
    p = plan(uneven)
    assert p.figures.other.missing is Missing.LAYOUT and p.setup is None
    assert p.time_missing is TimeMissing.LAYOUT


# --------------------------------------------------------------------------- time


def _kinds(d: TrainingDescription) -> set[tuple[CollectiveKind, int]]:
    model = plan(d).step_model
    assert model is not None
    return {(c.kind, c.ranks) for c in model.collectives(1)}


def test_the_all_to_all_appears_only_with_expert_parallelism_on_moe_shapes() -> None:
    one, eight = plan(QWEN), plan(replace(QWEN, expert_parallel=8))
    assert one.current is not None and one.current.time is not None
    assert eight.current is not None and eight.current.time is not None
    assert one.current.time.parts.expert_parallel == 0
    assert eight.current.time.parts.expert_parallel > 0
    assert (CollectiveKind.ALL_TO_ALL, 8) in _kinds(replace(QWEN, expert_parallel=8))
    assert not any(kind is CollectiveKind.ALL_TO_ALL for kind, _ in _kinds(QWEN))
    dense = replace(QWEN, model=ModelSpec.bundled("llama-3.1-8b"))
    assert not any(kind is CollectiveKind.ALL_TO_ALL for kind, _ in _kinds(dense))
    # inside a node (8 x 1 GPUs), then across the two nodes (16)
    model = plan(replace(QWEN, expert_parallel=16)).step_model
    assert model is not None
    (exchange,) = (c for c in model.collectives(1) if c.kind is CollectiveKind.ALL_TO_ALL)
    assert not exchange.intra_node and exchange.ranks == 16
    model = plan(replace(QWEN, expert_parallel=8)).step_model
    assert model is not None
    (inside,) = (c for c in model.collectives(1) if c.kind is CollectiveKind.ALL_TO_ALL)
    assert inside.intra_node
    # 6 per sparse layer with the forward recomputed, each of top_k · b·s·h 16-bit values
    assert inside.count == 6 * 48 and inside.size == 8 * 1 * 4096 * 2048 * 2


def test_the_experts_gradients_are_reduced_over_dp_over_ep_replicas() -> None:
    d = replace(QWEN, zero_stage=ZeroStage.NONE)
    experts = facts(ModelSpec.bundled("qwen3-30b-a3b")).experts
    assert experts is not None
    one = plan(d).step_model
    eight = plan(replace(d, expert_parallel=8)).step_model
    assert one is not None and eight is not None
    w1, w8 = one.workload, eight.workload
    # a GPU holds (and reads) every expert at EP = 1, an eighth of them at EP = 8
    active = Fraction(experts.params * 8, 128)
    n = w1.cost.params
    assert w1.params_per_gpu == n - active + experts.params
    assert w8.params_per_gpu == n - active + Fraction(experts.params, 8)
    assert w8.expert_params_per_gpu == Fraction(experts.params, 8)
    (whole,) = one.collectives(1)[:1]
    assert (whole.kind, whole.ranks, whole.size) == (
        CollectiveKind.ALL_REDUCE,
        16,
        2 * w1.params_per_gpu,
    )
    grads = [c for c in eight.collectives(1) if c.what is What.GRADIENTS]
    assert [(c.kind, c.when, c.ranks) for c in grads] == [
        (CollectiveKind.ALL_REDUCE, When.OPTIMIZER_STEP, 16),  # the dense weights over dp
        (CollectiveKind.ALL_REDUCE, When.OPTIMIZER_STEP, 2),  # each GPU's experts over dp / EP
    ]
    dense_bytes = 2 * (w8.params_per_gpu - w8.expert_params_per_gpu)
    assert grads[0].size == dense_bytes and grads[1].size == 2 * w8.expert_params_per_gpu
    # spread over all 16 replicas, nothing is left to reduce
    sixteen = plan(replace(d, expert_parallel=16)).step_model
    assert sixteen is not None
    assert [c.ranks for c in sixteen.collectives(1) if c.what is What.GRADIENTS] == [16]


def test_zero_partitions_the_experts_over_their_own_replicas() -> None:
    d = replace(QWEN, zero_stage=ZeroStage.WEIGHTS)
    one, eight = plan(d).step_model, plan(replace(d, expert_parallel=8)).step_model
    assert one is not None and eight is not None
    # the optimizer updates P/dp either way: the experts are partitioned 8 times less
    assert one.time(2, 8).optimizer_seconds == eight.time(2, 8).optimizer_seconds
    gathers = [c for c in eight.collectives(1) if c.what is What.WEIGHTS]
    assert [(c.ranks, c.count) for c in gathers] == [(16, 2), (2, 2)]


# --------------------------------------------------------------------------- search, exports


def test_the_search_keeps_the_expert_parallel_size_where_it_divides_dp() -> None:
    d = replace(QWEN, expert_parallel=8, micro_batch=None)
    result = search(d, 16)
    assert result.best is not None and result.best.expert_parallel == 8
    assert all(c.expert_parallel == 8 for c in result.ranking)
    applied = result.applied()
    assert applied is not None and applied.expert_parallel == 8
    p = plan(applied)
    assert p.current is not None and p.current.time is not None and result.best.step
    assert p.current.time.step_seconds == result.best.step.step_seconds
    assert p.current.time.parts.expert_parallel > 0
    # 16 GPUs as 4 data x 4 tensor: 8 does not divide 4 data-parallel GPUs
    narrowed = search(d, 16, tensor_parallel=(4,), pipeline_stages=(1,))
    assert narrowed.best is None
    for exclusion in narrowed.exclusions:
        assert exclusion.refusals == () and exclusion.blocked in ((), (Blocked.EXPERT_PARALLEL,))
    assert any(Blocked.EXPERT_PARALLEL in e.blocked for e in narrowed.exclusions)


def test_megatron_carries_the_expert_parallel_size_and_the_rest_say_why_not() -> None:
    setup = replace(QWEN, expert_parallel=8).setup(2, 8)
    assert setup.expert_parallel == 8
    assert "--expert-model-parallel-size 8" in megatron_arguments(setup)
    assert not any("expert" in a for a in megatron_arguments(QWEN.setup(2, 8)))
    megatron = export(ExportFormat.MEGATRON, setup)
    assert "--expert-model-parallel-size 8" in megatron.files["megatron_args.sh"]
    assert any("--expert-model-parallel-size" in n for n in megatron.english_notes)
    deepspeed = export(ExportFormat.DEEPSPEED, setup)
    assert any("ep_size=8" in n for n in deepspeed.english_notes)
    for fmt in (ExportFormat.HF, ExportFormat.ACCELERATE, ExportFormat.TORCHRUN):
        exported = export(fmt, setup)
        assert any("8-way expert parallelism" in n for n in exported.english_notes), fmt
        assert "# asked for: " in exported.text and "expert parallel" in exported.text
    # ZeRO-3: DeepSpeed's own MoE layers refuse it
    zero3 = replace(setup, zero_stage=ZeroStage.WEIGHTS)
    assert any("refuse ZeRO-3" in n for n in export(ExportFormat.DEEPSPEED, zero3).english_notes)
    # without expert parallelism nothing changes
    for fmt in ExportFormat:
        assert export(fmt, QWEN.setup(2, 8)).notes == ()
