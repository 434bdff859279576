"""The time model against published training runs (``make time-table``): every run
cites its figure, the table covers every kind of layout, and docs/TIME.md shows
today's table (its goal is judged with the measured runs', tests/test_measured_runs.py)."""

from __future__ import annotations

import importlib.util
import sys
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def table() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "time_table", ROOT / "benchmarks" / "time_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["time_table"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(table: ModuleType) -> list:  # type: ignore[type-arg]
    return table.rows(table.load_runs())  # type: ignore[no-any-return]


def test_every_run_cites_its_source_and_how_its_figure_was_derived(table: ModuleType) -> None:
    for run in table.load_runs():
        assert run["url"].startswith("https://"), run["id"]
        assert run["source"] and run["derivation"] and run["flops_formula"], run["id"]
        assert Decimal(run["tokens_per_second_per_gpu"]) > 0
        assert run["published"]["as_stated"], run["id"]


def test_both_fitted_generations_and_every_kind_of_layout_are_covered(rows: list) -> None:  # type: ignore[type-arg]
    counted = [r.run for r in rows if r.counted]
    assert {r["card"] for r in counted} >= {"a100-80gb", "a100-40gb", "h100-80gb"}
    assert any(r["virtual_stages"] > 1 for r in counted)
    assert any(r["zero_stage"] == 3 and r["gpus"] > r["gpus_per_node"] for r in counted)
    assert any(r["precision"] == "fp8" for r in counted)
    assert any(not r["flash_attention"] for r in counted)


def test_the_page_shows_todays_table(table: ModuleType) -> None:
    assert table.main(["--check"]) == 0, "run make time-table"
