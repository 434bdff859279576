"""With GRADACC_ACTIVATION_TABLE=path, the measure tier writes every comparison it made
(estimate against autograd's saved bytes) as the markdown table docs/ACTIVATION.md
carries:  GRADACC_ACTIVATION_TABLE=docs/activation-measured.md make test-measure
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get("GRADACC_ACTIVATION_TABLE")
    if not target:
        return
    from tests.measure.harness import RECORDED

    if not RECORDED:
        return
    lines = [
        "| model type | head | shape | seq | attention | checkpointing | padded | dropout "
        "| cache | measured (bytes) | estimate (bytes) | error | params exact |",
        "|---|---|---|---:|---|---|---|---|---|---:|---:|---:|---|",
    ]
    worst: dict[str, float] = {}
    exact: dict[str, int] = {}
    for row in sorted(
        RECORDED,
        key=lambda r: (r["model_type"], r.get("head", ""), r["shape"], str(r["seq"]),
                       r["attention"], r["checkpointing"], r["padded"],
                       bool(r.get("use_cache"))),
    ):  # fmt: skip
        worst[row["model_type"]] = max(worst.get(row["model_type"], 0.0), abs(row["error"]))
        exact[row["model_type"]] = exact.get(row["model_type"], 0) + (
            row["measured"] == row["estimated"]
        )
        yes = {True: "yes", False: "no"}
        lines.append(
            f"| {row['model_type']} | {row.get('head', '')} | {row['shape']} | {row['seq']} "
            f"| {row['attention']} "
            f"| {yes[row['checkpointing']]} | {yes[row['padded']]} | {yes[row['dropout']]} "
            f"| {yes[bool(row.get('use_cache'))]} "
            f"| {row['measured']:,} | {row['estimated']:,} | {row['error']:+.2%} "
            f"| {'yes' if row['params_exact'] else 'NO'} |"
        )
    summary = [
        "| model type | comparisons | equal to the byte | largest error |",
        "|---|---:|---:|---:|",
    ]
    counts: dict[str, int] = {}
    for row in RECORDED:
        counts[row["model_type"]] = counts.get(row["model_type"], 0) + 1
    for model_type in sorted(worst):
        summary.append(
            f"| {model_type} | {counts[model_type]} | {exact[model_type]} "
            f"| {worst[model_type]:.4%} |"
        )
    import torch
    import transformers

    head = [
        "# The activation estimate against what autograd saves",
        "",
        "Written by the measure tier (`GRADACC_ACTIVATION_TABLE=docs/activation-measured.md "
        "make test-measure`): every comparison it made, random-weight models built from "
        f"small configs, bf16, CPU, one sample; torch {torch.__version__}, transformers "
        f"{transformers.__version__}. *params exact*: the parameter count equals "
        "`num_parameters()`.",
        "",
    ]
    text = "\n".join([*head, "## Summary", "", *summary, "", "## Every comparison", "", *lines, ""])
    Path(target).write_text(text, encoding="utf-8")
