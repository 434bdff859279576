"""``--cpu-memory-gb``: each node's CPU memory in the description. ``plan`` says whether
a node holds what DeepSpeed keeps there (``cpu_fits``), ``--auto`` never ranks an offload
the node cannot hold, and the other commands take the flag as ``plan`` does."""

from __future__ import annotations

import pytest

from tests.cli.helpers import fails, run_json

#: the issue's case: Llama-3-70B on 16 H100 over 2 nodes (2 data x 4 tensor x 2
#: pipeline), ZeRO-1 with the optimizer offloaded
CASE = [
    "--model", "llama-3-70b", "--gpu-card", "h100-80gb", "--seq-len", "2048",
    "--nodes", "2", "--tensor-parallel", "4", "--pipeline-stages", "2",
    "--zero-stage", "1", "--offload", "optimizer",
]  # fmt: skip
TARGET = ["--target-batch", "512"]


def _plan(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    return run_json(capsys, "plan", *CASE, *TARGET, "--gpus", "2", *extra)


def test_not_given_the_node_memory_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    data = _plan(capsys)
    need = data["cpu_bytes_per_node"]
    assert isinstance(need, int) and need > 10**12  # the offloaded states of a 70B model
    assert data["cpu_fits"] is None and data["fits"] is True


def test_a_node_holds_it_or_not(capsys: pytest.CaptureFixture[str]) -> None:
    need = _plan(capsys)["cpu_bytes_per_node"]
    assert isinstance(need, int)
    below = str(need // 10**9)  # whole GB under the need
    above = str(need // 10**9 + 1)
    assert _plan(capsys, "--cpu-memory-gb", above)["cpu_fits"] is True
    short = _plan(capsys, "--cpu-memory-gb", below)
    assert short["cpu_fits"] is False
    assert short["cpu_bytes_per_node"] == need  # the need does not depend on the budget


def test_plan_says_it_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from gradacc_desktop.cli import main

    assert main(["plan", *CASE, *TARGET, "--gpus", "2", "--cpu-memory-gb", "512"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("CPU memory per node: "))
    assert line.endswith(" GB of 512 GB (does NOT fit)"), line


def test_the_search_never_ranks_an_offload_the_node_cannot_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [*CASE[:8], *TARGET, "--world-size", "16", "--auto"]
    unknown = run_json(capsys, "plan", *argv)
    offloads = [r for r in unknown["ranking"] if r["offload"] != "none"]
    assert offloads and all(isinstance(r["cpu_bytes_per_node"], int) for r in offloads)
    smallest = min(r["cpu_bytes_per_node"] for r in offloads)
    budget = str(smallest // 10**9)  # below every offload's need
    known = run_json(capsys, "plan", *argv, "--cpu-memory-gb", budget)
    assert all(r["offload"] == "none" for r in known["ranking"])
    assert {"dimension": "offload", "value": "optimizer", "reason": "not_fit_cpu"}.items() <= {
        **next(e for e in known["exclusions"] if e["dimension"] == "offload"
               and e["value"] == "optimizer"),
    }.items()  # fmt: skip


def test_memory_says_what_plan_says(capsys: pytest.CaptureFixture[str]) -> None:
    for budget in ("1024", "4096"):
        plan = _plan(capsys, "--micro-batch", "1", "--cpu-memory-gb", budget)
        memory = run_json(
            capsys, "memory", *CASE, "--gpus", "2", "--micro-batch", "1", "--cpu-memory-gb", budget
        )
        for key in ("cpu_bytes_per_node", "cpu_fits", "fits", "per_gpu_bytes"):
            assert memory[key] == plan[key], key
        assert memory["cpu_fits"] is (budget == "4096")
    from gradacc_desktop.cli import main

    assert main(["memory", *CASE, "--gpus", "2", "--cpu-memory-gb", "1024"]) == 0
    out = capsys.readouterr().out
    assert "(1693.289 GB) of 1024 GB (does NOT fit)" in out, out


@pytest.mark.parametrize("command", ["time", "export"])
def test_every_command_takes_the_flag(capsys: pytest.CaptureFixture[str], command: str) -> None:
    extra = {
        "time": ["--micro-batch", "1", *TARGET, "--tokens", "1000000"],
        "export": ["--format", "deepspeed", "--micro-batch", "1", "--accumulation-steps", "256"],
    }[command]
    data = run_json(capsys, command, *CASE, "--world-size", "16", "--cpu-memory-gb", "4096", *extra)
    assert data["layout"]["world_size"] == 16


@pytest.mark.parametrize("value", ["0", "100001", "1.5", "lots"])
def test_out_of_range_refused(capsys: pytest.CaptureFixture[str], value: str) -> None:
    err = fails(capsys, "plan", *CASE, *TARGET, "--gpus", "2", "--cpu-memory-gb", value)
    assert "--cpu-memory-gb" in err


def test_every_command_assumes_the_same_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --nodes, every command assumes the fewest nodes of at most 8 GPUs: 32
    data-parallel GPUs are 4 nodes, as --nodes 4 says, in plan and in time alike."""
    flags = ["--model", "llama-3.1-8b", "--seq-len", "2048", "--gpu-card", "h100-80gb",
             "--gpus", "32", "--micro-batch", "2", "--target-batch", "256"]  # fmt: skip
    assumed = run_json(capsys, "plan", *flags)
    told = run_json(capsys, "plan", *flags, "--nodes", "4")
    one = run_json(capsys, "plan", *flags, "--nodes", "1")
    assert assumed["step_seconds"] == told["step_seconds"] != one["step_seconds"]
    time = run_json(capsys, "time", *flags, "--tokens", "1000000")
    assert time["step_seconds"] == assumed["step_seconds"]
    export = run_json(capsys, "export", *flags[:-2], "--format", "deepspeed",
                      "--accumulation-steps", "4")  # fmt: skip
    assert export["nodes"] == 4 and export["gpus_per_node"] == 8
