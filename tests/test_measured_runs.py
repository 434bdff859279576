"""The plan against training runs whose step time and memory were measured
(``make measured-table``): the corpus cites where every figure comes from, a third of
each source is held out by rule, the goals hold (or are named as missed with what
stands in their way), and docs/TIME.md and docs/MEMORY.md show today's tables."""

from __future__ import annotations

import importlib.util
import sys
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def table() -> ModuleType:
    _load("time_table")
    return _load("measured_table")


@pytest.fixture(scope="module")
def corpus(table: ModuleType) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return table.load()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def found(table: ModuleType, corpus: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> list:  # type: ignore[type-arg]
    return table.rows(corpus[1])  # type: ignore[no-any-return]


def test_every_source_and_run_says_where_its_figures_come_from(
    corpus: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    sources, runs = corpus
    for s in sources:
        assert s["url"].startswith("https://"), s["id"]
        assert len(s["commit"]) == 40 and s["licence"] and s["how_read"], s["id"]
        assert s["framework"] in ("deepspeed", "megatron", "fsdp"), s["id"]
    ids = [r["id"] for r in runs]
    assert len(ids) == len(set(ids))
    for r in runs:
        assert r["row"], r["id"]
        assert r.get("measured") or r.get("memory"), r["id"]
        if r.get("measured"):
            assert Decimal(r["measured"]["step_seconds"]) > 0 and r["measured"]["as_stated"]
        if r.get("memory"):
            assert r["memory"]["kind"] in ("allocated", "reserved"), r["id"]
            assert Decimal(r["memory"]["gib"]) > 0
        dp, tp, pp = r["data_parallel"], r["tensor_parallel"], r["pipeline_parallel"]
        assert dp * tp * pp * r.get("context_parallel", 1) == r["gpus"], r["id"]
        assert r["global_batch"] % (r["micro_batch"] * dp) == 0, r["id"]


def test_enough_runs_from_enough_sources_with_a_third_held_out_by_rule(
    corpus: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    sources, runs = corpus
    timed = [r for r in runs if r.get("measured")]
    assert len(timed) >= 300
    repositories = {s["repository"] for s in sources}
    assert len(repositories) >= 5
    for s in sources:
        mine = [r for r in runs if r["source"] == s["id"]]
        assert [r["held_out"] for r in mine] == [i % 3 == 2 for i in range(len(mine))]
    # memory measured on each framework, and which figure it is
    kinds = {(r["framework"], r["memory"]["kind"]) for r in runs if r.get("memory")}
    assert {f for f, _ in kinds} == {"deepspeed", "megatron", "fsdp"}
    assert {k for _, k in kinds} == {"allocated", "reserved"}


def test_the_goals_hold_or_are_named_with_what_stands_in_their_way(
    table: ModuleType,
    found: list,  # type: ignore[type-arg]
) -> None:
    judged = table.goals(found, table.published_summary())
    keys = {g.key for g in judged}
    assert {"time-median", "time-within", "trade", "memory-median", "memory-fsdp"} <= keys
    assert table.check(judged) == []
    # the overall step-time goals and the trade hold
    met = {g.key for g in judged if g.met}
    assert {"time-median", "time-within", "trade", "published-median"} <= met


def test_the_pages_show_todays_tables(table: ModuleType) -> None:
    assert table.main(["--check"]) == 0, "run make measured-table"
