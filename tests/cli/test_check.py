"""``gradacc check FILE [--world-size N] [--json]``: a config file's meaning, for people
and scripts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.cli import COMMANDS, build_parser, main
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import Offload, Precision, TrainingSetup
from gradacc_desktop.core.memory.zero import ZeroStage

ROOT = Path(__file__).resolve().parents[2]

REQUIRED_KEYS = {
    "kind",
    "values",
    "effective_batch",
    "verdicts",
    "auto_keys",
    "unread",
    "missing",
}


def write(folder: Path, name: str, content: str | dict[str, Any]) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return str(path)


def check_json(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> dict[str, Any]:
    assert main(["check", *argv, "--json"]) == code
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert isinstance(data, dict)
    assert set(data) >= REQUIRED_KEYS
    return data


def check_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["check", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("gradacc: error: ")
    assert err.count("\n") == 1
    return err


def test_registered_after_memory() -> None:
    assert COMMANDS.index("check") == COMMANDS.index("memory") + 1
    assert "check" in build_parser().format_help()


def test_deepspeed_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = TrainingSetup(4, 8, 8, zero_stage=ZeroStage(2), offload=Offload.OPTIMIZER)
    file = write(tmp_path, "ds_config.json", export(ExportFormat.DEEPSPEED, setup).text)
    data = check_json(capsys, file)
    assert data["kind"] == "deepspeed"
    assert data["file"] == file
    values = data["values"]
    assert values["micro_batch"] == 4 and values["accumulation_steps"] == 8
    assert values["train_batch_size"] == 256 and values["gpus"] is None
    assert values["zero_stage"] == 2 and values["offload"] == "optimizer"
    assert values["precision"] == "bf16"
    assert data["gpus"] == 8 and data["gpus_from"] == "derived"
    assert data["effective_batch"] == 256
    ds = data["verdicts"]["deepspeed"]
    assert ds["ok"] is True and ds["reason"] == "ok" and ds["train_batch_size"] == 256
    mg = data["verdicts"]["megatron"]
    assert mg["ok"] is True and mg["derived_accumulation_steps"] == 8
    assert mg["same_accumulation_steps"] is True
    assert data["auto_keys"] == [] and data["unread"] == [] and data["missing"] == []
    assert data["problem"] is None
    assert data["setup"] == {
        "micro_batch": 4,
        "accumulation_steps": 8,
        "gpus": 8,
        "nodes": 1,
        "zero_stage": 2,
        "precision": "bf16",
        "offload": "optimizer",
        "effective_batch": 256,
    }


def test_deepspeed_human(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = TrainingSetup(4, 8, 8, precision=Precision.FP16)
    file = write(tmp_path, "ds_config.json", export(ExportFormat.DEEPSPEED, setup).text)
    assert main(["check", file]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith(f"{file}: DeepSpeed config\n")
    assert "  micro-batch per GPU: 4  (train_micro_batch_size_per_gpu)\n" in out
    assert "  precision: fp16  (fp16.enabled)\n" in out
    assert "Derived: GPUs = train_batch_size / (micro-batch x accumulation steps)" in out
    assert "Effective batch: 4 (micro-batch) x 8 (accumulation steps) x 8 GPU(s) = 256\n" in out
    assert "DeepSpeed accepts train_batch_size 256 = 4 x 8 x 8 GPU(s).\n" in out
    assert "Megatron accepts --global-batch-size 256 --micro-batch-size 4" in out
    assert "Setup: micro-batch 4, 8 accumulation step(s), 8 GPU(s) on 1 node(s)" in out
    assert "Not read" not in out and "Missing" not in out


def test_gpus_drive_deepspeeds_derivation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(
        tmp_path, "ds.json", {"train_batch_size": 100, "train_micro_batch_size_per_gpu": 4}
    )
    data = check_json(capsys, file)
    assert data["verdicts"] is None and data["effective_batch"] is None
    assert data["missing"] == ["GPU count"]
    data = check_json(capsys, file, "--world-size", "5")
    assert data["effective_batch"] == 100
    assert data["derived"]["accumulation_steps"] == 5
    assert data["derived"]["names"] == ["accumulation_steps"]
    data = check_json(capsys, file, "--world-size", "8", code=1)
    assert data["framework_accepts"] is False
    assert data["problems"][0] == data["problem"]
    assert data["effective_batch"] is None
    ds = data["verdicts"]["deepspeed"]
    assert ds["ok"] is False and ds["reason"] == "not_divisible"
    assert data["verdicts"]["megatron"]["ok"] is False
    assert data["problem"].startswith("DeepSpeed refuses train_batch_size 100 on 8 GPU(s)")
    assert data["missing"] == [] and data["setup"] is None
    # and in words, the refusal first
    assert main(["check", file, "--world-size", "8"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("Refused: DeepSpeed refuses train_batch_size 100")
    assert "Effective batch: unknown\n" in out
    assert "Problem: DeepSpeed refuses train_batch_size 100 on 8 GPU(s)" in out
    assert (
        "Megatron refuses --global-batch-size 100 --micro-batch-size 4 on 8 data-parallel GPU(s)"
    ) in out


def test_auto_and_unread_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(
        tmp_path,
        "ds.json",
        {
            "train_batch_size": "auto",
            "train_micro_batch_size_per_gpu": True,
            "gradient_accumulation_steps": 4,
            "zero_optimization": {"stage": 3, "offload_param": {"device": "nvme"}},
            "bf16": {"enabled": "auto"},
        },
    )
    data = check_json(capsys, file, "--world-size", "2")
    assert data["auto_keys"] == ["train_batch_size", "bf16.enabled"]
    assert data["unread"] == [
        {
            "key": "train_micro_batch_size_per_gpu",
            "value": "true",
            "reason": 'must be a whole number or "auto"',
        },
        {
            "key": "zero_optimization.offload_param.device",
            "value": '"nvme"',
            "reason": "NVMe offload is not modelled (only none and cpu)",
        },
    ]
    assert data["missing"] == ["micro-batch", "precision", "offload"]
    assert data["verdicts"] is None
    assert main(["check", file]) == 0
    out = capsys.readouterr().out
    assert 'Set to "auto" (the trainer fills them): train_batch_size, bf16.enabled\n' in out
    assert "Not read:\n" in out
    assert (
        '  zero_optimization.offload_param.device = "nvme": '
        "NVMe offload is not modelled (only none and cpu)\n" in out
    )
    assert "GPUs: unknown (give --world-size)\n" in out  # every GPU: the command's name
    assert "Missing for a whole setup: micro-batch, GPU count, precision, offload\n" in out


def test_axolotl_qlora(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        tmp_path,
        "deepspeed_configs/zero2.json",
        {
            "zero_optimization": {"stage": 2},
            "bf16": {"enabled": "auto"},
            "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto",
            "train_batch_size": "auto",
        },
    )
    file = write(
        tmp_path,
        "qlora.yml",
        "base_model: NousResearch/Meta-Llama-3-8B\nmicro_batch_size: 2\n"
        "gradient_accumulation_steps: 4\nadapter: qlora\nlora_r: 32\nload_in_4bit: true\n"
        "bf16: auto\nsequence_len: 4096\ndeepspeed: deepspeed_configs/zero2.json\n",
    )
    data = check_json(capsys, file, "--world-size", "4")
    assert data["kind"] == "axolotl"
    assert data["values"]["adapter"] == "qlora" and data["values"]["lora_rank"] == 32
    assert data["values"]["base_4bit"] is True and data["values"]["zero_stage"] == 2
    assert data["effective_batch"] == 32
    assert data["verdicts"]["deepspeed"]["ok"] is True
    assert data["missing"] == ["precision"]
    assert data["followed"] == [str(tmp_path / "deepspeed_configs/zero2.json")]
    assert main(["check", file, "--world-size", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{file}: axolotl config\n")
    assert "GPUs: 4 (from --world-size)\n" in out
    assert 'Precision: "auto": axolotl uses bf16 where the GPUs support it, else fp16\n' in out


def test_accelerate_gpus_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = TrainingSetup(2, 4, 8, 2, ZeroStage(3), Precision.BF16, Offload.ALL)
    file = write(
        tmp_path,
        "accelerate_config.yaml",
        export(ExportFormat.ACCELERATE, setup).files["accelerate_config.yaml"],
    )
    data = check_json(capsys, file)
    assert data["kind"] == "accelerate"
    assert data["values"]["gpus"] == 8 and data["values"]["nodes"] == 2
    assert data["values"]["distributed_type"] == "DEEPSPEED"
    assert data["gpus_from"] == "file"
    assert data["missing"] == ["micro-batch"]
    assert main(["check", file, "--world-size", "3"]) == 0
    out, err = capsys.readouterr()
    assert "GPUs: 3 (from --world-size; the file says 8)\n" in out and err == ""
    # --gpus, check's older spelling of the same count, works and names the new one
    assert main(["check", file, "--gpus", "3"]) == 0
    old, err = capsys.readouterr()
    assert old == out and err == "gradacc: --gpus is now --world-size\n"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (
            "{not json",
            "not valid JSON: Expecting property name enclosed in double quotes at line 1",
        ),
        ("a: [1\nb: 2\n", "not valid YAML:"),
        ("learning_rate: 0.1\n", "not a config gradacc reads"),
        ("[1, 2, 3]\n", "holds a list"),
        ("", "the file is empty"),
    ],
)
def test_unusable_files_are_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, needle: str
) -> None:
    file = write(tmp_path, "config.yaml", content)
    err = check_error(capsys, file)
    assert err.startswith(f"gradacc: error: {file}: ")
    assert needle in err


def test_missing_file_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nowhere.json")
    assert check_error(capsys, missing) == f"gradacc: error: {missing}: no such file\n"
    assert "is a folder" in check_error(capsys, str(tmp_path))
    assert check_error(capsys, missing, "--json").startswith("gradacc: error: ")


def test_bad_gpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(tmp_path, "ds.json", {"train_batch_size": 8})
    err = check_error(capsys, file, "--world-size", "0")
    assert "--world-size: must be an integer between 1 and 1000000" in err


def test_subprocess(tmp_path: Path) -> None:
    file = write(
        tmp_path, "ds.json", {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3}
    )
    done = subprocess.run(
        [sys.executable, "-m", "gradacc_desktop.cli", "check", file, "--world-size", "4", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["effective_batch"] == 24
    done = subprocess.run(
        [sys.executable, "-m", "gradacc_desktop.cli", "check", str(tmp_path / "no.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"gradacc: error: {tmp_path / 'no.json'}: no such file\n"


# ------------------------------------------------------------------ parallel sizes


def parallel_case(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str,
    gpus: int,
    code: int,
) -> dict[str, Any]:
    file = write(tmp_path, name, content)
    return check_json(capsys, file, "--world-size", str(gpus), code=code)


AXOLOTL = "base_model: m\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\n"


def test_axolotl_tensor_and_context_parallel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = AXOLOTL + "tensor_parallel_size: 2\ncontext_parallel_size: 2\n"
    data = parallel_case(tmp_path, capsys, "a.yaml", text, 8, 0)
    assert data["data_parallel_size"] == 2
    assert data["parallel"] == {"tensor": 2, "context": 2, "shard": 2}
    assert data["effective_batch"] == 2 * 4 * 2
    assert data["framework_accepts"] is True and data["problems"] == []
    assert data["setup"]["gpus"] == 2
    main(["check", str(tmp_path / "a.yaml"), "--world-size", "8"])
    out = capsys.readouterr().out
    assert "parallel sizes: tensor 2, context 2, shard 2 = 2 data-parallel replica(s)" in out
    assert "x 2 data-parallel replica(s) = 16" in out
    assert "2 data-parallel GPU(s) x tensor 2 x context 2 on 1 node(s)" in out


def test_axolotl_hsdp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = AXOLOTL + "dp_shard_size: 4\ndp_replicate_size: 2\nfsdp_config:\n  fsdp_version: 2\n"
    data = parallel_case(tmp_path, capsys, "a.yaml", text, 8, 0)
    assert data["data_parallel_size"] == 8
    assert data["parallel"] == {"shard": 4, "replicate": 2}
    assert data["effective_batch"] == 64


def test_axolotl_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = parallel_case(tmp_path, capsys, "a.yaml", AXOLOTL + "dp_shard_size: 4\n", 8, 1)
    assert data["framework_accepts"] is False
    assert "without fsdp or fsdp_config" in data["problems"][0]
    data = parallel_case(tmp_path, capsys, "b.yaml", AXOLOTL + "tensor_parallel_size: 3\n", 8, 1)
    assert data["data_parallel_size"] is None and data["effective_batch"] is None
    assert "multiply to 6, not the 8 GPU(s)" in data["problems"][0]
    data = parallel_case(
        tmp_path, capsys, "c.yaml", AXOLOTL + 'tensor_parallel_size: "two"\n', 8, 1
    )
    assert data["problems"][0].startswith('tensor_parallel_size = "two"')


ACCELERATE = "distributed_type: FSDP\nnum_processes: 8\nnum_machines: 1\nmixed_precision: bf16\n"


def test_accelerate_parallelism_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ACCELERATE + (
        "parallelism_config:\n  parallelism_config_dp_replicate_size: 1\n"
        "  parallelism_config_dp_shard_size: 2\n  parallelism_config_tp_size: 2\n"
        "  parallelism_config_cp_size: 2\n"
    )
    file = write(tmp_path, "acc.yaml", text)
    data = check_json(capsys, file)
    assert data["data_parallel_size"] == 2
    assert data["parallel"] == {"shard": 2, "tensor": 2, "context": 2}
    data = check_json(capsys, file, "--world-size", "16", code=1)
    assert "multiply to 8, not the 16 GPU(s): accelerate refuses" in data["problems"][0]
    bad = text.replace("parallelism_config_cp_size: 2", "parallelism_config_cp_size: 0")
    data = check_json(capsys, write(tmp_path, "bad.yaml", bad), code=1)
    assert "must be at least 1" in data["problems"][0]


def test_deepspeed_autotp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "gradient_accumulation_steps": 4,
        "tensor_parallel": {"autotp_size": 4},
    }
    file = write(tmp_path, "ds.json", config)
    data = check_json(capsys, file, "--world-size", "8")
    assert data["data_parallel_size"] == 2 and data["parallel"] == {"tensor": 4}
    assert data["effective_batch"] == 16
    assert data["verdicts"]["deepspeed"]["train_batch_size"] == 16
    data = check_json(capsys, file, "--world-size", "6", code=1)
    assert "tensor_parallel.autotp_size = 4 does not divide the 6 GPU(s)" in data["problems"][0]
    # the triple gives the replicas; the GPUs are replicas x autotp_size
    data = check_json(capsys, write(tmp_path, "t.json", {**config, "train_batch_size": 16}))
    assert data["gpus"] == 8 and data["data_parallel_size"] == 2


def test_gpt_neox_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "pipe_parallel_size: 2\nmodel_parallel_size: 2\n"
        "train_micro_batch_size_per_gpu: 4\ngradient_accumulation_steps: 8\n"
        "zero_optimization:\n  stage: 1\n"
    )
    data = parallel_case(tmp_path, capsys, "neox.yml", text, 16, 0)
    assert data["kind"] == "gpt-neox"
    assert data["data_parallel_size"] == 4
    assert data["parallel"] == {"pipeline": 2, "tensor": 2}
    assert data["effective_batch"] == 4 * 8 * 4
    data = parallel_case(tmp_path, capsys, "neox.yml", text, 6, 1)
    assert (
        "pipe_parallel_size x model_parallel_size = 4 does not divide the 6 GPU(s)"
        in (data["problems"][0])
    )
    # NeoX reads a size below 1 as 1
    data = parallel_case(
        tmp_path,
        capsys,
        "z.yml",
        text.replace("pipe_parallel_size: 2", "pipe_parallel_size: 0"),
        6,
        0,
    )
    assert data["data_parallel_size"] == 3


def test_exit_status_for_refused_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(tmp_path, "ds.json", {"train_micro_batch_size_per_gpu": -2})
    data = check_json(capsys, file, "--world-size", "2", code=1)
    assert data["problems"][0].startswith("train_micro_batch_size_per_gpu = -2")
    file = write(tmp_path, "ds2.json", {"train_micro_batch_size_per_gpu": [1]})
    assert check_json(capsys, file, "--world-size", "2", code=1)["framework_accepts"] is False
    # "auto" and values gradacc does not model are not refusals
    file = write(tmp_path, "ds3.json", {"train_micro_batch_size_per_gpu": "auto"})
    assert check_json(capsys, file, "--world-size", "2")["framework_accepts"] is True
    assert main(["check", file]) == 0
    capsys.readouterr()


def test_axolotl_batch_rules_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write(tmp_path, "one.yml", "base_model: m\nmicro_batch_size: 2\n")
    data = check_json(capsys, one, "--world-size", "2", code=1)
    assert data["framework_accepts"] is False
    assert "at least two of micro_batch_size" in data["problems"][0]
    # nothing derived for the batch (only axolotl's default of no checkpointing)
    assert data["derived"]["names"] == ["checkpointing"]
    both = write(
        tmp_path,
        "both.yml",
        "base_model: m\nmicro_batch_size: 2\ngradient_accumulation_steps: 2\nbatch_size: 8\n",
    )
    assert main(["check", both]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("Refused: axolotl refuses gradient_accumulation_steps")


def test_axolotl_batch_size_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(tmp_path, "b.yml", "base_model: m\nmicro_batch_size: 2\nbatch_size: 16\n")
    data = check_json(capsys, file, "--world-size", "2")
    assert data["framework_accepts"] is True
    assert data["effective_batch"] == 32
    assert any("batch_size is not recommended" in p for p in data["problems"])
    assert main(["check", file, "--world-size", "2"]) == 0
    assert "Warning: axolotl warns that batch_size" in capsys.readouterr().out


def test_axolotl_deepspeed_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    file = write(tmp_path / "cfg", "a.yml", AXOLOTL + "deepspeed: zero3.json\n")
    data = check_json(capsys, file, "--world-size", "2")
    assert data["resolved_files"] == [
        {"key": "deepspeed", "reference": "zero3.json", "path": None, "where": None}
    ]
    assert "ZeRO stage" in data["missing"] and "offload" in data["missing"]
    assert data["setup"] is None
    write(tmp_path, "zero3.json", {"zero_optimization": {"stage": 3}})
    data = check_json(capsys, file, "--world-size", "2")
    assert data["resolved_files"][0]["where"] == "launch folder"
    assert data["values"]["zero_stage"] == 3


def test_unknown_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = write(
        tmp_path,
        "ds.json",
        {"train_micro_batch_size_per_gpu": 2, "trian_batch_size": 8, "zero_optimisation": {}},
    )
    data = check_json(capsys, ds, "--world-size", "1")
    assert data["framework_accepts"] is True
    assert [(u["key"], u["suggestion"], u["refused"]) for u in data["unknown_keys"]] == [
        ("trian_batch_size", "train_batch_size", False),
        ("zero_optimisation", "zero_optimization", False),
    ]
    assert main(["check", ds, "--world-size", "1"]) == 0
    out = capsys.readouterr().out
    assert "Unknown keys:\n" in out
    assert "  zero_optimisation: DeepSpeed ignores keys it does not know (did you mean " in out
    zero = write(tmp_path, "z.json", {"train_batch_size": 8, "zero_optimization": {"stgae": 2}})
    data = check_json(capsys, zero, "--world-size", "1", code=1)
    assert data["unknown_keys"][0]["key"] == "zero_optimization.stgae"
    assert data["unknown_keys"][0]["suggestion"] == "stage"
    assert data["problems"][0].startswith("zero_optimization.stgae: DeepSpeed refuses")
    acc = write(tmp_path, "acc.yaml", "distributed_type: MULTI_GPU\nnum_proceses: 4\n")
    data = check_json(capsys, acc, "--world-size", "4", code=1)
    assert data["unknown_keys"][0]["suggestion"] == "num_processes"


def test_tokens_per_step_and_8bit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(
        tmp_path,
        "a.yml",
        AXOLOTL
        + "sequence_len: 1024\nload_in_8bit: true\nadapter: lora\nlora_target_linear: true\n",
    )
    data = check_json(capsys, file, "--world-size", "2")
    assert data["tokens_per_step"] == 16 * 1024
    assert data["values"]["base_8bit"] is True
    assert data["values"]["lora_targets"] == ["all-linear"]
    assert main(["check", file, "--world-size", "2"]) == 0
    out = capsys.readouterr().out
    assert "Tokens per step: 16 (effective batch) x 1024 (sequence length) = 16384 at most" in out
    assert "base model in 8 bits: true  (load_in_8bit)" in out
    neox = write(tmp_path, "neox.yml", "train_micro_batch_size_per_gpu: 4\nseq_length: 2048\n")
    data = check_json(capsys, neox, "--world-size", "2")
    assert data["tokens_per_step"] == 8 * 2048
    no_seq = check_json(capsys, write(tmp_path, "b.yml", AXOLOTL), "--world-size", "1")
    assert no_seq["tokens_per_step"] is None


def test_json_parse_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(tmp_path, "bad.json", '{"train_batch_size": "8')
    err = check_error(capsys, file)
    assert "at at" not in err and "Unterminated string starting at line 1" in err


def test_a_launch_folder_path_is_found_at_the_repositorys_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # axolotl's own layout: examples/<model>/x.yml names deepspeed_configs/zero3.json,
    # launched from the repository's root; checked from elsewhere
    repo = tmp_path / "axolotl"
    (repo / ".git").mkdir(parents=True)
    write(repo / "deepspeed_configs", "zero3.json", {"zero_optimization": {"stage": 3}})
    file = write(
        repo / "examples" / "llama",
        "lora.yml",
        AXOLOTL + "deepspeed: deepspeed_configs/zero3.json\n",
    )
    monkeypatch.chdir(tmp_path)
    data = check_json(capsys, file, "--world-size", "2")
    found = repo / "deepspeed_configs" / "zero3.json"
    assert data["resolved_files"] == [
        {
            "key": "deepspeed",
            "reference": "deepspeed_configs/zero3.json",
            "path": str(found.resolve()),
            "where": "parent folder",
        }
    ]
    assert data["values"]["zero_stage"] == 3
    assert main(["check", str(file), "--world-size", "2"]) == 0
    out = capsys.readouterr().out
    assert (
        "not in the current folder: axolotl opens the path from the folder it is launched in" in out
    )
    # outside a repository no folder above the config is guessed: the stage is missing
    (repo / ".git").rmdir()
    data = check_json(capsys, file, "--world-size", "2")
    assert data["resolved_files"][0]["path"] is None
    assert "ZeRO stage" in data["missing"]


@pytest.mark.parametrize(
    ("file", "text", "packed"),
    [
        (
            "a.yml",
            "micro_batch_size: 2\ngradient_accumulation_steps: 4\nsequence_len: 1024\n",
            None,
        ),
        (
            "a.yml",
            "micro_batch_size: 2\ngradient_accumulation_steps: 4\nsequence_len: 1024\n"
            "sample_packing: true\n",
            True,
        ),
        (
            "sft.yaml",
            "model_name_or_path: m\nper_device_train_batch_size: 2\n"
            "gradient_accumulation_steps: 4\nmax_length: 1024\npacking: true\n",
            True,
        ),
        (
            "lf.yaml",
            "model_name_or_path: m\nstage: sft\nfinetuning_type: lora\n"
            "per_device_train_batch_size: 2\ngradient_accumulation_steps: 4\n"
            "cutoff_len: 1025\npacking: true\n",
            True,
        ),
    ],
)
def test_tokens_per_step_are_exact_only_when_packed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, text: str, packed: bool | None
) -> None:
    data = check_json(capsys, write(tmp_path, file, text), "--world-size", "2")
    # 2 x 4 x 2 GPUs = 16 samples of 1,024 tokens (LLaMA-Factory's packing: 1,025 - 1)
    assert data["tokens_per_step"] == 16 * 1024
    assert data["values"]["packing"] is packed
    assert data["tokens_per_step_at_most"] is (packed is not True)
    assert main(["check", write(tmp_path, file, text), "--world-size", "2"]) == 0
    out = capsys.readouterr().out
    assert ("at most (the samples are not packed" in out) is (packed is not True)
