"""The rule book (``core.frameworks.rules``) against the frameworks' own code.

For every entry, the cited line of the installed package holds the check it describes,
and the framework's own check refuses the setup ``tests/core/test_rules.py`` refuses
and accepts the one just inside it, on the CPU and without a process group:

* Megatron's shape rules: ``TransformerConfig`` (heads, key/value groups) and
  ``transformer_block.get_num_layers_to_build`` (layers per stage, per virtual stage),
  also over a grid of sizes;
* Megatron's interleaving rule: ``forward_backward_pipelining_with_interleaving`` up to
  its check (``test_layout._interleaved_refusal``);
* DeepSpeed's rules: ``PipelineEngine.__init__`` and ``_configure_zero_optimizer`` (which
  calls ``_validate_zero3_moe_compatibility``) on an engine that skipped
  ``DeepSpeedEngine.__init__`` (a real ``DeepSpeedConfig``, a module, no groups);
* FSDP's rules say an option is missing: ``fully_shard``'s parameters and the offload
  policies' fields show that it is.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import inspect
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from deepspeed.moe.layer import MoE
from deepspeed.runtime.engine import DeepSpeedEngine
from deepspeed.runtime.pipe.engine import PipelineEngine
from deepspeed.runtime.pipe.module import PipelineModule
from deepspeed.runtime.pipe.topology import PipeModelDataParallelTopology

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export.deepspeed import deepspeed_config
from gradacc_desktop.core.frameworks.rules import RULES, Rule, refusals
from gradacc_desktop.core.memory.models import ModelFacts
from gradacc_desktop.core.memory.setup import TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from tests.core.test_rules import BASE, CASES, LLAMA, QWEN
from tests.trainers.test_layout import _deepspeed_config, _GridMpu, _interleaved_refusal

# --------------------------------------------------------------------------- the sources

#: what the cited line (or the two after it) holds: the condition or the message
HOLDS: dict[Rule, tuple[str, ...]] = {
    Rule.PIPELINE_ZERO: (
        "assert self.zero_optimization_stage(",
        ") < ZeroStageEnum.gradients",
        '"ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"',
    ),
    Rule.EXPERTS_ZERO3: (
        'raise AssertionError("Native DeepSpeed MoE is not supported with ZeRO Stage 3. "',
        '"Use AutoEP or choose ZeRO stage 1/2.")',
    ),
    Rule.HEADS: (
        "if self.num_attention_heads % self.tensor_model_parallel_size != 0:",
        "must be a multiple of",
    ),
    Rule.QUERY_GROUPS: (
        "self.num_query_groups % self.tensor_model_parallel_size != 0",
        "and self.tensor_model_parallel_size % self.num_query_groups != 0",
    ),
    Rule.LAYERS: (
        "num_layers % config.pipeline_model_parallel_size == 0",
        '"num_layers should be divisible by pipeline_model_parallel_size"',
    ),
    Rule.VIRTUAL_LAYERS: ("num_layers_per_pipeline_rank % vp_size == 0",),
    Rule.INTERLEAVING: (
        "if 0 < final_microbatch_group_size < pipeline_parallel_size:",
        "'The remainder of M (the total micro-batches) divided by N (number of '",
    ),
    Rule.FSDP_ZERO1: ("reshard_after_forward: bool | int | None = None,",),
    Rule.FSDP_OFFLOAD: ("class CPUOffloadPolicy(OffloadPolicy):",),
    Rule.BF16_MASTER_ZERO: (
        "assert self.zero_enabled and self.zero_optimization_stage in (",
        '"Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3."',
    ),
}

#: the lines after the cited one that may hold the rest of the check
FOLLOWING = 2


def _cited(rule: Rule) -> tuple[str, str, Path, int]:
    """The entry's (package, version, installed file, line)."""
    package, _, place = RULES[rule].source.partition(", ")
    name, version = package.split()
    path, _, line = place.rpartition(":")
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    file = inspect.getsourcefile(module)
    assert file is not None and Path(file).as_posix().endswith(path), (rule, file)
    return name, version, Path(file), int(line)


@pytest.mark.parametrize("rule", list(Rule), ids=lambda r: r.value)
def test_each_entry_cites_the_line_of_its_check(rule: Rule) -> None:
    name, version, file, line = _cited(rule)
    assert importlib.metadata.version(name).partition("+")[0] == version
    lines = file.read_text(encoding="utf-8").splitlines()
    cited = lines[line - 1].strip()
    assert cited, (rule, "the cited line is blank")
    window = " ".join(text.strip() for text in lines[line - 1 : line + FOLLOWING])
    for held in HOLDS[rule]:
        assert held in window, (rule, line, held, window)
    # what the sentence quotes of the framework, the framework says there
    for quoted in re.findall(r'"([^"]+)"', RULES[rule].text):
        assert quoted in window, (rule, quoted)


# --------------------------------------------------------------------------- Megatron


def _megatron_builds(setup: TrainingSetup, model: ModelFacts) -> str | None:
    """Megatron's refusal of the model's shape under the setup's sizes (None: it builds
    the config and the layers of a stage): ``TransformerConfig.__post_init__`` checks
    the heads and the key/value groups, ``get_num_layers_to_build`` the layers (its
    checks do not depend on the rank, given as TransformerBlock gives it)."""
    from megatron.core.transformer import TransformerConfig
    from megatron.core.transformer.transformer_block import get_num_layers_to_build

    assert model.size is not None
    shape = model.size.shape
    pp, v = setup.pipeline_stages, setup.virtual_stages
    try:
        config = TransformerConfig(
            num_layers=shape.layers,
            hidden_size=shape.heads * shape.head_dim,
            num_attention_heads=shape.heads,
            num_query_groups=model.kv_heads,
            tensor_model_parallel_size=setup.tensor_parallel,
            pipeline_model_parallel_size=pp,
            virtual_pipeline_model_parallel_size=v if v > 1 else None,
            pipeline_dtype=torch.bfloat16 if pp > 1 else None,
        )
        get_num_layers_to_build(config, vp_stage=0, pp_rank=0)
    except (ValueError, AssertionError) as exc:
        return str(exc)
    return None


def _megatron_interleaves(
    setup: TrainingSetup, model: ModelFacts, monkeypatch: pytest.MonkeyPatch
) -> str | None:
    if setup.virtual_stages == 1:
        return None  # the plain 1F1B schedule takes any number of micro-batches
    return _interleaved_refusal(
        setup.pipeline_stages, setup.virtual_stages, setup.accumulation_steps, monkeypatch
    )


# --------------------------------------------------------------------------- DeepSpeed


class _Engine(DeepSpeedEngine):
    """A DeepSpeed engine without ``DeepSpeedEngine.__init__`` (no process group, no
    optimizer): its real config and module, and the attributes ``__init__`` gives that
    ``_configure_zero_optimizer`` reads."""

    def __init__(self, config: Any, module: torch.nn.Module) -> None:
        torch.nn.Module.__init__(self)
        self.module = module
        self._config = config
        self.mpu = None
        self.zenflow = False
        self.gradient_average = True
        self.param_names = {p: n for n, p in module.named_parameters()}
        self.seq_data_parallel_group = None
        self.expert_parallel_group = self.expert_data_parallel_group = None
        # what _configure_distributed_model finds in the module
        self.has_moe_layers = any(isinstance(m, MoE) for m in module.modules())

    def destroy(self) -> None:
        """Nothing to release (and ``__del__`` would log at interpreter exit)."""


class _Piped(PipelineEngine, _Engine):
    """PipelineEngine.__init__ as it is, over ``_Engine`` instead of DeepSpeedEngine's."""


class _Stages(PipelineModule):
    """A PipelineModule without its layers and topology (which need a process group):
    the engine only checks the module's class before the ZeRO stage."""

    def __init__(self) -> None:
        torch.nn.Module.__init__(self)


class _Built(Exception):
    """DeepSpeed went on to build its ZeRO-1/2 optimizer."""


def _ds_config(setup: TrainingSetup, monkeypatch: pytest.MonkeyPatch, **more: Any) -> Any:
    config = {
        "train_micro_batch_size_per_gpu": setup.micro_batch,
        "gradient_accumulation_steps": setup.accumulation_steps,
        "zero_optimization": {"stage": int(setup.zero_stage)},
        "bf16": {"enabled": True},
        **more,
    }
    mpu = None
    if setup.pipeline_stages > 1:  # PipelineModule's grid gives DeepSpeed the data size
        topology = PipeModelDataParallelTopology(
            num_pp=setup.pipeline_stages, num_mp=setup.tensor_parallel, num_dp=setup.gpus
        )
        mpu = _GridMpu(topology)
    return _deepspeed_config(config, monkeypatch, setup.world, mpu=mpu)


def _pipeline_engine_starts(
    setup: TrainingSetup, model: ModelFacts, monkeypatch: pytest.MonkeyPatch
) -> str | None:
    """PipelineEngine.__init__'s refusal (None: it gets past its ZeRO check and stops
    where the engine without __init__ has no optimizer)."""
    try:
        _Piped(config=_ds_config(setup, monkeypatch), module=_Stages())
    except AssertionError as exc:
        return str(exc)
    except AttributeError as exc:
        assert "'optimizer'" in str(exc)  # the line after the checks
        return None
    raise AssertionError("the engine without __init__ should stop at its optimizer")


def _zero_optimizer_built(
    setup: TrainingSetup, model: ModelFacts, monkeypatch: pytest.MonkeyPatch
) -> str | None:
    """``_configure_zero_optimizer`` on a module with DeepSpeed's own MoE layer split
    over the setup's expert-parallel size: its refusal, or None when it goes on to
    build the ZeRO-1/2 optimizer (stopped there)."""
    from deepspeed.runtime import engine

    def stage_1_and_2(*args: Any, **kwargs: Any) -> None:
        assert kwargs["has_moe_layers"] is True
        raise _Built

    monkeypatch.setattr(engine, "DeepSpeedZeroOptimizer", stage_1_and_2)
    ep = setup.expert_parallel
    experts = torch.nn.Sequential(
        MoE(hidden_size=8, expert=torch.nn.Linear(8, 8), num_experts=2 * ep, ep_size=ep)
    )
    ds = _Engine(_ds_config(setup, monkeypatch), experts)
    assert ds.has_moe_layers
    try:
        ds._configure_zero_optimizer(torch.optim.SGD(experts.parameters(), lr=0.1))
    except AssertionError as exc:
        return str(exc)
    except _Built:
        return None
    raise AssertionError("ZeRO-1/2/3 should build an optimizer or refuse")


def _exported_config_read(
    setup: TrainingSetup, model: ModelFacts, monkeypatch: pytest.MonkeyPatch
) -> str | None:
    """DeepSpeedConfig's refusal of the ds_config.json the export writes for ``setup``
    (None: it reads it, the bf16 master copy's keys included)."""
    config = deepspeed_config(setup)
    try:
        read = _deepspeed_config(config, monkeypatch, setup.world)
    except AssertionError as exc:
        return str(exc)
    bf16 = read.bfloat16_config
    kept = setup.master is MasterWeights.BF16
    assert (bf16.bf16_master_weights_and_grads, bf16.bf16_optimizer_states) == (kept, kept)
    return None


# --------------------------------------------------------------------------- each rule

Check = Callable[[TrainingSetup, ModelFacts, pytest.MonkeyPatch], str | None]

#: each rule the framework checks when it starts: its check, and what its refusal says
CHECKS: dict[Rule, tuple[Check, str]] = {
    Rule.PIPELINE_ZERO: (
        _pipeline_engine_starts,
        "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism",
    ),
    Rule.EXPERTS_ZERO3: (
        _zero_optimizer_built,
        "Native DeepSpeed MoE is not supported with ZeRO Stage 3",
    ),
    Rule.HEADS: (
        lambda s, m, _: _megatron_builds(s, m),
        "must be a multiple of tensor_model_parallel_size",
    ),
    Rule.QUERY_GROUPS: (
        lambda s, m, _: _megatron_builds(s, m),
        "must be a multiple or divisor of tensor_model_parallel_size",
    ),
    Rule.LAYERS: (
        lambda s, m, _: _megatron_builds(s, m),
        "num_layers should be divisible by pipeline_model_parallel_size",
    ),
    Rule.VIRTUAL_LAYERS: (lambda s, m, _: _megatron_builds(s, m), "should be divisible by vp_size"),
    Rule.INTERLEAVING: (_megatron_interleaves, "The remainder of M"),
    Rule.BF16_MASTER_ZERO: (
        _exported_config_read,
        "Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3",
    ),
}
assert set(CHECKS) == set(Rule) - {Rule.FSDP_ZERO1, Rule.FSDP_OFFLOAD}


@pytest.mark.parametrize("inside", [False, True], ids=["refused", "accepted"])
@pytest.mark.parametrize("rule", list(CHECKS), ids=lambda r: r.value)
def test_the_framework_refuses_the_case_and_accepts_the_one_inside(
    rule: Rule, inside: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    framework, refused, accepted = CASES[rule]
    model = QWEN if rule is Rule.QUERY_GROUPS else LLAMA
    setup = replace(BASE, **(accepted if inside else refused))
    check, says = CHECKS[rule]
    said = check(setup, model, monkeypatch)
    named = [r.rule for r in refusals(setup, model, framework)]
    if inside:
        assert said is None
        assert rule not in named
    else:
        assert said is not None and says in said, said
        assert rule in named


#: Megatron's message -> the rule that names it (the first of its checks that fails)
SHAPE_RULES = (Rule.HEADS, Rule.QUERY_GROUPS, Rule.LAYERS, Rule.VIRTUAL_LAYERS)


@pytest.mark.parametrize("model", [LLAMA, QWEN], ids=["llama-3.1-8b", "qwen2.5-7b"])
def test_megatron_refuses_exactly_the_shapes_the_rule_book_refuses(model: ModelFacts) -> None:
    sizes = [
        *(replace(BASE, tensor_parallel=t) for t in (*range(2, 9), 12, 14, 16, 28, 32)),
        *(
            replace(BASE, pipeline_stages=p, virtual_stages=v, accumulation_steps=p)
            for p in range(2, 9)
            for v in range(1, 5)
        ),
    ]
    for setup in sizes:
        said = _megatron_builds(setup, model)
        named = [r.rule for r in refusals(setup, model, Framework.MEGATRON)]
        shape = [r for r in named if r in SHAPE_RULES]
        if said is None:
            assert shape == [], setup
        else:
            # Megatron stops at its first check: the rule book's first shape refusal
            assert shape and CHECKS[shape[0]][1] in said, (setup, said)


def test_deepspeed_refuses_exactly_the_zero_stages_the_rule_book_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for stage in ZeroStage:
        piped = replace(BASE, pipeline_stages=2, zero_stage=stage)
        refused = _pipeline_engine_starts(piped, LLAMA, monkeypatch) is not None
        named = [r.rule for r in refusals(piped, LLAMA, Framework.DEEPSPEED)]
        assert refused is (Rule.PIPELINE_ZERO in named), stage
        if stage is ZeroStage.NONE:
            continue  # DeepSpeed builds no ZeRO optimizer
        experts = replace(BASE, expert_parallel=2, zero_stage=stage)
        refused = _zero_optimizer_built(experts, LLAMA, monkeypatch) is not None
        named = [r.rule for r in refusals(experts, LLAMA, Framework.DEEPSPEED)]
        assert refused is (Rule.EXPERTS_ZERO3 in named), stage


def test_deepspeed_takes_autotp_with_zero3(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule book no longer refuses AutoTP with ZeRO-3: DeepSpeed's config takes it
    (and its ZeRO-3 branch places AutoTP's shards, engine.py ``_resolve_zero3_param_placement``)."""
    setup = replace(BASE, tensor_parallel=2, zero_stage=ZeroStage.WEIGHTS)
    ds = _ds_config(setup, monkeypatch, tensor_parallel={"autotp_size": 2})
    assert ds.zero_optimization_stage == 3
    assert ds.tensor_parallel_config.autotp_size == 2
    assert refusals(setup, LLAMA, Framework.DEEPSPEED) == ()
    source = inspect.getsource(DeepSpeedEngine._configure_zero_optimizer)
    assert "if self.has_moe_layers or self.autotp_size() > 1:" in source


# --------------------------------------------------------------------------- FSDP


def test_fully_shard_has_no_zero1() -> None:
    """fully_shard always shards the gradients and the optimizer states; its only choice
    is whether the parameters stay sharded after forward (ZeRO-3) or not (ZeRO-2).
    FSDP1's sharding strategies have no ZeRO-1 either."""
    from torch.distributed.fsdp import ShardingStrategy, fully_shard

    options = inspect.signature(fully_shard).parameters
    assert list(options) == [
        "module",
        "mesh",
        "reshard_after_forward",
        "shard_placement_fn",
        "mp_policy",
        "offload_policy",
        "ignored_params",
        "dp_mesh_dims",
    ]
    assert options["reshard_after_forward"].annotation == "bool | int | None"
    assert {s.name for s in ShardingStrategy} == {
        "FULL_SHARD",  # ZeRO-3
        "SHARD_GRAD_OP",  # ZeRO-2
        "NO_SHARD",  # DDP
        "HYBRID_SHARD",  # ZeRO-3 in a node
        "_HYBRID_SHARD_ZERO2",  # ZeRO-2 in a node
    }


def test_fsdp_offloads_all_or_nothing() -> None:
    """The offload policies have no field to choose what is offloaded: CPUOffloadPolicy
    (fully_shard) and CPUOffload (FSDP1) move the parameters, their gradients and the
    optimizer step to the CPU together."""
    from torch.distributed.fsdp import CPUOffload, CPUOffloadPolicy, OffloadPolicy, fully_shard

    assert inspect.signature(fully_shard).parameters["offload_policy"].annotation == (
        "OffloadPolicy"
    )
    assert OffloadPolicy.__subclasses__() == [CPUOffloadPolicy]
    assert [f.name for f in dataclasses.fields(OffloadPolicy)] == []
    assert [f.name for f in dataclasses.fields(CPUOffloadPolicy)] == ["pin_memory"]
    assert "parameters, gradients, and optimizer states" in (CPUOffloadPolicy.__doc__ or "")
    assert [f.name for f in dataclasses.fields(CPUOffload)] == ["offload_params"]
