"""Reading torchtune recipe configs and GPT-NeoX YAMLs back into numbers.

The rules tested are torchtune's (recipes/full_finetune_distributed.py,
lora_finetune_*.py, training/precision.py get_dtype, training/_distributed.py
ParallelDims) and GPT-NeoX's (megatron/neox_arguments/arguments.py from_ymls,
calculate_derived, calculate_batch_parameters, check_batch_parameters); each test names
the rule it replays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.cli import main
from gradacc_desktop.core.batch.planning import deepspeed_check
from gradacc_desktop.core.frameworks.config_import import (
    Adapter,
    ConfigImportError,
    ConfigKind,
    ImportedConfig,
    read_config,
)
from gradacc_desktop.core.frameworks.config_import.derive_rules import neox_text, torchtune_replicas
from gradacc_desktop.core.frameworks.config_import.neox_keys import NEOX_KEYS
from gradacc_desktop.core.frameworks.rules import RULES, Rule
from gradacc_desktop.core.memory.setup import Offload, Precision
from gradacc_desktop.core.memory.zero import ZeroStage

# --------------------------------------------------------------------------- helpers

FULL = (
    "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
    "tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n"
    "  path: /tmp/tokenizer.model\n  max_seq_len: 4096\n"
    "batch_size: 2\ngradient_accumulation_steps: 4\ndtype: bf16\n"
)


def lora(builder: str = "lora_llama3_1_8b", **model: Any) -> str:
    fields = {
        "lora_attn_modules": "['q_proj', 'v_proj']",
        "apply_lora_to_mlp": "False",
        "lora_rank": "8",
        **{k: str(v) for k, v in model.items()},
    }
    lines = "".join(f"  {k}: {v}\n" for k, v in fields.items() if v != "DROP")
    return (
        f"model:\n  _component_: torchtune.models.llama3_1.{builder}\n{lines}"
        "batch_size: 2\ngradient_accumulation_steps: 8\ndtype: bf16\n"
    )


def unread(config: ImportedConfig) -> dict[str, tuple[str, bool]]:
    return {u.key: (u.value, u.refused) for u in config.unread}


def refused(config: ImportedConfig) -> list[str]:
    return [u.key for u in config.unread if u.refused]


def check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *argv: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(path), "--json", *argv])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


# --------------------------------------------------------------------------- torchtune


def test_torchtune_full_finetune_values_and_defaults() -> None:
    config = read_config(FULL)
    assert config.kind is ConfigKind.TORCHTUNE
    assert (config.micro_batch, config.accumulation_steps) == (2, 4)
    assert config.precision is Precision.BF16
    assert config.sequence_length == 4096
    assert config.base_model == "torchtune.models.llama3_1.llama3_1_8b"
    assert config.adapter is None and config.lora_targets is None
    # the defaults the recipes apply, shown as derived with a note
    assert config.checkpointing is False
    assert config.zero_stage is ZeroStage.WEIGHTS
    assert dict(config.defaults).keys() == {"checkpointing", "zero_stage"}
    assert config.key_of("micro_batch") == "batch_size"
    assert config.key_of("sequence_length") == "tokenizer.max_seq_len"
    assert config.unread == () and config.unknown_keys == ()
    d = config.derived(8)
    # batch_size per device x steps x data-parallel GPUs (no parallel dims: all of them)
    assert (d.data_parallel, d.effective_batch, d.problem) == (8, 2 * 4 * 8, None)
    setup, reasons = config.setup(8)
    assert reasons == [] and setup is not None
    assert (setup.gpus, setup.zero_stage, setup.precision) == (8, ZeroStage.WEIGHTS, Precision.BF16)


def test_torchtune_needs_batch_size_steps_and_dtype() -> None:
    # the recipes read cfg.batch_size, cfg.gradient_accumulation_steps and cfg.dtype as
    # attributes: OmegaConf >= 2.1 raises on a key the file does not have
    config = read_config("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n")
    assert config.kind is ConfigKind.TORCHTUNE
    assert unread(config) == {
        "batch_size": ("(not set)", True),
        "gradient_accumulation_steps": ("(not set)", True),
        "dtype": ("(not set)", True),
    }
    assert set(config.unresolved) >= {"micro_batch", "accumulation_steps", "precision"}
    # a null batch size is refused too (DataLoader(batch_size=None) does not batch)
    null = read_config(FULL.replace("batch_size: 2", "batch_size: null"))
    assert refused(null) == ["batch_size"]
    # torchtune has no "auto": DataLoader refuses it, len(dataloader) // "auto" fails
    auto = read_config(
        FULL.replace("batch_size: 2", "batch_size: auto").replace(
            "accumulation_steps: 4", "accumulation_steps: auto"
        )
    )
    assert refused(auto) == ["batch_size", "gradient_accumulation_steps"]
    assert auto.auto_fields == ()


@pytest.mark.parametrize(
    ("dtype", "precision", "refused_it"),
    [
        ("bf16", Precision.BF16, False),
        ("fp32", Precision.FP32, False),
        # get_dtype(None) is torch.float32
        ("null", Precision.FP32, False),
        # every fine-tuning recipe raises ValueError for fp16
        ("fp16", None, True),
        # get_dtype: ValueError("Dtype ... must be one of fp16, bf16, fp32, fp64")
        ("bfloat16", None, True),
        ("16", None, True),
        # accepted by torchtune, not modelled by gradacc
        ("fp64", None, False),
    ],
)
def test_torchtune_dtype(dtype: str, precision: Precision | None, refused_it: bool) -> None:
    config = read_config(FULL.replace("dtype: bf16", f"dtype: {dtype}"))
    assert config.precision is precision
    if precision is None:
        assert unread(config)["dtype"][1] is refused_it
    else:
        assert config.key_of("precision") == "dtype" and config.unread == ()


def test_torchtune_activation_checkpointing() -> None:
    on = read_config(FULL + "enable_activation_checkpointing: true\n")
    assert on.checkpointing is True and on.key_of("checkpointing") == (
        "enable_activation_checkpointing"
    )
    assert "checkpointing" not in dict(on.defaults)
    bad = read_config(FULL + "enable_activation_checkpointing: yes please\n")
    assert bad.checkpointing is None and not unread(bad)["enable_activation_checkpointing"][1]


def test_torchtune_lora_targets_in_hugging_face_names() -> None:
    config = read_config(lora(lora_attn_modules="['q_proj', 'k_proj', 'v_proj', 'output_proj']"))
    assert config.adapter is Adapter.LORA and config.lora_rank == 8
    assert config.base_4bit is None
    # torchtune's output_proj is Llama's o_proj
    assert config.lora_targets == ("q_proj", "k_proj", "v_proj", "o_proj")
    # apply_lora_to_mlp: FeedForward w1, w3, w2 = gate_proj, up_proj, down_proj
    mlp = read_config(lora(lora_attn_modules="['v_proj', 'v_proj']", apply_lora_to_mlp="True"))
    assert mlp.lora_targets == ("v_proj", "gate_proj", "up_proj", "down_proj")
    assert mlp.key_of("lora_targets") == "model.lora_attn_modules"


def test_torchtune_lora_notes_and_refusals() -> None:
    output = read_config(lora(apply_lora_to_output="True", use_dora="True"))
    assert output.lora_targets == ("q_proj", "v_proj")
    assert unread(output) == {
        "model.apply_lora_to_output": ("true", False),
        "model.use_dora": ("true", False),
    }
    # the builders test membership: an unknown name adapts nothing
    odd = read_config(lora(lora_attn_modules="['q_proj', 'wq']"))
    assert odd.lora_targets == ("q_proj",)
    assert unread(odd) == {"model.lora_attn_modules": ('"wq"', False)}
    # lora_*_self_attention(): ValueError("Must pass one or more of ... as lora_modules")
    empty = read_config(lora(lora_attn_modules="[]"))
    assert refused(empty) == ["model.lora_attn_modules"] and empty.lora_targets is None
    # the LoRA recipes read cfg_model.lora_rank, lora_attn_modules, apply_lora_to_mlp
    for key in ("lora_rank", "lora_attn_modules", "apply_lora_to_mlp"):
        config = read_config(lora(**{key: "DROP"}))
        assert refused(config) == [f"model.{key}"], key
    not_bool = read_config(lora(apply_lora_to_mlp="'yes'"))
    assert unread(not_bool) == {"model.apply_lora_to_mlp": ('"yes"', False)}


def test_torchtune_qlora() -> None:
    # qlora_<model> = partial(lora_<model>, quantize_base=True)
    builder = read_config(lora("qlora_llama3_1_8b"))
    assert builder.adapter is Adapter.QLORA and builder.base_4bit is True
    assert builder.key_of("base_4bit") == "model._component_"
    flag = read_config(lora(quantize_base="True"))
    assert flag.adapter is Adapter.QLORA and flag.key_of("base_4bit") == "model.quantize_base"


def test_torchtune_sequence_length() -> None:
    # max_seq_len: null does not truncate: the length stays unknown
    assert read_config(FULL.replace("4096", "null")).sequence_length is None
    assert read_config(FULL.replace("max_seq_len: 4096\n", "")).sequence_length is None
    bad = read_config(FULL.replace("4096", "long"))
    assert bad.sequence_length is None and "tokenizer.max_seq_len" in unread(bad)


def test_torchtune_fsdp_sharding_and_offload() -> None:
    offload = read_config(FULL + "fsdp_cpu_offload: true\n")
    # CPUOffloadPolicy: parameters, gradients and optimizer states on the CPU
    assert offload.offload is Offload.ALL and offload.zero_stage is ZeroStage.WEIGHTS
    setup, reasons = offload.setup(4)
    assert reasons == [] and setup is not None and setup.offload is Offload.ALL
    off = read_config(FULL + "fsdp_cpu_offload: false\n")
    assert off.offload is Offload.NONE
    # reshard_after_forward=False is SHARD_GRAD_OP: ZeRO-2's sharding
    grad_op = read_config(FULL + "fsdp_reshard_after_forward: false\n")
    assert grad_op.zero_stage is ZeroStage.GRADIENTS
    assert grad_op.key_of("zero_stage") == "fsdp_reshard_after_forward"
    both = read_config(FULL + "fsdp_reshard_after_forward: false\nfsdp_cpu_offload: true\n")
    assert both.offload is None and unread(both) == {"fsdp_cpu_offload": ("true", False)}
    assert "offload" in both.unresolved


@pytest.mark.parametrize(
    ("extra", "gpus", "replicas", "sizes", "problem"),
    [
        # dp_shard -1 (the default) is the rest of the GPUs
        (
            "tensor_parallel_dim: 2\ntensor_parallel_plan: {_component_: p}\n",
            8,
            4,
            {"tensor": 2, "shard": 4},
            None,
        ),
        ("context_parallel_dim: 2\n", 8, 4, {"context": 2, "shard": 4}, None),
        ("data_parallel_replicate_dim: 2\n", 8, 8, {"shard": 4, "replicate": 2}, None),
        (
            "data_parallel_shard_dim: 4\ndata_parallel_replicate_dim: 2\n",
            8,
            8,
            {"shard": 4, "replicate": 2},
            None,
        ),
        ("data_parallel_shard_dim: 1\n", 1, 1, {}, None),
        # the product must equal the world size
        (
            "data_parallel_shard_dim: 2\ndata_parallel_replicate_dim: 2\n",
            8,
            None,
            {"shard": 2, "replicate": 2},
            "Invalid parallel dims: dp_replicate(2) * dp_shard(2) * tp(1) * cp(1) != WORLD_SIZE(8)",
        ),
        (
            "context_parallel_dim: 3\n",
            8,
            None,
            {"context": 3, "shard": 2},
            "dp_shard(2) * tp(1) * cp(3) != WORLD_SIZE(8)",
        ),
        # world_size // (replicate x tp x cp) = 0: assert dp_shard >= 1
        ("context_parallel_dim: 16\n", 8, None, {}, "infers data_parallel_shard_dim = 0"),
        ("data_parallel_replicate_dim: 0\n", 8, None, {}, "data_parallel_replicate_dim = 0"),
        ("data_parallel_shard_dim: 0\n", 8, None, {}, "dp_shard must -1 or >=1"),
    ],
)
def test_torchtune_parallel_dims(
    extra: str, gpus: int, replicas: int | None, sizes: dict[str, int], problem: str | None
) -> None:
    config = read_config(FULL + extra)
    d = config.derived(gpus)
    assert d.data_parallel == replicas
    assert dict(d.parallel) == sizes
    if problem is None:
        assert d.problem is None and d.effective_batch == 2 * 4 * replicas
        setup, reasons = config.setup(gpus)
        assert reasons == [] and setup is not None
        assert (setup.tensor_parallel, setup.context_parallel) == (
            sizes.get("tensor", 1),
            sizes.get("context", 1),
        )
    else:
        assert d.problem is not None and problem in d.problem
        assert d.effective_batch is None


def test_torchtune_tensor_parallel_needs_a_plan() -> None:
    # full_finetune_distributed: ValueError("Tensor Parallel plan needs to be provided...")
    config = read_config(FULL + "tensor_parallel_dim: 2\n")
    assert refused(config) == ["tensor_parallel_dim"]
    assert dict(config.derived(8).parallel) == {"tensor": 2, "shard": 4}
    # a size that is not a whole number is refused
    text = read_config(FULL + "tensor_parallel_dim: two\n")
    assert refused(text) == ["tensor_parallel_dim"]


@given(
    gpus=st.integers(1, 64),
    tp=st.integers(1, 8),
    cp=st.integers(1, 8),
    replicate=st.integers(1, 8),
    shard=st.sampled_from([-1, 1, 2, 4, 8]),
)
def test_torchtune_replicas_cover_the_world(
    gpus: int, tp: int, cp: int, replicate: int, shard: int
) -> None:
    config = ImportedConfig(
        kind=ConfigKind.TORCHTUNE,
        parallel=(
            ("tensor", tp, "tensor_parallel_dim"),
            ("context", cp, "context_parallel_dim"),
            ("shard", shard, "data_parallel_shard_dim"),
            ("replicate", replicate, "data_parallel_replicate_dim"),
        ),
    )
    replicas, sizes, problem = torchtune_replicas(config, gpus)
    inferred = gpus // (replicate * tp * cp) if shard == -1 else shard
    accepted = inferred >= 1 and replicate * inferred * tp * cp == gpus
    assert (problem is None) is accepted
    if accepted:
        assert replicas == replicate * inferred
        assert replicas * tp * cp == gpus
        assert all(size > 1 for _, size in sizes)
    else:
        assert replicas is None


def test_torchtune_interpolations() -> None:
    config = read_config(FULL.replace("batch_size: 2", "bsz: 6\nbatch_size: ${bsz}"))
    assert config.micro_batch == 6
    # a resolver (or a key that is not there) cannot be followed: open, not refused
    env = read_config(FULL.replace("batch_size: 2", "batch_size: ${oc.env:BSZ}"))
    assert env.micro_batch is None and unread(env)["batch_size"][1] is False
    assert "micro_batch" in env.unresolved
    nested = read_config(
        FULL.replace("max_seq_len: 4096", "max_seq_len: ${seq.len}") + "seq:\n  len: 512\n"
    )
    assert nested.sequence_length == 512


def test_torchtune_unknown_keys_are_ignored_but_misspellings_named() -> None:
    config = read_config(
        FULL.replace("gradient_accumulation_steps", "gradient_accumulation_step")
        + "batch_size_val: 4\nmy_own_note: hello\nfsdp_cpu_ofload: true\n"
    )
    assert [(u.key, u.suggestion, u.refused) for u in config.unknown_keys] == [
        ("gradient_accumulation_step", "gradient_accumulation_steps", False),
        ("fsdp_cpu_ofload", "fsdp_cpu_offload", False),
    ]
    # the misspelt steps are missing, and the recipe would fail for it
    assert refused(config) == ["gradient_accumulation_steps"]


def test_torchtune_model_section() -> None:
    missing = read_config("tokenizer:\n  _component_: t\nbatch_size: 1\n")
    assert missing.kind is ConfigKind.TORCHTUNE
    assert "model" in refused(missing)
    odd = read_config(FULL.replace("llama3_1_8b\n", "llama3_1_8b\n  _component_extra: 1\n"))
    assert odd.base_model == "torchtune.models.llama3_1.llama3_1_8b"


def test_torchtune_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lora(apply_lora_to_mlp="True") + (
        "tensor_parallel_dim: 2\ntensor_parallel_plan:\n  _component_: plan\n"
        "enable_activation_checkpointing: true\nfsdp_cpu_offload: true\n"
    )
    code, data = check(tmp_path, capsys, text, "--world-size", "8")
    assert code == 0 and data["kind"] == "torchtune" and data["framework_accepts"] is True
    assert data["values"]["micro_batch"] == 2 and data["values"]["accumulation_steps"] == 8
    assert data["values"]["adapter"] == "lora" and data["values"]["checkpointing"] is True
    assert data["values"]["lora_targets"] == [
        "q_proj",
        "v_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
    ]
    assert data["parallel"] == {"tensor": 2, "shard": 4}
    assert data["data_parallel_size"] == 4 and data["effective_batch"] == 2 * 8 * 4
    assert data["setup"]["zero_stage"] == 3 and data["setup"]["offload"] == "all"
    assert "zero_stage" in data["derived"]["names"]
    # refused: exit 1, the reason first
    code, data = check(
        tmp_path, capsys, text.replace("dtype: bf16", "dtype: fp16"), "--world-size", "8"
    )
    assert code == 1 and data["framework_accepts"] is False
    assert data["problems"][0].startswith('dtype = "fp16": torchtune')
    # tp 2 on 7 GPUs: dp_shard = 7 // 2 = 3, and 3 x 2 != 7
    code, data = check(tmp_path, capsys, text, "--world-size", "7")
    assert code == 1 and "Invalid parallel dims" in data["problems"][0]
    # the text report names every value read
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path), "--world-size", "8"]) == 0
    out = capsys.readouterr().out
    assert "activation checkpointing: true  (enable_activation_checkpointing)" in out
    assert "Effective batch: 2 (micro-batch) x 8 (accumulation steps) x 4 " in out


# --------------------------------------------------------------------------- GPT-NeoX


def neox(**keys: Any) -> ImportedConfig:
    return read_config(json.dumps({"pipe_parallel_size": 1, **keys}))


def test_neox_default_accumulation_steps_is_one() -> None:
    # NeoXArgsDeepspeedConfig.gradient_accumulation_steps = 1: micro-batch alone gives
    # train_batch_size = micro x 1 x data-parallel GPUs
    config = neox(train_micro_batch_size_per_gpu=4)
    assert config.kind is ConfigKind.NEOX and config.accumulation_steps == 1
    assert config.key_of("accumulation_steps") is None
    d = config.derived(8)
    assert (d.train_batch_size, d.effective_batch, d.problem) == (32, 32, None)
    assert d.derived[0] == "accumulation_steps" and "GPT-NeoX's default" in d.notes[0]
    assert "train batch size = 32 (GPT-NeoX's derivation)" in d.notes


def test_neox_does_not_derive_the_steps_like_deepspeed() -> None:
    # DeepSpeed derives gradient_accumulation_steps = 64 // 4 // 8 = 2 ...
    ds = read_config(json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4}))
    assert ds.derived(8).accumulation_steps == 2
    # ... GPT-NeoX keeps its default 1, and check_batch_parameters() asserts 64 == 4 x 1 x 8
    config = neox(train_batch_size=64, train_micro_batch_size_per_gpu=4)
    d = config.derived(8)
    assert d.effective_batch is None and d.problem is not None
    assert d.problem.startswith('GPT-NeoX refuses train_batch_size 64: "train_batch_size is not')
    assert (
        "64 != 4 * 1 * 8" in d.problem and "does not set gradient_accumulation_steps" in d.problem
    )
    # written null, calculate_batch_parameters() derives it: 64 // 4 // 8
    null = neox(
        train_batch_size=64, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=None
    )
    d = null.derived(8)
    assert (d.accumulation_steps, d.effective_batch) == (2, 64)
    assert "accumulation steps = 2 (GPT-NeoX's derivation)" in d.notes
    # train_batch_size and the steps: micro = 64 // 8 // 2
    steps = neox(train_batch_size=64, gradient_accumulation_steps=2)
    assert steps.derived(8).micro_batch == 4
    # train_batch_size alone (steps 1 by default): micro = train // dp, checked exactly
    alone = neox(train_batch_size=12)
    assert alone.derived(4).micro_batch == 3
    assert alone.derived(8).problem is not None and "12 != 1 * 1 * 8" in alone.derived(8).problem


def test_neox_text_follows_its_assertions() -> None:
    config = neox(train_micro_batch_size_per_gpu=4)
    missing = neox_text(deepspeed_check(None, None, 1, 4), config)
    assert "Either train_batch_size or micro_batch_per_gpu needs to be provided" in missing
    zero = neox_text(deepspeed_check(2, None, 1, 4), config)
    assert zero == (
        'GPT-NeoX refuses it on 4 data-parallel GPU(s): "Micro batch size per gpu: 0 has '
        'to be greater than 0".'
    )
    train = neox_text(deepspeed_check(0, 1, 1, 4), config)
    assert '"Train batch size: 0 has to be greater than 0"' in train
    steps = neox_text(deepspeed_check(2, 1, None, 4), config)
    assert '"Gradient accumulation steps: 0 has to be greater than 0"' in steps
    mismatch = neox_text(deepspeed_check(10, 2, 1, 4), neox(gradient_accumulation_steps=1))
    assert mismatch.endswith("10 != 2 * 1 * 4 (data-parallel GPUs).")


def test_neox_parallel_sizes_and_gpus() -> None:
    config = neox(
        pipe_parallel_size=2,
        model_parallel_size=2,
        train_micro_batch_size_per_gpu=4,
        gradient_accumulation_steps=8,
        global_num_gpus=16,
    )
    # calculate_derived(): global_num_gpus in the file is used as it is
    assert config.gpus == 16
    d = config.derived()
    assert (d.gpus, d.gpus_from, d.data_parallel) == (16, "file", 4)
    assert d.effective_batch == 4 * 8 * 4
    # (global_num_gpus / pp) / mp must be a whole number
    assert config.derived(6).problem is not None
    per_node = neox(train_micro_batch_size_per_gpu=4, num_gpus=8)
    assert per_node.gpus is None and unread(per_node)["num_gpus"] == ("8", False)


def test_neox_zero_optimization() -> None:
    # pipe_parallel_size 0: the model runs as a sequential module (no PipelineEngine)
    assert neox(pipe_parallel_size=0, zero_optimization={"stage": 2}).zero_stage is (
        ZeroStage.GRADIENTS
    )
    offload = neox(
        pipe_parallel_size=0,
        zero_optimization={"stage": 3, "offload_optimizer": {"device": "cpu"}},
    )
    assert offload.offload is Offload.OPTIMIZER
    # calculate_derived(): self.zero_optimization["stage"] raises KeyError
    assert refused(neox(zero_optimization={"overlap_comm": True})) == ["zero_optimization"]
    assert refused(neox(zero_optimization=True)) == ["zero_optimization"]
    # "Zero Stage must be an integer unless you are doing autotuning"
    assert refused(neox(zero_optimization={"stage": 4})) == ["zero_optimization.stage"]
    tuned = neox(zero_optimization={"stage": "auto"}, autotuning={"enabled": True})
    assert tuned.unread == () and "zero_stage" in tuned.auto_fields
    # DeepSpeed's PipelineEngine: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
    # parallelism"; calculate_derived(): is_pipe_parallel = pipe_parallel_size >= 1, so
    # one stage is a PipelineModule too (only 0 runs the model as a sequential module)
    piped = neox(pipe_parallel_size=2, zero_optimization={"stage": 2})
    assert refused(piped) == ["zero_optimization.stage"] and piped.zero_stage is None
    one = neox(pipe_parallel_size=1, zero_optimization={"stage": 3})
    assert refused(one) == ["zero_optimization.stage"] and one.zero_stage is None
    assert one.unread[0].reason == RULES[Rule.PIPELINE_ZERO].text.format(zero=3)
    assert neox(pipe_parallel_size=1, zero_optimization={"stage": 1}).zero_stage == 1
    assert neox(pipe_parallel_size=0, zero_optimization={"stage": 3}).zero_stage == 3


@pytest.mark.parametrize(
    ("keys", "precision", "refused_key"),
    [
        ({"precision": "bfloat16"}, Precision.BF16, None),
        ({"precision": "fp16"}, Precision.FP16, None),
        ({"precision": "fp32"}, Precision.FP32, None),
        # a fp16 section enabled sets precision "fp16" when it is None
        ({"fp16": {"enabled": True}}, Precision.FP16, None),
        ({"fp16": {"enabled": False}}, None, None),
        ({"precision": "fp16", "fp16": {"enabled": True}}, Precision.FP16, None),
        # ... and asserts it otherwise
        ({"precision": "bfloat16", "fp16": {"enabled": True}}, None, "precision"),
        # a bf16 section enabled sets precision "bfloat16" when it is None ...
        ({"bf16": {"enabled": True}}, Precision.BF16, None),
        ({"bf16": {"enabled": False}}, None, None),
        ({"precision": "bfloat16", "bf16": {"enabled": True}}, Precision.BF16, None),
        # ... and asserts it otherwise ("DeepSpeed bf16 field was set but precision
        # conflicts"), also against the "fp16" the fp16 section set
        ({"precision": "fp16", "bf16": {"enabled": True}}, None, "precision"),
        ({"precision": "fp32", "bf16": {"enabled": True}}, None, "precision"),
        ({"precision": "bf16", "bf16": {"enabled": True}}, None, "precision"),
        ({"fp16": {"enabled": True}, "bf16": {"enabled": True}}, None, "bf16.enabled"),
        ({}, None, None),
    ],
)
def test_neox_precision(
    keys: dict[str, Any], precision: Precision | None, refused_key: str | None
) -> None:
    config = neox(train_micro_batch_size_per_gpu=1, **keys)
    assert config.precision is precision
    assert refused(config) == ([] if refused_key is None else [refused_key])


def test_neox_precision_values_it_turns_into_fp32() -> None:
    # calculate_derived() sets anything but "fp16" / "bfloat16" to "fp32" before
    # validate_types() runs: "bf16" silently trains in fp32
    config = neox(precision="bf16")
    assert config.precision is Precision.FP32
    assert unread(config) == {"precision": ('"bf16"', False)}
    listed = neox(precision=["bfloat16"])
    assert listed.precision is Precision.FP32 and unread(listed)["precision"][1] is False


def test_neox_fp16_type_bfloat16_trains_in_fp16() -> None:
    # calculate_derived() sets precision "fp16" and hands the section to DeepSpeed, whose
    # get_fp16_enabled() reads only "enabled" (GPT-NeoX before #787 read it as bf16)
    typed = neox(fp16={"enabled": True, "type": "bfloat16"})
    assert typed.precision is Precision.FP16 and typed.unread == ()
    assert typed.key_of("precision") == "fp16.enabled"
    assert any('fp16.type = "bfloat16" is not read' in n for n in typed.notes)


def test_neox_sequence_checkpointing_and_dashes() -> None:
    # from_ymls(): conf_key.replace("-", "_")
    config = read_config(
        "{\n  # comment\n  'pipe-parallel-size': 1,\n  'seq-length': 2048,\n"
        "  'checkpoint-activations': true,\n  'train_micro_batch_size_per_gpu': 4,\n}\n"
    )
    assert config.kind is ConfigKind.NEOX
    assert config.sequence_length == 2048 and config.key_of("sequence_length") == "seq-length"
    assert config.checkpointing is True
    assert config.key_of("checkpointing") == "checkpoint-activations"
    assert config.unknown_keys == ()
    assert neox().checkpointing is False  # checkpoint_activations: bool = False


def test_neox_unknown_keys_are_refused() -> None:
    # NeoXArgs(**config): TypeError for a key that is not a field
    config = read_config(
        "pipe_parallel_size: 1\ntrain_micro_batch_size: 4\nlearning-rate: 0.1\n"
        "num-layers: 2\n7: x\n"
    )
    assert [(u.key, u.suggestion, u.refused) for u in config.unknown_keys] == [
        ("train_micro_batch_size", "train_micro_batch_size_per_gpu", True),
        ("learning-rate", None, True),
        ("7", None, True),
    ]
    assert {"train_batch_size", "zero_optimization", "fp16", "hostfile"} <= NEOX_KEYS
    # not fields: class attributes without an annotation
    assert not {"tensorboard_writer", "tokenizer", "adlr_autoresume_object"} & NEOX_KEYS


def test_neox_auto_only_with_autotuning() -> None:
    # validate_types(): "auto" passes only when autotuning is set
    plain = neox(train_micro_batch_size_per_gpu="auto")
    assert refused(plain) == ["train_micro_batch_size_per_gpu"]
    tuned = neox(train_micro_batch_size_per_gpu="auto", autotuning={"enabled": True})
    assert tuned.unread == () and "micro_batch" in tuned.auto_fields


def test_neox_json_like_yaml_is_parsed_deepspeed_json_is_not() -> None:
    text = (
        '{\n  # parallelism\n  "pipe_parallel_size": 1,\n  "model_parallel_size": 2,\n'
        '  "train_micro_batch_size_per_gpu": 4,\n  "zero_optimization": {"stage": 1,},\n}\n'
    )
    config = read_config(text)
    assert config.kind is ConfigKind.NEOX and config.zero_stage is ZeroStage.OPTIMIZER
    assert config.derived(8).data_parallel == 4
    # a DeepSpeed JSON with a comment or a trailing comma is still refused (json.load)
    deepspeed = '{\n  # micro\n  "train_micro_batch_size_per_gpu": 4,\n}\n'
    with pytest.raises(ConfigImportError, match="not valid JSON"):
        read_config(deepspeed)
    with pytest.raises(ConfigImportError, match="not valid JSON"):
        read_config('{"train_batch_size": 8, "zero_optimization": {"stage": 1},}')
    # and so is a text that YAML cannot read either
    with pytest.raises(ConfigImportError, match="not valid JSON"):
        read_config('{"pipe_parallel_size": [1,}')


def test_neox_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "# NeoX\n{\n  'pipe-parallel-size': 2,\n  'model-parallel-size': 2,\n"
        "  'train_micro_batch_size_per_gpu': 4,\n  'gradient_accumulation_steps': 8,\n"
        "  'precision': 'bfloat16',\n  'seq_length': 2048,\n  'checkpoint_activations': true,\n"
        "  'zero_optimization': {'stage': 1},\n}\n"
    )
    code, data = check(tmp_path, capsys, text, "--world-size", "8")
    assert code == 0 and data["kind"] == "gpt-neox" and data["framework_accepts"] is True
    assert data["parallel"] == {"pipeline": 2, "tensor": 2}
    assert data["data_parallel_size"] == 2 and data["effective_batch"] == 4 * 8 * 2
    assert data["values"]["precision"] == "bf16" and data["values"]["checkpointing"] is True
    assert data["tokens_per_step"] == 64 * 2048
    assert data["setup"]["zero_stage"] == 1
    code, data = check(
        tmp_path, capsys, text.replace("'seq_length'", "'seq_lenght'"), "--world-size", "8"
    )
    assert code == 1
    assert data["unknown_keys"] == [
        {
            "key": "seq_lenght",
            "suggestion": "seq_length",
            "refused": True,
            "reason": "GPT-NeoX 2.0.0 (main at ea7aefd, 2026-05-19) refuses keys that are not "
            "NeoX arguments (NeoXArgs(**config) raises TypeError)",
        }
    ]
    code, data = check(
        tmp_path,
        capsys,
        text.replace("'gradient_accumulation_steps': 8", "'train_batch_size': 64"),
        "--world-size",
        "8",
    )
    assert code == 1 and data["problems"][0].startswith("GPT-NeoX refuses train_batch_size 64")


# --------------------------------------------------------------------------- robustness

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.sampled_from(["auto", "bf16", "fp16", "bfloat16", "-1", "${batch_size}", "${x.y}"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_TORCHTUNE_KEYS = [
    "batch_size",
    "gradient_accumulation_steps",
    "dtype",
    "enable_activation_checkpointing",
    "fsdp_cpu_offload",
    "fsdp_reshard_after_forward",
    "tensor_parallel_dim",
    "tensor_parallel_plan",
    "context_parallel_dim",
    "data_parallel_shard_dim",
    "data_parallel_replicate_dim",
    "tokenizer",
]
_MODEL_KEYS = [
    "lora_rank",
    "lora_attn_modules",
    "apply_lora_to_mlp",
    "apply_lora_to_output",
    "quantize_base",
    "use_dora",
]
_NEOX_KEYS = [
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "gradient_accumulation_steps",
    "zero_optimization",
    "precision",
    "fp16",
    "bf16",
    "pipe-parallel-size",
    "model_parallel_size",
    "context_parallel_size",
    "seq_length",
    "checkpoint_activations",
    "global_num_gpus",
    "num_gpus",
    "autotuning",
]


@given(
    top=st.dictionaries(st.sampled_from(_TORCHTUNE_KEYS), _VALUES, max_size=8),
    model=st.dictionaries(st.sampled_from(_MODEL_KEYS), _VALUES, max_size=5),
    builder=st.sampled_from(["llama3_1_8b", "lora_llama3_1_8b", "qlora_llama3_1_8b"]),
    gpus=st.integers(1, 16),
)
def test_torchtune_reader_never_crashes(
    top: dict[str, Any], model: dict[str, Any], builder: str, gpus: int
) -> None:
    data = {"model": {"_component_": f"torchtune.models.llama3_1.{builder}", **model}, **top}
    config = read_config(json.dumps(data))
    assert config.kind is ConfigKind.TORCHTUNE
    d = config.derived(gpus)
    if d.effective_batch is not None:
        assert d.data_parallel is not None
        assert d.effective_batch == d.micro_batch * d.accumulation_steps * d.data_parallel
    config.setup(gpus)


@given(
    keys=st.dictionaries(st.sampled_from(_NEOX_KEYS), _VALUES, max_size=8), gpus=st.integers(1, 16)
)
def test_neox_reader_never_crashes(keys: dict[str, Any], gpus: int) -> None:
    config = read_config(json.dumps({"pipe_parallel_size": 1, **keys}))
    assert config.kind is ConfigKind.NEOX
    d = config.derived(gpus)
    if d.effective_batch is not None:
        assert d.data_parallel is not None
        assert d.effective_batch == d.micro_batch * d.accumulation_steps * d.data_parallel
    config.setup(gpus)
