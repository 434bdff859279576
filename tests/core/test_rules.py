"""The rule book: each entry refuses its case and accepts the case just inside it, and
every door (plan, search, export, config reader) names the same entry in its words."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.frameworks.rules import RULES, Rule, refusals, schedule_runs
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.setup import Offload, TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import plan
from gradacc_desktop.core.training.search import search

LLAMA = facts(ModelSpec.bundled("llama-3.1-8b"))  # 32 heads, 8 key/value heads, 32 layers
QWEN = facts(ModelSpec.bundled("qwen2.5-7b"))  # 28 heads, 4 key/value heads
BASE = TrainingSetup(micro_batch=1, accumulation_steps=8, gpus=2, zero_stage=ZeroStage.NONE)

#: each rule: (framework, a setup it refuses, the setup just inside it)
CASES: dict[Rule, tuple[Framework, dict[str, Any], dict[str, Any]]] = {
    Rule.PIPELINE_ZERO: (
        Framework.DEEPSPEED,
        {"pipeline_stages": 2, "zero_stage": ZeroStage.GRADIENTS},
        {"pipeline_stages": 2, "zero_stage": ZeroStage.OPTIMIZER},
    ),
    Rule.EXPERTS_ZERO3: (
        Framework.DEEPSPEED,
        {"expert_parallel": 2, "zero_stage": ZeroStage.WEIGHTS},
        {"expert_parallel": 2, "zero_stage": ZeroStage.GRADIENTS},
    ),
    Rule.HEADS: (Framework.MEGATRON, {"tensor_parallel": 3}, {"tensor_parallel": 4}),
    # Qwen's 4 key/value heads over 7 GPUs (28 heads split); over 28 each group is
    # replicated on 7 GPUs, which Megatron accepts
    Rule.QUERY_GROUPS: (Framework.MEGATRON, {"tensor_parallel": 7}, {"tensor_parallel": 28}),
    Rule.LAYERS: (Framework.MEGATRON, {"pipeline_stages": 3}, {"pipeline_stages": 4}),
    Rule.VIRTUAL_LAYERS: (
        Framework.MEGATRON,
        {"pipeline_stages": 2, "virtual_stages": 3, "accumulation_steps": 2},
        {"pipeline_stages": 2, "virtual_stages": 4, "accumulation_steps": 2},
    ),
    Rule.INTERLEAVING: (
        Framework.MEGATRON,
        {"pipeline_stages": 4, "virtual_stages": 2, "accumulation_steps": 6},
        {"pipeline_stages": 4, "virtual_stages": 2, "accumulation_steps": 8},
    ),
    Rule.FSDP_ZERO1: (
        Framework.FSDP,
        {"zero_stage": ZeroStage.OPTIMIZER},
        {"zero_stage": ZeroStage.GRADIENTS},
    ),
    Rule.FSDP_OFFLOAD: (
        Framework.FSDP,
        {"zero_stage": ZeroStage.WEIGHTS, "offload": Offload.OPTIMIZER},
        {"zero_stage": ZeroStage.WEIGHTS, "offload": Offload.ALL},
    ),
    Rule.BF16_MASTER_ZERO: (
        Framework.DEEPSPEED,
        {"master": MasterWeights.BF16, "zero_stage": ZeroStage.NONE},
        {"master": MasterWeights.BF16, "zero_stage": ZeroStage.OPTIMIZER},
    ),
}


def test_every_rule_has_a_case_and_a_source() -> None:
    assert set(CASES) == set(Rule)
    for rule, entry in RULES.items():
        package, _, place = entry.source.partition(", ")
        assert package.split()[0] in ("deepspeed", "megatron-core", "torch"), rule
        path, _, line = place.rpartition(":")
        assert path.endswith(".py") and int(line) > 0, rule
        assert entry.framework is CASES[rule][0]


@pytest.mark.parametrize("rule", list(Rule), ids=lambda r: r.value)
def test_each_rule_refuses_its_case_and_accepts_the_one_inside(rule: Rule) -> None:
    framework, refused, accepted = CASES[rule]
    model = QWEN if rule is Rule.QUERY_GROUPS else LLAMA
    found = refusals(replace(BASE, **refused), model, framework)
    assert rule in [r.rule for r in found]
    (this,) = [r for r in found if r.rule is rule]
    assert this.framework is framework
    assert this.as_dict() == {
        "framework": framework.value,
        "rule": rule.value,
        "message": str(this.message),
    }
    inside = refusals(replace(BASE, **accepted), model, framework)
    assert rule not in [r.rule for r in inside]


def test_the_frameworks_rules_stay_with_their_framework() -> None:
    piped = replace(BASE, pipeline_stages=2, zero_stage=ZeroStage.WEIGHTS)
    assert [r.rule for r in refusals(piped, LLAMA, Framework.DEEPSPEED)] == [Rule.PIPELINE_ZERO]
    # Megatron's and FSDP's own rules do not refuse it; the shape rules apply everywhere
    assert refusals(piped, LLAMA, Framework.MEGATRON) == ()
    split = replace(BASE, tensor_parallel=3)  # 32 heads and 8 key/value heads
    for framework in Framework:
        found = [r.rule for r in refusals(split, LLAMA, framework)]
        assert found == [Rule.HEADS, Rule.QUERY_GROUPS]
    # without the model the shape rules are not checked
    assert refusals(split, None, Framework.MEGATRON) == ()


def test_schedule_runs_is_the_interleaving_rule() -> None:
    for steps in range(1, 13):
        setup = replace(BASE, pipeline_stages=4, virtual_stages=2, accumulation_steps=steps)
        refused = Rule.INTERLEAVING in [r.rule for r in refusals(setup, None, Framework.MEGATRON)]
        assert schedule_runs(setup) is not refused
        assert refused is (steps % 4 != 0)


# --------------------------------------------------------------------------- the doors

CARD = load_gpu_table().by_id("a100-80gb")
PIPED = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"),
    seq_len=4096,
    card=CARD,
    gpus=4,
    pipeline_stages=2,
    zero_stage=ZeroStage.WEIGHTS,
    recompute=Recompute.FULL,
    target_batch=64,
)
FLAGS = [
    "--model",
    "llama-3.1-8b",
    "--seq-len",
    "4096",
    "--gpu-card",
    "a100-80gb",
    "--gpus",
    "4",
    "--pipeline-stages",
    "2",
    "--zero-stage",
    "3",
    "--recompute",
    "full",
    "--target-batch",
    "64",
]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_issues_setup_is_refused_at_every_door(capsys: pytest.CaptureFixture[str]) -> None:
    """The pipeline engine with ZeRO-3: the plan, its JSON, the export and the search
    say the same rule in the same words."""
    p = plan(PIPED)
    assert p.fits is True
    (refusal,) = p.refusals
    assert refusal.rule is Rule.PIPELINE_ZERO
    words = RULES[Rule.PIPELINE_ZERO].text.format(zero=3)
    assert refusal.message == words
    planned = _json(capsys, "plan", *FLAGS)
    assert planned["refusals"] == [refusal.as_dict()]
    assert main(["plan", *FLAGS]) == 0
    text = capsys.readouterr().out
    assert f"Refused (deepspeed): {words}" in text
    assert "DeepSpeed (train_batch_size=64) and Megatron" not in text
    micro = ["--micro-batch", str(planned["micro_batch"])]
    steps = ["--accumulation-steps", str(planned["accumulation_steps"])]
    exported = _json(capsys, "export", "--format", "deepspeed", *FLAGS, *micro, *steps)
    assert exported["refusals"] == [refusal.as_dict()]
    assert exported["notes"][0] == words
    setup = PIPED.setup(planned["micro_batch"], planned["accumulation_steps"])
    assert [r.rule for r in export(ExportFormat.DEEPSPEED, setup).refusals] == [Rule.PIPELINE_ZERO]
    # the Megatron export runs it (Megatron-FSDP), and the search never ranks it
    assert export(ExportFormat.MEGATRON, setup).refusals == ()
    result = search(PIPED, 8)
    assert result.best is not None
    for c in result.ranking:
        assert not (c.pipeline_stages > 1 and c.zero_stage >= ZeroStage.GRADIENTS)


def test_a_megatron_description_is_checked_with_megatrons_rules() -> None:
    megatron = replace(PIPED, framework=Framework.MEGATRON, tensor_parallel=3, gpus=2)
    p = plan(megatron)
    assert [r.rule for r in p.refusals] == [Rule.HEADS, Rule.QUERY_GROUPS]
    assert p.refusals[0].message.startswith("The 32 attention heads do not split over 3")
