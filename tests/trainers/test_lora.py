"""LoRA and QLoRA: what ``gradacc export`` writes, read by PEFT, and what ``gradacc plan``
sizes, counted by PEFT and transformers on the model built from the same config.json.

The plan's JSON has no trainable-parameter key; its ``model_states_bytes`` fixes the
count. For LoRA with Adam and 16-bit weights, ``T`` adapter parameters on a base of
``B`` frozen ones hold, on each of ``N`` GPUs: ``2B + 20T`` bytes without ZeRO, and
``2B + 2T + floor(18T / N)`` with ZeRO-2 (DeepSpeed's rule, the adapters' 16-bit copy
whole, their gradients and optimizer states sharded). Two layouts give two equations
in ``B`` and ``T``: both must be PEFT's ``get_nb_trainable_parameters()``.
``gradacc memory``'s ``trainable_params`` must be PEFT's count too.

QLoRA (``--base-bits 4``): bitsandbytes is not installed here (no GPU), so the 4-bit
model is not built; the exported ``train.py`` files are compiled, the HF one run as a
module, their ``BitsAndBytesConfig`` built by transformers, and the plan's frozen bytes
checked against the weights transformers' bitsandbytes integration would quantize
(every ``nn.Linear``/``Conv1D`` but the modules ``get_modules_to_not_convert`` keeps).
"""

from __future__ import annotations

import ast
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.core.memory.lora import BaseFormat, base_weight_bytes_per_param
from tests.cli.helpers import run_json as _run_json
from tests.configs import raw_config
from tests.trainers.hf_models import build, bundled_file, tiny_config, write_config

#: the description's three choices and PEFT names (PEFT's own "all-linear" included)
LLAMA_TARGETS = ["query_value", "attention", "all_linear", "all-linear", "k_proj,down_proj"]
GPT2_TARGETS = ["query_value", "attention", "all_linear", "c_proj", "c_fc,attn.c_proj"]
BUNDLED = [
    ("qwen2.5-0.5b", 8),  # tied embeddings, q/k/v biases
    ("llama-3.1-8b", 16),
    ("gemma-2-2b", 8),  # heads x head_dim != hidden
    ("gemma-3-1b-it", 4),
    ("qwen3-0.6b", 32),
]
HF_PYTHON = ["hf", "hf-deepspeed", "accelerate", "torchrun", "lightning"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """``gradacc ARGV --json`` (what transformers logged to stderr before it dropped)."""
    capsys.readouterr()
    return _run_json(capsys, *argv)


def _export(
    capsys: pytest.CaptureFixture[str], model: list[str], folder: Path, *extra: str
) -> dict[str, str]:
    data = run_json(
        capsys, "export", "--format", "hf", "--micro-batch", "2", "--accumulation-steps", "4",
        "--gpus", "2", *model, "--seq-len", "64", *extra, "--out", str(folder),
    )  # fmt: skip
    files: dict[str, str] = data["files"]
    assert (folder / "adapter_config.json").read_text(encoding="utf-8") == files[
        "adapter_config.json"
    ]
    return files


def _plan_states(
    capsys: pytest.CaptureFixture[str], model: list[str], gpus: int, stage: int, *extra: str
) -> int:
    data = run_json(
        capsys, "plan", *model, "--seq-len", "64", "--gpu-memory-gb", "80", "--gpus", str(gpus),
        "--zero-stage", str(stage), "--target-batch", "64", *extra,
    )  # fmt: skip
    states: int = data["model_states_bytes"]
    return states


def _peft_config(folder: Path, rank: int) -> Any:
    from peft import LoraConfig

    config = LoraConfig.from_pretrained(str(folder))
    assert config.r == rank and config.lora_alpha == 2 * rank
    assert config.bias == "none" and config.lora_dropout == 0.0
    assert str(config.task_type) in ("CAUSAL_LM", "TaskType.CAUSAL_LM")
    return config


def _peft_counts(data: dict[str, Any], config: Any, *, meta: bool) -> tuple[Any, int, int]:
    """(the PEFT model, its trainable parameters, the frozen base's)."""
    import torch
    from peft import get_peft_model

    model = build(data, meta=meta)
    if meta:
        with torch.device("meta"):
            peft_model = get_peft_model(model, config)
    else:
        peft_model = get_peft_model(model, config)
    trainable, every = peft_model.get_nb_trainable_parameters()
    return peft_model, trainable, every - trainable


def _check_plan(
    capsys: pytest.CaptureFixture[str], model: list[str], lora: list[str], t: int, base: int
) -> None:
    """The plan's bytes and ``gradacc memory``'s count are PEFT's adapters on PEFT's base."""
    assert _plan_states(capsys, model, 1, 0, *lora) == 2 * base + 20 * t
    assert _plan_states(capsys, model, 8, 2, *lora) == 2 * base + 2 * t + 18 * t // 8


def _memory_trainable(
    capsys: pytest.CaptureFixture[str], model: list[str], rank: int, modules: list[str]
) -> int:
    data = run_json(
        capsys, "memory", *model, "--gpus", "1", "--zero-stage", "0", "--recipe", "lora",
        "--lora-rank", str(rank), "--lora-targets", ",".join(modules),
    )  # fmt: skip
    trainable: int = data["trainable_params"]
    return trainable


@pytest.mark.parametrize("targets", LLAMA_TARGETS)
@pytest.mark.parametrize(("name", "rank"), BUNDLED)
def test_peft_counts_the_adapters_the_plan_sizes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, rank: int, targets: str
) -> None:
    """A bundled model at full size (meta device): the exported adapter_config.json, read
    by PEFT and applied to the model transformers builds from the bundled config.json."""
    model = ["--model", name]
    lora = ["--lora-rank", str(rank), "--lora-targets", targets]
    _export(capsys, model, tmp_path, *lora)
    config = _peft_config(tmp_path, rank)
    _, t, base = _peft_counts(raw_config(bundled_file(name)), config, meta=True)
    _check_plan(capsys, model, lora, t, base)
    assert _memory_trainable(capsys, model, rank, sorted(config.target_modules)) == t


@pytest.mark.parametrize("targets", GPT2_TARGETS)
def test_peft_counts_gpt2s_adapters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, targets: str
) -> None:
    """GPT-2 (a sized preset in the app; its published config.json for transformers):
    Conv1D projections, one fused c_attn, two modules called c_proj."""
    model = ["--model", "gpt2"]
    lora = ["--lora-rank", "8", "--lora-targets", targets]
    _export(capsys, model, tmp_path, *lora)
    config = _peft_config(tmp_path, 8)
    _, t, base = _peft_counts(raw_config("openai-community__gpt2.json"), config, meta=True)
    _check_plan(capsys, model, lora, t, base)


@pytest.mark.parametrize(
    ("kind", "targets"),
    [("llama", "attention"), ("qwen2", "all_linear"), ("gemma2", "q_proj,o_proj,up_proj"),
     ("gpt2", "all_linear")],
)  # fmt: skip
def test_a_training_step_updates_exactly_the_counted_adapters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str, targets: str
) -> None:
    """A tiny config.json (``--model-config``), a randomly initialised CPU model, PEFT's
    adapters from the exported file: one forward and backward pass gives gradients to
    exactly the parameters the plan counts, every one of them LoRA's."""
    import torch

    data = tiny_config(kind)
    model = ["--model-config", str(write_config(data, tmp_path / "model"))]
    lora = ["--lora-rank", "8", "--lora-targets", targets]
    _export(capsys, model, tmp_path / "export", *lora)
    config = _peft_config(tmp_path / "export", 8)
    peft_model, t, base = _peft_counts(data, config, meta=False)
    ids = torch.randint(0, 100, (2, 16))
    peft_model(input_ids=ids, labels=ids).loss.backward()
    with_grad = {n: p.numel() for n, p in peft_model.named_parameters() if p.grad is not None}
    assert sum(with_grad.values()) == t > 0
    assert all("lora_A" in n or "lora_B" in n for n in with_grad)
    _check_plan(capsys, model, lora, t, base)
    assert _memory_trainable(capsys, model, 8, sorted(config.target_modules)) == t


def _quantized_weights(model: Any) -> int:
    """Weights transformers' bitsandbytes integration turns into 4-bit ones
    (``replace_with_bnb_linear``'s choice: ``nn.Linear`` and ``Conv1D`` outside
    ``get_modules_to_not_convert``)."""
    from torch import nn
    from transformers.pytorch_utils import Conv1D
    from transformers.quantizers.base import HfQuantizer
    from transformers.quantizers.quantizers_utils import should_convert_module

    keep = HfQuantizer.get_modules_to_not_convert(
        model, None, getattr(model, "_keep_in_fp32_modules", None)
    )
    return sum(
        module.weight.numel()
        for name, module in model.named_modules()
        if (type(module) is nn.Linear or isinstance(module, Conv1D))
        and should_convert_module(name, keep)
    )


@pytest.mark.parametrize("name", ["qwen2.5-0.5b", "llama-3.1-8b", "gemma-2-2b"])
def test_qlora_quantizes_the_weights_bitsandbytes_would(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """The plan's frozen 4-bit base: NF4 (with double quantization, as exported) for the
    weights transformers would quantize, 16 bits for the rest; PEFT's adapters on top."""
    model = ["--model", name]
    lora = ["--lora-rank", "16", "--lora-targets", "all_linear", "--base-bits", "4"]
    _export(capsys, model, tmp_path, *lora)
    data = raw_config(bundled_file(name))
    quantized = _quantized_weights(build(data, meta=True))
    _, t, base = _peft_counts(data, _peft_config(tmp_path, 16), meta=True)
    nf4 = base_weight_bytes_per_param(BaseFormat.NF4, double_quant=True)
    assert nf4 == Fraction(4 + Fraction(65, 512), 8)
    frozen = nf4 * quantized + 2 * (base - quantized)
    assert _plan_states(capsys, model, 1, 0, *lora) == math.floor(frozen + 20 * t)


def _quantization_call(source: str) -> ast.Call:
    tree = ast.parse(source)
    calls = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and getattr(node.targets[0], "id", "") == "QUANTIZATION"
        and isinstance(node.value, ast.Call)
    ]
    assert len(calls) == 1
    return calls[0]


def _check_nf4(config: Any) -> None:
    import torch

    assert config.load_in_4bit is True and config.load_in_8bit is False
    assert config.bnb_4bit_quant_type == "nf4"
    assert config.bnb_4bit_use_double_quant is True  # what the plan's NF4 bytes assume
    assert config.bnb_4bit_compute_dtype == torch.bfloat16


@pytest.mark.parametrize("fmt", HF_PYTHON)
def test_qlora_exports_name_the_4bit_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    """Every Python export of a QLoRA description compiles and builds, with transformers'
    own ``BitsAndBytesConfig``, a 4-bit NF4 double-quantized config."""
    import transformers

    data = run_json(
        capsys, "export", "--format", fmt, "--micro-batch", "2", "--accumulation-steps", "4",
        "--gpus", "2", "--zero-stage", "2", "--model", "qwen2.5-0.5b", "--seq-len", "64",
        "--lora-rank", "8", "--base-bits", "4", "--out", str(tmp_path),
    )  # fmt: skip
    source = data["files"]["train.py"]
    compile(source, "train.py", "exec")
    assert "from transformers import " in source and "BitsAndBytesConfig" in source
    call = _quantization_call(source)
    assert ast.unparse(call.func) == "BitsAndBytesConfig"
    _check_nf4(eval(ast.unparse(call), {"BitsAndBytesConfig": transformers.BitsAndBytesConfig}))
    adapter = json.loads(data["files"]["adapter_config.json"])
    assert adapter["r"] == 8 and adapter["target_modules"] == ["q_proj", "v_proj"]


def test_the_qlora_hf_script_runs_as_a_module(  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str], in_tmp: Path, monkeypatch
) -> None:
    """The HF ``train.py`` imported from its folder (its ``__main__`` part not run): PEFT
    reads adapter_config.json, transformers builds the 4-bit config and the arguments."""
    import transformers.training_args as training_args

    monkeypatch.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)
    _export(
        capsys, ["--model", "llama-3.1-8b"], in_tmp, "--lora-rank", "16", "--lora-targets",
        "all_linear", "--base-bits", "4",
    )  # fmt: skip
    path = in_tmp / "train.py"
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": str(path)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    _check_nf4(namespace["QUANTIZATION"])
    lora = namespace["LORA"]
    assert lora.r == 16 and set(lora.target_modules) == {
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
    }  # fmt: skip
    assert namespace["MAX_SEQ_LENGTH"] == 64
    args = namespace["args"]
    assert args.per_device_train_batch_size == 2 and args.gradient_accumulation_steps == 4
    assert "get_peft_model(build_model(), LORA)" in path.read_text(encoding="utf-8")
