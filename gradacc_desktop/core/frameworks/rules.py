"""The one rule book of what a framework refuses for a setup.

Each entry is one check a framework makes when it starts (or on its first step), with
the file and line where it makes it, in the version the trainer tier installs, and one
English sentence (context "Rules") that every door says the same way: the plan's
verdict and JSON, the search's exclusions, the exports' notes and the config readers.

The tensor-parallel and pipeline rules on the model's shape (heads, key/value groups,
layers) are Megatron's; the plan applies them under every framework, because its memory
and time figures split the heads and the layers evenly, as Megatron does (DeepSpeed's
AutoTP and its pipeline partition could split them unevenly, which the figures would not
describe).

What no framework runs at all (GPUs that do not split over the nodes, offload without
ZeRO) is the setup's own problem (``core.memory.setup``); the batch rules (DeepSpeed's
``train_batch_size``, Megatron's ``--global-batch-size``) are ``frameworks.verdicts``:
the exports always give the batch the pair reaches, so they never refuse a plan.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..framework import Framework
from ..memory.models import ModelFacts
from ..memory.setup import Offload, TrainingSetup
from ..memory.zero import ZeroStage
from ..precision import MasterWeights
from ..text import Message, Phrase, trans_late

__all__ = ["RULES", "Refusal", "Rule", "RuleEntry", "refusals", "schedule_runs"]

DEEPSPEED = "deepspeed 0.19.8"
MEGATRON = "megatron-core 0.16.1"
TORCH = "torch 2.13.0"


class Rule(enum.Enum):
    PIPELINE_ZERO = "pipeline_zero"
    EXPERTS_ZERO3 = "experts_zero3"
    HEADS = "heads"
    QUERY_GROUPS = "query_groups"
    LAYERS = "layers"
    VIRTUAL_LAYERS = "virtual_layers"
    INTERLEAVING = "interleaving"
    FSDP_ZERO1 = "fsdp_zero1"
    FSDP_OFFLOAD = "fsdp_offload"
    BF16_MASTER_ZERO = "bf16_master_zero"


@dataclass(frozen=True)
class RuleEntry:
    framework: Framework
    #: where the framework checks it: "package version, path:line"
    source: str
    text: Phrase


RULES: dict[Rule, RuleEntry] = {
    Rule.PIPELINE_ZERO: RuleEntry(
        Framework.DEEPSPEED,
        f"{DEEPSPEED}, deepspeed/runtime/pipe/engine.py:76",
        trans_late(
            "Rules",
            "DeepSpeed's pipeline engine refuses ZeRO-{zero} with pipeline stages "
            '("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"): use ZeRO-1.',
        ),
    ),
    Rule.EXPERTS_ZERO3: RuleEntry(
        Framework.DEEPSPEED,
        f"{DEEPSPEED}, deepspeed/runtime/engine.py:2215",
        trans_late(
            "Rules",
            "DeepSpeed's own MoE layers (deepspeed.moe.layer.MoE, which expert parallelism "
            "needs) refuse ZeRO-3: use ZeRO-1 or ZeRO-2.",
        ),
    ),
    Rule.HEADS: RuleEntry(
        Framework.MEGATRON,
        f"{MEGATRON}, megatron/core/transformer/transformer_config.py:924",
        trans_late(
            "Rules",
            "The {heads} attention heads do not split over {tensor_parallel} tensor-parallel "
            "GPUs (num_attention_heads must be a multiple of tensor_model_parallel_size).",
        ),
    ),
    Rule.QUERY_GROUPS: RuleEntry(
        Framework.MEGATRON,
        f"{MEGATRON}, megatron/core/transformer/transformer_config.py:940",
        trans_late(
            "Rules",
            "The {groups} key/value heads do not split over {tensor_parallel} "
            "tensor-parallel GPUs (num_query_groups must be a multiple or a divisor of "
            "tensor_model_parallel_size).",
        ),
    ),
    Rule.LAYERS: RuleEntry(
        Framework.MEGATRON,
        f"{MEGATRON}, megatron/core/transformer/transformer_block.py:155",
        trans_late(
            "Rules",
            "The {layers} layers do not split over {stages} pipeline stages (num_layers "
            "must be divisible by pipeline_model_parallel_size).",
        ),
    ),
    Rule.VIRTUAL_LAYERS: RuleEntry(
        Framework.MEGATRON,
        f"{MEGATRON}, megatron/core/transformer/transformer_block.py:175",
        trans_late(
            "Rules",
            "The {per_stage} layers of each pipeline stage do not split into {virtual} "
            "virtual stages (the layers per pipeline rank must be divisible by "
            "virtual_pipeline_model_parallel_size).",
        ),
    ),
    Rule.INTERLEAVING: RuleEntry(
        Framework.MEGATRON,
        f"{MEGATRON}, megatron/core/pipeline_parallel/schedules.py:1008",
        trans_late(
            "Rules",
            "Interleaved 1F1B runs the micro-batches in groups of {stages} (the pipeline "
            "stages): {steps} accumulation step(s) leave a partial group, which Megatron "
            "refuses.",
        ),
    ),
    Rule.FSDP_ZERO1: RuleEntry(
        Framework.FSDP,
        f"{TORCH}, torch/distributed/fsdp/_fully_shard/_fully_shard.py:102",
        trans_late(
            "Rules",
            "FSDP has no ZeRO-1: fully_shard shards the optimizer states together with the "
            "gradients (reshard_after_forward=False, ZeRO-2) or with the parameters too "
            "(ZeRO-3).",
        ),
    ),
    Rule.FSDP_OFFLOAD: RuleEntry(
        Framework.FSDP,
        f"{TORCH}, torch/distributed/fsdp/_fully_shard/_fsdp_api.py:183",
        trans_late(
            "Rules",
            "FSDP offloads the parameters, the gradients and the optimizer states together "
            "(CPUOffloadPolicy): offload everything, or nothing.",
        ),
    ),
    Rule.BF16_MASTER_ZERO: RuleEntry(
        Framework.DEEPSPEED,
        f"{DEEPSPEED}, deepspeed/runtime/config.py:707",
        trans_late(
            "Rules",
            "DeepSpeed keeps a bf16 master copy only in its ZeRO optimizers "
            '("Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3"): '
            "use ZeRO-1, 2 or 3, or the fp32 master copy.",
        ),
    ),
}


@dataclass(frozen=True)
class Refusal:
    rule: Rule
    #: the English sentence with the setup's numbers (a ``Message``: the window says it
    #: in its language)
    message: Message

    @property
    def framework(self) -> Framework:
        return RULES[self.rule].framework

    @property
    def source(self) -> str:
        return RULES[self.rule].source

    def as_dict(self) -> dict[str, str]:
        """The JSON shape every command prints: ``{framework, rule, message}``."""
        return {
            "framework": self.framework.value,
            "rule": self.rule.value,
            "message": str(self.message),
        }


def _refusal(rule: Rule, **values: Any) -> Refusal:
    return Refusal(rule, RULES[rule].text.format(**values))


def schedule_runs(setup: TrainingSetup) -> bool:
    """Whether the pipeline schedule runs the setup's accumulation steps: interleaved 1F1B
    walks them in groups of ``p`` (Megatron's ``microbatch_group_size_per_vp_stage``
    defaults to the pipeline size; simulated, the schedule waits on itself otherwise)."""
    if setup.virtual_stages == 1:
        return True
    return setup.accumulation_steps % setup.pipeline_stages == 0


def refusals(
    setup: TrainingSetup, model: ModelFacts | None, framework: Framework
) -> tuple[Refusal, ...]:
    """What ``framework`` (and the shape rules every framework's figures keep, see the
    module text) refuses of ``setup`` with ``model`` (None: the shape rules are not
    checked), in the order of ``Rule``. The interleaving rule reads the setup's
    accumulation steps: give the pair's."""
    s = setup
    found: list[Refusal] = []
    if framework is Framework.DEEPSPEED:
        if s.pipeline_stages > 1 and s.zero_stage >= ZeroStage.GRADIENTS:
            found.append(_refusal(Rule.PIPELINE_ZERO, zero=int(s.zero_stage)))
        if s.expert_parallel > 1 and s.zero_stage is ZeroStage.WEIGHTS:
            found.append(_refusal(Rule.EXPERTS_ZERO3))
    size = None if model is None else model.size
    tp = s.tensor_parallel
    if size is not None and tp > 1:
        heads = size.shape.heads
        if heads % tp:
            found.append(_refusal(Rule.HEADS, heads=heads, tensor_parallel=tp))
        groups = model.kv_heads if model is not None and model.kv_heads else heads
        if groups % tp and tp % groups:
            found.append(_refusal(Rule.QUERY_GROUPS, groups=groups, tensor_parallel=tp))
    pp, v = s.pipeline_stages, s.virtual_stages
    if size is not None and pp > 1:
        if size.layers % pp:
            found.append(_refusal(Rule.LAYERS, layers=size.layers, stages=pp))
        elif v > 1 and (size.layers // pp) % v:
            found.append(_refusal(Rule.VIRTUAL_LAYERS, per_stage=size.layers // pp, virtual=v))
    if not schedule_runs(s):
        found.append(_refusal(Rule.INTERLEAVING, stages=pp, steps=s.accumulation_steps))
    if framework is Framework.FSDP:
        if s.zero_stage is ZeroStage.OPTIMIZER:
            found.append(_refusal(Rule.FSDP_ZERO1))
        if s.offload is Offload.OPTIMIZER:
            found.append(_refusal(Rule.FSDP_OFFLOAD))
    deepspeed = framework is Framework.DEEPSPEED
    if deepspeed and s.master is MasterWeights.BF16 and s.zero_stage is ZeroStage.NONE:
        found.append(_refusal(Rule.BF16_MASTER_ZERO))
    return tuple(found)
