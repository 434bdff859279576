"""The parallel layout in the setup rules and in each export format's files."""

from __future__ import annotations

import ast
import json

import pytest

from gradacc_desktop.core.frameworks.export import (
    ExportFormat,
    accelerate_config,
    deepspeed_config,
    export,
    hf_deepspeed_config,
    megatron_arguments,
)
from gradacc_desktop.core.frameworks.rules import RULES, Rule
from gradacc_desktop.core.memory.setup import (
    NOTE_TEXT,
    PROBLEM_TEXT,
    SetupNote,
    SetupProblem,
    TrainingSetup,
    note_text,
    problem_text,
    setup_notes,
    setup_problem,
)
from gradacc_desktop.core.memory.zero import ZeroStage


def _setup(**kw: object) -> TrainingSetup:
    values: dict[str, object] = {"micro_batch": 2, "accumulation_steps": 4, "gpus": 4}
    values.update(kw)
    return TrainingSetup(**values)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- setup rules


def test_world_is_dp_times_tp_times_pp_and_the_batch_stays_b_a_dp() -> None:
    setup = _setup(tensor_parallel=2, pipeline_stages=3, nodes=3)
    assert setup.world == 24
    assert setup.gpus_per_node == 8
    assert setup.effective_batch == 2 * 4 * 4
    assert setup.parallel
    assert not _setup().parallel and _setup().world == 4


@pytest.mark.parametrize("field", ["tensor_parallel", "pipeline_stages", "expert_parallel"])
@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_layout_sizes_are_validated(field: str, bad: object) -> None:
    with pytest.raises(ValueError):
        _setup(**{field: bad})


def test_nodes_split_the_world() -> None:
    # 4 data-parallel GPUs do not split over 8 nodes, but 4 x 2 x 2 = 16 do
    assert setup_problem(_setup(nodes=8)) is SetupProblem.UNEVEN_NODES
    assert setup_problem(_setup(nodes=8, tensor_parallel=2, pipeline_stages=2)) is None
    uneven = _setup(nodes=3, tensor_parallel=2)
    assert setup_problem(uneven) is SetupProblem.UNEVEN_NODES
    assert "8 GPUs" in problem_text(SetupProblem.UNEVEN_NODES, uneven)


def test_a_tensor_parallel_group_across_nodes_runs_and_is_said() -> None:
    # 4 x 4 = 16 GPUs on 8 nodes: 2 per node, a group of 4 spans two nodes: Megatron
    # and DeepSpeed run it, over the network on every layer
    spans = _setup(tensor_parallel=4, nodes=8)
    assert setup_problem(spans) is None
    assert setup_notes(spans) == (SetupNote.TENSOR_PARALLEL_ACROSS_NODES,)
    text = note_text(SetupNote.TENSOR_PARALLEL_ACROSS_NODES, spans)
    assert "4 GPUs" in text and "nodes of 2 GPUs" in text and "network" in text
    assert setup_notes(_setup(tensor_parallel=4, nodes=4)) == ()
    # 3 x 4 = 12 GPUs on 2 nodes of 6: the second group would be ranks 4..7
    assert setup_notes(_setup(gpus=3, tensor_parallel=4, nodes=2)) == (
        SetupNote.TENSOR_PARALLEL_ACROSS_NODES,
    )
    # pipeline stages may span nodes without a note
    assert setup_notes(_setup(gpus=1, pipeline_stages=8, nodes=8)) == ()
    # the framework's files are written for it
    assert "--tensor-model-parallel-size 4" in export(ExportFormat.MEGATRON, spans).text


def test_every_problem_has_a_message() -> None:
    assert set(PROBLEM_TEXT) == set(SetupProblem)
    assert set(NOTE_TEXT) == set(SetupNote)
    # the window fills them with problem_text's values only
    for text in PROBLEM_TEXT.values():
        text.format(gpus=1, nodes=1, tensor_parallel=1, gpus_per_node=1, group=1, span=1)


def test_expert_parallel_groups_tile_the_data_parallel_gpus() -> None:
    # expert parallelism adds no GPUs: it spreads the experts over the dp replicas
    setup = _setup(gpus=8, expert_parallel=4)
    assert setup.world == 8 and setup_problem(setup) is None
    assert not setup.parallel
    uneven = _setup(gpus=6, expert_parallel=4)
    assert setup_problem(uneven) is SetupProblem.EXPERT_PARALLEL_DATA
    assert "must divide the data-parallel GPUs" in problem_text(
        SetupProblem.EXPERT_PARALLEL_DATA, uneven
    )
    with pytest.raises(ValueError, match="expert-parallel size must divide"):
        export(ExportFormat.MEGATRON, uneven)


@pytest.mark.parametrize("fmt", list(ExportFormat))
def test_expert_parallelism_is_carried_or_noted(fmt: ExportFormat) -> None:
    setup = _setup(gpus=8, expert_parallel=4, nodes=2, tensor_parallel=2)
    exported = export(fmt, setup)
    assert exported.english_notes and "{" not in "".join(exported.english_notes)
    assert "routed experts spread over 4 of the data-parallel GPUs" in exported.text
    if fmt is ExportFormat.MEGATRON:
        assert "--expert-model-parallel-size 4" in exported.files["megatron_args.sh"]
    else:
        assert "--expert-model-parallel-size" not in exported.text


# --------------------------------------------------------------------------- no layout


@pytest.mark.parametrize("fmt", list(ExportFormat))
def test_no_notes_without_a_layout(fmt: ExportFormat) -> None:
    exported = export(fmt, _setup(zero_stage=ZeroStage(2)))
    assert exported.notes == ()
    assert "parallel:" not in exported.text and "note:" not in exported.text


# --------------------------------------------------------------------------- each format


LAYOUTS = [
    {"tensor_parallel": 2},
    {"pipeline_stages": 2},
    {"tensor_parallel": 2, "pipeline_stages": 2, "nodes": 2},
]


@pytest.mark.parametrize("fmt", list(ExportFormat))
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_every_format_notes_a_layout_and_stays_valid(
    fmt: ExportFormat, layout: dict[str, int]
) -> None:
    exported = export(fmt, _setup(**layout))
    assert exported.notes, "a layout always gets at least one note"
    main = next(c for n, c in exported.files.items() if not n.endswith(".json"))
    assert "# note: " in main
    # the layout the files carry, or the one asked for when they carry less
    assert "# parallel: " in main or "# asked for: " in main
    for name, content in exported.files.items():
        assert content.endswith("\n")
        if name.endswith(".py"):
            ast.parse(content)
        if name.endswith(".json"):
            json.loads(content)
        if name.endswith(".sh"):
            assert content.startswith("#!/usr/bin/env bash\n")


def _values(args: list[str]) -> dict[str, str]:
    return dict(a.split(" ", 1) if " " in a else (a, "") for a in args)


def test_megatron_carries_the_whole_layout() -> None:
    setup = _setup(tensor_parallel=4, pipeline_stages=2, nodes=2)
    values = _values(megatron_arguments(setup))
    assert values["--tensor-model-parallel-size"] == "4"
    assert values["--pipeline-model-parallel-size"] == "2"
    assert "--sequence-parallel" in values
    # global batch = b·a·dp; Megatron derives dp = world / (tp·pp)
    assert values["--global-batch-size"] == str(2 * 4 * 4)
    files = export(ExportFormat.MEGATRON, setup).files
    assert "torchrun --nnodes 2 --nproc_per_node 16 " in files["launch.sh"]
    no_tp = _values(megatron_arguments(_setup(pipeline_stages=2)))
    assert "--sequence-parallel" not in no_tp
    assert no_tp["--tensor-model-parallel-size"] == "1"


def test_deepspeed_autotp_leaves_train_batch_size_to_deepspeed() -> None:
    config = deepspeed_config(_setup(tensor_parallel=2))
    assert config["tensor_parallel"] == {"autotp_size": 2}
    assert "train_batch_size" not in config
    assert config["train_micro_batch_size_per_gpu"] == 2
    assert config["gradient_accumulation_steps"] == 4
    files = export(ExportFormat.DEEPSPEED, _setup(tensor_parallel=2)).files
    assert list(files) == ["ds_config.json", "launch.sh"]
    assert "--nproc_per_node 8 " in files["launch.sh"]


def test_deepspeed_pipeline_keeps_the_triple_with_dp() -> None:
    for layout in ({"pipeline_stages": 4}, {"pipeline_stages": 2, "tensor_parallel": 2}):
        setup = _setup(**layout)
        config = deepspeed_config(setup)
        assert config["train_batch_size"] == setup.effective_batch == 2 * 4 * 4
        assert "tensor_parallel" not in config
        exported = export(ExportFormat.DEEPSPEED, setup)
        assert any("PipelineModule" in n for n in exported.notes)
    zero2 = export(ExportFormat.DEEPSPEED, _setup(pipeline_stages=2, zero_stage=ZeroStage(2)))
    assert [r.rule for r in zero2.refusals] == [Rule.PIPELINE_ZERO]
    assert zero2.english_notes[0] == RULES[Rule.PIPELINE_ZERO].text.format(zero=2)


@pytest.mark.parametrize("fmt", [ExportFormat.HF, ExportFormat.HF_DEEPSPEED])
def test_hf_tensor_parallel_goes_through_autotp(fmt: ExportFormat) -> None:
    exported = export(fmt, _setup(tensor_parallel=2))
    config = json.loads(exported.files["ds_config.json"])
    assert config["tensor_parallel"] == {"autotp_size": 2}
    assert config["train_batch_size"] == "auto"
    assert 'deepspeed="ds_config.json"' in exported.files["train.py"]
    assert "--nproc_per_node 8 " in exported.files["launch.sh"]
    assert "autotp_size" not in json.dumps(hf_deepspeed_config(_setup(zero_stage=ZeroStage(1))))


@pytest.mark.parametrize(
    "fmt", [ExportFormat.HF, ExportFormat.ACCELERATE, ExportFormat.LIGHTNING, ExportFormat.TORCHRUN]
)
def test_formats_without_pipeline_leave_the_stages_out(fmt: ExportFormat) -> None:
    setup = _setup(pipeline_stages=4, nodes=2)
    exported = export(fmt, setup)
    assert any("pipeline stages" in n for n in exported.notes)
    launch = exported.files["launch.sh"]
    # the data-parallel part alone: 4 GPUs on 2 nodes, the batch unchanged
    assert "--nproc_per_node 2 " in launch or "num_processes" in exported.text
    assert "asked for: 4 data-parallel x 1 tensor-parallel x 4 pipeline" in exported.text
    assert str(setup.effective_batch) in launch


def test_dropped_dimensions_keep_the_nodes_that_still_split() -> None:
    # 1 data-parallel GPU x 4 stages on 4 nodes: without the stages, 1 GPU on 1 node
    exported = export(ExportFormat.TORCHRUN, _setup(gpus=1, pipeline_stages=4, nodes=4))
    assert "torchrun --nnodes 1 --nproc_per_node 1 train.py" in exported.files["launch.sh"]


def test_accelerate_runs_the_data_parallel_part() -> None:
    setup = _setup(tensor_parallel=2, pipeline_stages=2)
    exported = export(ExportFormat.ACCELERATE, setup)
    assert "num_processes: 4" in exported.files["accelerate_config.yaml"]
    assert len(exported.notes) == 2
    assert accelerate_config(_setup())["num_processes"] == 4


def test_lightning_model_parallel_strategy() -> None:
    exported = export(ExportFormat.LIGHTNING, _setup(tensor_parallel=2, nodes=2))
    train = exported.files["train.py"]
    assert "ModelParallelStrategy(data_parallel_size=4, tensor_parallel_size=2)" in train
    assert "devices=4," in train and "num_nodes=2," in train
    assert (
        "DeepSpeedStrategy"
        not in export(
            ExportFormat.LIGHTNING, _setup(tensor_parallel=2, zero_stage=ZeroStage(3))
        ).files["train.py"]
    )
