"""``gradacc time`` and the time keys of ``gradacc plan``: the contract scripts rely on."""

from __future__ import annotations

import json
from decimal import Decimal as D
from fractions import Fraction
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.time.compute import significant
from tests.planner_setup import write_profile


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data: dict[str, Any] = json.loads(out)
    return data


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("gradacc: error: ")
    return err


# --------------------------------------------------------------------------- gradacc time


def test_narayanan_gpt3_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    # 8TP/(nX): 175B parameters, 300B tokens, 1024 A100s at 140 TFLOP/s -> "34 days"
    data = run_json(
        capsys,
        "time",
        "--params", "175000000000",
        "--tokens", "300000000000",
        "--gpus", "1024",
        "--achieved-tflops", "140",
        "--recompute", "full",
        "--price-per-gpu-hour", "2.5",
    )  # fmt: skip
    seconds = Fraction(8 * 300 * 10**9 * 175 * 10**9, 1024 * 140 * 10**12)
    assert round(D(data["days"])) == 34
    assert D(data["days"]) == D("33.9084")
    assert seconds * 1024 / 3600 == Fraction(2_500_000, 3)
    assert D(data["gpu_hours"]) == D("833333.33")
    assert D(data["cost"]) == D("2083333.33")  # 2 500 000 / 3 GPU-hours at 2.5, to the cent
    assert data["hardware_flops_per_token"] == 8 * 175 * 10**9
    assert data["flops_per_token"] == 6 * 175 * 10**9
    assert data["mfu"] is None and data["peak_tflops"] is None  # no card, no peak


def test_narayanan_trillion_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "time",
        "--params", "1008000000000",
        "--tokens", "450000000000",
        "--gpus", "3072",
        "--achieved-tflops", "163",
        "--recompute", "full",
    )  # fmt: skip
    assert round(D(data["days"])) == 84
    assert data["cost"] is None


def test_card_and_mfu(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "time",
        "--params", "1000000000",
        "--tokens", "1000000000000",
        "--gpus", "8",
        "--gpu-card", "a100-80gb",
        "--mfu", "0.5",
        "--recompute", "full",
    )  # fmt: skip
    assert D(data["peak_tflops"]) == 312
    assert D(data["mfu"]) == D("0.5")
    assert D(data["hfu"]) == D("0.666667")
    assert D(data["model_tflops"]) == 156
    # 6e9 FLOPs per token at 156 TFLOP/s on 8 GPUs
    assert D(data["seconds"]) == significant(Fraction(6 * 10**21, 8 * 156 * 10**12), 6)


def test_a_card_alone_predicts_the_speed_and_recomputation_costs_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    common = (
        "time", "--model", "llama-3.1-8b", "--seq-len", "4096", "--tokens", "10000000",
        "--gpus", "8", "--gpu-card", "h100-80gb",
    )  # fmt: skip
    plain = run_json(capsys, *common)
    again = run_json(capsys, *common, "--recompute", "full")
    assert plain["speed_source"] == again["speed_source"] == "modelled"
    assert plain["uncounted"] == []
    assert D("0.2") < D(plain["mfu"]) < D("0.8")
    # 4/3 the hardware FLOPs per token: slower (the layers' forward again; the output
    # layer, the optimizer and the framework's per-step work are not repeated), at about
    # the same hardware utilisation
    assert again["hardware_flops_per_token"] * 3 == plain["hardware_flops_per_token"] * 4
    assert D(plain["seconds"]) * D("1.15") < D(again["seconds"]) < D(plain["seconds"]) * D(4) / 3
    assert abs(D(again["hfu"]) - D(plain["hfu"])) < D("0.05")
    # where the step's time goes adds up to the step
    total = sum(D(v) for v in plain["parts"].values())
    assert abs(total - D(plain["step_seconds"])) <= D(plain["step_seconds"]) * D("0.00001")


def test_model_and_attention_term(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "time",
        "--model", "mixtral-8x7b",
        "--seq-len", "4096",
        "--tokens", "1000000",
        "--gpus", "8",
        "--achieved-tflops", "300",
    )  # fmt: skip
    # a mixture of experts computes with its two routed experts: 12.9B of 46.7B, less
    # the untied input embedding (a lookup, not a matrix product)
    active = 12_879_925_248 - 32000 * 4096
    assert data["compute_params"] == active
    # "params" is every parameter, as gradacc memory and gradacc plan count them
    assert data["params"] == 46_702_792_704
    assert data["attention_flops_per_token"] == 12 * 32 * 32 * 128 * 4096
    assert data["flops_per_token"] == 6 * active + data["attention_flops_per_token"]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["time", "--params", "175000000000", "--tokens", "300000000000", "--gpus", "1024"]
    assert main([*argv, "--achieved-tflops", "140", "--recompute", "full"]) == 0
    out = capsys.readouterr().out
    assert "Time: 33.9084 days" in out
    assert "E+" not in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--gpu-card", "a100-80gb", "--achieved-tflops", "1"], "not allowed with"),
        ([], "one of the arguments"),
        (["--achieved-tflops", "100", "--mfu", "0.5"], "--mfu goes with --gpu-card"),
        (["--gpu-card", "v100-32gb", "--mfu", "0.4"], "no bf16"),
        (["--gpu-card", "a100-80gb"], "give --seq-len"),
        (["--achieved-tflops", "1", "--micro-batch", "2"], "--micro-batch describes the layout"),
        (["--gpu-card", "a100-80gb", "--mfu", "1.5"], "--mfu"),
        (["--gpu-card", "nope"], "--gpu-card"),
        (["--achieved-tflops", "0"], "--achieved-tflops"),
        (["--achieved-tflops", "1", "--seq-len", "100"], "--seq-len needs the model's shape"),
        (["--achieved-tflops", "1", "--price-per-gpu-hour", "-1"], "--price-per-gpu-hour"),
    ],
)
def test_time_refusals(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    err = fails(capsys, "time", "--params", "10", "--tokens", "10", "--gpus", "1", *argv)
    assert says in err


def test_unknown_model(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(
        capsys, "time", "--model", "gpt-9", "--tokens", "1", "--gpus", "1", "--achieved-tflops", "1"
    )
    assert "unknown model 'gpt-9'" in err and "llama-3.1-8b" in err


@pytest.mark.parametrize(
    ("flag", "typed", "meant"),
    [
        ("--model", "deepseek-r1-distill-llama70b", "did you mean deepseek-r1-distill-llama-70b"),
        ("--model", "qwen2.5-coder", "did you mean qwen2.5-coder-7b or qwen2.5-coder-32b?"),
        ("--gpu-card", "h100", "did you mean h100-80gb or h100-pcie-80gb?"),
        ("--gpu-card", "a100-80", "did you mean a100-80gb?"),
    ],
)
def test_a_mistyped_name_is_answered_with_what_it_may_mean(
    capsys: pytest.CaptureFixture[str], flag: str, typed: str, meant: str
) -> None:
    args = ["--model", "llama-3.1-8b", "--seq-len", "4096", flag, typed]
    err = fails(capsys, "plan", "--target-batch", "64", "--gpus", "8", *args)
    assert f"{flag}: unknown {flag.removeprefix('--').replace('gpu-', '')} {typed!r}" in err
    assert meant in err


def test_a_name_like_no_other_gets_the_list_alone(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, "plan", "--target-batch", "64", "--gpus", "8", "--gpu-card", "zzz")
    assert "unknown card 'zzz' (choose from: a100-40gb," in err and "did you mean" not in err


# --------------------------------------------------------------------------- gradacc plan

PLAN = (
    "plan", "--target-batch", "512", "--gpus", "8", "--gpu-card", "a100-80gb",
    "--other-memory-gb", "20", "--activation-gb", "2.5", "--seq-len", "4096",
)  # fmt: skip
TIME_KEYS = {"step_seconds", "tokens_per_second", "mfu", "bubble_fraction"}


def test_plan_without_a_model_has_no_time_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *PLAN)
    assert not TIME_KEYS & set(data)
    assert all(not TIME_KEYS & set(c) for c in data["candidates"])
    assert "fastest" not in data and "layout" not in data


def test_plan_reports_time_per_plan_and_per_candidate(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *PLAN, "--model", "llama-3.1-8b")
    assert set(data) >= TIME_KEYS
    assert all(set(c) >= TIME_KEYS for c in data["candidates"])
    assert D(data["bubble_fraction"]) == 0  # one stage
    assert D("0.3") < D(data["mfu"]) <= D("0.75")
    assert data["layout"] == {
        "data_parallel": 8, "tensor_parallel": 1, "pipeline_stages": 1, "virtual_stages": 1,
        "expert_parallel": 1, "expert_tensor_parallel": 1, "context_parallel": 1,
        "world_size": 8,
    }  # fmt: skip
    assert data["efficiency"] == "modelled" and data["uncounted"] == []
    fastest = data["fastest"]
    assert fastest["effective_batch"] == data["effective_batch"]
    best = max(
        (c for c in data["candidates"] if c["effective_batch"] == data["effective_batch"]),
        key=lambda c: D(c["tokens_per_second"]),
    )
    assert D(fastest["tokens_per_second"]) == D(best["tokens_per_second"])


def test_plan_with_pipeline_prefers_more_micro_batches(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        *PLAN,
        "--model", "llama-3-70b",
        "--tensor-parallel", "8",
        "--pipeline-stages", "4",
        "--nodes", "32",
        "--framework", "fsdp",  # its tensor parallelism splits every activation evenly
    )  # fmt: skip
    assert data["layout"]["world_size"] == 8 * 8 * 4
    # memory alone picks the largest micro-batch (one micro-batch: a 3/4 bubble) ...
    assert data["accumulation_steps"] == 1
    assert D(data["bubble_fraction"]) > D("0.7")
    # ... time picks many micro-batches, whose bubble (p - 1)/(m + p - 1) is small, and
    # not the most: two samples per micro-step pay its fixed costs half as often
    fastest = data["fastest"]
    assert (fastest["micro_batch"], fastest["accumulation_steps"]) == (2, 32)
    assert D(fastest["bubble_fraction"]) < D(3) / D(35)
    assert D(fastest["step_seconds"]) < D(data["step_seconds"])
    # the 2.5 GB typed for one sample scale the stage that holds the most: the first
    # one (4 micro-batches of a quarter of the layers, split 8 ways), without the logits
    # the last stage keeps; FSDP2's caching allocator reserves 10 % on top
    share = data["activation_bytes_per_gpu_per_sample"]
    assert D(share) < D("2.5e9") / 8 * D("1.1")
    assert abs(D(data["activation_gb"]) * 10**9 - data["micro_batch"] * share) < 10**6


def test_plan_solve_mode_has_time(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *PLAN, "--micro-batch", "4", "--params", "7000000000")
    assert data["accumulation_steps"] == 16
    assert set(data) >= TIME_KEYS


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--model", "gpt2", "--params", "5"], "not allowed with"),
        (["--params", "100", "--nodes", "3"], "cannot be split evenly over 3 nodes"),
        (["--efficiency", "0.5"], "--efficiency needs --params, --model or --model-config"),
        (["--params", "100", "--precision", "fp16", "--tensor-parallel", "0"], "--tensor-parallel"),
    ],
)
def test_plan_time_refusals(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    err = fails(capsys, *PLAN, *argv)
    assert says in err


def test_plan_time_needs_a_length_and_a_cards_speed(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, "plan", "--target-batch", "8", "--gpus", "1", "--params", "10")
    assert "--seq-len is needed with a model" in err
    # a card's memory without its speed: the plan, its memory, no time
    data = run_json(
        capsys, "plan", "--target-batch", "8", "--gpus", "1", "--params", "10", "--seq-len",
        "8", "--gpu-memory-gb", "16", "--activation-gb", "1",
    )  # fmt: skip
    assert data["time_unavailable"] == "no_speed" and not TIME_KEYS & set(data)
    assert data["fits"] is True and data["other_memory_source"] == "estimated"


def _profile(tmp_path, seq_len: int = 4096) -> str:  # type: ignore[no-untyped-def]
    return str(write_profile(tmp_path / "profile.json", seq_len))


def test_plan_with_a_measured_profile(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    argv = (*PLAN, "--model", "llama-3.1-8b", "--micro-batch", "4", "--gpus", "1")
    data = run_json(capsys, *argv, "--speed-profile", _profile(tmp_path))
    assert data["measured"] is True and data["memory_bound"] is False
    # 4 sits between the measured 1 (0.5 s) and 8 (4 s): 0.5 + 3.5 x 3/7 = 2 s
    assert D(data["micro_step_seconds"]) == 2
    assert data["accumulation_steps"] == 128
    roofline = run_json(capsys, *argv)
    assert roofline["measured"] is False
    assert D(roofline["micro_step_seconds"]) != 2


def test_a_profile_measured_otherwise_warns(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = _profile(tmp_path, seq_len=2048)
    assert main([*PLAN, "--model", "llama-3.1-8b", "--speed-profile", path, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["measured"] is True
    assert err == (
        "gradacc: warning: --speed-profile: measured at sequence length 2048, planned at 4096\n"
    )


def test_a_bad_profile_is_refused(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    err = fails(capsys, *PLAN, "--model", "gpt2", "--speed-profile", str(bad))
    assert err.startswith("gradacc: error: --speed-profile: ")
    err = fails(capsys, *PLAN, "--speed-profile", str(bad))
    assert "--speed-profile needs --params, --model or --model-config" in err


def test_plan_text_names_the_time_and_the_fastest_pair(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*PLAN, "--model", "llama-3-70b", "--tensor-parallel", "8", "--pipeline-stages", "4"]
    assert main([*argv, "--nodes", "32", "--framework", "fsdp"]) == 0
    out = capsys.readouterr().out
    time_line = next(line for line in out.splitlines() if line.startswith("Time: "))
    fastest = next(line for line in out.splitlines() if line.startswith("Fastest pair"))
    assert "s per optimizer step" in time_line and "bubble 0.7" in time_line
    assert fastest.startswith("Fastest pair that fits: 2 x 32: ")
    assert "E+" not in out and ".0 tokens/s" not in out


def test_nothing_fits_and_no_single_change_says_what_to_try(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In words, as the window says it (not the JSON's suggestion keys)."""
    argv = ["plan", "--model", "llama-3.1-405b", "--seq-len", "4096", "--gpus", "1"]
    argv += ["--gpu-card", "rtx-4090-24gb", "--target-batch", "64"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(
        "No single change makes it fit: try --auto (the best setup on these GPUs), "
        "or a smaller model."
    )
    assert "zero sharding" not in out
