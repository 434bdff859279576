"""``gradacc export --tensor-parallel TP --pipeline-stages PP``: files, notes and layout keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import TrainingSetup

BASE = ["export", "--micro-batch", "2", "--accumulation-steps", "4", "--gpus", "4"]


def _json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main([*BASE, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_json_gains_layout_and_notes(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(
        capsys,
        *["--format", "megatron", "--tensor-parallel", "2", "--pipeline-stages", "2"],
        *["--nodes", "2", "--sequence-parallel"],
    )
    assert data["layout"] == {
        "data_parallel": 4,
        "tensor_parallel": 2,
        "pipeline_stages": 2,
        "expert_parallel": 1,
        "expert_tensor_parallel": 2,
        "context_parallel": 1,
        "world_size": 16,
    }
    assert data["gpus"] == 4 and data["gpus_per_node"] == 8
    assert data["effective_batch"] == 32
    notes = data["notes"]
    assert isinstance(notes, list) and len(notes) == 1
    setup = TrainingSetup(2, 4, 4, nodes=2, tensor_parallel=2, pipeline_stages=2)
    exported = export(ExportFormat.MEGATRON, setup)
    assert data["files"] == exported.files
    assert notes == list(exported.notes)


def test_defaults_keep_every_existing_key(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "--format", "deepspeed")
    assert data["notes"] == []
    assert data["layout"] == {
        "data_parallel": 4,
        "tensor_parallel": 1,
        "pipeline_stages": 1,
        "expert_parallel": 1,
        "expert_tensor_parallel": 1,
        "context_parallel": 1,
        "world_size": 4,
    }
    for key in (
        "format",
        "micro_batch",
        "accumulation_steps",
        "gpus",
        "nodes",
        "gpus_per_node",
        "zero_stage",
        "precision",
        "offload",
        "effective_batch",
        "target_batch",
        "exact",
        "verdicts",
        "files",
        "snippet",
    ):
        assert key in data
    assert data["files"] == export(ExportFormat.DEEPSPEED, TrainingSetup(2, 4, 4)).files


def test_printed_files_and_notes_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*BASE, "--format", "deepspeed", "--tensor-parallel", "2"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert '"autotp_size": 2' in out
    assert err.startswith("note: Tensor parallelism is DeepSpeed AutoTP")
    assert main([*BASE, "--format", "deepspeed"]) == 0
    assert capsys.readouterr().err == ""


def test_out_writes_the_layout_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = [*BASE, "--format", "deepspeed", "--pipeline-stages", "2", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds_config.json", "launch.sh"]
    assert (tmp_path / "launch.sh").stat().st_mode & 0o111
    assert "PipelineModule" in capsys.readouterr().err


def test_tensor_parallel_spanning_nodes_is_written_with_a_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [*BASE, "--format", "megatron", "--tensor-parallel", "4", "--nodes", "8"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "--tensor-model-parallel-size 4" in out
    assert "note: A tensor-parallel group of 4 GPUs spans nodes of 2 GPUs" in err


def test_sequence_parallelism_and_selective_recomputation_follow_the_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [*BASE, "--format", "megatron", "--tensor-parallel", "2", "--json"]
    plain = json.loads(run_capture(capsys, argv))["files"]["megatron_args.sh"]
    assert "--sequence-parallel" not in plain
    both = json.loads(
        run_capture(capsys, [*argv, "--sequence-parallel", "--recompute", "selective"])
    )
    assert "--sequence-parallel" in both["files"]["megatron_args.sh"]
    assert "--recompute-granularity selective" in both["files"]["megatron_args.sh"]
    # files of frameworks without selective recomputation say so
    hf = json.loads(run_capture(capsys, [*BASE, "--format", "hf", "--recompute", "selective",
                                          "--json"]))  # fmt: skip
    assert any(
        n.startswith("Selective recomputation (the attention core only)") for n in hf["notes"]
    )


def run_capture(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--tensor-parallel", "--pipeline-stages"])
@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "x"])
def test_bad_layout_values_are_usage_errors(
    capsys: pytest.CaptureFixture[str], flag: str, bad: str
) -> None:
    assert main([*BASE, "--format", "megatron", flag, bad]) == 2
    assert flag in capsys.readouterr().err
