"""GPT-NeoX's arguments as gradacc reads them: the fields of ``NeoXArgs`` at one commit
of EleutherAI/gpt-neox (``neox_keys.NEOX_VERSION``), said in the report, and the keys
that commit refuses though other GPT-NeoX code has them (unmerged branches such as
AxoNN's, arguments main removed).

The rules replayed are megatron/neox_arguments/arguments.py ``from_ymls()`` (``-`` read
as ``_``, then ``NeoXArgs(**config)``, a ``TypeError`` for a key that is not a field)
and ``calculate_derived()``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import ConfigKind, ImportedConfig, read_config
from gradacc_desktop.core.frameworks.config_import.neox_keys import (
    NEOX_ARGUMENT_CLASSES,
    NEOX_BRANCH_KEYS,
    NEOX_COMMIT,
    NEOX_KEYS,
    NEOX_REMOVED_KEYS,
    NEOX_VERSION,
)

VERSION = "GPT-NeoX 2.0.0 (main at ea7aefd, 2026-05-19)"
NOT_AN_ARGUMENT = (
    f"{VERSION} refuses keys that are not NeoX arguments (NeoXArgs(**config) raises TypeError)"
)

# the keys of configs/125M.yml on the add-axonn-3d-TP branch (28443c6) that main lacks
AXONN = {
    "use_axonn_model_parallelism": True,
    "depth_model_parallel_size": 2,
    "row_model_parallel_size": 1,
    "column_model_parallel_size": 1,
    "optimize_axonn_communication": True,
}


def neox(**keys: Any) -> ImportedConfig:
    return read_config(json.dumps({"pipe_parallel_size": 1, **keys}))


def unknown(config: ImportedConfig) -> dict[str, tuple[str | None, bool, str]]:
    return {u.key: (u.suggestion, u.refused, u.reason) for u in config.unknown_keys}


def test_the_version_read() -> None:
    assert NEOX_COMMIT == "ea7aefd8f8e183256992d9fede4d7c71a46d67a5"
    assert f"GPT-NeoX {NEOX_VERSION}" == VERSION


def test_the_keys_are_the_fields_of_neoxargs_base_classes() -> None:
    # arguments.py BASE_CLASSES: twelve classes, no field in two of them (validate_keys)
    assert list(NEOX_ARGUMENT_CLASSES) == [
        "NeoXArgsDeepspeedRunner",
        "NeoXArgsDeepspeedConfig",
        "NeoXArgsModel",
        "NeoXArgsMoE",
        "NeoXArgsLRScheduler",
        "NeoXArgsOptimizer",
        "NeoXArgsTokenizer",
        "NeoXArgsTraining",
        "NeoXArgsParallelism",
        "NeoXArgsLogging",
        "NeoXArgsTextgen",
        "NeoXArgsOther",
    ]
    sizes = [len(fields) for fields in NEOX_ARGUMENT_CLASSES.values()]
    assert sum(sizes) == len(NEOX_KEYS) == 318
    # class attributes without an annotation are not fields
    assert not {"tensorboard_writer", "tokenizer", "adlr_autoresume_object"} & NEOX_KEYS
    # arguments added since the 2024 source read before
    assert {
        "moe_router_type",
        "moe_expert_interval",
        "wandb_run_name",
        "peak_theoretical_tflops",
        "fused_kernels_build_path",
        "serve_model_weights",
        "weight_server_port",
        "online_dataserver_ips",
        "online_dataserver_ports",
        "kl_div_beta",
        "kl_impl",
        "fp32_reinforce",
        "reinforce_leave_one_out",
    } <= NEOX_KEYS
    assert {"moe_num_experts", "moe_top_k"} <= NEOX_ARGUMENT_CLASSES["NeoXArgsMoE"]
    # main refuses the keys of other branches and the removed ones
    assert not (set(NEOX_BRANCH_KEYS) | set(NEOX_REMOVED_KEYS)) & NEOX_KEYS


def test_new_arguments_are_read_with_dashes_too() -> None:
    config = neox(**{"moe-router-type": "sinkhorn", "wandb_run_name": "x", "kl_div_beta": 0.1})
    assert config.kind is ConfigKind.NEOX and config.unknown_keys == ()


def test_the_report_says_which_neox_it_read() -> None:
    config = neox(train_micro_batch_size_per_gpu=4)
    note = f"read as {VERSION} reads it (its NeoXArgs fields and calculate_derived())"
    assert note in config.notes and note in config.derived(8).notes
    # the unknown-key refusal names it too
    typo = neox(seq_lenght=2048)
    assert unknown(typo) == {"seq_lenght": ("seq_length", True, NOT_AN_ARGUMENT)}


def test_axonn_keys_are_refused_as_main_refuses_them() -> None:
    # NeoXArgs at ea7aefd: TypeError "unexpected keyword argument
    # 'use_axonn_model_parallelism'"; only the unmerged add-axonn-3d-TP branch has them
    config = neox(model_parallel_size=2, train_micro_batch_size_per_gpu=4, **AXONN)
    found = unknown(config)
    assert list(found) == list(AXONN)
    for suggestion, refused_it, reason in found.values():
        assert suggestion is None and refused_it is True
        assert reason == (
            f"{VERSION} refuses it (NeoXArgs(**config) raises TypeError): only its "
            "unmerged branch add-axonn-3d-TP (28443c6) has this argument"
        )


def test_context_parallel_size_is_refused_and_not_read() -> None:
    # only the add-context-parallel-support branch divides the GPUs by it
    config = neox(context_parallel_size=2, train_micro_batch_size_per_gpu=4)
    suggestion, refused_it, reason = unknown(config)["context_parallel_size"]
    assert suggestion is None and refused_it
    assert "add-context-parallel-support (5f13813)" in reason
    assert [name for name, _size, _key in config.parallel] == ["pipeline"]
    assert config.derived(8).data_parallel == 8


@pytest.mark.parametrize(
    ("key", "commit", "suggestion"),
    [
        ("mlp_type", "adbf5d6 (2024-09-10)", None),
        ("gas", "91c44bc (2024-02-05)", None),
        ("expert_interval", "d11df96 (2025-05-09)", "moe_expert_interval"),
        ("moe_type", "d11df96 (2025-05-09)", None),
        ("detect_nvlink_pairs", "9107b25 (2025-02-18)", None),
    ],
)
def test_removed_arguments_say_when(key: str, commit: str, suggestion: str | None) -> None:
    config = neox(**{key: 1})
    got_suggestion, refused_it, reason = unknown(config)[key]
    assert refused_it and reason.endswith(f"the argument was removed in commit {commit}")
    assert reason.startswith(f"{VERSION} refuses it") and got_suggestion == suggestion


def test_cli_exit_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "125M.yml"
    text = (
        "{\n  # parallelism\n  'pipe_parallel_size': 0,\n  'model_parallel_size': 2,\n"
        "  'train_micro_batch_size_per_gpu': 4,\n  'seq_length': 2048,\n"
        "  'zero_optimization': {'stage': 1},\n}\n"
    )
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(path), "--json", "--world-size", "8"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "gpt-neox" and data["data_parallel_size"] == 4
    assert any(VERSION in n for n in data["derived"]["notes"])
    path.write_text(text.replace("  # parallelism\n", "  'use_axonn_model_parallelism': true,\n"))
    assert main(["check", str(path), "--world-size", "8"]) == 1
    out = capsys.readouterr().out
    assert "Refused: use_axonn_model_parallelism: " in out
    assert f"Derived: read as {VERSION} reads it" in out
