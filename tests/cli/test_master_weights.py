"""``--master-weights`` on the command line: the plan's JSON says the master copy it
counts, a copy the framework does not keep is a problem, DeepSpeed's ZeRO-0 refuses the
bf16 copy, and the export writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradacc_desktop.cli import main
from tests.cli.helpers import run_json

PLAN = ("plan", "--model", "llama-3.1-8b", "--seq-len", "4096", "--target-batch", "64",
        "--micro-batch", "1", "--gpus", "8", "--gpu-card", "h100-80gb",
        "--zero-stage", "3")  # fmt: skip


def test_the_bf16_master_copy_lowers_the_plans_memory(capsys: pytest.CaptureFixture[str]) -> None:
    mixed = run_json(capsys, *PLAN)
    bf16 = run_json(capsys, *PLAN, "--master-weights", "bf16")
    assert (mixed["master_weights"], bf16["master_weights"]) == ("fp32", "bf16")
    # ZeRO-3 over 8 GPUs: 18 bytes per parameter sharded become 10
    params = 8_030_261_248
    assert mixed["per_gpu_bytes"] - bf16["per_gpu_bytes"] == pytest.approx(params, rel=0.01)


def test_a_copy_the_framework_does_not_keep_is_a_problem(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = run_json(capsys, *PLAN, "--master-weights", "none")
    assert data["master_weights"] == "fp32"
    assert [p["rule"] for p in data["problems"]] == ["master_deepspeed"]
    fsdp = run_json(capsys, *PLAN, "--master-weights", "none", "--framework", "fsdp")
    assert fsdp["master_weights"] == "none" and fsdp["problems"] == []
    # the other commands refuse it with the same sentence
    code = main(["time", *PLAN[1:], "--tokens", "1000000000", "--master-weights", "none"])
    err = capsys.readouterr().err
    assert code == 2 and "--master-weights: DeepSpeed's optimizers always keep" in err


def test_the_optimizer_step_moves_half_the_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    mixed = run_json(capsys, *PLAN)["parts"]["optimizer"]
    bf16 = run_json(capsys, *PLAN, "--master-weights", "bf16")["parts"]["optimizer"]
    # Adam reads and writes 16 bytes per parameter instead of 32
    assert float(bf16) == pytest.approx(float(mixed) / 2, rel=1e-4)


def test_deepspeed_refuses_the_bf16_copy_without_zero(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*PLAN[:-2], "--zero-stage", "0", "--master-weights", "bf16"]
    data = run_json(capsys, *args)
    assert [r["rule"] for r in data["refusals"]] == ["bf16_master_zero"]


def test_the_export_writes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["export", "--format", "deepspeed", "--micro-batch", "1", "--accumulation-steps",
            "8", "--gpus", "8", "--zero-stage", "3", "--master-weights", "bf16"]  # fmt: skip
    code = main([*args, "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    config = json.loads((tmp_path / "ds_config.json").read_text("utf-8"))
    assert config["bf16"]["bf16_master_weights_and_grads"] is True
    assert config["bf16"]["bf16_optimizer_states"] is True


def test_memory_names_the_bf16_copys_parts(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["memory", "--model", "llama-3.1-8b", "--gpus", "8", "--zero-stage", "3"]
    assert main([*args, "--master-weights", "bf16"]) == 0
    out = capsys.readouterr().out
    assert ", bf16 master copy\n" in out.splitlines(keepends=True)[0]
    assert "  GPU bf16 master weights: " in out and "  GPU bf16 gradients: " in out
    assert "  CPU fp32 model while loading (each process): " in out
    # a count (--params) is DeepSpeed's estimator: pure bf16 is refused with the sentence
    code = main(["memory", "--params", "8000000000", "--gpus", "8", "--master-weights", "none"])
    assert code == 2
    assert "--master-weights: DeepSpeed's optimizers always keep" in capsys.readouterr().err


def test_the_python_exports_say_where_pure_bf16_goes(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["export", "--micro-batch", "1", "--accumulation-steps", "4", "--gpus", "8",
            "--zero-stage", "3", "--framework", "fsdp", "--json"]  # fmt: skip
    for fmt in ("accelerate", "hf", "torchrun"):
        pure = run_json(capsys, *args, "--format", fmt, "--master-weights", "none")
        mixed = run_json(capsys, *args, "--format", fmt)
        said = [n for n in pure["notes"] if n.startswith("Pure bf16 (no master copy)")]
        assert len(said) == 1 and "torch_dtype=torch.bfloat16" in said[0], fmt
        assert not [n for n in mixed["notes"] if n.startswith("Pure bf16")], fmt


def test_files_that_run_deepspeed_say_pure_bf16_is_not_in_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["export", "--micro-batch", "1", "--accumulation-steps", "4", "--gpus", "8",
            "--zero-stage", "3", "--framework", "fsdp", "--master-weights", "none",
            "--json"]  # fmt: skip
    for fmt, framework in (("deepspeed", "DeepSpeed"), ("lightning", "DeepSpeed"),
                           ("megatron", "Megatron")):  # fmt: skip
        notes = run_json(capsys, *args, "--format", fmt)["notes"]
        said = [n for n in notes if n.startswith("Pure bf16 is not in these files")]
        assert len(said) == 1 and f": {framework} keeps an fp32 master copy" in said[0], fmt


def test_files_without_deepspeeds_json_say_the_bf16_copy_is_not_in_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["export", "--micro-batch", "1", "--accumulation-steps", "4", "--gpus", "8",
            "--zero-stage", "2", "--master-weights", "bf16", "--json"]  # fmt: skip
    for fmt in ("accelerate", "hf", "lightning"):
        notes = run_json(capsys, *args, "--format", fmt)["notes"]
        assert any(
            n.startswith("DeepSpeed's bf16 master copy is not in these files") for n in notes
        )
    for fmt in ("deepspeed", "hf-deepspeed"):
        notes = run_json(capsys, *args, "--format", fmt)["notes"]
        assert not any("bf16 master copy is not" in n for n in notes), fmt


def test_accelerate_writes_fsdp_for_an_fsdp_description(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["export", "--format", "accelerate", "--micro-batch", "1", "--accumulation-steps",
            "4", "--gpus", "8", "--zero-stage", "3"]  # fmt: skip
    assert main([*args, "--framework", "fsdp"]) == 0
    fsdp = capsys.readouterr().out
    assert "distributed_type: FSDP\n" in fsdp and "  fsdp_version: 2\n" in fsdp
    assert "  fsdp_reshard_after_forward: true\n" in fsdp and "mixed_precision: bf16\n" in fsdp
    assert main(args) == 0
    assert "distributed_type: DEEPSPEED\n" in capsys.readouterr().out
