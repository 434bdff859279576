"""The description checks itself: each problem has a case that raises it and one just
inside it, and the plan and its JSON carry them."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights, Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import cpu_fits, plan
from gradacc_desktop.core.training.problems import FIELD, ProblemKind, problems

TABLE = load_gpu_table()
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"),
    seq_len=4096,
    card=TABLE.by_id("h100-80gb"),
    gpus=4,
    target_batch=64,
)
MIXTRAL = replace(LLAMA, model=ModelSpec.bundled("mixtral-8x7b"))
T5 = replace(LLAMA, model=ModelSpec.bundled("t5-base"), seq_len=512)
GPT2 = replace(LLAMA, model=ModelSpec.bundled("gpt2"), seq_len=1024)

#: each kind: (a description that has it, the one just inside it)
CASES: dict[ProblemKind, tuple[TrainingDescription, TrainingDescription]] = {
    ProblemKind.FP8_PRECISION: (
        replace(LLAMA, fp8=True, precision=Precision.FP32),
        replace(LLAMA, fp8=True, precision=Precision.BF16),
    ),
    ProblemKind.FP8_CARD: (
        replace(LLAMA, fp8=True, card=TABLE.by_id("a100-80gb")),
        replace(LLAMA, fp8=True),
    ),
    ProblemKind.FLASH_CARD: (
        replace(LLAMA, attention=AttentionKernel.FLASH, card=TABLE.by_id("a100-80gb")),
        replace(LLAMA, attention=AttentionKernel.FLASH),
    ),
    ProblemKind.VIRTUAL_STAGES: (
        replace(LLAMA, virtual_stages=2),
        replace(LLAMA, virtual_stages=2, pipeline_stages=2),
    ),
    ProblemKind.SEQUENCE_PARALLEL: (
        replace(LLAMA, sequence_parallel=True),
        replace(LLAMA, sequence_parallel=True, tensor_parallel=2),
    ),
    # Megatron's overlap needs sequence parallelism over 2+ tensor-parallel GPUs
    ProblemKind.TP_COMM_OVERLAP: (
        replace(LLAMA, tp_comm_overlap=True, tensor_parallel=2, sequence_parallel=True),
        replace(
            LLAMA,
            tp_comm_overlap=True,
            tensor_parallel=2,
            sequence_parallel=True,
            framework=Framework.MEGATRON,
        ),
    ),
    # bf16 gradients are Megatron's switch, in bf16 training
    ProblemKind.GRAD_REDUCE_BF16: (
        replace(LLAMA, grad_reduce_bf16=True),
        replace(LLAMA, grad_reduce_bf16=True, framework=Framework.MEGATRON),
    ),
    ProblemKind.FUSED_LOSS_MEGATRON: (
        replace(LLAMA, fused_loss=True, framework=Framework.MEGATRON),
        replace(LLAMA, fused_loss=True, framework=Framework.FSDP),
    ),
    ProblemKind.FUSED_LOSS_HEAD: (
        replace(T5, fused_loss=True),  # an encoder-decoder's head
        replace(GPT2, fused_loss=True),
    ),
    ProblemKind.MASTER_PRECISION: (
        replace(LLAMA, master_weights=MasterWeights.NONE, precision=Precision.FP16),
        replace(LLAMA, master_weights=MasterWeights.FP32, precision=Precision.FP16),
    ),
    ProblemKind.MASTER_DEEPSPEED: (
        replace(LLAMA, master_weights=MasterWeights.NONE),
        replace(LLAMA, master_weights=MasterWeights.BF16),
    ),
    ProblemKind.RECOMPUTE_PER_OP: (
        replace(LLAMA, recompute=Recompute.SELECTIVE_OP),
        replace(LLAMA, recompute=Recompute.SELECTIVE_OP, framework=Framework.FSDP),
    ),
    ProblemKind.RECOMPUTE_PER_OP_MODEL: (
        replace(GPT2, recompute=Recompute.SELECTIVE_OP, framework=Framework.FSDP),
        replace(GPT2, recompute=Recompute.FULL, framework=Framework.FSDP),
    ),
    ProblemKind.MASTER_FSDP: (
        replace(LLAMA, master_weights=MasterWeights.BF16, framework=Framework.FSDP),
        replace(LLAMA, master_weights=MasterWeights.NONE, framework=Framework.FSDP),
    ),
    ProblemKind.MASTER_MEGATRON: (
        replace(LLAMA, master_weights=MasterWeights.BF16, framework=Framework.MEGATRON),
        replace(LLAMA, framework=Framework.MEGATRON),
    ),
    ProblemKind.UNEVEN_NODES: (replace(LLAMA, nodes=3), replace(LLAMA, nodes=2)),
    ProblemKind.OFFLOAD_NEEDS_ZERO: (
        replace(LLAMA, offload=Offload.OPTIMIZER),
        replace(LLAMA, offload=Offload.OPTIMIZER, zero_stage=ZeroStage.OPTIMIZER),
    ),
    ProblemKind.PARAMETER_OFFLOAD_NEEDS_ZERO3: (
        replace(LLAMA, offload=Offload.ALL, zero_stage=ZeroStage.GRADIENTS),
        replace(LLAMA, offload=Offload.ALL, zero_stage=ZeroStage.WEIGHTS),
    ),
    ProblemKind.EXPERTS_NOT_MOE: (replace(LLAMA, expert_parallel=2), LLAMA),
    ProblemKind.EXPERTS_SPLIT: (
        replace(MIXTRAL, gpus=6, expert_parallel=3),  # 8 experts
        replace(MIXTRAL, gpus=4, expert_parallel=4),
    ),
    ProblemKind.EXPERTS_DATA: (
        replace(MIXTRAL, gpus=6, expert_parallel=4),
        replace(MIXTRAL, gpus=8, expert_parallel=4),
    ),
    # Megatron folds EP × expert tp into a stage's tp · cp · dp GPUs (here 2 · 2 = 4)
    ProblemKind.EXPERTS_MESH: (
        replace(
            MIXTRAL,
            framework=Framework.MEGATRON,
            tensor_parallel=2,
            gpus=2,
            expert_parallel=8,
            expert_tensor_parallel=1,
        ),
        replace(
            MIXTRAL,
            framework=Framework.MEGATRON,
            tensor_parallel=2,
            gpus=2,
            expert_parallel=4,
            expert_tensor_parallel=1,
        ),
    ),
    ProblemKind.EXPERTS_TENSOR: (
        replace(MIXTRAL, tensor_parallel=2, gpus=2, expert_tensor_parallel=1),
        replace(MIXTRAL, tensor_parallel=2, gpus=2, expert_tensor_parallel=2),
    ),
    ProblemKind.CONTEXT_SPLIT: (
        replace(LLAMA, seq_len=4098, context_parallel=2),  # not 4 equal chunks
        replace(LLAMA, seq_len=4104, context_parallel=2),
    ),
    ProblemKind.IMAGES: (replace(LLAMA, images=1), LLAMA),
    ProblemKind.TARGET_SEQ: (replace(LLAMA, target_seq=128), replace(T5, target_seq=128)),
    ProblemKind.SEQ_TOO_LONG: (replace(GPT2, seq_len=1025), GPT2),
}


def _kinds(d: TrainingDescription) -> list[ProblemKind]:
    return [p.kind for p in problems(d, None if d.model is None else facts(d.model))]


def test_every_kind_has_a_case_and_an_input() -> None:
    assert set(CASES) == set(ProblemKind) == set(FIELD)


@pytest.mark.parametrize("kind", list(ProblemKind), ids=lambda k: k.value)
def test_each_problem_is_raised_by_its_case_only(kind: ProblemKind) -> None:
    has, inside = CASES[kind]
    assert kind in _kinds(has)
    assert kind not in _kinds(inside)
    (problem,) = [p for p in problems(has, facts(has.model)) if p.kind is kind]  # type: ignore[arg-type]
    assert problem.as_dict() == {
        "framework": None,
        "rule": kind.value,
        "message": str(problem.message),
    }
    assert problem.message.endswith(".")


def test_the_default_description_has_none() -> None:
    assert _kinds(LLAMA) == []
    assert problems(TrainingDescription(), None) == ()


def test_the_plan_carries_them_and_the_cpu_figures(capsys: pytest.CaptureFixture[str]) -> None:
    p = plan(replace(LLAMA, fp8=True, card=TABLE.by_id("a100-80gb"), zero_stage=ZeroStage.WEIGHTS))
    assert [x.kind for x in p.problems] == [ProblemKind.FP8_CARD]
    # the time cannot be given: the card has no FP8 peak, and the problem says why
    assert p.current is not None and p.current.time is None
    flags = [
        "--model",
        "llama-3.1-8b",
        "--seq-len",
        "4096",
        "--gpu-card",
        "a100-80gb",
        "--gpus",
        "4",
        "--fp8",
        "--target-batch",
        "64",
        "--zero-stage",
        "3",
        "--offload",
        "optimizer",
        "--json",
    ]
    assert main(["plan", *flags]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert data["problems"] == [
        {"framework": None, "rule": "fp8_card", "message": str(p.problems[0].message)}
    ]
    offloaded = plan(
        replace(LLAMA, card=TABLE.by_id("a100-80gb"), fp8=True, zero_stage=ZeroStage.WEIGHTS,
                offload=Offload.OPTIMIZER)
    )  # fmt: skip
    assert data["cpu_bytes_per_node"] == offloaded.cpu_bytes_per_node > 0
    assert data["cpu_fits"] is None


def test_cpu_fits_compares_decimal_gb() -> None:
    assert cpu_fits(None, Decimal(1)) is None
    assert cpu_fits(10**9, None) is None
    assert cpu_fits(10**9, Decimal(1)) is True
    assert cpu_fits(10**9 + 1, Decimal(1)) is False
    p = plan(replace(LLAMA, zero_stage=ZeroStage.WEIGHTS, offload=Offload.OPTIMIZER))
    need = p.cpu_bytes_per_node
    assert need is not None and need > 0
    below = plan(replace(p.description, cpu_memory_gb=Decimal(need - 1) / 10**9))
    above = plan(replace(p.description, cpu_memory_gb=Decimal(need) / 10**9))
    assert (below.cpu_fits, above.cpu_fits) == (False, True)


def test_flash_attention_3_and_4_run_on_hopper_and_blackwell_only() -> None:
    """Before Hopper the flash-attn package's kernel is FlashAttention 2: a problem says
    so, and the plan times it as the fused kernels (the same step as SDPA)."""
    flash = replace(LLAMA, attention=AttentionKernel.FLASH)
    assert plan(replace(flash, card=TABLE.by_id("b200-180gb"))).problems == ()
    ampere = replace(flash, card=TABLE.by_id("a100-80gb"))
    (problem,) = plan(ampere).problems
    assert problem.field == "attention" and str(problem.message) == (
        "FlashAttention 3 and 4 run on Hopper and Blackwell: on the NVIDIA A100 SXM4 80GB the "
        "flash-attn package's kernel is FlashAttention 2, timed as the fused kernels (SDPA)."
    )
    sdpa = plan(replace(ampere, attention=AttentionKernel.SDPA))
    assert [p.time for p in plan(ampere).pairs] == [p.time for p in sdpa.pairs]


def test_megatron_s_fused_attention_is_cudnn_s_flash_kernel_from_hopper_on() -> None:
    """Transformer Engine runs cuDNN's flash attention on Hopper and later: under
    Megatron the fused kernel is timed as FlashAttention 3/4 there, with no problem to
    say; DeepSpeed's fused kernel stays SDPA / FlashAttention 2, slower."""

    def steps(d: TrainingDescription) -> list[Any]:
        return [p.time for p in plan(d).pairs]

    for card in ("h100-80gb", "b200-180gb"):
        on = replace(LLAMA, card=TABLE.by_id(card), seq_len=8192)
        megatron = replace(on, framework=Framework.MEGATRON)
        assert plan(megatron).problems == ()
        assert steps(megatron) == steps(replace(megatron, attention=AttentionKernel.FLASH))
        assert steps(on) != steps(replace(on, attention=AttentionKernel.FLASH))


def test_megatron_s_tp_comm_overlap_hides_the_tensor_parallel_traffic_in_the_products() -> None:
    """--tp-comm-overlap: the all-gathers and reduce-scatters of sequence parallelism run
    inside the products they feed; what shows is only their excess, and nothing changes
    where the overlap cannot run (no sequence parallelism: a problem says so)."""
    on = replace(
        LLAMA,
        framework=Framework.MEGATRON,
        tensor_parallel=8,
        gpus=1,
        sequence_parallel=True,
        card=TABLE.by_id("h100-80gb"),
        seq_len=8192,
        micro_batch=8,  # the GPU's work, not the host's, sets the micro-step
    )
    # NVLink: all of it hides; a slow link (5 GB/s): its excess over the products shows
    for link, shows in ((None, False), (Decimal(5), True)):
        plain = plan(replace(on, link_gbps=link)).current
        hidden = plan(replace(on, link_gbps=link, tp_comm_overlap=True)).current
        assert plain is not None and hidden is not None
        assert plain.time is not None and hidden.time is not None
        before, after = plain.time.parts, hidden.time.parts
        assert after.tensor_parallel < before.tensor_parallel
        assert after.tensor_parallel == max(0, before.tensor_parallel - before.matmul)
        assert (after.tensor_parallel > 0) is shows
        assert hidden.time.step_seconds == plain.time.step_seconds - (
            before.tensor_parallel - after.tensor_parallel
        )
    # without sequence parallelism Megatron refuses the flag: the time stays
    refused = replace(on, sequence_parallel=False, tp_comm_overlap=True)
    assert [p.time for p in plan(refused).pairs] == [
        p.time for p in plan(replace(refused, tp_comm_overlap=False)).pairs
    ]


def test_megatron_s_arguments_carry_the_overlap_only_where_it_runs() -> None:
    from gradacc_desktop.core.frameworks.export import ExportFormat
    from gradacc_desktop.core.training.exports import export_description

    on = replace(
        LLAMA,
        framework=Framework.MEGATRON,
        tensor_parallel=2,
        sequence_parallel=True,
        tp_comm_overlap=True,
    )
    args = export_description(ExportFormat.MEGATRON, on, on.setup(1, 8)).files
    text = args["megatron_args.sh"]
    assert "  --tp-comm-overlap\n" in text and "  --sequence-parallel\n" in text
    off = replace(on, sequence_parallel=False)  # Megatron-LM would refuse the flag
    text = export_description(ExportFormat.MEGATRON, off, off.setup(1, 8)).files["megatron_args.sh"]
    assert "--tp-comm-overlap" not in text and "--sequence-parallel" not in text


def test_megatron_s_arguments_carry_bf16_gradients_only_in_bf16_training() -> None:
    from gradacc_desktop.core.frameworks.export import ExportFormat
    from gradacc_desktop.core.training.exports import export_description

    on = replace(LLAMA, framework=Framework.MEGATRON, grad_reduce_bf16=True)
    text = export_description(ExportFormat.MEGATRON, on, on.setup(1, 8)).files["megatron_args.sh"]
    assert "  --grad-reduce-in-bf16\n" in text and "  --bf16\n" in text
    fp16 = replace(on, precision=Precision.FP16)
    text = export_description(ExportFormat.MEGATRON, fp16, fp16.setup(1, 8)).files[
        "megatron_args.sh"
    ]
    assert "--grad-reduce-in-bf16" not in text


def test_megatron_s_bf16_gradients_halve_its_gradient_buffer_and_their_reduction() -> None:
    """--grad-reduce-in-bf16: Megatron keeps its gradient buffer in bf16, 2 bytes a
    parameter instead of 4, and reduces it in bf16; nothing else changes, and nothing at
    all in fp16 training (a problem says so)."""
    on = replace(
        LLAMA,
        framework=Framework.MEGATRON,
        gpus=8,
        zero_stage=ZeroStage.OPTIMIZER,
        card=TABLE.by_id("h100-80gb"),
        micro_batch=1,
        nodes=2,
    )
    fp32, bf16 = plan(on), plan(replace(on, grad_reduce_bf16=True))
    assert bf16.problems == ()
    params = fp32.figures.facts.params if fp32.figures.facts is not None else 0
    assert fp32.figures.states.gpu_bytes - bf16.figures.states.gpu_bytes == 2 * params
    before, after = fp32.current, bf16.current
    assert before is not None and after is not None
    assert before.time is not None and after.time is not None
    assert after.time.parts.data_parallel < before.time.parts.data_parallel
    fp16 = replace(on, precision=Precision.FP16)
    asked = replace(fp16, grad_reduce_bf16=True)
    assert [p.kind for p in plan(asked).problems] == [ProblemKind.GRAD_REDUCE_BF16]
    assert plan(asked).figures.states == plan(fp16).figures.states


def test_more_gpus_in_a_node_than_a_server_holds_is_said_beside_the_plan() -> None:
    from gradacc_desktop.core.memory.setup import SetupNote

    # 32 GPUs on 2 nodes: 16 a node, twice an HGX board; 4 nodes of 8 say nothing
    assert plan(replace(LLAMA, gpus=32, nodes=2)).notes == (SetupNote.LARGE_NODE,)
    assert plan(replace(LLAMA, gpus=32, nodes=4)).notes == ()
    # "with more GPUs" spreads the added GPUs over servers of 8: 8 GPUs of one node,
    # ZeRO-1, become 16 on two nodes
    from gradacc_desktop.core.training.alternatives import Change, alternatives

    full = replace(LLAMA, gpus=8, nodes=1, zero_stage=ZeroStage.OPTIMIZER)
    assert plan(full).fits is False
    (more,) = [a.description for a in alternatives(full, TABLE.cards) if a.change is Change.GPUS]
    assert (more.world, more.nodes) == (16, 2) and plan(more).notes == ()
