"""The parallel layout of each export, read by the framework itself (no GPUs, no network).

World sizes are simulated: DeepSpeed's ``dist`` answers the world size the launch line
starts, megatron-core's calculator and rank generator are given the sizes Megatron-LM
derives from its arguments, the Trainer is told its world size, and Lightning builds
its ``ModelParallelStrategy`` on the CPU accelerator.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.frameworks.rules import Rule
from gradacc_desktop.core.memory.setup import Precision, TrainingSetup, setup_problem
from gradacc_desktop.core.memory.zero import ZeroStage
from tests.trainers.files import write_export

LAYOUTS = [
    TrainingSetup(b, a, g, nodes=n, zero_stage=ZeroStage(z), tensor_parallel=t, pipeline_stages=p)
    for (b, a, g, n, t, p, z) in [
        (2, 4, 4, 1, 2, 1, 0),
        (3, 5, 4, 2, 4, 1, 2),
        (1, 8, 2, 4, 8, 2, 1),
        (4, 2, 6, 3, 1, 4, 1),
        (2, 3, 8, 8, 8, 4, 3),
    ]
]
assert all(setup_problem(s) is None for s in LAYOUTS)


def _id(s: TrainingSetup) -> str:
    return (
        f"b{s.micro_batch}a{s.accumulation_steps}dp{s.gpus}tp{s.tensor_parallel}"
        f"pp{s.pipeline_stages}n{s.nodes}z{int(s.zero_stage)}"
    )


def _launched(launch: str) -> int:
    """Processes the launch line starts: --nnodes x --nproc_per_node."""
    nodes = int(re.search(r"--nnodes (\d+)", launch).group(1))  # type: ignore[union-attr]
    per_node = int(re.search(r"--nproc_per_node (\d+)", launch).group(1))  # type: ignore[union-attr]
    return nodes * per_node


def _deepspeed_config(config: Any, monkeypatch: pytest.MonkeyPatch, world: int, mpu: Any = None):  # type: ignore[no-untyped-def]
    import deepspeed.runtime.config as ds_config

    monkeypatch.setattr(ds_config.dist, "get_rank", lambda *a, **k: 0)
    monkeypatch.setattr(ds_config.dist, "get_world_size", lambda *a, **k: world)
    return ds_config.DeepSpeedConfig(config, mpu=mpu)


# --------------------------------------------------------------------------- Megatron


@pytest.mark.parametrize("setup", LAYOUTS, ids=_id)
def test_megatron_reads_the_layout(setup: TrainingSetup, in_tmp: Path) -> None:
    import torch
    from megatron.core import num_microbatches_calculator as calc
    from megatron.core.model_parallel_config import ModelParallelConfig
    from megatron.core.parallel_state import RankGenerator

    files = write_export(ExportFormat.MEGATRON, setup, in_tmp)
    text = files["megatron_args.sh"]
    body = text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")]
    args = shlex.split(body)
    values = dict(itertools.pairwise(args))
    tp = int(values["--tensor-model-parallel-size"])
    pp = int(values["--pipeline-model-parallel-size"])
    world = _launched(files["launch.sh"])
    assert (tp, pp, world) == (setup.tensor_parallel, setup.pipeline_stages, setup.world)
    # Megatron-LM: data_parallel_size = world_size // (tp * pp * cp)
    assert world % (tp * pp) == 0
    dp = world // (tp * pp)
    assert dp == setup.gpus
    micro, global_batch = int(values["--micro-batch-size"]), int(values["--global-batch-size"])
    calc.destroy_num_microbatches_calculator()
    calc.init_num_microbatches_calculator(0, None, global_batch, micro, dp)
    try:
        assert calc.get_num_microbatches() == setup.accumulation_steps
        assert calc.get_current_global_batch_size() == setup.effective_batch
    finally:
        calc.destroy_num_microbatches_calculator()
    config = ModelParallelConfig(
        tensor_model_parallel_size=tp,
        pipeline_model_parallel_size=pp,
        sequence_parallel="--sequence-parallel" in args,
        pipeline_dtype=torch.bfloat16 if pp > 1 else None,
    )
    assert config.sequence_parallel is (tp > 1)
    # megatron-core's own rank order: each tensor-parallel group inside one node
    ranks = RankGenerator(tp=tp, ep=1, dp=dp, pp=pp, cp=1, order="tp-cp-ep-dp-pp")
    assert ranks.world_size == world
    for group in ranks.get_ranks("tp"):
        assert len({r // setup.gpus_per_node for r in group}) == 1, group
    assert len(ranks.get_ranks("dp")) == tp * pp
    assert all(len(g) == dp for g in ranks.get_ranks("dp"))


#: (b, a, dp, nodes, tp, pp, ep): expert-parallel groups inside a node and across nodes
EXPERT_LAYOUTS = [
    TrainingSetup(b, a, g, nodes=n, tensor_parallel=t, pipeline_stages=p, expert_parallel=e)
    for (b, a, g, n, t, p, e) in [
        (2, 4, 8, 1, 1, 1, 8),
        (1, 4, 8, 2, 2, 1, 4),
        (1, 8, 16, 4, 2, 2, 4),
        (2, 2, 8, 2, 1, 1, 8),
        (1, 8, 4, 2, 2, 2, 2),
        (1, 2, 8, 2, 4, 1, 4),
        (1, 2, 8, 4, 2, 1, 8),
    ]
]
assert all(setup_problem(s) is None for s in EXPERT_LAYOUTS)


def _expert_id(s: TrainingSetup) -> str:
    return f"{_id(s)}ep{s.expert_parallel}"


@pytest.mark.parametrize("setup", EXPERT_LAYOUTS, ids=_expert_id)
def test_megatron_reads_the_expert_parallel_size(setup: TrainingSetup, in_tmp: Path) -> None:
    import torch
    from megatron.core.parallel_state import RankGenerator
    from megatron.core.transformer.transformer_config import TransformerConfig

    from gradacc_desktop.core.precision import Precision
    from gradacc_desktop.core.time.communication import CollectiveKind
    from gradacc_desktop.core.time.compute import token_cost
    from gradacc_desktop.core.time.gpus import load_gpu_table
    from gradacc_desktop.core.time.hardware import hardware
    from gradacc_desktop.core.time.layout import ParallelLayout
    from gradacc_desktop.core.time.steptime import StepModel
    from gradacc_desktop.core.time.workload import Experts, Workload

    files = write_export(ExportFormat.MEGATRON, setup, in_tmp)
    text = files["megatron_args.sh"]
    args = shlex.split(text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")])
    values = dict(itertools.pairwise(args))
    tp = int(values["--tensor-model-parallel-size"])
    pp = int(values["--pipeline-model-parallel-size"])
    ep = int(values["--expert-model-parallel-size"])
    world = _launched(files["launch.sh"])
    assert (tp, pp, ep, world) == (
        setup.tensor_parallel,
        setup.pipeline_stages,
        setup.expert_parallel,
        setup.world,
    )
    dp = world // (tp * pp)
    experts = 2 * ep
    # megatron-core takes the size with the experts the model arguments give
    config = TransformerConfig(
        num_layers=4 * pp,
        hidden_size=64,
        num_attention_heads=8,
        num_moe_experts=experts,
        moe_router_topk=2,
        add_bias_linear=False,  # Mixtral's and Qwen's experts have none
        tensor_model_parallel_size=tp,
        pipeline_model_parallel_size=pp,
        expert_model_parallel_size=ep,
        sequence_parallel="--sequence-parallel" in args,
        pipeline_dtype=torch.bfloat16 if pp > 1 else None,
    )
    assert config.expert_model_parallel_size == ep
    # initialize_model_parallel: the attention's generator, and the experts' with the
    # expert tensor-parallel size defaulting to tp and dp / ep expert data-parallel ranks
    order = "tp-cp-ep-dp-pp"
    dense = RankGenerator(tp=tp, ep=1, dp=dp, pp=pp, cp=1, order=order)
    expert = RankGenerator(tp=tp, ep=ep, dp=world // (tp * ep * pp), pp=pp, cp=1, order=order)
    assert expert.world_size == dense.world_size == world
    assert expert.get_ranks("pp") == dense.get_ranks("pp")
    data_groups = [set(g) for g in dense.get_ranks("dp")]
    groups = expert.get_ranks("ep")
    assert all(len(g) == ep for g in groups)
    # every expert-parallel group of E ranks sits inside one data-parallel group
    for group in groups:
        assert any(set(group) <= d for d in data_groups), group
    # the experts' gradients are reduced over dp / ep replicas, as the plan counts them
    assert all(len(g) == dp // ep for g in expert.get_ranks("dp"))
    # and the time model's rule for where the all-to-all runs: inside a node when
    # ep · tp divides the GPUs per node
    per_node = setup.gpus_per_node
    inside = all(len({r // per_node for r in group}) == 1 for group in groups)
    card = load_gpu_table().by_id("a100-80gb")
    job = Workload(
        cost=token_cost(10**9),
        seq_len=512,
        layout=ParallelLayout(setup.gpus, setup.tensor_parallel, setup.pipeline_stages),
        hidden=64,
        layers=4 * pp,
        experts=Experts(experts=experts, top_k=2, layers=4 * pp, parallel=ep),
    )
    model = StepModel(job, hardware(card, Precision.BF16, per_node))
    (exchange,) = (c for c in model.collectives(1) if c.kind is CollectiveKind.ALL_TO_ALL)
    assert exchange.intra_node is inside
    assert exchange.ranks == ep


# --------------------------------------------------------------------------- DeepSpeed


AUTOTP = [s for s in LAYOUTS if s.tensor_parallel > 1 and s.pipeline_stages == 1]
PIPELINE = [s for s in LAYOUTS if s.pipeline_stages > 1]


@pytest.mark.parametrize("setup", AUTOTP, ids=_id)
def test_deepspeed_autotp_config(setup: TrainingSetup, in_tmp: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    files = write_export(ExportFormat.DEEPSPEED, setup, in_tmp)
    world = _launched(files["launch.sh"])
    assert world == setup.world
    # deepspeed.initialize with AutoTP builds the config without an mpu: every process
    ds = _deepspeed_config(str(in_tmp / "ds_config.json"), monkeypatch, world)
    assert ds.tensor_parallel_config.autotp_size == setup.tensor_parallel
    assert ds.train_micro_batch_size_per_gpu == setup.micro_batch
    assert ds.gradient_accumulation_steps == setup.accumulation_steps
    assert ds.train_batch_size == setup.effective_batch * setup.tensor_parallel
    assert ds.zero_optimization_stage == int(setup.zero_stage)
    # why train_batch_size is left out: b·a·dp is refused at that world size
    config = json.loads(files["ds_config.json"])
    config["train_batch_size"] = setup.effective_batch
    with pytest.raises(AssertionError, match="train_batch_size is not equal"):
        _deepspeed_config(config, monkeypatch, world)


class _GridMpu:
    """What PipelineModule's grid tells DeepSpeed: the topology's data dimension."""

    def __init__(self, topology: Any) -> None:
        self.topology = topology

    def get_data_parallel_world_size(self) -> int:
        return int(self.topology.get_dim("data"))


@pytest.mark.parametrize("setup", PIPELINE, ids=_id)
def test_deepspeed_pipeline_config(setup: TrainingSetup, in_tmp: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from deepspeed.runtime.pipe.topology import PipeModelDataParallelTopology

    files = write_export(ExportFormat.DEEPSPEED, setup, in_tmp)
    world = _launched(files["launch.sh"])
    topology = PipeModelDataParallelTopology(
        num_pp=setup.pipeline_stages, num_mp=setup.tensor_parallel, num_dp=setup.gpus
    )
    assert topology.world_size() == world == setup.world
    ds = _deepspeed_config(
        str(in_tmp / "ds_config.json"), monkeypatch, world, mpu=_GridMpu(topology)
    )
    assert ds.train_batch_size == setup.effective_batch
    assert ds.gradient_accumulation_steps == setup.accumulation_steps
    assert ds.tensor_parallel_config.autotp_size == 0
    refuses = setup.zero_stage >= ZeroStage.GRADIENTS
    named = [r.rule for r in export(ExportFormat.DEEPSPEED, setup).refusals]
    assert named == ([Rule.PIPELINE_ZERO] if refuses else [])


# --------------------------------------------------------------------------- Hugging Face


@pytest.mark.parametrize("fmt", [ExportFormat.HF, ExportFormat.HF_DEEPSPEED], ids=lambda f: f.value)
@pytest.mark.parametrize("setup", LAYOUTS, ids=_id)
def test_trainer_reads_autotp(  # type: ignore[no-untyped-def]
    fmt: ExportFormat, setup: TrainingSetup, in_tmp: Path, monkeypatch
) -> None:
    import transformers.training_args as training_args
    from transformers import Trainer

    files = write_export(fmt, setup, in_tmp)
    world = _launched(files["launch.sh"])
    tp = setup.tensor_parallel
    # no pipeline in the Trainer: the files run dp x tp processes
    assert world == setup.gpus * tp
    monkeypatch.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)
    monkeypatch.setattr(training_args.TrainingArguments, "world_size", property(lambda s: world))
    namespace: dict[str, Any] = {"__name__": "exported"}
    exec(compile(files["train.py"], "train.py", "exec"), namespace)
    args = namespace["args"]
    if tp == 1:
        assert "ds_config.json" not in files or "autotp" not in files["ds_config.json"]
        return
    filled = args.hf_deepspeed_config.config
    assert filled["tensor_parallel"]["autotp_size"] == tp
    ds = _deepspeed_config(dict(filled), monkeypatch, world)
    assert ds.tensor_parallel_config.autotp_size == tp
    # the Trainer's own count of the batch: micro x steps x world // tp
    fake = SimpleNamespace(
        model=object(),
        is_deepspeed_enabled=True,
        args=args,
        accelerator=SimpleNamespace(),
        _train_batch_size=args.per_device_train_batch_size,
    )
    fake.get_tp_size = lambda: Trainer.get_tp_size(fake)  # type: ignore[attr-defined]
    fake.get_cp_size = lambda: 1  # type: ignore[attr-defined]
    fake.get_sp_size = lambda: 1  # type: ignore[attr-defined]
    assert Trainer.get_total_train_batch_size(fake, args) == setup.effective_batch  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Lightning


@pytest.mark.parametrize("setup", LAYOUTS, ids=_id)
def test_lightning_builds_model_parallel_strategy(setup: TrainingSetup, in_tmp: Path) -> None:
    import lightning as L
    from lightning.pytorch.strategies import DeepSpeedStrategy, ModelParallelStrategy

    files = write_export(ExportFormat.LIGHTNING, setup, in_tmp)
    tree = ast.parse(files["train.py"])
    call = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "trainer"
    )
    source = ast.unparse(call).replace("accelerator='auto'", "accelerator='cpu'")
    if setup.precision is Precision.BF16:
        source = source.replace("'bf16-mixed'", "'bf16-true'")  # no mixed bf16 on CPU here
    names = {
        "L": L,
        "DeepSpeedStrategy": DeepSpeedStrategy,
        "ModelParallelStrategy": ModelParallelStrategy,
    }
    trainer = eval(source, names)
    tp = setup.tensor_parallel
    assert trainer.num_nodes * trainer.num_devices == setup.gpus * tp
    assert trainer.accumulate_grad_batches == setup.accumulation_steps
    if tp > 1:
        strategy = trainer.strategy
        assert isinstance(strategy, ModelParallelStrategy)
        assert strategy._data_parallel_size == setup.gpus
        assert strategy._tensor_parallel_size == tp
        assert setup.gpus * tp == trainer.num_nodes * trainer.num_devices


# --------------------------------------------------------------------------- Accelerate


@pytest.mark.parametrize("setup", LAYOUTS, ids=_id)
def test_accelerate_runs_the_data_parallel_part(setup: TrainingSetup, in_tmp: Path) -> None:
    from accelerate.commands.config.config_args import load_config_from_file

    files = write_export(ExportFormat.ACCELERATE, setup, in_tmp)
    config = load_config_from_file(str(in_tmp / "accelerate_config.yaml"))
    assert config.num_processes == setup.gpus
    assert config.parallelism_config in (None, {})
    assert setup.effective_batch == setup.micro_batch * setup.accumulation_steps * setup.gpus
    assert (
        f"ACCELERATE_GRADIENT_ACCUMULATION_STEPS={setup.accumulation_steps}" in files["launch.sh"]
    )
    assert export(ExportFormat.ACCELERATE, setup).notes


# --------------------------------------------------------------------------- interleaving


def _interleaved_refusal(
    pipeline: int, virtual: int, micro_batches: int, monkeypatch: pytest.MonkeyPatch
) -> str | None:
    """What megatron-core's interleaved schedule says of ``micro_batches`` before it
    runs anything: its refusal, or None when it starts (and then stops at our stubs)."""
    import torch
    from megatron.core.enums import ModelType
    from megatron.core.model_parallel_config import ModelParallelConfig
    from megatron.core.pipeline_parallel import schedules

    zeros = torch.zeros
    # its token counter is made on the GPU before the check: on the CPU here
    monkeypatch.setattr(torch, "zeros", lambda *a, **k: zeros(*a, **{**k, "device": "cpu"}))

    config = ModelParallelConfig(
        pipeline_model_parallel_size=pipeline,
        virtual_pipeline_model_parallel_size=virtual,
        pipeline_dtype=torch.bfloat16,
    )

    class Chunk(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.config = config
            self.model_type = ModelType.encoder_or_decoder

    group = SimpleNamespace(size=lambda: pipeline, rank=lambda: 0)
    communicator = SimpleNamespace(config=config, pp_group=group)
    groups = SimpleNamespace(tp=None, cp=None, embd=None, pos_embd=None, pp=group, dp_cp=None)
    try:
        schedules.forward_backward_pipelining_with_interleaving(
            forward_step_func=lambda *a: None,
            data_iterator=[iter(()) for _ in range(virtual)],
            model=[Chunk() for _ in range(virtual)],
            num_microbatches=micro_batches,
            seq_length=8,
            micro_batch_size=1,
            p2p_communicator=communicator,
            pg_collection=groups,
        )
    except (RuntimeError, ValueError) as exc:
        text = str(exc)
        if "micro-batches in a virtual pipeline stage" in text or "remainder of M" in text:
            return text
    except Exception:  # past the check, the stubs end the run
        return None
    return None


@pytest.mark.parametrize(("pipeline", "virtual"), [(2, 2), (4, 2), (4, 3)])
def test_megatron_runs_exactly_the_interleaved_pairs_the_plan_allows(
    pipeline: int, virtual: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradacc_desktop.core.frameworks.rules import schedule_runs

    for micro_batches in range(1, 3 * pipeline + 2):
        setup = TrainingSetup(1, micro_batches, 1, pipeline_stages=pipeline, virtual_stages=virtual)
        refused = _interleaved_refusal(pipeline, virtual, micro_batches, monkeypatch)
        assert (refused is None) is schedule_runs(setup), (
            micro_batches,
            refused,
        )


def test_megatron_reads_the_virtual_stages(in_tmp: Path) -> None:
    import torch
    from megatron.core.model_parallel_config import ModelParallelConfig

    setup = TrainingSetup(1, 8, 2, nodes=2, tensor_parallel=2, pipeline_stages=4, virtual_stages=3)
    files = write_export(ExportFormat.MEGATRON, setup, in_tmp)
    text = files["megatron_args.sh"]
    args = shlex.split(text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")])
    values = dict(itertools.pairwise(args))
    virtual = int(values["--num-virtual-stages-per-pipeline-rank"])
    config = ModelParallelConfig(
        tensor_model_parallel_size=int(values["--tensor-model-parallel-size"]),
        pipeline_model_parallel_size=int(values["--pipeline-model-parallel-size"]),
        virtual_pipeline_model_parallel_size=virtual,
        pipeline_dtype=torch.bfloat16,
    )
    assert config.virtual_pipeline_model_parallel_size == 3
    # DeepSpeed's pipeline engine does not interleave: its export says so
    notes = export(ExportFormat.DEEPSPEED, setup).english_notes
    assert any("plain 1F1B" in note for note in notes)


#: (b, a, dp, nodes, tp, pp, cp): context-parallel rings inside a node and across nodes
CONTEXT_LAYOUTS = [
    TrainingSetup(b, a, g, nodes=n, tensor_parallel=t, pipeline_stages=p, context_parallel=c)
    for b, a, g, n, t, p, c in (
        (1, 8, 2, 1, 2, 1, 2),
        (1, 4, 2, 2, 2, 1, 4),
        (1, 16, 2, 4, 4, 2, 2),
    )
]


def _context_id(s: TrainingSetup) -> str:
    return f"{_id(s)}cp{s.context_parallel}"


@pytest.mark.parametrize("setup", CONTEXT_LAYOUTS, ids=_context_id)
def test_megatron_reads_the_context_parallel_size(setup: TrainingSetup, in_tmp: Path) -> None:
    import torch
    from megatron.core.model_parallel_config import ModelParallelConfig
    from megatron.core.parallel_state import RankGenerator

    files = write_export(ExportFormat.MEGATRON, setup, in_tmp)
    text = files["megatron_args.sh"]
    body = text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")]
    values = dict(itertools.pairwise(shlex.split(body)))
    tp = int(values["--tensor-model-parallel-size"])
    pp = int(values["--pipeline-model-parallel-size"])
    cp = int(values["--context-parallel-size"])
    world = _launched(files["launch.sh"])
    assert (tp, pp, cp, world) == (
        setup.tensor_parallel,
        setup.pipeline_stages,
        setup.context_parallel,
        setup.world,
    )
    # Megatron-LM: data_parallel_size = world_size // (tp * pp * cp)
    dp = world // (tp * pp * cp)
    assert dp == setup.gpus
    config = ModelParallelConfig(
        tensor_model_parallel_size=tp,
        pipeline_model_parallel_size=pp,
        context_parallel_size=cp,
        sequence_parallel=tp > 1,
        pipeline_dtype=torch.bfloat16 if pp > 1 else None,
    )
    assert config.context_parallel_size == cp
    ranks = RankGenerator(tp=tp, ep=1, dp=dp, pp=pp, cp=cp, order="tp-cp-ep-dp-pp")
    assert ranks.world_size == world
    rings = ranks.get_ranks("cp")
    assert len(rings) == world // cp and all(len(g) == cp for g in rings)
    # the gradients are reduced over dp · cp ranks (the "dp-cp" group)
    assert all(len(g) == dp * cp for g in ranks.get_ranks("dp-cp"))
    # the ring stays in a node exactly when tp · cp divides its GPUs (the time model's rule)
    inside = all(len({r // setup.gpus_per_node for r in g}) == 1 for g in rings)
    assert inside is (setup.gpus_per_node % (tp * cp) == 0)


def test_megatron_core_knows_the_overlap_flag_and_the_bf16_gradients(
    in_tmp: Path,
) -> None:
    """The description's tensor-parallel overlap reaches Megatron's arguments as
    ``--tp-comm-overlap`` beside ``--sequence-parallel``: megatron-core's own
    ``ModelParallelConfig`` has a field of each name and takes them together; its bf16
    gradients as ``--grad-reduce-in-bf16``, the DDP config's fp32 reduction off."""
    import dataclasses

    from megatron.core.model_parallel_config import ModelParallelConfig

    from gradacc_desktop.core.framework import Framework
    from gradacc_desktop.core.memory.models import ModelSpec
    from gradacc_desktop.core.training.description import TrainingDescription
    from gradacc_desktop.core.training.exports import export_description

    d = TrainingDescription(
        model=ModelSpec.bundled("llama-3.1-8b"),
        seq_len=4096,
        gpus=2,
        tensor_parallel=4,
        sequence_parallel=True,
        tp_comm_overlap=True,
        grad_reduce_bf16=True,
        framework=Framework.MEGATRON,
    )
    files = export_description(ExportFormat.MEGATRON, d, d.setup(1, 8)).files
    text = files["megatron_args.sh"]
    body = text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")]
    args = shlex.split(body)
    names = {f.name for f in dataclasses.fields(ModelParallelConfig)}
    switches = [a for a in args if a in ("--tp-comm-overlap", "--sequence-parallel")]
    assert sorted(switches) == ["--sequence-parallel", "--tp-comm-overlap"]
    kwargs = {a.removeprefix("--").replace("-", "_"): True for a in switches}
    assert set(kwargs) <= names
    values = dict(itertools.pairwise(args))
    config = ModelParallelConfig(
        tensor_model_parallel_size=int(values["--tensor-model-parallel-size"]), **kwargs
    )
    assert config.tp_comm_overlap and config.sequence_parallel
    # --grad-reduce-in-bf16 is Megatron-LM's switch of the DDP's fp32 reduction off
    from megatron.core.distributed import DistributedDataParallelConfig

    assert "--grad-reduce-in-bf16" in args
    ddp = DistributedDataParallelConfig(grad_reduce_in_fp32="--grad-reduce-in-bf16" not in args)
    assert ddp.grad_reduce_in_fp32 is False
