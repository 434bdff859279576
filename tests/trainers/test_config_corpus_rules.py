"""torchtune and GPT-NeoX files of the corpus, rule-checked (neither framework is
installed here): ``gradacc check --json`` against the file's own keys read with PyYAML,
under each framework's rules.

* torchtune (recipes/full_finetune_distributed.py, lora_finetune_*.py): the micro-batch
  is ``batch_size`` per device, the steps ``gradient_accumulation_steps``, the precision
  ``dtype`` (training/precision.py get_dtype), the sequence length
  ``tokenizer.max_seq_len`` (null: none); LoRA builders are ``lora_*`` / ``qlora_*``
  with ``lora_rank``. The data-parallel replicas are training/_distributed.py
  ParallelDims: dp_replicate x dp_shard, dp_shard -1 being GPUs // (dp_replicate x tp x
  cp), and the product with tp and cp must be the GPU count.
* GPT-NeoX (megatron/neox_arguments/arguments.py at ea7aefd, the source gradacc reads):
  keys with "-" are read with "_" (from_ymls) and must be NeoXArgs fields;
  gradient_accumulation_steps defaults to 1; the data-parallel size is
  (GPUs / pipe_parallel_size) / model_parallel_size, sizes below 1 read as 1
  (calculate_derived); train batch = micro x steps x data-parallel size
  (calculate_batch_parameters, check_batch_parameters); a fp16 section enabled sets the
  precision to fp16, a bf16 section enabled to bfloat16; seq_length and
  checkpoint_activations are read as they are. ``NEOX_OWN`` holds what NeoX's own
  argument class made of each file, and the reading must agree with it.

The effective batch is micro-batch x steps x data-parallel replicas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gradacc_desktop.cli import main
from tests.trainers.corpus import CORPUS, KINDS

TORCHTUNE_FILES = sorted(CORPUS / n for n, k in KINDS.items() if k == "torchtune YAML")
NEOX_FILES = sorted(CORPUS / n for n, k in KINDS.items() if k == "GPT-NeoX YAML")
GPU_COUNTS = (1, 4, 8, 16)


def test_the_corpus_has_these_kinds() -> None:
    assert len(TORCHTUNE_FILES) >= 4 and len(NEOX_FILES) >= 2
    assert all(p.is_file() for p in TORCHTUNE_FILES + NEOX_FILES)


def _check(path: Path, gpus: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(["check", str(path), "--json", "--world-size", str(gpus)])
    out, err = capsys.readouterr()
    assert err == "" and "Traceback" not in out
    return code, json.loads(out)


# --------------------------------------------------------------------------- torchtune

# torchtune's attention projections in Hugging Face Llama names; apply_lora_to_mlp adds
# the FeedForward's w1, w3, w2 (gate, up, down)
_ATTENTION = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "output_proj": "o_proj"}


def _torchtune_replicas(raw: dict[str, Any], gpus: int) -> int | None:
    tp = raw.get("tensor_parallel_dim", 1)
    cp = raw.get("context_parallel_dim", 1)
    replicate = raw.get("data_parallel_replicate_dim", 1)
    shard = raw.get("data_parallel_shard_dim", -1)
    if shard == -1:
        shard = gpus // (replicate * tp * cp)
    if shard < 1 or replicate * shard * tp * cp != gpus:
        return None
    return int(replicate * shard)


@pytest.mark.parametrize("gpus", GPU_COUNTS)
@pytest.mark.parametrize("path", TORCHTUNE_FILES, ids=lambda p: p.name)
def test_torchtune_rules(path: Path, gpus: int, capsys: pytest.CaptureFixture[str]) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    code, data = _check(path, gpus, capsys)
    values = data["values"]
    assert data["kind"] == "torchtune"
    assert values["micro_batch"] == raw["batch_size"]
    assert values["accumulation_steps"] == raw["gradient_accumulation_steps"]
    assert values["precision"] == {"bf16": "bf16", "fp32": "fp32"}[raw["dtype"]]
    assert values["sequence_length"] == raw.get("tokenizer", {}).get("max_seq_len")
    assert values["checkpointing"] is raw.get("enable_activation_checkpointing", False)
    component = raw["model"]["_component_"]
    builder = component.rsplit(".", 1)[-1]
    assert values["base_model"] == component
    if builder.startswith(("lora_", "qlora_")):
        model = raw["model"]
        assert values["adapter"] == ("qlora" if builder.startswith("qlora_") else "lora")
        assert values["lora_rank"] == model["lora_rank"]
        targets = [_ATTENTION[m] for m in model["lora_attn_modules"]]
        if model["apply_lora_to_mlp"]:
            targets += ["gate_proj", "up_proj", "down_proj"]
        assert values["lora_targets"] == list(dict.fromkeys(targets))
    else:
        assert values["adapter"] is None and values["lora_targets"] is None
    replicas = _torchtune_replicas(raw, gpus)
    if replicas is None:
        assert code == 1 and data["framework_accepts"] is False
        assert data["effective_batch"] is None
        return
    assert code == 0 and data["framework_accepts"] is True, data["problems"]
    assert data["data_parallel_size"] == replicas
    micro, steps = raw["batch_size"], raw["gradient_accumulation_steps"]
    assert data["effective_batch"] == micro * steps * replicas
    assert data["derived"]["train_batch_size"] == micro * steps * replicas


# --------------------------------------------------------------------------- GPT-NeoX


def _neox_raw(path: Path) -> dict[str, Any]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {key.replace("-", "_"): value for key, value in raw.items()}


@pytest.mark.parametrize("gpus", GPU_COUNTS)
@pytest.mark.parametrize("path", NEOX_FILES, ids=lambda p: p.name)
def test_neox_rules(path: Path, gpus: int, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _neox_raw(path)
    code, data = _check(path, gpus, capsys)
    values = data["values"]
    assert data["kind"] == "gpt-neox" and data["unknown_keys"] == []
    steps = raw.get("gradient_accumulation_steps", 1)
    micro = raw.get("train_micro_batch_size_per_gpu")
    assert values["micro_batch"] == micro
    assert values["accumulation_steps"] == steps
    assert values["sequence_length"] == raw.get("seq_length")
    assert values["checkpointing"] is raw.get("checkpoint_activations", False)
    stage = (raw.get("zero_optimization") or {}).get("stage")
    assert values["zero_stage"] == stage
    fp16 = (raw.get("fp16") or {}).get("enabled", False)
    bf16 = (raw.get("bf16") or {}).get("enabled", False)
    precision = raw.get("precision") or ("fp16" if fp16 else "bfloat16" if bf16 else None)
    assert values["precision"] == _NEOX_PRECISION[precision]
    pp = max(raw.get("pipe_parallel_size", 0), 1)
    mp = max(raw.get("model_parallel_size", 1), 1)
    dp = gpus / pp / mp
    if dp % 1:
        assert code == 1 and data["framework_accepts"] is False
        return
    if micro is None and raw.get("train_batch_size") is None:
        # a model file without batch values (deepy.py merges several files): the
        # batch stays unknown, nothing is refused for it
        assert code == 0 and data["effective_batch"] is None
        assert "micro-batch" in data["missing"]
        return
    assert code == 0 and data["framework_accepts"] is True, data["problems"]
    assert data["data_parallel_size"] == int(dp)
    assert data["effective_batch"] == micro * steps * int(dp)
    assert data["derived"]["train_batch_size"] == micro * steps * int(dp)


_NEOX_PRECISION = {"fp16": "fp16", "bfloat16": "bf16", "fp32": "fp32", None: None}

# What GPT-NeoX's own argument class made of each file: NeoXArgs.from_ymls([file],
# overwrite_values={"global_num_gpus": g}) at ea7aefd (megatron/neox_arguments/ of that
# commit, run outside the project: NeoX does not install here; its logging and tokenizer
# modules stubbed, megatron/utils.py's expand_attention_types and obtain_resource_pool
# from the same commit, DeepSpeed's launcher for DLTS_HOSTFILE). Per file: micro-batch,
# accumulation steps, precision, ZeRO stage and the train batch size with 1, 4, 8 and 16
# GPUs (None: calculate_derived() asserts "(global_num_gpus / pp_size) / mp_size ... must
# be a whole number"); None for the whole file: NeoX asserts "Either train_batch_size or
# train_micro_batch_size_per_gpu needs to be provided" (a model file, run merged with a
# training file). llama/train_config.yml is recorded merged with llama/7B.yml, as
# configs/llama/README.md runs it (the model file sets no batch value).
NEOX_OWN: dict[str, tuple[int, int, str, int, tuple[int | None, ...]] | None] = {
    "gpt-neox__configs-1-3B.yml": (4, 1, "fp16", 1, (4, 16, 32, 64)),
    "gpt-neox__configs-125M-dmoe.yml": (4, 1, "bfloat16", 1, (4, 16, 32, 64)),
    "gpt-neox__configs-125M.yml": (4, 1, "fp16", 1, (4, 16, 32, 64)),
    "gpt-neox__configs-20B.yml": (4, 32, "fp16", 1, (None, None, 128, 256)),
    "gpt-neox__configs-bf16_125M.yml": (4, 1, "bfloat16", 0, (4, 16, 32, 64)),
    "gpt-neox__configs-llama-7B.yml": None,
    "gpt-neox__configs-llama-train_config.yml": (4, 1, "fp16", 1, (4, 16, 32, 64)),
    "gpt-neox__configs-mamba-mamba-130M.yml": (4, 1, "fp16", 1, (4, 16, 32, 64)),
    "gpt-neox__configs-pythia-1B.yml": (4, 4, "fp16", 0, (16, 64, 128, 256)),
    "gpt-neox__configs-pythia-6-9B.yml": (8, 2, "fp16", 1, (None, 32, 64, 128)),
    "gpt-neox__configs-rwkv-170M.yml": (32, 1, "bfloat16", 1, (32, 128, 256, 512)),
}


def test_every_neox_file_has_neoxs_own_reading() -> None:
    assert sorted(NEOX_OWN) == [p.name for p in NEOX_FILES]


@pytest.mark.parametrize("gpus", GPU_COUNTS)
@pytest.mark.parametrize("path", NEOX_FILES, ids=lambda p: p.name)
def test_neox_reads_as_neoxargs_did(
    path: Path, gpus: int, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = _check(path, gpus, capsys)
    assert data["unknown_keys"] == []
    assert any("GPT-NeoX 2.0.0 (main at ea7aefd" in n for n in data["derived"]["notes"])
    own = NEOX_OWN[path.name]
    if own is None:
        assert code == 0 and data["values"]["micro_batch"] is None
        assert "micro-batch" in data["missing"]
        return
    micro, steps, precision, stage, trains = own
    train = trains[GPU_COUNTS.index(gpus)]
    if train is None:
        assert code == 1 and data["framework_accepts"] is False
        assert "does not divide" in data["problems"][0]
        return
    assert code == 0 and data["framework_accepts"] is True, data["problems"]
    derived = data["derived"]
    assert (derived["micro_batch"], derived["accumulation_steps"]) == (micro, steps)
    assert derived["train_batch_size"] == data["effective_batch"] == train
    assert data["data_parallel_size"] * micro * steps == train
    assert data["values"]["precision"] == _NEOX_PRECISION[precision]
    assert (data["values"]["zero_stage"] or 0) == stage
