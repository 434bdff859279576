from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop import __version__
from gradacc_desktop.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_calc_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "calc",
        "--micro-batch",
        "4",
        "--accumulation-steps",
        "8",
        "--gpus",
        "2",
        "--activation-gb",
        "0.5",
    )
    assert data["effective_batch"] == 64
    assert data["activation_per_gpu_gb"] == "2"
    assert data["micro_batch"] == 4 and data["accumulation_steps"] == 8
    assert data["exact"] is True


def test_calc_human(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "calc",
                "--micro-batch",
                "4",
                "--accumulation-steps",
                "8",
                "--gpus",
                "1",
                "--activation-gb",
                "0.5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "= 32" in out and "2 GB" in out


def test_plan_with_micro_batch_and_fit(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "plan",
        "--target-batch",
        "100",
        "--micro-batch",
        "3",
        "--gpus",
        "2",
        "--gpu-memory-gb",
        "24",
        "--other-memory-gb",
        "20",
        "--activation-gb",
        "0.5",
        "--seq-len",
        "2048",
        "--dataset-samples",
        "10000",
    )
    assert data["accumulation_steps"] == 17 and data["effective_batch"] == 102
    assert data["exact"] is False and data["difference"] == 2
    assert data["fits"] is True and data["max_micro_batch"] == 8
    assert data["total_gb"] == "21.5" and data["headroom_gb"] == "2.5"
    assert data["deepspeed"]["ok"] is False
    assert data["deepspeed"]["reason"] == "not_divisible"
    assert data["exact_micro_batches"][0] == [1, 50]
    assert data["tokens_per_step"] == 102 * 2048
    assert data["steps_per_epoch"] == 99 and data["steps_per_epoch_drop_last"] == 98


def test_plan_rounding(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "plan",
        "--target-batch",
        "100",
        "--micro-batch",
        "3",
        "--gpus",
        "2",
        "--rounding",
        "floor",
    )
    assert data["effective_batch"] == 96 and data["fits"] is None


def test_plan_recommends(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "plan",
        "--target-batch",
        "512",
        "--gpus",
        "8",
        "--gpu-memory-gb",
        "80",
        "--other-memory-gb",
        "30",
        "--activation-gb",
        "1.5",
    )
    assert (data["micro_batch"], data["accumulation_steps"]) == (32, 2)
    assert data["exact"] is True and data["fits"] is True and data["max_micro_batch"] == 33
    assert any(c["micro_batch"] == 32 for c in data["candidates"])


def test_plan_gpu_card(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "plan",
        "--target-batch",
        "64",
        "--gpus",
        "1",
        "--gpu-card",
        "t4-16gb",
        "--other-memory-gb",
        "10",
        "--activation-gb",
        "1",
    )
    assert data["gpu_memory_gb"] == "15" and data["max_micro_batch"] == 5
    assert (
        main(
            [
                "plan",
                "--target-batch",
                "64",
                "--gpus",
                "1",
                "--gpu-card",
                "t4-16gb",
                "--gpu-memory-gb",
                "16",
                "--other-memory-gb",
                "10",
                "--activation-gb",
                "1",
            ]
        )
        == 2
    )
    assert "alternatives" in capsys.readouterr().err


def test_plan_nothing_fits(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "plan",
        "--target-batch",
        "512",
        "--gpus",
        "8",
        "--gpu-memory-gb",
        "80",
        "--other-memory-gb",
        "90",
        "--activation-gb",
        "1.5",
    )
    assert data["fits"] is False and data["max_micro_batch"] == 0
    assert data["micro_batch"] is None and data["shortfall_gb"] == "11.5"
    assert "zero_sharding" in data["suggestions"]


#: memory figures typed in: a micro-batch can be recommended (up to 700 samples fit)
MEM = ["--gpu-memory-gb", "80", "--other-memory-gb", "10", "--activation-gb", "0.1"]


def test_plan_human(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--target-batch", "64", "--gpus", "2", *MEM]) == 0
    out = capsys.readouterr().out
    assert "Recommended: micro-batch 32 x 1" in out


def test_no_recommendation_without_the_memory(capsys: pytest.CaptureFixture[str]) -> None:
    """Without the memory per GPU, which micro-batch fits is not known: the pairs that
    reach the target are listed, none recommended (no verdict rests on placeholders)."""
    assert main(["plan", "--target-batch", "64", "--gpus", "2"]) == 0
    out = capsys.readouterr().out
    assert "Recommended" not in out
    assert "Micro-batch x accumulation steps x GPUs: 1 x 32 x 2 = 64, 2 x 16 x 2 = 64," in out
    assert "No recommendation: which micro-batch fits is not known" in out
    data = run_json(capsys, "plan", "--target-batch", "64", "--gpus", "2")
    assert (data["micro_batch"], data["fits"], data["max_micro_batch"]) == (None, None, None)
    assert [c["micro_batch"] for c in data["candidates"]] == [1, 2, 4, 8, 16, 32]
    assert all(c["fits"] is None and c["exact"] for c in data["candidates"])


@pytest.mark.parametrize(
    "fmt", ["deepspeed", "hf", "hf-deepspeed", "accelerate", "lightning", "torchrun", "megatron"]
)
def test_export(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert (
        main(
            [
                "export",
                "--format",
                fmt,
                "--micro-batch",
                "4",
                "--accumulation-steps",
                "8",
                "--gpus",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "8" in out and "4" in out
    if fmt == "deepspeed":
        assert json.loads(out)["train_batch_size"] == 64


def test_export_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "export",
        "--format",
        "lightning",
        "--micro-batch",
        "4",
        "--accumulation-steps",
        "8",
        "--gpus",
        "2",
    )
    assert data["effective_batch"] == 64
    assert "accumulate_grad_batches=8" in data["files"]["train.py"]
    assert data["exact"] is None  # no --target-batch: nothing to be exact to
    assert data["verdicts"]["deepspeed"]["ok"] and data["verdicts"]["megatron"]["ok"]


def test_export_json_reports_real_exactness_and_verdicts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = run_json(
        capsys,
        "export",
        "--format",
        "deepspeed",
        "--micro-batch",
        "19",
        "--accumulation-steps",
        "9",
        "--gpus",
        "3",
        "--target-batch",
        "512",
    )
    assert data["effective_batch"] == 513 and data["exact"] is False
    assert data["verdicts"]["deepspeed"] == {
        "ok": False,
        "reason": "product_mismatch",
        "train_batch_size": 512,
    }
    assert data["verdicts"]["megatron"]["ok"] is False
    config = json.loads(data["files"]["ds_config.json"])
    assert config["train_batch_size"] == 513


def test_export_multi_node_and_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "cfg"
    args = ["export", "--format", "hf-deepspeed", "--micro-batch", "2", "--accumulation-steps"]
    args += ["4", "--gpus", "64", "--nodes", "8", "--zero-stage", "3", "--offload", "all"]
    args += ["--precision", "fp16", "--out", str(out)]
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ds_config.json", "launch.sh", "train.py"]
    launch = (out / "launch.sh").read_text(encoding="utf-8")
    assert "--nnodes 8 --nproc_per_node 8" in launch
    assert (out / "launch.sh").stat().st_mode & 0o100
    config = json.loads((out / "ds_config.json").read_text(encoding="utf-8"))
    assert config["zero_optimization"]["offload_param"]["device"] == "cpu"
    assert "fp16=True," in (out / "train.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--gpus", "6", "--nodes", "4"], "cannot be split evenly over 4 nodes"),
        (["--gpus", "2", "--offload", "optimizer"], "needs ZeRO stage 1, 2 or 3"),
        (["--gpus", "2", "--zero-stage", "2", "--offload", "all"], "needs ZeRO stage 3"),
    ],
)
def test_export_refuses_impossible_setups(
    capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    argv = ["export", "--format", "deepspeed", "--micro-batch", "1", "--accumulation-steps", "1"]
    assert main(argv + extra) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("gradacc: error: ") and needle in err


def test_memory_json_llama2_7b(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "memory", "--params", "6738415616", "--gpus", "8", "--zero-stage", "2")
    assert data["gpu_bytes"] == 28_638_266_368  # DeepSpeed's estimator for Llama-2-7B
    assert data["cpu_bytes"] == 323_443_949_568
    parts = {(c["where"], c["part"]) for c in data["breakdown"]}
    assert ("gpu", "fp32_gradients") in parts and ("cpu", "cpu_buffer") in parts
    assert "estimate_zero2_model_states_mem_needs" in data["source"]


def test_memory_human_and_offload(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["memory", "--params", "1000000000", "--largest-layer-params", "100000000"]
    argv += ["--gpus", "16", "--nodes", "2", "--zero-stage", "3", "--offload", "all"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Per GPU:  400000000 bytes (0.400 GB)" in out
    assert "Per node (CPU): 13500000000 bytes (13.500 GB)" in out


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--zero-stage", "2", "--offload", "all"], "parameter offload needs ZeRO stage 3"),
        (["--zero-stage", "2", "--recipe", "lora"], "--trainable-params"),
        (["--zero-stage", "2", "--nodes", "3"], "cannot be split evenly"),
    ],
)
def test_memory_refuses(capsys: pytest.CaptureFixture[str], extra: list[str], needle: str) -> None:
    assert main(["memory", "--params", "1000", "--gpus", "4", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and needle in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"gradacc {__version__}"


CALC = [
    "calc",
    "--micro-batch",
    "4",
    "--accumulation-steps",
    "8",
    "--gpus",
    "1",
    "--activation-gb",
    "0.5",
]


def _replace(argv: list[str], flag: str, value: str) -> list[str]:
    out = list(argv)
    out[out.index(flag) + 1] = value
    return out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            _replace(CALC, "--micro-batch", "0"),
            "--micro-batch: must be an integer between 1 and 1000000",
        ),
        (_replace(CALC, "--micro-batch", "abc"), "--micro-batch: must be an integer"),
        (_replace(CALC, "--micro-batch", "2.5"), "--micro-batch: must be an integer"),
        (_replace(CALC, "--micro-batch", "4.0"), "--micro-batch: must be an integer"),
        (_replace(CALC, "--micro-batch", "1e3"), "--micro-batch: must be an integer"),
        (_replace(CALC, "--gpus", "1000001"), "--gpus: must be an integer"),
        (_replace(CALC, "--activation-gb", "0"), "--activation-gb: must be a number"),
        (_replace(CALC, "--activation-gb", "0.0001"), "--activation-gb: must be a number"),
        (_replace(CALC, "--activation-gb", "nan"), "--activation-gb: must be a number"),
        (_replace(CALC, "--activation-gb", "inf"), "--activation-gb: must be a number"),
        (CALC[:-2], "--activation-gb"),
        (["plan", "--target-batch", "0", "--gpus", "1"], "--target-batch: must be an integer"),
        (["plan", "--target-batch", "1000000001", "--gpus", "1"], "--target-batch"),
        (["plan", "--target-batch", "8", "--gpus", "1", "--rounding", "up"], "--rounding"),
        (
            ["plan", "--target-batch", "8", "--gpus", "1", "--model", "gpt2"],
            "--seq-len is needed with a model",
        ),
        (
            [
                "plan",
                "--target-batch",
                "8",
                "--gpus",
                "1",
                "--gpu-memory-gb",
                "80",
                "--other-memory-gb",
                "-1",
                "--activation-gb",
                "1",
            ],
            "--other-memory-gb",
        ),
        (
            [
                "export",
                "--format",
                "keras",
                "--micro-batch",
                "1",
                "--accumulation-steps",
                "1",
                "--gpus",
                "1",
            ],
            "--format",
        ),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
        ([*CALC, "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("gradacc: error: ")
    assert err.count("\n") == 1
    assert needle in err


def test_every_command_is_registered_in_help_order(capsys: pytest.CaptureFixture[str]) -> None:
    """Each module registers its own command, with a summary, in help order, and the
    command runs that module's handler."""
    parser = build_parser()
    help_text = parser.format_help()
    # a command starts its line after four spaces; its summary may continue below
    listed = [
        line.split()[0]
        for line in help_text.splitlines()
        if line.startswith("    ") and line[4] != " "
    ]
    assert listed == list(COMMANDS), help_text
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subparsers.choices) == list(COMMANDS)
    summaries = {action.dest: action.help for action in subparsers._choices_actions}
    assert all(summaries.get(name) for name in COMMANDS), summaries
    for name in COMMANDS:
        handler = subparsers.choices[name].get_default("handler")
        assert handler.__module__ == f"gradacc_desktop.cli.{name}", name
        # and the command's own --help, through main: usage of that command, exit 0
        assert main([name, "--help"]) == 0
        out, err = capsys.readouterr()
        assert out.startswith(f"usage: gradacc {name} "), out
        assert err == ""


def test_a_missing_module_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> Any:
        if name == "gradacc_desktop.cli.activation":
            raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(ModuleNotFoundError):
        build_parser()


def _subprocess(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gradacc_desktop.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_subprocess_json() -> None:
    done = _subprocess(
        "plan", "--target-batch", "256", "--gpus", "4", "--micro-batch", "8", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    data = json.loads(done.stdout)
    assert data["accumulation_steps"] == 8 and data["exact"] is True


def test_subprocess_error() -> None:
    done = _subprocess(
        "calc",
        "--micro-batch",
        "0",
        "--accumulation-steps",
        "1",
        "--gpus",
        "1",
        "--activation-gb",
        "1",
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "gradacc: error: --micro-batch: must be an integer between 1 and 1000000\n"
    )


def test_cli_imports_no_qt() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, gradacc_desktop.cli, gradacc_desktop.core.scenario; "
            "print(any(m.startswith('PySide6') for m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() == "False", done.stderr


def _installed_gradacc() -> str:
    """The console script pip installed beside this interpreter."""
    import shutil

    folder = Path(sys.executable).parent
    found = shutil.which("gradacc", path=str(folder))
    assert found, f"the gradacc entry point is not installed in {folder}"
    return found


def test_installed_entry_point_calc_json() -> None:
    done = subprocess.run(
        [
            _installed_gradacc(),
            "calc",
            "--micro-batch",
            "4",
            "--accumulation-steps",
            "8",
            "--gpus",
            "1",
            "--activation-gb",
            "0.5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["effective_batch"] == 32
    assert data["micro_batch"] == 4
    assert data["accumulation_steps"] == 8


def test_installed_entry_point_plan_recommends_and_rejects() -> None:
    gradacc = _installed_gradacc()
    done = subprocess.run(
        [
            gradacc,
            "plan",
            "--target-batch",
            "512",
            "--gpus",
            "8",
            "--gpu-memory-gb",
            "80",
            "--other-memory-gb",
            "30",
            "--activation-gb",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["fits"] is True
    assert data["max_micro_batch"] == 25
    assert data["micro_batch"] * data["accumulation_steps"] * 8 == 512
    bad = subprocess.run(
        [gradacc, "export", "--format", "yaml"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "--format" in bad.stderr


def test_plan_without_exact_pair_names_both_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "plan", "--target-batch", "512", "--gpus", "3", *MEM)
    assert data["effective_batch"] == 513 and data["exact"] is False
    assert data["verdicts"]["deepspeed"] == {"ok": False, "reason": "product_mismatch"}
    assert data["verdicts"]["megatron"]["ok"] is False
    assert main(["plan", "--target-batch", "512", "--gpus", "3", *MEM]) == 0
    out = capsys.readouterr().out
    # the same sentences gradacc check and the window say
    assert "DeepSpeed refuses train_batch_size 512: 171 (micro-batch) x 1 (accumulation " in out
    assert (
        "Give it train_batch_size 513 (the exported configuration does), or choose a "
        "micro-batch that reaches 512 exactly."
    ) in out
    assert (
        "Megatron refuses --global-batch-size 512 --micro-batch-size 171 on 3 data-parallel "
        "GPU(s): the global batch is not a multiple of micro-batch x GPUs = 513. Give it "
        "--global-batch-size 513 (the exported configuration does), or choose a micro-batch "
        "that reaches 512 exactly."
    ) in out


def test_plan_candidates_carry_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "plan", "--target-batch", "512", "--gpus", "8", *MEM)
    assert data["verdicts"]["megatron"] == {"ok": True, "derived_accumulation_steps": 1}
    for pair in data["candidates"]:
        assert pair["verdicts"]["deepspeed"]["ok"] is pair["exact"]
        assert pair["verdicts"]["megatron"]["ok"] is pair["exact"]


def test_plan_floor_never_exceeds_silently(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--target-batch", "10", "--gpus", "4", "--micro-batch", "4"]
    data = run_json(capsys, *argv, "--rounding", "floor")
    assert data["floor_unreachable"] is True and data["largest_micro_batch_within"] == 2
    assert main([*argv, "--rounding", "floor"]) == 0
    assert "use a micro-batch of at most 2" in capsys.readouterr().out
    # when the floor can be respected it is
    data = run_json(
        capsys, "plan", "--target-batch", "100", "--gpus", "3", "--rounding", "floor", *MEM
    )
    assert data["effective_batch"] <= 100 and data["floor_unreachable"] is False


def test_memory_qlora_from_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["memory", "--gpus", "1", "--zero-stage", "0", "--recipe", "lora"]
    argv += ["--model", "llama-3-8b", "--lora-targets", "all-linear", "--lora-rank", "16"]
    four = run_json(capsys, *argv, "--base-bits", "4")
    sixteen = run_json(capsys, *argv, "--base-bits", "16")
    assert four["trainable_params"] == sixteen["trainable_params"] == 41_943_040
    assert four["params"] == 8_030_261_248 + 41_943_040
    weights = {c["part"]: int(c["bytes"]) for c in four["breakdown"] if c["where"] == "gpu"}
    # NF4 linears with double quantization + 16-bit embeddings, head and norms, and
    # the 16-bit adapters
    assert weights["weights"] == 5_702_295_552 + 2 * 41_943_040
    assert four["gpu_bytes"] < sixteen["gpu_bytes"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--zero-stage", "0"], "--params"),
        (["--zero-stage", "0", "--recipe", "lora", "--model", "gpt-5"], "unknown model"),
        # one model, as in plan and time: argparse's own refusal
        (["--zero-stage", "0", "--model", "gpt2", "--params", "5"], "not allowed with"),
        (
            ["--zero-stage", "0", "--recipe", "lora", "--model", "mixtral-8x7b"],
            "--trainable-params",
        ),
        (
            [
                "--zero-stage",
                "0",
                "--recipe",
                "lora",
                "--model",
                "gpt2",
                "--lora-targets",
                "q_proj",
            ],
            "--lora-targets",
        ),
    ],
)
def test_memory_lora_refusals(
    capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    assert main(["memory", "--gpus", "1", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and needle in err and err.count("\n") == 1


def test_a_closed_pipe_stops_quietly() -> None:
    """``gradacc … | head -1``: the reader has gone away; one exit code, no traceback."""
    script = (
        "import os, sys\n"
        "r, w = os.pipe()\n"
        "os.close(r)\n"
        "os.dup2(w, 1)\n"
        "from gradacc_desktop.cli import main\n"
        "code = main(['activation', '--model', 'gpt2', '--seq-len', '512'])\n"
        "sys.stderr.write(f'code={code}\\n')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.stderr == "code=1\n", result.stderr
    assert result.returncode == 0
