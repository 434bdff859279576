from __future__ import annotations

import contextlib
import copy
import json
import math
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch.planning import SEQ_LEN_LIMITS, Rounding
from gradacc_desktop.core.calculator import DEFAULTS, BatchInputs
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.activation import Family
from gradacc_desktop.core.memory.families import parse_model_config_text
from gradacc_desktop.core.memory.lora import LoraTargets
from gradacc_desktop.core.memory.models import ModelSource, ModelSpec, TypedShape
from gradacc_desktop.core.memory.setup import Offload, Precision, ZeroStage
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.scenario import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    PlanSettings,
    ReadProblem,
    Scenario,
    ScenarioError,
    load,
    save,
    to_dict,
)
from gradacc_desktop.core.training.description import Method, Optimizer
from tests.configs import config_path

FULL = Scenario(
    calculator=BatchInputs(
        micro_batch=3, accumulation_steps=17, gpus=2, activation_gb=Decimal("0.125")
    ),
    plan=PlanSettings(
        target_batch=100,
        micro_batch=3,
        gpus=2,
        rounding=Rounding.NEAREST,
        gpu_card="h100-80gb",
        gpu_memory_gb=Decimal("80"),
        other_memory_gb=Decimal("27.25"),
        activation_gb=Decimal("1.5"),
        seq_len=4096,
        dataset_samples=1_000_000,
        nodes=2,
        zero_stage=ZeroStage.WEIGHTS,
        precision=Precision.FP16,
        offload=Offload.ALL,
        tensor_parallel=4,
        pipeline_stages=2,
        recompute=Recompute.FULL,
        model=ModelSpec.bundled("llama-3.1-8b"),
        efficiency_percent=Decimal("45.5"),
        price_per_gpu_hour=Decimal("2.1234"),
        training_tokens=10**12,
        epochs=3,
        custom_tflops=Decimal("209.5"),
        custom_memory_bandwidth_gbps=Decimal("1792"),
        custom_link_gbps=Decimal("64"),
        custom_network_gbps=Decimal("3.125"),
        method=Method.QLORA,
        lora_rank=32,
        lora_targets=LoraTargets.ALL_LINEAR,
        optimizer=Optimizer.ADAM_8BIT,
        overhead_gb=Decimal("1.5"),
        virtual_stages=3,
        expert_parallel=2,
        context_parallel=4,
        fp8=True,
        attention=AttentionKernel.EAGER,
        link_gbps=Decimal("200"),
        network_gbps=Decimal("12.5"),
        goodput_percent=Decimal("92.5"),
        images=2,
        image_width=1024,
        image_height=768,
        vision_frozen=True,
        framework=Framework.MEGATRON,
        sequence_parallel=True,
        cpu_memory_gb=2048,
        fused_loss=True,
        master_weights=MasterWeights.BF16,
        expert_tensor_parallel=1,
        tp_comm_overlap=True,
        grad_reduce_bf16=True,
    ),
)
MEGATRON_KEYS = ("tp_comm_overlap", "grad_reduce_bf16")
EXPERT_TENSOR_KEYS = ("expert_tensor_parallel",)
MASTER_KEYS = ("master_weights",)
NODE_KEYS = ("cpu_memory_gb",)
LOSS_KEYS = ("fused_loss",)
FRAMEWORK_KEYS = ("framework", "sequence_parallel")
VISION_KEYS = ("images", "image_width", "image_height", "vision_frozen")
SPEED_MODEL_KEYS = (
    "virtual_stages",
    "expert_parallel",
    "context_parallel",
    "fp8",
    "attention",
    "link_gbps",
    "network_gbps",
    "goodput_percent",
)
DESCRIPTION_KEYS = (
    "method",
    "lora_rank",
    "lora_targets",
    "trainable_params",
    "optimizer",
    "target_seq",
    "overhead_gb",
)
TIME_KEYS = (
    "tensor_parallel",
    "pipeline_stages",
    "recompute",
    "model",
    "efficiency_percent",
    "price_per_gpu_hour",
    "training_tokens",
    "epochs",
    "custom_tflops",
    "custom_memory_bandwidth_gbps",
    "custom_link_gbps",
    "custom_network_gbps",
)


def good() -> dict[str, Any]:
    return copy.deepcopy(to_dict(FULL))


def as_version(version: int) -> dict[str, Any]:
    """FULL as a file of an older version wrote it."""
    data = good()
    data["version"] = version
    plan = data["plan"]
    for key in MEGATRON_KEYS:
        del plan[key]
    if version == 11:
        return data
    for key in EXPERT_TENSOR_KEYS:
        del plan[key]
    if version == 10:
        return data
    for key in MASTER_KEYS:
        del plan[key]
    if version == 9:
        return data
    for key in LOSS_KEYS:
        del plan[key]
    if version == 8:
        return data
    for key in NODE_KEYS:
        del plan[key]
    if version == 7:
        return data
    if plan["recompute"] == "selective":  # not a value older versions wrote
        plan["recompute"] = "full"
    for key in FRAMEWORK_KEYS:
        del plan[key]
    if version == 6:
        return data
    for key in VISION_KEYS:
        del plan[key]
    if version == 5:
        return data
    for key in SPEED_MODEL_KEYS:
        del plan[key]
    if version == 4:
        return data
    for key in DESCRIPTION_KEYS:
        del plan[key]
    if version == 3:
        plan["model"] = "llama-3.1-8b"
        plan["model_params"] = None
    else:
        for key in TIME_KEYS:
            del plan[key]
    if version == 1:
        for key in ("nodes", "zero_stage", "precision", "offload"):
            del plan[key]
    return data


def encode(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def test_round_trip_default_and_full() -> None:
    assert load(save(Scenario())) == Scenario()
    assert load(save(FULL)) == FULL


def test_version_1_files_still_open() -> None:
    data = as_version(1)
    loaded = load(encode(data))
    assert loaded.plan.target_batch == 100 and loaded.plan.gpus == 2
    assert loaded.plan.nodes == 1 and loaded.plan.zero_stage is ZeroStage.NONE
    assert loaded.plan.precision is Precision.BF16 and loaded.plan.offload is Offload.NONE
    # a version 1 file cannot carry version 2 keys
    data["plan"]["nodes"] = 2
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


def test_saved_decimals_are_strings() -> None:
    data = json.loads(save(FULL))
    assert data["format"] == "gradacc-scenario" and data["version"] == 12
    assert data["plan"]["nodes"] == 2 and data["plan"]["zero_stage"] == 3
    assert data["plan"]["precision"] == "fp16" and data["plan"]["offload"] == "all"
    assert data["calculator"]["activation_gb"] == "0.125"
    assert data["plan"]["other_memory_gb"] == "27.25"
    assert data["plan"]["rounding"] == "nearest"
    assert Scenario().calculator == DEFAULTS
    assert data["plan"]["efficiency_percent"] == "45.5"
    assert data["plan"]["price_per_gpu_hour"] == "2.1234"
    assert data["plan"]["training_tokens"] == 10**12
    assert data["plan"]["recompute"] == "full"
    assert data["plan"]["model"] == {"bundled": "llama-3.1-8b"}
    assert data["plan"]["method"] == "qlora" and data["plan"]["lora_targets"] == "all_linear"
    assert data["plan"]["overhead_gb"] == "1.5"
    assert data["plan"]["virtual_stages"] == 3 and data["plan"]["fp8"] is True
    assert data["plan"]["expert_parallel"] == 2
    assert data["plan"]["context_parallel"] == 4
    assert data["plan"]["attention"] == "eager"
    assert data["plan"]["link_gbps"] == "200" and data["plan"]["network_gbps"] == "12.5"
    assert data["plan"]["goodput_percent"] == "92.5"
    assert (data["plan"]["images"], data["plan"]["image_width"]) == (2, 1024)
    assert data["plan"]["image_height"] == 768 and data["plan"]["vision_frozen"] is True
    assert data["plan"]["framework"] == "megatron" and data["plan"]["sequence_parallel"] is True
    assert data["plan"]["cpu_memory_gb"] == 2048  # whole GB: an integer
    assert data["plan"]["master_weights"] == "bf16"
    assert data["plan"]["tp_comm_overlap"] is True
    assert data["plan"]["grad_reduce_bf16"] is True


@pytest.mark.parametrize("key", ["tp_comm_overlap", "grad_reduce_bf16"])
def test_version_11_files_open_without_megatron_s_switches(key: str) -> None:
    data = as_version(11)
    plan = load(encode(data)).plan
    assert plan.tp_comm_overlap is False and plan.grad_reduce_bf16 is False
    assert plan.expert_tensor_parallel == 1
    data["plan"][key] = True  # a version 11 file cannot carry version 12 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize("key", ["tp_comm_overlap", "grad_reduce_bf16"])
@pytest.mark.parametrize("value", [None, 1, "true"])
def test_a_switch_that_is_not_true_or_false_is_refused(key: str, value: Any) -> None:
    data = good()
    data["plan"][key] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.WRONG_TYPE
    assert info.value.path == f"plan.{key}"


def test_version_9_files_open_with_the_fp32_master_copy() -> None:
    data = as_version(9)
    plan = load(encode(data)).plan
    assert plan.master_weights is MasterWeights.FP32 and plan.fused_loss is True
    data["plan"]["master_weights"] = "bf16"  # a version 9 file cannot carry version 10 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize("master", list(MasterWeights))
def test_the_master_copy_round_trips(master: MasterWeights) -> None:
    scenario = replace(FULL, plan=replace(FULL.plan, master_weights=master))
    assert load(save(scenario)) == scenario
    assert json.loads(save(scenario))["plan"]["master_weights"] == master.value


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("fp16", ReadProblem.BAD_CHOICE),
        (None, ReadProblem.WRONG_TYPE),
        (True, ReadProblem.WRONG_TYPE),
    ],
)
def test_a_master_copy_of_no_known_kind_is_refused(value: Any, reason: ReadProblem) -> None:
    data = good()
    data["plan"]["master_weights"] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason and info.value.path == "plan.master_weights"


def test_version_8_files_open_with_the_loss_not_fused() -> None:
    data = as_version(8)
    plan = load(encode(data)).plan
    assert plan.fused_loss is False and plan.cpu_memory_gb == 2048
    data["plan"]["fused_loss"] = True  # a version 8 file cannot carry version 9 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize("fused", [False, True])
def test_the_fused_loss_round_trips(fused: bool) -> None:
    scenario = replace(FULL, plan=replace(FULL.plan, fused_loss=fused))
    assert load(save(scenario)) == scenario
    assert json.loads(save(scenario))["plan"]["fused_loss"] is fused


@pytest.mark.parametrize("kernel", list(AttentionKernel))
def test_every_attention_kernel_round_trips(kernel: AttentionKernel) -> None:
    scenario = replace(FULL, plan=replace(FULL.plan, attention=kernel))
    assert load(save(scenario)) == scenario
    assert json.loads(save(scenario))["plan"]["attention"] == kernel.value


@pytest.mark.parametrize("value", [1, "true", None])
def test_a_fused_loss_that_is_not_true_or_false_is_refused(value: Any) -> None:
    data = good()
    data["plan"]["fused_loss"] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.WRONG_TYPE and info.value.path == "plan.fused_loss"


def test_version_7_files_open_with_the_nodes_memory_not_known() -> None:
    data = as_version(7)
    plan = load(encode(data)).plan
    assert plan.cpu_memory_gb is None
    assert plan.framework is Framework.MEGATRON and plan.sequence_parallel is True
    data["plan"]["cpu_memory_gb"] = 2048  # a version 7 file cannot carry version 8 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize("memory", [None, 1, 1024, 100_000])
def test_a_nodes_memory_round_trips(memory: int | None) -> None:
    scenario = replace(FULL, plan=replace(FULL.plan, cpu_memory_gb=memory))
    assert load(save(scenario)) == scenario
    assert json.loads(save(scenario))["plan"]["cpu_memory_gb"] == memory


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (0, ReadProblem.OUT_OF_RANGE),
        (100_001, ReadProblem.OUT_OF_RANGE),
        (-64, ReadProblem.OUT_OF_RANGE),
        ("2048", ReadProblem.WRONG_TYPE),
        (2048.5, ReadProblem.WRONG_TYPE),
        (True, ReadProblem.WRONG_TYPE),
    ],
)
def test_bad_node_memories_are_refused(value: Any, reason: ReadProblem) -> None:
    data = good()
    data["plan"]["cpu_memory_gb"] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason and info.value.path == "plan.cpu_memory_gb"


def test_a_version_8_file_without_the_nodes_memory_is_refused() -> None:
    data = good()
    del data["plan"]["cpu_memory_gb"]
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.MISSING_KEY
    assert info.value.path == "plan.cpu_memory_gb"


def test_version_6_files_open_with_deepspeed_and_no_sequence_parallelism() -> None:
    data = as_version(6)
    plan = load(encode(data)).plan
    assert plan.framework is Framework.DEEPSPEED and plan.sequence_parallel is False
    assert plan.vision_frozen is True and plan.tensor_parallel == 4
    data["plan"]["framework"] = "megatron"  # a version 6 file cannot carry version 7 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize("framework", list(Framework))
@pytest.mark.parametrize("recompute", list(Recompute))
def test_every_framework_and_recomputation_round_trips(
    framework: Framework, recompute: Recompute
) -> None:
    scenario = replace(FULL, plan=replace(FULL.plan, framework=framework, recompute=recompute))
    assert load(save(scenario)) == scenario
    assert json.loads(save(scenario))["plan"]["recompute"] == recompute.value


@pytest.mark.parametrize("version", [3, 4, 5, 6, 7])
def test_selective_recomputation_opens_in_every_version_with_the_key(version: int) -> None:
    data = as_version(version)
    data["plan"]["recompute"] = "selective"
    assert load(encode(data)).plan.recompute is Recompute.SELECTIVE


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("framework", "horovod", ReadProblem.BAD_CHOICE),
        ("framework", "DeepSpeed", ReadProblem.BAD_CHOICE),
        ("framework", None, ReadProblem.WRONG_TYPE),
        ("framework", 1, ReadProblem.WRONG_TYPE),
        ("sequence_parallel", "true", ReadProblem.WRONG_TYPE),
        ("sequence_parallel", 1, ReadProblem.WRONG_TYPE),
        ("sequence_parallel", None, ReadProblem.WRONG_TYPE),
    ],
)
def test_bad_framework_settings_are_refused(key: str, value: Any, reason: ReadProblem) -> None:
    data = good()
    data["plan"][key] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason and info.value.path == f"plan.{key}"


@pytest.mark.parametrize("key", FRAMEWORK_KEYS)
def test_a_version_7_file_without_a_framework_key_is_refused(key: str) -> None:
    data = good()
    del data["plan"][key]
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.MISSING_KEY and info.value.path == f"plan.{key}"


def test_version_5_files_open_with_one_image_at_the_models_size() -> None:
    data = as_version(5)
    plan = load(encode(data)).plan
    assert plan.images is plan.image_width is plan.image_height is None
    assert plan.vision_frozen is False and plan.fp8 is True
    data["plan"]["vision_frozen"] = True  # a version 5 file cannot carry version 6 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("images", -1, ReadProblem.OUT_OF_RANGE),
        ("images", "2", ReadProblem.WRONG_TYPE),
        ("image_width", 0, ReadProblem.OUT_OF_RANGE),
        ("vision_frozen", "yes", ReadProblem.WRONG_TYPE),
    ],
)
def test_bad_vision_inputs_are_refused(key: str, value: Any, reason: ReadProblem) -> None:
    data = good()
    data["plan"][key] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason


def test_version_4_files_open_with_the_defaults_of_the_newer_inputs() -> None:
    data = as_version(4)
    plan = load(encode(data)).plan
    assert plan.method is Method.QLORA and plan.overhead_gb == Decimal("1.5")
    assert plan.virtual_stages == 1 and plan.fp8 is False and plan.expert_parallel == 1
    assert plan.attention is AttentionKernel.SDPA
    assert plan.link_gbps is plan.network_gbps is plan.goodput_percent is None
    data["plan"]["fp8"] = True  # a version 4 file cannot carry version 5 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


def test_version_5_files_before_context_parallelism_open_with_none() -> None:
    data = json.loads(save(FULL))
    del data["plan"]["context_parallel"]
    plan = load(encode(data)).plan
    assert plan.context_parallel == 1 and plan.expert_parallel == 2
    assert load(save(FULL)).plan.context_parallel == 4
    data["plan"]["context_parallel"] = 0
    with pytest.raises(ScenarioError):
        load(encode(data))


def test_version_2_files_open_with_one_of_each() -> None:
    data = as_version(2)
    plan = load(encode(data)).plan
    assert plan.nodes == 2 and plan.tensor_parallel == 1 and plan.pipeline_stages == 1
    assert plan.recompute is Recompute.NONE and plan.model is None
    assert plan.efficiency_percent is plan.training_tokens is None
    assert plan.method is Method.FULL and plan.optimizer is Optimizer.ADAM
    data["plan"]["tensor_parallel"] = 2  # a version 2 file cannot carry version 3 keys
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.UNKNOWN_KEY


def test_version_3_files_open_with_their_model_and_typed_figures() -> None:
    plan = load(encode(as_version(3))).plan
    assert plan.model == ModelSpec.bundled("llama-3.1-8b")
    # the figures a version 3 file gives are typed values over the derived ones
    assert plan.activation_gb == Decimal("1.5") and plan.other_memory_gb == Decimal("27.25")
    assert plan.method is Method.FULL and plan.overhead_gb == Decimal(1)
    data = as_version(3)
    data["plan"]["model"] = None
    data["plan"]["model_params"] = 7_000_000_000
    assert load(encode(data)).plan.model == ModelSpec.typed_params(7_000_000_000)
    data["plan"]["model_params"] = 0
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.path == "plan.model_params"
    data["plan"]["model"] = "../etc/passwd"
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is ReadProblem.BAD_CHOICE


def test_every_kind_of_model_round_trips(tmp_path: Any) -> None:
    text = config_path("google__gemma-2b.json").read_text(encoding="utf-8")
    models = [
        None,
        ModelSpec.bundled("mixtral-8x7b"),
        ModelSpec.typed_params(123),
        ModelSpec.config(parse_model_config_text(text), "gemma.json", text),
        ModelSpec.typed_shape(TypedShape(Family.GPT2, 768, 12, 12, 12, 3072, 50257, 1024)),
        # a name this build lacks is kept (the plan says so)
        ModelSpec(ModelSource.BUNDLED, name="future-model-9b"),
    ]
    for model in models:
        scenario = replace(FULL, plan=replace(FULL.plan, model=model))
        again = load(save(scenario))
        assert again == scenario
        assert again.plan.model is None or again.plan.model.text == scenario.plan.model.text  # type: ignore[union-attr]
    names = replace(FULL, plan=replace(FULL.plan, lora_targets=("q_proj", "k_proj")))
    assert load(save(names)) == names


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        (5, ReadProblem.NOT_AN_OBJECT),
        ({"bundled": 5}, ReadProblem.WRONG_TYPE),
        ({"bundled": "../etc"}, ReadProblem.BAD_CHOICE),
        ({"bundled": "a", "params": 3}, ReadProblem.NOT_AN_OBJECT),
        ({"params": 0}, ReadProblem.OUT_OF_RANGE),
        ({"config": {"file_name": "x.json", "text": "{}"}}, ReadProblem.BAD_CHOICE),
        ({"config": {"file_name": "x.json"}}, ReadProblem.MISSING_KEY),
        ({"shape": {"family": "bert"}}, ReadProblem.MISSING_KEY),
        ({"weights": 1}, ReadProblem.UNKNOWN_KEY),
    ],
)
def test_bad_models_are_refused(model: Any, reason: ReadProblem) -> None:
    data = good()
    data["plan"]["model"] = model
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason, info.value


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("tensor_parallel", 0, ReadProblem.OUT_OF_RANGE),
        ("pipeline_stages", "2", ReadProblem.WRONG_TYPE),
        ("recompute", "partial", ReadProblem.BAD_CHOICE),
        ("method", "dora", ReadProblem.BAD_CHOICE),
        ("lora_rank", 0, ReadProblem.OUT_OF_RANGE),
        ("lora_targets", "q_proj;rm -rf", ReadProblem.BAD_CHOICE),
        ("optimizer", "adafactor", ReadProblem.BAD_CHOICE),
        ("overhead_gb", "-1", ReadProblem.OUT_OF_RANGE),
        ("efficiency_percent", "101", ReadProblem.OUT_OF_RANGE),
        ("efficiency_percent", "50.25", ReadProblem.TOO_PRECISE),
        ("price_per_gpu_hour", "-1", ReadProblem.OUT_OF_RANGE),
        ("training_tokens", 1.5, ReadProblem.WRONG_TYPE),
        ("custom_tflops", "0", ReadProblem.OUT_OF_RANGE),
        ("custom_link_gbps", 64, ReadProblem.WRONG_TYPE),
        ("virtual_stages", 0, ReadProblem.OUT_OF_RANGE),
        ("expert_parallel", 0, ReadProblem.OUT_OF_RANGE),
        ("expert_parallel", "2", ReadProblem.WRONG_TYPE),
        ("fp8", 1, ReadProblem.WRONG_TYPE),
        ("fp8", "true", ReadProblem.WRONG_TYPE),
        ("attention", "flash_attention_3", ReadProblem.BAD_CHOICE),
        ("link_gbps", "0", ReadProblem.OUT_OF_RANGE),
        ("network_gbps", 25, ReadProblem.WRONG_TYPE),
        ("goodput_percent", "0.5", ReadProblem.OUT_OF_RANGE),
        ("goodput_percent", "101", ReadProblem.OUT_OF_RANGE),
        ("goodput_percent", "90.125", ReadProblem.TOO_PRECISE),
    ],
)
def test_bad_time_settings_are_refused(key: str, value: object, reason: ReadProblem) -> None:
    data = good()
    data["plan"][key] = value
    with pytest.raises(ScenarioError) as info:
        load(encode(data))
    assert info.value.reason is reason and info.value.path == f"plan.{key}"


def test_accepts_bom_and_whitespace() -> None:
    assert load(b"\xef\xbb\xbf  " + save(FULL) + b"\n\n") == FULL


def _set(path: str, value: Any) -> bytes:
    data = good()
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    return encode(data)


def _drop(path: str) -> bytes:
    data = good()
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    del node[last]
    return encode(data)


VALID = save(FULL).decode()

BAD: dict[str, tuple[bytes, ReadProblem]] = {
    "empty file": (b"", ReadProblem.BAD_JSON),
    "whitespace only": (b"   \n", ReadProblem.BAD_JSON),
    "too large": (b" " * (MAX_BYTES + 1), ReadProblem.TOO_LARGE),
    "latin-1 bytes": ('{"format": "gradacc-scénario"}'.encode("latin-1"), ReadProblem.NOT_UTF8),
    "binary garbage": (bytes(range(256)), ReadProblem.NOT_UTF8),
    "truncated": (VALID[: len(VALID) // 2].encode(), ReadProblem.BAD_JSON),
    "trailing garbage": ((VALID + "}").encode(), ReadProblem.BAD_JSON),
    "single quotes": (VALID.replace('"', "'").encode(), ReadProblem.BAD_JSON),
    "deeply nested": (b"[" * 100_00 + b"]" * 100_00, ReadProblem.TOO_DEEP),
    "nested inside a value": (_set("plan.seq_len", [[[[[[[[[1]]]]]]]]]), ReadProblem.TOO_DEEP),
    "root is a list": (b"[]", ReadProblem.NOT_AN_OBJECT),
    "root is a number": (b"1", ReadProblem.NOT_AN_OBJECT),
    "root is null": (b"null", ReadProblem.NOT_AN_OBJECT),
    "duplicate key": (
        VALID.replace('"version": 12,', '"version": 12, "version": 12,').encode(),
        ReadProblem.DUPLICATE_KEY,
    ),
    "duplicate nested key": (
        VALID.replace('"gpus": 2,', '"gpus": 2, "gpus": 3,', 1).encode(),
        ReadProblem.DUPLICATE_KEY,
    ),
    "wrong format": (_set("format", "something-else"), ReadProblem.WRONG_FORMAT),
    "format missing": (_drop("format"), ReadProblem.MISSING_KEY),
    "version missing": (_drop("version"), ReadProblem.MISSING_KEY),
    "future version": (_set("version", 13), ReadProblem.UNSUPPORTED_VERSION),
    "version zero": (_set("version", 0), ReadProblem.UNSUPPORTED_VERSION),
    "version as string": (_set("version", "1"), ReadProblem.WRONG_TYPE),
    "version as bool": (_set("version", True), ReadProblem.WRONG_TYPE),
    "version as float": (
        VALID.replace('"version": 12', '"version": 12.0').encode(),
        ReadProblem.WRONG_TYPE,
    ),
    "calculator missing": (_drop("calculator"), ReadProblem.MISSING_KEY),
    "version 2 without nodes": (_drop("plan.nodes"), ReadProblem.MISSING_KEY),
    "zero stage 4": (_set("plan.zero_stage", 4), ReadProblem.OUT_OF_RANGE),
    "zero stage as string": (_set("plan.zero_stage", "3"), ReadProblem.WRONG_TYPE),
    "unknown precision": (_set("plan.precision", "fp8"), ReadProblem.BAD_CHOICE),
    "unknown offload": (_set("plan.offload", "nvme"), ReadProblem.BAD_CHOICE),
    "zero nodes": (_set("plan.nodes", 0), ReadProblem.OUT_OF_RANGE),
    "plan missing": (_drop("plan"), ReadProblem.MISSING_KEY),
    "calculator not object": (_set("calculator", [1, 2]), ReadProblem.NOT_AN_OBJECT),
    "plan is null": (_set("plan", None), ReadProblem.NOT_AN_OBJECT),
    "unknown top-level key": (_set("extra", 1), ReadProblem.UNKNOWN_KEY),
    "unknown nested key": (_set("plan.extra", 1), ReadProblem.UNKNOWN_KEY),
    "missing nested key": (_drop("calculator.gpus"), ReadProblem.MISSING_KEY),
    "bool posing as int": (_set("calculator.micro_batch", True), ReadProblem.WRONG_TYPE),
    "string posing as int": (_set("calculator.micro_batch", "4"), ReadProblem.WRONG_TYPE),
    "float posing as int": (_set("calculator.gpus", 2.0), ReadProblem.WRONG_TYPE),
    "null for required int": (_set("calculator.gpus", None), ReadProblem.WRONG_TYPE),
    "number for decimal": (_set("calculator.activation_gb", 0.5), ReadProblem.WRONG_TYPE),
    "NaN literal": (
        VALID.replace('"seq_len": 4096', '"seq_len": NaN').encode(),
        ReadProblem.NOT_A_NUMBER,
    ),
    "Infinity literal": (
        VALID.replace('"seq_len": 4096', '"seq_len": Infinity').encode(),
        ReadProblem.NOT_A_NUMBER,
    ),
    "-Infinity literal": (
        VALID.replace('"seq_len": 4096', '"seq_len": -Infinity').encode(),
        ReadProblem.NOT_A_NUMBER,
    ),
    "NaN string": (_set("calculator.activation_gb", "NaN"), ReadProblem.NOT_A_NUMBER),
    "exponent string": (_set("calculator.activation_gb", "1e3"), ReadProblem.NOT_A_NUMBER),
    "padded string": (_set("calculator.activation_gb", " 0.5"), ReadProblem.NOT_A_NUMBER),
    "comma decimal": (_set("calculator.activation_gb", "0,5"), ReadProblem.NOT_A_NUMBER),
    "huge integer": (
        VALID.replace('"seq_len": 4096', '"seq_len": ' + "9" * 5000).encode(),
        ReadProblem.NUMBER_TOO_LARGE,
    ),
    "big but short integer": (_set("plan.target_batch", 10**18), ReadProblem.OUT_OF_RANGE),
    "huge float": (
        VALID.replace('"seq_len": 4096', '"seq_len": 1e400').encode(),
        ReadProblem.WRONG_TYPE,
    ),
    "negative int": (_set("calculator.accumulation_steps", -1), ReadProblem.OUT_OF_RANGE),
    "zero gpus": (_set("plan.gpus", 0), ReadProblem.OUT_OF_RANGE),
    "negative decimal": (_set("plan.other_memory_gb", "-1"), ReadProblem.OUT_OF_RANGE),
    "activation too large": (_set("calculator.activation_gb", "100001"), ReadProblem.OUT_OF_RANGE),
    "activation zero": (_set("calculator.activation_gb", "0"), ReadProblem.OUT_OF_RANGE),
    "micro-batch over limit": (_set("calculator.micro_batch", 1_000_001), ReadProblem.OUT_OF_RANGE),
    "too precise": (_set("plan.gpu_memory_gb", "80.0001"), ReadProblem.TOO_PRECISE),
    "unknown rounding": (_set("plan.rounding", "up"), ReadProblem.BAD_CHOICE),
    "rounding as int": (_set("plan.rounding", 1), ReadProblem.WRONG_TYPE),
    "bad card id": (_set("plan.gpu_card", "../../etc/passwd"), ReadProblem.BAD_CHOICE),
    "card id as null": (_set("plan.gpu_card", None), ReadProblem.WRONG_TYPE),
    "optional int wrong type": (_set("plan.dataset_samples", "1000"), ReadProblem.WRONG_TYPE),
}


def test_corpus_is_big_enough() -> None:
    assert len(BAD) >= 20
    assert len({reason for _, reason in BAD.values()}) >= 15


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_scenarios_fail_cleanly(name: str) -> None:
    data, reason = BAD[name]
    with pytest.raises(ScenarioError) as info:
        load(data)
    assert info.value.reason is reason, str(info.value)
    assert str(info.value)


def test_error_names_the_key() -> None:
    with pytest.raises(ScenarioError) as info:
        load(_set("plan.gpus", 0))
    assert info.value.path == "plan.gpus"


def test_nulls_allowed_where_optional() -> None:
    data = good()
    for key in (
        "micro_batch",
        "gpu_memory_gb",
        "other_memory_gb",
        "activation_gb",
        "seq_len",
        "dataset_samples",
        "cpu_memory_gb",
    ):
        data["plan"][key] = None
    loaded = load(encode(data))
    assert loaded.plan.micro_batch is None and loaded.plan.seq_len is None
    assert loaded.plan.target_batch == 100


def test_rejects_str_input() -> None:
    with pytest.raises(TypeError):
        load(VALID)  # type: ignore[arg-type]


@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    with contextlib.suppress(ScenarioError):
        load(data)


def _refusal(value: Any) -> ReadProblem | None:
    """Why a scenario whose ``plan.seq_len`` is ``value`` must be refused, or None.

    In the order ``load`` checks: nesting, then the first constant or overlong integer
    in the text, then the type and range of the value itself.
    """

    def depth(v: Any) -> int:
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return 1 + max(map(depth, children), default=0) if isinstance(v, dict | list) else 0

    def first_token_problem(v: Any) -> ReadProblem | None:
        if isinstance(v, float) and not math.isfinite(v):
            return ReadProblem.NOT_A_NUMBER  # NaN, Infinity
        if isinstance(v, int) and not isinstance(v, bool) and len(str(abs(v))) > MAX_INT_DIGITS:
            return ReadProblem.NUMBER_TOO_LARGE
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return next(filter(None, map(first_token_problem, children)), None)

    if 2 + depth(value) > MAX_DEPTH:  # the file and its "plan" hold the value
        return ReadProblem.TOO_DEEP
    if (problem := first_token_problem(value)) is not None:
        return problem
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return ReadProblem.WRONG_TYPE
    in_range = SEQ_LEN_LIMITS.minimum <= value <= SEQ_LEN_LIMITS.maximum
    return None if in_range else ReadProblem.OUT_OF_RANGE


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=5), children, max_size=3)
        ),
        max_leaves=20,
    )
)
# each outcome at least once, whatever the draw
@example(2048)
@example(None)
@example(0)
@example(10**21)
@example(float("nan"))
@example([[[[[[1]]]]]])  # the deepest nesting accepted, then one more level
@example([[[[[[[1]]]]]]])
def test_random_json_is_refused_for_its_reason_or_loads(value: Any) -> None:
    data = good()
    data["plan"]["seq_len"] = value
    expected = _refusal(value)
    try:
        loaded = load(json.dumps(data).encode())
    except ScenarioError as error:
        assert error.reason is expected, (value, error)
        if expected in (ReadProblem.WRONG_TYPE, ReadProblem.OUT_OF_RANGE):
            assert error.path == "plan.seq_len"
    else:
        assert expected is None, (value, loaded)
        assert loaded == replace(FULL, plan=replace(FULL.plan, seq_len=value))
        assert load(save(loaded)) == loaded
